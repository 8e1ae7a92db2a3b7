#!/bin/bash
# vm-run: --icount --disks 4 --disk-size 16M --meta-size 8M --timeout 900
# vmtest: beside
#
# Issue 5's corruption rule in the target: metadata damaged by a single
# byte must make the target refuse the table with a precise message, or
# fall back to a valid older superblock; it must never serve wrong data.
#
# Set-up, on the four members and the metadata disk, each behind a
# dm-flakey device: an ew array (2 mirrors, 4 MiB) is created, 1 MiB of
# random data written, a checkpoint (the message), the array removed
# (clean) and created again (the older superblock stays valid in the
# other slot),
# then `ewprobe write` (write + fdatasync of self-checksummed blocks,
# its log on tmpfs), and a crash: every flakey device drops writes, the
# array is removed (its shutdown writes are lost), so the journal holds
# blocks to replay.  The disks of that state are saved.
#
# Cases: restore the saved disks, xor one byte with 0x5a (located with
# `ewctl dump --json`), create the array from the same table line:
#
#   superblock in use           byte 300: loads from the older slot, the
#                               kernel log naming the slot, and ewctl
#                               check clean after (the next generation
#                               overwrote the damaged slot); magic: loads
#                               so, or is refused
#   older superblock            loads
#   checkpoint block            refused, the kernel log says "checkpoint"
#   one copy of a journal       loads with every acknowledged write, and
#   block: the first, a middle  the kernel log names the damaged copy
#   one, the last (each copy)   ("journal seq S copy C (metadata block B)
#                               damaged"); after that recovery and its
#                               checkpoint, `ewctl check` finds nothing
#   both copies of a middle     refused, "journal" (lost in the middle)
#   journal block
#   member label                refused, "label"
#
# Both copies of the last journal blocks damaged (a double fault) is
# never a pass: recovery cannot tell it from a torn, never acknowledged
# commit and drops those blocks' writes (Documentation/on-disk-format.rst,
# "What is recovered").  It is the negative control: both copies of each
# of the last 6 journal blocks (the last block alone may hold only
# delayed replicas' records, whose loss loses no acknowledged write: a
# run showed it loading and verifying clean), and the array must be
# refused (the kernel log naming the journal), or load and the checks
# above must find the acknowledged writes it lost; loading and verifying
# clean means the checks cannot see a lost commit, and fails.
#
# When it loads: `ewctl`-independent checks, the 1 MiB sha256 and
# `ewprobe verify` (every acknowledged write there, no garbage, no other
# block's data).  A refusal must name the problem in the kernel log.
# The undamaged state must load and verify (the control).
#
# With the argument "members" (test-corrupt-members.sh) the metadata is
# on the members ("-"): its two copies are on members 0 and 2, from 1
# MiB in, and the offsets above are taken there.  A block damaged in one
# copy must load and verify (the block read from the other copy and
# repaired, or the copy repaired whole from the other; in the copy that
# is not the source, found by the load's comparison of the copies and
# rewritten, which ewctl check of both copies then confirms); the same block
# damaged in both copies is judged as above (refused, or for the
# superblock the older slot); the negative control damages both copies.
set -u
export DM_DISABLE_UDEV=1
# shellcheck source=tests/vm/target-lib.sh
. "$EW_TESTS/vm/target-lib.sh"

mode=${1:-device}
case $mode in device|members) ;; *) notok "mode $mode (device, members)"; finish ;; esac
w=/tmp/cor
mkdir -p "$w"
mapfile -t disks </ew/disks
meta=$(cat /ew/meta)
devs=("$meta" "${disks[@]:0:4}")	# f0 is the metadata device
len=4M
# where the metadata is: c0 (and with members c1, the second copy), the
# byte its image starts at
c0=$meta c1="" base=0 mdev=/dev/mapper/f0
if [ $mode = members ]; then
	c0=${disks[0]} c1=${disks[2]} base=1048576 mdev=-
fi
mcheck() {	# ewctl check of every copy against the labels
	if [ $mode = members ]; then
		ewctl check "$@" --metadata-mirror "$c1" "$c0" "${disks[@]:0:4}"
	else
		ewctl check "$@" "$meta" "${disks[@]:0:4}"
	fi
}

load_target || { notok "eagerwrite target loaded"; finish; }
modprobe dm-flakey 2>/dev/null

