#!/bin/bash
# vm-run: --disks 2 --disk-size 4G --meta-size 32M --timeout 900 --icount
# vmtest: beside
#
# The periodic checkpoint does not stop the commits (a part of issue 15's
# checkpoint item; issue 18's all-rotating case).  A
# checkpoint writes the whole map; the commit worker used to write all of
# it before it committed again, so every fsync that came meanwhile waited
# for the whole map: about 120 ms every 230 commits with the metadata on
# an hddsim disk (make bench, ew1h: TPC-C write p99 120 ms, ewprobe max
# 122 ms), seconds on a large array.  Now the checkpoint is written in
# steps, a commit and its waiters' completion between two steps
# (Documentation/eagerwrite.rst, "Persistence: journal, commit,
# checkpoint").
#
# The metadata device is put behind dm-delay (DELAY_MS on every write and
# flush: a slow metadata disk), the array is 1.5 GiB (a checkpoint of 878
# blocks, written 64 at a time: 14 writes), and ewprobe rewrites one
# block with O_DSYNC for SECONDS, long enough for two checkpoints or
# more (status field 19).  Held:
#  - checkpoints happened (the check is not vacuous);
#  - no durable write waited for a whole checkpoint: ewprobe's slowest
#    write under the checkpoint's I/O ((14 + 5) x DELAY_MS: its map and
#    its end), while its median stays a commit or two (not judged on the
#    debug kernel: its timing is not the module's);
#  - the same across two suspends (a checkpoint in progress starts again
#    in postsuspend's); data written before, and ewprobe's block, read
#    back after the array is removed and loaded again from its metadata
#    (behind the delay), and again after a load without the delay;
#  - with the checkpoint areas behind a slower delay (SLOW_MS), ewprobe
#    write running: commits ran while a checkpoint was in progress (two
#    polls of the same checkpoint between its first and last map block,
#    field 35, with the commit count, field 18, moved between them); a
#    cut inside it (the metadata device turned into dm-error past half
#    its map and before the checkpoint count moved): loaded again, every
#    write ewprobe saw acknowledged reads back (ewprobe verify; the
#    control that verify can fail is test-ewprobe's); no kernel warning.
# Prints "ok - NAME" / "not ok - NAME" and "# " notes.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

DELAY_MS=${DELAY_MS:-20}
SECONDS_RUN=${SECONDS_RUN:-24}
# the debug kernel commits more slowly: longer, for the same checkpoints
case $(uname -r) in *-ewdebug) SECONDS_RUN=$((SECONDS_RUN * 2)) ;; esac
LEN=1536M
CKPT_IO=256	# map blocks a checkpoint write (EW_MD_BULK_BLOCKS)
DEV=ewck
A=/dev/mapper/$DEV
MD=/dev/mapper/ewckmeta

load_target || { notok "module loaded"; finish; }
ok "module loaded"
modprobe dm-delay 2>/dev/null
klog_mark

# shellcheck disable=SC2086
set -- $EW_DISKS
wipe_array || { notok "wipe"; finish; }
msz=$(blockdev --getsz "$EW_META")
check "dm-delay on the metadata device ($DELAY_MS ms a write)" \
	dmsetup create ewckmeta --table "$(meta_delay_table "$DELAY_MS")"
table=$(ewctl table --layout ew --sync 2 --len $LEN --metadata $MD "$1" "$2")
check "ewctl table" [ -n "$table" ]
check "create a $LEN ew array, metadata behind the delay" \
	dmsetup create $DEV --table "$table"

head -c $((4 << 20)) /dev/urandom >/tmp/ck.pat
check "4 MiB written at 8 MiB, synced" \
	dd if=/tmp/ck.pat of=$A bs=1M seek=8 oflag=direct conv=fsync status=none

json_num() {	# json_num FILE KEY: the first number after "KEY":
	sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | head -n 1
}
probe() {	# probe SECONDS JSON: ewprobe rewrites block 0, O_DSYNC
	ewprobe rate --same-block --seconds "$1" --method direct-fua \
		--json --force $A >"$2" 2>/tmp/ck.err
}

ckb=$(ewctl dump --json $MD | sed -n 's/.*"ckpt_blocks": \([0-9]*\).*/\1/p')
check "ewctl dump: the checkpoint's size (${ckb:-?} blocks)" [ "${ckb:-0}" -gt 0 ]
chunks=$(((${ckb:-0} + CKPT_IO - 1) / CKPT_IO))

