#!/bin/bash
# What a suspend, a remove and a create cost against a whole checkpoint,
# with the metadata on an emulated rotating disk.  An ew array (mirrors
# 2, dilution 2, sync 2; LAYOUT ddm or raid10 for those, their default
# options, sync 2) over the 8 member disks vm-run gives (sparse,
# 4 GiB each: an 8 GiB volume, a map of about 4,700 metadata blocks),
# its metadata on an hddsim disk of 96 MiB (10,000 RPM, the default
# Cheetah model) over a RAM disk.  ROUNDS times: 4 MiB written and
# flushed, then timed: dmsetup suspend, resume, the checkpoint message
# (the whole map: what every suspend wrote before 2026-12-05, the same
# code), remove, create (the load, replaying what the suspend left),
# and a create after a checkpoint and a remove (nothing to replay).
# Figures, not a test.  Run by
#   scripts/vm-run --icount --disks 8 --disk-size 4G --mem 1536 \
#       --timeout 900 -- scripts/vm/bench-suspend.sh [ROUNDS [LAYOUT]]
# (needs tests/hddsim/hddsim.ko: make -C tests/hddsim).  ROUNDS default
# 3, LAYOUT ew.  Documentation/benchmarks.rst, "Suspend without a checkpoint".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
rounds=${1:-3}
layout=${2:-ew}
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/target-lib.sh"
# shellcheck source=tests/vm/hddsim-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/hddsim-lib.sh"
ROT=5973121 MIB=96
load_target || { echo "# no dm-eagerwrite"; exit 1; }
hddsim_disks 1 1 $MIB 1 $ROT || exit 1
# shellcheck disable=SC2086 # the member devices
table=$(ewctl table --layout "$layout" --sync 2 --metadata /dev/mapper/hdd0 $EW_DISKS) || exit 1
dmsetup create ew --table "$table" || exit 1
len=$(blockdev --getsize64 /dev/mapper/ew)
ckb=$(ewctl dump --json /dev/mapper/hdd0 | jq -r .ckpt_blocks)
echo "# suspend bench: $layout over $EW_NR_DISKS members, $((len >> 20)) MiB, checkpoint $ckb metadata blocks, metadata on hddsim ($MIB MiB, rotation $ROT ns), icount shift: ${EW_ICOUNT:-none}"
dd if=/dev/urandom of=/dev/mapper/ew bs=1M count=32 oflag=direct conv=fsync status=none || exit 1
# the first checkpoint of the map (a fresh array has none yet)
dmsetup message ew 0 checkpoint || exit 1
timed() {	# timed COMMAND...: milliseconds it took, or exit
	local t0=${EPOCHREALTIME/./}
	"$@" || { echo "# failed: $*" >&2; exit 1; }
	echo $(((${EPOCHREALTIME/./} - t0) / 1000))
}
for r in $(seq "$rounds"); do
	dd if=/dev/urandom of=/dev/mapper/ew bs=1M seek=$((64 + 4 * r)) count=4 \
		oflag=direct conv=fsync status=none || exit 1
	s=$(timed dmsetup suspend ew)
	jl=$(ewctl dump --json /dev/mapper/hdd0 | jq -r .journal_length)
	u=$(timed dmsetup resume ew)
	dd if=/dev/urandom of=/dev/mapper/ew bs=1M seek=$((128 + 4 * r)) count=4 \
		oflag=direct conv=fsync status=none || exit 1
	c=$(timed dmsetup message ew 0 checkpoint)
	dd if=/dev/urandom of=/dev/mapper/ew bs=1M seek=$((192 + 4 * r)) count=4 \
		oflag=direct conv=fsync status=none || exit 1
	m=$(timed dmsetup remove ew)
	jr=$(ewctl dump --json /dev/mapper/hdd0 | jq -r .journal_length)
	l=$(timed dmsetup create ew --table "$table")
	# the same load with nothing to replay: a checkpoint, then remove
	dmsetup message ew 0 checkpoint || exit 1
	dmsetup remove ew || exit 1
	l0=$(timed dmsetup create ew --table "$table")
	echo "ROUND $r: suspend $s ms (journal left $jl blocks), resume $u ms, checkpoint $c ms, remove $m ms (journal left $jr), create $l ms (after a checkpoint: $l0 ms); checkpoint / suspend $(awk -v c="$c" -v s="$s" 'BEGIN { printf "%.1f", c / (s ? s : 1) }')"
done
dmsetup remove ew
