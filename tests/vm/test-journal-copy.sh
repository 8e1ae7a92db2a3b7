#!/bin/bash
# vm-run: --icount --disks 2 --disk-size 48M --meta-size 16M --timeout 900
# vmtest: beside
#
# journal_copy (issue 16 items 2-3): with `sync 1 journal_copy N`, no
# acknowledged write is lost to one member failure inside Delay's window,
# where plain `sync 1` loses (the control, as test-sync-window.sh shows).
# Also the table key as the kernel takes it: refused without sync 1, a
# metadata device too small for the copy slots refused, TABLE reloads
# the key exactly.
#
# Two members, each a dm-ewfault device over a guest disk (mirrors 2),
# as in test-sync-window.sh:
#  - member 1 looks expensive to the head predictor (disk_param
#    overhead_ns 50 ms), so that a sync 1 write's foreground replica goes
#    to member 0, and member 1's completions are held (ewfault hold 1,
#    released at once by "clear"; a delay_ms timer would keep them 30 s
#    more, on every case): its delayed replicas stay not current;
#  - generation-checked writes (ewprobe write, target-lib.sh gen_write),
#    NBLK of them over GEN_BLOCKS blocks, each fdatasync'ed: the log has
#    every acknowledged write;
#  - member 0 becomes dm-error;
#  - gen_verify with member 1 still held (at most VERIFY_S seconds, then
#    its hold ends): every acknowledged write reads back, none older.
# Control (sync 1 without journal_copy): some acknowledged writes are lost
#   (read as I/O errors; the test fails if none is, so that it can tell
#   the two apart).
# journal_copy: 0 lost, read back while member 1 is held (from the
#   copies: its delayed replicas are still in flight), and every write
#   acknowledged while member 1 is held (within WAIT_S, with copy slots
#   in use): with one replica and the copy, not by waiting for member 1
#   (sync 2 would).  The writer
#   runs in the background and the failure comes after it has
#   acknowledged its writes or after WAIT_S seconds, whichever is first;
#   the time the writes took and the slots in use are printed.
#
# Over a checkpoint (issue 16 item 4): the same window with CKPT_WRITES
#   writes, more journal blocks than half the journal (511 blocks here),
#   and CKPT_SLOTS slots (a copy superseded keeps its slot until its
#   delayed entry ends, here after the hold), so that the periodic
#   checkpoint falls due while copies are live (member 1 held
#   as above): it carries them and the writes go on (it used to
#   wait until no copy was live, and every write with it: here until the
#   hold ended); all acknowledged within CKPT_WAIT_S while member 1 is
#   held, a checkpoint taken meanwhile (status field 19), none lost.
#
# Layouts raid10, ddm and ew (arguments or EW_JCOPY_LAYOUTS select).
# raid10 writes each block once (R10_BLOCKS blocks, ewprobe seed R10_SEED,
# whose 16 writes hit 16 blocks): a rewrite of a block whose delayed copy
# to its fixed home is in flight waits for that copy (it holds the
# block's cell), here for the whole hold, so random rewrites stalled the
# writer (5 of 16 acknowledged in 25 s, control and journal_copy alike).
# For the same reason the checkpoint case (300 writes over 16 blocks)
# runs on ddm and ew only; its path (the journal carrying COPY records)
# does not depend on the layout.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
GEN_BLOCKS=16
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

layouts=${*:-${EW_JCOPY_LAYOUTS:-"raid10 ddm ew"}}
DEV=ewj
NBLK=16
CKPT_WRITES=300
CKPT_SLOTS=512
CKPT_WAIT_S=20
VERIFY_S=15
R10_BLOCKS=64
R10_SEED=1
SLOTS=64
WAIT_S=20

load_target || { notok "module loaded"; finish; }
ok "module loaded"
load_ewfault || { notok "ewfault module loaded"; finish; }
ok "ewfault module loaded"
# shellcheck disable=SC2206
D=($EW_DISKS)
[ "${#D[@]}" -ge 2 ] || { notok "two disks (have ${#D[@]})"; finish; }
SZ=$(blockdev --getsz "${D[0]}")

