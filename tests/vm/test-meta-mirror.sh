#!/bin/bash
# vm-run: --disks 8 --disk-size 64M --meta-size 16M --timeout 1200
# vmtest: beside
#
# A mirrored metadata device (issue 18 item 3; Documentation/
# on-disk-format.rst, "Metadata copies"): a table with "metadata_mirror
# <dev>" writes the metadata image to both devices; either copy blank,
# corrupt, older or damaged block by block is repaired from the other at
# load, with a kernel line naming the repaired copy, and no acknowledged
# write is lost (ewprobe generations: an older block is caught, which fio
# verify_only could not see).  Both copies corrupt: refused, neither
# device written.  A copy that fails at run time is dropped: I/O goes on,
# status says "AD", a dm event is raised, and the survivor alone holds
# every fsync'd write.  Single-device tables still work and reload
# exactly.
# Prints "ok - NAME" / "not ok - NAME" and "# " notes.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

load_target || { notok "module loaded"; finish; }
ok "module loaded"

M=$EW_META
# shellcheck disable=SC2206
D=($EW_DISKS)
A=("${D[0]}" "${D[1]}" "${D[2]}" "${D[3]}")
DEV=ewmm
# copy 1 lives on a linear device, so that it can be switched to errors
MSZ=$(blockdev --getsz "$M")
M2=/dev/mapper/ewmm2
mirror_linear() { dmsetup create ewmm2 --table "0 $MSZ linear ${D[6]} 0"; }
mirror_linear || { notok "mirror device"; finish; }
# shellcheck disable=SC2034 # read by target-lib's gen_write, gen_verify
GEN_BLOCKS=512

# status INFO fields 32 and 33: the copies' states, blocks read elsewhere
copies() { status_field "$DEV" 32; }
copies_are() {
	[ "$(copies)" = "$1" ] && return 0
	note "metadata copies: $(copies), want $1"
	return 1
}
# the two copies hold the same metadata past the superblocks (which say
# which copy each is): blocks 2 .. TOT - 1 (TOT: the layout's size, from
# ewctl dump)
TOT=0
same_copies() {
	[ "$TOT" -gt 2 ] || { note "no metadata size"; return 1; }
	local out
	dd if="$M" of=/tmp/c0 bs=4096 skip=2 count=$((TOT - 2)) iflag=direct \
		status=none || return 1
	dd if="$M2" of=/tmp/c1 bs=4096 skip=2 count=$((TOT - 2)) iflag=direct \
		status=none || return 1
	out=$(cmp /tmp/c0 /tmp/c1 2>&1) && return 0
	note "metadata copies differ (from block 2): $out"
	return 1
}
repaired() {	# repaired COPY FROM: the kernel said which copy it repaired
	klog_has "metadata copy $1 " && klog_has "repaired from copy $2" &&
		return 0
	klog_since | grep eagerwrite | sed 's/^/#   /'
	return 1
}
no_repair() { ! klog_has "repaired"; }
unchanged() { [ "$(sums)" = "$before" ]; }
sums() {	# the first 8 MiB of both copies
	dd if="$M" bs=1M count=8 iflag=direct status=none | sha256sum
	dd if="$M2" bs=1M count=8 iflag=direct status=none | sha256sum
}
corrupt_sb() {	# corrupt_sb DEV: random bytes over both superblock slots
	dd if=/dev/urandom of="$1" bs=4096 count=2 conv=notrunc,fsync \
		status=none
}
event_raised() { [ "$(event_nr)" -gt "$ev0" ]; }
event_nr() { dmsetup info "$DEV" | awk '/Event number/ { print $3 }'; }
ewctl_check() {	# ewctl_check RC STRING: ewctl check of both copies
	local out rc
	out=$(ewctl check --quiet --metadata-mirror "$M2" "$M" "${A[@]}")
	rc=$?
	[ "$rc" = "$1" ] && grep -qF -- "$2" <<<"$out" && return 0
	note "ewctl check: rc $rc (want $1), want \"$2\""
	printf '%s\n' "$out" | tail -n 3 | sed 's/^/#   /'
	return 1
}

