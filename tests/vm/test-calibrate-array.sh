#!/bin/bash
# vm-run: --disks 0 --mem 1024 --timeout 600 --icount
# vmtest: beside
#
# ewctl calibrate --array: every rotating member of a loaded array
# calibrated at once, each result applied to its member's model
# (Documentation/ewctl.rst, "calibrate").  Before it, an array created
# with dmsetup (or assembled at boot) predicted its members with the
# default model's phase: on real disks the angle of every eager write
# was a guess until someone ran ewctl calibrate --apply per member.
#
# Members: three hddsim disks (tests/hddsim, exact time) with phases
# 0.5, 0.65 and 0.8 of a turn (the default model says 0), member 1
# behind a dm-linear that can be made unreadable, member 2 on a loop
# device of 4 KiB logical sectors (a 4Kn disk: a 512-byte O_DIRECT read
# is refused there, so calibrate reads the 4 KiB block and takes its
# last sector's angle), and one brd disk (non-rotational: skipped).
# Checks:
#  - before: the predictor's error (status field 15) under a same-block
#    O_DSYNC load (ewprobe), far off;
#  - ewctl calibrate --array --json: exit 0, one result per rotating
#    member with its "member" index, the brd member named as skipped on
#    stderr, each phase within 1% of a turn of hddsim's (20% off exact
#    time); after it, the predictor's error under the same load at most
#    a quarter of before's and under 300 us, and the same-block rate up
#    (both SKIPped off exact time: the debug kernel's path is not the
#    module's);
#  - text output: three "member I: phase_ns" lines;
#  - refused: not an eagerwrite device, no such device (exit 1), --array
#    with --apply or with a device (exit 2);
#  - member 1 unreadable (dm-flakey under its linear): exit 1, member 1
#    named as not calibrated, members 0 and 2 calibrated all the same;
#  - --every 1 on the array created again with member 1 missing: a spare
#    replaces member 1 while it runs; the parent, reading the table each
#    second, names the spare and calibrates it (its phase within the same
#    bound), and members 0 and 2 run all their rounds.
# Prints "ok - NAME" / "not ok - NAME" and "# " notes.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"
# shellcheck source=tests/vm/hddsim-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/hddsim-lib.sh"

ROT=5973121		# hddsim's and the model's default period
MIB=64
DEV=ewca
A=/dev/mapper/$DEV
exact=0
hddsim_exact_time && exact=1
lim=0.2
[ "$exact" = 1 ] && lim=0.01

load_target || { notok "module loaded"; finish; }
ok "module loaded"
klog_mark
modprobe brd rd_nr=5 rd_size=$((MIB * 1024)) max_part=0 ||
	{ notok "brd loaded"; finish; }
if ! insmod /ew/modules/hddsim.ko; then
	notok "hddsim.ko loaded (make -C tests/hddsim)"
	finish
fi
# member 2's backing: 4 KiB logical sectors, which hddsim inherits
truncate -s ${MIB}M /tmp/ca-4kn.img
lo4k=$(/usr/sbin/losetup -f --show --sector-size 4096 /tmp/ca-4kn.img)
check "a loop device of 4 KiB logical sectors (${lo4k:-none})" \
	[ "$(blockdev --getss "${lo4k:-/dev/null}" 2>/dev/null)" = 4096 ]
PH=()
for i in 0 1 2; do
	PH[i]=$((ROT * (10 + 3 * i) / 20))	# 0.5, 0.65, 0.8 of a turn
	back=/dev/ram$i
	[ "$i" = 2 ] && back=$lo4k
	check "hddsim disk $i on $back, phase ${PH[i]} ns" dmsetup create "hdd$i" --table \
		"0 $((MIB * 2048)) hddsim $back 4 rotation_ns $ROT phase_ns ${PH[i]}"
done
check "hddsim disk 2 has 4 KiB logical sectors" \
	[ "$(blockdev --getss /dev/mapper/hdd2)" = 4096 ]
# what calibrate read before (one 512-byte O_DIRECT read) fails there
if dd if=/dev/mapper/hdd2 of=/dev/null bs=512 count=1 iflag=direct \
		status=none 2>/dev/null; then
	notok "a 512-byte O_DIRECT read of hddsim disk 2 is refused"
else
	ok "a 512-byte O_DIRECT read of hddsim disk 2 is refused"
fi
check "member 1 behind a dm-linear" dmsetup create ewcam1 --table \
	"0 $((MIB * 2048)) linear /dev/mapper/hdd1 0"
check "brd member is non-rotational" \
	[ "$(cat /sys/block/ram3/queue/rotational)" = 0 ]