sectors() { blockdev --getsz "$1"; }
# flakey_up / flakey_drop: f0..f4 over the disks, passing / dropping writes
flakey() {
	local mode=$1 i n t
	for i in "${!devs[@]}"; do
		n=$(sectors "${devs[$i]}")
		if [ "$mode" = up ]; then t="0 $n flakey ${devs[$i]} 0 3600 0"
		else t="0 $n flakey ${devs[$i]} 0 0 3600 1 drop_writes"; fi
		if dmsetup info "f$i" >/dev/null 2>&1; then
			dmsetup suspend "f$i" && dmsetup reload "f$i" --table "$t" &&
				dmsetup resume "f$i" || return 1
		else
			dmsetup create "f$i" --table "$t" || return 1
		fi
	done
}
unflakey() { local i; for i in "${!devs[@]}"; do dmsetup remove "f$i" 2>/dev/null; done; return 0; }
table() {
	ewctl table --layout ew --mirrors 2 --dilution 2 --sync 1 --len "$len" \
		--metadata $mdev /dev/mapper/f1 /dev/mapper/f2 /dev/mapper/f3 /dev/mapper/f4
}
flip() {	# flip DEV BYTE: xor one byte with 0x5a
	local b
	b=$(dd if="$1" bs=1 skip="$2" count=1 status=none | od -An -tu1 | tr -d ' ')
	# shellcheck disable=SC2059 # the format is the byte
	printf "\\x$(printf %02x $((b ^ 0x5a)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc,fsync status=none
}

# --- the crash state
for d in "${devs[@]}"; do dd if=/dev/zero of="$d" bs=1M count=2 conv=fsync status=none; done
dd if=/dev/zero of="$meta" bs=1M conv=fsync status=none 2>/dev/null
flakey up || { notok "dm-flakey over the disks"; finish; }
t=$(table) || { notok "ewctl table"; unflakey; finish; }
dd if=/dev/urandom of="$w/data" bs=1M count=1 status=none
# shellcheck disable=SC2317 # called through check
setup() {
	dmsetup create ew --table "$t" || return 1
	dd if="$w/data" of=/dev/mapper/ew bs=1M seek=1 oflag=direct conv=fsync status=none || return 1
	dmsetup message ew 0 checkpoint || return 1
	dmsetup remove ew || return 1
	dmsetup create ew --table "$t" || return 1
	ewprobe write --log "$w/probe.log" --count 40 --blocks 64 --seed 7 --force \
		/dev/mapper/ew >"$w/write.out" 2>&1 || { cat "$w/write.out"; return 1; }
	flakey drop || return 1
	dmsetup remove ew || return 1
	unflakey
}
check "crash state: create, write, remove, create, ewprobe write, crash" setup
for i in "${!devs[@]}"; do dd if="${devs[$i]}" of="$w/img$i" bs=1M status=none; done
ewctl dump --json "$c0" >"$w/dump.json" 2>&1
mcheck | sed 's/^/# /'
j() { jq -r "$1" "$w/dump.json"; }
if ! j .journal_length >/dev/null 2>&1 || [ "$(j .journal_length)" -lt 3 ] ||
   [ "$(j .ckpt_seq)" = 0 ] || [ "$(j '.slots[0]')" = "$(j '.slots[1]')" ]; then
	notok "crash state has a checkpoint, 3+ journal blocks to replay, two valid slots"
	sed 's/^/#   /' "$w/dump.json"
	finish
fi
ok "crash state has a checkpoint, $(j .journal_length) journal blocks to replay, two valid slots"
cur=$(j .slot) area=$(j .ckpt_area) cstart=$(j ".ckpt_start[$(j .ckpt_area)]")
s0=$(j .journal_seq) se=$(j .journal_end_seq)
# jblk SEQ [COPY]: where journal block SEQ (replayed) lies, as ewctl dump
# found it: a ring's slot, or with the metadata on the members any slot
# (on-disk-format.rst, "The journal written near the heads")
jblocks=()
while read -r b; do [ -z "$b" ] || jblocks+=("$b"); done <<<"$(j '.journal_blocks[]')"
jblk() { echo $((${jblocks[$1 - s0]} + ${2:-0})); }
[ "${#jblocks[@]}" = "$((se - s0))" ] ||
	notok "ewctl dump gives the block of each of the $((se - s0)) journal blocks (${#jblocks[@]})"
[ "$(j .journal_anywhere)" = "$([ "$mode" = members ] && echo true || echo false)" ] ||
	notok "journal_anywhere is $(j .journal_anywhere) in mode $mode"

