#!/bin/bash
# vm-run: --icount --disks 5 --disk-size 32M --meta-size 16M --timeout 600 --rotational 1
# vmtest: beside
#
# An ew or ddm rebuild writes its replacement in long runs (issue 17
# item 6): eager writing scattered the replicas, so a rebuild that copies
# each one to the block it held on the replaced member writes one block a
# request (0.10 of the spare's sequential rate on hddsim).  ddm's member
# holds its homes and its partner's eager replicas, chunk by chunk: runs
# to homes and runs to free blocks must both grow (before they did not:
# 11,829 write requests for 12,288 replicas in bench-rebuild.sh ddm).
# ew and ddm (EW_RR_LAYOUTS), sync 2, four
# members, a 24 MiB volume, 16 MiB written; member 1 missing, a spare
# (dm-linear, whose /sys/block stat counts the requests it gets) replaces
# it: the rebuild must average at least 64 KiB a write request to the
# spare (writes <= replicas copied / 16, label and all).  Then member 1's
# partner goes: every block reads back from the rebuilt member.  Before
# the fix: 1 write a replica copied (not ok).
# The kernel log's rebuild reads/writes lines must match the sectors the
# members read and the replicas copied, and on ew and ddm each source
# member must be read in one sweep with no block read twice (its runs are
# formed in the physical order of their sources: before, in logical
# order, they read through each other's sources).  ddm's home replicas
# go to free blocks too, in that sweep, and are moved home once each
# after the member is rebuilt (before: to their homes in logical order,
# the partner read a block at a time; no "home replicas" line); a load
# afterwards finds nothing to copy (every replica where it belongs).
# ddm again with member 1's partner non-rotational: no sort window and
# no home replica written eagerly (a source read out of order costs
# nothing more there; the sort cost CPU: 0.27 of null_blk's rate
# against 0.35).
# ew again with a sort window of 256 entries (module parameter
# rebuild_sort_window) for about 2,000 replicas: the sources are swept in
# bands (one pass of the scan each), several, each block still read once
# and at most one sweep a band (a window's worth at a time taken in
# logical order would sweep the whole member each time, reading through
# the sources of the windows to come).
# ddm again with one write to the spare failing mid-rebuild (an ewfault
# spare): the run of several stretches it belonged to fails whole and is
# copied again, and the rebuilt member holds every block (a module that
# drops one stretch's error: 4 not ok, the data read back wrong).
# Last, a banded ew rebuild (window 256) with writes during it, slowed
# to 1 MiB/s: when it is over, the scan's progress (status field 20)
# reads done = total (writes take blocks out of the later bands' counts;
# the progress once stayed short of the total for good).
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

DEV=ewrr
# shellcheck disable=SC2206
D=($EW_DISKS)
SZ=$(blockdev --getsz "${D[0]}")

load_target || { notok "module loaded"; finish; }
# stat_of NAME N: field N of dm device NAME's /sys stat (3: sectors read,
# 5: writes completed)
stat_of() {
	awk -v n="$2" '{ print $n }' "/sys/dev/block/$(dmsetup info -c --noheadings -o major,minor --separator : "$1" | tr -d ' ')/stat"
}
writes_of() { stat_of "$1" 5; }
# sectors_read: sectors read from the members left, ewm0, ewm2 and ewm3
sectors_read() { echo $(($(stat_of ewm0 3) + $(stat_of ewm2 3) + $(stat_of ewm3 3))); }

# degraded T LAYOUT: on members ewm0-3 (made by the caller), an array of
# LAYOUT (sync 2, 24 MiB) with 16 MiB written and nothing pending, then
# assembled again with member 1 missing at rebuild_rate 0.  Sets table
# (the whole array's) and sum (the data's sha256).
degraded() {
	local t=$1 layout=$2 all
	all="/dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3"
	# shellcheck disable=SC2086
	table=$(ewctl table --layout "$layout" --sync 2 --len 24M --metadata "$EW_META" $all)
	klog_mark
	check "$t: create" dmsetup create $DEV --table "$table"
	[ -b /dev/mapper/$DEV ] || return 1
	check "$t: 16 MiB written" dd if=/dev/urandom of=/dev/mapper/$DEV bs=256k count=64 \
		oflag=direct conv=fsync status=none
	# ddm: a write's home copy is made in the background; none pending
	check "$t: nothing pending" wait_drained $DEV 120
	sum=$(dd if=/dev/mapper/$DEV bs=1M count=16 iflag=direct status=none | sha256sum)
	check "$t: remove" dmsetup remove $DEV
	check "$t: assembled with member 1 missing" dmsetup create $DEV --table "${table/\/dev\/mapper\/ewm1 /- }"
	check "$t: member 1 failed (D)" test "$(member_state $DEV 1)" = D
	check "$t: rebuild_rate 0" dmsetup message $DEV 0 rebuild_rate 0
}

