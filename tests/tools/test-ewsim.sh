#!/bin/bash
# Tests of ewsim (issue 7): small deterministic runs with asserted
# properties.  Run by tests/tools/run against the ASan/UBSan build
# ($EW_BIN); each case takes a second or two there.
#
# Prints "ok - NAME" or "not ok - NAME" per case; exits 1 if any failed.
set -u
top=${EW_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${EW_BIN:-$top/build/userspace-san/bin}
ewsim=$bin/ewsim
tmp=$(mktemp -d /tmp/test-ewsim.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; failed=1; }
check() {	# check NAME COMMAND...: ok when the command succeeds
	local name=$1; shift
	if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$name"; else
		nok "$name"; sed 's/^/#   /' "$tmp/err" "$tmp/out" | head -20; fi
}
# jq -e over a JSON file: true/false
jqe() { jq -e "$2" "$1" >/dev/null; }
# awk predicate over numbers: fcheck 'a < b' a=1 b=2
fcheck() { local e=$1; shift; awk "$@" "BEGIN { exit !($e) }"; }

# A small array: 8 disks, a small data set so that set-up is quick.
small="--disks 8 --len-blocks 40000 --requests 4000"

# --- command line ---------------------------------------------------------
check "help exits 0 and documents the commands" \
	bash -c "'$ewsim' --help | grep -q 'ewsim sweep'"
# every long option of main.c is in --help
undocumented=$(sed -n '/longopts\[\] = {/,/^};/p' "$top/userspace/ewsim/main.c" |
	sed -n 's/.*{ "\([a-z-]*\)".*/\1/p' | while read -r o; do
		"$ewsim" --help | grep -q -- "--$o\b" || echo "$o"; done)
[ -z "$undocumented" ] && ok "help documents every option" ||
	nok "help documents every option (missing: $undocumented)"
"$ewsim" --layout nosuch >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "bad option exits 2" || nok "bad option exits 2 (got $rc)"
# every bad value is refused naming its own option (the message once
# named another one: the lookup assumed longopts in the enum's order)
bad_named=""
for o in "requests 0" "seed x" "hot x" "disk-mib x" "warmup 2" "rate 0" \
	"window 0" "layout nosuch" "outstanding x" "trace-speed 0" \
	"read-policy nosuch" "populate nosuch" "warmup-tpcc 100" \
	"warmup-tpcc 0:10" "warmup-tpcc 100:0" "warmup-syncwrite 0" \
	"warmup-syncwrite x"; do
	set -- $o
	"$ewsim" "--$1" "$2" >/dev/null 2>"$tmp/err"; rc=$?
	{ [ $rc -eq 2 ] && grep -q -- "--$1: '$2'" "$tmp/err"; } ||
		bad_named="$bad_named --$1 (exit $rc: $(head -n 1 "$tmp/err"))"
done
[ -z "$bad_named" ] && ok "a bad value's message names its option" ||
	nok "a bad value's message names its option:$bad_named"
"$ewsim" frobnicate >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "unknown command exits 2" ||
	nok "unknown command exits 2 (got $rc)"
"$ewsim" --trace "$tmp/none.csv" --disks 4 >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && ok "missing trace exits 1" ||
	nok "missing trace exits 1 (got $rc)"

# --- zero load: response == the model's service time -----------------------
check "selftest: zero-load replay against ew_disk_predict, all layouts" \
	"$ewsim" selftest -v

# --- conservation, per layout and sync ----------------------------------------
for lay in raid10 ddm ew; do
	for sync in 1 2; do
		j=$tmp/$lay-$sync.json
		if "$ewsim" --layout $lay --sync $sync $small --rate 400 \
			--samples --json "$j" 2>"$tmp/err" &&
		   jqe "$j" '.arrivals == 4000 and .completions == 4000 and
			.measured == 3600 and
			.read.n + .write.n == .measured and
			(.collapsed | not)'; then
			ok "no request lost: $lay sync $sync"
		else
			nok "no request lost: $lay sync $sync"
			cat "$tmp/err"
		fi
		if jqe "$j" '.util_max < 1 and .util_mean > 0 and
			.util_mean < 0.9 and (.util | length) == 8'; then
			ok "utilisation below 1 below saturation: $lay sync $sync"
		else
			nok "utilisation below 1 below saturation: $lay sync $sync"
		fi
	done
done
j=$tmp/ew-1.json
jqe "$j" '.workload == "synthetic"' && ok "synthetic load is labelled so" ||
	nok "synthetic load is labelled so"
jqe "$j" '.eager_writes > 0 and .eager_pos_ms > 0 and
	(.delayq | length) > 10 and .delayed_done > 0' &&
	ok "eager positioning and delayed queue reported" ||
	nok "eager positioning and delayed queue reported"
jqe "$tmp/raid10-1.json" '.eager_writes == 0' &&
	ok "raid10 never eager-writes" || nok "raid10 never eager-writes"

# Throughput equals the offered rate below saturation (within 5%).
jqe "$j" '(((.throughput - .rate) | fabs) < (0.05 * .rate))' &&
	ok "throughput follows the arrival rate" ||
	nok "throughput follows the arrival rate"

# --- --disk-mib: members truncated like hddsim's (make bench's members) ----
# 256 MiB of the model's outer cylinders: the data set follows the member
# (one member's worth), and the seeks over it are shorter than over the
# whole 8.7 GiB model, so random reads are faster.
for m in 0 256; do
	"$ewsim" --layout raid10 --sync 2 --disks 8 --disk-mib $m --read-frac 1 \
		--requests 3000 --rate 50 --json "$tmp/mib$m.json" 2>"$tmp/err" ||
		cat "$tmp/err"
done
jqe "$tmp/mib256.json" '.disk_sectors == 524288 and .len_blocks == 32768' &&
	jqe "$tmp/mib0.json" '.disk_sectors > 17000000' &&
	ok "--disk-mib 256: a member of 524288 sectors, one member's data set" ||
	nok "--disk-mib 256: a member of 524288 sectors, one member's data set"
fcheck 'a > 0 && a < b' -v a="$(jq .read.mean_ms "$tmp/mib256.json")" \
	-v b="$(jq .read.mean_ms "$tmp/mib0.json")" &&
	ok "--disk-mib 256: shorter seeks than the whole model" ||
	nok "--disk-mib 256: shorter seeks than the whole model"
"$ewsim" --disk-mib x --disks 4 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "--disk-mib x exits 2" || nok "--disk-mib x exits 2 (got $rc)"

# --- queueing formulas ------------------------------------------------------
# M/D/1: a degenerate disk (no seek, 1 us rotation, 5 ms overhead), two
# mirrored disks with both writes in the foreground: each disk sees every
# Poisson write, FCFS, constant service.  W = S + rho * S / (2 (1 - rho)).
degen=rotation_ns=1000,seek_a_ns=1,seek_b_ns=0,seek_c_ns=1,seek_e_ns=0
degen=$degen,single_cyl_ns=1,head_switch_ns=0,write_settle_ns=0
degen=$degen,overhead_ns=5000000
"$ewsim" --layout raid10 --disks 2 --sync 2 --read-frac 0 --policy fcfs \
	--len-blocks 20000 --requests 8000 --rate 100 --disk "$degen" \
	--json "$tmp/md1.json" 2>/dev/null
s=$(jq .op_svc_ms "$tmp/md1.json"); w=$(jq .op_resp_ms "$tmp/md1.json")
if fcheck 'w > 0 && (w - f) / f < 0.07 && (f - w) / f < 0.07' \
	-v w="$w" -v f="$(awk -v s="$s" 'BEGIN { r = 0.1 * s;
		print s + r * s / (2 * (1 - r)) }')"; then
	ok "M/D/1: mean response $w ms against the formula"
