#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ewctl examine, assemble (--dry-run) and status (--input) on the host,
# under ASan/UBSan, over image files written by the hidden ewctl
# debug-mkmeta: the decisions, refusals and JSON fields.  The guest test
# tests/vm/test-assemble.sh creates arrays for real.
# shellcheck source=tests/tools/lib.sh
. "$(dirname "$0")/lib.sh"

mk() {	# mk LAYOUT PREFIX SEED: metadata PREFIX-m, members PREFIX-0..3
	local i
	for i in m 0 1 2 3; do truncate -s 64M "$tmp/$2-$i"; done
	"$ewctl" debug-mkmeta --layout "$1" --seed "$3" --writes 50 "$tmp/$2-m" \
		"$tmp/$2-0" "$tmp/$2-1" "$tmp/$2-2" "$tmp/$2-3" >/dev/null
}
mk ew a 1 && mk raid10 b 2 || { nok "debug-mkmeta writes two arrays"; exit 1; }
a=("$tmp/a-0" "$tmp/a-1" "$tmp/a-2" "$tmp/a-3")

# --- examine ---------------------------------------------------------------
if run 0 "$ewctl" examine --json "$tmp/a-m" "${a[@]}" &&
		[ "$(jq -r '[.[].kind] | join(" ")' <<<"$out")" = "metadata member member member member" ] &&
		[ "$(jq -r '[.[1:][].member] | join(" ")' <<<"$out")" = "0 1 2 3" ] &&
		[ "$(jq -r '[.[].uuid] | unique | length' <<<"$out")" = 1 ]; then
	ok "examine --json: metadata and members 0..3 of one UUID"
else
	nok "examine --json: metadata and members 0..3 of one UUID" "$out" "$err"
fi
uuid=$(jq -r '.[0].uuid' <<<"$out")
uuidb=$("$ewctl" examine --json "$tmp/b-m" | jq -r '.[0].uuid')
truncate -s 1M "$tmp/zero"
if run 1 "$ewctl" examine "$tmp/zero" && grep -q "not eagerwrite: first 4 KiB all zeros" <<<"$out"; then
	ok "examine: zeros are 'not eagerwrite' (exit 1)"
else nok "examine: zeros are 'not eagerwrite' (exit 1)" "$out"; fi
cp "${a[1]}" "$tmp/bad"
printf '\x01' | dd of="$tmp/bad" bs=1 seek=300 conv=notrunc status=none
if run 1 "$ewctl" examine --json "$tmp/bad" && [ "$(jq -r '.[0].kind' <<<"$out")" = damaged ]; then
	ok "examine: one flipped byte in a label is 'damaged'"
else nok "examine: one flipped byte in a label is 'damaged'" "$out"; fi
if run 1 "$ewctl" examine "$tmp/nonexistent" && grep -q unreadable <<<"$out"; then
	ok "examine: a missing device is 'unreadable' (exit 1)"
else nok "examine: a missing device is 'unreadable' (exit 1)" "$out"; fi

# --- assemble --dry-run ---------------------------------------------------------
plan() { run "$1" "$ewctl" assemble --dry-run --json vol "${@:2}"; }
if plan 0 "${a[2]}" "${a[0]}" "$tmp/a-m" "${a[3]}" "${a[1]}" &&
		[ "$(jq -r '.members | join(" ")' <<<"$out")" = "${a[*]}" ] &&
		[ "$(jq -r .uuid <<<"$out")" = "$uuid" ] &&
		jq -r .table <<<"$out" | grep -q "eagerwrite ew .* $tmp/a-m 4 ${a[*]} 0\$"; then
	ok "assemble: shuffled members ordered by their labels"
else nok "assemble: shuffled members ordered by their labels" "$out" "$err"; fi
# The planned line is the one ewctl table builds for the same array with
# every key written out (debug-mkmeta's array is the capacity of 64M).
line=$(jq -r .table <<<"$out")
want=$("$ewctl" table --layout ew --mirrors 2 --dilution 2 --sync 2 --chunk-sectors 128 \
	--block-size 4096 --delay-queue 10000 --metadata "$tmp/a-m" "${a[@]}")
if [ "$line" = "$want" ]; then
	ok "assemble: the table line is ewctl table's for the same array"
