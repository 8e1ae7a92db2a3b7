#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Power-cut round trip of ewprobe (issue 8), run on the HOST: it drives
# scripts/vm-run itself, twice, and passes itself in as the guest script
# (--guest-write MODE, --guest-verify MODE SIZE).  MODE is raw (default:
# member disk00 of 2) or, with --array (tests/vm/crash-ewprobe-array.sh),
# an eagerwrite array with 2 mirrors over disk00..disk03 of 5 (skipped
# when the guest has no eagerwrite target).
#
#   boot 1  ewprobe write --log $EW_CHANNEL on the target, until vm-run
#           SIGKILLs QEMU (--kill-after): the power cut.  Intents and acks
#           reach the host's channel file before the write / after the
#           sync (the serial port is drained after each line).
#   host    (raw) ewprobe verify of that log against disk00.img (the
#           member's bytes, persisted by --disk-dir), and a control: the
#           same log against a copy whose last acknowledged block is
#           zeroed must report the loss.
#   boot 2  the log is carried in on the last member (raw bytes at offset
#           0; its length is an argument), the target is assembled again
#           (the same table line) and verified in the guest: the only way
#           for an array, which only the target can read back.
#
# QEMU's disks are cache=unsafe over host files: a write the guest saw
# complete is in the host's page cache, which a QEMU kill does not lose,
# so zero losses are expected here; any loss is a bug in ewprobe's
# ordering (or in the harness's channel).
#
# Prints "ok - NAME" / "not ok - NAME"; exits non-zero on any failure.
# Env: EWPROBE_CRASH_SECONDS (time before the cut, default 20), EW_BIN.
set -u

# ---- in the guest ----
# The target under test: member disk00 (raw), or an eagerwrite array (2
# mirrors) over every member but the last, which carries the log in boot 2.
EW_NAME=ewprobe-crash
guest_target() {	# guest_target raw|array: prints the device
	if [ "$1" = raw ]; then
		sed -n 1p /ew/disks
		return
	fi
	export DM_DISABLE_UDEV=1
	dmsetup targets | grep -q '^eagerwrite' || return 3
	local meta members table
	meta=$(cat /ew/meta)
	sed '$d' /ew/disks >/tmp/members	# (no /dev/fd in the guest)
	mapfile -t members </tmp/members
	table=$(ewctl table --mirrors 2 --metadata "$meta" "${members[@]}") || return 1
	echo "# table: $table" >&2
	echo "$table" | dmsetup create "$EW_NAME" >&2 || return 1
	[ -b "/dev/mapper/$EW_NAME" ] || dmsetup mknodes "$EW_NAME" >&2
	echo "/dev/mapper/$EW_NAME"
}
if [ "${1-}" = --guest-write ]; then
	dev=$(guest_target "$2")
	rc=$?
	[ $rc = 3 ] && { echo "# no eagerwrite target"; exit 3; }
	[ $rc = 0 ] || exit 1
	blocks=$(( $(blockdev --getsz "$dev") / 8 ))
	[ "$blocks" -gt 4096 ] && blocks=4096
	echo "# ewprobe write on $dev ($blocks blocks), channel $EW_CHANNEL"
	exec ewprobe write --log "$EW_CHANNEL" --seconds 3600 --blocks "$blocks" "$dev"
fi
if [ "${1-}" = --guest-verify ]; then
	dev=$(guest_target "$2") || { echo "not ok - guest: assemble the $2 target again"; exit 1; }
	logdev=$(tail -n 1 /ew/disks)
	head -c "$3" "$logdev" >/tmp/ewprobe.log
	ewprobe verify --log /tmp/ewprobe.log --json "$dev" >/tmp/verify.json
	rc=$?
	jq -r '"# guest verify: acked \(.acked), verified \(.verified), later-write \(.later_write), lost \(.lost), corrupt \(.corrupt), unacked \(.unacked)"' \
		/tmp/verify.json 2>/dev/null
	if [ $rc = 0 ]; then
		echo "ok - guest verify after the power cut: nothing lost"
	else
		echo "not ok - guest verify after the power cut (exit $rc)"
		jq -c '.problems[:5][]' /tmp/verify.json 2>/dev/null | sed 's/^/#   /'
	fi
	[ "$2" = raw ] || dmsetup remove "$EW_NAME"
	exit $rc
fi

# ---- on the host ----
if [ -e /ew/config ]; then
	echo "not ok - $(basename "$0") runs on the host (it boots the guest itself)"
	exit 1