else
	nok "M/D/1: mean response $w ms against the formula"
fi
# M/G/1 (Pollaczek-Khinchine) with the real disk model and the measured
# service moments: W = E[S] + lambda E[S^2] / (2 (1 - lambda E[S])).
"$ewsim" --layout raid10 --disks 2 --sync 2 --read-frac 0 --policy fcfs \
	--len-blocks 200000 --requests 8000 --rate 60 \
	--json "$tmp/mg1.json" 2>/dev/null
read -r s m2 w < <(jq -r '"\(.op_svc_ms) \(.op_svc_m2) \(.op_resp_ms)"' \
	"$tmp/mg1.json")
pk=$(awk -v s="$s" -v m="$m2" 'BEGIN { l = 0.06;
	print s + l * m / (2 * (1 - l * s)) }')
if fcheck '(w - f) / f < 0.1 && (f - w) / f < 0.1' -v w="$w" -v f="$pk"; then
	ok "M/G/1: mean response $w ms, Pollaczek-Khinchine $pk ms"
else
	nok "M/G/1: mean response $w ms, Pollaczek-Khinchine $pk ms"
fi

# --- determinism --------------------------------------------------------------
"$ewsim" --layout ew $small --rate 500 --seed 7 --json "$tmp/a.json" 2>/dev/null
"$ewsim" --layout ew $small --rate 500 --seed 7 --json "$tmp/b.json" 2>/dev/null
"$ewsim" --layout ew $small --rate 500 --seed 8 --json "$tmp/c.json" 2>/dev/null
cmp -s "$tmp/a.json" "$tmp/b.json" && ok "same seed, identical output" ||
	nok "same seed, identical output"
