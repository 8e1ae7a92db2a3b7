#!/bin/bash
# Guest side of scripts/bench (make bench, issue 9 point 3): hddsim disks
# (tests/hddsim, the core's 10,000 RPM Cheetah model, phases from SEED) over
# brd, and on them in turn each configuration with mirror count 2:
#
#   md      md raid10 with mdadm (the baseline of the ratios)
#   dmraid  dm-raid raid10 (2 copies near, nosync): the md code through dm
#   r10s1/r10s2  eagerwrite raid10 sync 1/2
#   ddm1/ddm2    eagerwrite ddm, dilution 2, sync 1/2
#   ew1/ew2      eagerwrite ew, dilution 2, sync 1/2: on 36 members and one
#                member long, the paper's 2x9x2 EW-Array
#   ew1j         ew sync 1 with journal_copy 1024 (issue 16): each write's
#                data also goes to a copy slot on the metadata device in
#                its commit; the metadata disk is marked non-rotational
#                (sysfs), as the SSD it stands for (journal copies need
#                one; the mark stays for the configurations after it)
#   r10s1m ... ew2m  the same with the metadata on the members ("-"):
#                all-rotating, no metadata device (issue 18)
#   r10s1h ... ew2h  the same eagerwrite configuration with its metadata
#                device on one more hddsim disk (the all-rotating case;
#                without "h" it is the harness's metadata disk, a loop
#                device over tmpfs: no mechanics, the SSD case)
#
# Every configuration starts on fresh members: brd is unloaded and loaded
# again (all zeros, no pages) and each hddsim disk is recreated with the
# same phase_ns, so the platters are the same and nothing of the previous
# configuration (labels, superblocks, data, allocated pages) is left; the
# eagerwrite metadata device's first MiB and dm-raid's metadata slices are
# zeroed.  Then the fio region is written sequentially (and eagerwrite's
# delayed replicas drained) so that every read reads a disk.
#
# Per configuration: the TPC-C-like job (tests/fio/tpcc.fio, its queue
# depth raised from 32 to 256 a stream so that fio is not what saturates
# at the high rates) at each arrival rate, the synchronous 4 KiB write job (tests/fio/syncwrite.fio),
# and ewprobe rate --same-block (three rounds of 5 s: the median is the
# figure, the rounds' rates go with it).  Each result goes to $EW_CHANNEL as one
# line "BENCH <config> <job> <json>" (fio's JSON cut down to what the host
# reads), and hddsim's own counters over those jobs as "BENCH-DISK";
# scripts/bench makes the tables.  Not a test: prints figures.
#
# First, ewctl calibrate on every member, its error against hddsim's
# truth sent as BENCH-CAL lines.  Each eagerwrite array's predictor is
# then given what the calibration learned (period and phase, with
# "disk_param", what ewctl calibrate --apply sends) for the main figures;
# after them, the same array is given hddsim's true period and phase (the
# oracle) and the synchronous write job and ewprobe run again
# ("syncwrite-oracle", "ewprobe-oracle"): the cost of the calibration's
# error.  With CAL_COUNT 0 the main figures use the oracle.
#
# Reproducible (issue 14): every member's phase is derived from SEED
# (tests/vm/hddsim-lib.sh), and every fio job runs with randseed SEED (the
# same offsets and Poisson arrivals for every configuration), so under
# vm-run --icount the same arguments give the same figures.
#
# Arguments: MEMBERS DISK_MIB RUNTIME_S RATES CONFIGS [REGION_MIB [CAL_COUNT
#            [SEED]]]
#   RATES and CONFIGS are space-separated lists (one word each here);
#   REGION_MIB (default DISK_MIB): the fio region and every eagerwrite
#   array's length, the same logical data set everywhere; CAL_COUNT
#   (default 300): reads per member for ewctl calibrate, 0 to skip it;
#   SEED (default 1): the phases and fio's randseed.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
n=$1 disk_mib=$2 runtime=$3 rates=$4 configs=$5 region_mib=${6:-$2} CAL_COUNT=${7:-300}
seed=${8:-1}
rotation_ns=5973121
sectors=$((disk_mib * 2048))
region=${region_mib}M
chan=${EW_CHANNEL:-/dev/null}
fiodir=${EW_FIO:-/ew/tests/fio}
out=/tmp/bench
mkdir -p "$out"

