#!/bin/bash
# vm-run: --disks 36 --disk-size 64M --meta-size 64M --mem 2048 --timeout 1500
#
# The eagerwrite target end to end (issues 3 and 4): for each layout
# (raid10, ddm, ew) and sync 1 and 2 on every member listed in /ew/disks:
# create; table and status round trips; mkfs.ext4 and mkfs.xfs, each:
# mount, copy a tree of files, remount, verify sha256, umount, fsck; fio
# verify jobs (randwrite and randrw, bs 4k..256k, iodepth 16, crc32c,
# libaio, direct=1); discard then read zeros; messages; generation-checked
# writes (ewprobe, gen_write in target-lib.sh), the delayed copies drained,
# then the second replica of every replica set failed (dm-linear turned
# dm-error) and every acknowledged generation read from the first
# replicas, so that a wrong delayed copy is read and caught; remove.
# After each configuration the kernel log must be free of WARNING, BUG,
# Oops.
#
# EW_TARGET_CONFIGS="raid10:1 ew:2" runs a subset; EW_TARGET_FIO_SIZE sets
# the fio region per job (default 32M).
# Prints "ok - NAME" / "not ok - NAME" and "# " notes.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

configs=${EW_TARGET_CONFIGS:-"raid10:1 ddm:1 ew:1 raid10:2 ddm:2 ew:2"}
FIO_SIZE=${EW_TARGET_FIO_SIZE:-32M}
DEV=ewt

load_target || { notok "module loaded"; finish; }
ok "module loaded"
make_tree /tmp/tree

for c in $configs; do
	layout=${c%%:*} sync=${c##*:}
	name="$layout sync=$sync"
	t0=$SECONDS
	klog_mark
	disks=$(wrap_partners "$layout") || { notok "$name: partners on dm-linear"; continue; }
	# shellcheck disable=SC2086
	table=$(ewctl table --layout "$layout" --sync "$sync" \
		--metadata "$EW_META" $disks) ||
		{ notok "$name: ewctl table"; continue; }
	check "$name: create" dmsetup create "$DEV" --table "$table"
	[ -b /dev/mapper/$DEV ] || continue
	check "$name: table round trip" table_round_trip "$DEV"
	check "$name: status fields" status_sane "$DEV" "$layout"
	for fs in ext4 xfs; do
		check "$name: $fs copy, sha256, fsck" fs_round_trip "$DEV" "$fs" /tmp/tree
	done
	check "$name: fio randwrite verify" fio_verify "$DEV" randwrite "$FIO_SIZE"
	check "$name: fio randrw verify" fio_verify "$DEV" randrw "$FIO_SIZE" "$FIO_SIZE"
	check "$name: discard reads zeros" discard_zeros "$DEV"
	check "$name: status counters moved" counters_moved "$DEV"
	note "$name: $(dmsetup status "$DEV")"
	check "$name: messages" messages "$DEV"
	check "$name: generation writes" gen_write "$DEV" 300
	check "$name: delayed replicas drained" wait_drained "$DEV" 60
	check "$name: generations read back" gen_verify "$DEV"
	check "$name: second replicas failed" fail_partners
	check "$name: generations from the first replicas" gen_verify "$DEV"
	check "$name: remove" dmsetup remove "$DEV"
	check "$name: kernel log clean" klog_clean
	unwrap_partners
	wipe_members
	note "$name: $((SECONDS - t0)) s in all"
done
finish
