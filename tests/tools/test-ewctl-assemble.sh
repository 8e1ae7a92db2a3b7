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

# --- status --input ---------------------------------------------------------------
st="vol: 0 1024 eagerwrite ew 4 2 2 1.00 100 AADR 3 10 20 40 5 30 2 12345 ok 7 6 1 50/100 1 2 3 4 5 10/40 running 8 17/1024 6 3/64 AD 7 99"
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
		[ "$(jq -r '.[0].field_34' <<<"$out")" = 99 ]; then
	ok "status --input --json: every field named, a later field as field_34"
else nok "status --input --json: every field named, a later field as field_34" "$out" "$err"; fi
if run 0 "$ewctl" status --input - <<<"$st" && grep -q "Members : 4: 2 alive, 1 failed or missing, 1 rebuilding" <<<"$out" &&
		grep -q "Rebuild : running, 10/40 blocks (25.0%)" <<<"$out" &&
		grep -q "Delayed : 3 replicas pending; pages 17/1024 in use, 6 fell back to read-back copies" <<<"$out" &&
		grep -q "Journal copies : 3/64 slots in use" <<<"$out" &&
		grep -q "Metadata copies: AD (2 copies, 1 stale), 7 blocks read from another copy" <<<"$out"; then
	ok "status --input: text counts member states, rebuild progress, delayed pages"
else nok "status --input: text counts member states, rebuild progress, delayed pages" "$out"; fi
# a line from before fields 29-30 still parses, without the pages
old=${st% 17/1024 6 3/64 AD 7 99}
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
