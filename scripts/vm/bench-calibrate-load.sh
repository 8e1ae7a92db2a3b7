#!/bin/bash
# ewctl calibrate --array beside the array's own I/O: each member's phase
# error against hddsim's truth (in turns) when the array is idle, under
# a same-block O_DSYNC write load (ewprobe rate, started a second before
# the calibration) and during a rebuild (member 1 replaced by a spare,
# rebuild_rate 1 MiB/s), with the load's rate and the predictor's error
# (status field 15) around it.  Figures, not a test.  Run by
#   scripts/vm-run --icount --disks 0 --mem 1536 --timeout 600 -- \
#       scripts/vm/bench-calibrate-load.sh [COUNT [SEED]]
# (needs tests/hddsim/hddsim.ko: make -C tests/hddsim).  Four hddsim
# members of 128 MiB and a spare (phases from SEED, default 3), ew sync
# 2, 64 MiB written; COUNT reads a calibration (default 200).
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
count=${1:-200} seed=${2:-3}
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/target-lib.sh"
# shellcheck source=tests/vm/hddsim-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/hddsim-lib.sh"
ROT=5973121 MIB=128
load_target || { echo "# no dm-eagerwrite"; exit 1; }
hddsim_disks 5 6 $MIB "$seed" $ROT || exit 1
all="/dev/mapper/hdd0 /dev/mapper/hdd1 /dev/mapper/hdd2 /dev/mapper/hdd3"
# shellcheck disable=SC2086 # four devices
table=$(ewctl table --layout ew --sync 2 --len 96M --metadata /dev/ram5 $all)
dmsetup create ew --table "$table" || exit 1
dd if=/dev/urandom of=/dev/mapper/ew bs=1M count=64 oflag=direct status=none
echo "# calibrate beside the array's I/O: 4 hddsim members, ew sync 2, $count reads, seed $seed, icount shift: ${EW_ICOUNT:-none}"
# cal WHEN: ewctl calibrate --array, each member's phase error in turns
cal() {
	local l d m n pt e
	ewctl calibrate --array ew --count "$count" --json 2>/tmp/c.err >/tmp/c.json ||
		echo "# $1: calibrate failed: $(head -c 200 /tmp/c.err)"
	while read -r l; do
		d=$(echo "$l" | jq -r .device) m=$(echo "$l" | jq -r .member)
		n=$(cat "/sys/block/${d#/dev/}/dm/name")
		pt=$(dmsetup table "$n" | awk '{ for (i = 1; i < NF; i++) if ($i == "phase_ns") print $(i + 1) }')
		e=$(echo "$l" | jq -r --argjson pt "$pt" --argjson rt $ROT '((.phase_ns - $pt) / $rt) as $d | $d - ($d + 0.5 | floor)')
		printf 'CAL %-12s member %s (%s) in window %s/%s, phase error %+.5f turn\n' \
			"$1" "$m" "$n" "$(echo "$l" | jq .in_window)" "$(echo "$l" | jq .reads)" "$e"
	done </tmp/c.json
}
# probe WHEN SECONDS: same-block O_DSYNC writes from reset counters
probe() {
	dmsetup message ew 0 reset_counters
	ewprobe rate --same-block --seconds "$2" --method direct-fua --json --force /dev/mapper/ew |
		jq -M -r --arg w "$1" '"LOAD \($w): \(.ops_per_sec) writes/s, mean \(.latency_us.mean) us"'
	echo "LOAD $1: status field 15 $(status_field ew 15) ns"
}
cal idle
probe alone 4
( probe "beside the calibration" 6 >/tmp/bg.out ) &
sleep 1
cal "under load"
wait
cat /tmp/bg.out
dmsetup remove ew
dmsetup create ew --table "${table/\/dev\/mapper\/hdd1 /- }" || exit 1
dmsetup message ew 0 rebuild_rate 1
dmsetup reload ew --table "${table/\/dev\/mapper\/hdd1 /\/dev\/mapper\/hdd4 }" && dmsetup resume ew
cal rebuild
echo "# rebuild progress $(status_field ew 20), states $(status_field ew 7)"
dmsetup remove ew