else nok "assemble: the table line is ewctl table's for the same array" "$line" "$want"; fi
if plan 1 "${a[0]}" "${a[1]}" "${a[2]}" "$tmp/b-3" "$tmp/a-m" &&
		grep -q "b-3 belongs to array $uuidb, not $uuid" <<<"$err"; then
	ok "assemble: a member of another array is refused"
else nok "assemble: a member of another array is refused" "$err"; fi
if plan 1 "${a[@]}" "$tmp/a-m" "$tmp/b-m" && grep -q "several arrays found; name one with --uuid" <<<"$err" &&
		plan 1 --uuid "$uuid" "${a[@]}" "$tmp/a-m" "$tmp/b-m" && grep -q "b-m belongs to array $uuidb" <<<"$err"; then
	ok "assemble: two arrays' metadata: --uuid needed, then the other one is refused"
else nok "assemble: two arrays' metadata: --uuid needed, then the other one is refused" "$err"; fi
cp "${a[1]}" "$tmp/copy"
if plan 1 "${a[@]}" "$tmp/copy" "$tmp/a-m" && grep -q "member 1 of array $uuid found twice" <<<"$err"; then
	ok "assemble: a member found twice is refused"
else nok "assemble: a member found twice is refused" "$err"; fi
if plan 1 "${a[0]}" "${a[1]}" "${a[3]}" "$tmp/a-m" &&
		grep -q "incomplete: 1 of 4 members not found: 2 (--degraded" <<<"$err"; then
	ok "assemble: an incomplete set is refused, naming the missing index"
else nok "assemble: an incomplete set is refused, naming the missing index" "$err"; fi
if run 0 "$ewctl" assemble --dry-run --json --degraded vol "${a[0]}" "${a[1]}" "${a[3]}" "$tmp/a-m" &&
		[ "$(jq -c .missing <<<"$out")" = "[2]" ] && [ "$(jq -r '.members[2]' <<<"$out")" = null ] &&
		jq -r .table <<<"$out" | grep -q " 4 ${a[0]} ${a[1]} - ${a[3]} 0\$"; then
	ok "assemble --degraded: '-' in the missing place"
else nok "assemble --degraded: '-' in the missing place" "$out" "$err"; fi
if run 1 "$ewctl" assemble --dry-run --uuid "$uuid" vol "${a[@]}" &&
		grep -q "no metadata device of array $uuid" <<<"$err"; then
	ok "assemble: members without their metadata device are refused"
else nok "assemble: members without their metadata device are refused" "$err"; fi
printf 'vol %s degraded\n' "$uuid" >"$tmp/conf"
if run 0 "$ewctl" assemble --dry-run --json --config "$tmp/conf" vol "${a[0]}" "${a[1]}" "${a[3]}" "$tmp/a-m" &&
		[ "$(jq -c .missing <<<"$out")" = "[2]" ]; then
	ok "assemble: the config file's 'degraded' option applies to NAME"
else nok "assemble: the config file's 'degraded' option applies to NAME" "$out" "$err"; fi
printf 'vol %s\nvol2 %s\n' "$uuid" "$uuid" >"$tmp/conf"
if run 2 "$ewctl" assemble --dry-run --config "$tmp/conf" vol "${a[@]}" "$tmp/a-m" &&
		grep -q "conf:2: the UUID repeats line 1" <<<"$err"; then
	ok "assemble: a UUID twice in the config file is a usage error"
else nok "assemble: a UUID twice in the config file is a usage error" "$err"; fi
if run 2 "$ewctl" assemble --scan vol && run 2 "$ewctl" assemble --uuid 1234 vol &&
		run 2 "$ewctl" assemble --config "$tmp/none" vol; then
	ok "assemble: usage errors exit 2 (--scan with NAME, short UUID, missing --config)"
else nok "assemble: usage errors exit 2" "$err"; fi

