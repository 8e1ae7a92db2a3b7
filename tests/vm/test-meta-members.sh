#!/bin/bash
# vm-run: --disks 5 --disk-size 64M --meta-size 16M --timeout 1200
# vmtest: beside
#
# The metadata on the members (issue 18 item 1; Documentation/
# on-disk-format.rst, "Metadata on the members"): a table with "-" for
# the metadata device keeps the metadata image after the label of every
# replica of the first column (ew and raid10 members 0 and N/2, ddm 0 and
# 1) and the data after it on every member.  It formats, reloads exactly,
# keeps every fsync'd write across a remove and a load (ewprobe
# generations), and each copy alone holds every fsync'd write (the other
# blanked: loaded from it, the other repaired).  A holder that fails at
# run time is dropped (status "DA", a dm event); the array then loads
# without that member ("-") from the other copy, and a replacement given
# while it runs is rebuilt and gets its copy at the next load ("repaired
# from copy 1"); one whose copy is still live (its data writes failed,
# behind ewfault) has that copy dropped first.  ewctl examine shows the
# copy a holder keeps; ewctl assemble finds the array by its labels in
# any order, from either copy alone, refuses a missing holder unless
# --degraded and an array with no valid copy.  A copy's blocks past its
# superblocks random: read from the other copy and repaired; a holder's
# whole metadata area random: repaired from the other, nothing lost.
# Refused: "-" with
# metadata_mirror, and "-" over an array whose metadata is on a device.
# Prints "ok - NAME" / "not ok - NAME" and "# " notes.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

load_target || { notok "module loaded"; finish; }
ok "module loaded"

# shellcheck disable=SC2206
D=($EW_DISKS)
DEV=ewmb
SZ=$(blockdev --getsz "${D[0]}")
# the members are linear devices, so that one can be switched to errors
A=()
for i in 0 1 2 3; do
	dmsetup create "ewmb$i" --table "0 $SZ linear ${D[$i]} 0" ||
		{ notok "member $i"; finish; }
	A+=("/dev/mapper/ewmb$i")
done
# a replacement: another device (the target knows a member by its device)
dmsetup create ewmbr --table "0 $SZ linear ${D[4]} 0" ||
	{ notok "replacement device"; finish; }
R=/dev/mapper/ewmbr
# shellcheck disable=SC2034 # read by target-lib's gen_write, gen_verify
GEN_BLOCKS=512

copies() { status_field "$DEV" 32; }
copies_are() {
	[ "$(copies)" = "$1" ] && return 0
	note "metadata copies: $(copies), want $1"
	return 1
}
# a member's label and the 1 MiB after it (where a copy's superblocks are)
blank() { dd if=/dev/zero of="$1" bs=1M count=2 oflag=direct status=none; }
blank_all() { local d; for d in "${A[@]}"; do blank "$d" || return 1; done; }
# image MEMBER FILE: the metadata image kept on MEMBER (from 1 MiB on)
image() {
	dd if="$1" of="$2" bs=1M skip=1 count=$((MB - 1)) iflag=direct \
		status=none
}
# kill_copy MEMBER: zeros over the superblocks of the copy kept there
kill_copy() {
	dd if=/dev/zero of="$1" bs=4096 seek=256 count=2 oflag=direct \
		status=none
}
# without DEV: the members but DEV, one a line
without() { local d; for d in "${A[@]}"; do [ "$d" = "$1" ] || echo "$d"; done; }
# ex_meta MEMBER FIELD: ewctl examine --json's metadata FIELD (a holder's copy)
ex_meta() { ewctl examine --json "$1" | jq -r ".[0].metadata$2"; }
# t_devno TABLE: TABLE with every /dev path as major:minor (as dmsetup prints)
t_devno() {
	local w out=()
	for w in $1; do
		[ -b "$w" ] && w=$(printf '%d:%d' "0x$(stat -L -c %t "$w")" \
			"0x$(stat -L -c %T "$w")")
		out+=("$w")
	done
	echo "${out[*]}"
}
# devs_of TABLE: what follows the metadata word "-": the count and members
devs_of() { echo "${1#* - }"; }
event_nr() { dmsetup info "$DEV" | awk '/Event number/ { print $3 }'; }
set_member() {	# set_member I TABLE: member I's device gets TABLE
	dmsetup suspend "ewmb$1" && dmsetup load "ewmb$1" --table "$2" &&
		dmsetup resume "ewmb$1"
}