table=$(ewctl table --layout ew --len 48M --metadata /dev/ram4 \
	/dev/mapper/hdd0 /dev/mapper/ewcam1 /dev/mapper/hdd2 /dev/ram3)
check "ewctl table" [ -n "$table" ]
check "create the array" dmsetup create $DEV --table "$table"
check "16 MiB written" \
	dd if=/dev/urandom of=$A bs=1M count=16 oflag=direct status=none

json_num() {	# json_num FILE KEY: the first number after "KEY":
	sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" "$1" | head -n 1
}
# measure NAME: the predictor's error (field 15) and ewprobe's rate over
# 3 s of same-block O_DSYNC writes, from reset counters
measure() {
	dmsetup message $DEV 0 reset_counters
	ewprobe rate --same-block --seconds 3 --method direct-fua --json \
		--force $A >"/tmp/ca-$1.json" 2>/tmp/ca.err ||
		note "ewprobe ($1): $(head -c 200 /tmp/ca.err)"
	eval "err_$1=\$(status_field $DEV 15)"
	eval "lead_$1=\$(status_field $DEV 36)"
	eval "rate_$1=\$(json_num /tmp/ca-$1.json ops_per_sec)"
}
measure before
# shellcheck disable=SC2154 # set by measure
note "before: predictor error $err_before ns, same-block $rate_before/s"

ewctl calibrate --array $DEV --json --count 200 >/tmp/ca.jsonl 2>/tmp/ca.err
rc=$?
check "calibrate --array: exit 0 (exit $rc)" [ $rc -eq 0 ]
note "stderr: $(tr '\n' ' ' </tmp/ca.err)"
check "one result per rotating member (3)" \
	[ "$(grep -c '"member":' /tmp/ca.jsonl)" = 3 ]
check "the brd member named as skipped" \
	grep -q "member 3 (/dev/ram3) is not rotational: skipped" /tmp/ca.err
