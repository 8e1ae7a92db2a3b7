#!/bin/bash
# vm-run: --icount --disks 4 --disk-size 48M --meta-size 32M --timeout 600
# vmtest: beside
#
# A dead disk still named in the table (issue 19, "left open": a member
# whose label cannot be read made create fail; dm-raid assembles
# degraded).  For raid10 and ew (4 members, mirrors 2, sync 2): data
# written, the array removed, member 1's device switched to dm-error (its
# label read fails), the same table created again: the array assembles
# with member 1 failed (D), says so in the kernel log, the data reads
# back and writes work; created again after that, member 1 stays failed
# (the superblock says so: no label read).  Control: member 3 (member 1's
# mirror partner) also unreadable: create refused with a message, and with
# member 3 back the same table creates.  Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

load_target || { notok "module loaded"; finish; }
ok "module loaded"
# shellcheck disable=SC2206
D=($EW_DISKS)
DEV=ewlu
A=/dev/mapper/$DEV
linear() {	# linear I: member I is the plain disk again
	local sz
	sz=$(blockdev --getsz "${D[$1]}")
	dmsetup reload "ewlm$1" --table "0 $sz linear ${D[$1]} 0" &&
		dmsetup resume "ewlm$1"
}
dead() {	# dead I: every I/O to member I fails
	local sz
	sz=$(blockdev --getsz "${D[$1]}")
	dmsetup reload "ewlm$1" --table "0 $sz error" && dmsetup resume "ewlm$1"
}
state() { status_field $DEV 7 | cut -c"$(($1 + 1))"; }
sum16() { dd if=$A bs=1M count=16 iflag=direct status=none | sha256sum; }

for lay in raid10 ew; do
	dmsetup remove $DEV 2>/dev/null
	for i in 0 1 2 3; do
		dmsetup remove "ewlm$i" 2>/dev/null
		dd if=/dev/zero of="${D[$i]}" bs=4096 count=1 oflag=direct 2>/dev/null
		dmsetup create "ewlm$i" --table "0 $(blockdev --getsz "${D[$i]}") linear ${D[$i]} 0"
	done
	dd if=/dev/zero of="$EW_META" bs=1M count=1 oflag=direct 2>/dev/null
	table=$(ewctl table --layout $lay --sync 2 --len 32M --metadata "$EW_META" \
		/dev/mapper/ewlm0 /dev/mapper/ewlm1 /dev/mapper/ewlm2 /dev/mapper/ewlm3)
	check "$lay: create" dmsetup create $DEV --table "$table"
	[ -b $A ] || continue
	check "$lay: data written" dd if=/dev/urandom of=$A bs=1M count=16 oflag=direct conv=fsync status=none
	sum=$(sum16)
	check "$lay: remove" dmsetup remove $DEV

	check "$lay: member 1 now fails every I/O" dead 1
	klog_mark
	check "$lay: create with member 1's label unreadable" dmsetup create $DEV --table "$table"
	[ -b $A ] || continue
	check "$lay: member 1 failed (D: $(state 1))" [ "$(state 1)" = D ]
	check "$lay: kernel log says why" klog_has "member 1 failed: its label cannot be read"
	check "$lay: data reads back degraded" [ "$(sum16)" = "$sum" ]
	check "$lay: writes work degraded" dd if=/dev/urandom of=$A bs=1M seek=16 count=4 oflag=direct conv=fsync status=none
	mm=$(dmsetup info -c --noheadings -o major,minor --separator : ewlm1)
	check "$lay: TABLE still names member 1 ($mm)" eval 'dmsetup table $DEV | grep -q " $mm "'
	check "$lay: remove degraded" dmsetup remove $DEV
	check "$lay: created again: member 1 failed by the superblock" dmsetup create $DEV --table "$table"
	check "$lay: member 1 still D ($(state 1))" [ "$(state 1)" = D ]
	check "$lay: data reads back after reload" [ "$(sum16)" = "$sum" ]
	dmsetup remove $DEV

	# control: both replicas of some blocks unreachable
	check "$lay: member 3 (the partner) fails too" dead 3
	klog_mark
	check "$lay: create refused with both partners gone" eval '! dmsetup create $DEV --table "$table" 2>/dev/null'
	check "$lay: the refusal says why" klog_has "missing, failed or unreadable"
	check "$lay: no device left behind" [ ! -b $A ]
	check "$lay: member 3 back" linear 3
	check "$lay: the same table creates again" dmsetup create $DEV --table "$table"
	check "$lay: data reads back" [ "$(sum16)" = "$sum" ]
	check "$lay: kernel log clean" klog_clean
	dmsetup remove $DEV
	linear 1
done
for i in 0 1 2 3; do dmsetup remove "ewlm$i" 2>/dev/null; done
finish
