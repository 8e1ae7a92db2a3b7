#!/bin/bash
# vm-run: --disks 4 --disk-size 320M --meta-size 64M --mem 1024 --timeout 1500
#
# Recovery time against the journal's length (issue 5), in a guest:
# scripts/vm-run --disks 4 --disk-size 320M --meta-size 64M --mem 1024
# --timeout 1500 -- tests/vm/bench-recovery.sh [LAYOUT...].  Not a test
# (no test- prefix: vmtest does not run it); it prints figures.
#
# For each layout (default: ew raid10) and each amount written (4, 16,
# 64 MiB): a fresh array (2 mirrors, sync 1) on the four members, its
# metadata device behind dm-linear; fio writes that many MiB of random
# 4 KiB blocks with an fsync every 256; then the metadata device becomes
# dm-error, so that the array stops without a checkpoint (the
# suspend's checkpoint fails: an unclean shutdown); the metadata device
# comes back and the same table is loaded: the constructor's own line
# ("replayed N journal blocks (R records), demoted D, T ms") is the
# figure.  ewctl check must find the recovered metadata consistent.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

[ $# -gt 0 ] || set -- ew raid10
load_target || { notok "eagerwrite target loaded"; finish; }
# shellcheck disable=SC2206
D=($EW_DISKS)
META=$EW_META
MS=$(blockdev --getsz "$META")

for layout in "$@"; do
	for mib in 4 16 64; do
		for d in "${D[@]:0:4}"; do blkdiscard "$d" 2>/dev/null; done
		wipe_array "$META" "${D[@]:0:4}" || { notok "$layout $mib MiB: wipe"; continue; }
		dmsetup create recm --table "0 $MS linear $META 0" || { notok "recm"; continue; }
		table=$(ewctl table --layout "$layout" --sync 1 --metadata /dev/mapper/recm "${D[@]:0:4}") ||
			{ notok "$layout: ewctl table"; dmsetup remove recm; continue; }
		if ! echo "$table" | dmsetup create rec; then
			notok "$layout $mib MiB: create"
			dmsetup remove recm
			continue
		fi
		fio --name=fill --filename=/dev/mapper/rec --rw=randwrite --bs=4k \
			--size="${mib}M" --direct=1 --ioengine=psync --fsync=256 \
			--randrepeat=0 --output=/tmp/rec-fio.txt >/dev/null 2>&1 ||
			notok "$layout $mib MiB: fio"
		# the metadata disappears: no checkpoint at the removal
		dmsetup suspend recm && dmsetup load recm --table "0 $MS error" &&
			dmsetup resume recm
		dmsetup remove rec 2>/dev/null || dmsetup remove --force rec
		dmsetup suspend recm && dmsetup load recm --table "0 $MS linear $META 0" &&
			dmsetup resume recm
		klog_mark
		if echo "$table" | dmsetup create rec; then
			line=$(klog_since | grep -o 'eagerwrite: .*replayed.*ms$' | tail -1)
			if [ -n "$line" ]; then
				ok "$layout $mib MiB: reassembled"
				echo "# recovery layout=$layout written=${mib}MiB $line"
			else
				notok "$layout $mib MiB: no recovery line in the kernel log"
			fi
			dmsetup remove rec
			if ewctl check /dev/mapper/recm "${D[@]:0:4}" >/tmp/rec-check.txt 2>&1; then
				ok "$layout $mib MiB: ewctl check consistent"
			else
				notok "$layout $mib MiB: ewctl check: $(head -3 /tmp/rec-check.txt)"
			fi
		else
			notok "$layout $mib MiB: reassembly refused"
			dmesg | tail -5
		fi
		dmsetup remove recm
	done
done
klog_mark_all
if klog_clean; then ok "kernel log free of WARNING/BUG/Oops"; else notok "kernel log"; fi
finish