jq -S 'del(.seed)' "$tmp/a.json" >"$tmp/a2.json"
jq -S 'del(.seed)' "$tmp/c.json" >"$tmp/c2.json"
cmp -s "$tmp/a2.json" "$tmp/c2.json" && nok "different seed, different output" ||
	ok "different seed, different output"

# --- delayed buffer: bounded, writers stall -----------------------------------
"$ewsim" --layout ew --sync 1 $small --rate 1500 --delay-queue 20 \
	--json "$tmp/dq.json" 2>/dev/null
jqe "$tmp/dq.json" '.delayq_max <= 20 and .stalls > 0 and
	.completions == .arrivals' &&
	ok "delayed queue bounded by delay_queue, writers stall" ||
	nok "delayed queue bounded by delay_queue, writers stall"

# --- closed loop, trace replay, sweep, noise ------------------------------------
"$ewsim" --layout ew --disks 4 --len-blocks 20000 --requests 2000 \
	--outstanding 1 --read-frac 0.5 --json "$tmp/cl.json" 2>/dev/null
jqe "$tmp/cl.json" '.workload == "closed" and .completions == 2000 and
	.util_max < 1' && ok "closed loop keeps one request in flight" ||
	nok "closed loop keeps one request in flight"

awk 'BEGIN { srand(3); for (i = 0; i < 500; i++)
	printf "%d,%d,%d,%s,%.6f\n", i % 2, int(rand() * 1e6) * 8, 4096 * (1 + i % 3),
		(rand() < 0.6 ? "r" : "w"), i * 0.004 }' >"$tmp/spc.csv"
"$ewsim" --layout ddm --disks 4 --len-blocks 20000 --trace "$tmp/spc.csv" \
	--json "$tmp/tr.json" 2>/dev/null
jqe "$tmp/tr.json" '(.workload | startswith("trace:")) and
	.arrivals == 500 and .completions == 500' &&
	ok "SPC trace replayed, every request completes" ||
	nok "SPC trace replayed, every request completes"
echo "0,1,2,x,0.1" >"$tmp/bad.csv"
"$ewsim" --disks 4 --len-blocks 20000 --trace "$tmp/bad.csv" >/dev/null 2>&1
[ $? -eq 1 ] && ok "malformed trace exits 1" || nok "malformed trace exits 1"

"$ewsim" sweep --layout raid10 --disks 4 --len-blocks 20000 --requests 1000 \
	--rates 50,100,200 >"$tmp/sw.csv" 2>/dev/null
[ "$(wc -l <"$tmp/sw.csv")" -eq 4 ] && head -1 "$tmp/sw.csv" | grep -q '^workload,' &&
	ok "sweep: one CSV row per rate" || nok "sweep: one CSV row per rate"

"$ewsim" --layout ew $small --rate 400 --predict-noise 0.05 \
	--json "$tmp/noise.json" 2>/dev/null
jqe "$tmp/noise.json" '.completions == .arrivals and .eager_pos_ms > 0' &&
	ok "prediction noise: runs, every request completes" ||
	nok "prediction noise: runs, every request completes"

"$ewsim" --layout ew $small --rate 800 --dup-cancel start \
	--json "$tmp/dup.json" 2>/dev/null
