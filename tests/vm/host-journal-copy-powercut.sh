#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Journal copies survive a power cut (issue 16 items 2-3), run on the
# HOST by make check (scripts/vmtest journal-copy-powercut): two boots
# per config, the first killed, like tests/vm/host-failure-powercut.sh.
#
#   host-journal-copy-powercut.sh [--configs "SLOTS..."]
#
# A config is the journal_copy slot count, 0 for the control (plain
# sync 1).  Default "64 0".  Layout ew, mirrors 2, two members, each an
# ewfault device over a guest disk (disk00, disk01), as in
# test-journal-copy.sh; disk02 carries the write log to the second boot.
#
# The metadata disk (an image file, rotational to the guest's queue) is
# marked non-rotational in sysfs, as the SSD it stands for.
#
#   boot 1   a new array (sync 1 [journal_copy SLOTS]); member 1 looks
#            expensive to the head predictor and its completions are
#            held (ewfault delay_ms), so every write's one foreground
#            replica goes to member 0 and its delayed replica does not
#            become current; NBLK generation-checked writes, each
#            fdatasync'ed, acknowledged to the host over the channel
#            (within 40 s of a 60 s hold: not by waiting for member 1);
#            then member 0 becomes dm-error and the power is cut.
#   boot 2   member 0 is still dead: the array is reassembled from the
#            same table with "-" in its place (ewfault over disk01
#            again, nothing held); ewprobe verify against the log.
#            journal_copy: every acknowledged write is there (lost 0),
#            restored from the copy slots; the control loses some (the
#            run fails if it loses none: it could not tell the two apart).
# Prints "ok - NAME" / "not ok - NAME"; exits non-zero on any failure.
set -u
NBLK=16
GEN_BLOCKS=16

# ---- in the guest ----
if [ "${1-}" = --guest ]; then
	step=$2 slots=$3 arg=$4
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
	export DM_DISABLE_UDEV=1
	# shellcheck source=tests/vm/target-lib.sh
	. "$EW_TESTS/vm/target-lib.sh"
	# shellcheck source=tests/vm/persist-lib.sh
	. "$EW_TESTS/vm/persist-lib.sh"
	mapfile -t disks </ew/disks
	load_target || { notok "module loaded"; finish; }
	load_ewfault || { notok "ewfault module loaded"; finish; }
	# the metadata disk is a virtio disk over an image file, rotational
	# to the queue: mark it as the SSD it stands for, or journal_copy
	# runs as sync 2 (eagerwrite.rst, "Journal copies")
	mb=$(basename "$(readlink -f "$EW_META")")
	echo 0 >"/sys/block/$mb/queue/rotational" 2>/dev/null
	check "metadata device $mb non-rotational" \
		test "$(cat "/sys/block/$mb/queue/rotational")" = 0
	klog_mark
	jc=""
	[ "$slots" -gt 0 ] && jc="--journal-copy $slots"
	name="sync 1${jc:+ journal_copy $slots}"
	members() {
		# shellcheck disable=SC2086
		ewctl table --layout ew --sync 1 $jc --len 8M --metadata "$EW_META" \
			/dev/mapper/ewq0 /dev/mapper/ewq1 2>/dev/null
	}

	if [ "$step" = write ]; then
		ewfault_members ewq 2 || { notok "$name: members"; finish; }
		check "$name: create" dmsetup create pc --table "$(members)"
		[ -b /dev/mapper/pc ] || finish
		dmsetup message pc 0 disk_param 1 overhead_ns 50000000
		dmsetup message ewq1 0 delay_ms 60000
		t0=$(date +%s)
		check "$name: $NBLK writes acknowledged while member 1 is held" \
			timeout 40 ewprobe write --log "$EW_CHANNEL" --count $NBLK \
			--blocks "$GEN_BLOCKS" --force /dev/mapper/pc
		note "$name: in $(($(date +%s) - t0)) s; status: $(dmsetup status pc)"
		check "$name: member 0 switched to dm-error" sh -c \
			"dmsetup reload ewq0 --table '0 $(blockdev --getsz "${disks[0]}") error' && dmsetup resume ewq0"
		echo "EW-POWERCUT-NOW"
		sleep 120
		notok "$name: the power cut did not come"
		finish
	fi

	# verify: arg is the length of the log on disk02
	head -c "$arg" "${disks[2]}" >/tmp/log
	# both ewfault devices, so that ewctl table sizes the same line;
	# the array then gets "-" for member 0 (its disk is dead)
	for i in 0 1; do
		sz=$(blockdev --getsz "${disks[$i]}")
		dmsetup create "ewq$i" --table "0 $sz ewfault ${disks[$i]} 0" ||
			{ notok "$name: member $i"; finish; }
	done
	table=$(members)
	table2=${table/\/dev\/mapper\/ewq0 /- }
	check "$name: reassemble with member 0 missing (-)" \
		sh -c "[ '$table2' != '$table' ] && dmsetup create pc --table '$table2'"
	[ -b /dev/mapper/pc ] || finish
	note "$name: after reassembly: $(dmsetup status pc)"
	if [ "$slots" -gt 0 ]; then
		check "$name: every acknowledged write survived the failure and the cut" \
			pl_ewprobe_verify after-cut /dev/mapper/pc /tmp/log
		check "$name: kernel log clean" klog_clean
	elif pl_ewprobe_verify after-cut /dev/mapper/pc /tmp/log; then
		notok "$name: control: acknowledged writes lost (none lost: the control cannot tell)"
	else
		ok "$name: control: acknowledged writes lost"
	fi
	dmsetup remove pc
	finish
fi

# ---- on the host ----
main() {
	if [ -e /ew/config ]; then
		echo "not ok - $(basename "$0") runs on the host (it boots the guest itself)"
		exit 1
	fi
	configs="64 0"
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
	pl_host_begin jcopy-powercut --disks 3 --disk-size 48M --meta-size 16M
	for slots in $configs; do
		rm -f "$dir"/*.img "$dir/channel.log"
		t0=$SECONDS
		pl_boot_cut "$slots" 0
		rc=$pl_rc
		acks=$(grep -acE '^EWPROBE ack ' "$dir/channel.log")
		if [ $rc = 137 ] && [ "$acks" -ge 1 ]; then
			ok "journal_copy $slots: power cut after member 0 failed, $acks acks ($((SECONDS - t0)) s)"
		else
			notok "journal_copy $slots: power cut after member 0 failed (vm-run exit $rc, $acks acks)"
			tail -n 8 "$dir/boot1.log" | sed 's/^/#   /'
			continue
		fi
		t0=$SECONDS
		pl_boot_verify disk02.img "$slots"
		rc=$pl_rc
		if [ $rc = 0 ]; then
			ok "journal_copy $slots: boot 2, reassembly with member 0 dead and verify ($((SECONDS - t0)) s)"
		else
			notok "journal_copy $slots: boot 2, reassembly with member 0 dead and verify (vm-run exit $rc)"
		fi
	done
	[ "$fails" -eq 0 ]
}
main "$@"; exit $?