# --- mirrored metadata (metadata_mirror) ------------------------------------------
# mkc PREFIX SEED COPY [OPTION...]: copy COPY of 2 of the metadata of array
# SEED, PREFIX-cCOPY, over members PREFIX-0..3 (same seed: one array)
mkc() {
	local p=$1 seed=$2 c=$3 i; shift 3
	for i in "c$c" 0 1 2 3; do [ -e "$tmp/$p-$i" ] || truncate -s 64M "$tmp/$p-$i"; done
	"$ewctl" debug-mkmeta --layout ew --seed "$seed" --writes 50 --copies 2 --copy "$c" "$@" \
		"$tmp/$p-c$c" "$tmp/$p-0" "$tmp/$p-1" "$tmp/$p-2" "$tmp/$p-3" >/dev/null
}
{ mkc m 3 0 && mkc m 3 1; } || { nok "debug-mkmeta --copies writes both copies"; exit 1; }
mm=("$tmp/m-0" "$tmp/m-1" "$tmp/m-2" "$tmp/m-3")
uuidm=$("$ewctl" examine --json "$tmp/m-c0" | jq -r '.[0].uuid')
if run 0 "$ewctl" examine "$tmp/m-c0" "$tmp/m-c1" &&
		grep -qx "  metadata copy: copy 0 of 2 (metadata_mirror), stale: none" <<<"$out" &&
		grep -qx "  metadata copy: copy 1 of 2 (metadata_mirror), stale: none" <<<"$out" &&
		[ "$(grep -c "^$tmp/m-c[01]: eagerwrite metadata of 4 members" <<<"$out")" = 2 ]; then
	ok "examine: each copy of mirrored metadata says which copy of 2 it is"
else nok "examine: each copy of mirrored metadata says which copy of 2 it is" "$out" "$err"; fi
if run 0 "$ewctl" examine --json "$tmp/m-c1" "$tmp/m-c0" "$tmp/a-m" &&
		[ "$(jq -c '[.[] | [.copies, .copy, .stale]]' <<<"$out")" = '[[2,1,[]],[2,0,[]],[1,0,[]]]' ]; then
	ok "examine --json: copies, copy and stale of both copies and of unmirrored metadata"
else nok "examine --json: copies, copy and stale of both copies and of unmirrored metadata" "$out" "$err"; fi
if run 0 "$ewctl" examine "$tmp/a-m" && ! grep -q "metadata copy" <<<"$out"; then
	ok "examine: unmirrored metadata prints no copy line"
else nok "examine: unmirrored metadata prints no copy line" "$out"; fi

if plan 0 "${mm[2]}" "$tmp/m-c1" "${mm[0]}" "${mm[3]}" "$tmp/m-c0" "${mm[1]}" &&
		[ "$(jq -r .metadata <<<"$out")" = "$tmp/m-c0" ] &&
		[ "$(jq -r .metadata_mirror <<<"$out")" = "$tmp/m-c1" ] &&
		[ "$(jq -r '.members | join(" ")' <<<"$out")" = "${mm[*]}" ] &&
		[ "$(jq -r .uuid <<<"$out")" = "$uuidm" ] && [ -z "$err" ] &&
		[ "$(jq -r .table <<<"$out")" = "$("$ewctl" table --layout ew --mirrors 2 --dilution 2 \
			--sync 2 --chunk-sectors 128 --block-size 4096 --delay-queue 10000 \
			--metadata "$tmp/m-c0" --metadata-mirror "$tmp/m-c1" "${mm[@]}")" ]; then
	ok "assemble: shuffled mirrored array: copy 0 the metadata device, '2 metadata_mirror' copy 1"
else nok "assemble: shuffled mirrored array: copy 0 the metadata device, '2 metadata_mirror' copy 1" "$out" "$err"; fi
if plan 0 "${a[@]}" "$tmp/a-m" && [ "$(jq -c '[has("metadata_mirror"), .metadata_mirror]' <<<"$out")" = '[true,null]' ] &&
		jq -r .table <<<"$out" | grep -q " ${a[3]} 0\$"; then
	ok "assemble --json: unmirrored metadata has metadata_mirror null"
else nok "assemble --json: unmirrored metadata has metadata_mirror null" "$out" "$err"; fi

# copy 0 stale (delay_queue 500, generation 1); copy 1 newer (a checkpoint:
# generation 2) marks it stale.  The table is the newer copy's.
{ mkc s 4 0 --delay-queue 500 && mkc s 4 1 --checkpoint-at 20 --stale 0; } ||
	{ nok "debug-mkmeta writes a stale copy"; exit 1; }
