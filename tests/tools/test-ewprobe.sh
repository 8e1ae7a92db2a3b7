#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ewprobe on the host: rate on tmpfs gives the verdict its measured rate
# calls for (the rate itself depends on the host's load: no floor); the
# probe refuses to overwrite data;
# verify must find the acknowledged writes a helper drops or corrupts
# (zeros, an older version, garbage, another block's data) and nothing
# when nothing was touched, whatever console noise or torn last line the
# log carries; listen + write over loopback TCP.  Prints "ok - NAME" /
# "not ok - NAME"; run by tests/tools/run (EW_BIN, EW_TOP).
set -u
top=${EW_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${EW_BIN:-$top/build/userspace-san/bin}
ewprobe=$bin/ewprobe
fails=0

# tmpfs: fast syncs, and the rate test needs a memory-backed file anyway.
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
tmp=$(mktemp -d "$base/ewprobe-test.XXXXXX") || exit 2
listener=
cleanup() {
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; fails=$((fails + 1)); shift; for l in "$@"; do echo "#   $l"; done; }
check() {	# check NAME CMD...: ok when CMD succeeds
	local name=$1; shift
	if "$@" >"$tmp/out" 2>&1; then ok "$name"; else nok "$name" "$(tail -n 5 "$tmp/out")"; fi
}
# run CMD... with its exit status in $rc and stdout in $tmp/stdout
run() { "$@" >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?; }
jqt() { jq -e "$1" "$tmp/stdout" >/dev/null 2>&1; }
bs=4096
# Overwrite block $2 of file $1 with stdin.
put_block() { dd of="$1" bs=$bs seek="$2" count=1 conv=notrunc status=none; }
get_block() { dd if="$1" bs=$bs skip="$2" count=1 status=none; }
# The block of the last acknowledged write in log $1.
last_acked_block() { grep '^EWPROBE ack ' "$1" | tail -n 1 | cut -d' ' -f4; }

[ -x "$ewprobe" ] || { nok "ewprobe built" "$ewprobe missing"; exit 1; }

# ---- help and usage ----
help_ok=1
for c in "" rate write verify listen; do
	# shellcheck disable=SC2086
	"$ewprobe" $c --help >"$tmp/h" 2>&1 && grep -q '^usage: ewprobe' "$tmp/h" || help_ok=0
done
[ $help_ok = 1 ] && ok "help: --help on the tool and every subcommand" ||
	nok "help: --help on the tool and every subcommand"
run "$ewprobe" frobnicate
[ $rc = 2 ] && ok "usage: unknown command exits 2" || nok "usage: unknown command exits 2" "rc=$rc"
run "$ewprobe" verify "$tmp/nothing"
[ $rc = 2 ] && ok "usage: verify without --log exits 2" || nok "usage: verify without --log exits 2" "rc=$rc"
run "$ewprobe" rate --method sometimes "$tmp/r"
[ $rc = 2 ] && [ ! -e "$tmp/r" ] && ok "usage: bad --method exits 2, creates nothing" ||
	nok "usage: bad --method exits 2, creates nothing" "rc=$rc"

# ---- rate ----
# The verdict follows the measured rate (thresholds RPM/60 of 5,400 and
# 15,000: 90/s and 250/s); the rate, a timing, is not held to a floor
# (under load, ASan and a loaded host, tmpfs syncs can be slower than
# 250/s), so this passes or fails on the logic alone.
run "$ewprobe" rate --seconds 1 --same-block --json "$tmp/rate"
if [ $rc = 0 ] && jqt '.ops_per_sec as $r | .ops > 0 and
		.verdict == (if $r > 250 then "faster-than-any-rotating-disk"
			elif $r > 90 then "depends-on-rpm"
			else "within-every-ceiling" end) and
		.faster_than_any_rotating_disk == ($r > 250) and .tmpfs == true and
		.pattern == "same-block" and .method == "fdatasync" and .rpm == null and
		([.ceilings[] | .exceeded == ($r > .rpm / 60)] | all) and
		([.ceilings[].per_sec] == [90, 120, 166.7, 250]) and
		.latency_us.p50 > 0 and .latency_us.p50 <= .latency_us.p99 and
		.latency_us.min <= .latency_us.p50 and .latency_us.p99 <= .latency_us.max'; then
	ok "rate: the verdict follows the rate ($(jq -r '.ops_per_sec, .verdict' "$tmp/stdout" | tr '\n' ' '))"
else
	nok "rate: the verdict follows the rate" "rc=$rc" "$(cat "$tmp/stdout" "$tmp/stderr")"
fi
[ ! -e "$tmp/rate" ] && ok "rate: removes the file it created" || nok "rate: removes the file it created"

run "$ewprobe" rate --seconds 0.5 --random --size 1M --rpm 7200 --method fsync "$tmp/rate"
r=$(awk '/ ops\/sec / { print $2 }' "$tmp/stdout")
case $(awk -v r="${r:-0}" 'BEGIN { print (r > 250) (r > 120) }') in
11) v=faster-than-any-rotating-disk e=EXCEEDED x='only a power-cut test' ;;
01) v=faster-than-rpm-ceiling e=EXCEEDED x='only a power-cut test' ;;
*) v=within-rpm-ceiling e=within x=verdict ;;
esac
if [ $rc = 0 ] && [ -n "$r" ] && grep -q "^verdict: $v\$" "$tmp/stdout" &&
		grep -q "7200 rpm: *120/s  $e" "$tmp/stdout" && grep -q "$x" "$tmp/stdout"; then
	ok "rate: text verdict with --rpm 7200, random, fsync"
