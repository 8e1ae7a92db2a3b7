#!/bin/bash
# ewctl calibrate against hddsim (issue 9 point 2): the calibration's
# error against the emulated disk's known rotation and phase, in
# fractions of a revolution.  Figures, not a test.  Run by
#   scripts/vm-run --disks 0 -- scripts/vm/bench-calibrate.sh [DISKS] [COUNT] [MIB]
# (needs tests/hddsim/hddsim.ko: make hddsim).  scripts/vm/bench-hddsim.sh
# has a copy of calibrate_member (a guest script cannot source another).
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

# calibrate_member NAME COUNT: prints "rot_true rot_est phase_err_rev
# rot_err_ppm in_window reads" for hddsim NAME (phase error wrapped into
# [-0.5, 0.5) of a revolution).
calibrate_member() {
	local name=$1 count=$2 tab rt pt js
	tab=$(dmsetup table "$name") || return 1
	rt=$(echo "$tab" | awk '{ for (i = 1; i < NF; i++) if ($i == "rotation_ns") print $(i + 1) }')
	pt=$(echo "$tab" | awk '{ for (i = 1; i < NF; i++) if ($i == "phase_ns") print $(i + 1) }')
	js=$(ewctl calibrate --json --count "$count" "/dev/mapper/$name") || return 1
	echo "$js" | jq -r --argjson rt "${rt:-5973121}" --argjson pt "$pt" '
		(.rotation_ns) as $r | ((.phase_ns - $pt) / $rt) as $d
		| ($d - ($d + 0.5 | floor)) as $e
		| "\($rt) \($r) \($e) \((($r - $rt) / $rt * 1e6)) \(.in_window) \(.reads)"'
}

disks=${1:-2} count=${2:-400} mib=${3:-1024}
modprobe dm-mod 2>/dev/null
modprobe brd rd_nr="$disks" rd_size=$((mib * 1024)) max_part=0 || exit 1
insmod /ew/modules/hddsim.ko || { echo "# no hddsim.ko (make hddsim)"; exit 1; }
for i in $(seq 0 $((disks - 1))); do
	dmsetup create "hdd$i" --table "0 $((mib * 2048)) hddsim /dev/ram$i 2 rotation_ns 5973121" || exit 1
done
echo "# calibrate: member rot_true rot_est phase_err_rev rot_err_ppm in_window reads"
for _ in 1 2; do
	for i in $(seq 0 $((disks - 1))); do
		l=$(calibrate_member "hdd$i" "$count") || { echo "# calibrate: hdd$i failed"; continue; }
		echo "CAL hdd$i $l"
		printf 'CAL hdd%s %s\n' "$i" "$l" >"${EW_CHANNEL:-/dev/null}"
	done
done
# --apply: hand hdd0's calibration to an eagerwrite array's member 0.
if [ "$disks" -ge 2 ] && dmsetup targets | grep -q '^eagerwrite '; then
	t=$(ewctl table --layout ddm --metadata "$EW_META" /dev/mapper/hdd0 /dev/mapper/hdd1) &&
		dmsetup create ewcal --table "$t" &&
		ewctl calibrate --count "$count" --apply ewcal 0 /dev/mapper/hdd0 &&
		echo "# calibrate: --apply ewcal 0: accepted" ||
		echo "# calibrate: --apply failed"
	dmsetup remove ewcal 2>/dev/null
fi
exit 0
