#!/bin/bash
# vm-run: --disks 9 --disk-size 48M --meta-size 32M --mem 2048 --timeout 2400 --rotational 1
#
# Member failures (issue 6).  Eight members, each a dm-linear device over
# a guest disk so that "dmsetup reload + resume" swaps an error target
# under the array; the ninth disk is the spare.  For each layout (raid10,
# ddm, ew; mirrors 2, sync 2: replica sets are columns c and c+4 for
# raid10 and ew, pairs 2p and 2p+1 for ddm):
#  1. fio verify (tests/fio/verify.fio) and generation-checked writes
#     (ewprobe, gen_write in target-lib.sh: every 4 KiB block carries its
#     write's sequence number, so an older valid block is caught, which
#     fio's re-check cannot see) run while member 1 becomes dm-error (once
#     a quarter of the generation writes are acknowledged, the writer
#     stopped by itself meanwhile: on state, not after a sleep): zero
#     verify errors, every acknowledged generation there, member 1 shown
#     D, DMERR names it.  Every re-read below is
#     both checks (reread);
#  2. member 2 fails too (no block has both replicas on 1 and 2): the
#     data re-checks with zero errors;
#     The array removed and created again (as after a reboot): member 1
#     is still failed (the superblock says so), the data reads;
#  3. the spare replaces member 1 (table reload): rebuild paused (from
#     the start, so that it is in progress), the kernel log saying 0
#     blocks lost; new generations written while it is paused; resumed
#     at 1 MiB/s: its progress must move (waited for, never skipped);
#     paused again in progress, the array removed and created again
#     mid-rebuild (the rebuild resumes from the persisted map), rebuild
#     to completion, then member 1's partner fails: every acknowledged
#     generation read from the spare;
#  4. member 2's partner fails as well: only the chunks of member 2's
#     replica set read as errors, every other chunk reads; the kernel
#     log says so;
#  5. a new array with member 3 on dm-flakey (up 2 s, down 1 s) under fio
#     verify and generation writes: zero errors, errors really injected,
#     no member failed.
# Kernel log clean (no WARNING, BUG, Oops) after each layout.
#
# EW_TARGET_FAILURE_LAYOUTS="ew" runs a subset.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"
FIO=${EW_FIO:-$(dirname "$0")/../fio}

layouts=${EW_TARGET_FAILURE_LAYOUTS:-"raid10 ddm ew"}
DEV=ewf
VOL=24M		# volume length
REGION=16M	# what fio writes and verifies, after the generation blocks
REGION_BYTES=16777216
GEN_BLOCKS=256	# ewprobe's blocks: the first MiB
# Generations written across the failure: the writer stops itself
# (ewprobe write --stop-after) once a quarter is acknowledged, member 1 is
# switched while it is stopped, and it goes on after: exactly GEN_HOLD
# writes before the failure, the rest after it, however fast or loaded the
# host.  (Holding it with a SIGSTOP sent when a poll saw a quarter was a
# race: on a loaded host ew's writer once finished all 600 first.)
GEN_COUNT=${EW_GEN_COUNT:-600}
GEN_HOLD=$((GEN_COUNT / 4))
FIO_OFF=1M
CHUNK=65536	# chunk_sectors 128: one chunk lies on one replica set

load_target || { notok "module loaded"; finish; }
ok "module loaded"

# shellcheck disable=SC2206
D=($EW_DISKS)
[ "${#D[@]}" -ge 9 ] || { notok "nine disks (have ${#D[@]})"; finish; }
SZ=$(blockdev --getsz "${D[0]}")

