#!/bin/bash
# shellcheck disable=SC2046,SC2086 # $(devs DIR) and $lay split on purpose
# Tests of ewctl check and dump (userspace/ewctl/check.c, dump.c) on image
# files written by the hidden `ewctl debug-mkmeta` with the core's own
# encoders: good images of every layout pass; damaged ones (byte flips in
# superblocks, checkpoint, journal and labels, members in another order
# or from another array, overlapping blocks, records out of range, a
# superblock older than its journal) fail with the expected message.
# Prints "ok - NAME" / "not ok - NAME" per case; exits 1 if any failed.
set -u
# shellcheck source=tests/tools/lib.sh
. "$(dirname "$0")/lib.sh"

# expect NAME WANT_RC PATTERN CMD...: exit code and a fixed string in stdout
expect() {
	local name=$1 want=$2 pat=$3; shift 3
	if run "$want" "$@" && grep -qF -- "$pat" <<<"$out"; then
		ok "$name"
	else
		nok "$name" "rc=$rc (want $want)" "want: $pat" "stdout: $(tail -n 4 <<<"$out")" "stderr: $err"
	fi
}

json_get() { # json_get KEY: a field of the JSON object in $out
	python3 -c 'import json,sys; print(json.loads(sys.stdin.read())[sys.argv[1]])' "$1" <<<"$out"
}

[ -x "$ewctl" ] || { nok "ewctl built" "$ewctl missing"; exit 1; }

# a fresh set of images in $tmp/$1: meta + 4 members of 9 MiB
mkset() {
	local d=$tmp/$1 i
	rm -rf "$d"; mkdir -p "$d"
	for i in 0 1 2 3; do truncate -s 9M "$d/d$i"; done
	truncate -s 16M "$d/meta"
	echo "$d"
}
devs() { echo "$1/d0 $1/d1 $1/d2 $1/d3"; }

# --- help and usage
if run 0 "$ewctl" check --help && grep -q '^Usage: ewctl check' <<<"$out"; then
	ok "check --help"; else nok "check --help" "rc=$rc"; fi
if run 0 "$ewctl" dump --help && grep -q '^Usage: ewctl dump' <<<"$out"; then
	ok "dump --help"; else nok "dump --help" "rc=$rc"; fi
if run 2 "$ewctl" check; then ok "check without device: exit 2"
else nok "check without device: exit 2" "rc=$rc"; fi
if run 2 "$ewctl" dump a b; then ok "dump with two devices: exit 2"
else nok "dump with two devices: exit 2" "rc=$rc"; fi
if run 0 "$ewctl" --help && grep -q '^  check ' <<<"$out" &&
   ! grep -q 'debug-mkmeta' <<<"$out"; then ok "check listed, debug-mkmeta hidden"
else nok "check listed, debug-mkmeta hidden" "$out"; fi

# --- good images, every layout, with and without a checkpoint
for lay in "ew --mirrors 2" "ew --mirrors 4 --dilution 1.5" "ddm" "raid10 --mirrors 2"; do
	s=$(mkset good)
	if ! run 0 "$ewctl" debug-mkmeta --layout $lay --writes 400 \
		--checkpoint-at 150 --seed 3 "$s/meta" $(devs "$s"); then
		nok "mkmeta $lay" "rc=$rc" "$err"; continue
	fi
		expect "good image passes: $lay" 0 "meta: consistent" \
		"$ewctl" check "$s/meta" $(devs "$s")
done
s=$(mkset nockpt)
run 0 "$ewctl" debug-mkmeta --layout ew --writes 50 "$s/meta" $(devs "$s")
expect "no checkpoint yet: consistent" 0 "checkpoint: none yet (empty map)" \
	"$ewctl" check "$s/meta"

# --- dump
s=$(mkset dump)
run 0 "$ewctl" debug-mkmeta --layout ew --writes 300 --commit-every 3 \
	--checkpoint-at 100 "$s/meta" $(devs "$s")
