#!/bin/bash
# vm-run: --icount --disks 4 --disk-size 1G --meta-size 32M --timeout 900
# vmtest: beside
#
# A suspend no longer writes the whole map (issue 15: "suspend writes the
# whole map"), and what it leaves in the journal is replayed right
# (Documentation/eagerwrite.rst, "Clean shutdown and recovery").  For
# raid10, ddm and ew (four members, mirrors 2, a 900 MiB volume: a
# checkpoint of several hundred metadata blocks), the metadata device
# behind dm-delay (DELAY_MS on every write and flush: a slow metadata
# disk), held:
#  - a suspend after flushed writes: the checkpoint count (status field
#    19) does not move, and the superblock says clean with journal blocks
#    to replay (ewctl dump --json: clean, journal_length);
#  - the checkpoint message: the count moves by one and nothing is left
#    to replay; sent again at once, no checkpoint (nothing was logged);
#    sent to the suspended array after more writes, a checkpoint, and the
#    superblock stays clean; "checkpoint now" is refused;
#  - removed and created again: "clean shutdown, replayed N" with N > 0,
#    no checkpoint at the load (field 19 is 0), nothing demoted, every
#    flushed write reads back;
#  - then more flushed writes and a crash (the metadata device turned
#    into dm-error, the array removed): created again, "unclean shutdown",
#    every flushed write reads back: the journal the clean load kept is
#    replayed a second time, with what came after it;
#  - checkpoint messages while fio verify writes: fio verifies.
#  - the kernel log holds no warning.
# The times of a suspend and of the message are printed, not judged (a
# suspend used to cost the message's whole checkpoint).
# Prints "ok - NAME" / "not ok - NAME" and "# " notes.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

DELAY_MS=${DELAY_MS:-10}
DEV=ewsu
A=/dev/mapper/$DEV
M=/dev/mapper/ewsumeta