else
	nok "rate: text verdict with --rpm 7200, random, fsync" "$(cat "$tmp/stdout" "$tmp/stderr")"
fi
run "$ewprobe" rate --seconds 0.3 --method dsync --json "$tmp/rate"
[ $rc = 0 ] && jqt '.method == "dsync" and .ops > 0' && ok "rate: --method dsync" ||
	nok "rate: --method dsync" "$(cat "$tmp/stderr")"

printf 'precious data\n' >"$tmp/data"
sum=$(md5sum <"$tmp/data")
run "$ewprobe" rate --seconds 0.3 "$tmp/data"
if [ $rc = 2 ] && grep -q 'refusing to write on' "$tmp/stderr" && [ "$(md5sum <"$tmp/data")" = "$sum" ]; then
	ok "rate: refuses a non-empty file without --force, leaves it alone"
else
	nok "rate: refuses a non-empty file without --force, leaves it alone" "rc=$rc" "$(cat "$tmp/stderr")"
fi
run "$ewprobe" write --log "$tmp/l0" --count 3 "$tmp/data"
[ $rc = 2 ] && [ "$(md5sum <"$tmp/data")" = "$sum" ] && ok "write: refuses a non-empty file without --force" ||
	nok "write: refuses a non-empty file without --force" "rc=$rc"
run "$ewprobe" rate --seconds 0.3 --force --json "$tmp/data"
[ $rc = 0 ] && jqt '.ops > 0' && ok "rate: --force writes on it" || nok "rate: --force writes on it" "rc=$rc"
: >"$tmp/empty"
run "$ewprobe" rate --seconds 0.3 "$tmp/empty"
[ $rc = 0 ] && [ -e "$tmp/empty" ] && [ ! -s "$tmp/empty" ] &&
	ok "rate: an existing empty file is used and left empty" ||
	nok "rate: an existing empty file is used and left empty" "rc=$rc"

# ---- write and verify ----
# One clean run; every damage case below starts from a copy of it.
run "$ewprobe" write --log "$tmp/log" --count 400 --blocks 32 --seed 7 "$tmp/disk"
[ $rc = 0 ] && ok "write: 400 writes to a file with a file channel" ||
	nok "write: 400 writes to a file with a file channel" "$(cat "$tmp/stderr")"
acks=$(grep -c '^EWPROBE ack ' "$tmp/log")
run "$ewprobe" verify --log "$tmp/log" --json "$tmp/disk"
if [ $rc = 0 ] && jqt ".acks == $acks and .acked == .verified and .acked > 0 and
		.lost == 0 and .corrupt == 0 and .result == \"ok\" and .ended == true"; then
	ok "verify: nothing dropped, nothing lost ($(jq -r .acked "$tmp/stdout") blocks verified)"
