#!/bin/bash
# vm-run: --disks 4 --disk-size 32M --meta-size 16M --timeout 900 --rotational 1
#
# Degraded arrays, array ownership, a full volume (issue 19: defects 8,
# 4, 5 and the suspected -ENOSPC at a low dilution), four members,
# mirrors 2:
#  1. one array, one mapped device: a second "dmsetup create" with the
#     live array's table is refused (EBUSY, "Array already in use by
#     another mapped device"), nothing left behind; a reload of the same
#     device (reload + resume) and a suspend/resume keep working and the
#     data reads back;
#  2. for each layout, sync 1, member 0's partner slow (dm-delay, writes
#     2 s late): writes, then a clean remove with copies from member 0
#     still queued, then the array created again with "-" at member 0:
#     the replicas the scan queues whose only up-to-date source is on
#     member 0 are dropped and owed (status field 24) instead of holding
#     their queue for ever (before the fix: pending, field 8, never
#     drained); the scan (field 20) ends, writes and suspend complete;
#  3. a full ew volume at dilution 1.01 (31 free blocks per member),
#     members slowed by dm-delay, takes 128 concurrent overwrites
#     without an error (before the fix:
#     -ENOSPC, "no replica can take a write", when the writes in flight
#     held a member's free blocks and no free was deferred yet);
#  4. for each layout, "-" at member 2: blkdiscard of a range completes,
#     the range reads zeros (before the fix: NULL pointer dereference in
#     ew_discard_run, a panic, for raid10 and ddm).  Last, because the
#     code before the fix ends the guest there.
# Kernel log clean (no WARNING, BUG, Oops) after each part.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

load_target || { notok "module loaded"; finish; }
ok "module loaded"

# shellcheck disable=SC2206
D=($EW_DISKS)
[ "${#D[@]}" -ge 4 ] || { notok "four disks (have ${#D[@]})"; finish; }
D=("${D[@]:0:4}")
M=$EW_META
VOL=24M

mktable() {	# mktable LAYOUT SYNC: the four members
	ewctl table --layout "$1" --sync "$2" --len $VOL --metadata "$M" "${D[@]}"
}
# without_member TABLE I: TABLE with member I (0-based) as "-"
without_member() {
	local t=$1 i=$2
	printf '%s\n' "${t/${D[$i]}/-}"
}
SZ=$(blockdev --getsz "${D[0]}")
MD=(/dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3)
members() {	# members SLOW...: ewm0..3 over the disks, SLOW ones dm-delay
	local i table
	for i in 0 1 2 3; do
		table="0 $SZ linear ${D[$i]} 0"
		case " $* " in *" $i "*)
			table="0 $SZ delay ${D[$i]} 0 0 ${D[$i]} 0 2000" ;;
		esac
		if dmsetup info "ewm$i" >/dev/null 2>&1; then
			dmsetup reload "ewm$i" --table "$table" &&
				dmsetup resume "ewm$i" || return 1
		else
			dmsetup create "ewm$i" --table "$table" || return 1
		fi
	done
}
wait_field() {	# wait_field DEV N SECONDS TEST: until TEST "<field N>"
	local dev=$1 n=$2 s=$3 _ v
	shift 3
	for _ in $(seq "$s"); do
		v=$(status_field "$dev" "$n")
		"$@" "$v" && return 0
		sleep 1
	done
	note "field $n still '$v' after $s s: $(dmsetup status "$dev")"
	return 1
}
is_zero() { [ "$1" = 0 ]; }
scan_done() { [ -n "$1" ] && [ "${1%/*}" = "${1#*/}" ]; }
gone() {	# gone NAME: no such device
	! dmsetup info "$1" >/dev/null 2>&1
}
same() {	# same DEV SKIP_MIB COUNT_MIB FILE: those MiB of DEV are FILE
	[ "$(dd if="$1" bs=1M skip="$2" count="$3" iflag=direct status=none |
		sha256sum)" = "$(sha256sum <"$4")" ]
}

head -c 1048576 /dev/urandom >/tmp/data1m
head -c 2097152 /dev/zero >/tmp/zero2m
head -c 4194304 /dev/urandom >/tmp/old4m

# ---- 1. one array, one mapped device --------------------------------
klog_mark
wipe_array "$M" "${D[@]}"
table=$(mktable ew 2)
check "owner: create ewa" dmsetup create ewa --table "$table"
check "owner: write 1 MiB" \
	dd if=/tmp/data1m of=/dev/mapper/ewa bs=64k oflag=direct status=none
klog_mark
if dmsetup create ewb --table "$table" 2>/dev/null; then
	notok "owner: second device with the same array refused"
	dmsetup remove ewb
else
	check "owner: second device with the same array refused" \
		klog_has "eagerwrite: Array already in use by another mapped device"
	check "owner: nothing left behind" gone ewb
fi
check "owner: reload of the same device" \
	sh -c "dmsetup reload ewa --table '$table' && dmsetup resume ewa"
check "owner: suspend and resume" \
	sh -c "dmsetup suspend ewa && dmsetup resume ewa"