for layout in ew raid10; do
	wipe_array "$M" "${A[@]}"
	wipe_array "$M2"
	T1=$(ewctl table --layout $layout --metadata "$M" "${A[@]}")
	T2=$(ewctl table --layout $layout --metadata "$M" \
		--metadata-mirror "$M2" "${A[@]}")
	note "$layout table: $T2"
	klog_mark
	check "$layout: create with a metadata mirror" \
		dmsetup create $DEV --table "$T2"
	check "$layout: status has 36 fields" \
		eval '[ "$(dmsetup status $DEV | wc -w)" = 39 ]'
	check "$layout: both copies written (AA)" copies_are AA
	check "$layout: TABLE reloads exactly" table_round_trip $DEV
	check "$layout: generations written" gen_write $DEV 400 1
	check "$layout: remove" dmsetup remove $DEV
	TOT=$(ewctl dump "$M" | awk '/^metadata size/ { print $3 }')
	note "metadata size: $TOT blocks"
	check "$layout: the copies are the same" same_copies
	check "$layout: ewctl check: copies in sync" ewctl_check 0 \
		"copies: in sync"

	# copy 1 blank (a replaced SSD): repaired from copy 0
	dd if=/dev/zero of="$M2" bs=1M count=8 conv=fsync status=none
	check "$layout: copy 1 blank: ewctl check names it" ewctl_check 3 \
		"copy 1 ($M2): stale: blank"
	klog_mark
	check "$layout: copy 1 blank: create" dmsetup create $DEV --table "$T2"
	check "$layout: copy 1 blank: repaired, said" repaired 1 0
	check "$layout: copy 1 blank: no write lost" gen_verify $DEV
	check "$layout: copy 1 blank: AA" copies_are AA
	check "$layout: copy 1 blank: remove" dmsetup remove $DEV
	check "$layout: copy 1 blank: copies the same again" same_copies

	# copy 0 corrupt (both superblock slots): repaired from copy 1
	corrupt_sb "$M"
	check "$layout: copy 0 corrupt: ewctl check names it" ewctl_check 3 \
		"copy 0 ($M): stale: no valid superblock"
	klog_mark
	check "$layout: copy 0 corrupt: create" dmsetup create $DEV --table "$T2"
	check "$layout: copy 0 corrupt: repaired, said" repaired 0 1
	check "$layout: copy 0 corrupt: no write lost" gen_verify $DEV
	check "$layout: copy 0 corrupt: more writes" gen_write $DEV 200 2
	check "$layout: copy 0 corrupt: remove" dmsetup remove $DEV

	# copy 0 damaged past its superblocks (same generation on both):
	# each bad block read from copy 1 and written back
	dd if=/dev/urandom of="$M" bs=4096 seek=2 count=$((TOT - 2)) \
		conv=notrunc,fsync status=none
	klog_mark
	check "$layout: copy 0 blocks damaged: create" \
		dmsetup create $DEV --table "$T2"
	check "$layout: copy 0 blocks damaged: read from copy 1, said" \
		klog_has "damaged, read from copy 1 and repaired"
	check "$layout: copy 0 blocks damaged: counted in status" \
		eval '[ "$(status_field $DEV 33)" -gt 0 ]'
	check "$layout: copy 0 blocks damaged: no write lost" gen_verify $DEV
	check "$layout: copy 0 blocks damaged: remove" dmsetup remove $DEV
	klog_mark
	check "$layout: repaired on disk: create" dmsetup create $DEV --table "$T2"
	check "$layout: repaired on disk: nothing to repair" no_repair
	check "$layout: repaired on disk: remove" dmsetup remove $DEV

	# a table with the metadata device alone (single-device syntax)
	# moves on; copy 1 is then older, and repaired at the next load
	klog_mark
	check "$layout: single-device table: create" \
		dmsetup create $DEV --table "$T1"
	check "$layout: single-device table: one copy (A)" copies_are A
	check "$layout: single-device table: reloads exactly" \
		table_round_trip $DEV
	check "$layout: single-device table: writes" gen_write $DEV 200 3
	check "$layout: single-device table: remove" dmsetup remove $DEV
	klog_mark
	check "$layout: older copy 1: create" dmsetup create $DEV --table "$T2"
	check "$layout: older copy 1: repaired, said" repaired 1 0
	check "$layout: older copy 1: no write lost" gen_verify $DEV
	check "$layout: older copy 1: remove" dmsetup remove $DEV
	check "$layout: older copy 1: copies the same again" same_copies

	# both copies corrupt: refused, nothing written
	corrupt_sb "$M"
	corrupt_sb "$M2"
	check "$layout: both copies corrupt: ewctl check says so" ewctl_check 1 \
		"copies: no valid copy"
	before=$(sums)
	check "$layout: both copies corrupt: refused" table_refused \
		"No valid metadata copy" "$T2"
	check "$layout: both copies corrupt: neither written" unchanged