else
	nok "verify: nothing dropped, nothing lost" "rc=$rc" "$(cat "$tmp/stdout" "$tmp/stderr")"
fi

# --stop-after: the writer stops itself with exactly N acknowledged, goes
# on at SIGCONT to --count; refused when not below --count.
proc_state() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
"$ewprobe" write --log "$tmp/log-stop" --count 40 --stop-after 25 --blocks 16 \
	--seed 3 "$tmp/dstop" >"$tmp/stop.out" 2>&1 &
wpid=$!
for _ in $(seq 100); do [ "$(proc_state $wpid)" = T ] && break; sleep 0.1; done
st=$(proc_state $wpid)
n=$(grep -c '^EWPROBE ack ' "$tmp/log-stop" 2>/dev/null)
[ "$st" = T ] && [ "$n" = 25 ] && ok "write: --stop-after 25 stops itself with 25 acknowledged" ||
	nok "write: --stop-after 25 stops itself with 25 acknowledged" "state '$st', $n acks"
kill -CONT $wpid 2>/dev/null
wait $wpid
rc=$?
n=$(grep -c '^EWPROBE ack ' "$tmp/log-stop" 2>/dev/null)
[ $rc = 0 ] && [ "$n" = 40 ] && ok "write: SIGCONT goes on to --count 40" ||
	nok "write: SIGCONT goes on to --count 40" "rc=$rc, $n acks"
run "$ewprobe" write --log "$tmp/log-stop2" --count 10 --stop-after 10 "$tmp/dstop2"
[ $rc = 2 ] && grep -q 'stop-after' "$tmp/stderr" && [ ! -e "$tmp/log-stop2" ] &&
	ok "write: --stop-after not below --count refused" ||
	nok "write: --stop-after not below --count refused" "rc=$rc" "$(cat "$tmp/stderr")"

blk=$(last_acked_block "$tmp/log")
cp "$tmp/disk" "$tmp/d1"
head -c $bs /dev/zero | put_block "$tmp/d1" "$blk"
run "$ewprobe" verify --log "$tmp/log" --json "$tmp/d1"
[ $rc = 1 ] && jqt '.lost >= 1 and .result == "fail" and .problems[0].found == "zeros"' &&
	ok "verify: last acked write dropped (zeros) -> lost, exit 1" ||
	nok "verify: last acked write dropped (zeros) -> lost, exit 1" "rc=$rc" "$(cat "$tmp/stdout")"

# The same seed replays the same writes: a shorter run is an older state.
run "$ewprobe" write --log "$tmp/log-old" --count 200 --blocks 32 --seed 7 "$tmp/old"
cp "$tmp/disk" "$tmp/d2"
n=0
for b in $(grep '^EWPROBE ack ' "$tmp/log" | tail -n 3 | cut -d' ' -f4 | sort -u); do
	if ! cmp -s <(get_block "$tmp/old" "$b") <(get_block "$tmp/disk" "$b"); then
		get_block "$tmp/old" "$b" | put_block "$tmp/d2" "$b"
		n=$((n + 1))
	fi
done
run "$ewprobe" verify --log "$tmp/log" --json "$tmp/d2"
[ $n -ge 1 ] && [ $rc = 1 ] && jqt ".lost == $n and .corrupt == 0" &&
	grep -q 'older write\|another run' "$tmp/stdout" &&
	ok "verify: last acked writes rolled back to older versions -> lost ($n)" ||
	nok "verify: last acked writes rolled back to older versions -> lost" "n=$n rc=$rc" "$(cat "$tmp/stdout")"

cp "$tmp/disk" "$tmp/d3"
printf 'GARBAGE!' | dd of="$tmp/d3" bs=1 seek=$((blk * bs + 1000)) conv=notrunc status=none
run "$ewprobe" verify --log "$tmp/log" --json "$tmp/d3"
[ $rc = 1 ] && jqt '.corrupt == 1 and .lost == 0' && ok "verify: 8 garbled bytes -> corrupt, exit 1" ||
	nok "verify: 8 garbled bytes -> corrupt, exit 1" "rc=$rc" "$(cat "$tmp/stdout")"

