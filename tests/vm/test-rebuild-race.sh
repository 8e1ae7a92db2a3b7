#!/bin/bash
# vm-run: --disks 5 --disk-size 32M --meta-size 32M --mem 2048 --timeout 1200 --rotational 1
#
# A rebuild never copies a stale replica and never races a foreground
# write (issue 17 item 6; the rule is in dm-eagerwrite-rebuild.c,
# "Rebuild runs").  For each configuration LAYOUT:SYNC (raid10:2, ddm:1, ew:1;
# 4 members, mirrors 2, an 8 MiB volume; with sync 1 a write during the
# rebuild takes the live partner only, so a copy in flight of its block
# is stale and must be dropped; with raid10 sync 2 it writes the
# rebuilding member's home too, which a copy in flight must not
# overwrite):
#  1. fio writes a verify pattern over [4 MiB, 8 MiB); ewprobe write
#     (one thread, write + fdatasync, generation-numbered self-describing
#     blocks, its log in a file) rewrites random blocks of [0, 4 MiB) for
#     the whole test;
#  2. member 1 becomes dm-error and fails; its replica partner (the
#     source of the rebuild) becomes dm-delay with reads delayed
#     DELAY_MS (50 ms), so that every rebuild copy is in flight long
#     enough for ewprobe's writes to land on its blocks meanwhile (at
#     its 700-850 writes/s in a quiet guest, 35-40 writes land during
#     each copy; with 100 ms and a 16 MiB volume the yielding scan of
#     ddm and ew took 170 s each, the suite 445 s in CI);
#  3. the spare replaces member 1 at rebuild_rate 1 (runs of a tick's
#     tokens) and the scan passes the last block while ewprobe writes;
#  4. ewprobe stops, the rebuild completes (the member's queue of
#     delayed replicas must drain first: under a steady write load on a
#     slowed source it may never be empty), the delayed replicas drain
#     (field 8: 0); the array
#     is created again with the partner missing
#     ("-"): every block of that replica set is now read from the rebuilt
#     member.  ewprobe verify: every acknowledged write is there, in its
#     last acknowledged generation (a stale copy would show an older one
#     or garbage: "lost" or "corrupt"); fio verify_only: the pattern;
#  5. control: an acknowledged block zeroed through the array is
#     reported lost by the same verify.
# Kernel log clean after each configuration.
#
# "last" (ew, sync 1; deterministic, about 20 s): a copy whose block's
# LAST write lands while it is in flight.  Above, a stale copy made
# current is superseded by the write's own delayed replica to the
# rebuilding member (or the copy is dropped because that replica came
# first), so only a read inside that window could see it: a mutant that
# commits a run whose generation no longer matches passed the loop.
# Here the delayed replica is kept queued behind others until after the
# copy completes; the stale copy, once current, makes that replica look
# done (ew_next_copy drops it), and nothing writes the block again:
#  1. block 16 (chunk 1: members 1 and 3) gets X; assembled with member
#     1 missing, the rebuild paused, the spare in its place; member 3
#     delays reads by 4 s and the spare writes by 3 s;
#  2. the scan resumes and passes: the run copying X (read from member 3,
#     written to the spare) is the one run in flight, for about 7 s;
#  3. meanwhile blocks 17-28 are written (their delayed replicas to the
#     spare: three batches of EW_COPIES_PER_DISK (4) at 3 s each), then
#     Y into block 16, acknowledged at once (member 3 only); its delayed
#     replica waits behind the twelve for about 9 s, and the run
#     completes before it starts (checked: the run still in flight, in
#     status field 8 less the pages of field 29, when Y is acknowledged).
#     The writes of 17-28 and Y must fit in the run's 7 s: with 2 s and
#     2 s (a 4 s run) the debug kernel beside a CI run did not (the run
#     was over when Y was acknowledged);
#  4. the rebuild completes; assembled with member 3 missing, block 16 is
#     read from the rebuilt member alone and must be Y (X: the stale copy
#     made current), blocks 17-28 their data; control: X written again
#     is reported not Y.
# EW_REBUILD_RACE_CONFIGS picks some (e.g. "ew:1 last").
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

