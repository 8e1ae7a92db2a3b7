#!/bin/bash
# Guest side of scripts/bench-null (issue 3's benchmark): 4 KiB random
# reads and writes at queue depth 1 and 32 on null_blk members, for each
# configuration in turn on the same members in this one boot.  Not a
# test: it prints figures.  Each fio run's JSON, cut down to what the host
# reads (iops and clat_ns of read and write), goes to $EW_CHANNEL as one
# line "BENCH <config> <job> <json>"; the host (scripts/bench-null) makes
# the table.
#
# Arguments: MEMBERS RUNTIME_S REGION_MIB SEED JOBS CONFIGS...  (SEED:
# fio's randseed, the same offsets for every configuration; JOBS: comma
# separated, of randread-qd1 randwrite-qd1 randread-qd32 randwrite-qd32
# (fio, libaio, direct), dsync-qd1 (fio randwrite, O_DIRECT|O_DSYNC,
# QD1), sameblock (ewprobe rate --same-block --method direct-fua: one
# block rewritten and made durable, ops/s) and idle-fsync (20 fsyncs of
# the idle device after the others, each dd if=/dev/null conv=fsync:
# the device I/Os they cause on the members and the metadata device,
# and their time with the process start included), or "all")
# Configurations: raw (member 0 itself, no dm), linear (dm-linear over
# member 0), dmraid (dm-raid
# raid10, 2 copies near, 4 MiB metadata slices, nosync), raid10, ddm, ew1,
# ew2, raid10s2, ddm2 (eagerwrite; ew1/ew2 = ew with sync 1/2; raid10 and
# ddm are sync 1, raid10s2 and ddm2 sync 2), md (md raid10 with mdadm,
# skipped when mdadm is not in the guest).  Each array's region is
# written once before its jobs (eagerwrite would read unwritten blocks as
# zeros without touching a member).  Each eagerwrite configuration starts
# from a wiped metadata device and member labels (wipe_array): the
# target never formats over the array another layout left there.
# Latency is fio's lat_ns (submission to completion): on null_blk a bio
# completes inside its submission, so clat_ns would leave out the
# target's whole cost.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
n=${1:-8} runtime=${2:-10} region_mib=${3:-1024} seed=${4:-1} jobs=${5:-all}
shift 5
[ "$jobs" != all ] ||
	jobs=randread-qd1,randwrite-qd1,randread-qd32,randwrite-qd32,dsync-qd1,sameblock,idle-fsync
configs=${*:-linear dmraid raid10 ddm ew1}
len=$((region_mib * 2048))		# sectors
chan=${EW_CHANNEL:-/dev/null}
out=/tmp/bench
mkdir -p "$out"

say() { echo "# bench-null: $*"; }
# wipe_array
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/target-lib.sh"
send() { printf '%s\n' "$*" >"$chan"; echo "$*" | cut -c1-200; }

modprobe dm-mod 2>/dev/null
modprobe dm-raid 2>/dev/null
modprobe raid10 2>/dev/null
gb=$(( (region_mib + 1023) / 1024 ))
# One more null_blk device than members: the metadata device, so that
# the target's commits (journal writes) cost what a member's write costs
# and the durable jobs compare with a raw member on equal terms (the
# harness's metadata disk is a loop device over tmpfs, several times
# dearer per write).
modprobe null_blk nr_devices=$((n + 1)) memory_backed=1 gb="$gb" ||
	{ say "cannot load null_blk"; exit 1; }
meta=/dev/nullb$n
[ -b "$meta" ] || { say "no $meta"; exit 1; }
members=()
for i in $(seq 0 $((n - 1))); do
	[ -b "/dev/nullb$i" ] || { say "no /dev/nullb$i"; exit 1; }
	members+=("/dev/nullb$i")
done
say "members: $n null_blk (memory_backed, ${gb} GiB each), region ${region_mib} MiB, ${runtime} s per job"
send "BENCH-INFO members=$n region_mib=$region_mib runtime=$runtime module=${EW_MODULE:-?} nproc=$(nproc) seed=$seed icount=${EW_ICOUNT:-none}"

# dm-raid's raid10 without metadata devices fails to start on this kernel
# ("unsupported raid10 layout: 0"): give each member a 4 MiB metadata
# device, slices of the tail of the metadata disk (eagerwrite uses its
# head; the two never run at the same time).
make_rmeta() {
	local msz i
	msz=$(blockdev --getsz "$meta")
	for i in $(seq 0 $((n - 1))); do
		dmsetup create "rmeta$i" --table \
			"0 8192 linear $meta $((msz - (i + 1) * 8192))" || return 1
		dd if=/dev/zero of="/dev/mapper/rmeta$i" bs=1M count=4 2>/dev/null
	done
}

