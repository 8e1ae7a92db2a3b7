#!/bin/bash
# vm-run: --icount --disks 36 --disk-size 64M --meta-size 64M --timeout 600
# vmtest: beside
#
# Bad table lines (issue 3, issue 4 point 2): each is refused by
# "dmsetup create", its ti->error appears in the kernel log as
# "device-mapper: table: 253:N: eagerwrite: <message>"
# (Documentation/table-errors.rst), and nothing is left behind: no device,
# and the module's use count is back to zero at the end.  Then a good line
# still loads.  Prints "ok - NAME" / "not ok - NAME".
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
ALL="${#D[@]} ${D[*]}"
read -r _ LEN _ <<<"$(ewctl table --layout ew --metadata "$M" "${D[@]}")"
note "ew capacity: $LEN sectors"
FIRST4="4 ${D[0]} ${D[1]} ${D[2]} ${D[3]}"
nbad=0

bad() {	# bad MESSAGE TABLE-WORDS-AFTER-eagerwrite [LEN]
	local msg=$1 words=$2 len=${3:-$LEN}
	klog_mark
	nbad=$((nbad + 1))
	if dmsetup create ewbad --table "0 $len eagerwrite $words" 2>/dev/null; then
		notok "refused: $msg"
		note "accepted: $words"
		dmsetup remove ewbad
		return
	fi
	if ! klog_has "eagerwrite: $msg"; then
		notok "refused: $msg"
		note "line: $words"
		klog_since | grep eagerwrite | sed 's/^/#   /'
		return
	fi
	if dmsetup info ewbad >/dev/null 2>&1; then
		notok "refused: $msg (device left behind)"
		dmsetup remove ewbad
		return
	fi
	ok "refused: $msg"
}

bad "Missing layout" ""
bad "Unknown layout" "raid5 0 $M $ALL"
bad "Missing number of layout arguments" "ew"
bad "Invalid number of layout arguments" "ew x $M $ALL"
bad "Odd number of layout arguments" "ew 3 mirrors 2 sync $M $ALL"
bad "Not enough layout arguments" "ew 4 mirrors 2"
bad "Unknown key" "ew 2 stripes 2 $M $ALL"
bad "Key dilution not allowed for layout raid10" "raid10 2 dilution 2 $M $ALL"
bad "Duplicate key sync" "ew 4 sync 1 sync 2 $M $ALL"
bad "Duplicate key mirrors" "ew 4 mirrors 2 mirrors 2 $M $ALL"
bad "Invalid mirrors value" "ew 2 mirrors two $M $ALL"
bad "mirrors out of range (2 to 8)" "raid10 2 mirrors 9 $M $ALL"
bad "mirrors must be 2 for layout ddm" "ddm 2 mirrors 3 $M $ALL"
bad "Invalid dilution value" "ew 2 dilution 1.333 $M $ALL"
bad "dilution out of range (1 to 100)" "ew 2 dilution 0.9 $M $ALL"
bad "Invalid sync value (1 or 2)" "ew 2 sync 3 $M $ALL"
bad "Invalid chunk_sectors value" "ew 2 chunk_sectors 0x80 $M $ALL"
bad "chunk_sectors must be a power of two" "ew 2 chunk_sectors 96 $M $ALL"
bad "chunk_sectors smaller than a block" "ew 2 chunk_sectors 4 $M $ALL"
bad "Invalid block_size value" "ew 2 block_size 4k $M $ALL"
bad "block_size must be a power of two from 4096 to 65536" "ew 2 block_size 6144 $M $ALL"
bad "delay_queue out of range (1 to 10000000)" "ew 2 delay_queue 0 $M $ALL"
bad "Missing metadata device" "ew 0"
bad "Missing number of data devices" "ew 0 $M"
bad "Invalid number of data devices" "ew 0 $M x"
bad "Wrong number of data devices (2 to 64)" "ew 0 $M 1 ${D[0]}"
bad "Wrong number of data devices (2 to 64)" "ew 0 $M 65 $(seq -s ' ' -f '/dev/x%g' 1 65)"
bad "Not enough data devices" "ew 0 $M 36 ${D[*]:1}"
bad "Odd number of data devices for layout ddm" "ddm 0 $M 5 ${D[*]:0:5}"
bad "Number of data devices not divisible by mirrors" "ew 0 $M 9 ${D[*]:0:9}"
bad "Duplicate data device" "ew 0 $M 4 ${D[0]} ${D[1]} ${D[2]} ${D[0]}"
bad "Every replica of some blocks is on a missing data device" "ew 0 $M 4 - ${D[1]} - ${D[3]}"
bad "Metadata device is also a data device" "ew 0 ${D[0]} $FIRST4"
bad "Invalid number of feature arguments" "ew 0 $M $ALL x"
bad "Not enough feature arguments" "ew 0 $M $ALL 2 foo"
bad "Unknown feature" "ew 0 $M $ALL 1 foo"
bad "Too many arguments" "ew 0 $M $ALL 0 extra"
# dm itself refuses a zero length before the constructor runs
klog_mark
if ! dmsetup create ewbad --table "0 0 eagerwrite ew 0 $M $ALL 0" 2>/dev/null &&
	klog_has "zero-length target"; then
	ok "refused: zero length (by dm)"