# run_layout LAYOUT PARTNER [WINDOW]: the case above on LAYOUT; PARTNER
# is member 1's partner (ew: replica 1 of column 1 is on member 3; ddm:
# pairs 0-1 and 2-3), the one that goes at the end; WINDOW: the sort
# window's entries (rebuild_sort_window) for this array.
WINPARAM=/sys/module/dm_eagerwrite/parameters/rebuild_sort_window
run_layout() {
	local layout=$1 partner=$2 win=${3:-65536} nonrot=${4:-} t=$1 spare bg0 w0 r0 n w io rb rg wb r bands
	[ "$win" != 65536 ] && t="$layout/window $win"
	[ -n "$nonrot" ] && t="$layout/non-rotational partner"
	check "$t: rebuild_sort_window $win" sh -c "echo $win > $WINPARAM"
	dmsetup remove_all 2>/dev/null
	wipe_array "$EW_META" "${D[@]}"
	# nonrot: member 1's partner, member 0, says it is not rotational
	# (its dm-linear takes that from the disk under it)
	[ -n "$nonrot" ] &&
		check "$t: member 0's disk non-rotational" sh -c "echo 0 > /sys/block/${D[0]#/dev/}/queue/rotational"
	for i in 0 1 2 3; do dmsetup create "ewm$i" --table "0 $SZ linear ${D[$i]} 0"; done
	[ -n "$nonrot" ] && echo 1 >"/sys/block/${D[0]#/dev/}/queue/rotational"
	dmsetup create ewsp --table "0 $SZ linear ${D[4]} 0"
	degraded "$t" "$layout" || return 1

	spare=${table/\/dev\/mapper\/ewm1 /\/dev\/mapper\/ewsp }
	bg0=$(status_field $DEV 12)
	w0=$(writes_of ewsp) r0=$(sectors_read)
	klog_mark
	check "$t: the spare's write count read ($w0)" test -n "$w0"
	check "$t: the spare replaces member 1" sh -c "dmsetup reload $DEV --table '$spare' && dmsetup resume $DEV"
	check "$t: the rebuild completes" rebuilt_drained $DEV 120
	bg=$(($(status_field $DEV 12) - bg0))
	w=$(($(writes_of ewsp) - w0))
	# the kernel log's account of the rebuild's I/O against the members'
	# own: every block it says it read (gaps read through too) the
	# members read, the blocks it read besides the gaps and wrote are the
	# replicas
	io=$(klog_since | grep -a 'rebuild \(reads\|writes\):' | sed 's/^.*eagerwrite: //')
	note "$io"
	rb=$(awk '$4 == "reads:" { n += $5 } END { print n + 0 }' <<<"$io")
	rg=$(awk '$4 == "reads:" { g += substr($7, 2) } END { print g + 0 }' <<<"$io")
	wb=$(awk '$4 == "writes:" && $2 == 1 { print $5 }' <<<"$io")
	# ddm: the home replicas went to free blocks in the order of their
	# sources, then each was moved home once (a delayed copy, counted in
	# field 12 and written to the spare with a request of its own)
	homes=$(klog_since |
		sed -n 's/^.*rebuild wrote \([0-9]*\) home replicas to free blocks.*$/\1/p' | tail -n 1)
	homes=${homes:-0}
	n=$((bg - homes))
	note "$t: rebuild: $n replicas copied ($((n * 4)) KiB), $homes home replicas then moved home, $w write requests to the spare"
	check "$t: the rebuild copied member 1's replicas (>= 1024: $n)" test "$n" -ge 1024
	check "$t: at least 64 KiB a rebuild write to the spare ($w writes, $homes of them moves home, for $n replicas)" \
		test $(((w - homes) * 16)) -le "$n"
	r=$(($(sectors_read) - r0))
	if [ "$layout" = ddm ] && [ -n "$nonrot" ]; then
		# a source out of order costs nothing more: homes in logical
		# order, no window
		check "$t: home replicas written to their homes ($homes moved)" test "$homes" -eq 0
		check "$t: the log's blocks read ($rb) are what the members read ($r sectors)" test $((rb * 8)) -eq "$r"
	elif [ "$layout" = ddm ]; then
		check "$t: home replicas written eagerly, then moved home ($homes)" test "$homes" -gt 0
		check "$t: the log's blocks read ($rb) and the moves' sources are what the members read ($r sectors)" \
			test $((rb * 8)) -le "$r" -a "$r" -le $(((rb + homes) * 8))
	else
		check "$t: no home replica moved ($homes)" test "$homes" -eq 0
		check "$t: the log's blocks read ($rb) are what the members read ($r sectors)" test $((rb * 8)) -eq "$r"
	fi
	check "$t: ... its gap blocks ($rg) besides, the replicas copied ($n)" test $((rb - rg)) -eq "$n"
	check "$t: ... and member 1 got them, written ($wb)" test "${wb:-0}" -eq "$n"
	# ew and ddm: the runs to free blocks are formed in the physical
	# order of their sources (the sort window, see Rebuild runs), so each
	# source member is read in one sweep (no read behind the one before)
	# and no block of it is read twice (blocks read <= the span swept).
	# Formed in logical order, runs read through each other's sources:
	# blocks read twice.  ddm's home replicas too: written to free blocks
	# first (before, to their homes in logical order: a source read a
	# block at a time all over the partner).
	if [ -z "$nonrot" ]; then
		sw=$(klog_since | grep -a 'rebuild \(reads\|sweep\):' |
			sed 's/^.*eagerwrite: //' | awk '
			$4 == "reads:" { rd[$2] = $5 }
			$4 == "sweep:" { split($6, b, "[-,]"); span[$2] = b[2] - b[1] + 1; back[$2] = $9 }
			END { for (m in rd) printf "%s:%s/%s/%s ", m, rd[m], span[m], back[m] }')
		note "$t: per source member, blocks read/span swept/reads out of order: $sw"
		bands=$(klog_since |
			sed -n 's/^.*rebuild sources swept in \([0-9]*\) band.*$/\1/p' | tail -n 1)
		if [ "$win" = 65536 ]; then
			check "$t: one band ($bands)" test "$bands" = 1
		else
			check "$t: more than one band ($bands)" test "${bands:-0}" -gt 1
		fi
		check "$t: every source member read in one sweep a band, each block once ($sw)" \
			awk -v s="$sw" -v b="${bands:-1}" 'BEGIN { n = split(s, e, " "); if (!n) exit 1
				for (i = 1; i <= n; i++) { split(e[i], f, "[:/]")
					if (f[3] == "" || f[2] > f[3] || f[4] > b - 1) exit 1 } }'
	fi
	check "$t: data reads back with every member" \
		test "$(dd if=/dev/mapper/$DEV bs=1M count=16 iflag=direct status=none | sha256sum)" = "$sum"
	check "$t: remove again" dmsetup remove $DEV
	# every replica where it belongs: the scan after a load queues a
	# ddm copy away from its home, and there is none
	check "$t: assembled again" dmsetup create $DEV --table "$spare"
	check "$t: nothing to resync" rebuilt_drained $DEV 120
	check "$t: no copy made after the load ($(status_field $DEV 12))" test "$(status_field $DEV 12)" = 0
	check "$t: remove after the load" dmsetup remove $DEV

	# member 1's partner gone: what it held is read from the rebuilt member
	check "$t: assembled with member $partner missing" dmsetup create $DEV --table "${spare/\/dev\/mapper\/ewm$partner /- }"
	check "$t: data reads back from the rebuilt member" \
		test "$(dd if=/dev/mapper/$DEV bs=1M count=16 iflag=direct status=none | sha256sum)" = "$sum"
	check "$t: remove at the end" dmsetup remove $DEV
	check "$t: kernel log clean" klog_clean
}

