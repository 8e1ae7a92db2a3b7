#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Power-cut round trip of ewprobe on an eagerwrite array (issue 8): the
# raw test's machinery with --array.  Run on the HOST; boots twice.
exec "$(dirname "$0")/crash-ewprobe-raw.sh" --array "$@"