check "owner: data after reload" same /dev/mapper/ewa 0 1 /tmp/data1m
check "owner: remove" dmsetup remove ewa
check "owner: kernel log clean" klog_clean

# ---- 2. delayed replicas whose only source is missing ------------------
for layout in raid10 ddm ew; do
	klog_mark
	# member 0's partner: columns c, c+2 (raid10, ew); pairs 2p, 2p+1 (ddm)
	if [ "$layout" = ddm ]; then slow="1 3"; else slow="2 3"; fi
	wipe_array "$M" "${D[@]}"
	# shellcheck disable=SC2086
	check "$layout wedge: members $slow slow" members $slow
	table=$(ewctl table --layout "$layout" --sync 1 --delay-queue 64 \
		--len $VOL --metadata "$M" "${MD[@]}")
	check "$layout wedge: create" dmsetup create ewd --table "$table"
	# until copies are left over (how many depends on timing)
	for round in 1 2 3; do
		fio --name=w --filename=/dev/mapper/ewd --rw=randwrite \
			--bs=4k --size=16M --io_size=512k --ioengine=libaio \
			--iodepth=16 --direct=1 --eta=never \
			--output=/tmp/fio-w.out >/dev/null 2>&1 ||
			note "fio: $(tail -n 3 /tmp/fio-w.out)"
		pending=$(status_field ewd 8)
		[ "$pending" -ge 8 ] && break
		note "$layout: round $round left $pending delayed replicas"
	done
	note "$layout: $pending delayed replicas pending at remove"
	check "$layout wedge: delayed replicas pending" test "$pending" -gt 0
	check "$layout wedge: remove" dmsetup remove ewd
	check "$layout wedge: members fast" members
	check "$layout wedge: create with member 0 missing" \
		dmsetup create ewd --table "${table/${MD[0]}/-}"
	check "$layout wedge: pending drains to 0" wait_field ewd 8 30 is_zero
	check "$layout wedge: scan ends" wait_field ewd 20 30 scan_done
	owed=$(status_field ewd 24)
	note "$layout: owed $owed"
	check "$layout wedge: replicas with no source owed" test "$owed" -gt 0
	check "$layout wedge: writes complete" timeout 60 dd if=/tmp/data1m \
		of=/dev/mapper/ewd bs=4k seek=4096 oflag=direct status=none
	check "$layout wedge: suspend completes" \
		sh -c "timeout 30 dmsetup suspend ewd && dmsetup resume ewd"
	check "$layout wedge: remove again" timeout 60 dmsetup remove ewd
	for i in 0 1 2 3; do dmsetup remove "ewm$i"; done
	check "$layout wedge: kernel log clean" klog_clean
done

# ---- 3. overwrites of a full volume with little slack ------------------
klog_mark
wipe_array "$M" "${D[@]}"
check "full: members" members
# dilution 1.01: 31 free blocks per member once the volume is full
table=$(ewctl table --layout ew --sync 2 --dilution 1.01 --len $VOL \
	--metadata "$M" "${MD[@]}")
check "full: create (dilution 1.01)" dmsetup create ewf --table "$table"
check "full: fill" dd if=/dev/zero of=/dev/mapper/ewf bs=1M count=24 \
	oflag=direct status=none
# writes 2 s late: the 128 overwrites are all in flight at once
check "full: members slow" members 0 1 2 3
check "full: overwrites, 128 in flight, no error" \
	fio --name=o --filename=/dev/mapper/ewf --rw=randwrite --bs=4k \
	--io_size=1M --ioengine=libaio --iodepth=128 --direct=1 \
	--eta=never --output=/tmp/fio-o.out
no_refusal() { ! klog_has "no replica can take a write"; }
check "full: no write refused" no_refusal
check "full: remove" dmsetup remove ewf
for i in 0 1 2 3; do dmsetup remove "ewm$i"; done
check "full: kernel log clean" klog_clean

# ---- 4. discard on a degraded array ---------------------------------
for layout in raid10 ddm ew; do
	klog_mark
	wipe_array "$M" "${D[@]}"
	table=$(mktable "$layout" 2)
	check "$layout discard: create" dmsetup create ewx --table "$table"
	# an older generation first: a stale replica read below returns
	# valid-looking data that the exact comparison still catches
	check "$layout discard: write 4 MiB, twice" sh -c \
		"for f in /tmp/old4m /tmp/data1m; do for i in 0 1 2 3; do dd if=\$f of=/dev/mapper/ewx bs=64k seek=\$((i * 16)) count=16 oflag=direct status=none || exit 1; done; done"
	check "$layout discard: remove" dmsetup remove ewx
	check "$layout discard: create with member 2 missing" \
		dmsetup create ewx --table "$(without_member "$table" 2)"
	check "$layout discard: blkdiscard of 2 MiB" \
		blkdiscard -o 1048576 -l 2097152 /dev/mapper/ewx
	check "$layout discard: range reads zeros" \
		same /dev/mapper/ewx 1 2 /tmp/zero2m
	check "$layout discard: data around kept" \
		same /dev/mapper/ewx 3 1 /tmp/data1m
	check "$layout discard: remove again" dmsetup remove ewx
	check "$layout discard: kernel log clean" klog_clean
done

finish