say() { echo "# bench: $*"; }
send() { printf '%s\n' "$*" >"$chan"; echo "$*" | cut -c1-160; }
# shellcheck source=tests/vm/hddsim-lib.sh
. "${EW_TESTS:-/ew/tests}/vm/hddsim-lib.sh"

modprobe dm-mod 2>/dev/null
modprobe dm-raid 2>/dev/null
modprobe raid10 2>/dev/null
insmod /ew/modules/hddsim.ko || { say "no /ew/modules/hddsim.ko (make hddsim)"; exit 1; }
if ! dmsetup targets | grep -q '^eagerwrite '; then
	[ -e /ew/dm-eagerwrite.ko ] && insmod /ew/dm-eagerwrite.ko 2>/dev/null
fi

# Fresh members: brd loaded anew (zeros, no pages allocated), hddsim
# disks over it with the phases PH (from the seed), the same for every
# configuration, so a calibration stays true.  members_down frees what a
# configuration wrote.  With HMETA (a configuration "...h" asks for it)
# one more brd device carries hddmeta, an hddsim disk like the members
# (phase hddsim_phase SEED n): the "h" configurations' metadata device.
PH=()
for i in $(seq 0 $((n - 1))); do PH[i]=$(hddsim_phase "$seed" "$i" "$rotation_ns"); done
HMETA=0
case " $configs " in *h" "*) HMETA=1 ;; esac
PH[n]=$(hddsim_phase "$seed" "$n" "$rotation_ns")
members=()
members_up() {
	local i
	modprobe brd rd_nr=$((n + HMETA)) rd_size=$((disk_mib * 1024)) max_part=0 ||
		{ say "cannot load brd"; return 1; }
	members=()
	for i in $(seq 0 $((n - 1))); do
		dmsetup create "hdd$i" --table "0 $sectors hddsim /dev/ram$i 4 rotation_ns $rotation_ns phase_ns ${PH[i]}" ||
			{ say "cannot create hdd$i"; return 1; }
		members+=("/dev/mapper/hdd$i")
	done
	[ "$HMETA" = 0 ] ||
		dmsetup create hddmeta --table "0 $sectors hddsim /dev/ram$n 4 rotation_ns $rotation_ns phase_ns ${PH[n]}" ||
		{ say "cannot create hddmeta"; return 1; }
}
members_down() {
	local i
	for i in $(seq 0 $((n - 1))); do
		dmsetup remove "hdd$i" 2>/dev/null || { sleep 2; dmsetup remove "hdd$i"; }
	done
	[ "$HMETA" = 0 ] || dmsetup remove hddmeta 2>/dev/null ||
		{ sleep 2; dmsetup remove hddmeta; }
	rmmod brd || { sleep 2; rmmod brd; }
}
tabval() { dmsetup table "hdd$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
phase() { tabval "$1" phase_ns; }

# ewctl calibrate on every member against hddsim's truth (table): the
# error of the learned phase, in revolutions, at the end of the run, and
# of the period, in ppm.
CAL_R=() CAL_P=()
calibrate_all() {
	local i js rt pt
	for i in $(seq 0 $((n - 1))); do
		rt=$(tabval "$i" rotation_ns) pt=$(phase "$i")
		js=$(ewctl calibrate --json --count "$CAL_COUNT" "/dev/mapper/hdd$i") ||
			{ say "calibrate hdd$i failed"; continue; }
		CAL_R[i]=$(echo "$js" | jq -r .rotation_ns)
		CAL_P[i]=$(echo "$js" | jq -r .phase_ns)
		send "BENCH-CAL hdd$i $(echo "$js" | jq -c --argjson rt "$rt" --argjson pt "$pt" '
			((.phase_ns - $pt) / $rt) as $d
			| {rot_true: $rt, rot_est: .rotation_ns,
			   rot_err_ppm: ((.rotation_ns - $rt) / $rt * 1e6),
			   phase_err_rev: ($d - ($d + 0.5 | floor)),
			   in_window, reads}')"
	done
}

# dm-raid's raid10 without metadata devices fails to start on this kernel
# ("unsupported raid10 layout: 0"): give each member a 4 MiB metadata
# device, slices of the tail of the metadata disk (eagerwrite uses its
# head; the two never run at the same time).  Zeroed before each use.
make_rmeta() {
	local msz i
	msz=$(blockdev --getsz "$EW_META")
	for i in $(seq 0 $((n - 1))); do
		dmsetup create "rmeta$i" --table \
			"0 8192 linear $EW_META $((msz - (i + 1) * 8192))" || return 1
	done
}
zero_rmeta() {
	local i
	for i in $(seq 0 $((n - 1))); do
		dd if=/dev/zero of="/dev/mapper/rmeta$i" bs=1M count=4 oflag=direct 2>/dev/null
	done
}

# meta_dev CONFIG: the eagerwrite metadata device of CONFIG.
meta_dev() {
	case $1 in *h) echo /dev/mapper/hddmeta ;; *m) echo - ;; *) echo "$EW_META" ;; esac
}