ss=("$tmp/s-0" "$tmp/s-1" "$tmp/s-2" "$tmp/s-3")
if run 0 "$ewctl" examine --json "$tmp/s-c1" && [ "$(jq -c '.[0].stale' <<<"$out")" = "[0]" ] &&
		run 0 "$ewctl" examine "$tmp/s-c1" &&
		grep -qx "  metadata copy: copy 1 of 2 (metadata_mirror), stale: copy 0" <<<"$out"; then
	ok "examine: a copy names the copies its superblock marks stale"
else nok "examine: a copy names the copies its superblock marks stale" "$out"; fi
if plan 0 "$tmp/s-c1" "${ss[@]}" "$tmp/s-c0" &&
		jq -r .table <<<"$out" | grep -q "delay_queue 10000 $tmp/s-c0 4 ${ss[*]} 2 metadata_mirror $tmp/s-c1\$" &&
		grep -q "metadata copy 0 ($tmp/s-c0) is marked stale (generation 1, copy 1's is 2): the target resynchronises it from copy 1 at load" <<<"$err"; then
	ok "assemble: a stale copy stays in the table, named; the newer copy's superblock decides"
else nok "assemble: a stale copy stays in the table, named; the newer copy's superblock decides" "$out" "$err"; fi
mkc s 4 1 --checkpoint-at 20 || { nok "debug-mkmeta rewrites copy 1"; exit 1; }
if plan 0 "$tmp/s-c1" "${ss[@]}" "$tmp/s-c0" &&
		grep -q "metadata copy 0 ($tmp/s-c0) is older (generation 1, copy 1's is 2)" <<<"$err"; then
	ok "assemble: an older copy not marked stale is named too"
else nok "assemble: an older copy not marked stale is named too" "$out" "$err"; fi

if plan 1 "${ss[@]}" "$tmp/s-c1" &&
		grep -q "metadata copy 0 of 2 not found (--degraded assembles it from copy 1, $tmp/s-c1, alone, without metadata_mirror)" <<<"$err"; then
	ok "assemble: a metadata copy not found is refused"
else nok "assemble: a metadata copy not found is refused" "$out" "$err"; fi
# copy 1 alone, not marking copy 0 stale: copy 0 may have gone on alone
if run 1 "$ewctl" assemble --dry-run --json --degraded vol "${ss[@]}" "$tmp/s-c1" &&
		[ -z "$out" ] &&
		grep -q "metadata copy 0 of 2 not found, and copy 1 ($tmp/s-c1, generation 2) does not mark it stale: copy 0 may be the newer one (it may have gone on alone); --degraded --force assembles from copy 1 anyway" <<<"$err"; then
	ok "assemble --degraded: a copy alone that does not mark the missing one stale is refused"
else nok "assemble --degraded: a copy alone that does not mark the missing one stale is refused" "$out" "$err"; fi
if run 0 "$ewctl" assemble --dry-run --json --degraded --force vol "${ss[@]}" "$tmp/s-c1" &&
		[ "$(jq -r .metadata <<<"$out")" = "$tmp/s-c1" ] &&
		[ "$(jq -c '[has("metadata_mirror"), .metadata_mirror]' <<<"$out")" = '[true,null]' ] &&
		jq -r .table <<<"$out" | grep -q " $tmp/s-c1 4 ${ss[*]} 0\$" &&
		grep -q "metadata copy 0 not found: assembling from copy 1 ($tmp/s-c1, generation 2) alone, without metadata_mirror (--force: it does not mark the missing copy stale)" <<<"$err"; then
	ok "assemble --degraded --force: the copy found alone, without the feature, said on stderr"
else nok "assemble --degraded --force: the copy found alone, without the feature, said on stderr" "$out" "$err"; fi
if run 2 "$ewctl" assemble --dry-run --force vol "${ss[@]}" "$tmp/s-c1" &&
		grep -q -- "--force goes with --degraded" <<<"$err" &&
		run 2 "$ewctl" assemble --dry-run --scan --force --config /dev/null; then
	ok "assemble: --force without --degraded, and with --scan, is a usage error"