jqe "$tmp/dup.json" '.completions == .arrivals and .dup_wasted == 0' &&
	ok "duplicates cancelled at start: none wasted, none lost" ||
	nok "duplicates cancelled at start: none wasted, none lost"

# Bursts: rate x4 for 100 ms of every second, so 1.3 x the base rate on
# average, and a longer tail than the same load without bursts.
"$ewsim" --layout ew $small --rate 300 --burst 4:100:1000 \
	--json "$tmp/burst.json" 2>/dev/null
"$ewsim" --layout ew $small --rate 390 --json "$tmp/flat.json" 2>/dev/null
if jqe "$tmp/burst.json" '.completions == .arrivals and
	(((.throughput - 390) | fabs) < 0.06 * 390)' &&
   fcheck 'b > f' -v b="$(jq .all.p99_ms "$tmp/burst.json")" \
	-v f="$(jq .all.p99_ms "$tmp/flat.json")"; then
	ok "bursts: mean rate as configured, longer tail"
else
	nok "bursts: mean rate as configured, longer tail"
fi

# --- the bound -------------------------------------------------------------------
"$ewsim" bound --writes 3000 --csv "$tmp/bound.csv" 2>/dev/null
if awk -F, 'NR > 1 { if ($8 < 0.9 || $8 > 1.1 || $6 < 0.8 || $6 > 1.35 ||
		$NF != 0) bad = 1; n++ } END { exit bad || n != 6 }' \
		"$tmp/bound.csv"; then
	ok "bound: placement is nearest, fresh free sets match (1-p)/(p+1/n)"
else
	nok "bound: placement is nearest, fresh free sets match (1-p)/(p+1/n)"
	cat "$tmp/bound.csv"
fi

# --- the same-block bound ---------------------------------------------------------
# The shortest write the model allows, found by ewsim from the core's
# ew_disk_predict(), against the closed form from the model's own
# parameters (overhead + write settle + 8 of the outer zone's 254
# sectors a turn); then with another model, so the search follows it.
sb_form() {	# sb_form OVERHEAD_NS SETTLE_NS: the closed form, in ms
	awk -v o="$1" -v s="$2" 'BEGIN { printf "%.6f", (o + s + 8 / 254 * 5973121) / 1e6 }'
}
if "$ewsim" bound --same-block >"$tmp/sb.json" 2>"$tmp/err" &&
   fcheck 'm - f < 0.002 && f - m < 0.002 && w < 0.002 && r < 650 && r > 640' \
	-v m="$(jq .min_write_ms "$tmp/sb.json")" -v f="$(sb_form 900000 461000)" \
	-v w="$(jq .rotation_wait_ms "$tmp/sb.json")" -v r="$(jq .bound_per_s "$tmp/sb.json")"; then
	ok "same-block bound: overhead + settle + transfer, the Cheetah's 645/s"
else
	nok "same-block bound: overhead + settle + transfer, the Cheetah's 645/s"
	cat "$tmp/sb.json" "$tmp/err"
fi
if "$ewsim" bound --same-block --disk overhead_ns=100000,write_settle_ns=0 >"$tmp/sb0.json" &&
   fcheck 'm - f < 0.002 && f - m < 0.002' -v m="$(jq .min_write_ms "$tmp/sb0.json")" \
	-v f="$(sb_form 100000 0)"; then
	ok "same-block bound follows --disk (no settle, 0.1 ms overhead)"
else
	nok "same-block bound follows --disk (no settle, 0.1 ms overhead)"
	cat "$tmp/sb0.json"
fi
# The simulator's own closed loop of durable rewrites of one block (the
# bench's ewsim --same-block run) cannot beat the bound.
for s in 1 2; do
	if "$ewsim" run --layout ew --sync $s --disks 8 --mirrors 2 --dilution 2 --disk-mib 256 \
		--block-size 4096 --len-blocks 1 --page-bytes 4096 --read-frac 0 --outstanding 1 \
		--requests 400 --json "$tmp/sbrun.json" 2>"$tmp/err" &&
	   fcheck 'm >= b && t <= r && t > 0' -v m="$(jq .write.mean_ms "$tmp/sbrun.json")" \
		-v b="$(jq .min_write_ms "$tmp/sb.json")" -v t="$(jq .throughput "$tmp/sbrun.json")" \
		-v r="$(jq .bound_per_s "$tmp/sb.json")"; then
		ok "ewsim same-block sync $s within the bound"
	else
		nok "ewsim same-block sync $s within the bound"
		jq -c '{throughput, write}' "$tmp/sbrun.json"
	fi
