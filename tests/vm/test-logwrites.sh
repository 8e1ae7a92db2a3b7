#!/bin/bash
# vm-run: --disks 2 --disk-size 160M --meta-size 8M --timeout 1500
# vmtest: beside
#
# Flush ordering with dm-log-writes (issue 5), in the spirit of fstests
# generic/455: every write the array's members and metadata device see
# goes through ONE dm-log-writes device, so the log holds one global
# order across them; the log is then replayed to flush/FUA boundaries,
# the array reassembled from the replayed disk and checked at each.
#
#   disk 0 (the logged disk) -> dm-log-writes "lw" (log on disk 1)
#     -> dm-linear slices of lw: the metadata device and 4 members
#     -> eagerwrite (raid10, ddm, ew; ewm: ew with the metadata on the
#        members, "-", its slice of the metadata device unused) or, for
#        "linear", the first member alone (the harness's own check: a
#        plain device must pass)
#
# Workload: `ewprobe write` (sequence-numbered, self-checksummed 4 KiB
# blocks, write + fdatasync one at a time) with its channel on a local
# TCP listener (busybox nc) that, for each "ack" record, sends
# `dmsetup message lw 0 mark ack-K` before it confirms the line: ewprobe
# issues no further write until then, so the mark's place in the log is
# after every entry write K needed and before write K+1's.  Then the
# array is removed (clean shutdown) and lw too.
#
# Replay (userspace/lw-replay): the FLUSH and FUA entries are the
# boundaries.  A sample of them (every one before the first ack: the
# format; every one in the middle write's cycle, from the previous ack's
# mark to its own; every one after the last ack: the clean shutdown;
# LW_MAX_BOUNDARIES more evenly spaced) is replayed in steps onto one base image; at each, the
# base is written over a work device sliced the same way, the array
# created from the same table line, `ewprobe verify` run with the
# channel log cut after the last ack whose mark precedes the boundary
# (plus the next intent: a write in flight may be there or not), and
# the volume past the probe's blocks must read zeros.  Verify fails on a
# lost acknowledged write, garbage, a bad checksum or another block's
# data.  A refused load fails at every boundary, the format's too: a
# crash while formatting leaves a superblock with FORMATTING set (or
# zeros), and the array formats again (Documentation/on-disk-format.rst).
#
# Controls (the test must be able to fail), per layout; the replayer must
# succeed for each (a failed replay leaves zeros, which fail anything):
#   early:   the boundary just before ack K's write began: checked with
#            acks 1..K-1 it must verify, and on the same image checked
#            as if write K were acknowledged, verify must report exactly
#            one write lost, write K (its seq and block), nothing corrupt;
#   reorder: the log up to mark K with write K's entries to the members
#            left out (journal durable, member data not: the ordering
#            bug the commit protocol forbids): verify must report write
#            K's block lost or corrupt (a refused load is not enough).
#
# Arguments: the layouts (default "linear raid10 ddm ew ewm"), and settings
# LW_WRITES=N (16 acknowledged writes), LW_MAX_BOUNDARIES=N (4 evenly
# spaced besides the windows above; 0: every boundary), LW_TRACE=1.
set -u
export DM_DISABLE_UDEV=1
# shellcheck source=tests/vm/target-lib.sh
. "$EW_TESTS/vm/target-lib.sh"

layouts=""
for a in "$@"; do	# arguments: layouts, or LW_*=VALUE settings
	case $a in LW_*=*) export "${a?}" ;; *) layouts="$layouts $a" ;; esac
