#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Power cuts that lose the disks' volatile write caches, in make check
# (issue 19): every member and the metadata device is a dm-ewfault with a
# write cache of 1024 blocks (tests/ewfault); the cut loses what each had
# not written back (some writes torn).  4 cuts in 5 boots, with the
# control: raid10:1, ddm:2, ew:2, each after 1.5 to 4 s of ewprobe
# write, 0 lost acknowledged writes required; then ew:1@lie, the same with
# flushes and FUA ignored by the caches, whose verification must find
# acknowledged writes lost.  Run on the HOST; see
# tests/vm/ewprobe-powercut.sh (make check-crash runs 54 cuts).
exec "$(dirname "$0")/ewprobe-powercut.sh" --wcache 1024 \
	--configs "raid10:1 ddm:2 ew:2 ew:1@lie" --cuts 4 \
	--min-delay 1.5 --max-delay 4 "$@"