# table LAYOUT SYNC [SLOTS [META]]: the line, with journal_copy SLOTS
table() {
	ewctl table --layout "$1" --sync "$2" ${3:+--journal-copy "$3"} \
		--len 8M --metadata "${4:-$EW_META}" \
		/dev/mapper/ewq0 /dev/mapper/ewq1 2>/dev/null
}
# setup LAYOUT SYNC [SLOTS]: a new array over two ewfault members,
# member 1 costly to the predictor
setup() {
	ewfault_members ewq 2 || return 1
	dmsetup create "$DEV" --table "$(table "$@")" || return 1
	dmsetup message "$DEV" 0 disk_param 1 overhead_ns 50000000
}
teardown() {
	dmsetup message ewq1 0 clear 2>/dev/null
	[ -n "${wpid:-}" ] && wait "$wpid" 2>/dev/null
	wpid=
	dmsetup remove "$DEV" 2>/dev/null
	dmsetup remove ewq0 2>/dev/null
	dmsetup remove ewq1 2>/dev/null
	dmsetup remove ewjmeta 2>/dev/null
}
refused() {	# refused TABLE: the constructor refuses it
	! dmsetup create "$DEV" --table "$1" 2>/dev/null
}
table_names_key() {
	dmsetup table "$DEV" | grep -q " sync 1 journal_copy $SLOTS "
}
kill_member0() {
	dmsetup reload ewq0 --table "0 $SZ error" && dmsetup resume ewq0
}
# acked: acknowledged writes in the generation log so far
acked() {
	local n
	n=$(grep -c '^EWPROBE ack ' "/tmp/gen-$DEV.log" 2>/dev/null)
	echo "${n:-0}"
}
# window LAYOUT SYNC [SLOTS]: writes ($nw of them, default NBLK) with
# member 1 held, member 0 fails after them or after $ws s (default
# WAIT_S); sets $ackd, $secs, $slots, $ckpts; leaves the array, member 1
# still held, for held_verify
window() {
	local t0 _ st
	setup "$@" || return 1
	dmsetup message ewq1 0 hold 1 || return 1
	t0=$(date +%s)
	# shellcheck disable=SC2086 # $seed: empty or one word
	gen_write "$DEV" "${nw:-$NBLK}" $seed &
	wpid=$!
	for _ in $(seq $((${ws:-$WAIT_S} * 10))); do
		kill -0 "$wpid" 2>/dev/null || break
		sleep 0.1
	done
	secs=$(($(date +%s) - t0))
	ackd=$(acked)
	# copy slots used/total (field 31) and checkpoints (field 19) while
	# member 1 is held
	st=$(dmsetup status "$DEV")
	slots=$(echo "$st" | awk '{ print $34 }')
	ckpts=$(echo "$st" | awk '{ print $22 }')
	kill_member0
}
# held_verify: gen_verify with member 1 still held, for at most VERIFY_S
# seconds, then member 1 released; its status.  Sets $vheld to 1 when it
# ended while member 1 was held (the blocks read from the copies, not
# from member 1's delayed replicas, still in flight).
held_verify() {
	local vp _ rc
	gen_verify "$DEV" >/tmp/hv.out 2>&1 &
	vp=$!
	vheld=0
	for _ in $(seq $((VERIFY_S * 10))); do
		kill -0 "$vp" 2>/dev/null || { vheld=1; break; }
		sleep 0.1
	done
	dmsetup message ewq1 0 clear
	wait "$vp"
	rc=$?
	cat /tmp/hv.out
	[ -n "${wpid:-}" ] && wait "$wpid"
	wpid=
	return $rc
}

