#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Power cuts on a raw virtio member (issue 8), make check-crash: the
# harness's and ewprobe's own check, with no device-mapper in the way.
# 3 cuts in 4 boots; each cut verified on the host (disk00.img, with a
# control: a copy with the last acknowledged block zeroed must be reported
# lost) and in the next boot.  Run on the HOST; see
# tests/vm/ewprobe-powercut.sh.  Env: EW_CRASH_RAW_CUTS (default 3).
exec "$(dirname "$0")/ewprobe-powercut.sh" --configs raw \
	--cuts "${EW_CRASH_RAW_CUTS:-3}" --min-delay 1 --max-delay 10 "$@"