else nok "assemble: --force without --degraded, and with --scan, is a usage error" "$out" "$err"; fi
# copy 1 marks copy 0 stale: it went on without it, --degraded suffices
mkc s 4 1 --checkpoint-at 20 --stale 0 || { nok "debug-mkmeta rewrites copy 1 marking copy 0 stale"; exit 1; }
if run 0 "$ewctl" assemble --dry-run --json --degraded vol "${ss[@]}" "$tmp/s-c1" &&
		[ "$(jq -r .metadata <<<"$out")" = "$tmp/s-c1" ] &&
		jq -r .table <<<"$out" | grep -q " $tmp/s-c1 4 ${ss[*]} 0\$" &&
		grep -q "metadata copy 0 not found: assembling from copy 1 ($tmp/s-c1, generation 2) alone, without metadata_mirror;" <<<"$err"; then
	ok "assemble --degraded: the copy found alone, marking the missing one stale, without --force"
else nok "assemble --degraded: the copy found alone, marking the missing one stale, without --force" "$out" "$err"; fi

cp "$tmp/m-c0" "$tmp/m-dup"
if plan 1 "${mm[@]}" "$tmp/m-c0" "$tmp/m-c1" "$tmp/m-dup" &&
		grep -q "metadata copy 0 of array $uuidm found twice: $tmp/m-c0 and $tmp/m-dup" <<<"$err"; then
	ok "assemble: two devices claiming one copy index are refused"
else nok "assemble: two devices claiming one copy index are refused" "$err"; fi
mkc o 6 1 || { nok "debug-mkmeta writes another array's copy"; exit 1; }
uuido=$("$ewctl" examine --json "$tmp/o-c1" | jq -r '.[0].uuid')
if plan 1 "${mm[@]}" "$tmp/m-c0" "$tmp/o-c1" && grep -q "several arrays found; name one with --uuid" <<<"$err" &&
		plan 1 --uuid "$uuidm" "${mm[@]}" "$tmp/m-c0" "$tmp/m-c1" "$tmp/o-c1" &&
		grep -q "o-c1 belongs to array $uuido, not $uuidm" <<<"$err"; then
	ok "assemble: a copy of another array is refused"
else nok "assemble: a copy of another array is refused" "$err"; fi
for i in m 0 1 2 3; do truncate -s 64M "$tmp/x-$i"; done
"$ewctl" debug-mkmeta --layout ew --seed 3 --writes 50 "$tmp/x-m" "$tmp/x-0" "$tmp/x-1" \
	"$tmp/x-2" "$tmp/x-3" >/dev/null
if plan 1 "${mm[@]}" "$tmp/m-c0" "$tmp/x-m" &&
		grep -q "metadata devices of array $uuidm disagree on the copy count: $tmp/m-c0 says 2, $tmp/x-m says 1" <<<"$err"; then
	ok "assemble: copies whose copies count disagrees are refused"
else nok "assemble: copies whose copies count disagrees are refused" "$err"; fi
# a --degraded assembly writes the copy it found as metadata of one copy
# (y-m, generation 2, over mm's members): the mirrored copies left behind
# (generation 1) are named and not used, as a scan at boot finds them
for i in y-m y-c0 y-c1; do truncate -s 64M "$tmp/$i"; done
"$ewctl" debug-mkmeta --layout ew --seed 3 --writes 50 --checkpoint-at 20 "$tmp/y-m" \
	"${mm[@]}" >/dev/null || { nok "debug-mkmeta writes the degraded successor"; exit 1; }
if plan 0 "$tmp/m-c1" "${mm[@]}" "$tmp/m-c0" "$tmp/y-m" &&
		[ "$(jq -r .metadata <<<"$out")" = "$tmp/y-m" ] &&
		[ "$(jq -r .metadata_mirror <<<"$out")" = null ] &&
		jq -r .table <<<"$out" | grep -q " $tmp/y-m 4 ${mm[*]} 0\$" &&
		grep -q "$tmp/m-c0: metadata of array $uuidm as 2 copies at generation 1, superseded: $tmp/y-m is generation 2 of 1 copy; not used" <<<"$err" &&
		grep -q "$tmp/m-c1: metadata of array $uuidm as 2 copies at generation 1, superseded" <<<"$err"; then
	ok "assemble: mirrored copies left behind by a --degraded assembly are superseded, not used"