make_table() {	# make_table CONFIG
	local t i len m
	m=$(meta_dev "$1")
	case $1 in md) ;; *m) set -- "${1%m}" ;; esac
	case ${1%h} in
	dmraid)
		# The array: n/2 x the member, whole chunks.
		len=$(( sectors / 128 * 128 * n / 2 ))
		t="0 $len raid raid10 4 128 nosync raid10_copies 2 $n"
		for i in $(seq 0 $((n - 1))); do t="$t /dev/mapper/rmeta$i ${members[$i]}"; done
		echo "$t" ;;
	r10s1) ewctl table --layout raid10 --sync 1 --len "$region" --metadata "$m" "${members[@]}" ;;
	r10s2) ewctl table --layout raid10 --sync 2 --len "$region" --metadata "$m" "${members[@]}" ;;
	ddm1) ewctl table --layout ddm --sync 1 --len "$region" --metadata "$m" "${members[@]}" ;;
	ddm2) ewctl table --layout ddm --sync 2 --len "$region" --metadata "$m" "${members[@]}" ;;
	ew1) ewctl table --layout ew --sync 1 --len "$region" --metadata "$m" "${members[@]}" ;;
	ew2) ewctl table --layout ew --sync 2 --len "$region" --metadata "$m" "${members[@]}" ;;
	ew1j)
		echo 0 >"/sys/block/$(basename "$(readlink -f "$m")")/queue/rotational" ||
			return 1
		ewctl table --layout ew --sync 1 --journal-copy 1024 --len "$region" \
			--metadata "$m" "${members[@]}" ;;
	*) return 1 ;;
	esac
}

