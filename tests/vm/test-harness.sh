#!/bin/bash
# vm-run: --icount --disks 36 --disk-size 128M --timeout 600
# vmtest: beside
# SPDX-License-Identifier: GPL-2.0-only
#
# The VM harness itself (issue 4), in the guest: the 36 member disks and
# the metadata disk are there as announced, the tools and modules the
# tests need are present, dm-eagerwrite is registered when it was built,
# and the basic block stack works: ext4 and xfs round trips, dm-linear
# over two members, fio with verify=crc32c.  Prints "ok - NAME" /
# "not ok - NAME".
set -u
fails=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fails=$((fails + 1)); }
note() { echo "# $*"; }
check() {	# check NAME COMMAND...
	local name=$1
	shift
	if "$@"; then ok "$name"; else notok "$name"; fi
}
bytes() { /usr/sbin/blockdev --getsize64 "$1"; }

mapfile -t disks </ew/disks

# --- what vm-run promised ------------------------------------------------
all_disks_present() {
	local d n=0
	for d in "${disks[@]}"; do
		if [ ! -b "$d" ] || [ "$(bytes "$d")" -ne $((128 << 20)) ]; then
			note "$d missing or not 128 MiB"
			return 1
		fi
		n=$((n + 1))
	done
	[ "$n" -eq 36 ] && [ "$EW_NR_DISKS" -eq 36 ] &&
		[ "$(echo "$EW_DISKS" | wc -w)" -eq 36 ] &&
		[ "$(printf '%s\n' "${disks[@]}" | sort -u | wc -l)" -eq 36 ]
}
check "36 member disks listed in /ew/disks and \$EW_DISKS, all present" all_disks_present
meta_present() {
	local meta
	meta=$(cat /ew/meta)
	[ -b "$meta" ] && [ "$meta" = "$EW_META" ] &&
		[ "$(bytes "$meta")" -eq $((64 << 20)) ] && ! grep -qx "$meta" /ew/disks
}
check "metadata disk present (/ew/meta, \$EW_META, 64 MiB, not a member)" meta_present
channel_works() { echo "test-harness: channel ok" >"$EW_CHANNEL"; }
check "channel device \$EW_CHANNEL is writable" channel_works
check "DM_DISABLE_UDEV is set" test "${DM_DISABLE_UDEV:-}" = 1

tools_present() {
	local t missing=""
	for t in dmsetup fio jq bash mkfs.ext4 e2fsck mkfs.xfs xfs_repair sha256sum \
			modprobe insmod /usr/sbin/losetup /usr/sbin/blkdiscard /usr/sbin/blockdev; do
		command -v "$t" >/dev/null || missing="$missing $t"
	done
	[ -z "$missing" ] || note "missing:$missing"
	[ -z "$missing" ]
}
check "tools present (dmsetup, fio, jq, ext4/xfs tools, util-linux, kmod)" tools_present

modules_load() {
	local m bad=""
	for m in dm-flakey dm-delay dm-log-writes dm-raid raid10 null_blk brd; do
		modprobe "$m" || bad="$bad $m"
	done
	[ -z "$bad" ] || note "cannot load:$bad"
	[ -z "$bad" ]
}
check "test modules load (dm-flakey dm-delay dm-log-writes dm-raid raid10 null_blk brd)" modules_load

if [ -e /ew/dm-eagerwrite.ko ]; then
	check "dm-eagerwrite.ko built, loaded: dmsetup targets lists eagerwrite" \
		eval 'dmsetup targets | grep -q "^eagerwrite "'
else
	ok "dm-eagerwrite target # SKIP dm-eagerwrite.ko not built (EW_MODULE=$EW_MODULE)"
fi

