#!/bin/bash
# vm-run: --icount --disks 4 --disk-size 128M --meta-size 32M --mem 2048 --timeout 1500 --rotational 1
# vmtest: beside
#
# Persistence across remove and create within one boot (issue 5): for
# raid10, ddm and ew at sync 1 (sync 2 is in host-persist-reboot.sh, to
# keep make check short; give all six configs as arguments for the full
# set), on the 4 members and the metadata device: a new
# array; mkfs.ext4; a tree of files with sha256 sums (make_tree); fio
# verify.fio's randwrite phase on a file of it; umount; dmsetup remove;
# dmsetup create with the same table line, which must reassemble the
# array from its metadata; e2fsck -fn clean; the sums match; fio
# verify-check.fio passes; remove.  The kernel log must stay clean.
#
# A control runs first, so that every run proves each check can fail: the
# same steps on dm-linear over a member, and between remove and create
# three filesystem blocks are zeroed on the member: one of the fio file,
# one of a tree file, the first of a directory.  verify-check, the sums
# and e2fsck must each report their block.
#
# Arguments choose the configs (vm-run passes arguments, not the
# environment): "raid10:2 ddm:2" runs those; "linear" is dm-linear, which
# passes (the harness's own check); --no-control leaves the control out:
#   scripts/vm-run --disks 4 --disk-size 128M --meta-size 32M \
#       -- tests/vm/test-persist.sh linear
# Prints "ok - NAME" / "not ok - NAME" and "# " notes.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"
# shellcheck source=tests/vm/persist-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/persist-lib.sh"

control=1
[ "${1-}" = --no-control ] && { control=0; shift; }
configs=${*:-"raid10:1 ddm:1 ew:1"}
FIO_SIZE=16M
NAME=ewp
mapfile -t members </ew/disks
meta=$EW_META

case " $configs " in
*:*) load_target || { notok "module loaded"; finish; } ;;
esac
make_tree /tmp/tree

# round CONFIG CONTROL: one remove/create round trip; CONTROL=1 zeroes the
# volume in between and expects every check to report it.
round() {
	local cfg=$1 control=$2 name dev t0=$SECONDS fsck_ok sums_ok fio_ok
	name="$cfg"
	[ "$control" = 1 ] && name="control ($cfg, 3 blocks zeroed between remove and create)"
	klog_mark
	pl_fresh "$meta" "${members[@]}" || { notok "$name: clear the devices"; return; }
	dev=$(pl_assemble $NAME "$cfg" "$meta" "${members[@]}") || { notok "$name: create"; return; }
	ok "$name: create"
	if ! pl_write_fs "$dev" /tmp/tree "$FIO_SIZE"; then
		notok "$name: mkfs.ext4, copy a tree, fio verify write"
		pl_remove $NAME "$cfg"
		return
	fi
	ok "$name: mkfs.ext4, copy a tree, fio verify write"
	[ "$control" = 1 ] && { pl_lose_blocks "$dev" || notok "$name: find the blocks to zero"; }
	check "$name: remove" pl_remove $NAME "$cfg"
	[ "$control" = 1 ] && pl_zero_lost "${members[0]}"
	dev=$(pl_assemble $NAME "$cfg" "$meta" "${members[@]}") ||
		{ notok "$name: create again from the same table"; return; }
	ok "$name: create again from the same table"
	pl_fsck "$dev" && fsck_ok=1 || fsck_ok=0
	pl_sums "$dev" /tmp/tree.sums && sums_ok=1 || sums_ok=0
	pl_fio_check "$dev" "$FIO_SIZE" && fio_ok=1 || fio_ok=0
	if [ "$control" = 1 ]; then
		# the sums must fail for the file's own block, not only the directory's
		grep -q 'd4/f6: FAILED' /tmp/pl-sums.out || sums_ok=1
		note "control: fsck clean $fsck_ok, sums match $sums_ok, fio verify-check $fio_ok (all must be 0)"
		[ $((fsck_ok + sums_ok + fio_ok)) = 0 ] &&
			ok "$name: fsck, sums and fio verify-check each report their lost block" ||
			notok "$name: fsck, sums and fio verify-check each report their lost block"
	else
		[ $fsck_ok = 1 ] && ok "$name: e2fsck -fn clean after re-create" ||
			notok "$name: e2fsck -fn clean after re-create"
		[ $sums_ok = 1 ] && ok "$name: every file's sha256 matches" ||
			notok "$name: every file's sha256 matches"
		[ $fio_ok = 1 ] && ok "$name: fio verify-check passes" ||
			notok "$name: fio verify-check passes"
	fi
	[ "$cfg" = linear ] || dmsetup status $NAME | sed 's/^/# status: /'
	check "$name: remove" pl_remove $NAME "$cfg"
	check "$name: kernel log clean" klog_clean
	wipe_members
	blkdiscard "$meta" 2>/dev/null
	note "$name: $((SECONDS - t0)) s"
}

[ "$control" = 1 ] && round linear 1
for c in $configs; do
	round "$c" 0
done
if pl_memory_only_warned; then
	note "the target logged 'map in memory only': issue 5's persistence is not in this module, so the eagerwrite rounds are expected to fail"
fi
finish
