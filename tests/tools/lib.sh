# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are for the scripts that source this
# Shared by the tests/tools/test-*.sh scripts (sourced, never run): where
# the tools are, a scratch folder removed on exit, and the case helpers.
#   ok NAME            print "ok - NAME"
#   nok NAME [LINE...] print "not ok - NAME" and the lines as comments;
#                      sets failed=1 (the script exits 1 at its end)
#   run WANT_RC CMD... run CMD, stdout in $out, stderr in $err, rc in $rc;
#                      true when the exit status is WANT_RC
#   flip FILE OFFSET   xor one byte with 0x5a (twice puts it back)
top=${EW_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${EW_BIN:-$top/build/userspace/bin}
ewctl=$bin/ewctl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
out="" err="" rc=0

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "#   $l"; done; failed=1; }

run() {
	local want=$1; shift
	out=$("$@" 2>"$tmp/err"); rc=$?
	err=$(cat "$tmp/err")
	[ "$rc" -eq "$want" ]
}

flip() {
	python3 - "$1" "$2" <<'PY'
import sys
p, off = sys.argv[1], int(sys.argv[2])
with open(p, 'r+b') as f:
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0x5a]))
PY
}