fi
mode=raw
[ "${1-}" = --array ] && mode=array
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${EW_BIN:-$top/build/userspace/bin}
ewprobe=$bin/ewprobe
cut_after=${EWPROBE_CRASH_SECONDS:-20}
fails=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fails=$((fails + 1)); }
note() { echo "# $*"; }

[ -x "$ewprobe" ] || { notok "ewprobe built ($ewprobe)"; exit 1; }
mkdir -p "$top/build/vm"
dir=$(mktemp -d "$top/build/vm/crash-ewprobe.XXXXXX") || exit 2
# Disk images and logs are kept when something failed.
trap '[ "$fails" -eq 0 ] && rm -rf "$dir" || echo "# kept $dir"' EXIT
ndisks=2
[ $mode = array ] && ndisks=5
vmrun=("$top/scripts/vm-run" --disks $ndisks --disk-size 64M --disk-dir "$dir" --timeout 400 --quiet)

# ---- boot 1: write until the power is cut ----
"${vmrun[@]}" --channel "$dir/channel.log" --kill-after "$cut_after" \
	--log "$dir/boot1.log" -- "$0" --guest-write $mode
rc=$?
if [ $rc = 3 ] && [ $mode = array ]; then
	echo "ok - boot 1: power cut on an eagerwrite array # SKIP no eagerwrite target in the guest"
	exit 0
fi
if [ $rc = 137 ]; then
	ok "boot 1: power cut while ewprobe write ran on the $mode target"
else
	notok "boot 1: power cut while ewprobe write ran on the $mode target (vm-run exit $rc)"
	grep -a 'ewprobe\|vm-run\|^# ' "$dir/boot1.log" | tail -n 8 | sed 's/^/#   /'
	exit 1
fi
# Whole records only: the last line is usually torn by the cut.
whole='[0-9]+ [0-9]+ [0-9a-f]{16} [0-9a-f]{8}$'
acks=$(grep -acE "^EWPROBE ack $whole" "$dir/channel.log")
intents=$(grep -acE "^EWPROBE intent $whole" "$dir/channel.log")
note "channel: $intents intents, $acks acks in ${cut_after}s before the cut"
if grep -aq '^EWPROBE start ' "$dir/channel.log" && [ "$acks" -ge 10 ]; then
	ok "boot 1: the channel carried the run's records ($acks acks)"
else
	notok "boot 1: the channel carried the run's records ($acks acks)"
fi

# ---- on the host: the raw member is a plain image file ----
if [ $mode = raw ]; then
	"$ewprobe" verify --log "$dir/channel.log" --json "$dir/disk00.img" >"$dir/host.json"
	rc=$?
	note "host verify: $(jq -c '{acked, verified, later_write, lost, corrupt, unacked, ended, torn_last_line}' "$dir/host.json" 2>/dev/null)"
	[ $rc = 0 ] && ok "host verify of disk00.img after the cut: nothing lost" ||
		notok "host verify of disk00.img after the cut: nothing lost (exit $rc)"
	blk=$(grep -aE "^EWPROBE ack $whole" "$dir/channel.log" | tail -n 1 | cut -d' ' -f4)
	cp "$dir/disk00.img" "$dir/control.img"
	dd if=/dev/zero of="$dir/control.img" bs=4096 seek="$blk" count=1 conv=notrunc status=none
	"$ewprobe" verify --log "$dir/channel.log" --json "$dir/control.img" >"$dir/control.json"
	rc=$?
	[ $rc = 1 ] && jq -e '.lost >= 1' "$dir/control.json" >/dev/null &&
		ok "control: the same log finds a dropped last write (block $blk)" ||
		notok "control: the same log finds a dropped last write (exit $rc)"
	rm -f "$dir/control.img"
fi

# ---- boot 2: verify in the guest, the log carried in on disk01 ----
size=$(stat -c %s "$dir/channel.log")
spare=$(printf '%s/disk%02d.img' "$dir" $((ndisks - 1)))
dd if="$dir/channel.log" of="$spare" conv=notrunc status=none
"${vmrun[@]}" --channel "$dir/channel2.log" --log "$dir/boot2.log" -- "$0" --guest-verify $mode "$size"
rc=$?
grep -a '^ok \|^not ok \|^# guest\|^# table' "$dir/boot2.log" | sed 's/^/# guest: /'
[ $rc = 0 ] && ok "boot 2: the guest's verify agrees" || notok "boot 2: the guest's verify agrees (vm-run exit $rc)"

[ "$fails" -eq 0 ]
