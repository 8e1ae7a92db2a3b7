#!/bin/bash
# vm-run: --icount --disks 4 --disk-size 64M --meta-size 32M --timeout 600
# vmtest: beside
#
# An avoided member with nothing queued is probed (issue 19, "left
# open").  Four members, each an ewfault device (tests/ewfault) over a
# guest disk; an ew array, sync 2.  Member 1 is swapped to dm-error, a few
# direct writes hit it (its replicas fail and are queued for a retry on
# it), and the written range is discarded at once, so that the queued
# retries are dropped before they could fail the member (8 errors over
# 5 s): member 1 is avoided (errors, no success since), idle, with
# nothing queued, and no I/O goes to the array from then on.
#  - dead: member 1 stays dm-error: the periodic label probe must fail it
#    (status D) within PROBE_WAIT seconds, with the array's read and
#    write counters unchanged meanwhile; the kernel log says the probe
#    failed it; the array created again says "member 1 failed before"
#    (the superblock has it).
#  - control: member 1 gets its ewfault table back: the probe must read
#    its label and end the avoidance (the kernel log says so), and member
#    1 must not be failed.
# On the code before the probe, the dead member stays A for ever.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

PROBE_WAIT=${PROBE_WAIT:-30}
load_target || { notok "module loaded"; finish; }
load_ewfault || { notok "ewfault loaded"; finish; }
ok "modules loaded"
DEV=ewpr
A=/dev/mapper/$DEV
# shellcheck disable=SC2206
D=($EW_DISKS)
SZ1=$(blockdev --getsz "${D[1]}")

state1() { status_field $DEV 7 | cut -c2; }	# member 1's state letter
member1_table() {	# member1_table error|ewfault: swap ewpm1's table
	local t="0 $SZ1 error"
	[ "$1" = ewfault ] && t="0 $SZ1 ewfault ${D[1]} 0"
	dmsetup reload ewpm1 --table "$t" && dmsetup resume ewpm1
}
io_counters() { echo "$(status_field $DEV 9) $(status_field $DEV 10)"; }

for case in dead control; do
	t=$case
	dmsetup remove $DEV 2>/dev/null
	ewfault_members ewpm 4 || { notok "$t: members"; continue; }
	table=$(ewctl table --layout ew --sync 2 --len 32M --metadata "$EW_META" \
		/dev/mapper/ewpm0 /dev/mapper/ewpm1 /dev/mapper/ewpm2 /dev/mapper/ewpm3)
	check "$t: create" dmsetup create $DEV --table "$table"
	[ -b $A ] || continue
	sleep 2	# the first commits: member 1 is clean (no flush will go there)
	klog_mark
	check "$t: member 1 is dm-error" member1_table error
	# the error: replicas on member 1 fail, their retries are queued
	dd if=/dev/urandom of=$A bs=4096 count=32 oflag=direct status=none
	# ... and dropped: the blocks are forgotten
	check "$t: written range discarded" blkdiscard -o 0 -l $((32 * 4096)) $A
	check "$t: member 1 errored" klog_has "member 1 ("
	if [ "$(state1)" != A ]; then
		notok "$t: member 1 not failed by the retries (A)"
		note "$(dmsetup status $DEV)"
		continue
	fi
	ok "$t: member 1 not failed by the retries (A)"
	[ $case = control ] && check "$t: member 1 healthy again" member1_table ewfault
	before=$(io_counters)
	s=0
	while [ $s -lt "$PROBE_WAIT" ] && [ "$(state1)" = A ] &&
		! klog_has "label probe read"; do
		sleep 1
		s=$((s + 1))
	done
	check "$t: no I/O to the array meanwhile" [ "$(io_counters)" = "$before" ]
	if [ $case = dead ]; then
		if [ "$(state1)" = D ]; then
			ok "$t: idle member 1 failed (D) by the probe"
			note "failed after ${s} s"
		else
			notok "$t: idle member 1 failed (D) by the probe"
			note "still $(state1) after $PROBE_WAIT s: $(dmsetup status $DEV)"
		fi
		check "$t: kernel log names the probe" klog_has "failed: label probe"
		check "$t: remove" dmsetup remove $DEV
		klog_mark
		check "$t: created again" dmsetup create $DEV --table "$table"
		check "$t: member 1 failed in the superblock" klog_has "member 1 failed before"
		check "$t: member 1 still D" [ "$(state1)" = D ]
	else
		check "$t: member 1 not failed (A)" [ "$(state1)" = A ]
		note "label probe read after ${s} s"
		check "$t: the probe read member 1's label, avoidance ended" \
			klog_has "label probe read, no longer avoided"
	fi
	check "$t: kernel log clean" klog_clean
	dmsetup remove $DEV
done
for i in 0 1 2 3; do dmsetup remove "ewpm$i" 2>/dev/null; done
finish
