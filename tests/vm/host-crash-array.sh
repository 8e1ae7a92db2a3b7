#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Power cuts on eagerwrite arrays in make check (issues 5, 8 and 18): 8
# cuts in 9 boots, one for each of raid10, ddm, ew x sync 1, 2, then ew
# sync 1 and raid10 sync 2 with the metadata on the members ("+m"), each
# after 1.5 to 5 s of ewprobe write; issue 8's rate check on the ew sync 1
# cut.  Run on the HOST; see tests/vm/ewprobe-powercut.sh (make
# check-crash does 54).
exec "$(dirname "$0")/ewprobe-powercut.sh" --cuts 8 --min-delay 1.5 \
	--max-delay 5 --rate \
	--configs "raid10:1 ddm:1 ew:1 raid10:2 ddm:2 ew:2 ew:1+m raid10:2+m" "$@"