restore() { local i; for i in "${!devs[@]}"; do dd if="$w/img$i" of="${devs[$i]}" bs=1M conv=fsync status=none; done; }

judge() {	# judge WANT:LOADED GOOD WORD MSG
	case $1 in
	load:1|either:*:1) [ "$2" = 1 ] ;;
	loadwarn:*:1) [ "$2" = 1 ] && klog_has "$3" ;;
	detect:*:1) [ "$2" = 0 ] ;;
	refuse:*:0|either:*:0|detect:*:0) grep -qi -- "$3" <<<"$4" ;;
	*) false ;;
	esac
}

# try NAME DEV BYTE WANT [BYTE2...]: damage (BYTE2... too; DEV2@BYTE2 on
# another device), create,
# judge.  WANT: refuse:WORD (must be refused, the kernel log naming WORD),
# load (must load and verify), loadwarn:WORD (must load and verify, the
# kernel log naming WORD, and leave metadata `ewctl check` finds
# consistent), either:WORD (refused naming WORD, or loads and verifies),
# detect:WORD (a control: refused naming WORD, or loads and the data
# checks FAIL)
try() {
	local name=$1 dev=$2 byte=$3 want=$4 b2 word loaded=0 good=1 why=""
	restore
	[ "$byte" = - ] || flip "$dev" "$byte"
	for b2 in "${@:5}"; do
		case $b2 in
		*@*) flip "${b2%@*}" "${b2##*@}" ;;
		*) flip "$dev" "$b2" ;;
		esac
	done
	flakey up || { notok "$name: flakey"; return; }
	klog_mark
	if dmsetup create ew --table "$t" 2>"$w/create.err"; then
		loaded=1
		dd if=/dev/mapper/ew bs=1M skip=1 count=1 iflag=direct status=none | cmp -s - "$w/data" ||
			{ good=0; why="$why 1 MiB of data differs;"; }
		ewprobe verify --log "$w/probe.log" /dev/mapper/ew >"$w/verify.out" 2>&1 ||
			{ good=0; why="$why $(grep -E '^(block|acked|result)' "$w/verify.out" | head -n 4 | tr '\n' '|')"; }
		dmsetup remove ew || good=0
		# the target wrote beneath the page cache of the raw disks
		sync; echo 3 >/proc/sys/vm/drop_caches
		if [ "${want%%:*}" = loadwarn ] &&
		   ! mcheck --quiet >"$w/check.out" 2>&1; then
			good=0; why="$why ewctl check after recovery: $(tr '\n' '|' <"$w/check.out");"
		fi
	fi
	unflakey
	msg=$(klog_since | grep -i eagerwrite | tail -n 2 | tr '\n' ' ')
	word=${want#*:}
	if judge "$want:$loaded" "$good" "$word" "$msg"; then
		if [ "$loaded" = 1 ] && [ "$good" = 0 ]; then ok "$name: loads, the loss detected:$why"
		elif [ "$loaded" = 1 ]; then ok "$name: loads, data verified"
		else ok "$name: refused: $msg"; fi
	else
		if [ "$loaded" = 1 ]; then notok "$name: loaded (want $want);$why"
		else notok "$name: refused without naming '$word' (want $want): $(tr '\n' ' ' <"$w/create.err") $msg"; fi
	fi
	[ "$loaded" = 1 ] && [ -n "$msg" ] && note "$name: kernel: $msg"
	klog_clean || notok "$name: kernel log clean"
}