# 1. the periodic checkpoints alone
c0=$(status_field $DEV 19)
probe "$SECONDS_RUN" /tmp/ck.json
rc=$?
c1=$(status_field $DEV 19)
check "ewprobe ran (exit $rc)" [ $rc -eq 0 ]
note "ewprobe: $(cat /tmp/ck.json)"
ck=$((c1 - c0))
check "checkpoints during the run: $ck (at least 2)" [ $ck -ge 2 ]
max_us=$(json_num /tmp/ck.json max)
p50_us=$(json_num /tmp/ck.json p50)
# a whole checkpoint: its map writes, then its end (a commit: a write and
# the flush of the emulated FUA; the metadata flush; the superblock: a
# flush, a write, a flush), each DELAY_MS behind dm-delay
bound_us=$(((chunks + 5) * DELAY_MS * 1000))
note "slowest write ${max_us:-?} us, median ${p50_us:-?} us; a whole checkpoint is $chunks map writes and 5 more I/Os of $DELAY_MS ms: $bound_us us"
# the project's debug kernel (release *-ewdebug: KASAN, lockdep) is
# several times slower: its latencies are not the module's
case $(uname -r) in
*-ewdebug)
	echo "ok - no durable write waited for a whole checkpoint # SKIP debug kernel: its timing is not the module's"
	;;
*)
	check "no durable write waited for a whole checkpoint (slowest < $bound_us us)" \
		awk -v m="${max_us:-x}" -v b="$bound_us" \
		'BEGIN { exit !(m ~ /^[0-9.]+$/ && m + 0 < b) }'
	check "the median write is a commit or two (< $((4 * DELAY_MS)) ms)" \
		awk -v m="${p50_us:-x}" -v b="$((4 * DELAY_MS * 1000))" \
		'BEGIN { exit !(m ~ /^[0-9.]+$/ && m + 0 < b) }'
	;;
esac

# 2. suspended and resumed meanwhile: a checkpoint in progress starts
# again in postsuspend's
probe "$SECONDS_RUN" /tmp/ck2.json &
pid=$!
sleep $((SECONDS_RUN / 3))
dmsetup suspend $DEV && dmsetup resume $DEV
sleep $((SECONDS_RUN / 3))
dmsetup suspend $DEV && dmsetup resume $DEV
wait $pid
rc=$?
check "ewprobe ran across two suspends (exit $rc)" [ $rc -eq 0 ]
c2=$(status_field $DEV 19)
note "checkpoints meanwhile: $((c2 - c1)) (status counts since the last load)"

dd if=$A bs=4096 count=1 iflag=direct status=none >/tmp/ck.blk0
pattern_back() {	# (no /dev/fd in the guest: no <(...))
	dd if=$A of=/tmp/ck.back bs=1M skip=8 count=4 iflag=direct status=none &&
		cmp -s /tmp/ck.pat /tmp/ck.back ||
		{ note "the 4 MiB at 8 MiB differ"; return 1; }
	dd if=$A of=/tmp/ck.back bs=4096 count=1 iflag=direct status=none &&
		cmp -s /tmp/ck.blk0 /tmp/ck.back ||
		{ note "block 0 differs"; return 1; }
}
check "the data read back before the reload" pattern_back
dmsetup remove $DEV
check "loaded again from its metadata (behind the delay)" \
	dmsetup create $DEV --table "$table"
check "the data and ewprobe's last block read back" pattern_back
dmsetup remove $DEV
dmsetup remove ewckmeta
check "loaded again without the delay" \
	dmsetup create $DEV --table "${table//$MD/$EW_META}"
check "the data read back again" pattern_back
dmsetup remove $DEV

