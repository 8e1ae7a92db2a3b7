#!/bin/bash
# Runs tests/vm/test-hddsim.sh in a guest with hddsim.ko in it, whether or
# not scripts/vm-run carries test modules: builds the module, then hands
# vm-run a copy of the guest script that unpacks the module (base64, debug
# info stripped) to /tmp/hddsim.ko and points HDDSIM_KO at it.  The vm-run
# options come from the script's "# vm-run:" header; extra arguments are
# passed to vm-run (e.g. --timeout 1200).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/tests/vm/test-hddsim.sh
out=$top/build/hddsim
make -s -C "$top/tests/hddsim"
mkdir -p "$out"
strip --strip-debug -o "$out/hddsim.ko" "$top/tests/hddsim/hddsim.ko"
{
	head -n 2 "$src"
	echo "base64 -d >/tmp/hddsim.ko <<'EOF_HDDSIM_KO'"
	base64 "$out/hddsim.ko"
	echo 'EOF_HDDSIM_KO'
	echo 'export HDDSIM_KO=/tmp/hddsim.ko'
	tail -n +3 "$src"
} >"$out/test-hddsim.sh"
# shellcheck disable=SC2046
exec "$top/scripts/vm-run" $(sed -n 's/^# vm-run: //p' "$src") "$@" \
	-- "$out/test-hddsim.sh"
