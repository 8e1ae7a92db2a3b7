#!/bin/bash
# Every tool example of README.md and Documentation/*.rst (issue 17: the
# docs say what is true today).  tests/tools/doc-examples.py lists them;
# each is run here on scratch files standing in for its devices:
# /dev/vdz, /dev/vd[a-h] (8 members), /dev/loop36 and /dev/loop{0..35}
# become files of 1 GiB, sparse, and for ewctl check/examine they hold an
# array that `ewctl debug-mkmeta` wrote.  It must exit as the document
# says (0 unless a "$ echo $?" follows) and, where the document shows
# the output after "$ command", print exactly that.  Examples that need
# a live array or a device (ewctl assemble/status, ewprobe) cannot run
# on the host: each must be run by the guest test named below, which
# the check greps for the same command words.  Prints "ok - NAME" /
# "not ok - NAME"; exits 1 if any failed.
set -u
# shellcheck source=tests/tools/lib.sh
. "$(dirname "$0")/lib.sh"

ewsim=$bin/ewsim
ewprobe=$bin/ewprobe
list=$(python3 "$top/tests/tools/doc-examples.py" "$top") ||
	{ nok "doc-examples.py lists the examples"; exit 1; }
n=$(grep -c . <<<"$list")
if [ "$n" -ge 10 ]; then ok "the docs hold $n tool examples"
else nok "the docs hold tool examples" "only $n found"; fi

# The stand-in devices: an ew array of 8 members, mirrors 2.
d=$tmp/dev
mkdir -p "$d"
for x in a b c d e f g h; do truncate -s 1G "$d/vd$x"; done
truncate -s 64M "$d/vdz"
for i in $(seq 0 36); do truncate -s 1G "$d/loop$i"; done
if run 0 "$ewctl" debug-mkmeta --layout ew --writes 50 --len 64M "$d/vdz" \
	"$d"/vd[a-h]; then ok "stand-in array written"
else nok "stand-in array written" "$err"; fi

# Which guest or host test runs the examples that need a live array.
mirrored() {
	case "$1" in
	"ewctl assemble"*|"ewctl status"*) echo tests/vm/test-assemble.sh ;;
	"ewprobe listen"*) echo tests/tools/test-ewprobe.sh ;;
	"ewprobe write"*|"ewprobe verify"*) echo tests/vm/test-ewprobe.sh ;;
	*) return 1 ;;
	esac
}

while IFS=$'\t' read -r where cmd shown status; do
	[ -n "$where" ] || continue
	name="$where: $cmd"
	if t=$(mirrored "$cmd"); then
		# the tool by name or by the test's variable for it
		set -- $cmd
		if grep -qE -- "(\b$1|\\\$$1\"?) +$2\b" "$top/$t"; then
			ok "$name (run by $t)"
		else
			nok "$name" "$t does not run '$1 $2'"
		fi
		continue
	fi
	# a loop's variables (benchmarks.rst: "for L in raid10 ddm ew; for
	# S in 1 2"): one value each
	cmd=${cmd//\$L/ew}
	cmd=${cmd//\$S/2}
	case $cmd in
	*'$'*) nok "$name" "a shell variable this test does not know"; continue ;;
	esac
	# the stand-ins: vd[a-h] and loop{0..35} expand in the shell as in
	# the document; m, a and b are files that need not exist
	c=${cmd//\/dev\//$d\/}
	c=${c#ewctl }
	c=${c#ewsim }
	tool=$ewctl
	case $cmd in ewsim*) tool=$ewsim ;; ewprobe*) tool=$ewprobe ;; esac
	want=${status:-0}
	# shellcheck disable=SC2086 # the document's words, split as it shows
	got=$(cd "$tmp" && eval "\"$tool\" $c" 2>&1); rc=$?
	got=${got//$d\//\/dev\/}
	if [ "$rc" -ne "$want" ]; then
		nok "$name" "exit $rc, the document says $want" "$(head -n 3 <<<"$got")"
		continue
	fi
	if [ -n "$shown" ]; then
		exp=$(tr '\037' '\n' <<<"$shown")
		# the document indents and aligns, and its lines are read
		# stripped: compare word by word, each line's indent dropped
		got=$(sed 's/^[ \t]*//' <<<"$got")
		if [ "$(tr -s ' \t' ' ' <<<"$got")" = "$(tr -s ' \t' ' ' <<<"$exp")" ]; then
			ok "$name (output as shown)"
		else
			nok "$name" "output differs from the document:" \
				"$(diff <(tr -s ' \t' ' ' <<<"$exp") <(tr -s ' \t' ' ' <<<"$got") | head -n 8)"
		fi
	else
		ok "$name"
	fi
done <<<"$list"
exit $failed
