#!/bin/bash
# vm-run: --icount --disks 12 --disk-size 64M --meta-size 64M --timeout 900
# vmtest: beside
#
# The eagerwrite target's persistent metadata (issue 5), in one boot:
# a new array formats its metadata and labels; its data survives remove
# and create again; a table naming the members in another order, a member
# of another array or another geometry on existing metadata is refused
# with the documented message; a corrupt superblock slot falls back to
# the other; a metadata write error latches the array read-only (status
# says so, writes and flushes fail with EIO, reads go on).  Power cuts
# are the crash tests' (tests/vm/crash-*.sh).
# Prints "ok - NAME" / "not ok - NAME" and "# " notes.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

load_target || { notok "module loaded"; finish; }
ok "module loaded"

M=$EW_META
# shellcheck disable=SC2206
D=($EW_DISKS)
A=("${D[0]}" "${D[1]}" "${D[2]}" "${D[3]}")	# array A, on $M
B=("${D[4]}" "${D[5]}" "${D[6]}" "${D[7]}")	# array B, on $MB
DEV=ewm
wipe_array "$M" "${D[@]}"
klog_mark

# the INFO field N of $DEV (1 = layout)
field() { status_field "$DEV" "$1"; }


pattern() {	# pattern FILE: 4 MiB of random data
	dd if=/dev/urandom of="$1" bs=1M count=4 status=none
}
write_pat() {	# write_pat FILE: at offset 0 of the array, synced
	dd if="$1" of=/dev/mapper/$DEV bs=1M oflag=direct conv=fsync status=none
}
same_pat() {	# same_pat FILE: the array's first 4 MiB are FILE
	dd if=/dev/mapper/$DEV bs=1M count=4 iflag=direct status=none |
		cmp -s - "$1" || { note "contents differ"; return 1; }
}

TA=$(ewctl table --layout ew --metadata "$M" "${A[@]}")
note "table A: $TA"
check "new array: create formats" dmsetup create $DEV --table "$TA"
check "new array: formatted, said in the log" klog_has "new array, metadata formatted"
mode_is() { [ "$(field 16)" = "$1" ] || { note "status: $(dmsetup status $DEV)"; return 1; }; }
check "new array: metadata mode ok" mode_is ok
pattern /tmp/pa
check "write a pattern" write_pat /tmp/pa
check "remove" dmsetup remove $DEV
check "ewctl check agrees: consistent, clean" \
	sh -c "ewctl check $M ${A[*]} | grep -q 'shutdown: clean' && ewctl check --quiet $M ${A[*]}"
check "create again: same table loads" dmsetup create $DEV --table "$TA"
check "create again: the data survived" same_pat /tmp/pa
check "create again: status fields" sh -c "[ \$(dmsetup status $DEV | wc -w) = 39 ]"
check "remove again" dmsetup remove $DEV

# --- refused tables
check "members in another order are refused" table_refused \
	"member label names another position (members in another order?)" \
	"$(ewctl table --layout ew --metadata "$M" "${A[1]}" "${A[0]}" "${A[2]}" "${A[3]}")"
check "another layout on existing metadata is refused" table_refused \
	"metadata belongs to another layout" \
	"$(ewctl table --layout raid10 --len "$(awk '{ print $2 * 512 }' <<<"$TA")" --metadata "$M" "${A[@]}")"
check "another dilution on existing metadata is refused" table_refused \
	"metadata belongs to an array with another dilution" \
	"$(ewctl table --layout ew --dilution 1.5 --len "$(awk '{ print $2 * 512 }' <<<"$TA")" --metadata "$M" "${A[@]}")"
check "another length on existing metadata is refused" table_refused \
	"metadata belongs to an array of another length" \
	"$(ewctl table --layout ew --len 32M --metadata "$M" "${A[@]}")"
# array B on a metadata device of its own (a slice of the last member)
dmsetup create ewmetab --table "0 65536 linear ${D[11]} 0" && MB=/dev/mapper/ewmetab
[ -b "$MB" ] || dmsetup mknodes ewmetab
wipe_array "$MB" "${B[@]}"
TB=$(ewctl table --layout ew --metadata "$MB" "${B[@]}")
if dmsetup create ewb --table "$TB" && dmsetup remove ewb; then
	ok "array B created on its own metadata"
