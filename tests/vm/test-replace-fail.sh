#!/bin/bash
# vm-run: --icount --disks 5 --disk-size 48M --meta-size 32M --timeout 600
# vmtest: beside
#
# A replacement that fails (issue 19, defect 6).  A raid10 array of four
# members (mirrors 2), each an ewfault device (tests/ewfault), loses
# member 1 (its flushes fail: failed at the next fsync); the fifth disk,
# behind an ewfault device that fails every write,
# is then given as member 1: its label cannot be written, so the resume
# must fail (it used to succeed with the error dropped), the kernel log
# says why, and member 1 stays failed.  With the fault cleared, the same
# table resumes: member 1 rebuilds from its partner, the data reads back,
# and the array removed and created again with that table loads with it.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

load_target || { notok "module loaded"; finish; }
load_ewfault || { notok "ewfault loaded"; finish; }
ok "modules loaded"
# shellcheck disable=SC2206
D=($EW_DISKS)
SZ=$(blockdev --getsz "${D[4]}")
DEV=ewrf
A=/dev/mapper/$DEV
ewfault_members ewrm 4 || { notok "members"; finish; }
dd if=/dev/zero of="${D[4]}" bs=4096 count=1 oflag=direct 2>/dev/null
table=$(ewctl table --layout raid10 --sync 2 --len 32M --metadata "$EW_META" \
	/dev/mapper/ewrm0 /dev/mapper/ewrm1 /dev/mapper/ewrm2 /dev/mapper/ewrm3)
check "create" dmsetup create $DEV --table "$table"
[ -b $A ] || finish
check "data written" dd if=/dev/urandom of=$A bs=1M count=16 oflag=direct conv=fsync status=none
sum=$(dd if=$A bs=1M count=16 iflag=direct status=none | sha256sum)
state1() { status_field $DEV 7 | cut -c2; }

dmsetup message ewrm1 0 fail_flushes 1
dd if=/dev/urandom of=$A bs=4096 seek=4096 count=256 oflag=direct conv=fsync status=none
check "member 1 failed (D)" [ "$(state1)" = D ]

check "spare over ewfault" dmsetup create ewrs --table "0 $SZ ewfault ${D[4]} 0"
dmsetup message ewrs 0 fail_writes_from 0
spare=${table/ \/dev\/mapper\/ewrm1 / \/dev\/mapper\/ewrs }
klog_mark
check "reload with the failing spare at member 1" dmsetup reload $DEV --table "$spare"
check "resume with a replacement that cannot be labelled fails" eval '! dmsetup resume $DEV 2>/dev/null'
check "kernel log: replacement refused" klog_has "replacement by"
check "member 1 still D" [ "$(state1)" = D ]
check "the label write was attempted" [ "$(ewfault_field ewrs 4)" -gt 0 ]

dmsetup message ewrs 0 clear
check "reload with the spare again" dmsetup reload $DEV --table "$spare"
check "resume with the spare healthy" dmsetup resume $DEV
s=$(state1)
check "member 1 rebuilding or done (R/A: $s)" [ "$s" = R ] || [ "$s" = A ]
check "data reads back" [ "$(dd if=$A bs=1M count=16 iflag=direct status=none | sha256sum)" = "$sum" ]
check "remove" dmsetup remove $DEV
check "created again with the spare" dmsetup create $DEV --table "$spare"
check "data reads back after reload" [ "$(dd if=$A bs=1M count=16 iflag=direct status=none | sha256sum)" = "$sum" ]
check "kernel log clean" klog_clean
dmsetup remove $DEV
dmsetup remove ewrs
for i in 0 1 2 3; do dmsetup remove "ewrm$i"; done
finish