configs=${EW_REBUILD_RACE_CONFIGS:-"raid10:2 ddm:1 ew:1 last"}
DEV=ewr
VOL=8M
PROBE_BLOCKS=1024	# [0, 4 MiB)
DELAY_MS=${EW_REBUILD_RACE_DELAY_MS:-50}
# shellcheck disable=SC2206
D=($EW_DISKS)
SZ=$(blockdev --getsz "${D[0]}")

load_target || { notok "module loaded"; finish; }

state_of() { status_field $DEV 7 | cut -c$(($1 + 1)); }
wait_failed() {	# wait_failed I: member I shown D (reads make the errors)
	local t0=$SECONDS
	while [ "$(state_of "$1")" != D ]; do
		dd if=/dev/mapper/$DEV of=/dev/null bs=1M count=16 iflag=direct status=none 2>/dev/null
		sleep 0.2
		[ $((SECONDS - t0)) -gt 60 ] && return 1
	done
	return 0
}
scanned() {	# the scan past the last block (or the rebuild over)
	local t0=$SECONDS p
	while :; do
		p=$(status_field $DEV 26)
		[ "$p" = 0/0 ] && [ "$(status_field $DEV 27)" = idle ] && return 0
		[ "${p%/*}" = "${p#*/}" ] && [ "${p%/*}" != 0 ] && return 0
		sleep 0.5
		[ $((SECONDS - t0)) -gt 300 ] && { note "not scanned: $(dmsetup status $DEV)"; return 1; }
	done
}
rebuilt() {	# the scan idle and every member A
	local t0=$SECONDS
	while [ "$(status_field $DEV 27)" != idle ] || [ -n "$(status_field $DEV 7 | tr -d A)" ]; do
		sleep 0.5
		[ $((SECONDS - t0)) -gt 300 ] && { note "not rebuilt: $(dmsetup status $DEV)"; return 1; }
	done
	return 0
}
pattern() {	# pattern write|verify
	local v=(--do_verify=1)
	[ "$1" = verify ] && v=(--verify_only=1)
	fio --name=pat --filename=/dev/mapper/$DEV --rw=write --bs=64k \
		--offset=4M --size=4M --ioengine=libaio --iodepth=8 --direct=1 \
		--verify=crc32c --verify_fatal=1 "${v[@]}" --eta=never \
		--output=/tmp/pat.out >/dev/null 2>&1 && return 0
	grep -iE 'verify|bad|err' /tmp/pat.out | head -n 5 | sed 's/^/#   /'
	return 1
}

drained() {	# no delayed replica pending
	local t0=$SECONDS
	while [ "$(status_field $DEV 8)" != 0 ]; do
		sleep 0.5
		[ $((SECONDS - t0)) -gt 120 ] && { note "pending: $(dmsetup status $DEV)"; return 1; }
	done
	return 0
}

