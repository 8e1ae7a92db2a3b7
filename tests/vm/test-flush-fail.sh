#!/bin/bash
# vm-run: --disks 4 --disk-size 64M --meta-size 32M --timeout 1200 --rotational 1
#
# A member whose flushes fail (issue 19, defect 1).  Four members, each
# an ewfault device (tests/ewfault) over a guest disk; member 1's empty
# PREFLUSH bios fail from a point on, its writes still succeed (a disk
# that lost its volatile cache).  For an ew array with sync 1 and one
# with sync 2:
#  - direct writes, then an fsync, after member 1's flushes start to
#    fail: with sync 1 some writes had their only copy on member 1, so
#    the fsync must fail; with sync 2 every write has a second copy on a
#    member whose flush succeeded, so it must succeed;
#  - member 1 is failed (status D), the kernel log says why;
#  - member 1 gets no flush once failed;
#  - the array removed and created again: member 1 is failed in the
#    superblock ("failed before"), the array loads.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

load_target || { notok "module loaded"; finish; }
load_ewfault || { notok "ewfault loaded"; finish; }
ok "modules loaded"
DEV=ewff
A=/dev/mapper/$DEV

fresh() {	# zeroed metadata and labels, four healthy ewfault members
	dmsetup remove $DEV 2>/dev/null
	ewfault_members ewfm 4
}
state1() { status_field $DEV 7 | cut -c2; }	# member 1's state letter

for sync in 1 2; do
	t="sync $sync"
	fresh || { notok "$t: members"; continue; }
	table=$(ewctl table --layout ew --sync $sync --len 32M --metadata "$EW_META" \
		/dev/mapper/ewfm0 /dev/mapper/ewfm1 /dev/mapper/ewfm2 /dev/mapper/ewfm3)
	check "$t: create" dmsetup create $DEV --table "$table"
	[ -b $A ] || continue
	check "$t: data written and flushed" \
		dd if=/dev/urandom of=$A bs=4096 count=1024 oflag=direct conv=fsync status=none
	klog_mark
	dmsetup message ewfm1 0 fail_flushes 1
	if dd if=/dev/urandom of=$A bs=4096 seek=1024 count=512 oflag=direct \
		conv=fsync status=none 2>/dev/null; then
		rc=0
	else
		rc=1
	fi
	if [ $sync = 1 ]; then
		check "$t: fsync over writes whose only copy was on member 1 fails" [ $rc = 1 ]
	else
		check "$t: fsync with a second copy of every write succeeds" [ $rc = 0 ]
	fi
	check "$t: member 1's flushes failed" [ "$(ewfault_field ewfm1 2)" -gt 0 ]
	check "$t: member 1 failed (D)" [ "$(state1)" = D ]
	check "$t: kernel log names the flush failure" klog_has "failed: flush failed"
	n=$(ewfault_field ewfm1 1)
	dd if=/dev/urandom of=$A bs=4096 seek=2048 count=64 oflag=direct conv=fsync status=none
	check "$t: no flush sent to the failed member" [ "$(ewfault_field ewfm1 1)" = "$n" ]
	check "$t: remove" dmsetup remove $DEV
	klog_mark
	check "$t: created again" dmsetup create $DEV --table "$table"
	check "$t: member 1 failed in the superblock" klog_has "member 1 failed before"
	check "$t: member 1 still D" [ "$(state1)" = D ]
	check "$t: kernel log clean" klog_clean
	dmsetup remove $DEV
done
for i in 0 1 2 3; do dmsetup remove "ewfm$i" 2>/dev/null; done
finish
