#!/bin/bash
# vm-run: --disks 36 --disk-size 64M --meta-size 64M --mem 2048 --timeout 1500
#
# The eagerwrite target under load (issues 3 and 4): while fio writes with
# crc32c verification, the device is suspended and resumed, and the same
# table is reloaded (dmsetup reload + resume swaps in a new table that
# shares the array); fio must finish with zero verify errors.  While
# suspended, no member has I/O in flight and the delayed-write queues stop
# moving.  A tiny delay_queue makes writers wait (throttle) without
# losing anything.  Generation-checked writes (ewprobe, gen_write in
# target-lib.sh, the first MiB; fio has the rest) run beside fio.  Once
# idle, every delayed replica has been propagated (pending back to 0); then
# the second replica of every replica set fails (each a dm-linear turned
# dm-error), so that every block is read from its other replica: fio's
# data and every acknowledged generation must be there ("drained" is a
# counter; this reads the delayed copies).  Kernel log clean after each
# configuration.
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

under_load() {	# the writes counter moved, fio still running
	local _
	for _ in $(seq 60); do
		[ "$(status_field "$DEV" 10)" -gt 0 ] && kill -0 "$fpid" 2>/dev/null &&
			return 0
		sleep 1
	done
	note "no writes under load: $(dmsetup status "$DEV")"
	return 1
}

drained() { wait_drained "$DEV" 60; }

verify_only() {	# fio's data read back, no writes
	fio --name=load --filename=/dev/mapper/$DEV --rw=randwrite \
		--bsrange=4k-64k --iodepth=16 --ioengine=libaio --direct=1 \
		--offset=1M --size=128M --verify=crc32c --verify_only=1 \
		--verify_fatal=1 --eta=never --output=/tmp/fio-vo.out \
		>/dev/null 2>&1 && return 0
	grep -E 'verify|bad|err' /tmp/fio-vo.out | head -n 10 | sed 's/^/#   /'
	return 1
}

for c in $configs; do
	IFS=: read -r layout sync dq <<<"$c"
	name="$layout sync=$sync${dq:+ delay_queue=$dq}"
	klog_mark
	disks=$(wrap_partners "$layout") || { notok "$name: partners on dm-linear"; continue; }
	# shellcheck disable=SC2086
	table=$(ewctl table --layout "$layout" --sync "$sync" ${dq:+--delay-queue $dq} \
		--metadata "$EW_META" $disks) ||
		{ notok "$name: ewctl table"; continue; }
	check "$name: create" dmsetup create "$DEV" --table "$table"
	[ -b /dev/mapper/$DEV ] || continue
	fio --name=load --filename=/dev/mapper/$DEV --rw=randwrite --bsrange=4k-64k \
		--iodepth=16 --ioengine=libaio --direct=1 --offset=1M --size=128M --rate=12m \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --eta=never \
		--output=/tmp/fio-load.out >/dev/null 2>&1 &
	fpid=$!
	gen_write "$DEV" 300 &
	gpid=$!
	check "$name: writes under way" under_load
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
	check "$name: generation writes across suspend and reload" wait $gpid
	check "$name: delayed replicas drained" drained
	check "$name: verify again after drain" verify_only
	check "$name: generations after drain" gen_verify "$DEV"
	check "$name: second replicas failed" fail_partners
	check "$name: verify again from the first replicas" verify_only
	check "$name: generations from the first replicas" gen_verify "$DEV"
	note "$name: $(dmsetup status "$DEV")"
	check "$name: remove" dmsetup remove "$DEV"
	check "$name: kernel log clean" klog_clean
	unwrap_partners
	wipe_members
done
finish