# The "last" case (see above).
LB=16		# chunk 1 of 16 blocks (chunk_sectors 128): members 1 and 3
LN=12		# fillers, blocks LB+1 .. LB+LN: three batches of 4 copies
put() {		# put N FILE [BLOCKS]: FILE into blocks N..
	dd if="$2" of=/dev/mapper/$DEV bs=4096 seek="$1" count="${3:-1}" \
		oflag=direct conv=notrunc status=none
}
blocks_are() {	# blocks_are N FILE [BLOCKS]: blocks N.. hold FILE
	dd if=/dev/mapper/$DEV of=/tmp/blk bs=4096 skip="$1" count="${3:-1}" \
		iflag=direct status=none && cmp -s /tmp/blk "$2" && return 0
	[ "${3:-1}" = 1 ] && cmp -s /tmp/blk /tmp/lx &&
		note "block $1 holds X, the data before its last acknowledged write"
	return 1
}
copies_in_flight() {	# blocks of the rebuild runs in flight
	local pend pages
	pend=$(status_field $DEV 8)
	pages=$(status_field $DEV 29)
	echo $((pend - ${pages%/*}))
}
last_write_race() {
	local n="last" all table spare runs pages i
	dmsetup remove_all 2>/dev/null
	wipe_array "$EW_META" "${D[@]}"
	for i in 0 1 2 3; do dmsetup create "ewm$i" --table "0 $SZ linear ${D[$i]} 0"; done
	dmsetup create ewsp --table "0 $SZ linear ${D[4]} 0"
	all="/dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3"
	# shellcheck disable=SC2086
	table=$(ewctl table --layout ew --sync 1 --len "$VOL" --metadata "$EW_META" $all)
	spare=${table/\/dev\/mapper\/ewm1 /\/dev\/mapper\/ewsp }
	head -c 4096 /dev/urandom >/tmp/lx
	head -c 4096 /dev/urandom >/tmp/ly
	head -c $((LN * 4096)) /dev/urandom >/tmp/lf
	klog_mark
	if ! dmsetup create $DEV --table "$table"; then
		notok "$n: create"
		return
	fi
	x_drained() { put $LB /tmp/lx && wait_drained $DEV 60; }
	check "$n: X into block $LB, its delayed replica written" x_drained
	check "$n: remove" dmsetup remove $DEV
	check "$n: assembled with member 1 missing" \
		dmsetup create $DEV --table "${table/\/dev\/mapper\/ewm1 /- }"
	check "$n: rebuild paused" dmsetup message $DEV 0 rebuild pause
	check "$n: member 3 delays reads by 4 s" sh -c \
		"dmsetup reload ewm3 --table '0 $SZ delay ${D[3]} 0 4000 ${D[3]} 0 0' && dmsetup resume ewm3"
	check "$n: the spare delays writes by 3 s" sh -c \
		"dmsetup reload ewsp --table '0 $SZ delay ${D[4]} 0 0 ${D[4]} 0 3000' && dmsetup resume ewsp"
	check "$n: the spare replaces member 1" sh -c \
		"dmsetup reload $DEV --table '$spare' && dmsetup resume $DEV"
	check "$n: member 1 rebuilding (R), the scan paused" \
		test "$(state_of 1)$(status_field $DEV 27)" = Rpaused
	check "$n: the scan resumes" dmsetup message $DEV 0 rebuild resume
	check "$n: the scan passes every block" scanned
	runs=$(copies_in_flight)
	check "$n: the copy of block $LB is the one run in flight ($runs)" test "$runs" = 1
	check "$n: blocks $((LB + 1))-$((LB + LN)) written" put $((LB + 1)) /tmp/lf $LN
	check "$n: Y into block $LB (its last write)" put $LB /tmp/ly
	runs=$(copies_in_flight)
	pages=$(status_field $DEV 29)
	note "$n: when Y was acknowledged: $runs run block(s) in flight, delayed-write pages ${pages%/*}"
	check "$n: the copy of block $LB still in flight when Y is acknowledged, Y's delayed replica queued" \
		test "$runs" = 1 -a "${pages%/*}" -gt $((LN - 4))
	check "$n: the rebuild completes" rebuilt
	check "$n: the delayed replicas drain" drained
	check "$n: remove again" dmsetup remove $DEV
	check "$n: delays off" sh -c "dmsetup reload ewm3 --table '0 $SZ linear ${D[3]} 0' &&
		dmsetup resume ewm3 && dmsetup reload ewsp --table '0 $SZ linear ${D[4]} 0' &&
		dmsetup resume ewsp"
	# member 3 gone: chunk 1 is read from the rebuilt member alone
	if ! dmsetup create $DEV --table "${spare/\/dev\/mapper\/ewm3 /- }"; then
		notok "$n: assembled with member 3 missing"
		return
	fi
	check "$n: block $LB reads Y, its last acknowledged write, from the rebuilt member" \
		blocks_are $LB /tmp/ly
	check "$n: blocks $((LB + 1))-$((LB + LN)) read back from the rebuilt member" \
		blocks_are $((LB + 1)) /tmp/lf $LN
	not_y() { ! blocks_are $LB /tmp/ly >/dev/null; }
	check "$n: control: X written into block $LB again" put $LB /tmp/lx
	check "$n: control: block $LB is then reported not Y" not_y
	check "$n: remove at the end" dmsetup remove $DEV
	check "$n: kernel log clean" klog_clean
}

for cfg in $configs; do
	if [ "$cfg" = last ]; then
		last_write_race
		continue
	fi
	layout=${cfg%:*} sync=${cfg#*:}
	case $layout in ddm) partner=0 ;; *) partner=3 ;; esac
	dmsetup remove_all 2>/dev/null
	wipe_array "$EW_META" "${D[@]}"
	for i in 0 1 2 3; do dmsetup create "ewm$i" --table "0 $SZ linear ${D[$i]} 0"; done
	dmsetup create ewsp --table "0 $SZ linear ${D[4]} 0"
	table=$(ewctl table --layout "$layout" --sync "$sync" --len "$VOL" --metadata "$EW_META" \
		/dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3)
	klog_mark
	if ! dmsetup create $DEV --table "$table"; then
		notok "$cfg: create"
		continue
	fi
	check "$cfg: verify pattern over [4, 8) MiB" pattern write
	rm -f /tmp/probe.log
	ewprobe write --log /tmp/probe.log --seconds 3600 --blocks $PROBE_BLOCKS \
		--seed 7 --force /dev/mapper/$DEV >/tmp/probe.out 2>&1 &
	ppid=$!
	sleep 2

	dmsetup reload ewm1 --table "0 $SZ error" && dmsetup resume ewm1
	check "$cfg: member 1 failed" wait_failed 1
	dmsetup reload "ewm$partner" --table "0 $SZ delay ${D[$partner]} 0 $DELAY_MS ${D[$partner]} 0 0" &&
		dmsetup resume "ewm$partner"
	check "$cfg: rebuild_rate 1" dmsetup message $DEV 0 rebuild_rate 1
	bg0=$(status_field $DEV 12)
	table=${table/\/dev\/mapper\/ewm1 /\/dev\/mapper\/ewsp }
	check "$cfg: the spare replaces member 1" sh -c \
		"dmsetup reload $DEV --table '$table' && dmsetup resume $DEV"
	check "$cfg: the rebuild scan passes the last block under ewprobe's writes" scanned
	kill -INT $ppid 2>/dev/null
	wait $ppid
	check "$cfg: the rebuild completes" rebuilt
	bg1=$(status_field $DEV 12)
	check "$cfg: the delayed replicas drain" drained
	note "$cfg: $(tail -n 1 /tmp/probe.out)"
	note "$cfg: replicas copied $((bg1 - bg0)); $(grep -c '^EWPROBE ack' /tmp/probe.log) writes acknowledged"
	check "$cfg: the rebuild copied replicas" test $((bg1 - bg0)) -gt 0
	dmsetup reload "ewm$partner" --table "0 $SZ linear ${D[$partner]} 0" && dmsetup resume "ewm$partner"

	# the source member gone: its replica set reads from the rebuilt one
	check "$cfg: remove" dmsetup remove $DEV
	gone=${table/\/dev\/mapper\/ewm$partner /- }
	if ! dmsetup create $DEV --table "$gone"; then
		notok "$cfg: create with member $partner missing"
		continue
	fi
	ewprobe verify --log /tmp/probe.log --json /dev/mapper/$DEV >/tmp/v.json 2>/tmp/v.err
	rc=$?
	note "$cfg: verify: $(jq -c '{result, acked, verified, later_write, lost, corrupt, foreign}' /tmp/v.json 2>/dev/null)"
	if [ $rc = 0 ] && jq -e '.result == "ok" and .lost == 0 and .corrupt == 0 and .acked > 100' /tmp/v.json >/dev/null; then
		ok "$cfg: every write acknowledged during the rebuild reads back from the rebuilt member"
	else
		notok "$cfg: every write acknowledged during the rebuild reads back from the rebuilt member (verify exit $rc)"
		jq -r '.problems[:5][] | "#   block \(.block): \(.kind): \(.found)"' /tmp/v.json 2>/dev/null
	fi
	check "$cfg: the pattern reads back from the rebuilt member" pattern verify
	# control: the same verify sees a block that is not what was acked
	blk=$(grep -aE '^EWPROBE ack ' /tmp/probe.log | tail -n 1 | cut -d' ' -f4)
	if [ -n "$blk" ] &&
		dd if=/dev/zero of=/dev/mapper/$DEV bs=4096 seek="$blk" count=1 oflag=direct conv=notrunc status=none &&
		{ ewprobe verify --log /tmp/probe.log --json /dev/mapper/$DEV >/tmp/c.json 2>/dev/null; [ $? = 1 ]; } &&
		jq -e '.lost > 0' /tmp/c.json >/dev/null; then
		ok "$cfg: control: acknowledged block $blk zeroed is reported lost"
	else
		notok "$cfg: control: acknowledged block ${blk:-none} zeroed is reported lost"
	fi
	check "$cfg: remove again" dmsetup remove $DEV
	check "$cfg: kernel log clean" klog_clean
done
dmsetup remove_all 2>/dev/null
finish