# --- the block stack -----------------------------------------------------
mkdir -p /mnt/h
d0=${disks[0]}
ext4_round_trip() {
	local a b
	mkfs.ext4 -q -F "$d0" && mount "$d0" /mnt/h || return 1
	dd if=/dev/urandom of=/mnt/h/data bs=1M count=8 status=none
	a=$(sha256sum </mnt/h/data)
	umount /mnt/h && mount "$d0" /mnt/h || return 1
	b=$(sha256sum </mnt/h/data)
	umount /mnt/h || return 1
	[ "$a" = "$b" ] || { note "sha256 $a != $b"; return 1; }
	e2fsck -fn "$d0" >/tmp/fsck.out 2>&1 || { sed 's/^/#   /' /tmp/fsck.out; return 1; }
}
check "mkfs.ext4, mount, 8 MiB sha256 round trip across a remount, e2fsck clean" ext4_round_trip

lin=hlinear
s1=$(($(bytes "${disks[1]}") / 512)) s2=$(($(bytes "${disks[2]}") / 512))
linear_table="0 $s1 linear ${disks[1]} 0
$s1 $s2 linear ${disks[2]} 0"
linear_works() {
	local got
	printf '%s\n' "$linear_table" | dmsetup create "$lin" || return 1
	[ "$(bytes /dev/mapper/$lin)" -eq $(((s1 + s2) * 512)) ] || return 1
	# One 8 KiB write across the boundary lands half on each member.
	printf 'A%.0s' $(seq 4096) >/tmp/a
	printf 'B%.0s' $(seq 4096) >/tmp/b
	cat /tmp/a /tmp/b | dd of=/dev/mapper/$lin bs=4096 seek=$((s1 / 8 - 1)) oflag=direct status=none || return 1
	got=$(dd if="${disks[1]}" bs=4096 skip=$((s1 / 8 - 1)) count=1 iflag=direct status=none | sha256sum)
	[ "$got" = "$(sha256sum </tmp/a)" ] || { note "first member has the wrong data"; return 1; }
	got=$(dd if="${disks[2]}" bs=4096 count=1 iflag=direct status=none | sha256sum)
	[ "$got" = "$(sha256sum </tmp/b)" ] || { note "second member has the wrong data"; return 1; }
	[ "$(dmsetup table "$lin" | wc -l)" -eq 2 ]
}
check "dm-linear over two members: size, a write across the boundary, table" linear_works

fio_verify() {
	local out=/tmp/fio-verify.json
	DEV=/dev/mapper/$lin SIZE=96M OFFSET=512 fio --eta=never \
		--output-format=json --output=$out "$EW_FIO/verify.fio" ||
		{ note "fio failed"; grep -a 'verify:' $out | head -n 5 | sed 's/^/#   /'; return 1; }
	jq -e '[.jobs[].error] | all(. == 0)' $out >/dev/null &&
		jq -e '[.jobs[].write.io_bytes] | all(. > 0)' $out >/dev/null
}
check "fio verify=crc32c (4k-256k, iodepth 16, 512-byte offset) on dm-linear: zero errors" fio_verify

dmsetup remove "$lin"

# mkfs.xfs wants more than 300 MB: three members.
xfs_on_linear() {
	local i off=0 sz
	for i in 3 4 5; do
		sz=$(($(bytes "${disks[$i]}") / 512))
		echo "$off $sz linear ${disks[$i]} 0"
		off=$((off + sz))
	done | dmsetup create hxfs || return 1
	mkfs.xfs -q -f /dev/mapper/hxfs && mount /dev/mapper/hxfs /mnt/h || return 1
	cp -a /ew/tests /mnt/h/ && sync && umount /mnt/h || return 1
	xfs_repair -n /dev/mapper/hxfs >/tmp/xfs.out 2>&1 ||
		{ tail -n 5 /tmp/xfs.out | sed 's/^/#   /'; return 1; }
	dmsetup remove hxfs
}
check "mkfs.xfs on dm-linear over three members, mount, copy a tree, xfs_repair -n clean" xfs_on_linear

check "kernel log clean" eval '! dmesg | grep -E "WARNING:|BUG:|Oops|blocked for more than|Call Trace"'

echo "# harness: $fails failed"
[ "$fails" -eq 0 ]
