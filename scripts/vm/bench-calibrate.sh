#!/bin/bash
# ewctl calibrate against hddsim (issue 9 point 2): the calibration's
# error against the emulated disk's known rotation and phase, in
# fractions of a revolution, once and under periodic recalibration.
# Figures, not a test.  Run by
#   scripts/vm-run --disks 0 --timeout 1200 -- scripts/vm/bench-calibrate.sh \
#       [DISKS [COUNT [MIB [EVERY [ROUNDS [PATH_NS [SEED]]]]]]]
# (needs tests/hddsim/hddsim.ko: make hddsim).  Defaults: 4 members of
# 1024 MiB, 400 reads for the first calibration, then every 10 s for 30
# rounds (ewctl calibrate --every; the first gaps are shorter, see its
# help).  The members are calibrated one after another, each while the
# others sleep between their rounds.  PATH_NS (default 0) is passed as
# ewctl calibrate --path-ns: the guest's completion path, measured on an
# earlier boot (other members, other phases), subtracted from the phase.
# SEED (default 1) gives the members' phases (tests/vm/hddsim-lib.sh), so
# a run in exact time (vm-run --icount) repeats.
#
# The error of an estimate (period Re, phase Pe) at time t is the
# predicted angle less the true one, (t - Pe)/Re - (t - Pt)/Rt, wrapped
# to [-0.5, 0.5) of a turn (Rt, Pt: hddsim's table).  For each member:
#   once      round 0's estimate, never refreshed, at each round's time;
#   periodic  the estimate in force at 20 instants spread over each
#             interval between two rounds (the error grows linearly
#             between them, so this is its distribution in time).
# The summary gives the 50th, 98th percentile and maximum of |error| of
# each over all members (periodic also from round 1 on, leaving out the
# interval in which round 0's short-baseline period is in force): the
# paper's "within 1% of a rotation with 98% confidence" is the 98th
# percentile of periodic being <= 0.01.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
disks=${1:-4} count=${2:-400} mib=${3:-1024} every=${4:-10} rounds=${5:-30} path_ns=${6:-0}
seed=${7:-1}
# shellcheck source=tests/vm/hddsim-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/hddsim-lib.sh"
chan=${EW_CHANNEL:-/dev/null}
modprobe dm-mod 2>/dev/null
modprobe brd rd_nr="$disks" rd_size=$((mib * 1024)) max_part=0 || exit 1
insmod /ew/modules/hddsim.ko || { echo "# no hddsim.ko (make hddsim)"; exit 1; }
for i in $(seq 0 $((disks - 1))); do
	dmsetup create "hdd$i" --table "0 $((mib * 2048)) hddsim /dev/ram$i 4 rotation_ns 5973121 phase_ns $(hddsim_phase "$seed" "$i" 5973121)" || exit 1
done
tabval() { dmsetup table "hdd$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

echo "# calibrate: $disks members of $mib MiB, $count reads, then every $every s, $rounds rounds, path $path_ns ns, seed $seed, exact time: ${EW_ICOUNT:-no}"
pids=()
for i in $(seq 0 $((disks - 1))); do
	ewctl calibrate --json --count "$count" --every "$every" --rounds "$rounds" \
		--path-ns "$path_ns" "/dev/mapper/hdd$i" >"/tmp/cal$i.jsonl" 2>"/tmp/cal$i.err" &
	pids+=($!)
	sleep 1
done
for p in "${pids[@]}"; do wait "$p"; done

for i in $(seq 0 $((disks - 1))); do
	rt=$(tabval "$i" rotation_ns) pt=$(tabval "$i" phase_ns)
	[ -s "/tmp/cal$i.jsonl" ] || { echo "# calibrate: hdd$i failed: $(cat "/tmp/cal$i.err")"; continue; }
	jq -r '"\(.round) \(.t_ns) \(.gap_ns) \(.in_window) \(.reads) \(.turns) \(.rotation_ns) \(.phase_ns)"' \
		"/tmp/cal$i.jsonl" | awk -v m="hdd$i" -v rt="$rt" -v pt="$pt" '
	function err(re, pe, t,   x) {
		x = (t - pe) / re - (t - pt) / rt
		x -= int(x); if (x < -0.5) x += 1; if (x >= 0.5) x -= 1
		return x
	}
	{ r[NR] = $1; t[NR] = $2; g[NR] = $3; w[NR] = $4; n[NR] = $5; k[NR] = $6; re[NR] = $7; pe[NR] = $8 }
	END {
		for (j = 1; j <= NR; j++) {
			printf "CAL %s round %d gap %.1f s window %d/%d turns %d period %+.2f ppm  now %+.4f  before %+.4f  once %+.4f rev\n",
				m, r[j], g[j] / 1e9, w[j], n[j], k[j], (re[j] - rt) / rt * 1e6,
				err(re[j], pe[j], t[j]), (j > 1 ? err(re[j - 1], pe[j - 1], t[j]) : 0),
				err(re[1], pe[1], t[j])
			if (j > 1)
				for (s = 0; s < 20; s++) {
					u = t[j - 1] + (t[j] - t[j - 1]) * s / 20
					printf "SAMPLE %s %.6f %.6f %d\n", m, err(re[j - 1], pe[j - 1], u), err(re[1], pe[1], u), r[j - 1]
				}
		}
	}'
done >/tmp/cal.out
grep '^CAL' /tmp/cal.out | tee "$chan"
# |error| percentiles: all samples, from round 1 on, and round 0's
# estimate never refreshed (same instants).
pctl() {	# pctl NAME FILE: p50, p98, max of the numbers in FILE
	sort -g "$2" | awk -v name="$1" '{ v[NR] = $1 }
		function q(f) { return v[int(f * (NR - 1) + 1.5)] }
		END { if (NR) printf "# %s, %d samples: |error| p50 %.4f p98 %.4f max %.4f rev\n", name, NR, q(0.5), q(0.98), v[NR] }'
}
grep '^SAMPLE' /tmp/cal.out | awk '{ print ($3 < 0 ? -$3 : $3) }' >/tmp/s.all
grep '^SAMPLE' /tmp/cal.out | awk '$5 >= 1 { print ($3 < 0 ? -$3 : $3) }' >/tmp/s.steady
grep '^SAMPLE' /tmp/cal.out | awk '{ print ($4 < 0 ? -$4 : $4) }' >/tmp/s.once
{
	pctl "periodic (all intervals)" /tmp/s.all
	pctl "periodic (from round 1 on)" /tmp/s.steady
	grep '^SAMPLE' /tmp/cal.out | awk '$5 >= 1 { s += $3; n++ }
		END { if (n) printf "# periodic (from round 1 on): mean error %+.4f rev (%+.0f ns; late completions make it negative)\n", s / n, s / n * 5973121 }'
	pctl "once (round 0 only, same instants)" /tmp/s.once
} | tee /tmp/cal.summary
cat /tmp/cal.summary >"$chan"
exit 0