else nok "assemble: mirrored copies left behind by a --degraded assembly are superseded, not used" "$out" "$err"; fi
# the other way: unmirrored metadata moved onto a mirrored pair (newer)
cp "$tmp/y-m" "$tmp/y-old"
"$ewctl" debug-mkmeta --layout ew --seed 3 --writes 50 --checkpoint-at 20 --copies 2 --copy 0 \
	"$tmp/y-c0" "${mm[@]}" >/dev/null &&
	"$ewctl" debug-mkmeta --layout ew --seed 3 --writes 50 --checkpoint-at 20 --copies 2 --copy 1 \
	"$tmp/y-c1" "${mm[@]}" >/dev/null &&
	"$ewctl" debug-mkmeta --layout ew --seed 3 --writes 50 "$tmp/y-old" "${mm[@]}" >/dev/null ||
	{ nok "debug-mkmeta writes a pair and an older single copy"; exit 1; }
if plan 0 "$tmp/y-old" "$tmp/y-c1" "${mm[@]}" "$tmp/y-c0" &&
		[ "$(jq -r .metadata <<<"$out")" = "$tmp/y-c0" ] &&
		[ "$(jq -r .metadata_mirror <<<"$out")" = "$tmp/y-c1" ] &&
		grep -q "$tmp/y-old: metadata of array $uuidm as 1 copies at generation 1, superseded: $tmp/y-c[01] is generation 2 of 2 copies; not used" <<<"$err"; then
	ok "assemble: an older single copy beside a newer mirrored pair is superseded, not used"
else nok "assemble: an older single copy beside a newer mirrored pair is superseded, not used" "$out" "$err"; fi
# superseded or not is the generation's call: the older pair alone is
# still a pair (and the refusals above, at one generation, stand)
if plan 0 "$tmp/m-c1" "${mm[@]}" "$tmp/m-c0" &&
		[ "$(jq -r .metadata_mirror <<<"$out")" = "$tmp/m-c1" ]; then
	ok "assemble: the older pair without its successor is assembled as a pair"
else nok "assemble: the older pair without its successor is assembled as a pair" "$out" "$err"; fi
cp "$tmp/a-m" "$tmp/a-m2"
if plan 1 "${a[@]}" "$tmp/a-m" "$tmp/a-m2" &&
		grep -q "two metadata devices carry array $uuid: $tmp/a-m and $tmp/a-m2 (its metadata is not mirrored): generations \([0-9]*\) and \1, the same (a copy of one device?); ewctl examine shows both: name the one to keep" <<<"$err"; then
	ok "assemble: two metadata devices of an unmirrored array are still refused (one generation: a copy)"
else nok "assemble: two metadata devices of an unmirrored array are still refused (one generation: a copy)" "$err"; fi
# a split brain: y-m (generation 2) and y-old (generation 1) are single
# copies of one array, as two copies of a pair each assembled --degraded
# without the other leave them; refused with both generations, and the
# one named alone is assembled
if plan 1 "$tmp/y-old" "$tmp/y-m" "${mm[@]}" &&
		grep -q "two metadata devices carry array $uuidm: $tmp/y-old and $tmp/y-m (its metadata is not mirrored): generations 1 and 2, different (each assembled without the other, --degraded?" <<<"$err"; then
	ok "assemble: two single copies at different generations (a split brain) are refused, both generations named"
else nok "assemble: two single copies at different generations (a split brain) are refused, both generations named" "$out" "$err"; fi
if plan 0 "$tmp/y-old" "${mm[@]}" && [ "$(jq -r .metadata <<<"$out")" = "$tmp/y-old" ]; then
	ok "assemble: after a split brain, the metadata device named alone is assembled"
else nok "assemble: after a split brain, the metadata device named alone is assembled" "$out" "$err"; fi
for i in c0 0 1 2 3; do truncate -s 64M "$tmp/t-$i"; done
"$ewctl" debug-mkmeta --layout ew --seed 7 --writes 50 --copies 3 --copy 0 "$tmp/t-c0" \
	"$tmp/t-0" "$tmp/t-1" "$tmp/t-2" "$tmp/t-3" >/dev/null
if plan 1 "$tmp/t-c0" "$tmp/t-0" "$tmp/t-1" "$tmp/t-2" "$tmp/t-3" &&
		grep -q "has 3 metadata copies; a table names at most 2 (metadata_mirror)" <<<"$err"; then
	ok "assemble: metadata of three copies is refused (the table takes two)"
else nok "assemble: metadata of three copies is refused (the table takes two)" "$err"; fi
if run 2 "$ewctl" debug-mkmeta --copies 2 --copy 1 --stale 1 "$tmp/t-c0" "$tmp/t-0" "$tmp/t-1"; then
	ok "debug-mkmeta: a copy marked stale by itself is a usage error"
