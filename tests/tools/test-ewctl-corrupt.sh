#!/bin/bash
# shellcheck disable=SC2046,SC2086 # $(devs DIR) and $lay split on purpose
# Issue 5's corruption rule, offline: "checkpoint, journal, superblock and
# member labels damaged by single-byte flips: always detected, never
# silent".  On images written by the hidden `ewctl debug-mkmeta` (the
# core's own encoders), one byte at a time is xor'ed with 0x5a at sampled
# positions of every kind of block (the first byte of each header field
# and a few last ones, the payload every 1021 bytes, the last byte), `ewctl check` is run
# with the data devices, and the byte is put back.  What each region must
# give (Documentation/on-disk-format.rst, "Tools" and "Recovery"):
#
#   superblock in use       exit 0 and "warning: superblock slot S: ...
#                           (generation G in slot O is used)": recovery
#                           falls back to the other, valid slot; the map
#                           it rebuilds is the same (dump compares it)
#   older superblock        exit 0 and "warning: superblock slot O: ..."
#   current checkpoint      exit 1, "checkpoint A block I (block B): ..."
#   one copy of a journal   exit 3 (damage that recovery repairs),
#   block, the last too     "damaged: journal seq S copy C (block B): ...":
#                           the block is replayed from its other copy
#   both copies of the      exit 0, "warning: journal ends at seq S with a
#   last journal block      damaged block": a double fault, which the
#                           design cannot tell from a torn, never
#                           acknowledged write (the data of that block
#                           is lost: documented, not a pass)
#   next journal slot       the same warning (garbage where the next
#                           journal write goes looks like a torn write)
#   member label            exit 1, "data device I (PATH): ..."
#   unused                  exactly the undamaged image's output: the
#                           other checkpoint area, journal blocks the
#                           checkpoint made obsolete and ones never
#                           written, blocks past the metadata, a
#                           member's bytes between its label and its data
#
# One "ok"/"not ok" line per region and layout, with the flips tried.
set -u
# shellcheck source=tests/tools/lib.sh
. "$(dirname "$0")/lib.sh"

[ -x "$ewctl" ] || { nok "ewctl built" "$ewctl missing"; exit 1; }
# a private copy: the tree is shared and a rebuild under a running loop
# would make single checks fail with 126
cp "$ewctl" "$tmp/ewctl" && ewctl=$tmp/ewctl
flips=$(dirname "$0")/flips.py

# Positions inside a 4 KiB block: both ends of each header field
# (Documentation/on-disk-format.rst, common header), then the payload.
hdr_pos="0 3 4 8 10 12 16 24 32 40 48 63"
pay_pos="$(seq -s ' ' 64 1021 4095) 4095"
all_pos="$hdr_pos $pay_pos"

total_flips=0
# region NAME FILE BASE WANT_RC PATTERN [POSITIONS]: flip each position
# of the block at byte BASE of FILE, one at a time; every check must exit
# WANT_RC with PATTERN (a fixed string) in its output.  PATTERN "=" means
# "exactly the undamaged output".  With ALSO=BYTE the same position of
# the block at BYTE is flipped too (both copies of a journal block).
region() {
	local name=$1 file=$2 base=$3 want=$4 pat=$5 pos=${6:-$all_pos}
	local bad=() n
	printf '%s' "$base_out" >"$tmp/base_out"
	rm -f "$tmp/last_out"
	# one process flips, checks and restores every position (flips.py)
	mapfile -t bad < <(python3 "$flips" --file "$file" --base "$base" \
		${ALSO:+--also "$ALSO"} --want "$want" --pattern "$pat" \
		--positions "$pos" --base-out "$tmp/base_out" \
		--last-out "$tmp/last_out" -- "$ewctl" check "$meta" $devs ||
		echo "flips.py failed")
	out=""
	[ ! -f "$tmp/last_out" ] || out=$(<"$tmp/last_out")
	n=$(wc -w <<<"$pos")
	total_flips=$((total_flips + n))
	if [ "${#bad[@]}" -eq 0 ]; then
		ok "$lay: $name: $n flips"
	else
		nok "$lay: $name: ${#bad[@]} of $n flips wrong (want rc $want, '$pat')" "${bad[@]:0:6}"
	fi
}

jget() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1" <<<"$dump"; }
jidx() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]][int(sys.argv[2])])' "$1" "$2" <<<"$dump"; }

