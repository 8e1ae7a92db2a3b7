#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Power cuts on eagerwrite arrays (issues 5 and 8), make check-crash: 54
# cuts in 55 boots, 9 for each of raid10, ddm, ew x sync 1, 2 in turn, each
# after 1 to 15 s of ewprobe write (random, from a printed seed); every
# acknowledged write must be found after reassembly from the array's
# metadata, and no block may hold foreign data.  With issue 8's rate check
# on the first ew cut.  Run on the HOST; see tests/vm/ewprobe-powercut.sh.
# Env: EW_CRASH_CUTS (default 54), EW_CRASH_SEED.  About 40 s per boot.
exec "$(dirname "$0")/ewprobe-powercut.sh" --cuts "${EW_CRASH_CUTS:-54}" \
	--min-delay 1 --max-delay 15 ${EW_CRASH_SEED:+--seed "$EW_CRASH_SEED"} --rate "$@"