if run 0 "$ewctl" dump "$s/meta" && grep -q '^generation       2$' <<<"$out" &&
   grep -q '^layout           ew$' <<<"$out" &&
   grep -q '^superblock 1     in use$' <<<"$out" &&
   grep -q '^journal length   67 blocks' <<<"$out"; then
	ok "dump text"
else nok "dump text" "rc=$rc" "$out"; fi
if run 0 "$ewctl" dump --json "$s/meta" &&
   [ "$(json_get generation)" = 2 ] && [ "$(json_get layout)" = ew ] &&
   [ "$(json_get journal_length)" = 67 ] && [ "$(json_get nr_disks)" = 4 ] &&
   [ "$(json_get ckpt_seq)" = 2 ] && [ "$(json_get version)" = 2 ] &&
   [ "$(json_get data_offset_sectors)" = 2048 ]; then
	ok "dump --json"
else nok "dump --json" "rc=$rc" "$out"; fi

# --- unformatted, too small
s=$(mkset zero)
expect "unformatted device" 1 "not formatted (first block all zeros)" \
	"$ewctl" check "$s/meta"
if run 1 "$ewctl" dump "$s/meta" && grep -q "not formatted" <<<"$err"; then
	ok "dump of an unformatted device: exit 1"
else nok "dump of an unformatted device: exit 1" "rc=$rc" "$err"; fi
s=$(mkset small)
run 0 "$ewctl" debug-mkmeta --layout ew --writes 20 "$s/meta" $(devs "$s")
truncate -s 1M "$s/meta"
expect "metadata device too small" 1 "metadata device: metadata device too small" \
	"$ewctl" check "$s/meta"
truncate -s 1M "$s/meta2"
if run 1 "$ewctl" debug-mkmeta --layout ew "$s/meta2" $(devs "$s") &&
   grep -q "metadata device too small" <<<"$err"; then
	ok "mkmeta refuses a small metadata device"
else nok "mkmeta refuses a small metadata device" "rc=$rc" "$err"; fi

# A reference image: ew, 300 writes, checkpoint after 100 (superblock
# generation 2 in slot 1, checkpoint in area 0 at block 1024), journal
# blocks seq 22..61 at blocks 24..63.
ref=$(mkset ref)
run 0 "$ewctl" debug-mkmeta --layout ew --writes 300 --checkpoint-at 100 \
	"$ref/meta" $(devs "$ref") || nok "reference image" "$err"
fresh() { rm -rf "$tmp/c"; cp -r "$ref" "$tmp/c"; echo "$tmp/c"; }

# --- superblocks
s=$(fresh); flip "$s/meta" $((4096 + 300))
expect "current superblock damaged: falls back, says so" 0 \
	"warning: superblock slot 1: bad checksum in superblock" "$ewctl" check "$s/meta"
s=$(fresh); flip "$s/meta" 300; flip "$s/meta" $((4096 + 300))
expect "both superblocks damaged" 1 "superblock: bad checksum in superblock" \
	"$ewctl" check "$s/meta"
s=$(fresh); flip "$s/meta" 0; flip "$s/meta" 4096
expect "both superblocks without magic" 1 "no valid superblock in either slot" \
	"$ewctl" check "$s/meta"
s=$(fresh); dd if=/dev/zero of="$s/meta" bs=4096 count=1 conv=notrunc status=none
expect "slot 0 zeroed, slot 1 valid: not formatted over" 1 \
	"superblock slot 0 is zeros but slot 1 is valid: zero both to format" \
	"$ewctl" check "$s/meta"
# every 193rd byte of the superblock in use: never silent
s=$(fresh); bad=""
for off in $(seq 0 193 4095); do
	cp "$ref/meta" "$s/meta"; flip "$s/meta" $((4096 + off))
	run 0 "$ewctl" check "$s/meta"
	grep -q "warning: superblock slot 1" <<<"$out" || bad="$bad $off"
done
if [ -z "$bad" ]; then ok "superblock byte flips all reported"
else nok "superblock byte flips all reported" "silent at:$bad"; fi

