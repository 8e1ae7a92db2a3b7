#!/bin/bash
# vm-run: --disks 6 --disk-size 192M --meta-size 64M --mem 2048 --timeout 3000
#
# Rebuild rate and foreground latency during a rebuild (issue 17 item 6),
# in a guest.  Not a test (no test- prefix: vmtest does not run it); it
# prints figures ("# " lines and one "RESULT" line per measurement).
#
#   scripts/vm-run [--icount] --disks 6 --disk-size 192M --meta-size 64M \
#       --mem 2048 --timeout 3000 -- tests/vm/bench-rebuild.sh \
#       [LAYOUT [KIND [FILL_MIB [SEED [LAT_RATE [LAT_S [WINDOW [FILL_RW]]]]]]]]
#
# LAYOUT: ew (default), raid10 or ddm, mirrors 2, sync 2.  KIND, what the
# members are: "vm" (the harness's disks: loop over tmpfs), "null"
# (null_blk, memory-backed: no mechanics) or "hddsim" (tests/hddsim's
# emulated 10,000 RPM disk over brd, phases from SEED; run it in exact
# time, vm-run --icount).  Six devices of 192 MiB: four members
# (dm-linear ewm0..3, so that one can become dm-error) and two spares.
# WINDOW: the module parameter rebuild_sort_window (ew's sort window,
# entries; "-" or none: the module's).  FILL_RW: how step 2 fills,
# "write" (default: sequential, 256 KiB) or "randwrite" (every 4 KiB
# block once, in random order, as a database would leave it: eager
# writing then scatters logical neighbours).
#
# 1. The replacement's sequential write rate: fio sequential writes of
#    512 KiB (the rebuild's run size), iodepth 4, 48 MiB, to each spare
#    before it is used.
# 2. The array is created (4 members, 96 MiB per member region at most)
#    and FILL_MIB (default 128) written sequentially.
# 3. Member 1 fails.  Foreground latency before the rebuild: fio 4 KiB
#    random reads, then random writes, at queue depth 1 (psync, direct),
#    LAT_S (default 8) seconds each, over the filled region; then the
#    head predictor's mean error over those jobs and the placement lead
#    (status fields 15, reset before the jobs, and 36).  On hddsim every member's predictor is given its disk's
#    period and phase (disk_param, as ewctl calibrate --apply sends
#    them; a replacement gets its own after the resume).
# 4. The first spare replaces member 1 at rebuild_rate LAT_RATE (default
#    4 MiB/s, so that the rebuild outlasts the jobs): the same two jobs
#    during the rebuild (the rebuild state is printed after them:
#    "running" means they ran inside it), and the rebuild's MiB/s while
#    they ran (status field 12's replicas copied, times the block size,
#    over the jobs' guest time), then the rate is lifted and the rebuild
#    completes.
# 5. Member 2 fails and the second spare replaces it at rebuild_rate 0
#    with no foreground I/O: the idle rebuild's MiB/s (replicas copied,
#    status field 12, times the block size, over the time from the kernel
#    log's "replaced by" line to its "rebuilt" line) and its ratio to the
#    spare's sequential write rate; then what it read and wrote, from the
#    kernel log's "rebuild reads/sweep/writes" lines (Documentation/
#    eagerwrite.rst, Rebuild): per source member the blocks read, gap
#    blocks, requests, the span swept, the live density over it and the
#    time to read that span at the spare's rate; and the time to write
#    the whole member region (status field 6) at the spare's rate, and
#    its ratio to the rebuild's time (1.0: a member rebuilt in the time
#    its region takes to write sequentially).
# 6. Member 3 fails and member 1's first device (dm-linear again, its
#    first MiB zeroed) replaces it at rebuild_rate 0: the same two jobs
#    during that unthrottled rebuild, and its MiB/s while they ran.  The
#    first spare's sequential write rate stands for that device's (the
#    same kind of device).  Then the predictor's mean error since step
#    3 and the lead (fields 15 and 36) once the rebuild is done, and the
#    write job once more on the array made whole.
#
# On null_blk, before the array: a bare copy of 48 MiB from member 0's
# device to the second spare (dd, 512 KiB, direct), the CPU cost of a
# copy to set the rebuild's against ("copy_mibs").
#
# RESULT lines: seqwrite_mibs SP1 SP2; copy_mibs MIBS (null); before_read, before_write,
# during_read, during_write (at LAT_RATE), during0_read, during0_write
# (at rate 0): "MEAN_US P99_US IOPS STATE" (STATE: the rebuild's state
# after the job, "running" when it ran inside the rebuild);
# during_rebuild_mibs and during0_rebuild_mibs: "MIBS"; idle_rebuild_mibs
# "MIBS RATIO"; io_read "member M blocks B gaps G requests Q span S
# skipped K back O density D sweep_s T", io_write "member M blocks B
# requests Q", idle_rebuild_region "REGION_BLOCKS SECONDS RATIO",
# idle_rebuild_homes "HOMES SECONDS" (ddm: home replicas rebuilt to free
# blocks and moved home afterwards; seconds from the replacement until
# the last was home); io_disk "hddN requests Q seek_ms S rot_ms R
# xfer_ms X busy B" (hddsim: each disk's requests during the idle
# rebuild, their seek with the controller's overhead, rotational wait and
# transfer in ms in all, and the time busy over the rebuild's);
# predictor and predictor_after "ERROR_NS LEAD_NS"; after_write as
# before_write.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"
# shellcheck source=tests/vm/hddsim-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/hddsim-lib.sh"
layout=${1:-ew} kind=${2:-vm} fill=${3:-128} seed=${4:-1} lat_rate=${5:-4} LAT_S=${6:-8}
window=${7:--}
[ "$window" = - ] && window=
fill_rw=${8:-write}
case $fill_rw in
write) fill_bs=256k ;;
randwrite) fill_bs=4k ;;
*) notok "FILL_RW must be write or randwrite, not '$fill_rw'"; finish ;;
esac
DEV=ewb
NDEV=6
rotation_ns=5973121
load_target || { notok "module loaded"; finish; }
if [ -n "$window" ]; then
	echo "$window" >/sys/module/dm_eagerwrite/parameters/rebuild_sort_window ||
		{ notok "rebuild_sort_window $window"; finish; }
	note "rebuild_sort_window $window"
