#!/bin/bash
# vm-run: --icount --disks 9 --disk-size 64M --meta-size 16M --timeout 600
# vmtest: beside
#
# The volume in a storage stack (issue 17, items 7 and 8), the recipes of
# Documentation/eagerwrite.rst "Examples" one to one:
#  1. LVM on the array: a volume group on /dev/mapper/NAME (4 KiB logical
#     blocks), a logical volume with ext4, data across a remount, fsck;
#  2. the array on LVM: members and metadata device are logical volumes;
#     fio verify;
#  3. NVMe over Fabrics: the array exported by the kernel's nvmet over
#     TCP on the guest's loopback (Debian's kernel has no nvme-loop; the
#     debug kernel has, and uses it: its nvmet-tcp teardown trips a
#     lockdep report of upstream's own, nvme-cli issue 3113, which would
#     also turn lockdep off for the rest of the boot), connected with
#     nvme-cli: 4 KiB blocks and a volatile write cache
#     seen by the client, ext4 and fio verify on the fabric device, a
#     client fsync reaches the array as a flush.
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
A=("${D[0]}" "${D[1]}" "${D[2]}" "${D[3]}")
wipe_array "$M" "${A[@]}"
klog_mark

# No udev in the guest: LVM scans /dev itself and makes its own nodes.
LVMCONF='devices { obtain_device_list_from_udev = 0 use_devicesfile = 0 }
activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
global { event_activation = 0 }'
lvm_() { lvm "$@" --config "$LVMCONF" >/tmp/lvm.out 2>&1 || { sed 's/^/#   /' /tmp/lvm.out | tail -n 5; return 1; }; }
sum_of() { sha256sum <"$1" | cut -d' ' -f1; }

# --- 1. a volume group on the array ------------------------------------------
dmsetup create ewa --table "$(ewctl table --layout ew --sync 2 --metadata "$M" "${A[@]}")" ||
	{ notok "create the array"; finish; }
check "lvm on the array: the array has 4 KiB logical blocks" \
	[ "$(blockdev --getss /dev/mapper/ewa)" = 4096 ]
check "lvm on the array: pvcreate, vgcreate" \
	eval 'lvm_ pvcreate -y /dev/mapper/ewa && lvm_ vgcreate ewvg /dev/mapper/ewa'
check "lvm on the array: lvcreate 32M" lvm_ lvcreate -y -n lv0 -L 32M ewvg
LV=/dev/mapper/ewvg-lv0
head -c 8388608 /dev/urandom >/tmp/f8m
fs_lv() {
	mkfs.ext4 -q "$LV" && mkdir -p /mnt/lv && mount "$LV" /mnt/lv &&
		cp /tmp/f8m /mnt/lv/f && umount /mnt/lv && mount "$LV" /mnt/lv &&
		[ "$(sum_of /mnt/lv/f)" = "$(sum_of /tmp/f8m)" ] && umount /mnt/lv &&
		e2fsck -fn "$LV" >/dev/null 2>&1
}
check "lvm on the array: ext4 on the LV, data across a remount, fsck clean" fs_lv
check "lvm on the array: deactivate, remove the VG, remove the array" \
	eval 'lvm_ vgchange -an ewvg && lvm_ vgremove -y ewvg && lvm_ pvremove -y /dev/mapper/ewa && dmsetup remove ewa'

# --- 2. the array on logical volumes ----------------------------------------------
P=("${D[4]}" "${D[5]}" "${D[6]}" "${D[7]}" "${D[8]}")
lv_members() {
	local i
	lvm_ pvcreate -y "${P[@]}" && lvm_ vgcreate membervg "${P[@]}" || return 1
	for i in 0 1 2 3; do
		lvm_ lvcreate -y -n m$i -L 48M membervg "${P[$i]}" || return 1
	done
	lvm_ lvcreate -y -n meta -L 8M membervg "${P[4]}"
}
check "array on lvm: five PVs, four member LVs and a metadata LV" lv_members
L=(/dev/mapper/membervg-m0 /dev/mapper/membervg-m1 /dev/mapper/membervg-m2 /dev/mapper/membervg-m3)
check "array on lvm: create an EW-Array over the LVs" \
	eval 'dmsetup create ewl --table "$(ewctl table --layout ew --sync 2 --metadata /dev/mapper/membervg-meta "${L[@]}")"'
check "array on lvm: fio verify" fio_verify ewl randwrite 16M
check "array on lvm: remove, deactivate the VG" \
	eval 'dmsetup remove ewl && lvm_ vgchange -an membervg'