other=$(( (blk + 1) % 32 ))
cp "$tmp/disk" "$tmp/d4"
get_block "$tmp/disk" "$other" | put_block "$tmp/d4" "$blk"
run "$ewprobe" verify --log "$tmp/log" --json "$tmp/d4"
[ $rc = 1 ] && jqt '.corrupt == 1 and (.problems[0].found | startswith("the data of block"))' &&
	ok "verify: another block's data (misdirected write) -> corrupt" ||
	nok "verify: another block's data (misdirected write) -> corrupt" "rc=$rc" "$(cat "$tmp/stdout")"

# The cut came during write 401: its intent is logged, its ack is not,
# and only its first 4 sectors reached the medium (a torn write).
run "$ewprobe" write --log "$tmp/log401" --count 401 --blocks 32 --seed 7 "$tmp/d401"
b401=$(last_acked_block "$tmp/log401")
grep -v '^EWPROBE end' "$tmp/log401" | sed '$d' >"$tmp/log-cut"
cp "$tmp/disk" "$tmp/d5"
get_block "$tmp/d401" "$b401" | head -c 2048 |
	dd of="$tmp/d5" bs=2048 seek=$((b401 * 2)) count=1 conv=notrunc status=none
run "$ewprobe" verify --log "$tmp/log-cut" --json "$tmp/d5"
[ $rc = 0 ] && jqt '.lost == 0 and .corrupt == 0 and .later_write == 1 and .ended == false' &&
	ok "verify: a torn in-flight write over an acked block is allowed" ||
	nok "verify: a torn in-flight write over an acked block is allowed" "rc=$rc" "$(cat "$tmp/stdout")"
# ... but garbage sectors in that tear are not.
printf 'GARBAGE!' | dd of="$tmp/d5" bs=1 seek=$((b401 * bs + 3000)) conv=notrunc status=none
run "$ewprobe" verify --log "$tmp/log-cut" --json "$tmp/d5"
[ $rc = 1 ] && jqt '.corrupt == 1' && ok "verify: a tear with foreign bytes is corrupt" ||
	nok "verify: a tear with foreign bytes is corrupt" "rc=$rc" "$(cat "$tmp/stdout")"

# Write 401 landed but its intent is not in the log: garbled (a damaged
# record, so it may well have been sent: later-write), or absent (corrupt).
grep -v '^EWPROBE end\|^EWPROBE ack 401 ' "$tmp/log401" | sed '$s/^EWPROBE intent 401 /EWPROBE intent 4O1 /' >"$tmp/log-garbled"
run "$ewprobe" verify --log "$tmp/log-garbled" --json "$tmp/d401"
[ $rc = 0 ] && jqt '.damaged_records == 1 and .later_unlogged == 1 and .lost == 0 and .corrupt == 0' &&
	ok "verify: a write whose intent record was garbled is a later write" ||
	nok "verify: a write whose intent record was garbled is a later write" "rc=$rc" "$(cat "$tmp/stdout")"
sed '$d' "$tmp/log-garbled" >"$tmp/log-unlogged"
run "$ewprobe" verify --log "$tmp/log-unlogged" --json "$tmp/d401"
[ $rc = 1 ] && jqt '.corrupt == 1 and (.problems[0].found | test("never logged"))' &&
	ok "verify: a write that was never announced is corrupt" ||
	nok "verify: a write that was never announced is corrupt" "rc=$rc" "$(cat "$tmp/stdout")"

