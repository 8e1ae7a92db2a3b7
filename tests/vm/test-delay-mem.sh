#!/bin/bash
# vm-run: --icount --disks 4 --disk-size 32M --meta-size 16M --timeout 900 --rotational 1
# vmtest: beside
#
# Delayed replicas written from memory (issues 14, 15): a write's
# completion copies its block into a page of the array's pool and the
# delayed replica is written from that page (dm-io); with no page left
# the entry falls back to a kcopyd copy that reads an up-to-date replica
# (status field 30 counts those; field 29 is "pages in use/pool size").
# Four members, each an ewfault device (tests/ewfault) over a guest disk;
# sync 1, mirrors 2.  The second replica of every replica set (target-lib
# second_replicas) looks expensive to the head predictor (disk_param
# overhead_ns 50 ms), so each write's foreground replica goes to the
# first replica and its delayed replica to the second (writes one at a
# time: both idle, the cheaper wins).
#  memory (raid10, ddm, ew): generation-checked writes (gen_write), the
#    delayed queues drained (pending 0), every page back (0/POOL), no
#    fallback; then the first replicas become dm-error and every
#    acknowledged generation is read from the delayed copies
#    (gen_verify).  A dm-io write of the wrong data fails this.
#  fallback (ew): the second replicas' completions are held (ewfault
#    delay_ms: at most 4 copies a member in flight, the rest of their
#    entries stay queued with their pages); POOL + 300 blocks of random
#    data written once each (dd O_DIRECT, one at a time, no flush: a
#    commit would flush a held member): the pool is full (POOL/POOL) and
#    the writes beyond it fell back (field 30 > 0); the hold ends, the
#    queues drain (every page back), the first replicas fail and every
#    block, from both kinds of copy, reads back as written (a replica
#    never written reads as zeros).  The pool of this array is made
#    smaller than its delay_queue with the module parameter
#    delay_pages_max (FALLBACK_POOL, read when an array is created).
#  no pool (ew): delay_pages_max 0: the pool is 0/0, every delayed
#    replica is a read-back copy (field 30 counts them all), and every
#    generation reads back from the delayed copies.
# Kernel log clean after each configuration.
#
# EW_DELAYMEM_LAYOUTS="ew" runs a subset of the memory part.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

layouts=${EW_DELAYMEM_LAYOUTS:-"raid10 ddm ew"}
DEV=ewdm
N=4
# The pool at the default delay_queue (10000): one page per entry (the
# default delay_pages_max, EW_DELAY_PAGES, is 16384).
POOL=10000
PAGES_MAX_DEFAULT=16384
FALLBACK_POOL=1024
PARAM=/sys/module/dm_eagerwrite/parameters/delay_pages_max
# A held completion: 4 copies a member every 30 s.  The writes took 13-16 s
# on the debug kernel, and with 15 s the first held copies completed
# during them (the pool was 1016/1024 at the end).  ewfault's "hold 1"
# (until released) cannot serve here: the commit's flush of a held member
# is held too, and the writes stopped behind it.
HOLD_MS=30000

load_target || { notok "module loaded"; finish; }
ok "module loaded"
load_ewfault || { notok "ewfault module loaded"; finish; }
ok "ewfault module loaded"
pages_max=$(cat $PARAM 2>/dev/null)
check "delay_pages_max is $PAGES_MAX_DEFAULT by default ($pages_max)" \
	test "$pages_max" = $PAGES_MAX_DEFAULT
# shellcheck disable=SC2206
D=($EW_DISKS)
[ "${#D[@]}" -ge $N ] || { notok "$N disks (have ${#D[@]})"; finish; }
SZ=$(blockdev --getsz "${D[0]}")

# setup LAYOUT: a new sync 1 array over N ewfault members, the second
# replicas costly to the predictor
setup() {
	local table i
	ewfault_members ewm $N || return 1
	table=$(ewctl table --layout "$1" --sync 1 --len 16M \
		--metadata "$EW_META" $(for ((i = 0; i < N; i++)); do
			echo /dev/mapper/ewm$i; done) 2>/dev/null) || return 1
	dmsetup create "$DEV" --table "$table" || return 1
	for i in $(second_replicas "$1" $N); do
		dmsetup message "$DEV" 0 disk_param "$i" overhead_ns 50000000 ||
			return 1
	done
}
teardown() {
	local i
	dmsetup remove "$DEV" 2>/dev/null
	for ((i = 0; i < N; i++)); do
		dmsetup message ewm$i 0 clear 2>/dev/null
		dmsetup remove ewm$i 2>/dev/null
	done
}
# first_replicas LAYOUT: the member indexes second_replicas does not print
first_replicas() {
	local i
	for ((i = 0; i < N; i++)); do
		second_replicas "$1" $N | grep -qx "$i" || echo "$i"
	done
}
fail_firsts() {	# fail_firsts LAYOUT: every first replica returns errors
	local i
	for i in $(first_replicas "$1"); do
		dmsetup reload ewm$i --table "0 $SZ error" &&
			dmsetup resume ewm$i || return 1
	done
}
hold_seconds() {	# hold_seconds LAYOUT MS: second replicas' completions held
	local i
	for i in $(second_replicas "$1" $N); do
		dmsetup message ewm$i 0 delay_ms "$2" || return 1
	done
}
pages_are() {	# pages_are WANT: status field 29 is WANT
	local p
	p=$(status_field "$DEV" 29)
	[ "$p" = "$1" ] && return 0
	note "pages in use/pool: $p, want $1 ($(dmsetup status "$DEV"))"
	return 1
}
fallbacks() { status_field "$DEV" 30; }
bg_writes() { status_field "$DEV" 12; }

