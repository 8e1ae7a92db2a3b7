#!/bin/bash
# vm-run: --icount --disks 1 --disk-size 16M --meta-size 16M --timeout 300
# vmtest: beside
#
# dm-ewfault's volatile write cache (tests/ewfault, issue 19): what the
# power-cut suites rely on, checked against the disk under it.
#   wcache 16            a direct write completes but is not on the disk;
#                        the device reads it back
#   fsync (PREFLUSH)     every cached write is on the disk after it
#   O_DSYNC (FUA)        on the disk at once
#   capacity             20 cached writes into 16 blocks: the oldest were
#                        written back, the device reads all 20
#   suspend --noflush    neither writes back nor drops the cache
#   ignore_flushes 1     fsync and FUA leave the writes in the cache only
#   cut SEED             each cached write is on the disk whole, torn (a
#                        prefix of its sectors) or not at all, counted
#                        as such; every later read and write fails; the
#                        same seed cuts the same way
#   wcache 0, remove     drain the cache to the disk
#   bad messages         refused, nothing changed
# Prints "ok - NAME" / "not ok - NAME".
# shellcheck disable=SC2016 # the eval'd checks expand when they run
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

klog_mark
load_ewfault || { notok "ewfault loaded"; finish; }
ok "ewfault loaded"
# shellcheck disable=SC2206
D=($EW_DISKS)
DISK=${D[0]}
SZ=$(blockdev --getsz "$DISK")
N=ewwc
F=/dev/mapper/$N
mk() { dmsetup create $N --table "0 $SZ ewfault $DISK 0" && [ -b $F ]; }
msg() { dmsetup message $N 0 "$@"; }
field() {	# field KEY: the value of KEY=... in the status
	dmsetup status $N | tr ' ' '\n' | sed -n "s/^$1=//p"
}
# blk DEV BLOCK [COUNT]: sha256 of COUNT 4 KiB blocks from BLOCK (direct)
blk() { dd if="$1" bs=4096 skip="$2" count="${3:-1}" iflag=direct status=none | sha256sum | cut -c1-16; }
pat() { head -c $((4096 * ${2:-1})) /dev/urandom >"/tmp/p$1"; }
# wr NAME BLOCK [dd options]: pattern NAME at BLOCK, O_DIRECT
wr() { local n=$1 b=$2; shift 2; dd if="/tmp/p$n" of=$F bs=4096 seek="$b" oflag=direct conv=notrunc status=none "$@"; }
sum() { sha256sum <"/tmp/p$1" | cut -c1-16; }
fsync_dev() { dd if=/dev/null of=$F conv=notrunc,fsync status=none; }

dd if=/dev/zero of="$DISK" bs=1M count=2 oflag=direct status=none
check "create" mk
msg wcache 16
check "wcache 16: status" [ "$(field wcache)" = 16 ]

pat a
wr a 5
check "cached write: the device reads it" [ "$(blk $F 5)" = "$(sum a)" ]
check "cached write: not on the disk" [ "$(blk "$DISK" 5)" != "$(sum a)" ]
check "cached write: counted (cached=1/1)" [ "$(field cached)" = 1/1 ]

check "fsync succeeds" fsync_dev
check "after a PREFLUSH: on the disk" [ "$(blk "$DISK" 5)" = "$(sum a)" ]
check "after a PREFLUSH: cache empty, written back counted" \
	eval '[ "$(field cached)" = 0/0 ] && [ "$(field written_back)" -ge 1 ]'

pat b
wr b 6 oflag=direct,dsync
check "FUA write: on the disk at once" [ "$(blk "$DISK" 6)" = "$(sum b)" ]

# capacity: 20 writes of one block into 16 blocks
for i in $(seq 0 19); do pat "c$i"; wr "c$i" $((100 + i)); done
check "capacity: at most 16 blocks cached" [ "$(field cached)" = 16/16 ]
check "capacity: the oldest were written back" \
	eval '[ "$(blk "$DISK" 100)" = "$(sum c0)" ] && [ "$(blk "$DISK" 119)" != "$(sum c19)" ]'
for i in $(seq 0 19); do cat "/tmp/pc$i"; done >/tmp/pall
check "capacity: one read over disk and cache sees all 20" \
	[ "$(blk $F 100 20)" = "$(sha256sum </tmp/pall | cut -c1-16)" ]
# a read that covers part of a cached write
pat m 4
wr m 200
check "partial read of a cached 16 KiB write" \
	[ "$(blk $F 201 2)" = "$(dd if=/tmp/pm bs=4096 skip=1 count=2 status=none | sha256sum | cut -c1-16)" ]

st=$(field cached)
dmsetup suspend --noflush --nolockfs $N && dmsetup resume $N
check "suspend --noflush: the cache is kept ($st)" eval '[ "$(field cached)" = "$st" ] && [ "$(blk "$DISK" 200 4)" != "$(sum m)" ]'

