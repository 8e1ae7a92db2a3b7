#!/bin/bash
# The guest tests' kernel-log marks (tests/vm/target-lib.sh: klog_mark,
# klog_since, klog_has, klog_clean), on the host, with the log a file
# that a dmesg function prints and the mark written to that file
# (EW_KMSG).  What came before the mark is out of sight, the last mark
# counts, a ring full of lines (the count of lines no longer grows: what
# hid every later line until 2026-12-04) still shows what follows the
# mark, and a mark that rolled out of the ring shows the whole ring and
# makes klog_clean fail.  Prints "ok - NAME" / "not ok - NAME".
set -u
# shellcheck source=tests/tools/lib.sh
. "$(dirname "$0")/lib.sh"

log=$tmp/kmsg
export EW_KMSG=$log
# in a subshell: target-lib has case helpers of its own (ok, notok)
guest() {
	(
		# shellcheck source=tests/vm/target-lib.sh
		. "$top/tests/vm/target-lib.sh"
		dmesg() { cat "$log"; }
		# a ring of RING lines: lines past it roll out at the top
		say() {
			printf '[ 1.0] %s\n' "$@" >>"$log"
			if [ -n "${RING:-}" ]; then
				tail -n "$RING" "$log" >"$log.t" && mv "$log.t" "$log"
			fi
		}
		eval "$1"
	)
}

: >"$log"
if guest 'say "before: BUG: old"; klog_mark; say "after: one"
	  klog_has "after: one" && ! klog_has "before: BUG" && klog_clean'; then
	ok "klog: after the mark seen, before it not"
else
	nok "klog: after the mark seen, before it not" "$(cat "$log")"
fi

: >"$log"
if guest 'klog_mark; say "first: x"; klog_mark; say "second: y"
	  klog_has "second: y" && ! klog_has "first: x"'; then
	ok "klog: the last mark counts"
else
	nok "klog: the last mark counts" "$(cat "$log")"
fi

: >"$log"
if guest 'klog_mark; say "a: WARNING: something"; ! klog_clean'; then
	ok "klog: a WARNING after the mark is not clean"
else
	nok "klog: a WARNING after the mark is not clean" "$(cat "$log")"
fi

# the ring is full before the mark: the old count of lines hid this
: >"$log"
if guest 'RING=20; for i in $(seq 1 30); do say "fill $i"; done
	  klog_mark; say "late: z"; klog_has "late: z" && klog_clean'; then
	ok "klog: a full ring shows what follows the mark"
else
	nok "klog: a full ring shows what follows the mark" "$(cat "$log")"
fi

: >"$log"
if guest 'RING=5; klog_mark; for i in $(seq 1 8); do say "after $i"; done
	  klog_has "after 8" && ! klog_clean &&
	  klog_since | tail -n 1 | grep -qF "$klog_wrapped"'; then
	ok "klog: a mark rolled out shows the ring and is not clean"
else
	nok "klog: a mark rolled out shows the ring and is not clean" "$(cat "$log")"
fi

: >"$log"
if guest 'say "early: q"; klog_mark_all; say "late: r"
	  klog_has "early: q" && klog_has "late: r" && klog_clean'; then
	ok "klog: klog_mark_all shows the whole log"
else
	nok "klog: klog_mark_all shows the whole log" "$(cat "$log")"
fi
exit "$failed"
