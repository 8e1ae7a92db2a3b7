#!/bin/bash
# vmtest: beside
# hddsim reproduces its disk model's service times (issue 9): runs
# tests/hddsim/guest-hddsim.sh in a guest, with hddsim.ko in it.
#
# A host test (scripts/vmtest runs tests/vm/host-*.sh on the host) because
# scripts/vm-run carries dm-eagerwrite.ko but no test modules: this builds
# hddsim.ko (make -C tests/hddsim) and hands vm-run a copy of the guest
# script that unpacks the module (base64, debug info stripped) to
# /tmp/hddsim.ko and points HDDSIM_KO at it.  vm-run's options come from
# the guest script's "# vm-run:" header, which asks for exact time
# (--icount: the model within 2%, Documentation/hddsim.rst); arguments are
# passed to vm-run (e.g. --timeout 1200, or --no-icount for plain TCG and
# the noise disk's 20%).  The guest's "ok"/"not ok" lines reach stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/tests/hddsim/guest-hddsim.sh
out=$top/build/hddsim
mkdir -p "$out" || exit 1
if ! make -s -C "$top/tests/hddsim" >"$out/make.log" 2>&1; then
	cat "$out/make.log"
	echo "not ok - hddsim: build tests/hddsim/hddsim.ko"
	exit 1
fi
strip --strip-debug -o "$out/hddsim.ko" "$top/tests/hddsim/hddsim.ko" || exit 1
{
	head -n 2 "$src"
	echo "base64 -d >/tmp/hddsim.ko <<'EOF_HDDSIM_KO'"
	base64 "$out/hddsim.ko"
	echo 'EOF_HDDSIM_KO'
	echo 'export HDDSIM_KO=/tmp/hddsim.ko'
	tail -n +3 "$src"
} >"$out/guest-hddsim.sh"
# shellcheck disable=SC2046 # the header holds several options
"$top/scripts/vm-run" $(sed -n 's/^# vm-run: //p' "$src") "$@" \
	-- "$out/guest-hddsim.sh"
rc=$?
case $rc in
0) ;;
124|125|126) echo "not ok - hddsim: vm-run exited $rc (timeout, kernel problem or harness error)" ;;
esac
exit "$rc"
