#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A power cut during a rebuild (issue 6 on issue 5's persistence), run on
# the HOST by make check (scripts/vmtest crash-rebuild): two boots per
# config, the first killed, like tests/vm/ewprobe-powercut.sh.  1 min
# 47 s for the default config (load 4-6), 3 min 40 s at load 10-13.
#
#   host-crash-rebuild.sh [--configs "LAYOUT:SYNC..."] [--seed X]
#
# Default configs ew:2 and ddm:2 (ddm rebuilds its home replicas into
# free blocks and moves them home after: a cut may come in either).  The
# volume is filled with zeros first, so that the rebuild has every block
# to copy.  Guest disks: disk00..03 the members (each under a dm-linear
# device ewm0..3, so that it can become dm-error under the array),
# disk04 the spare (under ewspare), disk05 carries the write log from
# the first boot to the second.
#
#   boot 1   a new array over ewm0..3; ewprobe write on it (intents and
#            acks go to the host over the channel); member 1 becomes
#            dm-error and is failed; the spare replaces it (rebuild_rate 1
#            MiB/s, so that the rebuild is still running); after a random
#            0.5 to 3 s (from the printed seed) the power is cut, ewprobe
#            still writing.
#   host     checks the cut came and the log carried the run, copies the
#            log onto disk05.
#   boot 2   reassembles from the table with the spare: the rebuild
#            resumes (kernel log), runs to its end unthrottled; ewprobe
#            verify: every acknowledged write is there, no foreign data;
#            then member 1's partner (member 3; ddm: 0) becomes dm-error, so that
#            column 1's blocks are read from the rebuilt spare alone, and
#            verify again: nothing lost.  Control: the last acknowledged
#            block zeroed through the target is reported lost.
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
	[ -e /ew/dm-eagerwrite.ko ] && note "module $(sha256sum /ew/dm-eagerwrite.ko | cut -c1-12)"
	for i in 0 1 2 3; do
		dmsetup create "ewm$i" --table "0 $SZ linear ${disks[$i]} 0" || { notok "ewm$i"; finish; }
	done
	dmsetup create ewspare --table "0 $SZ linear ${disks[4]} 0" || { notok "ewspare"; finish; }
	state_of() { status_field pc 7 | cut -c$(($1 + 1)); }
	wait_state() {	# wait_state I CHARS SECONDS: member I's state in CHARS
		local _
		for _ in $(seq "$3"); do
			case "$2" in *"$(state_of "$1")"*) return 0 ;; esac
			sleep 1
		done
		note "member $1 not in $2 after $3 s: $(dmsetup status pc)"
		return 1
	}
	old="/dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3"
	new="/dev/mapper/ewm0 /dev/mapper/ewspare /dev/mapper/ewm2 /dev/mapper/ewm3"
	# shellcheck disable=SC2086
	table=$(ewctl table --layout "${cfg%%:*}" --sync "${cfg##*:}" --metadata "$meta" $old)
	# shellcheck disable=SC2086
	table2=$(ewctl table --layout "${cfg%%:*}" --sync "${cfg##*:}" --metadata "$meta" $new)

	if [ "$step" = write ]; then
		pl_fresh "$meta" "${disks[@]:0:5}" || { notok "clear the devices"; finish; }
		check "$cfg: create" dmsetup create pc --table "$table"
		[ -b /dev/mapper/pc ] || finish
		# zeros everywhere first: every block written, so that the
		# rebuild has the whole volume to copy and is still running at
		# the cut (zeros are never foreign data to ewprobe's scan)
		blocks=$(( $(blockdev --getsz /dev/mapper/pc) / 8 ))
		check "$cfg: fill the volume with zeros" dd if=/dev/zero of=/dev/mapper/pc \
			bs=4096 count="$blocks" oflag=direct status=none
		[ "$blocks" -gt 4096 ] && blocks=4096
		ewprobe write --log "$EW_CHANNEL" --seconds 3600 --blocks "$blocks" --force /dev/mapper/pc &
		sleep 2
		check "$cfg: member 1 switched to dm-error under ewprobe" sh -c \
			"dmsetup reload ewm1 --table '0 $SZ error' && dmsetup resume ewm1"
		check "$cfg: member 1 failed" wait_state 1 D 60
		check "$cfg: rebuild_rate 1" dmsetup message pc 0 rebuild_rate 1
		check "$cfg: the spare replaces member 1" sh -c \
			"dmsetup reload pc --table '$table2' && dmsetup resume pc"
		check "$cfg: member 1 rebuilding" wait_state 1 R 5
		note "$cfg: before the cut: $(dmsetup status pc)"
		sleep "$arg"
		note "$cfg: at the cut: $(dmsetup status pc)"
		echo "EW-POWERCUT-NOW"
		sleep 120
		notok "$cfg: the power cut did not come"
		finish
	fi

	# verify: arg is the length of the log on disk05
	head -c "$arg" "${disks[5]}" >/tmp/log
	check "$cfg: reassemble with the spare" dmsetup create pc --table "$table2"
	[ -b /dev/mapper/pc ] || finish
	note "$cfg: after reassembly: $(dmsetup status pc)"
	check "$cfg: kernel log: the rebuild resumes" klog_has "rebuild of members 2 resumes"
	check "$cfg: member 1 rebuilding or rebuilt, not failed" wait_state 1 RA 1
	check "$cfg: rebuild_rate unlimited" dmsetup message pc 0 rebuild_rate 0
	t0=$SECONDS
	rebuilt() {
		local _
		for _ in $(seq 300); do
			[ "$(status_field pc 27)" = idle ] && [ "$(state_of 1)" = A ] && return 0
			sleep 1
		done
		note "rebuild not over: $(dmsetup status pc)"
		return 1
	}
	check "$cfg: the rebuild completes" rebuilt
	note "$cfg: rest of the rebuild: $((SECONDS - t0)) s; $(dmsetup status pc)"
	check "$cfg: every acknowledged write survived the cut during the rebuild" \
		pl_ewprobe_verify after-cut /dev/mapper/pc /tmp/log
	# member 1's partner: replica 1 of column 1 on raid10 and ew (4
	# members, mirrors 2), the pair's other member on ddm
	partner=3
	[ "${cfg%%:*}" = ddm ] && partner=0
	check "$cfg: member $partner (member 1's partner) switched to dm-error" sh -c \
		"dmsetup reload ewm$partner --table '0 $SZ error' && dmsetup resume ewm$partner"
	check "$cfg: verify again, member 1's blocks from the rebuilt spare" \
		pl_ewprobe_verify partner-failed /dev/mapper/pc /tmp/log
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
	configs="ew:2 ddm:2" seed=$(( $(date +%s) % 100000 ))
	while [ $# -gt 0 ]; do
		case $1 in
		--configs) configs=$2; shift 2 ;;
		--seed) seed=$2; shift 2 ;;
		-h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;/^set -u/d'; exit 0 ;;
		*) echo "host-crash-rebuild: unknown argument $1" >&2; exit 2 ;;
		esac
	done
	top=$(cd "$(dirname "$0")/../.." && pwd)
	# shellcheck source=tests/vm/persist-lib.sh
	. "$top/tests/vm/persist-lib.sh"
	pl_host_begin crash-rebuild --disks 6 --disk-size 32M --meta-size 16M
	RANDOM=$seed
	echo "# configs $configs; seed $seed"
	for cfg in $configs; do
		delay=$(awk -v m=$((RANDOM % 2501)) 'BEGIN { printf "%.3f", 0.5 + m / 1000 }')
		t0=$SECONDS
		pl_boot_cut "$cfg" "$delay"
		pl_cut_checked "$cfg: power cut ${delay} s into the rebuild" ||
			continue
		t0=$SECONDS
		pl_boot_verify disk05.img "$cfg"
		rc=$pl_rc
		[ $rc = 0 ] && ok "$cfg: boot 2, reassembly and verify ($((SECONDS - t0)) s)" ||
			notok "$cfg: boot 2, reassembly and verify (vm-run exit $rc)"
	done
	[ "$fails" -eq 0 ]
}
main "$@"; exit $?