cut_fio() {	# cut_fio FILE: the figures the host reads, one line
	jq -c '.jobs[0] | {jobname,
		read: {iops: .read.iops, mean: .read.clat_ns.mean, p99: .read.clat_ns.percentile["99.000000"], n: .read.total_ios},
		write: {iops: .write.iops, mean: .write.clat_ns.mean, p99: .write.clat_ns.percentile["99.000000"], n: .write.total_ios},
		sync: {mean: .sync.lat_ns.mean, p99: (.sync.lat_ns.percentile["99.000000"] // null)}}' "$1"
}

# The region written once, sequentially, before the measured jobs: an
# unwritten eagerwrite block reads as zeros without a disk access, so
# without this the read columns would not be comparable.  eagerwrite's
# delayed replicas (status field 8) are drained too.
prefill() {	# prefill CONFIG DEV
	local cfg=$1 dev=$2 t1=$SECONDS
	fio --eta=never --name=prefill --filename="$dev" --size="$region" \
		--rw=write --bs=1M --iodepth=8 --ioengine=libaio --direct=1 \
		>"$out/$cfg-prefill.log" 2>&1 ||
		say "$cfg: prefill failed: $(tail -c 200 "$out/$cfg-prefill.log")"
	drain "$cfg" "$dev" prefill
	send "BENCH-PREFILL $cfg $region $((SECONDS - t1))"
}

# drain CONFIG DEV WHAT: waits (at most 600 s) until an eagerwrite
# array's delayed replicas (status field 8) are written, so that a job
# does not pay for the propagation of the one before it (after an
# overloaded TPC-C rate the queues are full).  A no-op for md, dm-raid.
# Exact time skips the idle waits: this costs little wall time.
drain() {
	local t1=$SECONDS p
	while p=$(dmsetup status "${2#/dev/mapper/}" 2>/dev/null |
			awk '$3 == "eagerwrite" { print $11 }') &&
			[ -n "$p" ] && [ "$p" != 0 ]; do
		if [ $((SECONDS - t1)) -ge 600 ]; then
			say "$1: $p delayed replicas still queued after 600 s ($3)"
			return 1
		fi
		sleep 1
	done
	[ $((SECONDS - t1)) -lt 2 ] || say "$1: delayed replicas drained in $((SECONDS - t1)) s ($3)"
}

# predictor CONFIG cal|oracle: give the array's predictor every member's
# period and phase, learned (cal) or hddsim's truth (oracle); returns 1
# (and gives nothing) when a member has no calibration.
predictor() {
	local i r p
	if [ "$2" = cal ]; then
		for i in $(seq 0 $((n - 1))); do
			[ -n "${CAL_R[i]:-}" ] && [ -n "${CAL_P[i]:-}" ] || return 1
		done
	fi
	for i in $(seq 0 $((n - 1))); do
		r=$rotation_ns p=${PH[i]}
		[ "$2" = cal ] && r=${CAL_R[i]} p=${CAL_P[i]}
		if ! { dmsetup message bench 0 disk_param "$i" rotation_ns "$r" &&
				dmsetup message bench 0 disk_param "$i" phase_ns "$p"; }; then
			say "$1: disk_param $i rotation_ns $r phase_ns $p refused"
		fi
	done
}

# sync_jobs CONFIG DEV SUFFIX: the synchronous write job and ewprobe rate.
sync_jobs() {
	local cfg=$1 dev=$2 j=syncwrite$3
	if DEV=$dev SIZE=$region RUNTIME=$runtime SEED=$seed \
			fio --eta=never --output-format=json "$fiodir/syncwrite.fio" \
			>"$out/$cfg-$j.json" 2>"$out/$cfg-$j.err"; then
		send "BENCH $cfg $j $(cut_fio "$out/$cfg-$j.json")"
	else
		say "$cfg $j: fio failed: $(head -c 200 "$out/$cfg-$j.err")"
	fi
	# The same-block rate of an eager layout depends on the cycle its
	# rewrites fall into (where the head is when each is sent): three
	# rounds of 5 s one after the other, each from where the last left
	# the heads; the median round is the figure, every round is sent.
	j=ewprobe$3
	local k runs=""
	for k in 1 2 3; do
		if ewprobe rate --same-block --method direct-fua --seconds 5 --rpm 10000 \
				--json --force "$dev" >"$out/$cfg-$j-$k.json" 2>"$out/$cfg-$j.err"; then
			runs="$runs $out/$cfg-$j-$k.json"
		else
			say "$cfg $j round $k: failed: $(head -c 200 "$out/$cfg-$j.err")"
		fi
	done
	[ -n "$runs" ] || return 0
	# shellcheck disable=SC2086 # the round files, one word each
	send "BENCH $cfg $j $(jq -s -c 'map(.ops_per_sec) as $r | sort_by(.ops_per_sec) | .[(length - 1) / 2 | floor] as $m |
		{ops_per_sec: $m.ops_per_sec, latency_us: $m.latency_us,
		 ceiling_per_sec: $m.ceiling_per_sec, exceeds_ceiling: $m.exceeds_ceiling,
		 rounds: $r}' $runs)"
}

# run_config CONFIG DEV: the TPC-C-like job at every rate (an "h"
# configuration: at the first rate only, to keep the run short; its
# synchronous jobs say what the rotating journal costs), then the
# synchronous jobs.  Each TPC-C run lasts long enough for about 4000
# requests, at least 4 s and at most RUNTIME: the high rates are what
# cost wall time, and 4000 requests hold a p99 to 40 samples.
run_config() {	# run_config CONFIG DEV
	local cfg=$1 dev=$2 rate r w j rt rl=$rates
	case $cfg in *h|*[0-9]m) rl=${rates%% *} ;; esac
	for rate in $rl; do
		r=$(( rate * 655 / 1000 )) w=$(( rate - rate * 655 / 1000 ))
		rt=$(( 4000 / rate ))
		[ "$rt" -ge 4 ] || rt=4
		[ "$rt" -le "$runtime" ] || rt=$runtime
		j=tpcc-$rate
		drain "$cfg" "$dev" "before $j"
		disks_snap >"$out/disks-before"
		if DEV=$dev SIZE=$region RUNTIME=$rt READ_IOPS=$r WRITE_IOPS=$w SEED=$seed \
				fio --eta=never --output-format=json "$out/tpcc.fio" \
				>"$out/$cfg-$j.json" 2>"$out/$cfg-$j.err"; then
			send "BENCH $cfg $j $(cut_fio "$out/$cfg-$j.json")"
			disks_job "$cfg" "$j"
		else
			say "$cfg $j: fio failed: $(head -c 200 "$out/$cfg-$j.err")"
		fi
	done
	drain "$cfg" "$dev" "before the synchronous jobs"
	sync_jobs "$cfg" "$dev" ""
}

# What the disks did, in the model's terms, during a configuration's
# measured jobs: hddsim's counters (reset after the region is written)
# summed over the members, means weighted by requests.  These are free of
# the guest's path: hddsim charges only the modelled mechanics.
disks_reset() {
	local i
	for i in $(seq 0 $((n - 1))); do dmsetup message "hdd$i" 0 reset; done
	[ "$HMETA" = 0 ] || dmsetup message hddmeta 0 reset
}
disks_send() {	# disks_send CONFIG
	local i
	for i in $(seq 0 $((n - 1))); do dmsetup status "hdd$i"; done | awk -v c="$1" '
		# 0 len hddsim cyl head free_at requests mean_service reads writes
		# mean_seek mean_rotation mean_transfer late late_ns
		{ q = $7; n += q; sv += q * $8; rd += $9; wr += $10
		  sk += q * $11; ro += q * $12; tr += q * $13; late += $14 }
		END { printf "BENCH-DISK %s %d %d %d %.0f %.0f %.0f %.0f %d\n", c, n, rd, wr,
			n ? sv / n : 0, n ? sk / n : 0, n ? ro / n : 0, n ? tr / n : 0, late }' >"$out/disk.line"
	send "$(cat "$out/disk.line")"
	# The metadata disk of an "h" configuration, on its own line: the
	# journal commits' mechanics.
	case $1 in *h)
		dmsetup status hddmeta | awk -v c="$1" '{ printf "BENCH-DISKMETA %s %d %d %d %.0f %.0f %.0f %.0f %d\n",
			c, $7, $9, $10, $8, $11, $12, $13, $14 }' >"$out/disk.line"
		send "$(cat "$out/disk.line")" ;;
	esac
}