# progress_case: the last case above
progress_case() {
	local t="ew/window 256, writes during the rebuild" table spare p
	dmsetup remove_all 2>/dev/null
	wipe_array "$EW_META" "${D[@]}"
	for i in 0 1 2 3; do dmsetup create "ewm$i" --table "0 $SZ linear ${D[$i]} 0"; done
	dmsetup create ewsp --table "0 $SZ linear ${D[4]} 0"
	all="/dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3"
	check "$t: rebuild_sort_window 256" sh -c "echo 256 > $WINPARAM"
	# shellcheck disable=SC2086
	table=$(ewctl table --layout ew --sync 2 --len 24M --metadata "$EW_META" $all)
	check "$t: create" dmsetup create $DEV --table "$table"
	[ -b /dev/mapper/$DEV ] || return 1
	check "$t: 16 MiB written" dd if=/dev/urandom of=/dev/mapper/$DEV bs=256k count=64 \
		oflag=direct conv=fsync status=none
	check "$t: nothing pending" wait_drained $DEV 120
	check "$t: remove" dmsetup remove $DEV
	check "$t: assembled with member 1 missing" dmsetup create $DEV --table "${table/\/dev\/mapper\/ewm1 /- }"
	check "$t: rebuild_rate 1" dmsetup message $DEV 0 rebuild_rate 1
	spare=${table/\/dev\/mapper\/ewm1 /\/dev\/mapper\/ewsp }
	check "$t: the spare replaces member 1" sh -c "dmsetup reload $DEV --table '$spare' && dmsetup resume $DEV"
	p=$(status_field $DEV 26)
	check "$t: the rebuild runs ($p)" in_flight "$p"
	check "$t: 8 MiB rewritten during it" dd if=/dev/urandom of=/dev/mapper/$DEV bs=64k count=128 \
		oflag=direct conv=fsync status=none
	p=$(status_field $DEV 26)
	check "$t: still running after the writes ($p)" in_flight "$p"
	check "$t: rebuild_rate 0" dmsetup message $DEV 0 rebuild_rate 0
	check "$t: the rebuild completes" rebuilt_drained $DEV 120
	p=$(status_field $DEV 20)
	check "$t: the scan's progress is whole ($p)" sh -c "[ '${p%/*}' = '${p#*/}' ] && [ -n '${p%/*}' ]"
	check "$t: remove at the end" dmsetup remove $DEV
}
# fault_case: ddm, one write of the rebuild to the spare fails.  A run
# to free blocks spans several of the spare's free stretches (ddm's
# home chunks between them), one write request a stretch: the run must
# fail whole (none of its blocks current), the scan copy its blocks
# again, and the rebuilt member hold every block (read with its partner
# missing).  A run that counted only its last stretch's completion, or
# dropped one stretch's error, leaves blocks current on the spare that
# were never written there.
fault_case() {
	local t="ddm, a rebuild write fails" spare n f
	load_ewfault || { notok "$t: ewfault loaded"; return 1; }
	echo 65536 >"$WINPARAM"
	dmsetup remove_all 2>/dev/null
	wipe_array "$EW_META" "${D[@]}"
	for i in 0 1 2 3; do dmsetup create "ewm$i" --table "0 $SZ linear ${D[$i]} 0"; done
	dmsetup create ewsp --table "0 $SZ ewfault ${D[4]} 0"
	degraded "$t" ddm || return 1
	# the spare's label and the rebuild's first writes pass; the 24th
	# write fails, without reaching the disk
	check "$t: the spare's 24th write will fail" dmsetup message ewsp 0 fail_nth_write 24
	spare=${table/\/dev\/mapper\/ewm1 /\/dev\/mapper\/ewsp }
	klog_mark
	check "$t: the spare replaces member 1" sh -c "dmsetup reload $DEV --table '$spare' && dmsetup resume $DEV"
	check "$t: the rebuild completes" rebuilt_drained $DEV 120
	# "rebuild copy of N blocks from member S to member 1 failed (write)"
	f=$(klog_since | grep -a 'rebuild copy of .* to member 1 failed (write)' | head -n 1)
	n=$(sed -n 's/^.*rebuild copy of \([0-9]*\) blocks.*$/\1/p' <<<"$f")
	note "$t: ${f#*eagerwrite: }"
	check "$t: one run failed on the spare's write" test -n "$n"
	check "$t: ... a run of several stretches ($n blocks, more than 32)" test "${n:-0}" -gt 32
	check "$t: data reads back" \
		test "$(dd if=/dev/mapper/$DEV bs=1M count=16 iflag=direct status=none | sha256sum)" = "$sum"
	check "$t: remove" dmsetup remove $DEV
	check "$t: assembled with member 0 (member 1's partner) missing" \
		dmsetup create $DEV --table "${spare/\/dev\/mapper\/ewm0 /- }"
	check "$t: data reads back from the rebuilt member" \
		test "$(dd if=/dev/mapper/$DEV bs=1M count=16 iflag=direct status=none | sha256sum)" = "$sum"
	check "$t: remove at the end" dmsetup remove $DEV
	check "$t: kernel log clean" klog_clean
}
# in_flight N/M: a progress field read, not over
in_flight() {
	[[ "$1" =~ ^[0-9]+/[0-9]+$ ]] && [ "${1%/*}" -lt "${1#*/}" ]
}

for l in ${EW_RR_LAYOUTS:-ew ddm}; do
	case $l in
	ew) run_layout ew 3 && run_layout ew 3 256 ;;
	ddm) run_layout ddm 0 && run_layout ddm 0 65536 nonrot && fault_case ;;
	*) notok "unknown layout $l" ;;
	esac
done
progress_case
echo 65536 >"$WINPARAM" 2>/dev/null
dmsetup remove_all 2>/dev/null
finish
