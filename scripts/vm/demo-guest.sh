#!/bin/bash
# The guest half of scripts/demo (run by scripts/vm-run, 36 members): on
# the same members, one after another, a 2x9x2 EW-Array, a RAID-10 and a
# DDM; on each: mkfs.ext4, mount, the TPC-C-like fio job (tests/fio/tpcc.fio)
# on a file, fsck.  Prints for the host, one line per layout:
#   DEMO-RESULT <name> <read iops> <read mean us> <read p99 us>
#               <write iops> <write mean us> <write p99 us>
#   DEMO-STATUS <name> <dmsetup status line>
# and progress lines starting with "demo:".
# Usage: demo-guest.sh RUNTIME READ_IOPS WRITE_IOPS SIZE
set -u
runtime=$1 read_iops=$2 write_iops=$3 size=$4

fail() { echo "demo: FAILED in the guest: $*"; exit 1; }

case ${EW_MODULE:-absent} in
loaded) ;;
absent) fail "dm-eagerwrite.ko is not built, so there is no eagerwrite target" ;;
*) fail "dm-eagerwrite.ko did not load (see the insmod error above)" ;;
esac
dmsetup targets | grep -q '^eagerwrite ' || fail "the eagerwrite target is not registered"
command -v ewctl >/dev/null || fail "ewctl is not built (make userspace)"
[ "$EW_NR_DISKS" -eq 36 ] || fail "the demo wants 36 members, got $EW_NR_DISKS"

# name, then ewctl options.  The 2x9x2 EW-Array is as long as one member
# (36 disks = Dd 2 x Ds 9 x Dm 2): each member's region is then 1/9 of it,
# the paper's short seeks.  At the full capacity Ds would be 1.
member=$(/usr/sbin/blockdev --getsize64 "${EW_DISKS%% *}") ||
	fail "cannot read the members' size"
layouts=(
	"ew-2x9x2 --layout ew --mirrors 2 --dilution 2 --sync 1 --len $member"
	"raid10 --layout raid10 --mirrors 2"
	"ddm --layout ddm --mirrors 2 --dilution 2"
)
mkdir -p /mnt/demo
# shellcheck disable=SC2086 # EW_DISKS is a list
for l in "${layouts[@]}"; do
	set -- $l
	name=$1
	shift
	dev=/dev/mapper/demo-$name
	# A fresh array each time: nothing of the previous layout on the
	# metadata device.
	/usr/sbin/blkdiscard "$EW_META" 2>/dev/null
	dd if=/dev/zero of="$EW_META" bs=1M count=4 oflag=direct status=none ||
		fail "cannot clear the metadata device"
	table=$(ewctl table "$@" --metadata "$EW_META" $EW_DISKS) ||
		fail "ewctl table $* refused"
	echo "demo: $name: $(echo "$table" | awk '{ k = $5; s = $1
		for (i = 2; i <= 5 + k; i++) s = s " " $i
		m = 6 + k; print s, $m, $(m + 1), $(m + 2), "...", $(NF - 1), $NF }')"
	dmsetup create "demo-$name" --table "$table" || fail "dmsetup create demo-$name"
	echo "demo: $name: $(($(/usr/sbin/blockdev --getsize64 "$dev") >> 20)) MiB; mkfs.ext4, mount"
	mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$dev" ||
		fail "mkfs.ext4 on $name"
	mount -o noatime "$dev" /mnt/demo || fail "mount $name"
	echo "demo: $name: fio tpcc.fio, ${runtime}s at $read_iops reads/s + $write_iops writes/s (Poisson), on a $size file"
	dmsetup message "demo-$name" 0 reset_counters 2>/dev/null
	# The same seed for every layout: the same offered load.
	if ! DEV=/mnt/demo/tpcc SIZE=$size RUNTIME=$runtime READ_IOPS=$read_iops \
			WRITE_IOPS=$write_iops SEED=1 fio --eta=never --output-format=json \
			--output=/tmp/$name.json "$EW_FIO/tpcc.fio"; then
		cat /tmp/$name.json
		fail "fio on $name"
	fi
	echo "DEMO-RESULT $name $(jq -r '.jobs[0] |
		[.read.iops, .read.clat_ns.mean / 1000, .read.clat_ns.percentile["99.000000"] / 1000,
		 .write.iops, .write.clat_ns.mean / 1000, .write.clat_ns.percentile["99.000000"] / 1000]
		| map(. * 10 | floor / 10) | join(" ")' /tmp/$name.json)"
	echo "DEMO-STATUS $name $(dmsetup status "demo-$name")"
	umount /mnt/demo || fail "umount $name"
	e2fsck -fn "$dev" >/tmp/fsck.out 2>&1 || { cat /tmp/fsck.out; fail "e2fsck on $name is not clean"; }
	dmsetup remove "demo-$name" || fail "dmsetup remove demo-$name"
	echo "demo: $name: done, fsck clean"
done
echo "demo: guest done"
