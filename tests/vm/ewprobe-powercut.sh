#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# N power cuts in N+1 boots with ewprobe (issues 5 and 8), run on the HOST;
# the engine behind tests/vm/crash-ewprobe-array.sh and crash-ewprobe-raw.sh
# (make check-crash) and host-crash-array.sh (make check).  It drives
# scripts/vm-run itself and passes itself in as the guest script.  Not run
# by vmtest on its own (no test-/host-/crash- prefix).
#
#   ewprobe-powercut.sh [--configs "CFG..."] [--cuts N] [--min-delay S]
#                       [--max-delay S] [--seed X] [--rate] [--wcache N]
#
# CFG is LAYOUT:SYNC (an eagerwrite array, 2 mirrors, over disk00..disk03
# with the harness's metadata disk), LAYOUT:SYNC+m (the same with the
# metadata on the members) or raw (disk00 itself); cut i uses the
# (i-1)-th CFG modulo their number.  Default: the six of raid10, ddm, ew x
# sync 1, 2; 6 cuts; 1.5 to 6 s of writing before each cut.
#
# --wcache N: every member and the metadata device is a dm-ewfault
# (tests/ewfault) over its disk, with a volatile write cache of N 4 KiB
# blocks in the write boot (pass-through in the verify boot); the cut
# suspends them all (--noflush: the caches stay) and sends each "cut SEED"
# (written back: a random subset of what it cached, some writes torn)
# just before the marker, so the cut loses the disks' caches.  A CFG with
# the suffix @lie (e.g. ew:2@lie, raw@lie) is a control: once the array is
# created, its members ignore flushes and FUA (ignore_flushes 1; the
# metadata device stays honest, so the array assembles), and its
# verification must find acknowledged writes lost (ewprobe verify exits
# 1, lost > 0).
#
#   boot i    (i = 1..N) verifies cut i-1 (below), then makes a new target
#             of cut i's CFG (metadata and member labels cleared), runs
#             ewprobe write --log $EW_CHANNEL on it, sleeps a random time
#             chosen by the host, and prints a marker on which vm-run
#             SIGKILLs QEMU (--kill-on): the power cut.  The intents and
#             acks are on the host before the write / after the sync.
#   host      checks the cut came (exit 137) and the channel carried the
#             run; for raw, ewprobe verify of disk00.img on the host plus a
#             control (the last acknowledged block zeroed in a copy must be
#             reported lost); then copies the channel log onto disk04 (raw
#             bytes at offset 0) for the next boot.
#   boot i+1  reassembles cut i's target from the same table line (the
#             array from its metadata), ewprobe verify with the log read
#             from disk04: every acknowledged write must be there (lost 0)
#             and no block may hold foreign data (corrupt 0).  Control:
#             the last acknowledged block is zeroed through the target and
#             verify must report it lost.  Then it goes on with cut i+1.
#   boot N+1  verifies cut N only.
#
# Each cut prints "# figures cut=I config=CFG delay=S acked=.. verified=..
# later_write=.. lost=.. corrupt=.. unacked=.." and one "ok"/"not ok"; the
# host prints the totals last.  With --rate, the write boot of the first
# ew cut first runs ewprobe rate --same-block (--rpm 10000: the 167/s
# ceiling) on disk05, a raw member of the same kind, then on the array
# (issue 8's check: rate and power-cut verification back to back).
#
# QEMU's disks are cache=unsafe host files: a write the guest saw complete
# survives a QEMU kill, so without --wcache only the target's (or
# ewprobe's) bug can lose one; with --wcache, a missing or misordered
# flush or FUA loses it too, as on a disk with a volatile cache.  The
# random delays (and the cut seeds) come from --seed (printed): the same
# seed repeats the same cut times, within the timing of the emulated
# machine.
# Prints "ok - NAME" / "not ok - NAME"; exits non-zero on any failure.
set -u
NDISKS=6	# disk00..03 members, disk04 carries the log, disk05 rate baseline
MAX_BLOCKS=4096

