#!/bin/bash
# scripts/bench's merge of the boots of one run (--parallel; --from given
# several times), on a stored run (results/bench/, md ew1 ew2 in one boot)
# cut into two boots as --parallel makes them: md in both, ew1 in the
# first, ew2 in the second.  The merged tables must be the one boot's
# tables line for line; the baseline's repeat is reported (0% here), a
# baseline's synchronous write 5% off in the second boot draws the
# warning, its TPC-C mean 5% off is printed apart without one, two boots with
# the same configuration and an unreadable channel are refused, and a
# bad --parallel too.  Prints "ok - NAME" / "not ok - NAME".
set -u
# shellcheck source=tests/tools/lib.sh
. "$(dirname "$0")/lib.sh"

bench=$top/scripts/bench
src=$top/results/bench/hddsim-36-20261202-140515.channel
if [ ! -r "$src" ]; then
	nok "bench merge: the stored run $src"
	exit 1
fi
tr -d '\r' <"$src" | awk '$2 != "ew2"' >"$tmp/b1.channel"
tr -d '\r' <"$src" | awk '$1 == "BENCH-INFO" || $1 == "BENCH-CAL" ||
	$1 == "BENCH-END" || $2 == "md" || $2 == "ew2"' >"$tmp/b2.channel"
# what differs between two printouts of the same figures: paths, stamps
tables() { grep -v '^bench: \|CSV /' "$1"; }

if run 0 "$bench" --from "$src" --out "$tmp/one"; then
	printf '%s\n' "$out" >"$tmp/one.txt"
	ok "bench merge: the stored run prints"
else
	nok "bench merge: the stored run prints" "exit $rc" "$err"
fi
if run 0 "$bench" --from "$tmp/b1.channel" --from "$tmp/b2.channel" --out "$tmp/two"; then
	printf '%s\n' "$out" >"$tmp/two.txt"
	if grep -q '^ew2 ' "$tmp/two.txt" && grep -q '^ew1 ' "$tmp/two.txt" &&
	   diff <(tables "$tmp/one.txt") <(tables "$tmp/two.txt") >"$tmp/diff"; then
		ok "bench merge: two boots print the one boot's tables"
	else
		nok "bench merge: two boots print the one boot's tables" "$(head -n 20 "$tmp/diff")"
	fi
	if grep -qx 'bench: md in boot 2 against boot 1: the largest difference of a mean or rate 0% (.*)' \
		"$tmp/two.txt" && ! grep -q 'warning' <<<"$err"; then
		ok "bench merge: the baseline's repeat reported, no warning"
	else
		nok "bench merge: the baseline's repeat reported, no warning" "$(grep 'boot 2' "$tmp/two.txt")" "$err"
	fi
	# every configuration once in the merged channel
	m=""
	for f in "$tmp"/two/hddsim-from-*.channel; do [ -e "$f" ] && m=$f; done
	if [ -n "$m" ] && [ "$(grep -c '^BENCH-TIME ' "$m")" -eq 3 ] &&
	   [ "$(grep -c '^BENCH md ' "$m")" -eq "$(tr -d '\r' <"$src" | grep -c '^BENCH md ')" ] &&
	   [ "$(grep -c '^BENCH-END' "$m")" -eq 1 ] && [ "$(grep -c '^BENCH-CAL ' "$m")" -eq 36 ]; then
		ok "bench merge: the merged channel holds each configuration once"
	else
		nok "bench merge: the merged channel holds each configuration once" "${m:-no channel}"
	fi
else
	nok "bench merge: two boots print" "exit $rc" "$err"
fi

# the second boot's md synchronous write 5% slower
python3 - "$tmp/b2.channel" "$tmp/b2p.channel" <<'PY'
import json, re, sys
out = []
for line in open(sys.argv[1]).read().splitlines():
    m = re.match(r'^BENCH md syncwrite (.*)$', line)
    if m:
        j = json.loads(m.group(1))
        j['write']['mean'] *= 1.05
        line = 'BENCH md syncwrite ' + json.dumps(j)
    out.append(line)
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
PY
if run 0 "$bench" --from "$tmp/b1.channel" --from "$tmp/b2p.channel" --out "$tmp/three" &&
   grep -qx 'bench: md in boot 2 against boot 1: the largest difference of a mean or rate 5% (syncwrite)' <<<"$out" &&
   grep -q "^bench: warning: boot 2's md is 5% from boot 1's" <<<"$err"; then
	ok "bench merge: a baseline 5% off draws the warning"
else
	nok "bench merge: a baseline 5% off draws the warning" "exit $rc" "$(grep 'boot 2' <<<"$out")" "$err"
fi
# the second boot's md TPC-C read mean 5% slower: printed apart, not held
python3 - "$tmp/b2.channel" "$tmp/b2t.channel" <<'PY'
import json, re, sys
out = []
n = 0
for line in open(sys.argv[1]).read().splitlines():
    m = re.match(r'^BENCH md (tpcc-[^ ]*) (.*)$', line)
    if m and n == 0:
        j = json.loads(m.group(2))
        j['read']['mean'] *= 1.05
        line = 'BENCH md %s %s' % (m.group(1), json.dumps(j))
        n += 1
    out.append(line)
if n != 1:
    sys.exit('no md tpcc line')
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
PY
if run 0 "$bench" --from "$tmp/b1.channel" --from "$tmp/b2t.channel" --out "$tmp/tpcc" &&
   grep -qx 'bench: md in boot 2 against boot 1: the largest difference of a mean or rate 0% (.*)' <<<"$out" &&
   grep -qx 'bench: md in boot 2 against boot 1, TPC-C (two fio processes on one vCPU: printed, not held): 5% (tpcc-.*)' <<<"$out" &&
   ! grep -q 'warning' <<<"$err"; then
	ok "bench merge: a TPC-C mean 5% off printed apart, no warning"
else
	nok "bench merge: a TPC-C mean 5% off printed apart, no warning" "exit $rc" "$(grep 'boot 2' <<<"$out")" "$err"
fi
if run 1 "$bench" --from "$tmp/b1.channel" --from "$tmp/b1.channel" --out "$tmp/four" &&
   grep -q 'the same configuration twice: ew1' <<<"$err"; then
	ok "bench merge: the same configuration in two boots refused"
else
	nok "bench merge: the same configuration in two boots refused" "exit $rc" "$err"
fi
if run 1 "$bench" --from "$tmp/b1.channel" --from "$tmp/missing.channel" --out "$tmp/five" &&
   grep -q 'cannot read' <<<"$err"; then
	ok "bench merge: an unreadable channel refused"
else
	nok "bench merge: an unreadable channel refused" "exit $rc" "$err"
fi
if run 2 "$bench" --parallel 0 && grep -q -- '--parallel: a positive integer' <<<"$err"; then
	ok "bench: --parallel 0 refused"
else
	nok "bench: --parallel 0 refused" "exit $rc" "$err"
fi
exit "$failed"