else nok "debug-mkmeta: a copy marked stale by itself is a usage error" "$err"; fi

# --- status --input ---------------------------------------------------------------
st="vol: 0 1024 eagerwrite ew 4 2 2 1.00 100 AADR 3 10 20 40 5 30 2 12345 ok 7 6 1 50/100 1 2 3 4 5 10/40 running 8 17/1024 6 3/64 AD 7 5 96/439 255000 99"
if run 0 "$ewctl" status --json --input - <<<"$st" &&
		[ "$(jq -r '.[0].name' <<<"$out")" = vol ] &&
		[ "$(jq -r '.[0].member_states' <<<"$out")" = AADR ] &&
		[ "$(jq -r '.[0].predictor_error_ns' <<<"$out")" = 12345 ] &&
		[ "$(jq -c '.[0].rebuild' <<<"$out")" = '{"done":10,"total":40}' ] &&
		[ "$(jq -r '.[0].rebuild_rate' <<<"$out")" = 8 ] &&
		[ "$(jq -c '.[0].delay_pages' <<<"$out")" = '{"used":17,"pool":1024}' ] &&
		[ "$(jq -r '.[0].delay_fallbacks' <<<"$out")" = 6 ] &&
		[ "$(jq -c '.[0].copy_slots' <<<"$out")" = '{"used":3,"total":64}' ] &&
		[ "$(jq -r '.[0].metadata_copies' <<<"$out")" = AD ] &&
		[ "$(jq -r '.[0].metadata_repairs' <<<"$out")" = 7 ] &&
		[ "$(jq -r '.[0].journal_waits' <<<"$out")" = 5 ] &&
		[ "$(jq -c '.[0].checkpoint_progress' <<<"$out")" = '{"done":96,"total":439}' ] &&
		[ "$(jq -r '.[0].placement_lead_ns' <<<"$out")" = 255000 ] &&
		[ "$(jq -r '.[0].field_37' <<<"$out")" = 99 ]; then
	ok "status --input --json: every field named, a later field as field_37"
else nok "status --input --json: every field named, a later field as field_37" "$out" "$err"; fi
if run 0 "$ewctl" status --input - <<<"$st" && grep -q "Members : 4: 2 alive, 1 failed or missing, 1 rebuilding" <<<"$out" &&
		grep -q "Rebuild : running, 10/40 blocks (25.0%)" <<<"$out" &&
		grep -q "Delayed : 3 replicas pending; pages 17/1024 in use, 6 fell back to read-back copies" <<<"$out" &&
		grep -q "Journal copies : 3/64 slots in use" <<<"$out" &&
		grep -q "Metadata copies: AD (2 copies, 1 stale), 7 blocks read or rewritten from another copy" <<<"$out" &&
		grep -q "Checkpoint : 96/439 map blocks written$" <<<"$out" &&
		grep -q "Predictor : mean error 12345 ns, placement lead 255000 ns$" <<<"$out" &&
		grep -q "Metadata mode : ok, journal seq 7, 6 commits, 1 checkpoints, 5 journal waits$" <<<"$out"; then
	ok "status --input: text counts member states, rebuild progress, delayed pages"
else nok "status --input: text counts member states, rebuild progress, delayed pages" "$out"; fi
# a line from before fields 29-30 still parses, without the pages
old=${st% 17/1024 6 3/64 AD 7 5 96/439 255000 99}
if run 0 "$ewctl" status --input - <<<"$old" && grep -q "Delayed : 3 replicas pending$" <<<"$out" &&
		run 0 "$ewctl" status --json --input - <<<"$old" &&
		[ "$(jq -r '.[0].delay_pages' <<<"$out")" = null ]; then
	ok "status --input: an older 28-field line, no pages shown"
else nok "status --input: an older 28-field line, no pages shown" "$out"; fi
if run 1 "$ewctl" status --input - <<<"lin: 0 8 linear 7:0 0" &&
		run 1 "$ewctl" status --input - <<<"vol: 0 8 eagerwrite ew 4 2"; then
	ok "status --input: another target, or too few fields, exit 1"
else nok "status --input: another target, or too few fields, exit 1" "$err"; fi
exit "$failed"