# ---- in the guest ----
# --guest VCFG VLEN VCUT WCFG WDELAY WCUT RATE WCACHE CUTSEED ("-" for none)
if [ "${1-}" = --guest ]; then
	vcfg=$2 vlen=$3 vcut=$4 wcfg=$5 wdelay=$6 wcut=$7 rate=$8 wcache=$9 cutseed=${10}
	# @lie: the control of --wcache (flushes ignored, losses required)
	vlie=0 wlie=0 vname=$vcfg wname=$wcfg
	[ "${vcfg%@lie}" != "$vcfg" ] && vlie=1 vcfg=${vcfg%@lie}
	[ "${wcfg%@lie}" != "$wcfg" ] && wlie=1 wcfg=${wcfg%@lie}
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
	# shellcheck source=tests/vm/target-lib.sh
	. "$EW_TESTS/vm/target-lib.sh"
	# shellcheck source=tests/vm/persist-lib.sh
	. "$EW_TESTS/vm/persist-lib.sh"
	mapfile -t disks </ew/disks
	members=("${disks[@]:0:4}")
	spare=${disks[4]} base=${disks[5]} meta=$EW_META
	case "$vcfg $wcfg" in *:*) load_target || { notok "module loaded"; exit 1; } ;; esac
	klog_mark
	# --wcache: the metadata device and each member behind a dm-ewfault,
	# pass-through until the write boot turns the cache on
	wc_devs=()
	if [ "$wcache" != 0 ]; then
		load_ewfault || { notok "ewfault loaded"; exit 1; }
		for i in 0 1 2 3 m; do
			if [ $i = m ]; then d=$meta; else d=${members[i]}; fi
			dmsetup create "ewc$i" --table "0 $(blockdev --getsz "$d") ewfault $d 0" ||
				{ notok "ewfault over $d"; exit 1; }
			[ -b "/dev/mapper/ewc$i" ] || dmsetup mknodes "ewc$i"
			wc_devs+=("ewc$i")
			if [ $i = m ]; then meta=/dev/mapper/ewcm; else members[i]=/dev/mapper/ewc$i; fi
		done
	fi
	# which module this boot ran (the tree's .ko may be rebuilt between boots)
	[ -e /ew/dm-eagerwrite.ko ] && note "module $(sha256sum /ew/dm-eagerwrite.ko | cut -c1-12)"
	whole='[0-9]+ [0-9]+ [0-9a-f]{16} [0-9a-f]{8}$'

	if [ "$vcfg" != - ]; then
		name="cut $vcut ($vname)"
		if dev=$(pl_assemble pc "$vcfg" "$meta" "${members[@]}"); then
			head -c "$vlen" "$spare" >/tmp/log
			ewprobe verify --log /tmp/log --scan --json "$dev" >/tmp/v.json 2>/tmp/v.err
			rc=$?
			echo "# figures cut=$vcut config=$vname $(jq -r '"acked=\(.acked) verified=\(.verified) later_write=\(.later_write) lost=\(.lost) corrupt=\(.corrupt) foreign=\(.foreign) unacked=\(.unacked) unacked_landed=\(.unacked_landed) intents=\(.intents) acks=\(.acks) scanned=\(.scanned) stale=\(.scan_stale) torn=\(.torn_last_line)"' /tmp/v.json 2>/dev/null)"
			if [ "$vlie" = 1 ]; then
				# the control: caches that ignored flushes lose data
				if [ $rc = 1 ] && jq -e '.lost > 0' /tmp/v.json >/dev/null; then
					ok "$name: control: flushes ignored, acknowledged writes lost ($(jq -r .lost /tmp/v.json) of $(jq -r .acked /tmp/v.json))"
				else
					notok "$name: control: flushes ignored, acknowledged writes lost (verify exit $rc, lost $(jq -r .lost /tmp/v.json 2>/dev/null))"
				fi
			elif [ $rc = 0 ] && jq -e '.result == "ok" and .lost == 0 and .corrupt == 0 and .foreign == 0 and .acked > 0' /tmp/v.json >/dev/null; then
				ok "$name: every acknowledged write survived the power cut, no foreign data"
			else
				notok "$name: every acknowledged write survived the power cut, no foreign data (verify exit $rc)"
				sed 's/^/#   /' /tmp/v.err | head -n 5
				jq -r '.problems[:5][] | "#   block \(.block): \(.kind): \(.found)"' /tmp/v.json 2>/dev/null
			fi
			# Control: the last acknowledged block, zeroed through
			# the target, must be reported lost by the same log (one
			# more loss than before; problems lists only the first 100).
			# Not on an @lie cut: there that block is most likely lost
			# already (zeroing it adds no loss, and with more than 100
			# problems it is not listed), and the cut's own check above
			# (lost > 0) is the stronger control of verify.
			blk=$(grep -aE "^EWPROBE ack $whole" /tmp/log | tail -n 1 | cut -d' ' -f4)
			if [ "$vlie" = 1 ]; then
				note "$name: the zeroed-block control is not run on a cut whose losses are required"
			elif [ -n "$blk" ] &&
					dd if=/dev/zero of="$dev" bs=4096 seek="$blk" count=1 oflag=direct conv=notrunc status=none &&
					{ ewprobe verify --log /tmp/log --json "$dev" >/tmp/c.json 2>/dev/null; [ $? = 1 ]; } &&
					jq -e --argjson b "$blk" --slurpfile v /tmp/v.json \
						'.lost > $v[0].lost or any(.problems[]; .block == $b and .kind == "lost")' /tmp/c.json >/dev/null; then
				ok "$name: control: the last acknowledged block (block $blk) zeroed is reported lost"
			else
				notok "$name: control: the last acknowledged block (block ${blk:-none}) zeroed is reported lost"
			fi
			# Control of the scan: the first acknowledged block's data
			# (random bytes if it reads as zeros) written over a block
			# the log never mentions must be reported foreign.
			free=$(grep -aE "^EWPROBE (intent|ack) $whole" /tmp/log | cut -d' ' -f4 | sort -n -u |
				awk 'BEGIN { n = 0 } $1 == n { n++ } END { print n }')
			src=$(grep -aE "^EWPROBE ack $whole" /tmp/log | sed -n 1p | cut -d' ' -f4)
			if [ -n "$src" ] && [ "$free" -lt "$(grep -aE '^EWPROBE start ' /tmp/log | tail -n 1 | cut -d' ' -f5)" ] &&
					dd if="$dev" of=/tmp/blk bs=4096 skip="$src" count=1 iflag=direct status=none &&
					{ [ -n "$(tr -d '\0' </tmp/blk | head -c 1)" ] || head -c 4096 /dev/urandom >/tmp/blk; } &&
					dd if="$dev" of=/tmp/free-orig bs=4096 skip="$free" count=1 iflag=direct status=none &&
					dd if=/tmp/blk of="$dev" bs=4096 seek="$free" count=1 oflag=direct conv=notrunc status=none &&
					{ ewprobe verify --log /tmp/log --scan --json "$dev" >/tmp/c.json 2>/dev/null; [ $? = 1 ]; } &&
					jq -e --argjson b "$free" --slurpfile v /tmp/v.json \
						'.foreign > $v[0].foreign or any(.problems[]; .block == $b and .kind == "foreign")' /tmp/c.json >/dev/null; then
				ok "$name: control: block $src's data written over unmentioned block $free is reported foreign"
			else
				notok "$name: control: block ${src:-none}'s data written over unmentioned block ${free:-none} is reported foreign"
			fi
			# and undone: a raw member is not formatted again before
			# the next cut, whose scan would find this block foreign
			[ -s /tmp/free-orig ] && dd if=/tmp/free-orig of="$dev" bs=4096 seek="$free" count=1 \
				oflag=direct conv=notrunc status=none
			rm -f /tmp/free-orig
			[ "$vcfg" = raw ] || dmsetup status pc | sed 's/^/# status: /'
			check "$name: remove" pl_remove pc "$vcfg"
		else
			notok "$name: assemble again from the same table"
		fi
		check "$name: kernel log clean" klog_clean
		pl_memory_only_warned && note "the target logged 'map in memory only': issue 5's persistence is not in this module"
	fi

	[ "$wcfg" = - ] && finish
	name="cut $wcut ($wname)"
	if [ "$wcfg" != raw ]; then
		pl_fresh "$meta" "${members[@]}" || { notok "$name: clear the devices"; exit 1; }
	fi
	if [ "$wcache" != 0 ]; then
		for d in "${wc_devs[@]}"; do
			dmsetup message "$d" 0 wcache "$wcache" || { notok "$name: wcache $wcache on $d"; exit 1; }
		done
		note "$name: every device behind a dm-ewfault with a write cache of $wcache blocks"
	fi
	dev=$(pl_assemble pc "$wcfg" "$meta" "${members[@]}") || { notok "$name: create"; exit 1; }
	if [ "$wlie" = 1 ]; then
		# the control: the members' caches lie from now on (the labels
		# and the metadata device stay honest, so that the array
		# assembles and verify, not the constructor, meets the loss)
		for d in ewc0 ewc1 ewc2 ewc3; do
			dmsetup message "$d" 0 ignore_flushes 1 || { notok "$name: ignore_flushes on $d"; exit 1; }
		done
		note "$name: control: the members ignore flushes and FUA"
	fi
	if [ "$rate" = 1 ]; then
		# issue 8: the rate on a raw member of the same kind, then on
		# the array, in the same boot; the cut's verify follows.
		for t in "raw:$base" "array:$dev"; do
			ewprobe rate --same-block --seconds 5 --rpm 10000 --force --json "${t#*:}" \
				>/tmp/rate.json 2>/tmp/rate.err ||
				{ notok "$name: ewprobe rate on ${t%%:*} ${t#*:}"; sed 's/^/#   /' /tmp/rate.err; continue; }
			echo "# rate target=${t%%:*} dev=${t#*:} $(jq -r '"ops_per_sec=\(.ops_per_sec) p50_us=\(.latency_us.p50) p99_us=\(.latency_us.p99) verdict=\(.verdict)"' /tmp/rate.json)"
		done
		# rate left its own data in block 0, which the scan would
		# rightly call foreign to the write run that follows
		dd if=/dev/zero of="$dev" bs=4096 count=1 oflag=direct conv=notrunc status=none
	fi
	blocks=$(( $(blockdev --getsz "$dev") / 8 ))
	[ "$blocks" -gt $MAX_BLOCKS ] && blocks=$MAX_BLOCKS
	if [ "$wcfg" = raw ] && [ "$wlie" = 0 ]; then
		# a raw member is not formatted between cuts: what an earlier
		# cut left there (an @lie control's torn writes) would be
		# foreign to this run's scan.  Zeros, flushed, in the region.
		dd if=/dev/zero of="$dev" bs=4096 count="$blocks" oflag=direct \
			conv=notrunc,fsync status=none ||
			{ notok "$name: zero the raw region"; exit 1; }
	fi
	echo "# $name: ewprobe write on $dev ($blocks blocks) for ${wdelay}s, then the power cut"
	ewprobe write --log "$EW_CHANNEL" --seconds 3600 --blocks "$blocks" --force "$dev" &
	sleep "$wdelay"
	if [ "$wcache" != 0 ]; then
		# one instant for every device: all held (a suspend keeps the
		# caches), then each loses its cache, then the kill
		for d in "${wc_devs[@]}"; do dmsetup suspend --noflush --nolockfs "$d"; done
		i=0
		for d in "${wc_devs[@]}"; do
			dmsetup message "$d" 0 cut $((cutseed + i))
			i=$((i + 1))
		done
		for d in "${wc_devs[@]}"; do
			echo "# wcache-cut $d $(dmsetup status "$d" | tr ' ' '\n' | grep -E '^(written_back|dropped|torn)=' | tr '\n' ' ')"
		done
	fi
	echo "EW-POWERCUT-NOW $wcut"
	sleep 120
	echo "not ok - $name: the power cut did not come"
	exit 1
