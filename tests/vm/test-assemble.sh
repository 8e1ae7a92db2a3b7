#!/bin/bash
# vm-run: --icount --disks 11 --disk-size 64M --meta-size 16M --timeout 600
# vmtest: beside
#
# Finding and assembling arrays (issue 17, items 3 and 4): ewctl examine
# reads member labels and superblocks; ewctl assemble orders members
# presented in any order by their labels, refuses a member of another
# array, a member found twice, an incomplete set (unless --degraded) and
# leaves nothing created when it refuses; /etc/eagerwrite.conf and
# --scan; ewctl status (text and --json) names the status fields.
# Mirrored metadata (metadata_mirror) on the real target: examine names
# each copy, assemble puts copy 0 first and copy 1 in metadata_mirror
# whatever the order given, refuses a missing copy unless --degraded (and
# --force when the copy found does not mark the missing one stale), takes
# the newer copy alone over the older pair it superseded, and
# includes a copy the target marked stale at run time, which the target
# then resynchronises; generation-checked data verifies each time.
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
A=("${D[0]}" "${D[1]}" "${D[2]}" "${D[3]}")	# array A (ew), metadata $M
B=("${D[4]}" "${D[5]}" "${D[6]}" "${D[7]}")	# array B (raid10), metadata $MB
MB=${D[8]}
X=${D[9]}					# scratch
MMD=${D[10]}					# under copy 1 of mirrored metadata
wipe_array "$M" "${A[@]}" && wipe_array "$MB" "${B[@]}" "$X"
klog_mark
out=/tmp/out err=/tmp/err
run() {	# run WANT_RC CMD...: stdout in $out, stderr in $err
	local want=$1 rc
	shift
	"$@" >"$out" 2>"$err"
	rc=$?
	[ "$rc" = "$want" ] || { note "$* exited $rc, wanted $want"; sed 's/^/#   /' "$err" | head -n 5; return 1; }
}
gone() { ! dmsetup info "$1" >/dev/null 2>&1; }
devno() { printf '%d:%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }
# The table's members, in order, as major:minor (field 7 on: after the
# metadata device and the member count).
members_of() { dmsetup table "$1" | awk '{
	for (i = 1; i <= NF; i++) if ($i == "eagerwrite") break
	k = i + 2 + $(i + 2)		# the word before the metadata device
	n = $(k + 2)
	s = ""; for (j = 0; j < n; j++) s = s (j ? " " : "") $(k + 3 + j)
	print s }'; }

# --- two arrays with data --------------------------------------------------
TA=$(ewctl table --layout ew --sync 2 --metadata "$M" "${A[@]}")
TB=$(ewctl table --layout raid10 --sync 2 --metadata "$MB" "${B[@]}")
dmsetup create ewa --table "$TA" && dmsetup create ewb --table "$TB" ||
	{ notok "create arrays A and B"; finish; }
dd if=/dev/urandom of=/tmp/data bs=1M count=4 status=none
# an older generation first: a stale replica read after assembly returns
# valid-looking data that the exact sha256 still catches (issue 19)
dd if=/dev/urandom of=/dev/mapper/ewa bs=1M count=4 oflag=direct status=none
dd if=/tmp/data of=/dev/mapper/ewa bs=1M oflag=direct status=none
sum=$(sha256sum </tmp/data)
dmsetup remove ewa && dmsetup remove ewb
check "two arrays created, 4 MiB written to A, both removed" [ -n "$sum" ]

# --- examine -----------------------------------------------------------------
uuid=$(ewctl examine --json "$M" | jq -r '.[0].uuid')
uuidb=$(ewctl examine --json "$MB" | jq -r '.[0].uuid')
check "examine: the metadata devices carry two different array UUIDs" \
	eval '[ -n "$uuid" ] && [ "$uuid" != null ] && [ -n "$uuidb" ] && [ "$uuid" != "$uuidb" ]'
ex_members() {
	local i
	for i in 0 1 2 3; do
		ewctl examine --json "${A[$i]}" >"$out" || return 1
		[ "$(jq -r '.[0].kind' "$out")" = member ] &&
			[ "$(jq -r '.[0].member' "$out")" = "$i" ] &&
			[ "$(jq -r '.[0].uuid' "$out")" = "$uuid" ] &&
			[ "$(jq -r '.[0].layout' "$out")" = ew ] || { cat "$out"; return 1; }
	done
}
check "examine: each member of A says its index, A's UUID, layout ew" ex_members
check "examine: text form names member and UUID" \
	eval 'ewctl examine "${A[2]}" | grep -q "eagerwrite member 2 of 4" && ewctl examine "${A[2]}" | grep -q "$uuid"'
check "examine: the metadata device (text) names the layout and state" \
	eval 'ewctl examine "$M" | grep -q "eagerwrite metadata of 4 members" && ewctl examine "$M" | grep -q "state: *clean"'
check "examine: a device without a label exits 1 and says so" \
	eval 'run 1 ewctl examine "$X" && grep -q "not eagerwrite" "$out"'
dd if="${A[0]}" of="$X" bs=4096 count=1 status=none
printf '\x55' | dd of="$X" bs=1 seek=200 conv=notrunc status=none
check "examine: a damaged label is reported damaged (exit 1)" \
	eval 'run 1 ewctl examine --json "$X" && [ "$(jq -r ".[0].kind" "$out")" = damaged ]'
check "examine: no device is a usage error (2)" run 2 ewctl examine

# --- assemble ----------------------------------------------------------------
# two members rotational, two not (the queue attribute is writable): the
# calibration hint counts the two
rotq() {	# rotq DEV: its queue's rotational attribute file
	echo "/sys/dev/block/$(devno "$1")/queue/rotational"
}
rot_saved=()
for i in 0 1 2 3; do rot_saved[i]=$(cat "$(rotq "${A[$i]}")" 2>/dev/null); done
rot_set() {	# rot_set V0 V1 V2 V3
	local i=0 v
	for v in "$@"; do echo "$v" >"$(rotq "${A[$i]}")" || return 1; i=$((i + 1)); done
}
check "members 1 and 3 rotational, 0 and 2 not (sysfs)" rot_set 0 1 0 1
check "assemble: members in shuffled order, metadata in the middle" \
	run 0 ewctl assemble ewa "${A[3]}" "${A[1]}" "$M" "${A[0]}" "${A[2]}"
check "assemble: says 2 members are rotational and names the calibration" \
	eval 'grep -q "ewa: 2 members are rotational: .*ewctl calibrate --array ewa" "$err" || { note "stderr: $(cat "$err")"; false; }'
want="$(devno "${A[0]}") $(devno "${A[1]}") $(devno "${A[2]}") $(devno "${A[3]}")"
check "assemble: the table lists the members in index order" \
	eval '[ "$(members_of ewa)" = "$want" ] || { note "got $(members_of ewa), want $want"; false; }'
check "assemble: the data written before is read back" \
	eval '[ "$(dd if=/dev/mapper/ewa bs=1M count=4 iflag=direct status=none | sha256sum)" = "$sum" ]'
check "assemble: a NAME that exists already is refused (1)" \
	eval 'run 1 ewctl assemble ewa "${A[@]}" "$M" && grep -q "exists already" "$err"'
check "no member rotational (sysfs)" rot_set 0 0 0 0
check "assemble: no calibration hint without a rotational member" \
	eval 'dmsetup remove ewa && run 0 ewctl assemble ewa "${A[@]}" "$M" && ! grep -q rotational "$err"'
rot_set "${rot_saved[@]}" 2>/dev/null
dmsetup remove ewa
check "assemble: a member of another array is refused, nothing created" \
	eval 'run 1 ewctl assemble ewa "${A[0]}" "${A[1]}" "${A[2]}" "${B[3]}" "$M" && grep -q "belongs to array $uuidb" "$err" && gone ewa'
check "assemble: a device without a label is refused" \
	eval 'dd if=/dev/zero of="$X" bs=4096 count=1 status=none; run 1 ewctl assemble ewa "${A[@]}" "$X" "$M" && gone ewa'
check "assemble: an incomplete set is refused (member 2 not found)" \
	eval 'run 1 ewctl assemble ewa "${A[0]}" "${A[1]}" "${A[3]}" "$M" && grep -q "incomplete: 1 of 4 members not found: 2" "$err" && gone ewa'
check "assemble: scanning every device with two arrays present needs --uuid" \
	eval 'run 1 ewctl assemble ewa && grep -q "several arrays found" "$err" && gone ewa'
dd if="${A[1]}" of="$X" bs=4096 count=1 status=none
check "assemble: a member label found twice (a copied disk) is refused" \
	eval 'run 1 ewctl assemble --uuid "$uuid" ewa && grep -q "member 1 of array $uuid found twice" "$err" && gone ewa'
dd if=/dev/zero of="$X" bs=4096 count=1 status=none
check "assemble --dry-run --json: the plan, nothing created" \
	eval 'run 0 ewctl assemble --dry-run --json --uuid "$uuid" ewa && [ "$(jq -r .uuid "$out")" = "$uuid" ] && [ "$(jq ".members | length" "$out")" = 4 ] && gone ewa'
check "assemble --uuid, scanning /proc/partitions" run 0 ewctl assemble --uuid "$uuid" ewa
check "assemble (scan): the data is read back" \
	eval '[ "$(dd if=/dev/mapper/ewa bs=1M count=4 iflag=direct status=none | sha256sum)" = "$sum" ]'

# --- status --------------------------------------------------------------------
check "status: text names layout, members and their devices" \
	eval 'run 0 ewctl status ewa && grep -q "Layout : ew" "$out" && grep -q "Members : 4: 4 alive" "$out" && grep -q "Member  3 : $(devno "${A[3]}")" "$out"'
check "status --json: named fields agree with dmsetup status" \
	eval 'run 0 ewctl status --json ewa && [ "$(jq -r ".[0].layout" "$out")" = ew ] && [ "$(jq -r ".[0].member_states" "$out")" = "$(status_field ewa 7)" ] && [ "$(jq -r ".[0].writes" "$out")" = "$(status_field ewa 10)" ] && [ "$(jq -r ".[0].sync" "$out")" = 2 ] && [ "$(jq ".[0].devices | length" "$out")" = 4 ]'
dmsetup create ewlin --table "0 8 linear ${D[9]} 0"
check "status: a device that is not eagerwrite is refused (1)" \
	eval 'run 1 ewctl status ewlin && grep -q "not an eagerwrite array" "$err"'
dmsetup remove ewlin
check "status: every eagerwrite array when no NAME is given" \
	eval 'run 0 ewctl status --json && [ "$(jq length "$out")" = 1 ] && [ "$(jq -r ".[0].name" "$out")" = ewa ]'
dmsetup remove ewa

# --- config file, --scan --------------------------------------------------------
mkdir -p /etc
printf '# test\newa %s\newb %s noauto\n' "$uuid" "$uuidb" >/etc/eagerwrite.conf
check "assemble --scan: creates the arrays of eagerwrite.conf but noauto ones" \
	eval 'run 0 ewctl assemble --scan && ! gone ewa && gone ewb'
check "assemble --scan again: active arrays are skipped, exit 0" \
	eval 'run 0 ewctl assemble --scan && grep -q "ewa is active already" "$out"'
check "assemble NAME takes the UUID from eagerwrite.conf" \
	eval 'run 0 ewctl assemble ewb && ! gone ewb'
dmsetup remove ewa; dmsetup remove ewb
printf 'ewa not-a-uuid\n' >/etc/eagerwrite.conf
check "assemble --scan: a bad config line is a usage error (2), nothing created" \
	eval 'run 2 ewctl assemble --scan && grep -q "eagerwrite.conf:1" "$err" && gone ewa'
printf 'ewa %s bogus\n' "$uuid" >/etc/eagerwrite.conf
check "assemble --scan: an unknown option is refused (2)" \
	eval 'run 2 ewctl assemble --scan && grep -q "unknown option .bogus." "$err"'
rm -f /etc/eagerwrite.conf
check "assemble: bad --uuid is a usage error (2)" run 2 ewctl assemble --uuid zz ewa
check "assemble: no NAME is a usage error (2)" run 2 ewctl assemble

# --- degraded (last: a degraded load may mark the member failed) ----------------
check "assemble --degraded: member 2 missing becomes '-'" \
	run 0 ewctl assemble --degraded ewa "${A[0]}" "${A[1]}" "${A[3]}" "$M"
check "assemble --degraded: the table has '-' at member 2" \
	eval '[ "$(members_of ewa | cut -d" " -f3)" = - ]'
check "assemble --degraded: the data is read back from the other replicas" \
	eval '[ "$(dd if=/dev/mapper/ewa bs=1M count=4 iflag=direct status=none | sha256sum)" = "$sum" ]'
dmsetup remove ewa

# --- mirrored metadata (metadata_mirror) --------------------------------------
# A's members again, a new array whose metadata is on $M (copy 0) and on
# $MM (copy 1), a dm-linear over $MMD that is switched to the error
# target to fail copy 1 while the array runs.  Order: both copies, a
# stale copy, then a missing one (--degraded writes copy 0 as metadata
# of one copy, so the copies disagree on the count after it).
MMSZ=$(blockdev --getsz "$MMD")
MM=/dev/mapper/ewmm
mm_table() {	# mm_table linear|error: what is under copy 1
	if [ "$1" = linear ]; then echo "0 $MMSZ linear $MMD 0"; else echo "0 $MMSZ error"; fi
}
mm_switch() { dmsetup suspend ewmm && dmsetup load ewmm --table "$(mm_table "$1")" && dmsetup resume ewmm; }
# the table's metadata device and its metadata_mirror (or "none")
meta_of() { dmsetup table "$1" | awk '{
	for (i = 1; i <= NF; i++) if ($i == "eagerwrite") break
	print $(i + 3 + $(i + 2)) }'; }
mirror_of() { dmsetup table "$1" | awk '{
	m = "none"; for (i = 1; i < NF; i++) if ($i == "metadata_mirror" && $(i - 1) == 2) m = $(i + 1)
	print m }'; }
copies_are() {	# copies_are DEV WANT: status field 32 (metadata copies)
	[ "$(status_field "$1" 32)" = "$2" ] && return 0
	note "metadata copies: $(status_field "$1" 32), want $2"
	return 1
}
copies_become() {	# copies_become DEV WANT SECONDS: field 32 reaches WANT
	local _
	for _ in $(seq $(($3 * 4))); do
		[ "$(status_field "$1" 32)" = "$2" ] && return 0
		sleep 0.25
	done
	copies_are "$1" "$2"
}
table_is() {	# table_is DEV META MIRROR: the metadata device and mirror
	local m r
	m=$(meta_of "$1") r=$(mirror_of "$1")
	[ "$m" = "$2" ] && [ "$r" = "$3" ] && return 0
	note "metadata $m mirror $r, want $2 and $3: $(dmsetup table "$1")"
	return 1
}
ex_copy() {	# ex_copy DEV TEXT: ewctl examine DEV has "metadata copy: TEXT"
	ewctl examine "$1" >"$out" && grep -qF "metadata copy: $2" "$out" &&
		[ "$(ewctl examine --json "$1" | jq -r '.[0].uuid')" = "$uuidm" ] && return 0
	sed 's/^/#   /' "$out"
	return 1
}
sb_gen() { ewctl examine --json "$1" | jq -r '.[0].generation'; }
dmsetup create ewmm --table "$(mm_table linear)"
wipe_array "$M" "${A[@]}" && dd if=/dev/zero of="$MM" bs=4096 count=2 conv=fsync status=none
TM=$(ewctl table --layout ew --sync 2 --metadata "$M" --metadata-mirror "$MM" "${A[@]}")
check "mirror: create with --metadata-mirror" dmsetup create ewm --table "$TM"
check "mirror: both copies written (AA)" copies_are ewm AA
check "mirror: generation-checked writes" gen_write ewm 400 1
check "mirror: removed" dmsetup remove ewm
uuidm=$(ewctl examine --json "$M" | jq -r '.[0].uuid')
check "mirror: a new array (UUID not A's)" \
	eval '[ -n "$uuidm" ] && [ "$uuidm" != null ] && [ "$uuidm" != "$uuid" ]'
check "mirror: examine A says copy 0 of 2, none stale" \
	ex_copy "$M" "copy 0 of 2 (metadata_mirror), stale: none"
check "mirror: examine B says copy 1 of 2, none stale" \
	ex_copy "$MM" "copy 1 of 2 (metadata_mirror), stale: none"
check "mirror: assemble, B before A, members shuffled; no copy named older" \
	eval 'run 0 ewctl assemble ewm "$MM" "${A[2]}" "${A[0]}" "$M" "${A[3]}" "${A[1]}" && grep -q "metadata on 2 copies" "$out" && ! grep -q "metadata copy" "$err"'
check "mirror: the table has A as metadata, 2 metadata_mirror B" \
	table_is ewm "$(devno "$M")" "$(devno "$MM")"
check "mirror: the table lists the members in index order" \
	eval '[ "$(members_of ewm)" = "$want" ] || { note "got $(members_of ewm), want $want"; false; }'
check "mirror: both copies live (AA)" copies_are ewm AA
check "mirror: no acknowledged write lost" gen_verify ewm

# copy 1 fails at run time: marked stale by copy 0, then back
klog_mark
mm_switch error
check "stale: writes go on after copy 1 fails" gen_write ewm 300 2
check "stale: the kernel marked copy 1 stale" klog_has "no longer written, marked stale"
check "stale: status says copy 1 stale (AD)" copies_are ewm AD
check "stale: removed" dmsetup remove ewm
mm_switch linear
check "stale: examine A says copy 1 stale" \
	ex_copy "$M" "copy 0 of 2 (metadata_mirror), stale: copy 1"
check "stale: B is older than A" eval '[ "$(sb_gen "$MM")" -lt "$(sb_gen "$M")" ]'
klog_mark
check "stale: assemble includes B and names it stale" \
	eval 'run 0 ewctl assemble ewm "$MM" "${A[@]}" "$M" && grep -qF "metadata copy 1 ($MM) is marked stale" "$err"'
check "stale: the table has A as metadata, 2 metadata_mirror B" \
	table_is ewm "$(devno "$M")" "$(devno "$MM")"
check "stale: the target resynchronised B (AA), said so" \
	eval 'copies_become ewm AA 10 && klog_has "repaired from copy 0"'
check "stale: no acknowledged write lost" gen_verify ewm
check "stale: removed" dmsetup remove ewm
check "stale: examine A and B: in sync again, none stale" \
	eval 'ex_copy "$M" "copy 0 of 2 (metadata_mirror), stale: none" && ex_copy "$MM" "copy 1 of 2 (metadata_mirror), stale: none" && [ "$(sb_gen "$MM")" = "$(sb_gen "$M")" ]'

# a scan of /proc/partitions sees copy 1 on $MMD and on ewmm over it:
# the device something holds is seen through its holder, not twice
check "scan: copy 1 under a dm-linear is found once, through it" \
	eval 'run 0 ewctl assemble --dry-run --json --uuid "$uuidm" ewm && ! grep -q "found twice" "$err" && [ "$(devno "$(jq -r .metadata_mirror "$out")")" = "$(devno "$MM")" ]'

# a copy missing
check "missing: B not given: refused (1), nothing created" \
	eval 'run 1 ewctl assemble ewm "${A[@]}" "$M" && grep -q "metadata copy 1 of 2 not found" "$err" && gone ewm'
check "missing: A not given: refused (1), nothing created" \
	eval 'run 1 ewctl assemble ewm "${A[@]}" "$MM" && grep -q "metadata copy 0 of 2 not found" "$err" && gone ewm'
dd if="$MM" of=/tmp/mm-head bs=4096 count=2 status=none
dd if=/dev/zero of="$MM" bs=4096 count=2 conv=fsync status=none
check "missing: B zeroed, scan by UUID: refused (1), nothing created" \
	eval 'run 1 ewctl assemble --uuid "$uuidm" ewm && grep -q "metadata copy 1 of 2 not found" "$err" && gone ewm'
# A and B were in sync: A does not mark B stale, so B may have gone on
# alone since (A cannot tell): --degraded alone refuses, --force takes A
check "missing: --degraded: A does not mark B stale: refused (1), nothing created" \
	eval 'run 1 ewctl assemble --degraded ewm "${A[@]}" "$M" && grep -q "does not mark it stale: copy 1 may be the newer one" "$err" && gone ewm'
check "missing: --degraded --force assembles from A alone" \
	eval 'run 0 ewctl assemble --degraded --force ewm "${A[@]}" "$M" && grep -q "copy 1 not found: assembling from copy 0 .* (--force: it does not mark the missing copy stale)" "$err"'
check "missing: the table has A as metadata, no metadata_mirror" \
	table_is ewm "$(devno "$M")" none
check "missing: one copy (A)" copies_are ewm A
check "missing: no acknowledged write lost" gen_verify ewm
check "missing: removed" dmsetup remove ewm
check "missing: A is now metadata of one copy" \
	eval '[ "$(ewctl examine --json "$M" | jq -r ".[0].copies")" = 1 ] && ! ewctl examine "$M" | grep -q "metadata copy:"'
# B comes back as it was (copy 1 of 2, older): a scan finds both, takes
# A, names B superseded (before: "disagree on the copy count", refused)
dd if=/tmp/mm-head of="$MM" bs=4096 count=2 conv=fsync status=none
check "superseded: B back: assemble by UUID takes A alone, names B superseded" \
	eval 'run 0 ewctl assemble --uuid "$uuidm" ewm && grep -q ": metadata of array $uuidm as 2 copies at generation [0-9]*, superseded: .* is generation [0-9]* of 1 copy; not used" "$err"'
check "superseded: the table has A as metadata, no metadata_mirror" \
	table_is ewm "$(devno "$M")" none
check "superseded: no acknowledged write lost" gen_verify ewm
check "superseded: removed" dmsetup remove ewm
dmsetup remove ewmm

check "kernel log clean" klog_clean
finish