fi
mode="plain TCG"
[ -n "${EW_ICOUNT:-}" ] && mode="exact time (icount $EW_ICOUNT)"
note "bench-rebuild: layout $layout, members $kind, fill $fill MiB ($fill_rw), seed $seed, $mode"

# the six base devices
case $kind in
vm)
	# shellcheck disable=SC2206
	B=($EW_DISKS) ;;
null)
	modprobe null_blk nr_devices=$NDEV memory_backed=1 gb=1 ||
		{ notok "null_blk loaded"; finish; }
	B=(); for i in $(seq 0 $((NDEV - 1))); do B+=("/dev/nullb$i"); done ;;
hddsim)
	insmod /ew/modules/hddsim.ko || { notok "hddsim.ko loaded (make -C tests/hddsim)"; finish; }
	modprobe brd rd_nr=$NDEV rd_size=$((256 * 1024)) max_part=0 ||
		{ notok "brd loaded"; finish; }
	B=() PH=()
	for i in $(seq 0 $((NDEV - 1))); do
		PH[i]=$(hddsim_phase "$seed" "$i" "$rotation_ns")
		dmsetup create "hdd$i" --table "0 $((256 * 2048)) hddsim /dev/ram$i 4 rotation_ns $rotation_ns phase_ns ${PH[i]}" ||
			{ notok "hddsim disk $i"; finish; }
		B+=("/dev/mapper/hdd$i")
	done ;;
*)
	notok "KIND is vm, null or hddsim, not $kind"; finish ;;
esac
SZ=$((192 * 2048))
for i in 0 1 2 3; do dmsetup create "ewm$i" --table "0 $SZ linear ${B[$i]} 0"; done
dmsetup create ewsp1 --table "0 $SZ linear ${B[4]} 0"
dmsetup create ewsp2 --table "0 $SZ linear ${B[5]} 0"