done
layouts=${layouts:-linear raid10 ddm ew ewm}
writes=${LW_WRITES:-16}
max_b=${LW_MAX_BOUNDARIES:-4}
trace=${LW_TRACE:-0}
tr_t0=0
tick() {	# LW_TRACE=1: time since the last tick, from /proc/uptime
	[ "$trace" = 1 ] || return 0
	local t; read -r t _ </proc/uptime; t=${t/./}
	echo "# trace $1 $(( (10#$t - tr_t0) * 10 )) ms"; tr_t0=$((10#$t))
}
blocks=16			# ewprobe's blocks: the first 64 KiB, each rewritten
zero_kib=256			# and up to here the volume must read zeros
meta_mb=5 member_mb=8 nmem=4
len=4M				# 1024 logical blocks: 4.02 MiB of metadata
port=5400
last_verify="" last_refusal="" last_nonzero=0 wloop=""
src_sectors=$(( (meta_mb + nmem * member_mb) * 2048 ))
w=/tmp/lw
mkdir -p "$w"

mapfile -t disks </ew/disks
src=${disks[0]} logdev=${disks[1]}
for t in lw-replay ewprobe ewctl nc; do
	command -v "$t" >/dev/null || { notok "$t in the guest"; finish; }
done
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up

# slices PREFIX DEV: the metadata device and the members as dm-linear
# slices of DEV, /dev/mapper/PREFIX{meta,m0,m1,...}
slices() {
	local p=$1 dev=$2 i off=$((meta_mb * 2048))
	dmsetup create "${p}meta" --table "0 $((meta_mb * 2048)) linear $dev 0" || return 1
	for ((i = 0; i < nmem; i++)); do
		dmsetup create "${p}m$i" --table \
			"0 $((member_mb * 2048)) linear $dev $((off + i * member_mb * 2048))" || return 1
	done
}
unslice() {
	local p=$1 i
	dmsetup remove "${p}meta" 2>/dev/null
	for ((i = 0; i < nmem; i++)); do dmsetup remove "${p}m$i" 2>/dev/null; done
	return 0
}
# table LAYOUT PREFIX [ARG...]: the eagerwrite line over the slices PREFIX*
# (ARG...: more ewctl table options, e.g. --json)
table() {
	local lay=$1 p=$2 opts i m=() l=$len
	local md="/dev/mapper/${p}meta"
	shift 2
	case $lay in
	# sync 1: the delayed replicas' ordering is what is checked
	raid10) opts="--layout raid10 --mirrors 2 --sync 1" ;;
	ddm) opts="--layout ddm --mirrors 2 --dilution 2 --sync 1" ;;
	ew) opts="--layout ew --mirrors 2 --dilution 2 --sync 1" ;;
	# the metadata on the members (the journal on members 0 and 2),
	# shorter: the image and the data fit a member slice
	ewm) opts="--layout ew --mirrors 2 --dilution 2 --sync 1" md=- l=2M ;;
	esac
	for ((i = 0; i < nmem; i++)); do m+=("/dev/mapper/${p}m$i"); done
	# shellcheck disable=SC2086
	ewctl table $opts --len "$l" --metadata "$md" "$@" "${m[@]}"
}
# assemble LAYOUT PREFIX NAME: the volume /dev/mapper/NAME
assemble() {
	local lay=$1 p=$2 name=$3 t
	if [ "$lay" = linear ]; then
		dmsetup create "$name" --table "0 $((member_mb * 2048)) linear /dev/mapper/${p}m0 0"
		return
	fi
	t=$(table "$lay" "$p") || return 1
	dmsetup create "$name" --table "$t"
}