make_table() {	# make_table CONFIG: the table line on stdout
	local t i
	case $1 in
	linear) echo "0 $len linear ${members[0]} 0" ;;
	dmraid)
		# dm-raid wants the length a multiple of its data devices
		# (n / 2 for 2 copies; 36 members refused 64 MiB): rounded
		# up to whole 128-sector chunks of them, fio's region stays
		# $region_mib MiB
		local u=$(( 128 * (n / 2) ))
		t="0 $(( (len + u - 1) / u * u )) raid raid10 4 128 nosync raid10_copies 2 $n"
		for i in $(seq 0 $((n - 1))); do t="$t /dev/mapper/rmeta$i ${members[$i]}"; done
		echo "$t" ;;
	raid10) ewctl table --layout raid10 --sync 1 --len "${len}s" --metadata "$meta" "${members[@]}" ;;
	ddm) ewctl table --layout ddm --sync 1 --len "${len}s" --metadata "$meta" "${members[@]}" ;;
	ew1) ewctl table --layout ew --sync 1 --len "${len}s" --metadata "$meta" "${members[@]}" ;;
	ew2) ewctl table --layout ew --sync 2 --len "${len}s" --metadata "$meta" "${members[@]}" ;;
	raid10s2) ewctl table --layout raid10 --sync 2 --len "${len}s" --metadata "$meta" "${members[@]}" ;;
	ddm2) ewctl table --layout ddm --sync 2 --len "${len}s" --metadata "$meta" "${members[@]}" ;;
	*) return 1 ;;
	esac
}

# dev_ios: writes plus flushes completed so far on the members and the
# metadata device (/sys/block/X/stat fields 5 and 16).
dev_ios() {
	local d t=0 st
	for d in "${members[@]}" "$meta"; do
		read -r -a st <"/sys/block/$(basename "$(readlink -f "$d")")/stat"
		t=$((t + st[4] + ${st[15]:-0}))
	done
	echo "$t"
}

# cpu_busy: the vCPUs' busy and total jiffies so far (/proc/stat's cpu
# line: busy = user, nice, system, irq, softirq, steal; total adds idle
# and iowait), "BUSY TOTAL".
cpu_busy() {
	awk '$1 == "cpu" { b = $2 + $3 + $4 + $7 + $8 + $9; print b, b + $5 + $6; exit }' /proc/stat
}

# cpu_json BEFORE AFTER: {"util": busy share of the vCPUs' time between}
cpu_json() {
	local b0 t0 b1 t1
	read -r b0 t0 <<<"$1"
	read -r b1 t1 <<<"$2"
	jq -cn --argjson b $((b1 - b0)) --argjson t $((t1 - t0)) \
		'{util: (if $t > 0 then $b / $t else null end)}'
}

# idle_fsync CONFIG DEV: 20 fsyncs of DEV with nothing written since the
# last one (the first of 21 is not counted: it may commit what the jobs
# before left).  Prints the device I/Os per fsync and the time per fsync,
# a process start included (compare with raw's and linear's).
idle_fsync() {
	local dev=$2 i ios0 ios1 t0 t1
	dd if=/dev/null of="$dev" conv=fsync,notrunc 2>/dev/null || return 1
	ios0=$(dev_ios) t0=${EPOCHREALTIME/./}
	for i in $(seq 20); do
		dd if=/dev/null of="$dev" conv=fsync,notrunc 2>/dev/null || return 1
	done
	t1=${EPOCHREALTIME/./} ios1=$(dev_ios)
	jq -cn --argjson ios $((ios1 - ios0)) --argjson ns $(((t1 - t0) * 1000)) \
		'{jobname: "idle-fsync", write: {iops: (20e9 / $ns),
		  clat_ns: {mean: ($ns / 20), p99: null}, ios_per_op: ($ios / 20)}}'
}