linear() {	# linear NAME DISK: (re)load NAME as all of DISK
	if dmsetup info "$1" >/dev/null 2>&1; then
		dmsetup reload "$1" --table "0 $SZ linear $2 0" && dmsetup resume "$1"
	else
		dmsetup create "$1" --table "0 $SZ linear $2 0"
	fi
}
break_member() {	# break_member I: member I returns errors from now on
	dmsetup reload "ewm$1" --table "0 $SZ error" && dmsetup resume "ewm$1"
}
members() {	# the eight members and the spare, all healthy
	local i
	for i in 0 1 2 3 4 5 6 7; do linear "ewm$i" "${D[$i]}" || return 1; done
	linear ewspare "${D[8]}"
}
member_list() { local i; for i in 0 1 2 3 4 5 6 7; do printf ' /dev/mapper/ewm%s' "$i"; done; }

state_of() {	# state_of I: member I's character in status field 7
	status_field "$DEV" 7 | cut -c$(($1 + 1))
}
wait_state() {	# wait_state I CHAR SECONDS
	local _
	for _ in $(seq "$3"); do
		[ "$(state_of "$1")" = "$2" ] && return 0
		sleep 1
	done
	note "member $1 not $2 after $3 s: $(dmsetup status "$DEV")"
	return 1
}
# in_progress N/M: a rebuild progress field read and not over (an empty
# read must not compare equal to another empty read)
in_progress() {
	[[ "$1" =~ ^[0-9]+/[0-9]+$ ]] && [ "${1%/*}" -lt "${1#*/}" ]
}
rebuilt() {	# rebuilt SECONDS: member 1 back to A, the scan idle
	local _
	for _ in $(seq "$1"); do
		[ "$(status_field "$DEV" 27)" = idle ] &&
			[ "$(state_of 1)" = A ] && return 0
		sleep 1
	done
	note "rebuild not done: $(dmsetup status "$DEV")"
	return 1
}