for layout in ew raid10 ddm; do
	# hi1: H1's member index (read in the checks' eval strings)
	# shellcheck disable=SC2034
	case $layout in
	ddm) H0=${A[0]} H1=${A[1]} hi1=1 ;;
	*) H0=${A[0]} H1=${A[2]} hi1=2 ;;
	esac
	blank_all
	T=$(ewctl table --layout $layout --metadata - "${A[@]}")
	TJ=$(ewctl table --layout $layout --metadata - --json "${A[@]}")
	# the image's MiB, from the length ewctl left to the data
	MB=$(( (SZ - $(sed 's/.*"disk_sectors": \([0-9]*\).*/\1/' <<<"$TJ")) \
		/ 2048 ))
	note "$layout: $T (data after $MB MiB)"
	klog_mark
	check "$layout: create, metadata on the members" \
		dmsetup create $DEV --table "$T"
	check "$layout: the kernel formatted it" \
		klog_has "new array, metadata formatted"
	check "$layout: both copies written (AA)" copies_are AA
	check "$layout: ewctl status says where the metadata is" \
		eval 'ewctl status $DEV | grep -q "Metadata : on the members" &&
			ewctl status $DEV | grep -q "Metadata copies: AA (2 copies"'
	check "$layout: TABLE reloads exactly, with \"-\"" table_round_trip $DEV
	check "$layout: another table over its members while it runs: refused" \
		table_refused "Members in use by an array with another table" \
		"${T/sync 2/sync 1}"
	check "$layout: generations written" gen_write $DEV 400 1
	check "$layout: remove" dmsetup remove $DEV
	check "$layout: ewctl dump reads the image copied out" \
		eval 'image "$H0" /tmp/i0 &&
			ewctl dump /tmp/i0 | grep -q "^metadata size"'
	check "$layout: ewctl dump reads it on the holder" \
		eval 'ewctl dump "$H1" | grep -q "^metadata size"'
	check "$layout: the superblock says MEMBERS, data after the image" \
		eval 'ewctl dump --json "$H0" | grep -q "\"on_members\": true" &&
			ewctl dump --json "$H0" |
			grep -q "\"data_offset_sectors\": $((MB * 2048))"'
	check "$layout: ewctl check: both copies, in sync" \
		eval 'ewctl check --metadata-mirror "$H1" "$H0" "${A[@]}" |
			grep -q "copies: in sync"'
	check "$layout: ewctl check of a member without a copy: says so" \
		eval 'out=$(ewctl check "${A[3]}" "${A[@]}"); rc=$?;
			[ $rc = 1 ] && grep -q "holds no copy" <<<"$out"'
	check "$layout: load" dmsetup create $DEV --table "$T"
	check "$layout: load: no write lost" gen_verify $DEV
	check "$layout: load: AA" copies_are AA
	check "$layout: remove again" dmsetup remove $DEV
	# examine shows the copy a holder keeps; assemble finds the array by
	# its labels, the members given in another order
	check "$layout: examine: copy 0 and copy 1 on the holders, none on the others" \
		eval '[ "$(ex_meta "$H0" .copy)" = 0 ] &&
			[ "$(ex_meta "$H1" .copy)" = 1 ] &&
			[ "$(ex_meta "$H0" .on_members)" = true ] &&
			[ "$(ex_meta "${A[3]}" "")" = null ] &&
			ewctl examine "$H1" | grep -q "on the members; a copy from sector 2048"'
	check "$layout: assemble --dry-run: \"-\", members back in order" \
		eval 'ta=$(ewctl assemble --dry-run $DEV "${A[3]}" "${A[1]}" "${A[0]}" "${A[2]}") &&
			[ "$(devs_of "$ta")" = "$(devs_of "$T")" ] &&
			[ "${ta%% - *}" != "$ta" ] && ! dmsetup info $DEV >/dev/null 2>&1'
	check "$layout: assemble without a holder: refused, names it, nothing created" \
		eval '! ewctl assemble $DEV $(without "$H1") 2>/tmp/err &&
			grep -q "not found: $hi1" /tmp/err && ! dmsetup info $DEV >/dev/null 2>&1'
	check "$layout: ... --degraded: the table has it missing" \
		eval '[ "$(devs_of "$(ewctl assemble --degraded --dry-run $DEV $(without "$H1"))")" = "$(devs_of "${T/$H1/-}")" ]'
	# each copy alone holds every fsync'd write: the other one blanked,
	# the array loads from it and repairs the other; then new writes,
	# which must reach both (copy 1 first: copy 0 is the source while
	# both are live).  Copy 1 alone is assembled by ewctl.
	for h in 1 0; do
		if [ $h = 0 ]; then kill_copy "$H1"; else kill_copy "$H0"; fi
		klog_mark
		if [ $h = 1 ]; then
			check "$layout: copy 0 blanked: examine fails and says so" \
				eval '! ewctl examine "$H0" >/tmp/out &&
					grep -q "is damaged: superblock slots all zeros" /tmp/out'
			check "$layout: copy 1 alone: assemble names copy 0 and loads" \
				eval 'ewctl assemble $DEV "${A[2]}" "${A[0]}" "${A[3]}" "${A[1]}" 2>/tmp/err >/tmp/out &&
					grep -q "metadata copy of member 0 is not valid" /tmp/err &&
					grep -q "metadata on the members" /tmp/out &&
					[ "$(devs_of "$(dmsetup table $DEV)")" = "$(devs_of "$(t_devno "$T")")" ]'
		else
			check "$layout: copy $h alone: load" \
				dmsetup create $DEV --table "$T"
		fi
		check "$layout: copy $h alone: the other repaired from it" \
			klog_has "repaired from copy $h"
		check "$layout: copy $h alone: no write lost" gen_verify $DEV
		check "$layout: copy $h alone: AA" copies_are AA
		check "$layout: copy $h alone: new writes" \
			gen_write $DEV 200 $((7 + h))
		check "$layout: copy $h alone: remove" dmsetup remove $DEV
	done
	# copy 0's image past its superblocks random (the same generation on
	# both): each block the load needs is read from copy 1, written back
	dd if=/dev/urandom of="$H0" bs=4096 seek=258 \
		count=$(( (MB - 1) * 256 - 2 )) oflag=direct status=none
	klog_mark
	check "$layout: copy 0's blocks random: load" \
		dmsetup create $DEV --table "$T"
	check "$layout: copy 0's blocks random: read from copy 1, said" \
		klog_has "damaged, read from copy 1 and repaired"
	check "$layout: copy 0's blocks random: no write lost" gen_verify $DEV
	check "$layout: copy 0's blocks random: remove" dmsetup remove $DEV
	# a holder's whole metadata area destroyed: nothing lost
	dd if=/dev/urandom of="$H1" bs=1M seek=1 count=$((MB - 1)) \
		oflag=direct status=none
	klog_mark
	check "$layout: copy 1's whole area random: load" \
		dmsetup create $DEV --table "$T"
	check "$layout: copy 1's whole area random: repaired from copy 0" \
		klog_has "repaired from copy 0"
	check "$layout: copy 1's whole area random: no write lost" gen_verify $DEV
	check "$layout: copy 1's whole area random: AA" copies_are AA
	check "$layout: copy 1's whole area random: remove" dmsetup remove $DEV
	kill_copy "$H0" && kill_copy "$H1"
	check "$layout: no valid copy: assemble refuses, says why, creates nothing" \
		eval '! ewctl assemble $DEV "${A[@]}" 2>/tmp/err &&
			grep -q "no member holding a valid copy" /tmp/err &&
			! dmsetup info $DEV >/dev/null 2>&1'