for layout in $layouts; do
	klog_mark
	# raid10: each block written once (see the header)
	if [ "$layout" = raid10 ]; then
		GEN_BLOCKS=$R10_BLOCKS seed=$R10_SEED
	else
		GEN_BLOCKS=16 seed=
	fi
	# the key as the kernel takes it
	ewfault_members ewq 2
	check "$layout: journal_copy without sync 1 refused" \
		refused "$(table "$layout" 1 $SLOTS | sed 's/ sync 1 / sync 2 /')"
	check "$layout: ... with its message" klog_has "journal_copy needs sync 1"
	# a metadata device large enough without the slots, too small with them
	need=$(ewctl geometry --disks 2 --disk-size "${SZ}s" --layout "$layout" \
		--len 8M --json 2>/dev/null |
		sed -n 's/.*"meta_sectors": \([0-9]*\).*/\1/p')
	if check "$layout: metadata size without copy slots ($need sectors)" \
		test -n "$need" &&
		check "$layout: a metadata device of that size" \
			dmsetup create ewjmeta --table "0 $need linear $EW_META 0"; then
		check "$layout: journal_copy $SLOTS on it refused" \
			refused "$(table "$layout" 1 $SLOTS /dev/mapper/ewjmeta)"
		check "$layout: ... Metadata device too small" \
			klog_has "Metadata device too small"
	fi
	teardown
	if check "$layout sync 1 journal_copy $SLOTS: array" setup "$layout" 1 $SLOTS; then
		check "$layout journal_copy: TABLE names it" table_names_key
		check "$layout journal_copy: TABLE reloads exactly" \
			table_round_trip "$DEV"
	fi
	teardown

	# the control: plain sync 1 loses acknowledged writes in the window
	ackd=0 secs=0 slots=
	if check "$layout sync 1: window" window "$layout" 1; then
		note "$layout sync 1: $ackd writes acknowledged in ${secs}s before the failure"
		if held_verify; then
			notok "$layout sync 1: acknowledged writes lost in the window (none lost: the control cannot tell)"
		else
			ok "$layout sync 1: acknowledged writes lost in the window (the control)"
		fi
	fi
	teardown
	# journal_copy: nothing acknowledged is lost
	ackd=0 secs=0 slots=
	if check "$layout sync 1 journal_copy $SLOTS: window" \
		window "$layout" 1 $SLOTS; then
		note "$layout journal_copy: $ackd writes acknowledged in ${secs}s before the failure, copy slots $slots"
		# acknowledged with member 1's completions held: one replica
		# and the copy, not the sync 2 fallback (which waits for them)
		check "$layout journal_copy: $NBLK writes acknowledged while member 1 is held" \
			test "$ackd" -eq $NBLK
		check "$layout journal_copy: copy slots in use then ($slots)" \
			test "${slots%%/*}" -gt 0
		check "$layout journal_copy: no acknowledged write lost to one member failure" \
			held_verify
		check "$layout journal_copy: ... read back while member 1 is held" \
			test "$vheld" = 1
	fi
	teardown
	# journal_copy over a checkpoint: it carries the live copies (not
	# on raid10: see the header)
	ackd=0 secs=0 slots='' ckpts=''
	if [ "$layout" != raid10 ] && nw=$CKPT_WRITES ws=$CKPT_WAIT_S check \
		"$layout sync 1 journal_copy $CKPT_SLOTS: window over a checkpoint" \
		window "$layout" 1 $CKPT_SLOTS; then
		note "$layout journal_copy: $ackd writes acknowledged in ${secs}s, copy slots $slots, checkpoints $ckpts"
		check "$layout journal_copy: $CKPT_WRITES writes acknowledged while member 1 is held" \
			test "$ackd" -eq $CKPT_WRITES
		check "$layout journal_copy: a checkpoint taken with copies live ($ckpts)" \
			test "${ckpts:-0}" -gt 0
		check "$layout journal_copy: over a checkpoint, no acknowledged write lost" \
			held_verify
		check "$layout journal_copy: ... read back while member 1 is held" \
			test "$vheld" = 1
	fi
	teardown
	check "$layout: kernel log clean" klog_clean
done
finish
