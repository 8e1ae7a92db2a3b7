#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The control of crash-ewprobe-wcache.sh (issue 19), make check-crash: the
# same power cuts with caches that ignore flushes and FUA (ignore_flushes
# 1), one cut for each of raid10, ddm, ew x sync 1, 2 (6 cuts, 7 boots):
# each verification must find acknowledged writes lost (ewprobe verify
# exits 1), so the suite can see a missing flush.  Run on the HOST; see
# tests/vm/ewprobe-powercut.sh.  Env: EW_CRASH_SEED.
exec "$(dirname "$0")/ewprobe-powercut.sh" --wcache 1024 --cuts 6 \
	--configs "raid10:1@lie ddm:1@lie ew:1@lie raid10:2@lie ddm:2@lie ew:2@lie" \
	--min-delay 1 --max-delay 6 ${EW_CRASH_SEED:+--seed "$EW_CRASH_SEED"} "$@"