# The same damage with the metadata on the members: bytes in copy 0
# (c0), in copy 1 (c1), or the same byte in both.
# shellcheck disable=SC2317 # called below
members_cases() {
	local o sm=$(((s0 + se) / 2)) sl=$((se - 1)) q
	both() { echo "$c1@$((base + $1))"; }	# both OFFSET: the same byte of copy 1
	try "undamaged (control)" "$c0" - load
	o=$((cur * 4096 + 300))
	try "copy 0 superblock in use (slot $cur), byte 300" "$c0" $((base + o)) \
		"loadwarn:repaired from copy 1"
	try "both copies' superblock in use (slot $cur), byte 300" "$c0" $((base + o)) \
		load "$(both $o)"
	o=$((cstart * 4096 + 200))
	try "copy 0 checkpoint area $area block 0" "$c0" $((base + o)) \
		"loadwarn:damaged, read from copy 1 and repaired"
	try "copy 1 checkpoint area $area block 0 (not the source: the load compares it)" \
		"$c1" $((base + o)) \
		"loadwarn:metadata copy 1: block $cstart bad: rewritten from copy 0"
	try "both copies' checkpoint area $area block 0" "$c0" $((base + o)) \
		refuse:checkpoint "$(both $o)"
	o=$(($(jblk $sm 1) * 4096 + 8))
	try "copy 0 journal seq $sm (middle), journal copy 1" "$c0" $((base + o)) \
		"loadwarn:journal seq $sm copy 1 (metadata block $(jblk $sm 1)) damaged"
	try "copy 1 journal seq $sm (middle), both journal copies" "$c1" \
		$((base + $(jblk $sm 0) * 4096 + 8)) \
		"loadwarn:metadata copy 1: block $(jblk $sm 0) bad: rewritten from copy 0" \
		$((base + o))
	try "copy 0 journal seq $sm (middle), both journal copies" "$c0" \
		$((base + $(jblk $sm 0) * 4096 + 8)) \
		"loadwarn:damaged, read from copy 1 and repaired" $((base + o))
	try "both copies' journal seq $sm (middle), both journal copies" "$c0" \
		$((base + $(jblk $sm 0) * 4096 + 8)) refuse:journal $((base + o)) \
		"$(both $(($(jblk $sm 0) * 4096 + 8)))" "$(both $o)"
	try "member 2 label (a holder)" "$c1" 70 refuse:label
	try "member 1 label" "${disks[1]}" 70 refuse:label
	tail_bytes=()
	for ((q = se - 6; q < se; q++)); do
		[ "$q" -ge "$s0" ] || continue
		for o in $(($(jblk $q 0) * 4096 + 100)) $(($(jblk $q 1) * 4096 + 100)); do
			tail_bytes+=($((base + o)) "$(both $o)")
		done
	done
	try "journal seqs $((se - 6))..$sl, both journal copies of both copies (control: must be detected or refused)" \
		"$c0" - detect:journal "${tail_bytes[@]}"
}

if [ $mode = device ]; then
	try "undamaged (control)" "$meta" - load
	try "superblock in use (slot $cur), byte 300" "$meta" $((cur * 4096 + 300)) \
		"loadwarn:superblock slot $cur (metadata block $cur): bad checksum in superblock; using generation"
	try "superblock in use (slot $cur), magic" "$meta" $((cur * 4096)) either:superblock
	try "older superblock (slot $((1 - cur)))" "$meta" $(((1 - cur) * 4096 + 300)) load
	try "checkpoint area $area block 0, header" "$meta" $((cstart * 4096 + 16)) refuse:checkpoint
	try "checkpoint area $area block 0, payload" "$meta" $((cstart * 4096 + 200)) refuse:checkpoint
	sm=$(((s0 + se) / 2)) sl=$((se - 1))
	for c in 0 1; do
		try "journal seq $s0 (first replayed) copy $c" "$meta" $(($(jblk "$s0" $c) * 4096 + 100)) \
			"loadwarn:journal seq $s0 copy $c (metadata block $(jblk "$s0" $c)) damaged"
	done
	try "journal seq $sm (middle) copy 1" "$meta" $(($(jblk $sm 1) * 4096 + 8)) \
		"loadwarn:journal seq $sm copy 1 (metadata block $(jblk $sm 1)) damaged"
	for c in 0 1; do
		try "last journal block (seq $sl) copy $c" "$meta" $(($(jblk $sl $c) * 4096 + 100)) \
			"loadwarn:journal seq $sl copy $c (metadata block $(jblk $sl $c)) damaged"
	done
	try "journal seq $sm (middle), both copies" "$meta" $(($(jblk $sm 0) * 4096 + 8)) \
		refuse:journal $(($(jblk $sm 1) * 4096 + 300))
	try "member 2 label" "${disks[2]}" 70 refuse:label
	try "member 0 label, magic" "${disks[0]}" 1 refuse:label
	tail_bytes=()
	for ((q = se - 6; q < se; q++)); do
		[ "$q" -ge "$s0" ] || continue
		tail_bytes+=($(($(jblk $q 0) * 4096 + 100)) $(($(jblk $q 1) * 4096 + 100)))
	done
	try "journal seqs $((se - 6))..$sl, both copies (control: must be detected or refused)" \
		"$meta" - detect:journal "${tail_bytes[@]}"
else
	members_cases
fi
finish