result() { echo "RESULT $layout $kind $*"; }
seqw() {	# seqw DEV: MiB/s of sequential 512 KiB writes, iodepth 4
	fio --name=seq --filename="$1" --rw=write --bs=512k --size=48M \
		--offset=1M --direct=1 --ioengine=libaio --iodepth=4 \
		--output-format=json --output=/tmp/seq.json >/dev/null 2>&1
	jq -r '.jobs[0].write.bw / 1024 | . * 10 | floor / 10' /tmp/seq.json
}
lat() {	# lat randread|randwrite: "mean_us p99_us iops", 4k QD1
	fio --name=lat --filename=/dev/mapper/$DEV --rw="$1" --bs=4k \
		--size=$((fill))M --direct=1 --ioengine=psync --time_based \
		--runtime=$LAT_S --randseed="$seed" --output-format=json \
		--output=/tmp/lat.json >/dev/null 2>&1
	jq -r --arg rw "${1#rand}" '.jobs[0][$rw] | "\(.clat_ns.mean / 1000 | floor) \(.clat_ns.percentile["99.000000"] / 1000 | floor) \(.iops | floor)"' /tmp/lat.json
}
state_of() { status_field $DEV 7 | cut -c$(($1 + 1)); }
# the guest's clock, to 10 ms: busybox's date prints whole seconds
# (%N unsupported), which made the bare copy's time 0 s (copy_mibs
# empty) and the MiB/s over 3 s jobs off by up to a third
now_s() { local up _; read -r up _ </proc/uptime; echo "$up"; }
mibs_since() {	# mibs_since BG0 T0: MiB/s of replicas copied since then
	awk -v n=$(($(status_field $DEV 12) - $1)) -v bs="$bs" -v a="$2" -v b="$(now_s)" \
		'BEGIN { printf "%.1f", n * bs / 1048576 / (b - a) }'
}
wait_idle() {	# the rebuild idle, all members A, nothing pending (field 8)
	local t0=$SECONDS
	until drained_now $DEV; do
		sleep 0.2
		[ $((SECONDS - t0)) -gt 1800 ] && return 1
	done
	return 0
}
# hdd_snap FILE: per hddsim disk, "NAME REQUESTS SEEK_MS ROT_MS XFER_MS"
# (status: the means over all requests, times their count), sorted by
# name; empty unless the members are hddsim disks
hdd_snap() {
	: >"$1"
	[ "$kind" = hddsim ] || return 0
	for d in $(seq 0 $((NDEV - 1))); do
		dmsetup status "hdd$d" | awk -v d="hdd$d" \
			'{ printf "%s %d %.3f %.3f %.3f\n", d, $7, $7 * $11 / 1e6, $7 * $12 / 1e6, $7 * $13 / 1e6 }'
	done | sort >"$1"
}
fail() {	# fail I: member I to dm-error, then failed
	local round=0
	dmsetup reload "ewm$1" --table "0 $SZ error" && dmsetup resume "ewm$1"
	# errors come with I/O: read the volume until the member is failed.
	# Reads may never pick the member (null_blk: no head to be near, and
	# it holds the second replica of its blocks; the array stayed "A"
	# for ever), so from the fourth round on the first 4 MiB are also
	# rewritten with their own data: writes go to every replica.
	while [ "$(state_of "$1")" != D ]; do
		dd if=/dev/mapper/$DEV of=/dev/null bs=1M count=64 iflag=direct status=none 2>/dev/null
		round=$((round + 1))
		[ "$round" -lt 4 ] ||
			dd if=/dev/mapper/$DEV of=/dev/mapper/$DEV bs=1M count=4 iflag=direct \
				oflag=direct conv=notrunc status=none 2>/dev/null
	done
}
# disk_param I BASE: on hddsim, member I's predictor gets base device
# BASE's rotation and phase (hddsim's truth, what ewctl calibrate --apply
# would learn; the bench-hddsim's "truth" mode): without them the
# predictor guesses phase 0 and its eager writes wait for the platter.
disk_param() {
	[ "$kind" = hddsim ] || return 0
	if ! { dmsetup message $DEV 0 disk_param "$1" rotation_ns "$rotation_ns" &&
		dmsetup message $DEV 0 disk_param "$1" phase_ns "${PH[$2]}"; }; then
		note "disk_param $1 (base $2) refused"
	fi
}
replace() {	# replace I SPARE BASE: the table with SPARE (over BASE) at member I, resumed
	table=${table/\/dev\/mapper\/ewm$1 /\/dev\/mapper\/$2 }
	dmsetup reload $DEV --table "$table" && dmsetup resume $DEV
	disk_param "$1" "$3"
}
# klog_time PATTERN: the kernel's timestamp (s) of the last line with it
klog_time() {
	dmesg | grep -F -- "$1" | tail -n 1 | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'
}

