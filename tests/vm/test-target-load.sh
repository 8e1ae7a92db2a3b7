#!/bin/bash
# vm-run: --disks 36 --disk-size 64M --meta-size 64M --mem 2048 --timeout 1500
#
# The eagerwrite target under load (issues 3 and 4): while fio writes with
# crc32c verification, the device is suspended and resumed, and the same
# table is reloaded (dmsetup reload + resume swaps in a new table that
# shares the array); fio must finish with zero verify errors.  While
# suspended, no member has I/O in flight and the delayed-write queues stop
# moving.  A tiny delay_queue makes writers wait (throttle) without
# losing anything.  Once idle, every delayed replica has been propagated
# (pending back to 0).  Kernel log clean after each configuration.
#
# EW_TARGET_LOAD_CONFIGS="ew:2" runs a subset.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

configs=${EW_TARGET_LOAD_CONFIGS:-"raid10:1 ddm:2 ew:2 ew:1:16"}
DEV=ewl

load_target || { notok "module loaded"; finish; }
ok "module loaded"

members_idle() {	# no member has I/O in flight
	local d b
	for d in $EW_DISKS; do
		b=$(basename "$(readlink -f "$d")")
		[ -r /sys/block/$b/inflight ] || continue
		# shellcheck disable=SC2046
		set -- $(cat /sys/block/$b/inflight)
		[ "$1" -eq 0 ] && [ "$2" -eq 0 ] || { note "$b busy: $*"; return 1; }
	done
}

suspend_checks() {	# suspended: members idle, pending does not move
	local p1 p2
	dmsetup suspend "$DEV" || return 1
	sleep 1
	members_idle || { dmsetup resume "$DEV"; return 1; }
	p1=$(status_field "$DEV" 8)
	sleep 1
	p2=$(status_field "$DEV" 8)
	dmsetup resume "$DEV" || return 1
	[ "$p1" = "$p2" ] || { note "pending moved while suspended: $p1 -> $p2"; return 1; }
}

reload_same() {
	local t
	t=$(dmsetup table "$DEV") || return 1
	dmsetup reload "$DEV" --table "$t" && dmsetup resume "$DEV" &&
		[ "$(dmsetup table "$DEV")" = "$t" ]
}

drained() {	# pending reaches 0 within 60 s of idleness
	local i
	for i in $(seq 60); do
		[ "$(status_field "$DEV" 8)" -eq 0 ] && return 0
		sleep 1
	done
	note "still pending: $(dmsetup status "$DEV")"
	return 1
}

for c in $configs; do
	IFS=: read -r layout sync dq <<<"$c"
	name="$layout sync=$sync${dq:+ delay_queue=$dq}"
	klog_mark
	table=$(ewctl table --layout "$layout" --sync "$sync" ${dq:+--delay-queue $dq} \
		--metadata "$EW_META" $EW_DISKS) ||
		{ notok "$name: ewctl table"; continue; }
	check "$name: create" dmsetup create "$DEV" --table "$table"
	[ -b /dev/mapper/$DEV ] || continue
	fio --name=load --filename=/dev/mapper/$DEV --rw=randwrite --bsrange=4k-64k \
		--iodepth=16 --ioengine=libaio --direct=1 --size=128M --rate=12m \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --eta=never \
		--output=/tmp/fio-load.out >/dev/null 2>&1 &
	fpid=$!
	sleep 2
	check "$name: suspended under load is quiet" suspend_checks
	sleep 1
	check "$name: suspend/resume under load" sh -c "dmsetup suspend $DEV && sleep 0.3 && dmsetup resume $DEV"
	sleep 1
	check "$name: reload of the same table under load" reload_same
	sleep 1
	check "$name: second reload under load" reload_same
	if wait $fpid; then
		ok "$name: fio verify across suspend and reload"
	else
		notok "$name: fio verify across suspend and reload"
		tail -n 20 /tmp/fio-load.out | sed 's/^/#   /'
	fi
	check "$name: delayed replicas drained" drained
	check "$name: verify again after drain" fio --name=load \
		--filename=/dev/mapper/$DEV --rw=randwrite --bsrange=4k-64k \
		--iodepth=16 --ioengine=libaio --direct=1 --size=128M \
		--verify=crc32c --verify_only=1 --verify_fatal=1 --eta=never \
		--output=/tmp/fio-vo.out
	note "$name: $(dmsetup status "$DEV")"
	check "$name: remove" dmsetup remove "$DEV"
	check "$name: kernel log clean" klog_clean
	wipe_members
done
finish