fi

# ---- on the host ----
# All in one function, read whole before it runs: the chain takes an hour
# and bash reads a script as it goes, so an edit of this file during a run
# would otherwise change what the running chain does next.
main() {
	if [ -e /ew/config ]; then
		echo "not ok - $(basename "$0") runs on the host (it boots the guest itself)"
		exit 1
	fi
	usage() { sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;/^set -u/d'; }
	configs="raid10:1 ddm:1 ew:1 raid10:2 ddm:2 ew:2" cuts=6 min_delay=1.5 max_delay=6
	seed=$(( $(date +%s) % 100000 )) rate=0 wcache=0
	while [ $# -gt 0 ]; do
		case $1 in
		--configs) configs=$2; shift 2 ;;
		--cuts) cuts=$2; shift 2 ;;
		--min-delay) min_delay=$2; shift 2 ;;
		--max-delay) max_delay=$2; shift 2 ;;
		--seed) seed=$2; shift 2 ;;
		--rate) rate=1; shift ;;
		--wcache) wcache=$2; shift 2 ;;
		-h|--help) usage; exit 0 ;;
		*) echo "ewprobe-powercut: unknown argument $1" >&2; exit 2 ;;
		esac
	done
	read -ra cfgs <<<"$configs"
	[ ${#cfgs[@]} -gt 0 ] && [ "$cuts" -ge 1 ] || { echo "ewprobe-powercut: bad --configs/--cuts" >&2; exit 2; }
	[[ "$wcache" =~ ^[0-9]+$ ]] || { echo "ewprobe-powercut: bad --wcache $wcache" >&2; exit 2; }
	for c in "${cfgs[@]}"; do
		[ "$wcache" = 0 ] && [ "${c%@lie}" != "$c" ] &&
			{ echo "ewprobe-powercut: $c: @lie needs --wcache" >&2; exit 2; }
	done

	top=$(cd "$(dirname "$0")/../.." && pwd)
	bin=${EW_BIN:-$top/build/userspace/bin}
	ewprobe=$bin/ewprobe
	fails=0
	ok() { echo "ok - $1"; }
	notok() { echo "not ok - $1"; fails=$((fails + 1)); }
	note() { echo "# $*"; }
	[ -x "$ewprobe" ] || { notok "ewprobe built ($ewprobe)"; exit 1; }
	mkdir -p "$top/build/vm"
	dir=$(mktemp -d "$top/build/vm/powercut.XXXXXX") || exit 2
	trap '[ "$fails" -eq 0 ] && rm -rf "$dir" || echo "# kept $dir"' EXIT
	vmrun=("$top/scripts/vm-run" --disks "$NDISKS" --disk-size 32M --meta-size 16M
		--disk-dir "$dir" --timeout 400 --quiet)

	# Delays: uniform in [min, max] seconds, millisecond steps, from the seed.
	RANDOM=$seed
	span_ms=$(awk -v a="$min_delay" -v b="$max_delay" 'BEGIN { printf "%d", (b - a) * 1000 }')
	declare -a cfg_of delay_of
	rate_cut=0
	for ((i = 1; i <= cuts; i++)); do
		cfg_of[i]=${cfgs[$(((i - 1) % ${#cfgs[@]}))]}
		ms=$(( (RANDOM * 32768 + RANDOM) % (span_ms + 1) ))
		delay_of[i]=$(awk -v a="$min_delay" -v m="$ms" 'BEGIN { printf "%.3f", a + m / 1000 }')
		if [ "$rate" = 1 ] && [ "$rate_cut" = 0 ] && [ "${cfg_of[i]%%:*}" = ew ]; then
			rate_cut=$i
		fi
	done
	note "cuts $cuts over: $configs; writing ${min_delay}..${max_delay} s before each cut; seed $seed$([ "$wcache" != 0 ] && echo "; write caches of $wcache blocks")"
	whole='[0-9]+ [0-9]+ [0-9a-f]{16} [0-9a-f]{8}$'
	loglen=0
	t_all=$SECONDS

	for ((b = 1; b <= cuts + 1; b++)); do
		v=$((b - 1)) w=$b
		vargs=(- - -) wargs=(- - -)
		[ $v -ge 1 ] && vargs=("${cfg_of[v]}" "$loglen" "$v")
		[ $w -le "$cuts" ] && wargs=("${cfg_of[w]}" "${delay_of[w]}" "$w")
		r=0
		[ "$w" = "$rate_cut" ] && r=1
		kill=()
		[ $w -le "$cuts" ] && kill=(--kill-on '^EW-POWERCUT-NOW')
		t0=$SECONDS
		"${vmrun[@]}" --channel "$dir/channel$b.log" --log "$dir/boot$b.log" "${kill[@]}" \
			-- "$0" --guest "${vargs[@]}" "${wargs[@]}" "$r" "$wcache" $((seed * 1000 + w * 10)) \
			>"$dir/vm-run$b.out" 2>&1
		rc=$?
		grep -a '^ok \|^not ok \|^# ' "$dir/boot$b.log" | grep -av '^# status: '
		grep -aq '^not ok ' "$dir/boot$b.log" && fails=$((fails + 1))
		if [ $w -gt "$cuts" ]; then
			[ $rc = 0 ] && ok "boot $b: verify of cut $v ($((SECONDS - t0)) s)" ||
				notok "boot $b: verify of cut $v (vm-run exit $rc)"
			break
		fi
		if [ $rc != 137 ]; then
			notok "boot $b: cut $w (${cfg_of[w]}) after ${delay_of[w]} s of writing (vm-run exit $rc)"
			grep -a 'vm-run' "$dir/vm-run$b.out" | sed 's/^/#   /'
			tail -n 8 "$dir/boot$b.log" | sed 's/^/#   /'
			break
		fi
		log=$dir/channel$b.log
		acks=$(grep -acE "^EWPROBE ack $whole" "$log")
		intents=$(grep -acE "^EWPROBE intent $whole" "$log")
		if grep -aq '^EWPROBE start ' "$log" && [ "$acks" -ge 1 ]; then
			ok "boot $b: cut $w (${cfg_of[w]}) after ${delay_of[w]} s of writing: $intents intents, $acks acks on the host ($((SECONDS - t0)) s)"
		else
			notok "boot $b: cut $w (${cfg_of[w]}) after ${delay_of[w]} s of writing: $intents intents, $acks acks on the host"
			break
		fi
		if [ "${cfg_of[w]%@lie}" = raw ]; then
			"$ewprobe" verify --log "$log" --scan --json "$dir/disk00.img" >"$dir/host.json"
			rc=$?
			note "host verify of cut $w: $(jq -c '{acked, verified, later_write, lost, corrupt, foreign, unacked, scan_stale}' "$dir/host.json" 2>/dev/null)"
			if [ "${cfg_of[w]}" = raw@lie ]; then
				[ $rc = 1 ] && jq -e '.lost > 0' "$dir/host.json" >/dev/null &&
					ok "cut $w (raw@lie): host verify of disk00.img: the ignored flushes lost acknowledged writes" ||
					notok "cut $w (raw@lie): host verify of disk00.img: the ignored flushes lost acknowledged writes (exit $rc)"
			else
				[ $rc = 0 ] && ok "cut $w (raw): host verify of disk00.img: nothing lost" ||
					notok "cut $w (raw): host verify of disk00.img: nothing lost (exit $rc)"
			fi
			blk=$(grep -aE "^EWPROBE ack $whole" "$log" | tail -n 1 | cut -d' ' -f4)
			cp "$dir/disk00.img" "$dir/control.img"
			dd if=/dev/zero of="$dir/control.img" bs=4096 seek="$blk" count=1 conv=notrunc status=none
			"$ewprobe" verify --log "$log" --json "$dir/control.img" >"$dir/control.json"
			rc=$?
			[ $rc = 1 ] && jq -e '.lost >= 1' "$dir/control.json" >/dev/null &&
				ok "cut $w (raw): host control: a copy with block $blk zeroed is reported lost" ||
				notok "cut $w (raw): host control: a copy with block $blk zeroed is reported lost (exit $rc)"
			rm -f "$dir/control.img"
		fi
		loglen=$(stat -c %s "$log")
		dd if="$log" of="$dir/disk04.img" conv=notrunc status=none
	done

	# ---- totals ----
	cat "$dir"/boot*.log | grep -a '^# figures ' >"$dir/figures"
	verified_cuts=$(wc -l <"$dir/figures")
	# the totals count the cuts that must lose nothing; the @lie
	# controls, which must lose, have their own lines below
	totals=$(grep -av ' config=[^ ]*@lie ' "$dir/figures" | awk '{ for (i = 3; i <= NF; i++) { split($i, kv, "="); s[kv[1]] += kv[2] } }
		END { printf "acked %d, verified %d, later-write %d, lost %d, corrupt %d, foreign %d, unacked %d",
			s["acked"], s["verified"], s["later_write"], s["lost"], s["corrupt"], s["foreign"], s["unacked"] }')
	note "totals: $verified_cuts of $cuts cuts verified; @lie controls apart: $totals; $((SECONDS - t_all)) s"
	for c in "${cfgs[@]}"; do
		note "  $c: $(grep -a " config=$c " "$dir/figures" | awk '{ n++; for (i = 3; i <= NF; i++) { split($i, kv, "="); s[kv[1]] += kv[2] } }
			END { printf "%d cuts, acked %d, lost %d, corrupt %d, foreign %d", n, s["acked"], s["lost"], s["corrupt"], s["foreign"] }')"
	done
	[ "$verified_cuts" = "$cuts" ] && ok "every cut reached its verification ($verified_cuts of $cuts)" ||
		notok "every cut reached its verification ($verified_cuts of $cuts)"
	if [ "$rate_cut" != 0 ]; then
		raw_r=$(cat "$dir"/boot*.log | sed -n 's/^# rate target=raw .*ops_per_sec=\([0-9.]*\).*/\1/p' | head -n 1)
		arr_r=$(cat "$dir"/boot*.log | sed -n 's/^# rate target=array .*ops_per_sec=\([0-9.]*\).*/\1/p' | head -n 1)
		fig=$(grep -a " cut=$rate_cut " "$dir/figures" | cut -d' ' -f5-)
		note "issue 8, ${cfg_of[rate_cut]} array: ewprobe rate --same-block ${arr_r:-?}/s on the array, ${raw_r:-?}/s on a raw member (same boot; 10,000 RPM ceiling 167/s); then power cut $rate_cut: ${fig:-not verified}"
	fi
	[ "$fails" -eq 0 ]
}
main "$@"
exit $?