# 1. the spares' sequential write rate, then their first MiB zeroed
sp1=$(seqw /dev/mapper/ewsp1)
sp2=$(seqw /dev/mapper/ewsp2)
# on null_blk, where the rebuild's rate is its CPU cost: a bare copy of
# the same size from a member to the second spare (dd, 512 KiB, direct:
# every byte copied twice by null_blk, as in a rebuild), guest clock
if [ "$kind" = null ]; then
	t0=$(now_s)
	dd if=/dev/mapper/ewm0 of=/dev/mapper/ewsp2 bs=512k count=96 skip=2 seek=2 \
		iflag=direct oflag=direct status=none
	cp2=$(awk -v a="$t0" -v b="$(now_s)" 'BEGIN { printf "%.1f", 48 / (b - a) }')
	note "a bare copy, member to spare (dd 512k direct, 48 MiB): $cp2 MiB/s"
	result copy_mibs "$cp2"
fi
for s in ewsp1 ewsp2; do
	dd if=/dev/zero of=/dev/mapper/$s bs=1M count=1 oflag=direct status=none
done
note "spares' sequential write rate (512k, iodepth 4): $sp1 / $sp2 MiB/s"
result seqwrite_mibs "$sp1" "$sp2"

# 2. the array, filled
table=$(ewctl table --layout "$layout" --sync 2 --metadata "$EW_META" \
	/dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3)
dmsetup create $DEV --table "$table" || { notok "create"; finish; }
for i in 0 1 2 3; do disk_param $i $i; done
fio --name=fill --filename=/dev/mapper/$DEV --rw="$fill_rw" --bs=$fill_bs --size=${fill}M \
	--randseed="$seed" --direct=1 --ioengine=libaio --iodepth=8 --eta=never >/dev/null 2>&1
sync
wait_idle	# sync 2: nothing delayed on mirrors 2, but ddm's home copies
bs=$(dmsetup table $DEV | grep -o 'block_size [0-9]*' | cut -d' ' -f2); bs=${bs:-4096}

# 3. degraded, before the rebuild
fail 1
# field 15 from here: the QD1 jobs alone, not the fill's queued I/O
dmsetup message $DEV 0 reset_counters
r0=$(lat randread) w0=$(lat randwrite)
note "latency before the rebuild (degraded), mean_us p99_us iops: reads $r0, writes $w0"
result before_read "$r0"
result before_write "$w0"
# the head predictor's state after the QD1 jobs (status fields 15, the
# mean error of their predictions, and 36)
pe=$(status_field $DEV 15) pl=$(status_field $DEV 36)
note "predictor mean error $pe ns, placement lead $pl ns"
result predictor "$pe" "$pl"

# 4. during a rebuild at LAT_RATE
dmsetup message $DEV 0 rebuild_rate "$lat_rate"
rate=$(status_field $DEV 28)
bgd=$(status_field $DEV 12) td=$(now_s)
replace 1 ewsp1 4
r1=$(lat randread) st1=$(status_field $DEV 27) p1=$(status_field $DEV 26)
w1=$(lat randwrite) st2=$(status_field $DEV 27) p2=$(status_field $DEV 26)
dmibs=$(mibs_since "$bgd" "$td")
note "latency during the rebuild at rebuild_rate $rate: reads $r1 (rebuild $st1 at $p1), writes $w1 (rebuild $st2 at $p2); the rebuild copied $dmibs MiB/s meanwhile"
result during_read "$r1" "$st1"
result during_write "$w1" "$st2"
result during_rebuild_mibs "$dmibs"
ratios() {	# ratios BEFORE DURING: mean and p99 ratios
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x); split(b, y);
		printf "mean x%.2f p99 x%.2f iops x%.2f", y[1] / x[1], y[2] / x[2], y[3] / x[3] }'
}
note "during/before: reads $(ratios "$r0" "$r1"); writes $(ratios "$w0" "$w1")"
dmsetup message $DEV 0 rebuild_rate 0
wait_idle || note "rebuild 1 not idle: $(dmsetup status $DEV)"

