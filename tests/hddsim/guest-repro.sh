#!/bin/bash
# vm-run: --disks 0 --meta-size 16M --mem 1024 --timeout 1200 --icount
#
# Guest half of tests/vm/host-icount-repro.sh (issue 14): a short run on
# one hddsim disk whose figures must come out the same in every boot
# under vm-run --icount.  One full-size hddsim disk (the core's default
# Cheetah 9LP) over brd, its phase from SEED (tests/vm/hddsim-lib.sh),
# then two fio jobs with randseed SEED:
#
#   randread  4 KiB random reads, psync, 200 of them (offsets seeded)
#   tpcc      tests/fio/tpcc.fio for 4 s at 40 arrivals/s: Poisson
#             arrivals (seeded by randseed too), reads and O_SYNC writes
#             at queue depth up to 32 on one FIFO arm, busy about 40% of
#             the time.  (At 100/s the arm is saturated, and a queue that
#             never drains turned the few ns by which boots differed
#             before the fixed guest clock into whole revolutions: 4%
#             between two boots.)
#
# Each job sends to $EW_CHANNEL one line "REPRO <job> <figures>": fio's
# I/O count, mean and every percentile of completion latency (ns) per
# direction, and hddsim's request count and mean modelled service.  The
# host compares two boots' lines.  Arguments: SEED [unseeded] ("unseeded":
# a random phase and fio's randrepeat=0, the state before issue 14; the
# host test adds vm-run --host-clock: the control that must make it
# fail).
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
seed=${1:-1} mode=${2:-seeded}
SECTORS=17783240		# the default model's capacity
ROTATION_NS=5973121		# the default model's revolution
chan=${EW_CHANNEL:-/dev/null}
fiodir=${EW_FIO:-/ew/tests/fio}
work=/tmp/repro
mkdir -p "$work"
# shellcheck source=tests/vm/hddsim-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/hddsim-lib.sh"

say() { echo "# repro: $*"; }
send() { printf '%s\n' "$*" >"$chan"; echo "$*" | cut -c1-200; }

modprobe dm-mod 2>/dev/null
insmod /ew/modules/hddsim.ko || { say "no /ew/modules/hddsim.ko"; exit 1; }
modprobe brd rd_nr=1 rd_size=$((SECTORS / 2)) max_part=0 || { say "no brd"; exit 1; }
opt="2 phase_ns $(hddsim_phase "$seed" 0 "$ROTATION_NS")"
seedopt=(--randseed="$seed")
if [ "$mode" = unseeded ]; then
	opt="" seedopt=(--randrepeat=0)
fi
dmsetup create hdd0 --table "0 $SECTORS hddsim /dev/ram0 $opt" || exit 1
say "seed $seed ($mode), exact time: ${EW_ICOUNT:-no}; $(dmsetup table hdd0)"

# figures JOB JSON: one line from fio's JSON and hddsim's counters.
figures() {
	jq -c '.jobs[0] | [(.read, .write) | {n: .total_ios, mean: .clat_ns.mean,
		p: .clat_ns.percentile}]' "$2" | tr -d '\n'
	dmsetup status hdd0 | awk '{ printf " hddsim requests %s mean %s\n", $7, $8 }'
}

dmsetup message hdd0 0 reset
if fio --name=randread --filename=/dev/mapper/hdd0 --rw=randread --bs=4k \
		--direct=1 --ioengine=psync --number_ios=200 "${seedopt[@]}" \
		--size=$((SECTORS * 512)) --eta=never --output-format=json \
		>"$work/randread.json" 2>"$work/randread.err"; then
	send "REPRO randread $(figures randread "$work/randread.json")"
else
	say "randread: fio failed: $(head -c 200 "$work/randread.err")"
fi

dmsetup message hdd0 0 reset
job=$fiodir/tpcc.fio
if [ "$mode" = unseeded ]; then
	sed 's/^randseed=.*/randrepeat=0/' "$job" >"$work/tpcc.fio"
	job=$work/tpcc.fio
fi
if DEV=/dev/mapper/hdd0 SIZE=1G RUNTIME=4 READ_IOPS=26 WRITE_IOPS=14 SEED=$seed \
		fio --eta=never --output-format=json "$job" \
		>"$work/tpcc.json" 2>"$work/tpcc.err"; then
	send "REPRO tpcc $(figures tpcc "$work/tpcc.json")"
else
	say "tpcc: fio failed: $(head -c 200 "$work/tpcc.err")"
fi
dmsetup remove hdd0
send "REPRO-END"
exit 0