for layout in $layouts; do
	klog_mark
	name="$layout memory"
	if check "$name: array" setup "$layout"; then
		check "$name: status fields" status_sane "$DEV" "$layout"
		check "$name: pool of $POOL pages, none in use" pages_are "0/$POOL"
		check "$name: generation writes" gen_write "$DEV" 200
		check "$name: delayed replicas drained" wait_drained "$DEV" 120
		check "$name: every page back" pages_are "0/$POOL"
		fb=$(fallbacks) bg=$(bg_writes)
		note "$name: $bg background writes, $fb fallbacks"
		check "$name: delayed replicas written ($bg)" test "$bg" -gt 0
		check "$name: none fell back to a read-back copy ($fb)" test "$fb" -eq 0
		check "$name: first replicas failed" fail_firsts "$layout"
		check "$name: every generation from the delayed copies" gen_verify "$DEV"
	fi
	teardown
	check "$name: kernel log clean" klog_clean
done

# No pool: every delayed replica read back.
klog_mark
name="ew no pool"
if check "$name: delay_pages_max 0" sh -c "echo 0 >$PARAM" &&
	check "$name: array" setup ew; then
	check "$name: pool of 0 pages" pages_are "0/0"
	check "$name: generation writes" gen_write "$DEV" 100
	check "$name: delayed replicas drained" wait_drained "$DEV" 120
	fb=$(fallbacks) bg=$(bg_writes)
	note "$name: $bg background writes, $fb fallbacks"
	check "$name: delayed replicas written ($bg)" test "$bg" -gt 0
	check "$name: every one a read-back copy ($fb)" test "$fb" -ge "$bg"
	check "$name: first replicas failed" fail_firsts ew
	check "$name: every generation from the delayed copies" gen_verify "$DEV"
fi
teardown
check "$name: kernel log clean" klog_clean

# The fallback: more writes than pages while the queues are held.
klog_mark
name="ew fallback"
POOL=$FALLBACK_POOL
W=$((POOL + 300))
head -c $((W * 4096)) /dev/urandom >/tmp/dm-data
write_once() {	# W blocks, one synchronous O_DIRECT write at a time
	dd if=/tmp/dm-data of=/dev/mapper/$DEV bs=4096 count=$W \
		oflag=direct conv=notrunc status=none
}
read_back() {	# every block as written
	dd if=/dev/mapper/$DEV of=/tmp/dm-back bs=4096 count=$W iflag=direct \
		status=none || return 1
	cmp /tmp/dm-data /tmp/dm-back >/tmp/dm-cmp 2>&1 && return 0
	note "$(head -n 1 /tmp/dm-cmp)"
	return 1
}
if check "$name: delay_pages_max $POOL" sh -c "echo $POOL >$PARAM" &&
	check "$name: array" setup ew; then
	check "$name: pool of $POOL pages" pages_are "0/$POOL"
	check "$name: second replicas' completions held" hold_seconds ew $HOLD_MS
	t0=$SECONDS
	check "$name: $W blocks written" write_once
	# One sample, taken as the writes end (the held copies complete
	# HOLD_MS after they started; a second status read comes later).
	st=$(dmsetup status "$DEV")
	note "$name: written in $((SECONDS - t0)) s: $st"
	pages=$(echo "$st" | awk '{ print $(3 + 29) }')
	check "$name: the pool is full ($pages)" test "$pages" = "$POOL/$POOL"
	fb=$(echo "$st" | awk '{ print $(3 + 30) }')
	check "$name: writes beyond the pool fell back ($fb)" test "$fb" -gt 0
	check "$name: hold ended" hold_seconds ew 0
	check "$name: delayed replicas drained" wait_drained "$DEV" 300
	check "$name: every page back" pages_are "0/$POOL"
	check "$name: first replicas failed" fail_firsts ew
	check "$name: every block from the delayed copies" read_back
fi
teardown
echo $PAGES_MAX_DEFAULT >$PARAM
check "$name: kernel log clean" klog_clean
finish
