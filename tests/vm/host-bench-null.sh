#!/bin/bash
# vmtest: beside
# scripts/bench-null end to end (issue 15's benchmark; until now no test
# ran it): one exact-time boot of 4 null_blk members, raw, dm-raid and
# ew sync 2, three of its jobs (random writes at QD1, the same-block
# durable rewrite, the idle fsync), 1 s each.  The table must have a row
# for every configuration and job with its IOPS and mean latency, the
# CPU per I/O (cpu_us, from the guest's /proc/stat) a positive number on
# the measured jobs and at least the mean latency's share of one vCPU
# for a QD1 job that keeps it busy, the dm-raid and raw ratios, and the
# idle fsync's device I/O count; bad arguments exit 2 and boot nothing.
# About 40 s on a quiet host.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/host-bench-null
mkdir -p "$out" || exit 1
fails=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fails=$((fails + 1)); }
check() {	# check NAME COMMAND...
	local n=$1
	shift
	if "$@"; then ok "$n"; else notok "$n"; fi
}

# usage errors: exit 2, no guest
"$top/scripts/bench-null" --jobs bogus >"$out/bad.out" 2>&1
check "bench-null: an unknown job is a usage error (exit 2)" [ $? -eq 2 ]
"$top/scripts/bench-null" --seed x >"$out/bad.out" 2>&1
check "bench-null: a bad seed is a usage error (exit 2)" [ $? -eq 2 ]

"$top/scripts/bench-null" --members 4 --runtime 1 --region 8 \
	--configs "raw dmraid ew2" --jobs randwrite-qd1,sameblock,idle-fsync \
	>"$out/table" 2>"$out/err"
rc=$?
check "bench-null: exit 0" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/# /' "$out/err" | tail -n 20

# row JOB CONFIG: the table row of CONFIG in JOB's section
row() {
	awk -v j="$1" -v c="$2" '$1 == j && NF >= 2 && $2 ~ /^\(/ { s = 1; next }
		/^$/ { s = 0 } s && $1 == c { print; exit }' "$out/table"
}
for j in randwrite-qd1 sameblock idle-fsync; do
	for c in raw dmraid ew2; do
		r=$(row $j $c)
		check "$j $c: a row with IOPS and a mean" \
			awk -v r="$r" 'BEGIN { n = split(r, f); exit !(n >= 5 && f[2] > 0 && f[3] > 0) }'
		# cpu_us is field 5 ("-" for the idle fsync); a QD1 job keeps
		# the one vCPU busy, so its CPU per I/O is at least a fifth
		# of its mean latency
		[ $j = idle-fsync ] ||
			check "$j $c: cpu_us a positive number, in step with the latency" \
				awk -v r="$r" 'BEGIN { split(r, f); exit !(f[5] ~ /^[0-9.]+$/ && f[5] > 0 && f[5] >= f[3] / 5) }'
	done
done
check "randwrite-qd1 ew2: ratios to dm-raid printed" \
	awk -v r="$(row randwrite-qd1 ew2)" 'BEGIN { n = split(r, f); for (i = 1; i <= n; i++) if (f[i] == "|") b++; exit !(b >= 2 && f[11] ~ /^[0-9.]+$/) }'
check "sameblock ew2: ratios to raw printed" \
	awk -v r="$(row sameblock ew2)" 'BEGIN { n = split(r, f); for (i = 1; i <= n; i++) if (f[i] == "|") b++; exit !(b >= 3) }'
check "idle-fsync ew2: device I/Os per fsync printed (0: no I/O)" \
	awk -v r="$(row idle-fsync ew2)" 'BEGIN { n = split(r, f); exit !(f[n] == "0" || f[n] == "0.00") }'
check "the cpu_us column is explained" grep -q "^cpu_us: vCPU time per I/O" "$out/table"
[ "$fails" -eq 0 ] || sed 's/^/# /' "$out/table"
exit $((fails > 0))