# 3. commits between the steps, and a cut inside a checkpoint.  The
# checkpoint areas go behind a slower delay (SLOW_MS a write; the
# journal and superblocks stay at DELAY_MS, flushes too), so that one
# checkpoint lasts seconds and the status polls (0.1-1.5 s each under
# TCG) see it in progress more than once.  Then, past half its map, the
# metadata device fails (dm-error) before the checkpoint ends; the
# array is loaded again from what the device holds (the previous
# checkpoint and the whole journal since) and every acknowledged write
# of ewprobe's must read back.  A cut that came after the end (the
# checkpoint count moved) is tried again, up to 3 times.
SLOW_MS=${SLOW_MS:-300}
split_table() {	# the metadata device, the checkpoint areas (from $1) slower
	local cs=$(($1 * 8))
	echo "0 $cs delay $EW_META 0 0 $EW_META 0 $DELAY_MS $EW_META 0 $DELAY_MS"
	echo "$cs $((msz - cs)) delay $EW_META $cs 0 $EW_META $cs $SLOW_MS $EW_META $cs $DELAY_MS"
}
cut_inside() {	# the cut's checks, with the values of the attempt
	[ -n "$inside" ] && [ "$cb" = "$ca" ]
}
between=
for attempt in 1 2 3; do
	dmsetup remove $DEV 2>/dev/null
	dmsetup remove ewckmeta 2>/dev/null
	wipe_array
	dmsetup create ewckmeta --table "0 $msz linear $EW_META 0"
	if ! dmsetup create $DEV --table "$table"; then
		notok "attempt $attempt: create"
		continue
	fi
	cs=$(ewctl dump --json $MD | sed -n 's/.*"ckpt_start": \[\([0-9]*\),.*/\1/p')
	[ -n "$cs" ] || { notok "attempt $attempt: ewctl dump"; continue; }
	dmsetup suspend ewckmeta && split_table "$cs" | dmsetup load ewckmeta &&
		dmsetup resume ewckmeta
	ewprobe write --log /tmp/ck.log --seconds 240 --blocks 2048 --force $A \
		>/tmp/ck.w 2>&1 &
	pid=$!
	inside= prev=
	: >/tmp/ck.polls3
	for ((i = 0; i < 2400; i++)); do
		c=$(status_field $DEV 18)
		p=$(status_field $DEV 35)
		echo "$c $p" >>/tmp/ck.polls3
		if [[ $p =~ ^[0-9]+/[0-9]+$ ]] && [ "${p%/*}" -gt 0 ] &&
			[ "${p%/*}" -lt "${p#*/}" ]; then
			# the same checkpoint in progress, commits since the last poll
			if [ -n "$prev" ] && [ "${c:-0}" -gt "${prev% *}" ] &&
				[ "${p%/*}" -ge "${prev#* }" ]; then
				between="${between:-$prev -> $c ${p%/*}}"
			fi
			prev="$c ${p%/*}"
			# past half the map: commits have run between its steps
			if [ "$((2 * ${p%/*}))" -ge "${p#*/}" ]; then
				inside=$p
				break
			fi
		else
			prev=
		fi
		sleep 0.1
	done
	cb=$(status_field $DEV 19)
	dmsetup suspend ewckmeta && dmsetup load ewckmeta --table "0 $msz error" &&
		dmsetup resume ewckmeta
	ca=$(status_field $DEV 19)
	i=0	# ewprobe stops at its first failed sync
	while kill -0 $pid 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill $pid 2>/dev/null
	wait $pid
	note "attempt $attempt: progress ${inside:-none} at the cut, checkpoints $cb then $ca, $(wc -l </tmp/ck.polls3) polls"
	cut_inside && break
done
check "commits ran between the steps of a checkpoint (commits, blocks written: ${between:-never seen})" \
	[ -n "$between" ]
check "the cut came inside a checkpoint (progress ${inside:-none}, checkpoints $cb then $ca)" \
	cut_inside
check "the array is read-only after the cut" \
	[ "$(status_field $DEV 16)" = read_only ]
dmsetup remove $DEV
dmsetup suspend ewckmeta && dmsetup load ewckmeta --table "0 $msz linear $EW_META 0" &&
	dmsetup resume ewckmeta
check "loaded again after the cut" dmsetup create $DEV --table "$table"
acked=$(grep -c '^EWPROBE ack ' /tmp/ck.log)
note "ewprobe: $acked acknowledged writes before the cut"
check "every acknowledged write reads back (ewprobe verify)" \
	ewprobe verify --log /tmp/ck.log $A
check "and some were acknowledged" [ "$acked" -gt 100 ]
dmsetup remove $DEV
dmsetup remove ewckmeta
check "no kernel warning" klog_clean
finish
