#!/bin/bash
# vm-run: --disks 5 --disk-size 32M --meta-size 16M --timeout 600 --rotational 1
#
# A rebuild copy of a block whose write is in flight never becomes the
# rebuilt member's current replica (the cause of host-crash-rebuild's
# ew:2 loss, issue 17 item 6; the rule is in dm-eagerwrite.h, "Delayed
# replicas").  Deterministic, with dm-delay on the members:
#  1. ew, sync 2, 4 members, an 8 MiB volume: block 16 (chunk 1, member
#     1 and its partner member 3) gets X, block 17 gets Z; nothing else is
#     written, so these are the only replicas a rebuild of member 1 has
#     to copy.  The array is taken apart and assembled with member 1
#     missing ("-"), the rebuild paused;
#  2. member 3 delays writes by 3 s, the spare by 2 s (reads are not
#     delayed); the spare replaces member 1 (the scan paused);
#  3. dd writes Y to block 16 (O_DIRECT): its replica on the spare
#     completes after 2 s, the one on member 3 after 3 s; while it is in
#     flight the scan resumes and reaches block 16: a copy queued then
#     must not start before the write completes (it would read X from
#     member 3, land on the spare after the write, and make X current);
#  4. the rebuild completes (it copied block 17), the delays go, the
#     array is assembled with member 3 missing: blocks 16 and 17 are read
#     from the rebuilt member alone and must be Y and Z.
# Before the fix, step 4 read X in block 16 (not ok); see the commit.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

DEV=ewi
# shellcheck disable=SC2206
D=($EW_DISKS)
SZ=$(blockdev --getsz "${D[0]}")
B=16		# chunk 1 of 16 blocks (chunk_sectors 128): members 1 and 3

load_target || { notok "module loaded"; finish; }
block_is() {	# block_is N FILE: block N of the array holds FILE
	dd if=/dev/mapper/$DEV of=/tmp/blk bs=4096 skip="$1" count=1 iflag=direct status=none &&
		cmp -s /tmp/blk "$2" && return 0
	cmp -s /tmp/blk /tmp/x && note "block $1 holds X, the write before the acknowledged one"
	return 1
}
put() {		# put N FILE: FILE into block N
	dd if="$2" of=/dev/mapper/$DEV bs=4096 seek="$1" count=1 oflag=direct \
		conv=notrunc status=none
}

dmsetup remove_all 2>/dev/null
wipe_array "$EW_META" "${D[@]}"
for i in 0 1 2 3; do dmsetup create "ewm$i" --table "0 $SZ linear ${D[$i]} 0"; done
dmsetup create ewsp --table "0 $SZ linear ${D[4]} 0"
all="/dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3"
# shellcheck disable=SC2086
table=$(ewctl table --layout ew --sync 2 --len 8M --metadata "$EW_META" $all)
klog_mark
check "create" dmsetup create $DEV --table "$table"
[ -b /dev/mapper/$DEV ] || finish
head -c 4096 /dev/urandom >/tmp/x
head -c 4096 /dev/urandom >/tmp/y
head -c 4096 /dev/urandom >/tmp/z
xz() { put $B /tmp/x && put $((B + 1)) /tmp/z; }
check "X into block $B, Z into block $((B + 1))" xz
check "remove" dmsetup remove $DEV

check "assembled with member 1 missing" dmsetup create $DEV --table "${table/\/dev\/mapper\/ewm1 /- }"
check "member 1 failed (D)" test "$(member_state $DEV 1)" = D
check "rebuild paused" dmsetup message $DEV 0 rebuild pause
check "member 3 delays writes by 3 s" sh -c \
	"dmsetup reload ewm3 --table '0 $SZ delay ${D[3]} 0 0 ${D[3]} 0 3000' && dmsetup resume ewm3"
check "the spare delays writes by 2 s" sh -c \
	"dmsetup reload ewsp --table '0 $SZ delay ${D[4]} 0 0 ${D[4]} 0 2000' && dmsetup resume ewsp"
bg0=$(status_field $DEV 12)
check "the spare replaces member 1" sh -c \
	"dmsetup reload $DEV --table '${table/\/dev\/mapper\/ewm1 /\/dev\/mapper\/ewsp }' && dmsetup resume $DEV"
check "member 1 rebuilding (R), the scan paused" \
	test "$(member_state $DEV 1)$(status_field $DEV 27)" = Rpaused

# Y in flight: 2 s on the spare, 3 s on member 3; the scan resumes meanwhile
put $B /tmp/y &
wpid=$!
sleep 0.5
check "the scan resumes while block $B's write is in flight" dmsetup message $DEV 0 rebuild resume
check "the write of Y completes" wait $wpid
check "the rebuild completes" rebuilt_drained $DEV 60
check "the rebuild copied block $((B + 1)) (member 1's other block)" \
	test "$(status_field $DEV 12)" -gt "$bg0"
check "block $B reads Y with every member" block_is $B /tmp/y
check "remove again" dmsetup remove $DEV
check "delays off" sh -c "dmsetup reload ewm3 --table '0 $SZ linear ${D[3]} 0' &&
	dmsetup resume ewm3 && dmsetup reload ewsp --table '0 $SZ linear ${D[4]} 0' &&
	dmsetup resume ewsp"

# member 3 gone: column 1 is read from the rebuilt member alone
spare=${table/\/dev\/mapper\/ewm1 /\/dev\/mapper\/ewsp }
check "assembled with member 3 missing" dmsetup create $DEV --table "${spare/\/dev\/mapper\/ewm3 /- }"
check "block $B reads Y, the acknowledged write, from the rebuilt member" block_is $B /tmp/y
check "block $((B + 1)) reads Z from the rebuilt member" block_is $((B + 1)) /tmp/z
# control: the same check sees an older write
check "control: X written into block $B again" put $B /tmp/x
not_y() { ! block_is $B /tmp/y >/dev/null; }
check "control: block $B is then reported not Y" not_y
check "remove at the end" dmsetup remove $DEV
check "kernel log clean" klog_clean
dmsetup remove_all 2>/dev/null
finish
