#!/bin/bash
# vm-run: --disks 4 --disk-size 64M --timeout 300
#
# ewprobe rate --same-block in the guest (issue 8): on a raw member, and
# on an eagerwrite array (2 mirrors over every member; the target must be
# there: a missing target is a failure, not a shorter run).  Prints both
# figures as "# " lines and checks that the JSON is sane; the rate's
# verdict itself depends on the host (the members are loop devices or
# virtio disks backed by the host's page cache, so any rate is possible),
# so it is reported, not judged.  What the array acknowledged must verify
# in the same boot and again after a clean remove and create (0 lost).
#
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
fails=0
SECONDS_PER_RUN=${EWPROBE_VM_SECONDS:-3}

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fails=$((fails + 1)); }
note() { echo "# $*"; }

# sane NAME JSONFILE: the rate JSON is internally consistent.
sane() {
	if jq -e --argjson s "$SECONDS_PER_RUN" '
		.command == "rate" and .blockdev == true and .pattern == "same-block" and
		.method == "fdatasync" and .block_size == 4096 and .ops > 0 and
		.seconds >= $s * 0.9 and .ops_per_sec > 0 and
		((.ops / .seconds - .ops_per_sec) | fabs) <= .ops_per_sec * 0.01 + 0.1 and
		.latency_us.min > 0 and .latency_us.min <= .latency_us.p50 and
		.latency_us.p50 <= .latency_us.p99 and .latency_us.p99 <= .latency_us.max and
		(.ceilings | length) == 4 and
		(.verdict | IN("faster-than-any-rotating-disk", "depends-on-rpm",
			       "within-every-ceiling")) and
		(.faster_than_any_rotating_disk == (.ops_per_sec > 250))' "$2" >/dev/null; then
		ok "$1"
	else
		notok "$1"
		sed 's/^/#   /' "$2"
	fi
}

figure() {	# figure LABEL JSONFILE
	note "$1: $(jq -r '"\(.ops_per_sec) syncs/s, latency mean \(.latency_us.mean) us, p50 \(.latency_us.p50) us, p99 \(.latency_us.p99) us, verdict \(.verdict)"' "$2")"
}

command -v ewprobe >/dev/null || { notok "ewprobe on PATH"; exit 1; }
mapfile -t disks </ew/disks
meta=$(cat /ew/meta)
raw=${disks[0]}

# ---- a raw member ----
if ewprobe rate --same-block --seconds "$SECONDS_PER_RUN" --json "$raw" >/tmp/raw.json 2>/tmp/raw.err; then
	ok "rate --same-block on raw member $raw"
	figure "raw member $raw" /tmp/raw.json
	sane "rate JSON on the raw member is sane" /tmp/raw.json
else
	notok "rate --same-block on raw member $raw"
	sed 's/^/#   /' /tmp/raw.err
fi
# rate must leave the zeroed member recognisably probed, and a second run
# must refuse it without --force (its first MiB now holds data).
if ewprobe rate --seconds 1 "$raw" >/dev/null 2>/tmp/refuse.err; then
	notok "rate refuses a member it has written on, without --force"
else
	grep -q 'refusing' /tmp/refuse.err && ok "rate refuses a member it has written on, without --force" ||
		{ notok "rate refuses a member it has written on, without --force"; sed 's/^/#   /' /tmp/refuse.err; }
fi
dd if=/dev/zero of="$raw" bs=1M count=1 conv=fsync status=none

# ---- an eagerwrite array over every member ----
if ! dmsetup targets 2>/dev/null | grep -q '^eagerwrite'; then
	notok "eagerwrite target loaded (EW_MODULE=${EW_MODULE:-unset})"
	exit 1
fi

