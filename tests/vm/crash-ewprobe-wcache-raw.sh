#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Power cuts on one raw member behind a dm-ewfault write cache (issue 19),
# make check-crash: ewprobe write on the dm-ewfault device itself, no
# array.  4 cuts in 5 boots: raw (flushes honoured: nothing acknowledged
# may be lost) and raw@lie (flushes ignored: acknowledged writes must be
# lost) in turn; each verified on the host (disk00.img) and in the next
# boot.  Run on the HOST; see tests/vm/ewprobe-powercut.sh.
# Env: EW_CRASH_RAW_CUTS (default 4).
exec "$(dirname "$0")/ewprobe-powercut.sh" --wcache 1024 --configs "raw raw@lie" \
	--cuts "${EW_CRASH_RAW_CUTS:-4}" --min-delay 1 --max-delay 6 "$@"
