#!/bin/bash
# vm-run: --icount --disks 5 --disk-size 48M --meta-size 16M --timeout 600
# vmtest: beside
#
# Told when something fails (issue 17, item 5): ewctl monitor, driven only
# by device-mapper events (no --interval), sees a member fail (member 1, a
# dm-linear switched to dm-error under writes), a replacement's rebuild
# start and finish, and runs --program for each; --oneshot reports the
# degraded array; the monitor ends when its array is removed.  The
# rebuild runs while the monitor is stopped, so that it sees member 1 go
# from failed to active in one look.  Four
# members (raid10, mirrors 2, sync 2), the fifth disk is the spare.
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
SZ=$(blockdev --getsz "${D[0]}")
for i in 0 1 2 3 4; do
	dmsetup create "ewm$i" --table "0 $SZ linear ${D[$i]} 0" || { notok "linear $i"; finish; }
done
wipe_array "$M" /dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3 /dev/mapper/ewm4
klog_mark
T=$(ewctl table --layout raid10 --sync 2 --len 24M --metadata "$M" \
	/dev/mapper/ewm0 /dev/mapper/ewm1 /dev/mapper/ewm2 /dev/mapper/ewm3)
dmsetup create ewv --table "$T" || { notok "create the array"; finish; }

# --program: one line per call, its arguments.
cat >/tmp/prog.sh <<'P'
#!/bin/sh
echo "$*" >>/tmp/prog.log
P
chmod +x /tmp/prog.sh
: >/tmp/prog.log
ewctl monitor --program /tmp/prog.sh ewv >/tmp/mon.log 2>/tmp/mon.err &
mon=$!
sleep 1
wait_for() {	# wait_for REGEX FILE SECONDS
	local i
	for i in $(seq $(($3 * 5))); do
		grep -qE "$1" "$2" && return 0
		sleep 0.2
	done
	note "no '$1' in $2 after $3 s:"; sed 's/^/#   /' "$2" | tail -n 5
	return 1
}
exited() {	# exited PID SECONDS: PID gone within SECONDS (on state, not a sleep)
	local i
	for i in $(seq $(($2 * 5))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	note "pid $1 still running after $2 s"
	return 1
}
check "monitor: running, nothing to report on a healthy array" \
	eval 'kill -0 $mon && [ ! -s /tmp/mon.log ]'

# A member fails under writes.
dmsetup reload ewm1 --table "0 $SZ error" && dmsetup resume ewm1
dd if=/dev/urandom of=/dev/mapper/ewv bs=64K count=256 oflag=direct status=none
dd if=/dev/mapper/ewv of=/dev/null bs=64K count=256 iflag=direct status=none
for i in $(seq 60); do
	[ "$(status_field ewv 7 | cut -c2)" = D ] && break
	dd if=/dev/urandom of=/dev/mapper/ewv bs=64K count=16 oflag=direct status=none
	sleep 0.5
done
check "member 1 failed (status)" [ "$(status_field ewv 7 | cut -c2)" = D ]
check "monitor: 'ewv Fail 1' from the event alone (no --interval)" \
	wait_for ' ewv Fail 1$' /tmp/mon.log 20
check "monitor: --program ran with 'Fail ewv 1'" wait_for '^Fail ewv 1$' /tmp/prog.log 10
check "monitor --oneshot: DegradedArray 1, exit 0" \
	eval 'ewctl monitor --oneshot ewv >/tmp/one.log 2>&1 && grep -q " ewv DegradedArray 1$" /tmp/one.log'

# The spare replaces member 1: the rebuild starts and finishes, while the
# monitor is stopped (SIGSTOP, its array child too): it wakes once for
# both events and must still report both (member 1 went from D to A
# between two looks; a monitor on a loaded machine missed them so, and
# this makes that case certain instead of a race).
children() {	# children PID: the PIDs whose parent is PID
	local f
	for f in /proc/[0-9]*/stat; do
		awk -v p="$1" '$4 == p { print $1 }' "$f" 2>/dev/null
	done
}
mons="$mon $(children "$mon")"
# shellcheck disable=SC2086 # a list of PIDs
kill -STOP $mons
if dmsetup reload ewv --table "${T/\/dev\/mapper\/ewm1 /\/dev\/mapper\/ewm4 }" &&
		dmsetup resume ewv; then
	ok "the spare replaces member 1 (reload, resume)"
else
	notok "the spare replaces member 1 (reload, resume)"
fi
for i in $(seq 600); do
	[ "$(status_field ewv 7 | cut -c2)" = A ] && break
	sleep 0.2
done
check "member 1 rebuilt (status) while the monitor was stopped" \
	[ "$(status_field ewv 7 | cut -c2)" = A ]
# shellcheck disable=SC2086
kill -CONT $mons
check "monitor: RebuildStarted 1" wait_for ' ewv RebuildStarted 1$' /tmp/mon.log 30
check "monitor: RebuildFinished 1" wait_for ' ewv RebuildFinished 1$' /tmp/mon.log 120
check "monitor: --program ran for the rebuild" \
	eval 'grep -q "^RebuildStarted ewv 1$" /tmp/prog.log && grep -q "^RebuildFinished ewv 1$" /tmp/prog.log'

dmsetup remove ewv
check "monitor: DeviceDisappeared when the array is removed, then exits" \
	eval 'wait_for " ewv DeviceDisappeared$" /tmp/mon.log 10 && exited $mon 30'
kill "$mon" 2>/dev/null
check "monitor: nothing on stderr" eval '[ ! -s /tmp/mon.err ] || { sed "s/^/#   /" /tmp/mon.err; false; }'
check "monitor: no array is exit 1, a bad --interval exit 2" \
	eval 'ewctl monitor 2>/dev/null; [ $? = 1 ] && { ewctl monitor --interval x ewv 2>/dev/null; [ $? = 2 ]; }'
for i in 0 1 2 3 4; do dmsetup remove "ewm$i"; done
check "kernel log clean" klog_clean
finish