n=${#disks[@]}
# The table line: ewctl's when it can build one, else a length computed
# the way the layout does (2 mirrors, dilution 2 by default), shrunk until
# the target accepts it.
table=""
if command -v ewctl >/dev/null; then
	table=$(ewctl table --mirrors 2 --sync 1 --metadata "$meta" "${disks[@]}" 2>/dev/null |
		grep -E '^0 [0-9]+ eagerwrite ' | head -n 1)
fi
created=0
if [ -n "$table" ]; then
	note "table (ewctl): $table"
	echo "$table" | dmsetup create ewprobe-ew 2>/tmp/dm.err && created=1
else
	sectors=$(blockdev --getsz "$raw")
	len=$(( sectors * n / 4 / 8 * 8 ))
	for _ in 1 2 3 4; do
		table="0 $len eagerwrite ew 4 mirrors 2 sync 1 $meta $n ${disks[*]} 0"
		if echo "$table" | dmsetup create ewprobe-ew 2>/tmp/dm.err; then
			created=1
			note "table: $table"
			break
		fi
		len=$(( len / 2 / 8 * 8 ))
	done
fi
if [ "$created" != 1 ]; then
	notok "create an eagerwrite array ($table)"
	sed 's/^/#   /' /tmp/dm.err
	exit 1
fi
ok "create an eagerwrite array over $n members"
dev=/dev/mapper/ewprobe-ew
[ -b "$dev" ] || dmsetup mknodes ewprobe-ew >/dev/null 2>&1
# A new array on zeroed members reads as zeros; --force only if not.
force=""
if [ "$(head -c 1048576 "$dev" | tr -d '\0' | head -c 1 | wc -c)" != 0 ]; then
	note "the new array does not read as zeros: using --force"
	force=--force
fi
if ewprobe rate --same-block --seconds "$SECONDS_PER_RUN" --json $force "$dev" >/tmp/ew.json 2>/tmp/ew.err; then
	ok "rate --same-block on the eagerwrite array"
	figure "eagerwrite array ($n members, 2 mirrors)" /tmp/ew.json
	sane "rate JSON on the eagerwrite array is sane" /tmp/ew.json
	if [ -s /tmp/raw.json ]; then
		note "eagerwrite / raw member: $(jq -n --slurpfile a /tmp/ew.json --slurpfile b /tmp/raw.json \
			'($a[0].ops_per_sec / $b[0].ops_per_sec * 100 | round / 100)')x"
	fi
else
	notok "rate --same-block on the eagerwrite array"
	sed 's/^/#   /' /tmp/ew.err
fi

# The same array, the power-cut test's write and verify without the cut:
# what the array acknowledged must read back in the same boot.
if ewprobe write --log /tmp/ew-probe.log --count 300 --blocks 1024 --force "$dev" >/tmp/w.out 2>&1 &&
		ewprobe verify --log /tmp/ew-probe.log --json "$dev" >/tmp/v.json 2>&1; then
	ok "write + verify on the eagerwrite array (no cut)"
	note "$(cat /tmp/w.out)"
else
	notok "write + verify on the eagerwrite array (no cut)"
	sed 's/^/#   /' /tmp/w.out
	jq -c '{acked, verified, later_write, lost, corrupt, problems: .problems[:3]}' /tmp/v.json 2>&1 | sed 's/^/#   /'
fi
dmsetup status ewprobe-ew | sed 's/^/# status: /'
dmsetup remove ewprobe-ew || notok "remove the eagerwrite array"
# Reassembled from its metadata (a clean remove, no cut): the map is
# persistent, so every acknowledged write is there (verify exits 0 only
# with 0 lost and 0 corrupt; the counts are checked as well, so that a
# verify that checked nothing cannot pass).
reassembled_verifies() {
	local v
	echo "$table" | dmsetup create ewprobe-ew 2>/tmp/dm.err ||
		{ note "create refused: $(cat /tmp/dm.err)"; return 1; }
	[ -b "$dev" ] || dmsetup mknodes ewprobe-ew >/dev/null 2>&1
	ewprobe verify --log /tmp/ew-probe.log --json "$dev" >/tmp/v2.json 2>&1
	v=$?
	note "after remove + create: $(jq -c '{acked, verified, later_write, lost, corrupt}' /tmp/v2.json 2>&1)"
	dmsetup remove ewprobe-ew || { note "remove failed"; return 1; }
	[ "$v" -eq 0 ] && jq -e '.acked > 0 and .verified + .later_write == .acked and
		.lost == 0 and .corrupt == 0' /tmp/v2.json >/dev/null
}
if reassembled_verifies; then
	ok "remove + create: every acknowledged write verifies (0 lost)"
else
	notok "remove + create: every acknowledged write verifies (0 lost)"
fi
[ "$fails" -eq 0 ]