done
# make bench's form: one block of a populated data set (a hot set of
# one page): every write goes to that block's two disks, and a filled
# array's writes wait longer for a free block than an empty one's.
if "$ewsim" run --layout ew --sync 2 --disks 8 --mirrors 2 --dilution 2 --disk-mib 256 \
	--block-size 4096 --len-blocks 20000 --hot 1/1e-9 --page-bytes 4096 --read-frac 0 \
	--outstanding 1 --requests 400 --json "$tmp/sbfull.json" --ops "$tmp/sbfull.csv" 2>"$tmp/err" &&
   [ "$(awk -F, 'NR > 1 && $2 == "eager" { d[$1] = 1 } END { print length(d) }' "$tmp/sbfull.csv")" = 2 ] &&
   fcheck 'f >= b && f > e' -v f="$(jq .write.mean_ms "$tmp/sbfull.json")" \
	-v b="$(jq .min_write_ms "$tmp/sb.json")" -v e="$(jq .write.mean_ms "$tmp/sbrun.json")"; then
	ok "ewsim same-block on a populated data set: one block's two disks, slower than empty"
else
	nok "ewsim same-block on a populated data set: one block's two disks, slower than empty"
	jq -c '{throughput, write}' "$tmp/sbfull.json" "$tmp/sbrun.json"
fi
"$ewsim" bound --same-block --writes 10 >/dev/null 2>&1; rc=$?
"$ewsim" bound --disk overhead_ns=1 >/dev/null 2>&1; rc2=$?
"$ewsim" bound --same-block --block-size 1000 >/dev/null 2>&1; rc3=$?
[ $rc -eq 2 ] && [ $rc2 -eq 2 ] && [ $rc3 -eq 2 ] &&
	ok "bound: mixed or bad options exit 2" ||
	nok "bound: mixed or bad options exit 2 (got $rc $rc2 $rc3)"

# --- per-disk phases (--phase-seed) ----------------------------------------------
# Disk i's phase is hddsim_phase SEED i PERIOD (tests/vm/hddsim-lib.sh),
# as make bench turns its hddsim members; without the option every disk
# turns in step.  A raid10 write waits for both mirrors: with independent
# phases the slower of two rotational waits, in step the same wait
# twice, so its mean must rise.
# shellcheck source=tests/vm/hddsim-lib.sh
. "$top/tests/vm/hddsim-lib.sh"
"$ewsim" run --layout raid10 --sync 2 $small --rate 100 --phase-seed 7 \
	--json "$tmp/ph.json" 2>/dev/null
"$ewsim" run --layout raid10 --sync 2 $small --rate 100 \
	--json "$tmp/ph0.json" 2>/dev/null
want=$(for i in $(seq 0 7); do hddsim_phase 7 "$i" 5973121; done | paste -sd, -)
got=$(jq -r '.phases_ns | map(tostring) | join(",")' "$tmp/ph.json" 2>/dev/null)
if [ -n "$want" ] && [ "$got" = "$want" ] && jqe "$tmp/ph0.json" '.phase_seed == null'; then
	ok "phase seed: disk i's phase is hddsim_phase(seed, i), none without it"
else
	nok "phase seed: disk i's phase is hddsim_phase(seed, i), none without it"
	echo "#   want $want"; echo "#   got  $got"
fi
if fcheck 'p > 1.05 * q' -v p="$(jq .write.mean_ms "$tmp/ph.json")" \
	-v q="$(jq .write.mean_ms "$tmp/ph0.json")"; then
	ok "phase seed: raid10 writes wait for the slower of two spindles"
else
	nok "phase seed: raid10 writes wait for the slower of two spindles"
	jq -c .write "$tmp/ph.json" "$tmp/ph0.json"
fi

