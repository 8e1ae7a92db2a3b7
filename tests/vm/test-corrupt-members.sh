#!/bin/bash
# vm-run: --icount --disks 4 --disk-size 16M --meta-size 8M --timeout 900
# vmtest: beside
#
# test-corrupt.sh with the metadata on the members ("-", issue 18 item 4):
# the same single-byte damage in one copy of the metadata (loads, the
# block read from the other copy) and in both (refused, or the older
# superblock slot), and the same negative control.  See test-corrupt.sh.
exec bash "$EW_TESTS/vm/test-corrupt.sh" members "$@"
