#!/bin/bash
# vm-run: --icount --disks 0 --mem 2048 --timeout 900
# vmtest: beside
#
# Commits ahead of the writes (issue 15): the write that seals a journal
# block when half of the 32 journal buffers are sealed and not yet
# durable starts a commit, so that a stream of writes without a flush
# never finds the buffers full (status field 34, "journal waits", counts
# the writes and discards that did; before this, every 4,000-odd 4 KiB
# writes of an ew array waited for a commit of all 32 blocks).
# Eight null_blk members and a null_blk metadata device (memory backed,
# no write cache: the writes come much faster than the periodic commit),
# for ew and ddm with sync 2 and ew with sync 1: 64 MiB written with
# O_DIRECT in 1 MiB bios (16,384 block writes, four times what the
# buffers hold), no flush; field 34 stays 0, the commits went on (field
# 18), and the data reads back.  Then the same array takes a stream of
# 256 MiB more and a discard of it all (the discard's records take the
# same buffers): still no wait, and the discarded range reads zeros.
# Kernel log clean after each configuration.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

DEV=ewjr
N=8
MIB=64

load_target || { notok "module loaded"; finish; }
ok "module loaded"
modprobe null_blk nr_devices=$((N + 1)) memory_backed=1 gb=1 ||
	{ notok "null_blk loaded"; finish; }
M=/dev/nullb$N
A=()
for i in $(seq 0 $((N - 1))); do A+=("/dev/nullb$i"); done
[ -b "$M" ] && [ -b "${A[$((N - 1))]}" ] || { notok "null_blk devices"; finish; }
ok "null_blk devices"
head -c $((MIB << 20)) /dev/urandom >/tmp/data

# jwaits: status field 34 (journal waits)
jwaits() { status_field $DEV 34; }

for c in "ew 2" "ddm 2" "ew 1"; do
	read -r layout sync <<<"$c"
	name="$layout sync=$sync"
	klog_mark
	wipe_array "$M" "${A[@]}" || { notok "$name: wipe"; continue; }
	T=$(ewctl table --layout "$layout" --sync "$sync" --len $((MIB * 4))M \
		--metadata "$M" "${A[@]}" 2>/dev/null)
	check "$name: create" dmsetup create $DEV --table "$T" || continue
	check "$name: status has 36 fields, journal waits 0, no checkpoint" \
		eval '[ "$(dmsetup status $DEV | wc -w)" = 39 ] && [ "$(jwaits)" = 0 ] && [ "$(status_field $DEV 35)" = 0/0 ]'
	c0=$(status_field $DEV 18)
	check "$name: ${MIB} MiB written, no flush" \
		dd if=/tmp/data of=/dev/mapper/$DEV bs=1M oflag=direct \
		status=none
	w=$(jwaits) c1=$(status_field $DEV 18)
	note "$name: journal waits $w, commits $c0 -> $c1"
	check "$name: no write waited for the journal" [ "$w" = 0 ]
	check "$name: the writes were committed" [ "$c1" -gt "$c0" ]
	check "$name: data reads back" \
		cmp -n $((MIB << 20)) /tmp/data /dev/mapper/$DEV
	check "$name: 256 MiB more and a discard of it, no flush" \
		eval 'for i in 1 2 3 4; do dd if=/tmp/data of=/dev/mapper/$DEV \
			bs=1M oflag=direct status=none seek=$((MIB * (i - 1))) || exit 1; done &&
			blkdiscard /dev/mapper/$DEV'
	w=$(jwaits)
	note "$name: journal waits $w after the discard"
	check "$name: still no wait" [ "$w" = 0 ]
	check "$name: discarded range reads zeros" \
		cmp -n $((MIB << 20)) /dev/zero /dev/mapper/$DEV
	check "$name: remove" dmsetup remove $DEV
	check "$name: kernel log clean" klog_clean
done
finish