# --- before the run: populate, warm-up -----------------------------------------
# --populate sequential writes the data set in logical order through the
# write path: eager placement fills the tracks near the head, so whole
# tracks stay free (a random populate leaves about half of every track
# free), and none of it is counted.  A bad value is a usage error.
for p in random sequential; do
	"$ewsim" run --layout ew $small --rate 400 --populate $p \
		--json "$tmp/pop-$p.json" 2>"$tmp/err" || cat "$tmp/err"
done
if jqe "$tmp/pop-random.json" '.populate == "random" and .pre_requests == 0 and
	.empty_tracks < 0.01' &&
   jqe "$tmp/pop-sequential.json" '.populate == "sequential" and
	.pre_requests == 313 and .pre_s > 0 and .empty_tracks > 0.2 and
	.arrivals == 4000 and .completions == 4000 and .measured == 3600'; then
	ok "populate sequential: whole tracks left free, random: spread; not counted"
else
	nok "populate sequential: whole tracks left free, random: spread; not counted"
	jq -c '{populate, pre_requests, pre_s, full_tracks, empty_tracks, arrivals, measured}' \
		"$tmp/pop-random.json" "$tmp/pop-sequential.json" | sed 's/^/#   /'
fi
"$ewsim" run --layout raid10 $small --rate 400 --populate sequential \
	--json "$tmp/pop-r10.json" 2>/dev/null
"$ewsim" run --layout raid10 $small --rate 400 --json "$tmp/pop-r10r.json" 2>/dev/null
jqe "$tmp/pop-r10.json" '.pre_requests == 0 and .full_tracks == null' &&
	cmp -s <(jq -S 'del(.populate)' "$tmp/pop-r10.json") \
		<(jq -S 'del(.populate)' "$tmp/pop-r10r.json") &&
	ok "populate sequential: raid10 at its homes either way" ||
	nok "populate sequential: raid10 at its homes either way"
"$ewsim" run --layout ew $small --populate often >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--populate: 'often'" "$tmp/err" &&
	ok "populate: a bad value exits 2 with a message" ||
	nok "populate: a bad value exits 2 with a message (got $rc)"
# --warmup-tpcc: TPC-C-like phases before the run, not in its counts (a
# closed loop of writes only: any read measured would be the warm-up's),
# yet the run starts from the state they left: the clock, the layout.
wu="--layout ew $small --read-frac 0 --outstanding 1 --warmup 0"
"$ewsim" run $wu --json "$tmp/wu0.json" 2>/dev/null
"$ewsim" run $wu --warmup-tpcc 300:500,600:700 --samples --json "$tmp/wu.json" 2>/dev/null
if jqe "$tmp/wu.json" '.arrivals == 4000 and .completions == 4000 and
	.measured == 4000 and .read.n == 0 and .write.n == 4000 and
	.pre_requests == 1200 and .pre_s > 2 and
	(.warmup_tpcc | length) == 2 and .warmup_tpcc[1].rate == 600 and
	.delayq[0][0] < 0.1' &&
   ! cmp -s <(jq -c .write "$tmp/wu0.json") <(jq -c .write "$tmp/wu.json"); then
	ok "warm-up: not counted or measured, the run starts where it left the array"
