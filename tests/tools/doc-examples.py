#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Lists the tool examples of README.md and Documentation/*.rst (issue 17:
every command in the docs is run by a test).  One line a command, tab
separated: file:line, the command (continuation lines joined), the
output the document shows after it (lines joined by \\x1f; empty when it
shows none) and the exit status it shows ("" when none).  A shown
output is the lines after a "$ command" up to the next "$ " line or a
blank line.  Synopsis lines ([options], <words>, ...) are left out.
Usage: doc-examples.py TOP"""
import glob
import re
import sys

TOOLS = (r'(ewctl (table|geometry|check|dump|examine|assemble|status|'
         r'monitor|calibrate)|ewsim (run|sweep|selftest|bound)|'
         r'ewprobe (rate|write|verify|listen))')
SYNOPSIS = re.compile(r'\[(-|layout|COMMAND|run)|\.\.\.|<[a-z]|\| |'
                      r'\b(N|SIZE|DEV|FILE|PROG|NAME|R1,R2)\b')


def main(top):
    files = [top + '/README.md'] + sorted(glob.glob(top + '/Documentation/*.rst'))
    for f in files:
        lines = open(f, encoding='utf-8').read().split('\n')
        i = 0
        while i < len(lines):
            m = re.match(r'^\s+(\$ )?(' + TOOLS + r'\b.*)$', lines[i])
            if not m:
                i += 1
                continue
            start = i + 1
            prompt = m.group(1) is not None
            cmd = m.group(2)
            while cmd.endswith('\\') and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1].rstrip() + ' ' + lines[i].strip()
            cmd = re.sub(r'\s+#.*$', '', cmd).strip()
            i += 1
            shown, status = [], ''
            if prompt:
                while i < len(lines) and lines[i].strip() and \
                        not lines[i].lstrip().startswith('$ '):
                    shown.append(lines[i].strip())
                    i += 1
                if i < len(lines) and lines[i].strip() == '$ echo $?':
                    status = lines[i + 1].strip()
                    i += 2
            if SYNOPSIS.search(cmd):
                continue
            print('%s:%d\t%s\t%s\t%s' % (f[len(top) + 1:], start, cmd,
                                         '\x1f'.join(shown), status))


main(sys.argv[1])