# a superblock older than its journal (the newer one lost after a wrap)
s=$(mkset wrap)
run 0 "$ewctl" debug-mkmeta --layout ew --writes 1300 --commit-every 1 \
	--checkpoint-at 1200 "$s/meta" $(devs "$s")
expect "wrapped journal: consistent" 0 "meta: consistent" "$ewctl" check "$s/meta"
flip "$s/meta" $((4096 + 300))
expect "stale superblock after a journal wrap" 1 \
	"journal is newer than the superblock (a newer superblock was lost)" \
	"$ewctl" check "$s/meta"

# --- checkpoint
s=$(fresh); flip "$s/meta" $((1024 * 4096 + 1000))
expect "checkpoint byte flip" 1 \
	"checkpoint 0 block 0 (block 1024): bad checksum in checkpoint block" \
	"$ewctl" check "$s/meta"
s=$(fresh); flip "$s/meta" $((1028 * 4096 + 17))
expect "last checkpoint block byte flip" 1 "bad checksum in checkpoint block" \
	"$ewctl" check "$s/meta"

# --- journal
# journal block s: copy 0 at block 2 + 2 * (s % 511), copy 1 after it
s=$(fresh); flip "$s/meta" $((78 * 4096 + 2000)); flip "$s/meta" $((79 * 4096 + 9))
expect "journal block lost in the middle (both copies)" 1 \
	"journal seq 38 (blocks 78 and 79): journal block lost in the middle of the journal" \
	"$ewctl" check "$s/meta"
s=$(fresh); flip "$s/meta" $((79 * 4096 + 2000))
expect "one copy of a middle journal block: damage found, exit 3" 3 \
	"damaged: journal seq 38 copy 1 (block 79): invalid copy, seq 38 replayed from copy 0" \
	"$ewctl" check "$s/meta"
s=$(fresh); flip "$s/meta" $((124 * 4096 + 100))
expect "one copy of the last journal block: damage found, exit 3" 3 \
	"damaged: journal seq 61 copy 0 (block 124): invalid copy, seq 61 replayed from copy 1" \
	"$ewctl" check "$s/meta"
s=$(fresh); flip "$s/meta" $((124 * 4096 + 100)); flip "$s/meta" $((125 * 4096 + 100))
expect "torn last journal block (both copies): warned" 0 \
	"warning: journal ends at seq 61 with a damaged block" "$ewctl" check "$s/meta"
s=$(fresh)
run 0 "$ewctl" debug-mkmeta --layout ew --writes 300 --inject range \
	"$s/meta" $(devs "$s")
expect "record past the region" 1 "bad record in journal block" \
	"$ewctl" check "$s/meta"
run 0 "$ewctl" debug-mkmeta --layout ew --writes 300 --inject dup \
	"$s/meta" $(devs "$s")
expect "overlapping physical blocks" 1 \
	"physical block referenced twice on one disk" "$ewctl" check "$s/meta"
run 0 "$ewctl" debug-mkmeta --layout ew --writes 10 --inject formatting \
	"$s/meta" $(devs "$s")
expect "format incomplete: exit 4" 4 \
	"format incomplete (generation 2 in slot 1 has FORMATTING set" \
	"$ewctl" check "$s/meta" $(devs "$s")

# --- member labels
s=$(fresh)
expect "labels in order" 0 "data device 3 ($s/d3): member 3 of 4, generation 1: ok" \
	"$ewctl" check "$s/meta" "$s/d0" "$s/d1" "$s/d2" "$s/d3"
expect "members in another order" 1 \
	"data device 0 ($s/d1): member label names another position (members in another order?) (its label says member 1)" \
	"$ewctl" check "$s/meta" "$s/d1" "$s/d0" "$s/d2" "$s/d3"
expect "too few members" 1 "3 data devices given, the array has 4: member count mismatch" \
	"$ewctl" check "$s/meta" "$s/d0" "$s/d1" "$s/d2"