else
	notok "array B created on its own metadata"
fi
check "a member of another array is refused" table_refused \
	"member belongs to another array" \
	"$(ewctl table --layout ew --metadata "$M" "${A[0]}" "${A[1]}" "${A[2]}" "${B[3]}")"
# B's metadata gone, its members still labelled: never formatted over
dd if=/dev/zero of="$MB" bs=4096 count=2 conv=fsync status=none
check "formatting over a labelled member is refused" table_refused \
	"Data device carries an eagerwrite label: zero its first 4 KiB to reuse it" "$TB"
dmsetup remove ewmetab

# --- a corrupt superblock slot: the other one is used
slot=$(ewctl dump --json "$M" | jq -r .slot)
gen=$(ewctl dump --json "$M" | jq -r .generation)
note "superblock in use: slot $slot, generation $gen"
printf '\377' | dd of="$M" bs=1 seek=$((slot * 4096 + 300)) conv=notrunc status=none
check "ewctl check: the damaged slot is a warning" \
	sh -c "ewctl check $M ${A[*]} | grep -q warning && ewctl check --quiet $M ${A[*]}"
klog_mark
check "corrupt superblock slot: falls back to the other" dmsetup create $DEV --table "$TA"
# the fallback is said, naming the damaged slot (as test-corrupt.sh checks)
check "corrupt superblock slot: the kernel log names slot $slot" \
	klog_has "superblock slot $slot (metadata block $slot): bad checksum in superblock; using generation"
check "corrupt superblock slot: the data is there" same_pat /tmp/pa
check "corrupt superblock slot: remove" dmsetup remove $DEV
check "corrupt superblock slot: rewritten, both valid again" \
	sh -c "[ \"\$(ewctl dump --json $M | jq -r '.slots | map(select(. == \"in use\" or . == \"valid (older)\")) | length')\" = 2 ]"

# --- a metadata write error latches read-only
sectors=$(blockdev --getsz "$M")
dmsetup create ewmeta --table "0 $sectors linear $M 0"
[ -b /dev/mapper/ewmeta ] || dmsetup mknodes ewmeta
TL=${TA/$M//dev/mapper/ewmeta}
if dmsetup create $DEV --table "$TL"; then
	ok "array on a dm-linear metadata device"
	pattern /tmp/pb
	check "metadata error: a write before it" write_pat /tmp/pb
	klog_mark
	dmsetup suspend ewmeta && dmsetup reload ewmeta --table "0 $sectors error" &&
		dmsetup resume ewmeta
	if dd if=/tmp/pa of=/dev/mapper/$DEV bs=4096 count=16 oflag=direct conv=fsync status=none 2>/dev/null; then
		notok "metadata error: the synced write fails"
	else
		ok "metadata error: the synced write fails"
	fi
	check "metadata error: status says read_only" mode_is read_only
	check "metadata error: said once in the log" klog_has "array is read-only"
	if dd if=/tmp/pa of=/dev/mapper/$DEV bs=4096 seek=100 count=1 oflag=direct status=none 2>/dev/null; then
		notok "metadata error: a later write fails with EIO"
	else
		ok "metadata error: a later write fails with EIO"
	fi
	check "metadata error: reads go on" \
		sh -c "dd if=/dev/mapper/$DEV bs=1M count=4 skip=1 iflag=direct status=none | wc -c | grep -qx 4194304"
	check "metadata error: remove" dmsetup remove $DEV
	dmsetup suspend ewmeta && dmsetup reload ewmeta --table "0 $sectors linear $M 0" &&
		dmsetup resume ewmeta
	check "metadata error: the array loads again from what was durable" \
		dmsetup create $DEV --table "$TL"
	check "metadata error: what was synced before it is there" same_pat /tmp/pb
	check "metadata error: remove after reload" dmsetup remove $DEV
else
	notok "array on a dm-linear metadata device"
fi
dmsetup remove ewmeta
wipe_array "$M" "${D[@]}"
check "kernel log clean" klog_clean
finish
