#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Power cuts on eagerwrite arrays whose disks lose their volatile write
# caches (issue 19), make check-crash: 54 cuts in 55 boots, 9 for each of
# raid10, ddm, ew x sync 1, 2, each after 1 to 15 s of ewprobe write;
# every member and the metadata device is a dm-ewfault with a write cache
# of 1024 blocks, cut (a random subset written back, some writes torn)
# just before the kill.  Every acknowledged write must be found after
# reassembly, no block may hold foreign data.  Run on the HOST; see
# tests/vm/ewprobe-powercut.sh.  Env: EW_CRASH_CUTS (default 54),
# EW_CRASH_SEED.  Its control is crash-ewprobe-wcache-lie.sh.
exec "$(dirname "$0")/ewprobe-powercut.sh" --wcache 1024 --cuts "${EW_CRASH_CUTS:-54}" \
	--min-delay 1 --max-delay 15 ${EW_CRASH_SEED:+--seed "$EW_CRASH_SEED"} "$@"
