#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Power-cut round trip of ewprobe on a raw virtio disk (issue 8), run on
# the HOST: it drives scripts/vm-run itself, twice, and passes itself in
# as the guest script (--guest-write, --guest-verify).
#
#   boot 1  ewprobe write --log $EW_CHANNEL on member disk00, until vm-run
#           SIGKILLs QEMU (--kill-after): the power cut.  Intents and acks
#           reach the host's channel file before the write / after the
#           sync (the serial port is drained after each line).
#   host    ewprobe verify of that log against disk00.img (the member's
#           bytes, persisted by --disk-dir), and a control: the same log
#           against a copy whose last acknowledged block is zeroed must
#           report the loss.
#   boot 2  the log is carried in on member disk01 (raw bytes at offset
#           0; its length is the argument) and verified in the guest,
#           the way a test of an eagerwrite array must, since only the
#           target can read an array back.
#
# QEMU's disks are cache=unsafe over host files: a write the guest saw
# complete is in the host's page cache, which a QEMU kill does not lose,
# so zero losses are expected here; any loss is a bug in ewprobe's
# ordering (or in the harness's channel).
#
# Prints "ok - NAME" / "not ok - NAME"; exits non-zero on any failure.
# Env: EWPROBE_CRASH_SECONDS (time before the cut, default 20), EW_BIN.
set -u

if [ "${1-}" = --guest-write ]; then
	disk=$(sed -n 1p /ew/disks)
	echo "# ewprobe write on $disk, channel $EW_CHANNEL"
	exec ewprobe write --log "$EW_CHANNEL" --seconds 3600 --blocks 4096 "$disk"
fi
if [ "${1-}" = --guest-verify ]; then
	disk=$(sed -n 1p /ew/disks)
	logdev=$(sed -n 2p /ew/disks)
	head -c "$2" "$logdev" >/tmp/ewprobe.log
	ewprobe verify --log /tmp/ewprobe.log --json "$disk" >/tmp/verify.json
	rc=$?
	jq -r '"# guest verify: acked \(.acked), verified \(.verified), later-write \(.later_write), lost \(.lost), corrupt \(.corrupt), unacked \(.unacked)"' \
		/tmp/verify.json 2>/dev/null
	if [ $rc = 0 ]; then
		echo "ok - guest verify after the power cut: nothing lost"
	else
		echo "not ok - guest verify after the power cut (exit $rc)"
		jq -c '.problems[:5][]' /tmp/verify.json 2>/dev/null | sed 's/^/#   /'
	fi
	exit $rc
fi

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
trap 'rm -rf "$dir"' EXIT
vmrun=("$top/scripts/vm-run" --disks 2 --disk-size 64M --disk-dir "$dir" --timeout 400 --quiet)

# ---- boot 1: write until the power is cut ----
"${vmrun[@]}" --channel "$dir/channel.log" --kill-after "$cut_after" \
	--log "$dir/boot1.log" -- "$0" --guest-write
rc=$?
if [ $rc = 137 ]; then
	ok "boot 1: power cut while ewprobe write ran"
else
	notok "boot 1: power cut while ewprobe write ran (vm-run exit $rc)"
	grep -a 'ewprobe\|vm-run' "$dir/boot1.log" | tail -n 5 | sed 's/^/#   /'
	exit 1
fi
acks=$(grep -ac '^EWPROBE ack ' "$dir/channel.log")
intents=$(grep -ac '^EWPROBE intent ' "$dir/channel.log")
note "channel: $intents intents, $acks acks in ${cut_after}s before the cut"
if grep -aq '^EWPROBE start ' "$dir/channel.log" && [ "$acks" -ge 10 ]; then
	ok "boot 1: the channel carried the run's records ($acks acks)"
else
	notok "boot 1: the channel carried the run's records ($acks acks)"
fi

# ---- on the host ----
"$ewprobe" verify --log "$dir/channel.log" --json "$dir/disk00.img" >"$dir/host.json"
rc=$?
note "host verify: $(jq -c '{acked, verified, later_write, lost, corrupt, unacked, ended, torn_last_line}' "$dir/host.json" 2>/dev/null)"
[ $rc = 0 ] && ok "host verify of disk00.img after the cut: nothing lost" ||
	notok "host verify of disk00.img after the cut: nothing lost (exit $rc)"
blk=$(grep -a '^EWPROBE ack ' "$dir/channel.log" | tail -n 1 | cut -d' ' -f4)
cp "$dir/disk00.img" "$dir/control.img"
dd if=/dev/zero of="$dir/control.img" bs=4096 seek="$blk" count=1 conv=notrunc status=none
"$ewprobe" verify --log "$dir/channel.log" --json "$dir/control.img" >"$dir/control.json"
rc=$?
[ $rc = 1 ] && jq -e '.lost >= 1' "$dir/control.json" >/dev/null &&
	ok "control: the same log finds a dropped last write (block $blk)" ||
	notok "control: the same log finds a dropped last write (exit $rc)"
rm -f "$dir/control.img"

# ---- boot 2: verify in the guest, the log carried in on disk01 ----
size=$(stat -c %s "$dir/channel.log")
dd if="$dir/channel.log" of="$dir/disk01.img" conv=notrunc status=none
"${vmrun[@]}" --channel "$dir/channel2.log" --log "$dir/boot2.log" -- "$0" --guest-verify "$size"
rc=$?
grep -a '^ok \|^not ok \|^# guest' "$dir/boot2.log" | sed 's/^/# guest: /'
[ $rc = 0 ] && ok "boot 2: the guest's verify agrees" || notok "boot 2: the guest's verify agrees (vm-run exit $rc)"

[ "$fails" -eq 0 ]