done

# --- copy 1 fails at run time
wipe_array "$M" "${A[@]}"
wipe_array "$M2"
T1=$(ewctl table --layout ew --metadata "$M" "${A[@]}")
T2=$(ewctl table --layout ew --metadata "$M" --metadata-mirror "$M2" "${A[@]}")
check "runtime: create" dmsetup create $DEV --table "$T2"
check "runtime: writes" gen_write $DEV 200 4
ev0=$(event_nr)
klog_mark
dmsetup suspend ewmm2 && dmsetup load ewmm2 --table "0 $MSZ error" &&
	dmsetup resume ewmm2
check "runtime: writes go on after copy 1 fails" gen_write $DEV 300 5
check "runtime: status says copy 1 stale (AD)" copies_are AD
check "runtime: metadata mode still ok" eval '[ "$(status_field $DEV 16)" = ok ]'
check "runtime: the kernel said so" klog_has "metadata copy 1 (dm-"
check "runtime: a dm event" event_raised
check "runtime: ewctl status shows it" \
	eval 'ewctl status $DEV | grep -q "Metadata copies: AD (2 copies, 1 stale)"'
check "runtime: remove" dmsetup remove $DEV
# the old device back (its metadata stale, and said so on copy 0)
dmsetup suspend ewmm2 && dmsetup load ewmm2 \
	--table "0 $MSZ linear ${D[6]} 0" && dmsetup resume ewmm2
check "runtime: ewctl check: copy 1 marked stale" ewctl_check 3 \
	"copy 1 ($M2): stale: marked stale by the other copy"
check "runtime: the survivor alone: create" dmsetup create $DEV --table "$T1"
check "runtime: the survivor alone: no fsync'd write lost" gen_verify $DEV
check "runtime: the survivor alone: remove" dmsetup remove $DEV
# with the old copy 1 again: repaired from the survivor
klog_mark
check "runtime: stale copy back: create" dmsetup create $DEV --table "$T2"
check "runtime: stale copy back: repaired, said" repaired 1 0
check "runtime: stale copy back: no write lost" gen_verify $DEV
check "runtime: stale copy back: AA" copies_are AA
check "runtime: remove" dmsetup remove $DEV

# the parser's refusals reach the user
check "mirror is the metadata device: refused" table_refused \
	"Metadata mirror is the metadata device" "${T1% 0} 2 metadata_mirror $M"
check "mirror is a data device: refused" table_refused \
	"Metadata mirror is also a data device" \
	"${T1% 0} 2 metadata_mirror ${A[1]}"
klog_mark_all
check "kernel log clean (whole run)" klog_clean
dmsetup remove ewmm2
finish