# --- 3. NVMe over Fabrics (TCP on the loopback, or nvme-loop) ---------------------
wipe_array "$M" "${A[@]}"
dmsetup create ewa --table "$(ewctl table --layout ew --sync 2 --metadata "$M" "${A[@]}")" ||
	{ notok "create the array again"; finish; }
NQN=nqn.2026-12.org.example:eagerwrite
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-000000000001
CFS=/sys/kernel/config/nvmet
# nvme-loop where the kernel has it (the debug kernel), TCP otherwise
TR=tcp
modprobe nvmet 2>/dev/null && modprobe nvme-loop 2>/dev/null && TR=loop
note "nvmet transport: $TR"
export_nvmet() {
	modprobe nvmet || return 1
	if [ "$TR" = tcp ]; then
		modprobe nvmet-tcp && modprobe nvme-tcp || return 1
	fi
	# configfs is a module in Debian's kernel: /init's mount at boot
	# came before nvmet loaded it.
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config || return 1
	ip link set lo up || return 1
	mkdir "$CFS/subsystems/$NQN" && echo 1 >"$CFS/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$CFS/subsystems/$NQN/namespaces/1" &&
		printf '%s' /dev/mapper/ewa >"$CFS/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$CFS/subsystems/$NQN/namespaces/1/enable" &&
		mkdir "$CFS/ports/1" || return 1
	if [ "$TR" = tcp ]; then
		echo ipv4 >"$CFS/ports/1/addr_adrfam" &&
			echo tcp >"$CFS/ports/1/addr_trtype" &&
			echo 127.0.0.1 >"$CFS/ports/1/addr_traddr" &&
			echo 4420 >"$CFS/ports/1/addr_trsvcid" || return 1
	else
		echo loop >"$CFS/ports/1/addr_trtype" || return 1
	fi
	ln -s "$CFS/subsystems/$NQN" "$CFS/ports/1/subsystems/$NQN"
}
check "nvmet: export /dev/mapper/ewa over $TR" export_nvmet
connect() {
	local i
	if [ "$TR" = tcp ]; then
		nvme connect -t tcp -a 127.0.0.1 -s 4420 -n "$NQN" --hostnqn="$HOSTNQN"
	else
		nvme connect -t loop -n "$NQN" --hostnqn="$HOSTNQN"
	fi >/tmp/nvme.out 2>&1 || { sed 's/^/#   /' /tmp/nvme.out; return 1; }
	for i in $(seq 50); do
		# nvme0n1, not the multipath member path nvme0c0n1 (hidden)
		NS=$(ls -d /sys/block/nvme*n1 2>/dev/null | grep -v 'c[0-9]*n1$' | head -n 1)
		[ -n "$NS" ] && [ -b "/dev/${NS##*/}" ] && break
		sleep 0.2
	done
	NS=/dev/${NS##*/}
	[ -b "$NS" ]
}
NS=""
check "nvme connect: a namespace block device appears" connect
note "fabric device: $NS"
check "fabric device: 4 KiB logical blocks, as the array" \
	[ "$(blockdev --getss "$NS")" = 4096 ]
check "fabric device: the client sees a volatile write cache (flush/FUA pass)" \
	[ "$(cat "/sys/block/${NS##*/}/queue/write_cache")" = "write back" ]
check "fabric device: same size as the array" \
	[ "$(blockdev --getsize64 "$NS")" = "$(blockdev --getsize64 /dev/mapper/ewa)" ]
check "fabric device: fio verify" fio_verify "../${NS#/dev/}" randwrite 16M
flushes0=$(status_field ewa 14)
fsync_nvme() {
	dd if=/tmp/f8m of="$NS" bs=4096 count=16 seek=8192 conv=fsync status=none
}
check "fabric device: a client fsync arrives as a flush of the array" \
	eval 'fsync_nvme && [ "$(status_field ewa 14)" -gt "$flushes0" ]'
check "fabric device: the array holds what the client wrote" \
	eval '[ "$(dd if=/dev/mapper/ewa bs=4096 skip=8192 count=16 iflag=direct status=none | sha256sum)" = "$(head -c 65536 /tmp/f8m | sha256sum)" ]'
LV=$NS
check "fabric device: ext4, data across a remount, fsck clean" fs_lv
teardown_nvmet() {
	nvme disconnect -n "$NQN" >/dev/null 2>&1 &&
		rm "$CFS/ports/1/subsystems/$NQN" && rmdir "$CFS/ports/1" &&
		echo 0 >"$CFS/subsystems/$NQN/namespaces/1/enable" &&
		rmdir "$CFS/subsystems/$NQN/namespaces/1" && rmdir "$CFS/subsystems/$NQN"
}
check "nvme disconnect, unexport, remove the array" \
	eval 'teardown_nvmet && dmsetup remove ewa'
check "kernel log clean" klog_clean
finish
