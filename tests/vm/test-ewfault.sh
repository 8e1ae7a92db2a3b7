#!/bin/bash
# vm-run: --icount --disks 1 --disk-size 16M --meta-size 16M --timeout 300
# vmtest: beside
#
# The fault-injecting test target itself (tests/ewfault, dm-ewfault.ko):
# each fault it offers happens, only where asked, and stops when cleared.
#   fail_flushes 1       an fsync of the device fails, a plain direct write
#                        does not; the flush never reached the device
#   fail_nth_write 2     of three direct writes, the second fails
#   fail_writes_from S   a write below S succeeds, one at S fails
#   delay_ms 300         a direct write takes at least 300 ms
#   hold 1               a direct write does not complete (3 s, held=1),
#                        hold 0 completes it at once; clear does too
#   a bad message        refused, nothing changed
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

load_ewfault || { notok "ewfault loaded"; finish; }
ok "ewfault loaded"
# shellcheck disable=SC2206
D=($EW_DISKS)
SZ=$(blockdev --getsz "${D[0]}")
F=/dev/mapper/ewft
check "create" dmsetup create ewft --table "0 $SZ ewfault ${D[0]} 0"
[ -b $F ] || finish
check "table round trip" table_round_trip ewft

wr() {	# wr BLOCK [dd options]: one direct 4 KiB write at 4 KiB block BLOCK
	local b=$1
	shift
	dd if=/dev/urandom of=$F bs=4096 seek="$b" count=1 oflag=direct "$@" 2>/dev/null
}
msg() { dmsetup message ewft 0 "$@"; }

msg fail_flushes 1
before=$(ewfault_field ewft 2)
check "fail_flushes: direct write succeeds" wr 1
check "fail_flushes: fsync fails" eval '! wr 2 conv=fsync'
check "fail_flushes: counted" [ "$(ewfault_field ewft 2)" -gt "$before" ]
msg clear
check "clear: fsync succeeds" wr 3 conv=fsync

msg fail_nth_write 2
r1=0 r2=0 r3=0
wr 4 || r1=1
wr 5 || r2=1
wr 6 || r3=1
check "fail_nth_write 2: only the second write fails" [ "$r1$r2$r3" = 010 ]
check "fail_nth_write: status back to 0" [ "$(ewfault_field ewft 7)" = fail_nth_write=0 ]

msg fail_writes_from 800	# sector 800 = 4 KiB block 100
check "fail_writes_from: below succeeds" wr 99
check "fail_writes_from: at the sector fails" eval '! wr 100'
check "fail_writes_from: reads go on" dd if=$F of=/dev/null bs=4096 skip=100 count=1 iflag=direct
msg fail_writes_from off
check "fail_writes_from off: write succeeds" wr 100

msg delay_ms 300
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
t0=$(now_ms)
wr 7
t1=$(now_ms)
msg delay_ms 0
check "delay_ms 300: a write takes >= 300 ms" [ $((t1 - t0)) -ge 300 ]
check "delay_ms: counted" [ "$(ewfault_field ewft 5)" -gt 0 ]

held() { dmsetup status ewft | grep -o 'held=[0-9]*'; }
for release in "hold 0" clear; do
	msg hold 1
	wr 8 &
	w=$!
	sleep 3
	if kill -0 $w 2>/dev/null && [ "$(held)" = held=1 ]; then
		ok "hold 1: a write is held ($release)"
	else
		notok "hold 1: a write is held ($release)"
		note "$(dmsetup status ewft)"
	fi
	# shellcheck disable=SC2086 # two words
	msg $release
	if wait $w && [ "$(held)" = held=0 ]; then
		ok "$release: the held write completes"
	else
		notok "$release: the held write completes"
	fi
done

st=$(dmsetup status ewft)
check "bad message refused" eval '! msg fail_flushes 2 2>/dev/null && ! msg nonsense 1 2>/dev/null'
check "bad message changed nothing" [ "$(dmsetup status ewft)" = "$st" ]
check "remove" dmsetup remove ewft
finish