else
	nok "warm-up: not counted or measured, the run starts where it left the array"
	jq -c '{arrivals, measured, read: .read.n, write: .write.mean_ms, pre_requests, pre_s,
		warmup_tpcc, d0: (.delayq // [[null]])[0]}' "$tmp/wu0.json" "$tmp/wu.json" | sed 's/^/#   /'
fi

# --warmup-syncwrite: QD1 one-block writes after the TPC-C phases, not in
# the run's counts, and the run starts where they left the array.
"$ewsim" run $wu --warmup-tpcc 300:500 --json "$tmp/ws0.json" 2>/dev/null
"$ewsim" run $wu --warmup-tpcc 300:500 --warmup-syncwrite 900 --json "$tmp/ws.json" 2>/dev/null
if jqe "$tmp/ws.json" '.measured == 4000 and .write.n == 4000 and
	.warmup_syncwrite == 900 and .pre_requests == 1400' &&
   jqe "$tmp/ws0.json" '.warmup_syncwrite == 0 and .pre_requests == 500' &&
   fcheck 'b > a' -v a="$(jq .pre_s "$tmp/ws0.json")" -v b="$(jq .pre_s "$tmp/ws.json")" &&
   ! cmp -s <(jq -c .write "$tmp/ws0.json") <(jq -c .write "$tmp/ws.json"); then
	ok "warm-up syncwrite: after the TPC-C phases, not counted, the run starts after it"
else
	nok "warm-up syncwrite: after the TPC-C phases, not counted, the run starts after it"
	jq -c '{measured, write: .write.mean_ms, warmup_syncwrite, pre_requests, pre_s}' \
		"$tmp/ws0.json" "$tmp/ws.json" | sed 's/^/#   /'
fi

# --- md's read policy -----------------------------------------------------
# md raid10 (near copies, rotating members) sends a read to the first idle
# copy: on a pair, a read reaches disk 1 only while disk 0 is busy.  The
# module's policy (nearest) sends it wherever it is reached first, idle
# disk 0 or not; and md never duplicates a read.
for rp in nearest md; do
	"$ewsim" run --layout raid10 --sync 2 --disks 2 --requests 2000 --rate 20 \
		--read-frac 1 --read-policy "$rp" --ops "$tmp/ops-$rp.csv" \
		--json "$tmp/rp-$rp.json" >/dev/null 2>&1
done
# "V T": disk 1's reads that arrived while disk 0 was idle, and all of them
idle_reads() {
	awk -F, 'FNR == 1 { next }
		NR == FNR { if ($1 == 0) { n++; s[n] = $7; e[n] = $9 } next }
		$1 == 1 && $2 == "read" { a = $6; b = 0
			for (i = 1; i <= n; i++) if (s[i] <= a && a < e[i]) { b = 1; break }
			if (!b) v++; t++ }
		END { print v + 0, t + 0 }' "$1" "$1"
}
read -r mv mt < <(idle_reads "$tmp/ops-md.csv")
read -r nv nt < <(idle_reads "$tmp/ops-nearest.csv")
if [ "${mt:-0}" -gt 0 ] && [ "${mv:-1}" -eq 0 ] && [ "${nv:-0}" -gt 0 ] &&
	jqe "$tmp/rp-md.json" '.read_policy == "md" and .dup_reads == 0' &&
	jqe "$tmp/rp-nearest.json" '.read_policy == "nearest" and .dup_reads > 0'; then
	ok "read policy md: disk 1 reads only while disk 0 is busy, no duplicates"
else
	nok "read policy md: disk 1 reads only while disk 0 is busy, no duplicates"
	echo "#   md: $mv of $mt disk-1 reads sent with disk 0 idle; nearest: $nv of $nt"
	jq -c '{read_policy, dup_reads}' "$tmp/rp-md.json" "$tmp/rp-nearest.json" | sed 's/^/#   /'
fi

# --- a request's blocks before its delayed replicas -------------------------
# The target maps every block of a bio before its propagation worker runs:
# a page's second block never waits for the delayed replica of its first,
# started on the same disk when the page arrived.  "W F D": such waits, the
# foreground writes that waited at all, and the delayed writes.
"$ewsim" run --layout ew --sync 1 --disks 8 --dilution 2 --block-size 4096 \
	--len-blocks 40000 --page-bytes 8192 --read-frac 0 --rate 40 --requests 2000 \
	--ops "$tmp/ops-hold.csv" --json "$tmp/hold.json" >/dev/null 2>&1
read -r hw hf hd < <(awk -F, 'FNR == 1 { next }
	NR == FNR { if ($3 == 1) { st[$1 "," $8] = 1; d++ } next }
	$3 == 0 && $2 == "eager" && $8 > $7 { f++; if (($1 "," $6) in st) w++ }
	END { print w + 0, f + 0, d + 0 }' "$tmp/ops-hold.csv" "$tmp/ops-hold.csv")
if [ "${hd:-0}" -gt 0 ] && [ "${hw:-1}" -eq 0 ] && jqe "$tmp/hold.json" '.write.n > 0'; then
	ok "a page's blocks are placed before its delayed replicas start"
else
	nok "a page's blocks are placed before its delayed replicas start"
	echo "#   $hw foreground writes waited for a delayed write started at their arrival (of $hf that waited; $hd delayed)"
fi

exit $failed