o=$(mkset other)
run 0 "$ewctl" debug-mkmeta --layout ew --seed 99 --writes 10 "$o/meta" $(devs "$o")
expect "member of another array" 1 \
	"data device 2 ($o/d2): member belongs to another array" \
	"$ewctl" check "$s/meta" "$s/d0" "$s/d1" "$o/d2" "$s/d3"
o=$(mkset other6)
for i in 4 5; do truncate -s 9M "$o/d$i"; done
run 0 "$ewctl" debug-mkmeta --layout ew --seed 1 --writes 10 "$o/meta" \
	$(devs "$o") "$o/d4" "$o/d5"
expect "member label: another member count" 1 \
	"data device 1 ($o/d1): member label: member count mismatch" \
	"$ewctl" check "$s/meta" "$s/d0" "$o/d1" "$s/d2" "$s/d3"
flip "$s/d2" 70
expect "label byte flip" 1 "data device 2 ($s/d2): bad checksum in member label" \
	"$ewctl" check "$s/meta" "$s/d0" "$s/d1" "$s/d2" "$s/d3"
truncate -s 0 "$s/d2"; truncate -s 9M "$s/d2"
expect "label missing" 1 "data device 2 ($s/d2): no eagerwrite member label" \
	"$ewctl" check "$s/meta" "$s/d0" "$s/d1" "$s/d2" "$s/d3"
s=$(fresh); truncate -s 2M "$s/d3"
expect "member too small" 1 "data device 3 ($s/d3): data device smaller than the array's region" \
	"$ewctl" check "$s/meta" "$s/d0" "$s/d1" "$s/d2" "$s/d3"

# --- metadata copies (--metadata-mirror): the target's choice at load
s=$(fresh); cp "$s/meta" "$s/meta2"
expect "mirror: copies in sync" 0 "copies: in sync (generation" \
	"$ewctl" check --metadata-mirror "$s/meta2" "$s/meta" $(devs "$s")
s=$(fresh); truncate -s 16M "$s/meta2"
expect "mirror: copy 1 blank is named stale" 3 \
	"copy 1 ($s/meta2): stale: blank; the target repairs it from copy 0" \
	"$ewctl" check --metadata-mirror "$s/meta2" "$s/meta" $(devs "$s")
s=$(fresh); cp "$s/meta" "$s/meta2"; flip "$s/meta" 300; flip "$s/meta" $((4096 + 300))
expect "mirror: copy 0 corrupt is named stale" 3 \
	"copy 0 ($s/meta): stale: no valid superblock; the target repairs it from copy 1" \
	"$ewctl" check --metadata-mirror "$s/meta2" "$s/meta" $(devs "$s")
flip "$s/meta2" 300; flip "$s/meta2" $((4096 + 300))
expect "mirror: both corrupt" 1 "copies: no valid copy" \
	"$ewctl" check --metadata-mirror "$s/meta2" "$s/meta" $(devs "$s")
s=$(fresh); cp "$s/meta" "$s/meta2"; flip "$s/meta" $((1024 * 4096 + 100))
expect "mirror: a damaged block on one copy of the same generation" 3 \
	"copies: a copy that does not check is read from the other at load" \
	"$ewctl" check --metadata-mirror "$s/meta2" "$s/meta" $(devs "$s")
s=$(fresh); o=$(mkset other); "$ewctl" debug-mkmeta --seed 9 "$o/meta" $(devs "$o") >/dev/null
expect "mirror: copies of two arrays" 1 "belong to different arrays" \
	"$ewctl" check --metadata-mirror "$o/meta" "$s/meta" $(devs "$s")
expect "table: --metadata-mirror gives the feature" 0 "2 metadata_mirror /dev/m2" \
	"$ewctl" table --disk-size 64M --metadata /dev/m --metadata-mirror /dev/m2 /dev/a /dev/b
expect "table: --metadata-mirror on a data device is refused" 1 "" \
	"$ewctl" table --disk-size 64M --metadata /dev/m --metadata-mirror /dev/b /dev/a /dev/b

exit "$failed"
