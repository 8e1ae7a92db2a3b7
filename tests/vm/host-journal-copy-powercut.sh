#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Journal copies survive a power cut (issue 16 items 2-4), run on the
# HOST by make check (scripts/vmtest journal-copy-powercut): two boots,
# the first killed, like tests/vm/host-failure-powercut.sh.  Every config
# is an array of its own in the same two boots (one pair of boots for
# all: a boot costs more than an array).
#
#   host-journal-copy-powercut.sh [--configs "LAYOUT:SLOTS[:ckpt]..."]
#
# A config is a layout (raid10, ddm, ew; mirrors 2, sync 1) and its
# journal_copy slot count, 0 for plain sync 1 (a control).  Default:
#   raid10:64 ddm:64 ew:64 raid10:0 ddm:0 ew:0 ew:512:ckpt
# Array G has three guest disks: members 3G and 3G+1, each under an
# ewfault device (gGq0, gGq1), metadata 3G+2, marked non-rotational in
# sysfs as the SSD it stands for (else journal_copy runs as sync 2); the
# last disk carries the write log to the second boot.
#
#   boot 1   window configs, one array after the other: member 1 looks
#            expensive to the head predictor and its completions are held
#            (ewfault delay_ms 60 s), so that every write's foreground
#            replica goes to member 0 and its delayed replica does not
#            become current; NBLK generation-checked writes, each
#            fdatasync'ed, acknowledged to the host over the channel
#            (within 40 s of the hold: not by waiting for member 1).
#            raid10 writes each block once (64 blocks, seed 1): a rewrite
#            of a block whose delayed copy to its fixed home is in flight
#            waits for that copy (here the whole hold).
#            ckpt (issue 16 item 4): the same hold, ewprobe writes on with
#            no count, and the power is cut as soon as the periodic
#            checkpoint has carried live copies (status field 19 > 0,
#            slots in use) with the writer still writing; member 0 is
#            alive at the cut.
#            Then member 0 of every window array becomes dm-error and the
#            power is cut.
#   boot 2   member 0 of every array is dead (for ckpt: it died after the
#            cut): each array is reassembled from the same table with "-"
#            for member 0 (ewfault over member 1 again, nothing held);
#            ewprobe verify --scan against the array's part of the log.
#            journal_copy: every acknowledged write is there (lost 0),
#            restored from the copy slots (for ckpt: from the COPY records
#            the checkpoint carried into the journal it kept).  A control
#            (SLOTS 0) must lose some (the run fails if it loses none: it
#            could not tell the two apart).
# Prints "ok - NAME" / "not ok - NAME"; exits non-zero on any failure.
set -u
NBLK=16
CONFIGS="raid10:64 ddm:64 ew:64 raid10:0 ddm:0 ew:0 ew:512:ckpt"

