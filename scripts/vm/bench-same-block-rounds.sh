#!/bin/bash
# The same-block rate round after round in one boot: ROUNDS rounds of
# ewprobe rate --same-block (3 s each, one after the other, each from
# where the last left the arms) on an ew array of four hddsim members of
# 128 MiB (sync 2, 64 MiB written first, each member's true phase and
# period given to the predictor), with the arm's cylinder on each
# member after the round.  Figures, not a test.  Run by
#   scripts/vm-run --icount --disks 0 --mem 1536 --timeout 900 -- \
#       scripts/vm/bench-same-block-rounds.sh [SEED [ROUNDS]]
# (needs tests/hddsim/hddsim.ko: make -C tests/hddsim).  Phases from SEED
# (default 3), ROUNDS default 10.  Documentation/benchmarks.rst,
# "Scarcity": the rate fell into two modes before placement counted a
# cylinder's scarcity.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
seed=${1:-3} rounds=${2:-10}
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/target-lib.sh"
# shellcheck source=tests/vm/hddsim-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/hddsim-lib.sh"
ROT=5973121 MIB=128
load_target || { echo "# no dm-eagerwrite"; exit 1; }
hddsim_disks 4 6 $MIB "$seed" $ROT || exit 1
all="/dev/mapper/hdd0 /dev/mapper/hdd1 /dev/mapper/hdd2 /dev/mapper/hdd3"
# shellcheck disable=SC2086 # four devices
table=$(ewctl table --layout ew --sync 2 --len 96M --metadata /dev/ram5 $all)
dmsetup create ew --table "$table" || exit 1
for i in 0 1 2 3; do
	dmsetup message ew 0 disk_param "$i" rotation_ns $ROT &&
		dmsetup message ew 0 disk_param "$i" phase_ns "${HDD_PHASE[i]}" || exit 1
done
dd if=/dev/urandom of=/dev/mapper/ew bs=1M count=64 oflag=direct status=none
echo "# same-block rounds: 4 hddsim members, ew sync 2, seed $seed, icount shift: ${EW_ICOUNT:-none}"
for r in $(seq "$rounds"); do
	dmsetup message ew 0 reset_counters
	rate=$(ewprobe rate --same-block --seconds 3 --method direct-fua --json --force /dev/mapper/ew |
		jq -r .ops_per_sec)
	arms=""
	for i in 0 1 2 3; do
		# hddsim's status: the arm's cylinder and head first
		arms="$arms $(dmsetup status "hdd$i" | awk '{ printf "c%s", $4 }')"
	done
	echo "ROUND $r: $rate writes/s, status field 15 $(status_field ew 15) ns, arms$arms"
done