check "wcache 0: drains" msg wcache 0
check "wcache 0: on the disk, cache empty" \
	eval '[ "$(blk "$DISK" 119)" = "$(sum c19)" ] && [ "$(blk "$DISK" 200 4)" = "$(sum m)" ] && [ "$(field cached)" = 0/0 ]'
pat d
wr d 7
check "wcache 0: a write passes through" [ "$(blk "$DISK" 7)" = "$(sum d)" ]

# ignore_flushes: a lying disk
msg wcache 64
msg ignore_flushes 1
pat e
wr e 8
fsync_dev
pat f
wr f 9 oflag=direct,dsync
check "ignore_flushes 1: fsync and FUA leave the disk untouched" \
	eval '[ "$(blk "$DISK" 8)" != "$(sum e)" ] && [ "$(blk "$DISK" 9)" != "$(sum f)" ] && [ "$(field cached)" = 2/2 ]'
check "ignore_flushes 1: the device reads both" \
	eval '[ "$(blk $F 8)" = "$(sum e)" ] && [ "$(blk $F 9)" = "$(sum f)" ]'
msg clear
check "clear: ignore_flushes 0" [ "$(field ignore_flushes)" = 0 ]

# bad messages: refused, nothing changed
st=$(dmsetup status $N)
check "bad messages refused" eval '! msg wcache 65537 2>/dev/null && ! msg wcache x 2>/dev/null &&
	! msg ignore_flushes 2 2>/dev/null && ! msg cut 2>/dev/null && ! msg cut abc 2>/dev/null'
check "bad messages changed nothing" [ "$(dmsetup status $N)" = "$st" ]

# the cut: 24 cached writes of 4 x 4 KiB (32 sectors) at blocks 300, 304 ...
cutrun() {	# cutrun SEED: fill the cache, cut; sets fates
	local i
	msg wcache 256
	for i in $(seq 0 23); do	# one 16 KiB write each
		dd if="/tmp/pg$i" of=$F bs=16384 seek=$((75 + i)) oflag=direct conv=notrunc status=none
	done
	msg cut "$1"
	fates=""
	for i in $(seq 0 23); do
		dd if="$DISK" of=/tmp/back bs=4096 skip=$((300 + 4 * i)) count=4 iflag=direct status=none
		# sectors of the write found on the disk: a prefix, or none, or all
		fates="$fates $(cmp -l /tmp/back "/tmp/pg$i" 2>/dev/null | awk 'NR == 1 { print int(($1 - 1) / 512); f = 1 } END { if (!f) print 32 }')"
	done
}
for i in $(seq 0 23); do pat "g$i" 4; done
dmsetup remove $N
dd if=/dev/zero of="$DISK" bs=4096 seek=300 count=96 oflag=direct status=none
mk
cutrun 42
whole=0 none=0 torn=0 bad=0
for x in $fates; do
	case $x in 32) whole=$((whole + 1)) ;; 0) none=$((none + 1)) ;; *) torn=$((torn + 1)) ;; esac
done
# a torn write is a prefix: its first x sectors match, the rest are zeros
i=0
for x in $fates; do
	if [ "$x" != 0 ] && [ "$x" != 32 ]; then
		dd if="$DISK" bs=512 skip=$(( (300 + 4 * i) * 8 + x )) count=$((32 - x)) iflag=direct status=none >/tmp/rest
		[ -z "$(tr -d '\0' </tmp/rest | head -c 1)" ] || bad=$((bad + 1))
	fi
	i=$((i + 1))
done
note "cut 42: sectors of each write on the disk:$fates"
note "cut 42: status $(dmsetup status $N | cut -d' ' -f10-)"
check "cut: each write whole ($whole), torn ($torn) or dropped ($none), as counted" \
	eval '[ "$(field written_back)" = "$whole" ] && [ "$(field torn)" = "$torn" ] && [ "$(field dropped)" = "$none" ] && [ $bad = 0 ]'
check "cut: some of each" eval '[ "$whole" -gt 0 ] && [ "$torn" -gt 0 ] && [ "$none" -gt 0 ]'
check "cut: cache empty, cut=1" eval '[ "$(field cached)" = 0/0 ] && [ "$(field cut)" = 1 ]'
check "cut: reads fail" eval '! dd if=$F of=/dev/null bs=4096 count=1 iflag=direct status=none 2>/dev/null'
check "cut: writes fail" eval '! wr a 5 2>/dev/null'
check "cut: messages refused" eval '! msg wcache 0 2>/dev/null'
first=$fates
check "remove after the cut" dmsetup remove $N
dd if=/dev/zero of="$DISK" bs=4096 seek=300 count=96 oflag=direct status=none
mk
cutrun 42
check "cut: the same seed cuts the same way" [ "$fates" = "$first" ]
dmsetup remove $N

# the destructor writes back what is left
mk
msg wcache 16
pat h
wr h 10
check "remove: cached before" [ "$(blk "$DISK" 10)" != "$(sum h)" ]
check "remove with a cached write" dmsetup remove $N
check "remove: written back" [ "$(blk "$DISK" 10)" = "$(sum h)" ]
check "kernel log clean" klog_clean
finish
