#!/bin/bash
# vm-run: --icount --disks 4 --disk-size 32M --meta-size 16M --timeout 900 --rotational 1
# vmtest: beside
#
# The generation check catches a stale replica (issue 19: fio's
# verify_only cannot, an older valid block passes it).  For each layout
# (raid10, ddm, ew; mirrors 2, sync 2), four members, each a dm-linear
# device over a guest disk:
#  1. ewprobe (gen_write, target-lib.sh) writes block 0 once (seq 1); the
#     block read through the array is saved;
#  2. a new run with the same seed writes seq 1 (the same bytes) and seq 2
#     to block 0; once the delayed copies are drained (pending 0) the two
#     members holding seq 2 are found by reading the members directly;
#  3. the partner B of member A fails (dm-error): gen_verify passes (A
#     serves seq 2);
#  4. seq 1 is written over A's physical copy of seq 2, under the array:
#     gen_verify must fail and name block 0 as lost, holding seq 1.
# Kernel log clean after each layout.
#
# EW_STALE_LAYOUTS="ew" runs a subset.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

layouts=${EW_STALE_LAYOUTS:-"raid10 ddm ew"}
DEV=ewstale
GEN_BLOCKS=1

load_target || { notok "module loaded"; finish; }
ok "module loaded"
command -v ewprobe >/dev/null || { notok "ewprobe on PATH"; finish; }

# shellcheck disable=SC2206
D=($EW_DISKS)
[ "${#D[@]}" -ge 4 ] || { notok "four disks (have ${#D[@]})"; finish; }
SZ=$(blockdev --getsz "${D[0]}")

members() {	# ewm0..3: dm-linear over the disks, labels zeroed
	local i
	for i in 0 1 2 3; do
		dmsetup remove "ewm$i" 2>/dev/null
		blkdiscard "${D[$i]}" 2>/dev/null
		dd if=/dev/zero of="${D[$i]}" bs=4096 count=1 oflag=direct \
			status=none || return 1
		dmsetup create "ewm$i" --table "0 $SZ linear ${D[$i]} 0" || return 1
	done
	dd if=/dev/zero of="$EW_META" bs=1M count=1 oflag=direct status=none
}
drained() { wait_drained "$DEV" 60; }
# copies_on I FILE: the 4 KiB block numbers on disk I that hold FILE's
# 4 KiB (a probe block starts with "U", octal 125; members are zeros
# elsewhere but for the label and what the array wrote)
copies_on() {
	local b
	for b in $(cmp -l "${D[$1]}" /dev/zero 2>/dev/null |
		awk '($1 - 1) % 4096 == 0 && $2 == 125 { print ($1 - 1) / 4096 }'); do
		dd if="${D[$1]}" bs=4096 skip="$b" count=1 iflag=direct status=none |
			cmp -s - "$2" && echo "$b"
	done
}
stale_in_place() {	# member A: no copy of seq 2 left, seq 1 there
	[ -z "$(copies_on "$A" /tmp/new.blk)" ] &&
		[ -n "$(copies_on "$A" /tmp/old.blk)" ]
}
read_block0() {	# read_block0 FILE: block 0 of the array, read through it
	dd if=/dev/mapper/$DEV of="$1" bs=4096 count=1 iflag=direct status=none &&
		[ "$(stat -c %s "$1")" = 4096 ]
}

for layout in $layouts; do
	klog_mark
	check "$layout: members on dm-linear" members
	table=$(ewctl table --layout "$layout" --sync 2 --len 24M \
		--metadata "$EW_META" /dev/mapper/ewm0 /dev/mapper/ewm1 \
		/dev/mapper/ewm2 /dev/mapper/ewm3) ||
		{ notok "$layout: ewctl table"; continue; }
	check "$layout: create" dmsetup create "$DEV" --table "$table"
	[ -b /dev/mapper/$DEV ] || continue
	seed=$((0x5eed0 + ${#layout}))

	check "$layout: seq 1 written to block 0" gen_write "$DEV" 1 $seed
	check "$layout: seq 1 read back (saved)" read_block0 /tmp/old.blk
	check "$layout: seq 1 and 2 written (same seed)" gen_write "$DEV" 2 $seed
	check "$layout: delayed copies drained" drained
	check "$layout: seq 2 read back" read_block0 /tmp/new.blk
	check "$layout: seq 1 and seq 2 differ" sh -c '! cmp -s /tmp/old.blk /tmp/new.blk'
	holders=() where=()
	for i in 0 1 2 3; do
		w=$(copies_on $i /tmp/new.blk | tr '\n' ' ')
		[ -n "$w" ] && holders+=("$i") where+=("$w")
	done
	note "$layout: seq 2 of block 0 on members ${holders[*]:-none} (4 KiB blocks: ${where[*]:-})"
	if [ "${#holders[@]}" -ne 2 ]; then
		notok "$layout: seq 2 on two members"
		dmsetup remove "$DEV"
		continue
	fi
	ok "$layout: seq 2 on two members"
	A=${holders[0]} B=${holders[1]}
	check "$layout: member $B (partner of $A) switched to dm-error" sh -c \
		"dmsetup reload ewm$B --table '0 $SZ error' && dmsetup resume ewm$B"
	check "$layout: generation check passes, member $A serving" gen_verify "$DEV"
	# shellcheck disable=SC2086
	for b in ${where[0]}; do
		dd if=/tmp/old.blk of="${D[$A]}" bs=4096 seek="$b" oflag=direct \
			conv=notrunc status=none
	done
	check "$layout: member $A's copy now holds seq 1" stale_in_place
	if gen_verify "$DEV" >/tmp/stale.out 2>&1; then
		notok "$layout: the stale replica is caught (verify passed)"
	else
		check "$layout: the stale replica is caught: block 0 lost, seq 1 found" \
			grep -q '^block 0: lost: .* seq 2 .*an older write, seq 1' /tmp/gen-v.out
	fi
	sed -n '/^block/p;/^result/p' /tmp/gen-v.out | sed 's/^/# /'
	check "$layout: remove" dmsetup remove "$DEV"
	check "$layout: kernel log clean" klog_clean
done
for i in 0 1 2 3; do dmsetup remove "ewm$i" 2>/dev/null; done
finish