# 5. the idle rebuild, unthrottled
fail 2
dmsetup message $DEV 0 rebuild_rate 0
bg0=$(status_field $DEV 12) t0=$(now_s)
hdd_snap /tmp/hdd0
replace 2 ewsp2 5
# on hddsim, the disks' own account when the member is rebuilt (ddm's
# moves home come after): polled every 50 ms
if [ "$kind" = hddsim ]; then
	for _ in $(seq 36000); do [ "$(state_of 2)" = A ] && break; sleep 0.05; done
	hdd_snap /tmp/hdd1
fi
wait_idle || note "rebuild 2 not idle: $(dmsetup status $DEV)"
bg1=$(status_field $DEV 12) t1=$(now_s)
ts=$(klog_time "member 2 replaced by") te=$(klog_time "rebuilt")
# ddm: home replicas written to free blocks, then moved home after the
# member was rebuilt (field 12 counts the moves too; the rate is the
# rebuild's, to "rebuilt")
homes=$(dmesg | sed -n '/member 2 replaced by/,$p' |
	sed -n 's/^.*rebuild wrote \([0-9]*\) home replicas to free blocks.*$/\1/p' | tail -n 1)
homes=${homes:-0}
n=$((bg1 - bg0 - homes))
[ "$homes" -gt 0 ] && note "idle rebuild: $homes home replicas written to free blocks, moved home after it; every copy at home $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s after the replacement"
result idle_rebuild_homes "$homes" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
mibs=$(awk -v n=$n -v bs="$bs" -v a="$ts" -v b="$te" 'BEGIN { printf "%.1f", n * bs / 1048576 / (b - a) }')
ratio=$(awk -v r="$mibs" -v s="$sp2" 'BEGIN { printf "%.2f", r / s }')
note "idle rebuild at rebuild_rate 0: $n replicas ($((n * bs / 1048576)) MiB) in $(awk -v a="$ts" -v b="$te" 'BEGIN { printf "%.3f", b - a }') s: $mibs MiB/s, ${ratio} of the spare's sequential write rate ($sp2 MiB/s)"
result idle_rebuild_mibs "$mibs" "$ratio"
[ -n "${cp2:-}" ] && note "idle rebuild against the bare copy: $(awk -v r="$mibs" -v c="$cp2" 'BEGIN { printf "%.2f", r / c }')"
# what it read and wrote (the kernel log's "rebuild reads/writes" lines
# after the replacement): per source member the blocks read with the gap
# blocks, the span swept and the live density over it, and the time to
# sweep that span at the spare's rate; then the rebuild's time against the
# time to write the whole member region (status field 6) at that rate
region=$(status_field $DEV 6)
dmesg | sed -n '/member 2 replaced by/,$p' | grep -a 'rebuild \(reads\|sweep\|writes\):' |
	sed 's/^.*eagerwrite: //; s/[(),:]//g' > /tmp/rbio.txt
# "member M rebuild reads B blocks G gaps in Q requests", "member M rebuild
# sweep blocks LO-HI K skipped O out of order", "member M rebuild writes B
# blocks in Q requests"
awk -v bs="$bs" -v s="$sp2" '
	$4 == "reads" { b[$2] = $5; g[$2] = $7; q[$2] = $10 }
	$4 == "sweep" { split($6, x, "-"); sp = x[2] - x[1] + 1
		printf "io_read member %s blocks %d gaps %d requests %d span %d skipped %d back %d density %.2f sweep_s %.3f\n",
			$2, b[$2], g[$2], q[$2], sp, $7, $9, (b[$2] - g[$2]) / sp, sp * bs / 1048576 / s }
	$4 == "writes" { printf "io_write member %s blocks %d requests %d\n", $2, $5, $8 }' \
	/tmp/rbio.txt | while read -r line; do result "$line"; done
