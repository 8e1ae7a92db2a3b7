#!/bin/bash
# vmtest: beside
# An unthrottled rebuild yields to foreground I/O (issue 17 item 6): at
# rebuild_rate 0, a QD1 foreground read on a member the rebuild reads or
# writes waits behind about one short rebuild run, not behind the 4 MiB
# of runs the scan keeps in flight when nothing else runs.
#
# One boot in exact time (scripts/vm-run --icount: hddsim's service
# times, no host load in the figures) of tests/vm/bench-rebuild.sh on
# raid10, four hddsim members and two spares, 96 MiB written, 3 s jobs.
# Held: the rate-0 rebuild was running when the reads ended (they ran
# inside it), the QD1 random reads' mean during it is at most MAX_X
# (default 3) times their mean on the degraded array before any rebuild,
# and the rebuild still copied at least MIN_MIBS (default 1) MiB/s while
# the reads and writes ran (yielding must not starve it).  Before the
# yield the reads waited behind up to 4 MiB of rebuild I/O queued on
# their member (the commit that added this test gives the figures).
#
# Usage: tests/vm/host-rebuild-yield.sh [--layout raid10|ew|ddm] [--from LOG]
#   --from LOG  judge an earlier boot's console log (build/rebuild-yield-*/
#               run.log) without booting
# One boot of about 40-50 s of guest time: 1-3 min on a quiet host.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
layout=raid10 max_x=${MAX_X:-3} min_mibs=${MIN_MIBS:-1} from=""
while [ $# -gt 0 ]; do
	case $1 in
	--layout) layout=$2; shift 2 ;;
	--from) from=$2; shift 2 ;;
	*) echo "usage: $0 [--layout raid10|ew|ddm] [--from LOG]" >&2; exit 2 ;;
	esac
done
out=$top/build/rebuild-yield-$layout
mkdir -p "$out" || exit 1
fails=0
if [ -n "$from" ]; then
	log=$from
	[ -r "$log" ] || { echo "not ok - rebuild-yield: no log $log"; exit 1; }
else
	log=$out/run.log
	if ! make -s -C "$top/tests/hddsim" >"$out/make.log" 2>&1; then
		cat "$out/make.log"
		echo "not ok - rebuild-yield: build tests/hddsim/hddsim.ko"
		exit 1
	fi
	"$top/scripts/vm-run" --icount --disks 0 --meta-size 64M --mem 2048 \
		--timeout 1500 --quiet --log "$log" -- \
		"$top/tests/vm/bench-rebuild.sh" "$layout" hddsim 96 1 4 3
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "not ok - rebuild-yield: vm-run exited $rc (log $log)"
		fails=$((fails + 1))
	fi
fi
tr -d '\r' <"$log" | grep -a '^# \|^RESULT ' >"$out/run.out"
grep '^# ' "$out/run.out" | cut -c1-200
field() {	# field NAME N: the Nth word after "RESULT layout kind NAME"
	awk -v n="$1" -v k="$2" '$1 == "RESULT" && $4 == n { print $(4 + k) }' "$out/run.out"
}
before=$(field before_read 1) during=$(field during0_read 1)
state=$(field during0_read 4) mibs=$(field during0_rebuild_mibs 1)
if [ "$state" = running ]; then
	echo "ok - rebuild-yield: $layout: the reads ran inside the rate-0 rebuild"
else
	echo "not ok - rebuild-yield: $layout: the rate-0 rebuild was '${state:-?}' after the reads (they must run inside it)"
	fails=$((fails + 1))
fi
if [ -n "$before" ] && [ -n "$during" ] && [ "$before" -gt 0 ] &&
	awk -v a="$before" -v b="$during" -v x="$max_x" 'BEGIN { exit !(b <= x * a) }'; then
	echo "ok - rebuild-yield: $layout: QD1 read mean during the rate-0 rebuild $during us, before $before us (at most ${max_x}x)"
else
	echo "not ok - rebuild-yield: $layout: QD1 read mean during the rate-0 rebuild ${during:-?} us, before ${before:-?} us (more than ${max_x}x: the rebuild does not yield)"
	fails=$((fails + 1))
fi
if [ -n "$mibs" ] && awk -v m="$mibs" -v l="$min_mibs" 'BEGIN { exit !(m >= l) }'; then
	echo "ok - rebuild-yield: $layout: the rebuild copied $mibs MiB/s under the QD1 jobs (at least $min_mibs)"
else
	echo "not ok - rebuild-yield: $layout: the rebuild copied ${mibs:-?} MiB/s under the QD1 jobs (under $min_mibs: starved)"
	fails=$((fails + 1))
fi
[ "$fails" -eq 0 ]