for i in 0 1 2; do
	line=$(grep "\"member\":$i," /tmp/ca.jsonl)
	rev=$(printf '%s\n' "$line" | jq -r --argjson pt "${PH[i]}" --argjson rt $ROT '
		((.phase_ns - $pt) / $rt) as $d | $d - ($d + 0.5 | floor)' 2>/dev/null)
	note "member $i: $line; phase error ${rev:-?} of a turn"
	[ "$i" = 2 ] && check "member 2 read 4 KiB blocks" \
		[ "$(printf '%s\n' "$line" | jq -r .read_bytes)" = 4096 ]
	check "member $i: phase within $lim of a turn" \
		awk -v x="${rev:-x}" -v l="$lim" \
		'BEGIN { exit !(x ~ /^-?[0-9.e-]+$/ && x <= l && x >= -l) }'
done

measure after
# shellcheck disable=SC2154 # set by measure
note "after: predictor error $err_after ns, same-block $rate_after/s"
# shellcheck disable=SC2154 # set by measure
check "placement lead (field 36) within its cap, a quarter turn ($lead_before, then $lead_after ns)" \
	awk -v b="${lead_before:-x}" -v a="${lead_after:-x}" -v r=$ROT \
	'BEGIN { exit !(b ~ /^[0-9]+$/ && a ~ /^[0-9]+$/ && b <= r / 4 && a <= r / 4) }'
if [ "$exact" = 1 ]; then
	check "predictor error at most a quarter of before's ($err_after <= $err_before / 4)" \
		awk -v a="${err_after:-x}" -v b="${err_before:-x}" \
		'BEGIN { exit !(a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/ && a > 0 && a * 4 <= b) }'
	check "predictor error under 300 us ($err_after ns)" \
		[ "${err_after:-999999}" -lt 300000 ]
	check "same-block rate up ($rate_before -> $rate_after /s)" \
		awk -v b="${rate_before:-x}" -v a="${rate_after:-x}" \
		'BEGIN { exit !(b ~ /^[0-9.]+$/ && a ~ /^[0-9.]+$/ && a > b) }'
else
	echo "ok - the predictor after calibration # SKIP not exact time: the path is not the module's"
fi

ewctl calibrate --array $DEV --count 100 >/tmp/ca.txt 2>/tmp/ca.err
rc=$?
check "text: exit 0 (exit $rc)" [ $rc -eq 0 ]
check "text: a phase_ns line for each of members 0, 1, 2" \
	[ "$(grep -cE '^member [012]: phase_ns [0-9]+$' /tmp/ca.txt)" = 3 ]

refused() {	# refused RC WHAT ARGS...: ewctl calibrate ARGS exits RC
	local want=$1 what=$2 rc
	shift 2
	ewctl calibrate "$@" >/dev/null 2>/tmp/ca.err
	rc=$?
	check "refused: $what (exit $rc, want $want)" [ $rc -eq "$want" ]
	note "stderr: $(head -n 1 /tmp/ca.err)"
}
refused 1 "not an eagerwrite device" --array hdd0
refused 1 "no such device" --array ewca-none
refused 2 "--array with --apply" --array $DEV --apply $DEV 0
refused 2 "--array with a device" --array $DEV /dev/mapper/hdd0

# member 1 unreadable: its calibration fails, the others go on
# (dm-flakey always down: every read fails, and the device stays
# rotational; dm-error would be non-rotational, hence skipped)
modprobe dm-flakey 2>/dev/null
dmsetup suspend ewcam1 && dmsetup load ewcam1 --table \
	"0 $((MIB * 2048)) flakey /dev/mapper/hdd1 0 0 1" &&
	dmsetup resume ewcam1
ewctl calibrate --array $DEV --json --count 100 >/tmp/ca.jsonl 2>/tmp/ca.err
rc=$?
check "member 1 unreadable: exit 1 (exit $rc)" [ $rc -eq 1 ]
check "member 1 named as not calibrated" \
	grep -q "member 1 (.*) not calibrated" /tmp/ca.err
check "members 0 and 2 calibrated all the same" \
	[ "$(grep -cE '"member":[02],' /tmp/ca.jsonl)" = 2 ]
note "stderr: $(tr '\n' ' ' </tmp/ca.err)"
dmsetup suspend ewcam1 && dmsetup load ewcam1 --table \
	"0 $((MIB * 2048)) linear /dev/mapper/hdd1 0" && dmsetup resume ewcam1

# a running --every calibration follows a replacement: member 1 missing,
# then a spare (hddsim on ram2, 0.95 of a turn) takes its place
check "array removed" dmsetup remove $DEV
check "created again with member 1 missing" \
	dmsetup create $DEV --table "${table/\/dev\/mapper\/ewcam1 /- }"
PH3=$((ROT * 19 / 20))
check "a spare: hddsim on ram2, phase $PH3 ns" dmsetup create hdd3 --table \
	"0 $((MIB * 2048)) hddsim /dev/ram2 4 rotation_ns $ROT phase_ns $PH3"
ewctl calibrate --array $DEV --json --count 100 --every 1 --rounds 8 \
	>/tmp/cb.jsonl 2>/tmp/cb.err &
bg=$!
sleep 2
check "the spare replaces member 1 while it runs" sh -c \
	"dmsetup reload $DEV --table '${table/\/dev\/mapper\/ewcam1 /\/dev\/mapper\/hdd3 }' && dmsetup resume $DEV"
wait $bg
rc=$?
note "stderr: $(tr '\n' ' ' </tmp/cb.err)"
check "--every: exit 0 (exit $rc)" [ $rc -eq 0 ]
spare=/dev/dm-$(dmsetup info -c --noheadings -o minor hdd3 | tr -d ' ')
check "member 1 named as missing, then as $spare" sh -c \
	"grep -q 'member 1 is missing (-): skipped' /tmp/cb.err &&
	 grep -q 'member 1 is now $spare: calibrating it' /tmp/cb.err"
line=$(grep "\"device\":\"$spare\",\"member\":1," /tmp/cb.jsonl | tail -n 1)
rev=$(printf '%s\n' "$line" | jq -r --argjson pt "$PH3" --argjson rt $ROT '
	((.phase_ns - $pt) / $rt) as $d | $d - ($d + 0.5 | floor)' 2>/dev/null)
note "member 1 on the spare, last round: $line; phase error ${rev:-?} of a turn"
check "member 1 calibrated on the spare: $(grep -c "\"member\":1," /tmp/cb.jsonl) rounds, phase within $lim of a turn" \
	awk -v x="${rev:-x}" -v l="$lim" \
	'BEGIN { exit !(x ~ /^-?[0-9.e-]+$/ && x <= l && x >= -l) }'
check "members 0 and 2 ran all their rounds (9 lines each)" \
	[ "$(grep -c '"member":0,' /tmp/cb.jsonl) $(grep -c '"member":2,' /tmp/cb.jsonl)" = "9 9" ]

check "array removed" dmsetup remove $DEV
for d in ewcam1 hdd0 hdd1 hdd2 hdd3; do dmsetup remove $d; done
/usr/sbin/losetup -d "$lo4k"
check "no kernel warning" klog_clean
finish