fio_full() {	# verify.fio on the region: zero verify errors
	DEV=/dev/mapper/$DEV SIZE=$REGION OFFSET=$FIO_OFF fio --eta=never \
		--output=/tmp/fio-f.out "$FIO/verify.fio" >/dev/null 2>&1 && return 0
	grep -E 'verify|bad|err' /tmp/fio-f.out | head -n 10 | sed 's/^/#   /'
	return 1
}
fio_check() {	# the first phase's data, read back: zero verify errors
	DEV=/dev/mapper/$DEV SIZE=$REGION OFFSET=$FIO_OFF fio --eta=never \
		--output=/tmp/fio-c.out "$FIO/verify-check.fio" >/dev/null 2>&1 && return 0
	grep -E 'verify|bad|err' /tmp/fio-c.out | head -n 10 | sed 's/^/#   /'
	return 1
}
reread() {	# fio's data (no zeros, no garbage) and every generation
	fio_check && gen_verify "$DEV"
}
acks() {	# acknowledged generation writes so far
	grep -c ' ack ' "/tmp/gen-$DEV.log" 2>/dev/null
}
writer_held() {	# writer_held PID SECONDS: ewprobe PID stopped itself
	local _ st
	for _ in $(seq $(($2 * 10))); do
		st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
		[ "$st" = T ] && return 0
		[ -z "$st" ] && break
		sleep 0.1
	done
	note "generation writer not stopped after $2 s: state '$st', $(acks) acknowledged"
	return 1
}
child_named() {	# child_named PPID NAME: the pid of PPID's child NAME
	local f pid comm _ ppid
	for f in /proc/[0-9]*/stat; do
		read -r pid comm _ ppid _ <"$f" 2>/dev/null || continue
		[ "$ppid" = "$1" ] && [ "$comm" = "($2)" ] && echo "$pid"
	done
}
writer_pid() {	# writer_pid PID: gen_write's ewprobe, once it runs
	local _ wp
	for _ in $(seq 100); do
		wp=$(child_named "$1" ewprobe)
		# bash may exec ewprobe in the background subshell itself
		[ -z "$wp" ] &&
			[ "$(cat "/proc/$1/comm" 2>/dev/null)" = ewprobe ] && wp=$1
		[ -n "$wp" ] && { echo "$wp"; return 0; }
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# progress_moves N/M SECONDS: the rebuild's done count passes N (or the
# rebuild ends), within SECONDS: waited for, not slept
progress_moves() {
	local _ c
	for _ in $(seq $(($2 * 5))); do
		c=$(status_field "$DEV" 26)
		in_progress "$c" && [ "${c%/*}" -gt "${1%/*}" ] && return 0
		[ "$(status_field "$DEV" 27)" = idle ] && [ "$(state_of 1)" = A ] &&
			return 0
		sleep 0.2
	done
	note "no progress from $1 in $2 s: $(dmsetup status "$DEV")"
	return 1
}
# Latency of 4 KiB random reads at queue depth 1 for 4 s: "mean_us p99_us".
read_lat() {
	fio --name=lat --filename=/dev/mapper/$DEV --rw=randread --bs=4k \
		--size=$REGION --direct=1 --ioengine=psync --time_based --runtime=4 \
		--output-format=json --output=/tmp/lat.json >/dev/null 2>&1 || return 1
	awk '/"clat_ns"/ { c = 1 } c && /"mean"/ && !m { gsub(/[,]/, ""); m = $3 }
		c && /"99.000000"/ && !p { gsub(/[,]/, ""); p = $3 }
		END { printf "%d %d\n", m / 1000, p / 1000 }' /tmp/lat.json
}

# Only chunks of replica set $1 fail to read; some of them do.  Set of a
# chunk c: c % 4 (raid10, ew: columns), (c % 4) for ddm's pairs too.
errors_confined() {
	local set=$1 c bad=0 badset=0 nchunks
	nchunks=$((REGION_BYTES / CHUNK))
	for c in $(seq 0 $((nchunks - 1))); do
		if ! dd if=/dev/mapper/$DEV of=/dev/null bs=$CHUNK skip="$c" count=1 \
			iflag=direct status=none 2>/dev/null; then
			if [ $((c % 4)) -eq "$set" ]; then
				badset=$((badset + 1))
			else
				bad=$((bad + 1))
				[ $bad -le 3 ] && note "chunk $c (set $((c % 4))) unreadable"
			fi
		fi
	done
	note "unreadable chunks: $badset of set $set (of $((nchunks / 4))), $bad elsewhere"
	[ "$bad" -eq 0 ] && [ "$badset" -gt 0 ]
}

# A read that fails is logged by block: in .map when every up-to-date
# replica is on a failed member, at completion when the last replica to
# try failed (the partner is still failing, not failed: it is failed
# after 5 s of errors, so which one a read meets depends on how fast the
# reads of errors_confined run).
errors_reported() {
	klog_has "no up-to-date replica on a live member" ||
		klog_has "no other replica to read"
}

for layout in $layouts; do
	klog_mark
	check "$layout: members on dm-linear" members
	# partners: raid10/ew replica sets are columns c, c+4; ddm pairs 2p, 2p+1
	if [ "$layout" = ddm ]; then p1=0 p2=3 set2=1; else p1=5 p2=6 set2=2; fi
	# shellcheck disable=SC2046
	table=$(ewctl table --layout "$layout" --sync 2 --len $VOL \
		--metadata "$EW_META" $(member_list)) ||
		{ notok "$layout: ewctl table"; continue; }
	check "$layout: create" dmsetup create "$DEV" --table "$table"
	[ -b /dev/mapper/$DEV ] || continue

	# 1. one member dies under fio verify
	fio_full &
	fpid=$!
	GEN_OPTS="--stop-after $GEN_HOLD" gen_write "$DEV" "$GEN_COUNT" &
	gpid=$!
	# the writer stops itself after GEN_HOLD acknowledged writes and is
	# held while member 1 is switched, so that the rest of its writes
	# come after the failure
	wp=$(writer_pid "$gpid")
	check "$layout: the generation writer found" test -n "$wp"
	[ -n "$wp" ] && check "$layout: the writer stopped itself after $GEN_HOLD writes" \
		writer_held "$wp" 300
	check "$layout: member 1 switched to dm-error" break_member 1
	at_break=$(acks)
	# a writer not found or not stopped is released all the same
	if [ -n "$wp" ]; then kill -CONT "$wp"; else pkill -CONT -x ewprobe; fi
	if wait $fpid; then ok "$layout: fio verify across a member failure"
	else notok "$layout: fio verify across a member failure"; fi
	check "$layout: generation writes across a member failure" wait $gpid
	check "$layout: member 1 failed mid-run ($at_break of $GEN_COUNT acked)" \
		test "$at_break" = "$GEN_HOLD"
	# On a quiet host fio may be done before the switch: one read pass
	# makes sure the dead member sees I/O (its errors and the repairs
	# they queue are what the failure policy counts).
	dd if=/dev/mapper/$DEV of=/dev/null bs=1M count=16 iflag=direct status=none
	check "$layout: member 1 shown failed" wait_state 1 D 30
	check "$layout: kernel log names member 1" klog_has "member 1 (dm-"
	check "$layout: no other member failed" \
		test "$(status_field "$DEV" 7 | tr -d A)" = D
	check "$layout: data re-read with member 1 failed" reread
	# failed stays failed when the array leaves memory (as at a reboot)
	check "$layout: remove and create again, member 1 failed" sh -c \
		"dmsetup remove $DEV && dmsetup create $DEV --table '$table'"
	check "$layout: member 1 still failed after re-create" wait_state 1 D 5
	check "$layout: kernel log: failed before, not used" \
		klog_has "member 1 failed before"
	check "$layout: data re-read after re-create" reread

	# 2. a second member, of another replica set
	check "$layout: member 2 switched to dm-error" break_member 2
	check "$layout: re-read with members 1 and 2 failing" reread
	fio --name=poke --filename=/dev/mapper/$DEV --rw=randwrite --bs=4k \
		--direct=1 --ioengine=libaio --iodepth=8 --runtime=8 \
		--time_based --eta=never --output=/tmp/poke.out --offset=18M \
		--size=4M >/dev/null 2>&1
	check "$layout: member 2 shown failed" wait_state 2 D 30
	check "$layout: re-read with members 1 and 2 failed" reread

	# 3. replace member 1 with the spare, rebuild, fail its partner
	lat0=$(read_lat)
	new=${table/\/dev\/mapper\/ewm1 /\/dev\/mapper\/ewspare }
	# slow, so that it can be watched, paused and measured; paused
	# before the reload, so that it starts paused: on this small volume
	# even 1 MiB/s rebuilt member 1 before a pause sent after the reload
	# arrived, and the checks of a paused, resumed rebuild saw none
	check "$layout: rebuild_rate message" dmsetup message $DEV 0 rebuild_rate 1
	check "$layout: rebuild pause (before the reload)" dmsetup message $DEV 0 rebuild pause
	check "$layout: reload with the spare at member 1" \
		sh -c "dmsetup reload $DEV --table '$new' && dmsetup resume $DEV"
	check "$layout: member 1 rebuilding" wait_state 1 R 5
	c1=$(status_field "$DEV" 26)
	sleep 2
	c2=$(status_field "$DEV" 26)
	check "$layout: paused: status says so, progress stands ($c1)" \
		sh -c "[ '$(status_field "$DEV" 27)' = paused ] && [ '$c1' = '$c2' ]"
	check "$layout: the rebuild was in progress when paused ($c1)" in_progress "$c1"
	# member 2 failed is in another replica set: nothing is lost
	check "$layout: kernel log: member 1 replaced, 0 blocks lost" \
		klog_has "rebuilding, 0 blocks lost"
	# new generations while member 1 is being rebuilt: the rebuild must
	# not copy an older one over them (read from the spare below)
	check "$layout: generations written during the rebuild" \
		gen_write "$DEV" $((GEN_COUNT / 2))
	# resumed at 1 MiB/s from a paused rebuild known to be in progress
	# (above): its progress must move (waited for, never skipped)
	check "$layout: rebuild resume" dmsetup message $DEV 0 rebuild resume
	check "$layout: progress moves after resume (from $c1)" progress_moves "$c1" 120
	# at once: member 1's share of this small volume takes seconds
	check "$layout: rebuild pause again" dmsetup message $DEV 0 rebuild pause
	c2=$(status_field "$DEV" 26)
	check "$layout: the rebuild is in progress before the re-create ($c2)" in_progress "$c2"
	# a rebuild outlives the array leaving memory: the superblock says
	# member 1 is rebuilding, the map which of its replicas are stale;
	# it resumes (at the default rate: rate and pause are not kept)
	check "$layout: remove and create during the rebuild" sh -c \
		"dmsetup remove $DEV && dmsetup create $DEV --table '$new'"
	check "$layout: kernel log: the rebuild of member 1 resumes, 0 blocks lost" \
		klog_has "rebuild of members 2 resumes, 0 blocks lost"
	check "$layout: rebuild_rate message after re-create" \
		dmsetup message $DEV 0 rebuild_rate 1
	lat1=$(read_lat)
	note "$layout: 4k QD1 read latency mean/p99 us: degraded $lat0, rebuilding at 1 MiB/s $lat1"
	note "$layout: $(dmsetup status "$DEV")"
	check "$layout: bad rebuild messages refused" sh -c \
		"! dmsetup message $DEV 0 rebuild stop 2>/dev/null && ! dmsetup message $DEV 0 rebuild_rate x 2>/dev/null"
	check "$layout: rebuild_rate unlimited" dmsetup message $DEV 0 rebuild_rate 0
	t0=$SECONDS
	check "$layout: rebuild completes" rebuilt 300
	note "$layout: rest of the rebuild, unthrottled: $((SECONDS - t0)) s"
	spare=$(dmsetup info -c --noheadings -o major,minor ewspare | tr -d ' ')
	check "$layout: table prints the spare ($spare)" sh -c "dmsetup table $DEV | grep -q ' $spare '"
	check "$layout: table round trip" table_round_trip "$DEV"
	check "$layout: partner $p1 of member 1 switched to dm-error" break_member $p1
	check "$layout: re-read after the rebuild, partner failing" reread
	check "$layout: kernel log: rebuilt" klog_has "rebuilt"

	# 4. member 2's partner too: only set $set2's chunks are lost
	check "$layout: partner $p2 of member 2 switched to dm-error" break_member $p2
	check "$layout: errors confined to the blocks of members 2 and $p2" \
		errors_confined $set2
	check "$layout: the errors are reported" errors_reported

	check "$layout: remove" dmsetup remove "$DEV"
	check "$layout: kernel log clean" klog_clean
	wipe_members
done

# 5. transient errors: member 3 on dm-flakey, up 2 s, down 1 s
klog_mark
check "flakey: members on dm-linear" members
check "flakey: member 3 on dm-flakey" sh -c \
	"dmsetup reload ewm3 --table '0 $SZ flakey ${D[3]} 0 2 1' && dmsetup resume ewm3"
# shellcheck disable=SC2046
table=$(ewctl table --layout ew --sync 2 --len $VOL --metadata "$EW_META" $(member_list))
check "flakey: create" dmsetup create "$DEV" --table "$table"
if [ -b /dev/mapper/$DEV ]; then
	check "flakey: generation writes through down intervals" \
		gen_write "$DEV" $((GEN_COUNT / 2))
	check "flakey: fio verify through down intervals" fio_full
	check "flakey: re-read through down intervals" reread
	errs=$(( $(status_field "$DEV" 21) + $(status_field "$DEV" 22) ))
	note "flakey: $(dmsetup status "$DEV")"
	check "flakey: errors were injected ($errs)" test "$errs" -gt 0
	check "flakey: no member failed" test -z "$(status_field "$DEV" 7 | tr -d A)"
	check "flakey: remove" dmsetup remove "$DEV"
fi
check "flakey: kernel log clean" klog_clean
for i in 0 1 2 3 4 5 6 7; do dmsetup remove "ewm$i" 2>/dev/null; done
dmsetup remove ewspare 2>/dev/null
finish
