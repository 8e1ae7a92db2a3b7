#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The single-byte flip loop of tests/tools/test-ewctl-corrupt.sh.

    flips.py --file F --base B [--also A] --want RC --pattern PAT
             --positions "P..." [--base-out FILE] [--last-out FILE] -- CMD...

For each position P: xor the byte at B+P of F with 0x5a (and the one at
A+P too with --also), run CMD, put the byte(s) back.  A flip is right
when CMD exits RC and its stdout contains PAT (a fixed string), or, with
PAT "=", is exactly the stdout saved in --base-out (trailing newlines
aside, as bash's $(...) keeps it); a sanitizer report on stderr makes it
wrong whatever the exit status.  Prints one line per wrong flip,
"+P: rc=R: " and the first two lines of its stdout that do not end in
": ok", each followed by "|"; saves the last run's stdout in --last-out.
Exit 0 when every flip ran (right or wrong), 2 on a usage or I/O error.

One process for a whole region instead of the shell's five or six per
flip (od, printf, dd twice, cat, grep): process creation, not ewctl,
was most of the script's wall time.
"""
import argparse
import subprocess
import sys

SANITIZER = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def xor_byte(f, off):
    f.seek(off)
    b = f.read(1)
    if len(b) != 1:
        raise OSError("no byte at offset %d" % off)
    f.seek(off)
    f.write(bytes([b[0] ^ 0x5A]))
    f.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", required=True)
    ap.add_argument("--base", type=int, required=True)
    ap.add_argument("--also", type=int)
    ap.add_argument("--want", type=int, required=True)
    ap.add_argument("--pattern", required=True)
    ap.add_argument("--positions", required=True)
    ap.add_argument("--base-out")
    ap.add_argument("--last-out")
    ap.add_argument("cmd", nargs="+")
    a = ap.parse_args()
    base_out = None
    if a.pattern == "=":
        if not a.base_out:
            ap.error('--pattern "=" needs --base-out')
        with open(a.base_out, encoding="utf-8", errors="replace") as f:
            base_out = f.read().rstrip("\n")
    offsets = [a.base]
    if a.also is not None:
        offsets.append(a.also)
    out = ""
    with open(a.file, "r+b", buffering=0) as f:
        for p in (int(x) for x in a.positions.split()):
            for o in offsets:
                xor_byte(f, o + p)
            try:
                r = subprocess.run(a.cmd, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, check=False)
            finally:
                for o in offsets:
                    xor_byte(f, o + p)
            out = r.stdout.decode("utf-8", "replace")
            err = r.stderr.decode("utf-8", "replace")
            good = r.returncode == a.want
            if good and base_out is not None:
                good = out.rstrip("\n") == base_out
            elif good:
                good = a.pattern in out
            if any(s in err for s in SANITIZER):
                good = False
            if not good:
                lines = [l for l in out.rstrip("\n").split("\n")
                         if not l.endswith(": ok")][:2]
                san = [l for l in err.split("\n") if any(s in l for s in SANITIZER)][:1]
                print("+%d: rc=%d: %s" % (p, r.returncode,
                                          "".join(l + "|" for l in lines + san)))
    if a.last_out:
        with open(a.last_out, "w", encoding="utf-8") as f:
            f.write(out)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except OSError as e:
        print("flips.py: %s" % e, file=sys.stderr)
        sys.exit(2)