# The jobs: random read or write at queue depth 1 or 32, one job each;
# the durable writes; the idle fsync.
run_jobs() {	# run_jobs CONFIG DEV
	local cfg=$1 dev=$2 rw qd j sync
	for j in ${jobs//,/ }; do
		case $j in
		sameblock)
			c0=$(cpu_busy)
			if ewprobe rate --same-block --method direct-fua \
					--seconds "$runtime" --json --force "$dev" \
					>"$out/$cfg-$j.json" 2>"$out/$cfg-$j.err"; then
				send "BENCH $cfg $j $(jq -c --argjson cpu "$(cpu_json "$c0" "$(cpu_busy)")" \
					'{jobname: "sameblock", cpu: $cpu,
					write: {iops: .ops_per_sec, clat_ns: {mean: (.latency_us.mean * 1000),
					p99: (.latency_us.p99 * 1000)}}}' "$out/$cfg-$j.json")"
			else
				say "$cfg $j: ewprobe failed: $(head -c 300 "$out/$cfg-$j.err")"
			fi
			continue ;;
		idle-fsync)
			if idle_fsync "$cfg" "$dev" >"$out/$cfg-$j.json"; then
				send "BENCH $cfg $j $(cat "$out/$cfg-$j.json")"
			else
				say "$cfg $j: fsync failed"
			fi
			continue ;;
		dsync-qd1) rw=randwrite qd=1 sync=dsync ;;
		*) rw=${j%-qd*} qd=${j##*-qd} sync=none ;;
		esac
		c0=$(cpu_busy)
		fio --name="$j" --filename="$dev" --size="${region_mib}M" \
			--ioengine=libaio --direct=1 --bs=4k --rw="$rw" --sync="$sync" \
			--iodepth="$qd" --numjobs=1 --time_based --lat_percentiles=1 \
			--runtime="$runtime" --ramp_time=1 --norandommap \
			--randseed="$seed" --eta=never --output-format=json \
			>"$out/$cfg-$j.json" 2>"$out/$cfg-$j.err" || {
			say "$cfg $j: fio failed: $(head -c 300 "$out/$cfg-$j.err")"
			continue
		}
		send "BENCH $cfg $j $(jq -c --argjson cpu "$(cpu_json "$c0" "$(cpu_busy)")" '.jobs[0] | {jobname, cpu: $cpu,
			read: {iops: .read.iops, clat_ns: {mean: .read.lat_ns.mean, p99: .read.lat_ns.percentile["99.000000"]}},
			write: {iops: .write.iops, clat_ns: {mean: .write.lat_ns.mean, p99: .write.lat_ns.percentile["99.000000"]}}}' \
			"$out/$cfg-$j.json")"
	done
}

# The first write to a memory-backed null_blk page allocates it: fill
# what the configurations use once (member 0: the region, for dm-linear;
# the others: the region x mirrors x dilution / members, ew's share) so
# that every configuration writes over allocated pages.
share=$(( region_mib * 4 / n ))
[ "$share" -le "$region_mib" ] || share=$region_mib
say "prefilling the members ($share MiB each, $region_mib MiB of member 0)"
for m in "${members[@]}"; do
	c=$share
	[ "$m" = "${members[0]}" ] && c=$region_mib
	dd if=/dev/zero of="$m" bs=1M count="$c" oflag=direct 2>/dev/null
done

if ! dmsetup targets | grep -q '^eagerwrite '; then
	[ -e /ew/dm-eagerwrite.ko ] && insmod /ew/dm-eagerwrite.ko 2>/dev/null
fi
case " $configs " in *" dmraid "*) make_rmeta || say "cannot make dm-raid's metadata devices" ;; esac
for cfg in $configs; do
	t0=$SECONDS
	if [ "$cfg" = md ]; then
		if ! command -v mdadm >/dev/null; then
			say "md: mdadm not in the guest, skipped"
			continue
		fi
		mdadm --create /dev/md0 --run --level=10 --layout=n2 --chunk=64 \
			--raid-devices="$n" --assume-clean --size=$((region_mib * 1024 * 2 / n)) \
			"${members[@]}" >/dev/null 2>&1 || { say "md: mdadm --create failed"; continue; }
		run_jobs md /dev/md0
		mdadm --stop /dev/md0 >/dev/null 2>&1
		mdadm --zero-superblock "${members[@]}" >/dev/null 2>&1
		continue
	fi
	if [ "$cfg" = raw ]; then
		run_jobs raw "${members[0]}"
		continue
	fi
	table=$(make_table "$cfg") || { say "$cfg: no table"; continue; }
	case $cfg in
	linear|dmraid) ;;
	*) wipe_array "$meta" "${members[@]}" || say "$cfg: wipe failed" ;;
	esac
	if ! dmsetup create bench --table "$table" 2>"$out/create.err"; then
		say "$cfg: create failed: $(cat "$out/create.err"; dmesg | tail -n 3)"
		continue
	fi
	say "$cfg: $table" | cut -c1-200
	# eagerwrite reads a never-written block as zeros without touching a
	# member: write the region first, then let the delayed replicas
	# drain (status field 8), so that reads read.
	t1=$SECONDS
	dd if=/dev/zero of=/dev/mapper/bench bs=1M count="$region_mib" oflag=direct 2>/dev/null ||
		say "$cfg: prefill failed"
	while [ "$(dmsetup status bench | awk '$3 == "eagerwrite" { print $11 }')" != "" ] &&
			[ "$(dmsetup status bench | awk '{ print $11 }')" != 0 ] &&
			[ $((SECONDS - t1)) -lt 120 ]; do
		sleep 1
	done
	say "$cfg: region written in $((SECONDS - t1)) s"
	run_jobs "$cfg" /dev/mapper/bench
	send "BENCH-STATUS $cfg $(dmsetup status bench | cut -c1-300)"
	dmsetup remove bench || { say "$cfg: remove failed"; sleep 2; dmsetup remove bench; }
	say "$cfg: $((SECONDS - t0)) s"
done
send "BENCH-END"
exit 0