load_target || { notok "module loaded"; finish; }
ok "module loaded"
modprobe dm-delay 2>/dev/null
# shellcheck disable=SC2086
set -- $EW_DISKS
msz=$(blockdev --getsz "$EW_META")
meta_as() {	# meta_as delay|error
	local t="0 $msz error"
	[ "$1" = delay ] && t=$(meta_delay_table "$DELAY_MS")
	if dmsetup info ewsumeta >/dev/null 2>&1; then
		dmsetup suspend ewsumeta && dmsetup reload ewsumeta --table "$t" &&
			dmsetup resume ewsumeta
	else
		dmsetup create ewsumeta --table "$t"
	fi
}
dump() { ewctl dump --json $M | jq -r "$1"; }
ms_since() { echo $(((${EPOCHREALTIME/./} - $1) / 1000)); }
now_us() { echo "${EPOCHREALTIME/./}"; }
put() {	# put MIB_OFFSET: 2 MiB of new random data there, flushed; its sum kept
	head -c $((2 << 20)) /dev/urandom >"/tmp/su.$1" &&
		dd if="/tmp/su.$1" of=$A bs=1M seek="$1" oflag=direct conv=fsync status=none
}
back() {	# every piece put since the array was new reads back
	local f off
	for f in /tmp/su.*; do
		off=${f#/tmp/su.}
		dd if=$A bs=1M skip="$off" count=2 iflag=direct status=none |
			cmp -s - "$f" || { note "the 2 MiB at $off MiB differ"; return 1; }
	done
}
ckpts() { status_field $DEV 19; }

for layout in raid10 ddm ew; do
	t=$layout
	rm -f /tmp/su.*
	wipe_array "$EW_META" "$@" || { notok "$t: wipe"; continue; }
	meta_as delay || { notok "$t: dm-delay over the metadata device"; continue; }
	klog_mark
	table=$(ewctl table --layout $layout --sync 1 --len 900M --metadata $M "$@")
	check "$t: create" dmsetup create $DEV --table "$table"
	[ -b $A ] || continue
	check "$t: writes, flushed" put 0

	# a suspend: no checkpoint, the journal kept, the superblock clean
	c0=$(ckpts)
	t0=$(now_us)
	check "$t: suspend" dmsetup suspend $DEV
	note "$t: suspend took $(ms_since "$t0") ms ($DELAY_MS ms a metadata write)"
	c1=$(ckpts)
	check "$t: the suspend wrote no checkpoint (field 19: $c0, then $c1)" [ "$c1" = "$c0" ]
	jl=$(dump .journal_length)
	check "$t: suspended: clean, $jl journal blocks to replay" \
		eval '[ "$(dump .clean)" = true ] && [ "${jl:-0}" -gt 0 ]'
	check "$t: resume, suspend, resume" \
		eval 'dmsetup resume $DEV && dmsetup suspend $DEV && dmsetup resume $DEV'
	check "$t: still no checkpoint" [ "$(ckpts)" = "$c0" ]

	# the message, once the delayed replicas are written (their records
	# would be journalled after the checkpoint)
	check "$t: more writes" put 4
	check "$t: delayed replicas written" wait_drained $DEV 60
	t0=$(now_us)
	check "$t: checkpoint message" dmsetup message $DEV 0 checkpoint
	note "$t: the checkpoint message took $(ms_since "$t0") ms"
	c2=$(ckpts)
	check "$t: one checkpoint (field 19: $c0, then $c2)" [ "$c2" = $((c0 + 1)) ]
	jl=$(dump .journal_length) cl=$(dump .clean)
	check "$t: nothing left to replay ($jl), not clean (in use: $cl)" \
		[ "$jl:$cl" = 0:false ]
	check "$t: checkpoint again at once" dmsetup message $DEV 0 checkpoint
	check "$t: nothing logged, no checkpoint" [ "$(ckpts)" = "$c2" ]
	check "$t: \"checkpoint now\" refused" eval '! dmsetup message $DEV 0 checkpoint now 2>/dev/null'
	check "$t: more writes" put 8
	check "$t: delayed replicas written" wait_drained $DEV 60
	check "$t: checkpoint message while suspended" \
		eval 'dmsetup suspend $DEV && dmsetup message $DEV 0 checkpoint'
	c3=$(ckpts) jl=$(dump .journal_length) cl=$(dump .clean)
	check "$t: a checkpoint ($c2, then $c3), nothing to replay ($jl), still clean ($cl)" \
		[ "$c3:$jl:$cl" = $((c2 + 1)):0:true ]
	check "$t: resume" dmsetup resume $DEV

	# a clean remove leaves a journal; the load replays it, no checkpoint
	check "$t: more writes" put 12
	check "$t: remove" dmsetup remove $DEV
	jl=$(dump .journal_length)
	check "$t: removed: clean, $jl journal blocks to replay" \
		eval '[ "$(dump .clean)" = true ] && [ "${jl:-0}" -gt 0 ]'
	check "$t: kernel log clean so far" klog_clean
	klog_mark
	check "$t: created again" dmsetup create $DEV --table "$table"
	line=$(klog_since | grep -a 'shutdown, replayed' | tail -n 1)
	note "$t: ${line#*eagerwrite: }"
	check "$t: clean shutdown, the journal replayed" \
		eval 'printf "%s" "$line" | grep -q "clean shutdown, replayed [1-9]"'
	check "$t: nothing demoted" eval 'printf "%s" "$line" | grep -q "demoted 0,"'
	check "$t: no checkpoint at the load" [ "$(ckpts)" = 0 ]
	check "$t: the data reads back" back

	# writes after that load, a crash: the kept journal replayed again
	check "$t: more writes" put 16
	meta_as error
	dmsetup remove $DEV 2>/dev/null
	check "$t: array gone" eval '! dmsetup info $DEV >/dev/null 2>&1'
	meta_as delay
	klog_mark
	check "$t: created after the crash" dmsetup create $DEV --table "$table"
	line=$(klog_since | grep -a 'shutdown, replayed' | tail -n 1)
	note "$t: ${line#*eagerwrite: }"
	check "$t: unclean shutdown" eval 'printf "%s" "$line" | grep -q "unclean shutdown"'
	check "$t: the data reads back" back

	# checkpoints under a write load
	fio_verify $DEV randwrite 64M 256M >/tmp/fio-su.out 2>&1 &
	pid=$!
	n=0
	while kill -0 $pid 2>/dev/null && [ $n -lt 5 ]; do
		sleep 1
		dmsetup message $DEV 0 checkpoint || { notok "$t: checkpoint under load"; break; }
		n=$((n + 1))
	done
	wait $pid
	rc=$?
	cat /tmp/fio-su.out
	check "$t: fio verify with $n checkpoint messages meanwhile" \
		[ "$rc:$((n > 0))" = 0:1 ]
	check "$t: the data reads back" back
	check "$t: remove" dmsetup remove $DEV
	check "$t: kernel log clean" klog_clean
done
dmsetup remove ewsumeta 2>/dev/null
finish