# One job's member accesses by kind, "BENCH-JOBDISK CONFIG JOB reads
# writes read_wait_ns write_wait_ns read_service_ns write_service_ns"
# (means over the members; the delayed replica writes the job made
# included): hddsim's by-kind means (status fields 13-16) times their
# counts, before the job and after it.  The whole-run BENCH-DISK line
# mixes every job; this one says where a single job's time went.
disks_snap() {
	local i
	for i in $(seq 0 $((n - 1))); do dmsetup status "hdd$i"; done |
		awk '{ print $9, $10, $16 * $9, $17 * $10, $18 * $9, $19 * $10 }'
}
disks_job() {	# disks_job CONFIG JOB, after disks_snap >$out/disks-before
	disks_snap | paste -d ' ' "$out/disks-before" - | awk -v c="$1" -v j="$2" '
		{ r += $7 - $1; w += $8 - $2; rw += $9 - $3; ww += $10 - $4; rs += $11 - $5; ws += $12 - $6 }
		END { printf "BENCH-JOBDISK %s %s %d %d %.0f %.0f %.0f %.0f\n", c, j, r, w,
			r ? rw / r : 0, w ? ww / w : 0, r ? rs / r : 0, w ? ws / w : 0 }' >"$out/disk.line"
	send "$(cat "$out/disk.line")"
}