done

# --- ew: a holder fails at run time, loads without it, is replaced
layout=ew
blank_all
T=$(ewctl table --layout ew --metadata - "${A[@]}")
TJ=$(ewctl table --layout ew --metadata - --json "${A[@]}")
MB=$(( (SZ - $(sed 's/.*"disk_sectors": \([0-9]*\).*/\1/' <<<"$TJ")) / 2048 ))
check "runtime: create" dmsetup create $DEV --table "$T"
check "runtime: writes" gen_write $DEV 300 2
# shellcheck disable=SC2034 # read in an eval below
ev0=$(event_nr)
klog_mark
set_member 0 "0 $SZ error"
check "runtime: writes go on after member 0 fails" gen_write $DEV 300 3
check "runtime: copy 0 dropped (DA)" copies_are DA
check "runtime: metadata still ok" \
	eval '[ "$(status_field $DEV 16)" = ok ]'
check "runtime: the kernel said so" klog_has "metadata copy 0 (dm-"
check "runtime: a dm event" eval '[ "$(event_nr)" -gt "$ev0" ]'
check "runtime: remove" dmsetup remove $DEV
TD=${T/ ${A[0]} / - }
# assembled by ewctl from copy 1 (member 2's), the only one it finds.
# Member 0 is missing, or failed when a data write reached it before the
# remove (the superblock then says so: timing, e.g. the debug kernel's)
check "degraded: ewctl assemble --degraded without member 0: loads, \"-\" in its place" \
	eval 'ewctl assemble --degraded $DEV "${A[3]}" "${A[2]}" "${A[1]}" >/tmp/out 2>/tmp/err &&
		grep -Eq "(1 missing, 0 failed|0 missing, 1 failed), metadata on the members" /tmp/out &&
		[ "$(devs_of "$(dmsetup table $DEV)")" = "$(devs_of "$(t_devno "$TD")")" ] ||
		{ cat /tmp/out /tmp/err; false; }'
