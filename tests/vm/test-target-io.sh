#!/bin/bash
# vm-run: --disks 36 --disk-size 96M --meta-size 64M --mem 3072 --timeout 1500
#
# The eagerwrite target end to end (issues 3 and 4): for each layout
# (raid10, ddm, ew) and sync 1 and 2 on every member listed in /ew/disks:
# create; table and status round trips; mkfs.ext4 or mkfs.xfs (alternating
# over the configurations, so both file systems see both sync values),
# mount, copy a tree of files, verify sha256, umount, fsck clean; fio
# verify jobs (randwrite and randrw, bs 4k..256k, iodepth 16, crc32c,
# libaio, direct=1); discard then read zeros; messages; remove.  After each
# configuration the kernel log must be free of WARNING, BUG, Oops.
#
# EW_TARGET_CONFIGS="raid10:1 ew:2" runs a subset; EW_TARGET_FIO_SIZE sets
# the fio region per job (default 48M).
# Prints "ok - NAME" / "not ok - NAME" and "# " notes.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

configs=${EW_TARGET_CONFIGS:-"raid10:1 ddm:1 ew:1 raid10:2 ddm:2 ew:2"}
FIO_SIZE=${EW_TARGET_FIO_SIZE:-48M}
DEV=ewt
n=0

load_target || { notok "module loaded"; finish; }
ok "module loaded"
make_tree /tmp/tree

for c in $configs; do
	layout=${c%%:*} sync=${c##*:}
	name="$layout sync=$sync"
	n=$((n + 1))
	if [ $((n % 2)) -eq 1 ]; then fs=ext4; else fs=xfs; fi
	klog_mark
	table=$(ewctl table --layout "$layout" --sync "$sync" \
		--metadata "$EW_META" $EW_DISKS) ||
		{ notok "$name: ewctl table"; continue; }
	check "$name: create" dmsetup create "$DEV" --table "$table"
	[ -b /dev/mapper/$DEV ] || continue
	check "$name: table round trip" table_round_trip "$DEV"
	check "$name: status fields" status_sane "$DEV" "$layout"
	check "$name: $fs copy, sha256, fsck" fs_round_trip "$DEV" "$fs" /tmp/tree
	check "$name: fio randwrite verify" fio_verify "$DEV" randwrite "$FIO_SIZE"
	check "$name: fio randrw verify" fio_verify "$DEV" randrw "$FIO_SIZE"
	check "$name: discard reads zeros" discard_zeros "$DEV"
	check "$name: status counters moved" counters_moved "$DEV"
	check "$name: messages" messages "$DEV"
	note "$name: $(dmsetup status "$DEV")"
	check "$name: remove" dmsetup remove "$DEV"
	check "$name: kernel log clean" klog_clean
	wipe_members
done
finish
