#!/bin/bash
# vm-run: --icount --disks 4 --disk-size 64M --meta-size 32M --timeout 900 --rotational 1
# vmtest: beside
#
# Demotion after an unclean stop is durable (issue 19, defects 2 and 3).
# For raid10 and ddm (four members, mirrors 2, sync 2), each member an
# ewfault device (tests/ewfault), the metadata on a dm-linear device:
#  - 16 MiB written and flushed, a checkpoint (the message), the array
#    suspended and resumed (clean, then "in use"), then a crash with
#    nothing left to replay: the metadata device turns into dm-error and
#    the array is removed (its clean shutdown fails);
#  - created again: "unclean shutdown, replayed 0", and every written
#    block demoted to one replica (demoted > 0): raid10 because a home
#    may hold an interrupted write, ddm because a home copy or a home
#    discard may have run before its record was durable (ddm was not
#    demoted at all);
#  - that table is loaded but never resumed, so no resync copy can run,
#    and the device removed: the metadata (ewctl dump) must hold the
#    demotion, stale replicas > 0 (the load's checkpoint used to write
#    only the clean flag when nothing was replayed, so the divergent
#    replicas were both current again);
#  - created again: clean, the data reads back.
# Prints "ok - NAME" / "not ok - NAME".
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

load_target || { notok "module loaded"; finish; }
load_ewfault || { notok "ewfault loaded"; finish; }
ok "modules loaded"
MSZ=$(blockdev --getsz "$EW_META")
DEV=ewcd
A=/dev/mapper/$DEV
M=/dev/mapper/ewcdmeta

meta_as() {	# meta_as linear|error
	local t="0 $MSZ error"
	[ "$1" = linear ] && t="0 $MSZ linear $EW_META 0"
	if dmsetup info ewcdmeta >/dev/null 2>&1; then
		dmsetup reload ewcdmeta --table "$t" && dmsetup resume ewcdmeta
	else
		dmsetup create ewcdmeta --table "$t"
	fi
}
fresh() { ewfault_members ewcdm 4 && meta_as linear; }

for layout in raid10 ddm; do
	t=$layout
	fresh || { notok "$t: members"; continue; }
	table=$(ewctl table --layout $layout --sync 2 --len 24M --metadata $M \
		/dev/mapper/ewcdm0 /dev/mapper/ewcdm1 /dev/mapper/ewcdm2 /dev/mapper/ewcdm3)
	check "$t: create" dmsetup create $DEV --table "$table"
	[ -b $A ] || continue
	check "$t: 16 MiB written and flushed" \
		dd if=/dev/urandom of=$A bs=1M count=16 oflag=direct conv=fsync status=none
	sum=$(dd if=$A bs=1M count=16 iflag=direct status=none | sha256sum)
	check "$t: checkpoint, suspend, resume" \
		eval 'dmsetup message $DEV 0 checkpoint && dmsetup suspend $DEV && dmsetup resume $DEV'
	# the crash: nothing reaches the metadata any more, then the stop
	meta_as error
	dmsetup remove $DEV 2>/dev/null
	check "$t: array gone" eval '! dmsetup info $DEV >/dev/null 2>&1'
	meta_as linear
	check "$t: metadata says unclean" \
		[ "$(ewctl dump --json $M | jq -r .clean)" = false ]

	klog_mark
	check "$t: loaded after the crash, not resumed" \
		eval 'dmsetup create $DEV --notable && dmsetup load $DEV --table "$table"'
	line=$(klog_since | grep -a 'unclean shutdown, replayed' | tail -n 1)
	note "$t: ${line#*eagerwrite: }"
	n=$(printf '%s\n' "$line" | sed -n 's/.*demoted \([0-9]*\).*/\1/p')
	check "$t: nothing replayed" eval 'printf "%s" "$line" | grep -q "replayed 0 journal blocks"'
	check "$t: written blocks demoted (${n:-none})" [ "${n:-0}" -gt 0 ]
	check "$t: removed before any resync" dmsetup remove $DEV
	dump=$(ewctl dump --json $M)
	stale=$(printf '%s' "$dump" | jq -r .stale_replicas)
	check "$t: metadata clean" [ "$(printf '%s' "$dump" | jq -r .clean)" = true ]
	check "$t: the demotion is in the metadata (stale replicas: $stale)" [ "${stale:-0}" -gt 0 ]

	klog_mark
	check "$t: created again" dmsetup create $DEV --table "$table"
	check "$t: clean shutdown" klog_has "clean shutdown, replayed"
	check "$t: data reads back" [ "$(dd if=$A bs=1M count=16 iflag=direct status=none | sha256sum)" = "$sum" ]
	check "$t: kernel log clean" klog_clean
	dmsetup remove $DEV
done
for i in 0 1 2 3; do dmsetup remove "ewcdm$i" 2>/dev/null; done
dmsetup remove ewcdmeta 2>/dev/null
finish