t0=$SECONDS
# ew in full; raid10 (homes, update in place) on one block of each kind
for lay in "ew --mirrors 2" "raid10 --mirrors 2"; do
	full=1; [ "${lay%% *}" = ew ] || full=0
	d=$tmp/img; rm -rf "$d"; mkdir -p "$d"
	for i in 0 1 2 3; do truncate -s 9M "$d/d$i"; done
	truncate -s 16M "$d/meta"
	meta=$d/meta devs="$d/d0 $d/d1 $d/d2 $d/d3"
	# 300 writes, a journal block every 5, a checkpoint after write 100:
	# generation 2 in use, generation 1 still valid in the other slot
	if ! run 0 "$ewctl" debug-mkmeta --layout $lay --writes 300 \
		--checkpoint-at 100 "$meta" $devs; then
		nok "$lay: mkmeta" "rc=$rc" "$err"; continue
	fi
	run 0 "$ewctl" check "$meta" $devs || { nok "$lay: undamaged image passes" "$out"; continue; }
	base_out=$out
	grep -q warning <<<"$out" && { nok "$lay: undamaged image has no warning" "$out"; continue; }
	ok "$lay: undamaged image passes"
	run 0 "$ewctl" dump --json "$meta"; dump=$out
	cur=$(jget slot) old=$((1 - $(jget slot)))
	gen=$(jget generation) area=$(jget ckpt_area) cb=$(jget ckpt_blocks)
	js=$(jget journal_start) jb=$(jget journal_slots)
	seq0=$(jget journal_seq) seqe=$(jget journal_end_seq)
	cstart=$(jidx ckpt_start "$area") ostart=$(jidx ckpt_start $((1 - area)))
	total=$(jget meta_blocks)
	map_sum=$(python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["written_blocks"], j["stale_replicas"], j["mapped_replicas"])' <<<"$dump")
	# jblk SEQ [COPY]: the metadata block of a copy of a journal block
	jblk() { echo $((js + 2 * ($1 % jb) + ${2:-0})); }
	if [ "$seqe" -le $((seq0 + 2)) ] || [ "$(jget ckpt_seq)" -eq 0 ]; then
		nok "$lay: image has a checkpoint and 3+ journal blocks" "$dump"; continue
	fi

	# superblocks
	region "superblock in use (slot $cur): falls back" "$meta" $((cur * 4096)) 0 \
		"warning: superblock slot $cur: "
	grep -qF "(generation $((gen - 1)) in slot $old is used)" <<<"$out" ||
		nok "$lay: fallback names the older generation" "$out"
	flip "$meta" $((cur * 4096 + 300))
	run 0 "$ewctl" dump --json "$meta"
	fb=$(python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["generation"], j["written_blocks"], j["stale_replicas"], j["mapped_replicas"])' <<<"$out")
	flip "$meta" $((cur * 4096 + 300))
	if [ "$fb" = "$((gen - 1)) $map_sum" ]; then
		ok "$lay: the fallback superblock rebuilds the same map ($map_sum)"
	else
		nok "$lay: the fallback superblock rebuilds the same map" "want $((gen - 1)) $map_sum, got $fb"
	fi
	pos=$all_pos; [ "$full" = 1 ] || pos=$hdr_pos
	region "older superblock (slot $old)" "$meta" $((old * 4096)) 0 \
		"warning: superblock slot $old: " "$pos"

	# the current checkpoint: first, middle, last block
	for i in $(seq 0 $((cb - 1))); do
		[ "$i" = 0 ] || [ "$i" = $((cb - 1)) ] || [ "$i" = $((cb / 2)) ] || continue
		[ "$full" = 1 ] || [ "$i" = 0 ] || continue
		region "checkpoint area $area block $i" "$meta" $(((cstart + i) * 4096)) 1 \
			"checkpoint $area block $i (block $((cstart + i))): "
	done

	# the journal: first, middle, last replayed blocks (each copy), the
	# next slot
	for s in "$seq0" $(((seq0 + seqe) / 2)) $((seqe - 2)) $((seqe - 1)); do
		[ "$full" = 1 ] || [ "$s" = $(((seq0 + seqe) / 2)) ] || continue
		for c in 0 1; do
			region "journal seq $s copy $c: repaired from the other" "$meta" \
				$(($(jblk "$s" $c) * 4096)) 3 \
				"damaged: journal seq $s copy $c (block $(jblk "$s" $c)): "
		done
	done
	s=$((seqe - 1))
	ALSO=$(($(jblk "$s" 1) * 4096)) region \
		"both copies of the last journal block (seq $s): double fault, torn-write warning" \
		"$meta" $(($(jblk "$s") * 4096)) 0 \
		"warning: journal ends at seq $s with a damaged block"
	for c in 0 1; do
		region "next journal slot (seq $seqe) copy $c: torn-write warning" "$meta" \
			$(($(jblk "$seqe" $c) * 4096)) 0 \
			"warning: journal ends at seq $seqe with a damaged block" "$hdr_pos"
	done

	# member labels
	for i in 0 1 2 3; do
		[ "$full" = 1 ] || [ "$i" = 2 ] || continue
		region "member $i label" "$d/d$i" 0 1 "data device $i ($d/d$i): "
	done

	[ "$full" = 1 ] || continue
	# unused areas: no report at all
	few="0 8 16 48 100 2000 4095"
	region "unused: other checkpoint area" "$meta" $((ostart * 4096)) 0 = "$few"
	for c in 0 1; do
		region "unused: obsolete journal block (seq $((seq0 - 1))) copy $c" "$meta" \
			$(($(jblk $((seq0 - 1)) $c) * 4096)) 0 = "$few"
		region "unused: journal block never written (seq $((seqe + 1))) copy $c" "$meta" \
			$(($(jblk $((seqe + 1)) $c) * 4096)) 0 = "$few"
	done
	region "unused: past the metadata (block $total)" "$meta" $((total * 4096)) 0 = "$few"
	region "unused: member 1 between label and data" "$d/d1" 4096 0 = \
		"0 1000 $((1048576 - 4096 - 1))"
done
echo "# $total_flips single-byte flips checked in $((SECONDS - t0)) s"
exit "$failed"
