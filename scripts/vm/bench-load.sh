#!/bin/bash
# What loading a full array costs: an ew array (mirrors 2, dilution 2,
# sync 2) of LEN over the member disks vm-run gives, every block written
# once (dd, 1 MiB direct writes), a checkpoint, then ROUNDS times a
# timed dmsetup create and a remove.  The constructor's own line ("clean
# shutdown, replayed ... T ms") is the load's figure.  The metadata
# device is vm-run's (a RAM disk): this is the CPU of the load (map
# decode, map check, free maps), not the metadata disk's transfer
# (bench-suspend.sh has that).  The members are RAM-backed: LEN at most
# a third of the guest's memory.  Figures, not a test.  Run by
#   scripts/vm-run --icount --disks 8 --disk-size 4G --mem 2048 \
#       --timeout 900 -- scripts/vm/bench-load.sh [LEN [ROUNDS]]
# LEN default 384M, ROUNDS 3.  Documentation/benchmarks.rst, "Loading an
# array".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
len=${1:-384M}
rounds=${2:-3}
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/target-lib.sh"
load_target || { echo "# no dm-eagerwrite"; exit 1; }
# shellcheck disable=SC2086 # the member devices
table=$(ewctl table --layout ew --sync 2 --len "$len" --metadata "$EW_META" $EW_DISKS) || exit 1
dmsetup create ew --table "$table" || exit 1
mib=$(($(blockdev --getsize64 /dev/mapper/ew) >> 20))
t0=${EPOCHREALTIME/./}
dd if=/dev/urandom of=/dev/mapper/ew bs=1M count="$mib" oflag=direct conv=fsync \
	status=none || { echo "# the fill failed"; exit 1; }
echo "# load bench: ew over $EW_NR_DISKS members, $len written in $(((${EPOCHREALTIME/./} - t0) / 1000)) ms, icount shift: ${EW_ICOUNT:-none}"
dmsetup message ew 0 checkpoint || exit 1
dmsetup remove ew || exit 1
for r in $(seq "$rounds"); do
	t0=${EPOCHREALTIME/./}
	dmsetup create ew --table "$table" || exit 1
	c=$(((${EPOCHREALTIME/./} - t0) / 1000))
	l=$(dmesg | sed -n 's/.*eagerwrite: .*shutdown, .*, \([0-9]*\) ms$/\1/p' | tail -n 1)
	echo "ROUND $r: create $c ms, of which the load $l ms"
	dmsetup remove ew || exit 1
done
