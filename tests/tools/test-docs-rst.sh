#!/bin/bash
# Every Documentation/*.rst parses as reStructuredText without a warning
# (docutils, report level 2): a malformed table or a short title line
# renders as an error block in the page and in the man pages
# (scripts/mkman), and slipped in twice unseen (benchmarks.rst, a row's
# text across the column margin; hddsim.rst, a key wider than its
# column).  Sphinx's :doc: and :ref: roles (index.rst) are taken as
# plain text.  One case per file, and a control: a table with text in
# the column margin must be refused.  Prints "ok - NAME" / "not ok -
# NAME"; exits 1 if any failed.
set -u
# shellcheck source=tests/tools/lib.sh
. "$(dirname "$0")/lib.sh"

# check FILE: docutils' messages of level 2 and up, one a line; exit 1
# when there is one.  Debian's python3 (python3-docutils), as rst2man.
# shellcheck disable=SC2317 # called through run
check() {
	/usr/bin/python3 - "$1" <<'PY'
import sys
import docutils.core
from docutils.parsers.rst import roles

for name in ("doc", "ref"):
    roles.register_generic_role(name, roles.nodes.literal)
msgs = []

class Stream:
    def write(self, s):
        if s.strip():
            msgs.append(s.strip().splitlines()[0])

    def flush(self):
        pass

src = open(sys.argv[1], encoding="utf-8").read()
docutils.core.publish_doctree(
    src, source_path=sys.argv[1],
    settings_overrides={"report_level": 2, "halt_level": 5,
                        "warning_stream": Stream()})
for m in msgs:
    print(m)
sys.exit(1 if msgs else 0)
PY
}

if ! /usr/bin/python3 -c 'import docutils' 2>/dev/null; then
	nok "docutils importable by /usr/bin/python3 (python3-docutils)"
	exit 1
fi
printf '%s\n' "Title" "=====" "" "=====  =====" "a      b" \
	"a long row  c" "=====  =====" >"$tmp/bad.rst"
if run 1 check "$tmp/bad.rst" && grep -q "Malformed table" <<<"$out"; then
	ok "control: a table row across the column margin is refused"
else
	nok "control: a table row across the column margin is refused" "rc $rc: $out"
fi
n=0
for f in "$top"/Documentation/*.rst; do
	n=$((n + 1))
	name=${f#"$top"/}
	if run 0 check "$f"; then
		ok "$name parses without a warning"
	else
		mapfile -t lines < <(printf '%s\n' "$out" | head -n 3)
		nok "$name parses without a warning" "${lines[@]}"
	fi
done
if [ "$n" -ge 10 ]; then
	ok "$n documents checked"
else
	nok "Documentation/*.rst found" "only $n"
fi
exit "$failed"
