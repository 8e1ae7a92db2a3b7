#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A member failure, then a power cut right after it (issue 16), run on the
# HOST by make check (scripts/vmtest failure-powercut): two boots per
# config, the first killed, like tests/vm/host-crash-rebuild.sh.
#
#   host-failure-powercut.sh [--configs "LAYOUT:SYNC..."] [--seed X]
#
# Default configs raid10:2 ddm:2 ew:2 (the default mode, sync 2, on each
# layout).  Guest disks: disk00..03 the members (each under a dm-linear
# device ewm0..3, so that it can become dm-error under the array),
# disk04 carries the write log from the first boot to the second.
#
#   boot 1   a new array over ewm0..3; ewprobe write on it (intents and
#            acks go to the host over the channel, before the write and
#            after its sync); after 2 s member 1 becomes dm-error; after
#            a random 0.2 to 1.5 s more (from the printed seed; ewprobe
#            still writing, the failure perhaps not yet in the
#            superblock) the power is cut.
#   host     checks the cut came and the log carried acks written after
#            the failure, copies the log onto disk04.
#   boot 2   member 1 is still dead (the disk did not come back with the
#            power): the array is reassembled from the same table with
#            ``-`` (a missing member) in its place; ewprobe verify: every acknowledged write is there
#            from the surviving replicas (lost 0), no block holds data
#            it never had (corrupt 0, foreign 0).  ewprobe's records
#            carry a generation, so a stale replica returned for a block
#            rewritten later is caught (fio's verify_only cannot: issue
#            19).  Control: the last acknowledged block zeroed through
#            the target must be reported lost.
# Prints "ok - NAME" / "not ok - NAME"; exits non-zero on any failure.
set -u

# ---- in the guest ----
if [ "${1-}" = --guest ]; then
	step=$2 cfg=$3 arg=$4
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
	# shellcheck source=tests/vm/target-lib.sh
	. "$EW_TESTS/vm/target-lib.sh"
	# shellcheck source=tests/vm/persist-lib.sh
	. "$EW_TESTS/vm/persist-lib.sh"
	mapfile -t disks </ew/disks
	meta=$EW_META
	SZ=$(blockdev --getsz "${disks[0]}")
	load_target || { notok "module loaded"; finish; }
	klog_mark
	for i in 0 1 2 3; do
		dmsetup create "ewm$i" --table "0 $SZ linear ${disks[$i]} 0" ||
			{ notok "ewm$i"; finish; }
	done
	members="/dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3"
	# shellcheck disable=SC2086
	table=$(ewctl table --layout "${cfg%%:*}" --sync "${cfg##*:}" \
		--metadata "$meta" $members 2>/dev/null)
	# after the cut: member 1 is missing
	table2=${table/\/dev\/mapper\/ewm1 /- }

	if [ "$step" = write ]; then
		pl_fresh "$meta" "${disks[@]:0:4}" || { notok "clear the devices"; finish; }
		check "$cfg: create" dmsetup create pc --table "$table"
		[ -b /dev/mapper/pc ] || finish
		blocks=$(( $(blockdev --getsz /dev/mapper/pc) / 8 ))
		[ "$blocks" -gt 4096 ] && blocks=4096
		ewprobe write --log "$EW_CHANNEL" --seconds 3600 --blocks "$blocks" \
			--force /dev/mapper/pc &
		sleep 2
		echo "EW-MEMBER-FAILING" >"$EW_CHANNEL"
		check "$cfg: member 1 switched to dm-error under ewprobe" sh -c \
			"dmsetup reload ewm1 --table '0 $SZ error' && dmsetup resume ewm1"
		sleep "$arg"
		note "$cfg: at the cut: $(dmsetup status pc)"
		echo "EW-POWERCUT-NOW"
		sleep 120
		notok "$cfg: the power cut did not come"
		finish
	fi

	# verify: arg is the length of the log on disk04
	head -c "$arg" "${disks[4]}" >/tmp/log
	check "$cfg: reassemble with member 1 missing (-)" \
		sh -c "[ '$table2' != '$table' ] && dmsetup create pc --table '$table2'"
	[ -b /dev/mapper/pc ] || finish
	note "$cfg: after reassembly: $(dmsetup status pc)"
	check "$cfg: every acknowledged write survived the failure and the cut" \
		pl_ewprobe_verify after-cut /dev/mapper/pc /tmp/log
	blk=$(pl_ewprobe_last_ack /tmp/log)
	check "$cfg: control: the last acknowledged block (block ${blk:-none}) zeroed is reported lost" \
		pl_ewprobe_control /dev/mapper/pc /tmp/log "$blk"
	check "$cfg: remove" dmsetup remove pc
	check "$cfg: kernel log clean" klog_clean
	finish
fi

# ---- on the host ----
main() {
	if [ -e /ew/config ]; then
		echo "not ok - $(basename "$0") runs on the host (it boots the guest itself)"
		exit 1
	fi
	configs="raid10:2 ddm:2 ew:2" seed=$(( $(date +%s) % 100000 ))
	while [ $# -gt 0 ]; do
		case $1 in
		--configs) configs=$2; shift 2 ;;
		--seed) seed=$2; shift 2 ;;
		-h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;/^set -u/d'; exit 0 ;;
		*) echo "host-failure-powercut: unknown argument $1" >&2; exit 2 ;;
		esac
	done
	top=$(cd "$(dirname "$0")/../.." && pwd)
	# shellcheck source=tests/vm/persist-lib.sh
	. "$top/tests/vm/persist-lib.sh"
	pl_host_begin failure-powercut --disks 5 --disk-size 32M --meta-size 16M
	RANDOM=$seed
	echo "# configs $configs; seed $seed"
	for cfg in $configs; do
		rm -f "$dir"/*.img
		delay=$(awk -v m=$((RANDOM % 1301)) 'BEGIN { printf "%.3f", 0.2 + m / 1000 }')
		t0=$SECONDS
		pl_boot_cut "$cfg" "$delay"
		rc=$pl_rc
		# acks written after the failure began: the cut comes right
		# after a failure, with writes going on
		after=$(sed -n '/^EW-MEMBER-FAILING/,$p' "$dir/channel.log" |
			grep -acE '^EWPROBE ack ')
		if [ $rc = 137 ] && [ "$after" -ge 1 ]; then
			ok "$cfg: power cut ${delay} s after member 1 failed, $after acks after the failure ($((SECONDS - t0)) s)"
		else
			notok "$cfg: power cut ${delay} s after member 1 failed (vm-run exit $rc, $after acks after the failure)"
			tail -n 8 "$dir/boot1.log" | sed 's/^/#   /'
			continue
		fi
		t0=$SECONDS
		pl_boot_verify disk04.img "$cfg"
		rc=$pl_rc
		if [ $rc = 0 ]; then
			ok "$cfg: boot 2, reassembly with member 1 dead and verify ($((SECONDS - t0)) s)"
		else
			notok "$cfg: boot 2, reassembly with member 1 dead and verify (vm-run exit $rc)"
		fi
	done
	[ "$fails" -eq 0 ]
}
main "$@"; exit $?
