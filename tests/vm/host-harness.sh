#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The VM harness seen from the host (issue 4): runs scripts/vm-run itself,
# five boots of small guests (one member disk, so each boot is short).
#   1. exit status and arguments reach the host: guest "exit 3" -> 3;
#   2. --disk-dir + --kill-on: a power cut (137) right after the guest
#      wrote a block and told the channel; the line is in the channel file;
#   3. second boot on the same images, cut by --kill-after: the block is
#      there, and the channel has the guest's word on it;
#   4. a hung task, then an oops (sysrq c): 125, both named by vm-run
#      (a literal WARN() has no cheap trigger in Debian's kernel: panic_on_warn
#      turns one into the same panic path as the oops);
#   5. --timeout: 124;
#   6. --icount: the guest has one CPU and sees EW_ICOUNT, and its clock
#      follows the instruction count: idle time is skipped, so more guest
#      sleep costs (almost) no more wall time;
#   7. --rotational 1: the loop members' queues say rotational (the
#      target's disk model is then used on them), the metadata disk's
#      does not; without it they say 0.  The default --cpu has SSE4.2
#      (crc32c-intel loads).
# Plus argument errors (126) without booting.  Prints "ok - NAME" /
# "not ok - NAME".
set -u
top=${EW_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
vmrun=$top/scripts/vm-run
fails=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fails=$((fails + 1)); }
note() { echo "# $*"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/host-harness.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
small=(--disks 1 --disk-size 16M --meta-size 4M --mem 1024 --quiet)

# run NAME VM-RUN-ARGS...: runs vm-run, sets $rc, keeps stderr in $work/NAME.err
run() {
	local name=$1
	shift
	"$vmrun" --log "$work/$name.log" "$@" >/dev/null 2>"$work/$name.err"
	rc=$?
}
show() { sed 's/^/#   /' "$work/$1.err" | tail -n 8; }
# result NAME STATUS [LOG]: ok when STATUS is 0; else not ok and LOG's tail.
result() {
	if [ "$2" = 0 ]; then ok "$1"; else notok "$1"; [ -z "${3:-}" ] || show "$3"; fi
}

# --- arguments -------------------------------------------------------------
echo 'exit 0' >"$work/true.sh"
run badargs --disks many -- "$work/true.sh"
[ "$rc" = 126 ]
result "a bad option value is a harness error (126)" $?
run noscript --disks 1 -- "$work/does-not-exist.sh"
[ "$rc" = 126 ]
result "a missing guest script is a harness error (126)" $?
run badicount --icount=11 -- "$work/true.sh"
[ "$rc" = 126 ]
result "--icount with a shift out of 0..10 is a harness error (126)" $?
run badrot --rotational yes -- "$work/true.sh"
[ "$rc" = 126 ]
result "--rotational other than 0 or 1 is a harness error (126)" $?
"$vmrun" --help | grep -q -- '--kill-on'
result "--help documents the options" $?

# --- 6: exact time ---------------------------------------------------------
# One CPU, the shift passed in, then 300 s of guest sleep: without
# --icount that holds the run for 300 s of wall time and the 240 s
# timeout ends it (124); with it the guest's clock jumps over the idle
# time and the whole run takes about a boot.
cat >"$work/icount.sh" <<'EOF'
#!/bin/sh
[ "$(nproc)" = 1 ] && [ "$EW_ICOUNT" = 0 ] || exit 1
sleep 300
EOF
run icount "${small[@]}" --icount --timeout 240 -- "$work/icount.sh"
[ "$rc" = 0 ]
result "--icount: one vCPU, EW_ICOUNT=0, 300 s of guest sleep in < 240 s wall" $? icount
grep -aq 'exact time: icount shift 0, 1 CPU' "$work/icount.log"
result "--icount: the boot line names exact time" $?

# --- 7: rotational members ------------------------------------------------
# The guest script prints what each queue says; two members, so that a
# loop over them is seen doing every one.
cat >"$work/rot.sh" <<'EOF'
#!/bin/sh
for d in $EW_DISKS; do
	echo "rot-member $(cat "/sys/block/${d#/dev/}/queue/rotational")"
done
echo "rot-meta $(cat "/sys/block/${EW_META#/dev/}/queue/rotational")"
grep -q '^flags.* sse4_2' /proc/cpuinfo && echo "cpu-has-sse4_2"
# registered, as a module (Debian's kernel) or built in (the debug kernel)
grep -q '^driver *: crc32c-intel$' /proc/crypto && echo "crc32c-intel-loaded"
exit 0
EOF
run rot1 --disks 2 --disk-size 16M --meta-size 4M --mem 1024 --quiet \
	--rotational 1 -- "$work/rot.sh"
[ "$rc" = 0 ] && [ "$(grep -ac '^rot-member 1' "$work/rot1.log")" = 2 ] &&
	grep -aq '^rot-meta 0' "$work/rot1.log"
result "--rotational 1: both loop members rotational, the metadata disk not" $? rot1
grep -aq '(loop, rotational 1)' "$work/rot1.log"
result "--rotational 1: the boot line says so" $?
grep -aq '^cpu-has-sse4_2' "$work/rot1.log" && grep -aq '^crc32c-intel-loaded' "$work/rot1.log"
result "the default CPU has SSE4.2 and the guest's crc32c runs in hardware (crc32c-intel)" $?
run rot0 --disks 2 --disk-size 16M --meta-size 4M --mem 1024 --quiet -- "$work/rot.sh"
[ "$rc" = 0 ] && [ "$(grep -ac '^rot-member 0' "$work/rot0.log")" = 2 ]
result "without --rotational loop members stay non-rotational" $? rot0

# --- 1: exit status --------------------------------------------------------
cat >"$work/exit3.sh" <<'EOF'
#!/bin/sh
# Arguments arrive intact, then the status travels back.
if [ "$#" = 2 ] && [ "$1" = "a b" ] && [ "$2" = "it's" ]; then
	exit 3
fi
exit 1
EOF
run exit3 "${small[@]}" -- "$work/exit3.sh" "a b" "it's"
[ "$rc" = 3 ]
result "guest exit 3 (with quoted arguments) -> vm-run exits 3" $? exit3
grep -q 'EW-VM-EXIT [0-9a-f]* 3' "$work/exit3.log"
result "--log FILE holds the console" $?

# --- 2 and 3: power cut, persistence, channel ---------------------------------
disks=$work/disks
cat >"$work/write.sh" <<'EOF'
#!/bin/bash
d=$(head -n 1 /ew/disks)
if printf 'harness-%s\n' "$1" | dd of="$d" bs=4096 conv=sync oflag=direct status=none; then
	echo "acked $1" >"$EW_CHANNEL"
	echo "CUT-NOW"
fi
sleep 600
EOF
run cut1 "${small[@]}" --disk-dir "$disks" --channel "$work/chan1" \
	--kill-on '^CUT-NOW' --timeout 300 -- "$work/write.sh" 4711
[ "$rc" = 137 ]
result "--kill-on REGEX cuts the power (137)" $? cut1
grep -qx 'acked 4711' "$work/chan1"
st=$?
result "the channel file has the line written before the cut" $st
[ $st = 0 ] || od -c "$work/chan1" | head -n 3 | sed 's/^/#   /'
[ -f "$disks/disk00.img" ] && [ -f "$disks/meta.img" ] &&
	[ "$(stat -c %s "$disks/disk00.img")" = $((16 << 20)) ]
result "--disk-dir images exist after the cut (disk00.img, meta.img, 16M)" $?
head -c 20 "$disks/disk00.img" | grep -q 'harness-4711'
result "the block written before the cut is in the host image" $?

cat >"$work/read.sh" <<'EOF'
#!/bin/sh
d=$(head -n 1 /ew/disks)
got=$(head -c 12 "$d")
echo "seen $got" >"$EW_CHANNEL"
sleep 600
EOF
run cut2 "${small[@]}" --disk-dir "$disks" --channel "$work/chan2" \
	--kill-after 2 --timeout 300 -- "$work/read.sh"
[ "$rc" = 137 ]
result "--kill-after S cuts the power (137)" $? cut2
grep -qx 'seen harness-4711' "$work/chan2"
st=$?
result "a second boot on the same --disk-dir sees the data" $st
[ $st = 0 ] || sed 's/^/#   /' "$work/chan2"

# --- 4: kernel problems -------------------------------------------------------
cat >"$work/hung.sh" <<'EOF'
#!/bin/bash
# A writer stuck in fsync on a suspended dm device for longer than the
# hung-task timeout (waiting on writeback: a plain D state; direct I/O
# would not do, blk_io_schedule wakes up to dodge the detector), then an
# oops.
echo 2 >/proc/sys/kernel/hung_task_timeout_secs
d=$(head -n 1 /ew/disks)
echo "0 $(/usr/sbin/blockdev --getsz "$d") linear $d 0" | dmsetup create hung
dmsetup suspend hung
dd if=/dev/zero of=/dev/mapper/hung bs=4096 count=1 conv=fsync &
sleep 8
dmsetup resume hung
wait
echo c >/proc/sysrq-trigger
sleep 30
EOF
run hung "${small[@]}" --timeout 300 -- "$work/hung.sh"
[ "$rc" = 125 ]
result "kernel problems fail the run (125)" $? hung
grep -q 'blocked for more than' "$work/hung.err"
result "vm-run names the hung task" $?
grep -qE 'Oops|Kernel panic' "$work/hung.err"
result "vm-run names the oops/panic" $?

# --- 5: timeout ---------------------------------------------------------------
# 15 s: whether the guest is still booting or already asleep, vm-run
# must kill it and say 124 (45 s only added 30 s of waiting).
printf '#!/bin/sh\nsleep 600\n' >"$work/sleep.sh"
run timeout "${small[@]}" --timeout 15 -- "$work/sleep.sh"
[ "$rc" = 124 ]
result "--timeout kills the guest (124)" $? timeout

echo "# host-harness: $fails failed"
[ "$fails" -eq 0 ]