else
	notok "refused: zero length (by dm)"
	dmsetup remove ewbad 2>/dev/null
fi
bad "Length not a multiple of block_size" "ew 0 $M $ALL 0" $((LEN - 1))
bad "Length exceeds the array's capacity" "ew 0 $M $ALL 0" $((LEN + 8))
bad "Cannot open a data device" "ew 0 $M 4 ${D[0]} ${D[1]} ${D[2]} /dev/nonexistent"
bad "Cannot open the metadata device" "ew 0 /dev/nonexistent $FIRST4"
# the same disk under two names: its path and its major:minor
mm=$(stat -L -c '%t:%T' "${D[3]}")
mm=$((16#${mm%%:*})):$((16#${mm##*:}))
bad "Duplicate data device" "ew 0 $M 4 ${D[0]} ${D[1]} ${D[3]} $mm"
bad "Metadata device is also a data device" "ew 0 $M 4 ${D[0]} ${D[1]} ${D[2]} $(
	mm=$(stat -L -c '%t:%T' "$M"); echo $((16#${mm%%:*})):$((16#${mm##*:})))"
bad "Data devices too small for the layout" "ew 2 chunk_sectors 2097152 $M $FIRST4" 8
bad "delay_queue smaller than the replicas of one write" "ddm 4 sync 1 delay_queue 1 $M $FIRST4" 8
# 1 MiB of the last member as metadata: below the documented minimum
if dmsetup create ewsmall --table "0 2048 linear ${D[35]} 0"; then
	bad "Metadata device too small" "raid10 0 /dev/mapper/ewsmall $FIRST4" 8
	dmsetup remove ewsmall
else
	notok "dm-linear for a small metadata device"
fi
# A live array owns its metadata device: another geometry is refused.
t=$(ewctl table --layout ew --metadata "$M" "${D[@]}")
if dmsetup create ewgood --table "$t"; then
	ok "a good line loads"
	bad "Metadata device in use by an array with another table" \
		"raid10 0 $M $FIRST4" 8
	check "remove" dmsetup remove ewgood
else
	notok "a good line loads"
fi
# the metadata now belongs to that array: forget it for the next line
check "wipe the array" wipe_array
# The default is sync 2, and TABLE names it; sync 1 must be asked for
# and the kernel log says once per load what it risks.
sync1_warnings() {
	# the device is named major:minor there, as in the target's other lines
	klog_since |
		grep -cE 'eagerwrite: [0-9]+:[0-9]+: sync 1: .*one durable copy'
}
klog_mark
if dmsetup create ewsync --table "0 $LEN eagerwrite ew 0 $M $ALL 0"; then
	t=$(dmsetup table ewsync)
	case $t in
	*" eagerwrite ew 2 sync 2 "*" 36 "*) ok "default: sync 2, printed in the table" ;;
	*) notok "default: sync 2, printed in the table"; note "$t" ;;
	esac
	check "default: table round trip" table_round_trip ewsync
	w=$(sync1_warnings)
	[ "$w" -eq 0 ] && ok "default: no sync 1 warning" ||
		{ notok "default: no sync 1 warning"; note "$w warnings"; }
	check "default: remove" dmsetup remove ewsync
	check "default: wipe the array" wipe_array
else
	notok "default: create"
fi
klog_mark
if dmsetup create ewsync --table "0 $LEN eagerwrite ew 2 sync 1 $M $ALL 0"; then
	t=$(dmsetup table ewsync)
	case $t in
	*" eagerwrite ew 2 sync 1 "*" 36 "*) ok "sync 1: printed back" ;;
	*) notok "sync 1: printed back"; note "$t" ;;
	esac
	w=$(sync1_warnings)
	[ "$w" -eq 1 ] && ok "sync 1: one warning for the load" ||
		{ notok "sync 1: one warning for the load"; note "$w warnings"; }
	check "sync 1: reload" table_round_trip ewsync
	w=$(sync1_warnings)
	[ "$w" -eq 2 ] && ok "sync 1: one more warning for the reload" ||
		{ notok "sync 1: one more warning for the reload"; note "$w warnings"; }
	check "sync 1: remove" dmsetup remove ewsync
	check "sync 1: wipe the array" wipe_array
else
	notok "sync 1: create"
fi
# Every key given: printed back in canonical order, and reloads exactly.
keys="mirrors 2 dilution 1.5 sync 2 chunk_sectors 256 block_size 4096 delay_queue 5000"
if dmsetup create ewkeys --table "0 $((LEN / 2 / 8 * 8)) eagerwrite ew 12 $keys $M $ALL 0"; then
	ok "all keys: create"
	t=$(dmsetup table ewkeys)
	case $t in
	*" eagerwrite ew 12 $keys "*" 36 "*" 0") ok "all keys: printed back" ;;
	*) notok "all keys: printed back"; note "$t" ;;
	esac
	check "all keys: table round trip" table_round_trip ewkeys
	check "all keys: remove" dmsetup remove ewkeys
else
	notok "all keys: create"
fi
note "$nbad bad lines tried"
check "nothing left behind" test -z "$(dmsetup ls 2>/dev/null | grep -v 'No devices')"
check "module unused" sh -c "[ \"\$(awk '\$1 == \"dm_eagerwrite\" { print \$3 }' /proc/modules)\" = 0 ]"
check "kernel log clean" klog_clean
finish
