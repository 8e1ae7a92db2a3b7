#!/bin/bash
# vm-run: --disks 10 --disk-size 96M --meta-size 32M --mem 2048 --timeout 1200
#
# Rebuild rate and foreground latency during a rebuild (issue 6), in a
# guest: scripts/vm-run --disks 10 --disk-size 96M --meta-size 32M
# --mem 2048 -- tests/vm/bench-rebuild.sh [LAYOUT].  Not a test (no
# test- prefix: vmtest does not run it); it prints figures.
#
# Eight members (dm-linear ewm0..7, so one can become dm-error), two
# spares.  The array (LAYOUT, default ew, sync 2) is filled over 64 MiB;
# member 1 fails; 4 KiB random reads at queue depth 1 for 10 s give the
# degraded latency; the first spare replaces member 1 at rebuild_rate 0
# while the same reads run through the rebuild: the rebuild's MiB/s
# under that load and the latency during it.  Then member 2 fails and the
# second spare replaces it with no foreground load: the rebuild's MiB/s
# alone.  MiB/s = replicas copied (status field 12, background writes
# that became current) x block size / wall time until the rebuild is idle.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"
layout=${1:-ew}
DEV=ewb
FILL=64M
load_target || { notok "module loaded"; finish; }
# shellcheck disable=SC2206
D=($EW_DISKS)
SZ=$(blockdev --getsz "${D[0]}")
for i in 0 1 2 3 4 5 6 7; do dmsetup create "ewm$i" --table "0 $SZ linear ${D[$i]} 0"; done
dmsetup create ewsp1 --table "0 $SZ linear ${D[8]} 0"
dmsetup create ewsp2 --table "0 $SZ linear ${D[9]} 0"
members="" ; for i in 0 1 2 3 4 5 6 7; do members="$members /dev/mapper/ewm$i"; done
# shellcheck disable=SC2086
table=$(ewctl table --layout "$layout" --sync 2 --metadata "$EW_META" $members)
dmsetup create $DEV --table "$table" || { notok "create"; finish; }
fio --name=fill --filename=/dev/mapper/$DEV --rw=write --bs=256k --size=$FILL \
	--direct=1 --ioengine=libaio --iodepth=8 --eta=never >/dev/null 2>&1
sync
state_of() { status_field $DEV 7 | cut -c$(($1 + 1)); }
wait_idle() {	# seconds until the rebuild is idle and all members A
	local t0=$SECONDS
	while [ "$(status_field $DEV 27)" != idle ] || [ -n "$(status_field $DEV 7 | tr -d A)" ]; do
		sleep 0.2
		[ $((SECONDS - t0)) -gt 900 ] && return 1
	done
}
fail() {	# fail I: member I to dm-error, then failed
	dmsetup reload "ewm$1" --table "0 $SZ error" && dmsetup resume "ewm$1"
	# errors come with I/O: read the volume until the member is failed
	while [ "$(state_of "$1")" != D ]; do
		dd if=/dev/mapper/$DEV of=/dev/null bs=1M count=64 iflag=direct status=none 2>/dev/null
	done
}
lat() {	# lat SECONDS: "mean_us p99_us iops" of 4k QD1 random reads
	fio --name=lat --filename=/dev/mapper/$DEV --rw=randread --bs=4k --size=$FILL \
		--direct=1 --ioengine=psync --time_based --runtime="$1" \
		--output-format=json --output=/tmp/lat.json >/dev/null 2>&1
	jq -r '.jobs[0].read | "\(.clat_ns.mean / 1000 | floor) \(.clat_ns.percentile["99.000000"] / 1000 | floor) \(.iops | floor)"' /tmp/lat.json
}
replace() {	# replace I SPARE: the table with SPARE at member I, resumed
	table=${table/\/dev\/mapper\/ewm$1 /\/dev\/mapper\/$2 }
	dmsetup reload $DEV --table "$table" && dmsetup resume $DEV
}

fail 1
dmsetup message $DEV 0 rebuild_rate 0
note "$layout: degraded: $(dmsetup status $DEV)"
note "$layout: latency before the rebuild (mean_us p99_us iops): $(lat 10)"
bg0=$(status_field $DEV 12)
t0=$(date +%s.%N)
replace 1 ewsp1
lat 600 >/tmp/lat-during &
lpid=$!
wait_idle
t1=$(date +%s.%N)
kill $lpid 2>/dev/null; wait $lpid 2>/dev/null
bg1=$(status_field $DEV 12)
bs=$(dmsetup table $DEV | grep -o 'block_size [0-9]*' | cut -d' ' -f2); bs=${bs:-4096}
note "$layout: rebuild with 4k QD1 reads running: $((bg1 - bg0)) replicas in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s: $(awk -v n=$((bg1 - bg0)) -v bs="$bs" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", n * bs / 1048576 / (b - a) }') MiB/s"
note "$layout: after: $(dmsetup status $DEV)"

# the latency during a rebuild: a rebuild of member 2 at a rate that
# lasts, measured over 10 s
fail 2
dmsetup message $DEV 0 rebuild_rate 1
note "$layout: latency degraded again (mean_us p99_us iops): $(lat 10)"
replace 2 ewsp2
sleep 1
note "$layout: latency during a rebuild at 1 MiB/s (mean_us p99_us iops): $(lat 10)"
note "$layout: $(dmsetup status $DEV)"
dmsetup message $DEV 0 rebuild_rate 0
wait_idle
# the rate alone: member 5 fails and is rebuilt, with no foreground
# I/O, onto member 1's old disk (out of the array since its replacement)
dmsetup reload ewm1 --table "0 $SZ linear ${D[1]} 0" && dmsetup resume ewm1
dd if=/dev/zero of=/dev/mapper/ewm1 bs=4096 count=1 oflag=direct status=none
fail 5
bg0=$(status_field $DEV 12)
t0=$(date +%s.%N)
replace 5 ewm1
wait_idle
t1=$(date +%s.%N)
bg1=$(status_field $DEV 12)
note "$layout: rebuild alone, unthrottled: $((bg1 - bg0)) replicas in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s: $(awk -v n=$((bg1 - bg0)) -v bs="$bs" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", n * bs / 1048576 / (b - a) }') MiB/s"
dmsetup remove $DEV
ok "$layout: figures printed"
finish