# ---- the log: noise, torn lines, in-flight writes ----
# A console: kernel messages between records and one spliced into a
# record; the last ack torn in half.  The torn ack's write is then a
# logged intent, so its block holds "a later write".
{
	echo "[    0.000000] Linux version 6.1.0 (debian-kernel@lists.debian.org)"
	awk 'NR % 50 == 0 { print "[   12.345678] random: crng init done" }
	     NR == 100 { printf "EWPROBE ack 5[ 1.2] ata1: link up\n"; next } { print }' "$tmp/log"
} | grep -v '^EWPROBE end' >"$tmp/noisy"
last=$(grep '^EWPROBE ack ' "$tmp/noisy" | tail -n 1)
sed -i '$d' "$tmp/noisy"
printf '%s' "${last:0:30}" >>"$tmp/noisy"
run "$ewprobe" verify --log "$tmp/noisy" --json "$tmp/disk"
if [ $rc = 0 ] && jqt ".torn_last_line == true and .other_lines >= 8 and
		.damaged_records >= 1 and .lost == 0 and .corrupt == 0 and .later_write >= 1 and
		.ended == false"; then
	ok "verify: console noise, a spliced record and a torn last line are tolerated"
else
	nok "verify: console noise, a spliced record and a torn last line are tolerated" "rc=$rc" "$(cat "$tmp/stdout" "$tmp/stderr")"
fi
# A torn last line that still parses as numbers must not be believed.
{ grep -v '^EWPROBE end' "$tmp/log"; printf 'EWPROBE ack 401 3 0000000000000001 deadbeef'; } >"$tmp/torn2"
run "$ewprobe" verify --log "$tmp/torn2" --json "$tmp/disk"
[ $rc = 0 ] && jqt ".torn_last_line == true and .acks == $acks" &&
	ok "verify: a torn record is never read as a shorter number" ||
	nok "verify: a torn record is never read as a shorter number" "rc=$rc" "$(cat "$tmp/stdout")"
# The run with noise but damage: the loss is still found.
run "$ewprobe" verify --log "$tmp/noisy" "$tmp/d1"
[ $rc = 1 ] && grep -q '^result: FAIL' "$tmp/stdout" && ok "verify: a noisy log still finds the loss" ||
	nok "verify: a noisy log still finds the loss" "rc=$rc"
printf 'just console output\n' >"$tmp/nolog"
run "$ewprobe" verify --log "$tmp/nolog" "$tmp/disk"
[ $rc = 2 ] && ok "verify: a log without a start record exits 2" || nok "verify: a log without a start record exits 2" "rc=$rc"

# ---- listen + write over loopback TCP ----
"$ewprobe" listen --port 0 --out "$tmp/tcplog" --count-connections 1 --seconds 120 >"$tmp/listen.out" 2>&1 &
listener=$!
port=
for _ in $(seq 600); do
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$tmp/listen.out")
	[ -n "$port" ] && break
	sleep 0.1
done
run "$ewprobe" write --log "tcp:127.0.0.1:${port:-1}" --count 150 --blocks 16 "$tmp/tcpdisk"
wrc=$rc
wait "$listener"; lrc=$?; listener=
run "$ewprobe" verify --log "$tmp/tcplog" --json "$tmp/tcpdisk"
if [ -n "$port" ] && [ $wrc = 0 ] && [ $lrc = 0 ] && [ $rc = 0 ] &&
		jqt '.acks == 150 and .intents == 150 and .lost == 0 and .ended == true'; then
	ok "listen: write over 127.0.0.1 TCP, listener stops when it closes, verify ok"
else
	nok "listen: write over 127.0.0.1 TCP, listener stops when it closes, verify ok" \
		"port=$port write=$wrc listen=$lrc verify=$rc" "$(cat "$tmp/listen.out" "$tmp/stderr")"
fi
start=$SECONDS
run "$ewprobe" listen --port 0 --out "$tmp/idle" --seconds 1
[ $rc = 0 ] && [ $((SECONDS - start)) -le 30 ] && grep -q 'time up' "$tmp/stdout" &&
	ok "listen: stops by itself after --seconds" || nok "listen: stops by itself after --seconds" "rc=$rc"
run "$ewprobe" listen --bind 0.0.0.0 --port 0 --out "$tmp/x" --seconds 1
[ $rc = 2 ] && grep -q 'not a loopback' "$tmp/stderr" && ok "listen: refuses a non-loopback address" ||
	nok "listen: refuses a non-loopback address" "rc=$rc"

[ $fails = 0 ]