# tpcc.fio with a deeper queue: at 32 a stream fio itself caps the
# arrivals near 32 / latency, before the slower layouts saturate.
sed 's/^iodepth=32$/iodepth=256/' "$fiodir/tpcc.fio" >"$out/tpcc.fio"
grep -q '^iodepth=256$' "$out/tpcc.fio" || { say "tpcc.fio: no iodepth=32 line to raise"; exit 1; }
members_up || exit 1
send "BENCH-INFO members=$n disk_mib=$disk_mib region=$region runtime=$runtime rates=$rates module=${EW_MODULE:-?} seed=$seed icount=${EW_ICOUNT:-none} mem_mib=$(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo)"
say "$n hddsim members of $disk_mib MiB over brd; fio region $region; ${runtime} s per run"
t0=$SECONDS
[ "$CAL_COUNT" -gt 0 ] && calibrate_all
say "calibration: $((SECONDS - t0)) s"
case " $configs " in *" dmraid "*) make_rmeta || say "cannot make dm-raid's metadata devices" ;; esac
first=1
for cfg in $configs; do
	t0=$SECONDS
	if [ "$first" = 0 ]; then
		if ! members_down || ! members_up; then
			say "$cfg: cannot renew the members"
			break
		fi
	fi
	first=0
	if [ "$cfg" = md ]; then
		command -v mdadm >/dev/null || { say "md: mdadm not in the guest, skipped"; continue; }
		mdadm --create /dev/md0 --run --level=10 --layout=n2 --chunk=64 \
			--raid-devices="$n" --assume-clean "${members[@]}" >"$out/md.err" 2>&1 ||
			{ say "md: mdadm --create failed: $(tail -c 200 "$out/md.err")"; continue; }
		say "md: mdadm --create --level=10 --layout=n2 --chunk=64 --raid-devices=$n --assume-clean"
		prefill md /dev/md0
		disks_reset
		run_config md /dev/md0
		disks_send md
		mdadm --stop /dev/md0 >/dev/null 2>&1
		send "BENCH-TIME md $((SECONDS - t0))"
		say "md: $((SECONDS - t0)) s"
		continue
	fi
	table=$(make_table "$cfg") || { say "$cfg: no table"; continue; }
	if [ "$cfg" = dmraid ]; then
		zero_rmeta
	elif [ "$(meta_dev "$cfg")" != - ]; then
		dd if=/dev/zero of="$(meta_dev "$cfg")" bs=1M count=1 oflag=direct 2>/dev/null
	fi
	dmsetup create bench --table "$table" 2>"$out/create.err" ||
		{ say "$cfg: create failed: $(cat "$out/create.err"; dmesg | tail -n 3)"; continue; }
	pred=none
	if [ "$cfg" != dmraid ]; then
		pred="cal"
		predictor "$cfg" cal || { pred=oracle; predictor "$cfg" oracle; }
	fi
	send "BENCH-PRED $cfg $pred"
	say "$cfg: $(echo "$table" | cut -c1-120)"
	prefill "$cfg" /dev/mapper/bench
	[ "$cfg" != dmraid ] && dmsetup message bench 0 reset_counters
	disks_reset
	run_config "$cfg" /dev/mapper/bench
	disks_send "$cfg"
	if [ "$pred" = cal ]; then
		predictor "$cfg" oracle
		drain "$cfg" /dev/mapper/bench "before the oracle's jobs"
		sync_jobs "$cfg" /dev/mapper/bench -oracle
	fi
	send "BENCH-STATUS $cfg $(dmsetup status bench | cut -c1-300)"
	dmsetup remove bench || { sleep 5; dmsetup remove bench || say "$cfg: remove failed"; }
	send "BENCH-TIME $cfg $((SECONDS - t0))"
	say "$cfg: $((SECONDS - t0)) s"
done
send "BENCH-END"
exit 0