# The listener: every line into $w/chlog; an ack is marked in the log
# before the line is confirmed.
cat >"$w/listen.sh" <<'LISTEN'
#!/bin/bash
while IFS= read -r line; do
	printf '%s\n' "$line" >>/tmp/lw/chlog
	case $line in
	*"EWPROBE ack "*)
		k=${line#*EWPROBE ack }; k=${k%% *}
		dmsetup message lw 0 mark "ack-$k" || echo "mark ack-$k failed" >>/tmp/lw/chlog.err
		;;
	esac
	printf y
done
LISTEN
chmod +x "$w/listen.sh"

# cutlog K FILE: the channel log as of ack K (its ack line and the intent
# after it; K=0: the start record and the first intent)
cutlog() {
	awk -v k="$1" '
		/EWPROBE start / { print; if (k == 0) want = 1; next }
		want && /EWPROBE intent / { print; exit }
		{ print }
		$0 ~ ("EWPROBE ack " k " ") { want = 1 }' "$w/chlog" >"$2"
}

# The replayed images are checked on one loop device over $w/work, sliced
# once per layout as /dev/mapper/r*: each check writes the image over it.
work_up() {
	truncate -s 0 "$w/work"; truncate -s $((src_sectors * 512)) "$w/work"
	wloop=$(/usr/sbin/losetup -f --show "$w/work") && slices r "$wloop"
}
work_down() {
	unslice r
	[ -n "$wloop" ] && /usr/sbin/losetup -d "$wloop"
	wloop=""
	rm -f "$w/work"
}

# verify_at LAYOUT IMAGE K: write IMAGE over the work device, assemble the
# array on it, check acks up to K.  Returns 0 good, 1 verify failed, 2
# load refused, 3 harness.
verify_at() {
	local lay=$1 img=$2 k=$3 rc=0 nz
	tick start
	dd if="$img" of="$wloop" bs=1M oflag=direct status=none || return 3
	tick copy
	klog_mark
	if ! assemble "$lay" r rvol 2>"$w/create.err"; then
		last_refusal="$(tr '\n' ' ' <"$w/create.err") | kernel: $(klog_since | grep -i eagerwrite | tail -n 2 | tr '\n' ' ')"
		return 2
	fi
	tick assemble
	cutlog "$k" "$w/cut.log"
	rm -f "$w/verify.json"
	ewprobe verify --json --log "$w/cut.log" /dev/mapper/rvol >"$w/verify.json" 2>"$w/verify.err" || rc=1
	last_verify=$(jq -c '{acked, verified, later_write, lost, corrupt, problems: .problems[:3]}' \
		"$w/verify.json" 2>/dev/null || head -c 300 "$w/verify.err")
	# past the probe's blocks nothing was written: zeros, not garbage
	nz=$(dd if=/dev/mapper/rvol bs=4096 skip="$blocks" count=$((zero_kib / 4 - blocks)) \
		iflag=direct status=none | tr -d '\0' | wc -c)
	last_nonzero=0
	if [ "$nz" != 0 ]; then
		rc=1 last_nonzero=1
		last_verify="$last_verify blocks $blocks..$((zero_kib / 4 - 1)) not zeros"
	fi
	tick verify
	dmsetup remove rvol || rc=3
	klog_clean || rc=3
	tick remove
	return $rc
}

run_layout() {
	local lay=$1 n nb b prev k rc t0=$SECONDS
	local good=0 refused=0 bad=0 bads=()
	note "$lay: recording"
	blockdev --flushbufs "$src" "$logdev" 2>/dev/null
	dd if=/dev/zero of="$src" bs=1M count=$((meta_mb + nmem * member_mb)) conv=fsync status=none
	dd if=/dev/zero of="$logdev" bs=1M count=1 conv=fsync status=none
	rm -f "$w/chlog" "$w/chlog.err"
	dmsetup create lw --table "0 $src_sectors log-writes $src $logdev" ||
		{ notok "$lay: log-writes over the disk"; return; }
	slices l /dev/mapper/lw || { notok "$lay: slices"; unslice l; dmsetup remove lw; return; }
	if ! assemble "$lay" l vol; then
		notok "$lay: create the array on the logged slices"
		unslice l; dmsetup remove lw; return
	fi
	nc -l -p "$port" -e "$w/listen.sh" &
	local ncpid=$! tries
	for tries in 1 2 3 4 5 6 7 8 9 10; do
		ewprobe write --log "tcp:127.0.0.1:$port" --count "$writes" --blocks "$blocks" \
			--seed "$((RANDOM + 1))" --force /dev/mapper/vol >"$w/write.out" 2>&1
		rc=$?
		[ "$rc" = 0 ] && break
		grep -q "cannot connect" "$w/write.out" || break
		note "$lay: listener not up yet (try $tries)"
		sleep 0.5
	done
	kill "$ncpid" 2>/dev/null; wait "$ncpid" 2>/dev/null
	check "$lay: ewprobe write, $writes acknowledged writes marked" \
		test "$(grep -c 'EWPROBE ack ' "$w/chlog" 2>/dev/null)" = "$writes" -a ! -s "$w/chlog.err"
	[ "$rc" = 0 ] || sed 's/^/#   /' "$w/write.out"
	dmsetup remove vol || notok "$lay: remove the array"
	unslice l
	dmsetup remove lw || notok "$lay: remove log-writes"

	lw-replay --list "$logdev" >"$w/entries" || { notok "$lay: lw-replay --list"; return; }
	n=$(awk '!/^#/' "$w/entries" | wc -l)
	awk '!/^#/ && $4 ~ /FLUSH|FUA/ { print $1 }' "$w/entries" >"$w/bounds"
	nb=$(wc -l <"$w/bounds")
	awk '!/^#/ && $4 == "MARK" && $5 ~ /^ack-/ { sub("ack-", "", $5); print $1, $5 }' \
		"$w/entries" >"$w/marks"
	note "$lay: log: $n entries, $nb flush/FUA boundaries, $(wc -l <"$w/marks") ack marks, $((SECONDS - t0)) s"
	check "$lay: every ack has its mark in the log" test "$(wc -l <"$w/marks")" = "$writes"

	# the sample: every boundary before the first ack (format), between
	# the marks of acks K-1 and K (write K's whole cycle, K the middle
	# one, also the controls'), after the last ack (clean shutdown);
	# LW_MAX_BOUNDARIES evenly spaced over the rest; 0: all
	local m1 ma mb ml kc=$(( (writes + 1) / 2 ))
	m1=$(awk 'NR == 1 { print $1 }' "$w/marks")
	ma=$(awk -v k="$((kc - 1))" '$2 == k { print $1 }' "$w/marks")
	mb=$(awk -v k="$kc" '$2 == k { print $1 }' "$w/marks")
	ml=$(awk 'END { print $1 }' "$w/marks")
	awk -v nb="$nb" -v m="$max_b" -v m1="$m1" -v ma="${ma:-0}" -v mb="${mb:-0}" -v ml="$ml" '
		m == 0 || $1 < m1 || ($1 > ma && $1 < mb) || $1 > ml ||
		(NR - 1) % int((nb + m - 1) / m) == 0 || NR == nb' "$w/bounds" >"$w/sample"
	note "$lay: sample: $(awk -v m1="$m1" '$1 < m1' "$w/sample" | wc -l) before ack 1, $(awk -v a="${ma:-0}" -v b="${mb:-0}" '$1 > a && $1 < b' "$w/sample" | wc -l) in write $kc's cycle, $(awk -v l="$ml" '$1 > l' "$w/sample" | wc -l) after the last ack, $(wc -l <"$w/sample") in all"
	truncate -s 0 "$w/base"; truncate -s $((src_sectors * 512)) "$w/base"
	work_up || { notok "$lay: the work device"; work_down; return; }
	prev=0
	while read -r b; do
		lw-replay --replay "$w/base" --start "$prev" --end $((b + 1)) "$logdev" 2>/dev/null ||
			{ notok "$lay: replay to entry $b"; work_down; return; }
		prev=$((b + 1))
		k=$(awk -v b="$b" '$1 < b { k = $2 } END { print k + 0 }' "$w/marks")
		tick replay
		verify_at "$lay" "$w/base" "$k"
		case $? in
		0) good=$((good + 1)) ;;
		2) refused=$((refused + 1)); bads+=("boundary $b (acks 1..$k): load refused: $last_refusal") ;;
		*) bad=$((bad + 1)); bads+=("boundary $b (acks 1..$k): $last_verify") ;;
		esac
	done <"$w/sample"
	local ns
	ns=$(wc -l <"$w/sample")
	if [ $((bad + refused)) -eq 0 ] && [ "$good" -gt 0 ]; then
		ok "$lay: $good of $ns sampled boundaries (of $nb) verified"
	else
		notok "$lay: $((bad + refused)) of $ns sampled boundaries (of $nb) wrong"
		printf '#   %s\n' "${bads[@]:0:8}"
	fi

	# controls, on ack K in the middle of the run
	local mk mprev kblock skips=()
	k=$kc
	mk=$(awk -v k="$k" '$2 == k { print $1 }' "$w/marks")
	mprev=$(awk -v k="$((k - 1))" '$2 == k { print $1 }' "$w/marks")
	kblock=$(sed -n "s/.*EWPROBE ack $k \([0-9]*\) .*/\1/p" "$w/chlog" | head -n 1)
	# early: the state right after mark K-1 (write K not begun): it holds
	# acks 1..K-1, and as if K were acked, exactly write K is lost
	truncate -s 0 "$w/ctl"; truncate -s $((src_sectors * 512)) "$w/ctl"
	if [ -z "$mprev" ] || [ -z "$kblock" ]; then
		notok "$lay: control early: no mark of ack $((k - 1)) or no block of write $k in the log"
	elif ! lw-replay --replay "$w/ctl" --end "$mprev" "$logdev" 2>"$w/replay.err"; then
		notok "$lay: control early: lw-replay to mark $((k - 1)) failed: $(head -c 200 "$w/replay.err")"
	else
		verify_at "$lay" "$w/ctl" "$((k - 1))"
		rc=$?
		if [ "$rc" = 0 ]; then
			ok "$lay: control early: the image at mark $((k - 1)) verifies acks 1..$((k - 1))"
		else
			notok "$lay: control early: the image at mark $((k - 1)) does not verify acks 1..$((k - 1)) (rc $rc) $last_verify"
		fi
		verify_at "$lay" "$w/ctl" "$k"
		rc=$?
		if [ "$rc" = 1 ] && [ "$last_nonzero" = 0 ] &&
			jq -e --argjson b "$kblock" --argjson k "$k" '.lost == 1 and .corrupt == 0 and
				(.problems | length) == 1 and .problems[0].block == $b and
				.problems[0].seq == $k' "$w/verify.json" >/dev/null 2>&1; then
			ok "$lay: control early: ack $k checked before its write: exactly write $k (block $kblock) lost"
		else
			notok "$lay: control early: ack $k checked before its write: not exactly write $k (block $kblock) lost (rc $rc) $last_verify"
		fi
	fi
	# reorder: up to mark K without write K's data writes to the members
	# (with the metadata on the members, not those to a member's image:
	# its first doff sectors, before the data)
	local mstart=$((meta_mb * 2048)) doff=0
	[ "$lay" = linear ] && mstart=0
	[ "$lay" = ewm ] && doff=$(( member_mb * 2048 - $(table ewm r --json |
		sed 's/.*"disk_sectors": \([0-9]*\).*/\1/') ))
	awk -v a="$mprev" -v z="$mk" -v s="$mstart" -v msz=$((member_mb * 2048)) -v doff="$doff" \
		'!/^#/ && $1 > a && $1 < z && $3 > 0 && $4 !~ /MARK|DISCARD/ && $2 >= s &&
		 ($2 - s) % msz >= doff { print "--skip"; print $1 }' \
		"$w/entries" >"$w/skips"
	mapfile -t skips <"$w/skips"
	truncate -s 0 "$w/ctl"; truncate -s $((src_sectors * 512)) "$w/ctl"
	if [ ${#skips[@]} -eq 0 ] || [ -z "$kblock" ]; then
		notok "$lay: control reorder: no member write of write $k in the log"
	elif ! lw-replay --replay "$w/ctl" --end "$mk" "${skips[@]}" "$logdev" 2>"$w/replay.err"; then
		notok "$lay: control reorder: lw-replay to mark $k failed: $(head -c 200 "$w/replay.err")"
	else
		verify_at "$lay" "$w/ctl" "$k"
		rc=$?
		if [ "$rc" = 1 ] && jq -e --argjson b "$kblock" --argjson k "$k" \
			'any(.problems[]; .block == $b and .seq == $k and
			     (.kind == "lost" or .kind == "corrupt"))' "$w/verify.json" >/dev/null 2>&1; then
			ok "$lay: control reorder: write $k's $(( ${#skips[@]} / 2 )) member writes dropped: write $k (block $kblock) caught"
		else
			notok "$lay: control reorder: write $k's member writes dropped: write $k (block $kblock) not reported (rc $rc) $last_verify $last_refusal"
		fi
	fi
	work_down
	note "$lay: $((SECONDS - t0)) s"
	rm -f "$w/base" "$w/ctl"
}

load_target || note "eagerwrite target not loaded: only linear can pass"
for lay in $layouts; do
	run_layout "$lay"
done
finish