check "degraded: every fsync'd write there" gen_verify $DEV
check "degraded: copy 0 missing (DA)" copies_are DA
check "degraded: TABLE reloads exactly" table_round_trip $DEV
check "degraded: remove" dmsetup remove $DEV
# a blank device given for member 0 while the array runs degraded: a
# replacement, rebuilt; its copy of the metadata comes at the next load
check "replaced: degraded load" dmsetup create $DEV --table "$TD"
blank "$R"
TR=${T/ ${A[0]} / $R }
klog_mark
check "replaced: reload with a new member 0" eval 'dmsetup suspend $DEV &&
	dmsetup load $DEV --table "$TR" && dmsetup resume $DEV'
check "replaced: rebuilt" rebuilt_drained $DEV 300
check "replaced: no write lost" gen_verify $DEV
check "replaced: copy 0 still out (DA)" copies_are DA
check "replaced: more writes" gen_write $DEV 300 4
check "replaced: remove" dmsetup remove $DEV
klog_mark
check "replaced: load" dmsetup create $DEV --table "$TR"
check "replaced: copy 0 repaired from copy 1, said" \
	eval 'klog_has "metadata copy 0 " && klog_has "repaired from copy 1"'
check "replaced: AA" copies_are AA
check "replaced: no write lost" gen_verify $DEV
check "replaced: remove" dmsetup remove $DEV
kill_copy "${A[2]}"
check "replaced: its copy alone: load" dmsetup create $DEV --table "$TR"
check "replaced: its copy alone: no write lost" gen_verify $DEV
check "replaced: its copy alone: remove" dmsetup remove $DEV

# a holder failed by write errors to its data while its copy still takes
# the metadata writes (below the data), then replaced at run time: the
# live copy is dropped before anything else is written
if load_ewfault; then
	set_member 0 "0 $SZ ewfault ${D[0]} 0"
	blank_all
	blank "$R"
	check "live copy replaced: create" dmsetup create $DEV --table "$T"
	check "live copy replaced: writes" gen_write $DEV 200 10
	dmsetup message ewmb0 0 fail_writes_from $((MB * 2048))
	check "live copy replaced: writes go on" gen_write $DEV 300 11
	for _ in $(seq 40); do
		[ "$(member_state $DEV 0)" = D ] && break
		sleep 0.5
	done
	check "live copy replaced: member 0 failed" \
		eval '[ "$(member_state $DEV 0)" = D ]'
	check "live copy replaced: its copy still live (AA)" copies_are AA
	klog_mark
	check "live copy replaced: reload with a new member 0" \
		eval 'dmsetup suspend $DEV && dmsetup load $DEV --table "$TR" &&
			dmsetup resume $DEV'
	check "live copy replaced: the copy dropped, said" \
		klog_has "its member is replaced: no longer written, marked stale"
	check "live copy replaced: DA" copies_are DA
	check "live copy replaced: rebuilt" rebuilt_drained $DEV 300
	check "live copy replaced: no write lost" gen_verify $DEV
	check "live copy replaced: remove" dmsetup remove $DEV
	klog_mark
	check "live copy replaced: load" dmsetup create $DEV --table "$TR"
	check "live copy replaced: repaired from copy 1" \
		klog_has "repaired from copy 1"
	check "live copy replaced: AA" copies_are AA
	check "live copy replaced: no write lost after the load" gen_verify $DEV
	check "live copy replaced: remove again" dmsetup remove $DEV
	dmsetup message ewmb0 0 clear
else
	notok "ewfault loaded"
fi

# refusals (member 0's first device back)
set_member 0 "0 $SZ linear ${D[0]} 0"
check "\"-\" with metadata_mirror: refused" table_refused \
	"Feature metadata_mirror needs a metadata device" \
	"${T% 0} 2 metadata_mirror $EW_META"
blank_all
wipe_array "$EW_META"
TM=$(ewctl table --layout ew --metadata "$EW_META" "${A[@]}")
check "an array on a metadata device: create" dmsetup create $DEV --table "$TM"
check "... written" gen_write $DEV 100 6
check "... remove" dmsetup remove $DEV
klog_mark
check "... \"-\" over it: refused" eval '! dmsetup create $DEV --table "$T" 2>/dev/null'
check "... \"-\" over it: said why" klog_has "eagerwrite: "
klog_since | grep "eagerwrite: " | sed 's/^/#   /'
check "... still loads with its metadata device" \
	dmsetup create $DEV --table "$TM"
check "... no write lost" gen_verify $DEV
check "... remove" dmsetup remove $DEV
klog_mark_all
check "kernel log clean (whole run)" klog_clean
for i in 0 1 2 3 r; do dmsetup remove "ewmb$i"; done
finish
