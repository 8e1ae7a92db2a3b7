#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Power cuts on eagerwrite arrays in make check (issues 5 and 8): 6 cuts in
# 7 boots, one for each of raid10, ddm, ew x sync 1, 2, each after 1.5 to
# 5 s of ewprobe write; issue 8's rate check on the ew sync 1 cut.  Run on
# the HOST; see tests/vm/ewprobe-powercut.sh (make check-crash does 54).
exec "$(dirname "$0")/ewprobe-powercut.sh" --cuts 6 --min-delay 1.5 \
	--max-delay 5 --rate "$@"