note "idle rebuild's I/O (density: blocks copied from the member over the span read; sweep_s: that span at the spare's rate): $(tr '\n' ';' < /tmp/rbio.txt)"
whole=$(awk -v r="$region" -v bs="$bs" -v s="$sp2" -v a="$ts" -v b="$te" \
	'BEGIN { w = r * bs / 1048576 / s; printf "%.3f %.2f", w, w / (b - a) }')
note "idle rebuild: the whole member region ($region blocks) written sequentially at the spare's rate takes ${whole% *} s: ${whole#* } of the rebuild's time"
# shellcheck disable=SC2086
result idle_rebuild_region "$region" $whole
# hddsim: each disk's requests, seek (with the controller's overhead),
# rotational wait and transfer during the idle rebuild, and the time it
# was busy over the rebuild's (1.00: the rebuild's bottleneck)
if [ -s /tmp/hdd1 ]; then
	awk -v t="$(awk -v a="$ts" -v b="$te" 'BEGIN { print b - a }')" '
		NR == FNR { n0[$1] = $2; s0[$1] = $3; r0[$1] = $4; x0[$1] = $5; next }
		{ n = $2 - n0[$1]; if (n <= 0) next
		  s = $3 - s0[$1]; r = $4 - r0[$1]; x = $5 - x0[$1]
		  printf "io_disk %s requests %d seek_ms %.0f rot_ms %.0f xfer_ms %.0f busy %.2f\n",
			$1, n, s, r, x, (s + r + x) / 1000 / t }' /tmp/hdd0 /tmp/hdd1 |
		while read -r line; do result "$line"; done
	note "idle rebuild on the disks (io_disk lines; hdd0-3: members 0-3, hdd4 and hdd5: the spares, hdd5 member 2's; busy: seek, rotation and transfer over the rebuild's time)"
fi

# 6. during an unthrottled rebuild
fail 3
dmsetup reload ewm1 --table "0 $SZ linear ${B[1]} 0" && dmsetup resume ewm1
dd if=/dev/zero of=/dev/mapper/ewm1 bs=1M count=1 oflag=direct status=none
dmsetup message $DEV 0 rebuild_rate 0
bgd=$(status_field $DEV 12) td=$(now_s)
replace 3 ewm1 1
r2=$(lat randread) st3=$(status_field $DEV 27) p3=$(status_field $DEV 26)
w2=$(lat randwrite) st4=$(status_field $DEV 27) p4=$(status_field $DEV 26)
dmibs0=$(mibs_since "$bgd" "$td")
note "latency during the rebuild at rebuild_rate 0: reads $r2 (rebuild $st3 at $p3), writes $w2 (rebuild $st4 at $p4); the rebuild copied $dmibs0 MiB/s meanwhile, $(awk -v r="$dmibs0" -v s="$sp1" 'BEGIN { printf "%.2f", r / s }') of the spare's sequential write rate"
note "during (rate 0)/before: reads $(ratios "$r0" "$r2"); writes $(ratios "$w0" "$w2")"
result during0_read "$r2" "$st3"
result during0_write "$w2" "$st4"
result during0_rebuild_mibs "$dmibs0"
wait_idle || note "rebuild 3 not idle: $(dmsetup status $DEV)"
# the predictor after the rebuilds' QD1 jobs: the lead must not have
# learned from writes queued behind rebuild runs
pe=$(status_field $DEV 15) pl=$(status_field $DEV 36)
note "predictor after the rebuilds: mean error $pe ns, placement lead $pl ns"
result predictor_after "$pe" "$pl"
# what the next writes pay for it: the same QD1 write job, rebuilt
w3=$(lat randwrite)
note "latency after the rebuilds: writes $w3; after/before: writes $(ratios "$w0" "$w3")"
result after_write "$w3"
note "after: $(dmsetup status $DEV)"
dmsetup remove $DEV
ok "$layout $kind: figures printed"
finish