# ---- in the guest ----
if [ "${1-}" = --guest ]; then
	step=$2 configs=$3 arg=${4-}
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
	export DM_DISABLE_UDEV=1
	# shellcheck source=tests/vm/target-lib.sh
	. "$EW_TESTS/vm/target-lib.sh"
	# shellcheck source=tests/vm/persist-lib.sh
	. "$EW_TESTS/vm/persist-lib.sh"
	mapfile -t disks </ew/disks
	load_target || { notok "module loaded"; finish; }
	load_ewfault || { notok "ewfault module loaded"; finish; }
	logdisk=${disks[${#disks[@]} - 1]}
	read -r -a cfgs <<<"$configs"

	# config G: sets lay, slots, ckpt, name, meta
	config() {
		local c=${cfgs[$1]}
		lay=${c%%:*} c=${c#*:}
		slots=${c%%:*} ckpt=
		[ "$c" != "$slots" ] && ckpt=1
		name="$lay sync 1"
		[ "$slots" -gt 0 ] && name="$name journal_copy $slots"
		[ -n "$ckpt" ] && name="$name, checkpoint"
		meta=${disks[$(($1 * 3 + 2))]}
	}
	# members G: ewfault devices gGq0, gGq1 over the group's disks
	members() {
		local i d
		for i in 0 1; do
			d=${disks[$(($1 * 3 + i))]}
			dmsetup create "g$1q$i" --table \
				"0 $(blockdev --getsz "$d") ewfault $d 0" || return 1
		done
	}
	table() {
		local jc=""
		[ "$slots" -gt 0 ] && jc="--journal-copy $slots"
		# shellcheck disable=SC2086
		ewctl table --layout "$lay" --sync 1 $jc --len 8M --metadata "$meta" \
			"/dev/mapper/g$1q0" "/dev/mapper/g$1q1" 2>/dev/null
	}
	# ewprobe's choice of blocks: raid10 writes each block once (header)
	probe_args() {
		if [ "$lay" = raid10 ]; then echo "--blocks 64 --seed 1"
		else echo "--blocks 16"; fi
	}
	kill_member0() {
		dmsetup reload "g$1q0" --table \
			"0 $(blockdev --getsz "${disks[$(($1 * 3))]}") error" &&
			dmsetup resume "g$1q0"
	}
	nonrot() {
		local mb
		mb=$(basename "$(readlink -f "$1")")
		echo 0 >"/sys/block/$mb/queue/rotational" 2>/dev/null
		test "$(cat "/sys/block/$mb/queue/rotational")" = 0
	}
	klog_mark

	if [ "$step" = write ]; then
		ck=
		for g in "${!cfgs[@]}"; do
			config "$g"
			check "$name: metadata device non-rotational" nonrot "$meta"
			dd if=/dev/zero of="$meta" bs=1M count=1 oflag=direct status=none
			for i in 0 1; do
				dd if=/dev/zero of="${disks[$((g * 3 + i))]}" bs=4096 \
					count=1 oflag=direct status=none
			done
			members "$g" || { notok "$name: members"; continue; }
			check "$name: create" dmsetup create "pc$g" --table "$(table "$g")" ||
				continue
			dmsetup message "pc$g" 0 disk_param 1 overhead_ns 50000000
			dmsetup message "g${g}q1" 0 delay_ms 60000
			if [ -n "$ckpt" ]; then
				ck=$g
				continue
			fi
			echo "EW-JCPC-RUN $g" >"$EW_CHANNEL"
			t0=$(date +%s)
			# shellcheck disable=SC2046
			check "$name: $NBLK writes acknowledged while member 1 is held" \
				timeout 40 ewprobe write --log "$EW_CHANNEL" --count $NBLK \
				$(probe_args) --force "/dev/mapper/pc$g"
			note "$name: in $(($(date +%s) - t0)) s; status: $(dmsetup status "pc$g")"
		done
		if [ -n "$ck" ]; then
			config "$ck"
			echo "EW-JCPC-RUN $ck" >"$EW_CHANNEL"
			# shellcheck disable=SC2046
			ewprobe write --log "$EW_CHANNEL" --seconds 100 $(probe_args) \
				--force "/dev/mapper/pc$ck" >/tmp/ck-w.out 2>&1 &
			wpid=$!
			t0=$(date +%s)
			for _ in $(seq 300); do
				[ "$(status_field "pc$ck" 19)" -gt 0 ] 2>/dev/null && break
				sleep 0.1
			done
			st=$(dmsetup status "pc$ck")
			note "$name: after $(($(date +%s) - t0)) s: status: $st"
			check "$name: a checkpoint taken with copies live" \
				test "$(echo "$st" | awk '{ print $22 }')" -gt 0 -a \
				"$(echo "$st" | awk '{ s = $34; sub("/.*", "", s); print s }')" -gt 0
			check "$name: writes in flight at the cut" kill -0 "$wpid"
		fi
		for g in "${!cfgs[@]}"; do
			[ "$g" = "$ck" ] && continue
			config "$g"
			check "$name: member 0 switched to dm-error" kill_member0 "$g"
		done
		echo "EW-POWERCUT-NOW"
		sleep 120
		notok "the power cut did not come"
		finish
	fi

	# verify: arg is the length of the log on the last disk
	head -c "$arg" "$logdisk" >/tmp/log
	for g in "${!cfgs[@]}"; do
		config "$g"
		awk -v g="$g" '/^EW-JCPC-RUN / { cur = $2; next } cur == g' \
			/tmp/log >"/tmp/log$g"
		# both ewfault devices, so that ewctl table sizes the same line;
		# the array then gets "-" for member 0 (its disk is dead)
		members "$g" || { notok "$name: members"; continue; }
		t=$(table "$g")
		t2=${t/\/dev\/mapper\/g${g}q0 /- }
		check "$name: reassemble with member 0 missing (-)" \
			sh -c "[ '$t2' != '$t' ] && dmsetup create pc$g --table '$t2'" ||
			continue
		note "$name: after reassembly: $(dmsetup status "pc$g")"
		if [ "$slots" -gt 0 ]; then
			check "$name: every acknowledged write survived the failure and the cut" \
				pl_ewprobe_verify "$name" "/dev/mapper/pc$g" "/tmp/log$g"
		elif pl_ewprobe_verify "$name" "/dev/mapper/pc$g" "/tmp/log$g"; then
			notok "$name: control: acknowledged writes lost (none lost: the control cannot tell)"
		else
			ok "$name: control: acknowledged writes lost"
		fi
		dmsetup remove "pc$g"
	done
	check "kernel log clean" klog_clean
	finish
fi

# ---- on the host ----
main() {
	if [ -e /ew/config ]; then
		echo "not ok - $(basename "$0") runs on the host (it boots the guest itself)"
		exit 1
	fi
	configs=$CONFIGS
	while [ $# -gt 0 ]; do
		case $1 in
		--configs) configs=$2; shift 2 ;;
		-h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;/^set -u/d'; exit 0 ;;
		*) echo "host-journal-copy-powercut: unknown argument $1" >&2; exit 2 ;;
		esac
	done
	top=$(cd "$(dirname "$0")/../.." && pwd)
	# shellcheck source=tests/vm/persist-lib.sh
	. "$top/tests/vm/persist-lib.sh"
	n=$(echo "$configs" | wc -w)
	pl_host_begin jcopy-powercut --disks $((n * 3 + 1)) --disk-size 32M \
		--meta-size 4M
	t0=$SECONDS
	pl_boot_cut "$configs"
	if ! pl_cut_checked "power cut after the member failures"; then
		[ "$fails" -eq 0 ]
		return
	fi
	t0=$SECONDS
	pl_boot_verify "disk$(printf %02d $((n * 3))).img" "$configs"
	rc=$pl_rc
	if [ $rc = 0 ]; then
		ok "boot 2, reassembly with member 0 dead and verify ($((SECONDS - t0)) s)"
	else
		notok "boot 2, reassembly with member 0 dead and verify (vm-run exit $rc)"
	fi
	[ "$fails" -eq 0 ]
}
main "$@"; exit $?
