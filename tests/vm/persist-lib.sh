# shellcheck shell=bash
# Helpers of the persistence and power-cut tests (issues 5 and 8), sourced,
# not run: in the guest by tests/vm/test-persist.sh,
# tests/vm/host-persist-reboot.sh, tests/vm/ewprobe-powercut.sh and the
# host-*-powercut/host-crash-rebuild tests' guest halves; on the host by
# those tests' two-boot loops (pl_boot_cut, pl_boot_verify at the end).
#
# A "config" names what a test puts on a group of devices:
#   LAYOUT:SYNC  an eagerwrite array (raid10, ddm or ew; sync 1 or 2;
#                2 mirrors, the other keys left to the target's defaults)
#   linear       dm-linear over the first member: the harness's own
#                control, a volume that certainly persists
#   raw          the first member itself, no device-mapper at all
# A group is a metadata device and its members, so that several arrays
# can live side by side in one guest and be reassembled in the next boot.

export DM_DISABLE_UDEV=1

# pl_table CONFIG META MEMBER...: the table line (nothing for raw);
# CONFIG LAYOUT:SYNC, or LAYOUT:SYNC+m with the metadata on the members
# (META unused)
pl_table() {
	local cfg=$1 meta=$2 sync
	shift 2
	sync=${cfg##*:}
	[ "${sync%+m}" != "$sync" ] && sync=${sync%+m} meta=-
	case $cfg in
	raw) return 0 ;;
	linear) echo "0 $(blockdev --getsz "$1") linear $1 0" ;;
	*:*) ewctl table --layout "${cfg%%:*}" --sync "$sync" \
		--metadata "$meta" "$@" ;;
	*) echo "persist-lib: unknown config $cfg" >&2; return 2 ;;
	esac
}

# pl_fresh META MEMBER...: make used devices look new, so that the next
# create formats a new array instead of reassembling the old one (the
# target formats a metadata device whose first 4 KiB are zeros; the
# superblock has two slots, hence 8 KiB; each member's label is in its
# first 4 KiB; with the metadata on the members, the superblock slots of
# a copy are 1 MiB in).  Data blocks are left: a new array never reads
# them.
pl_fresh() {
	local d
	dd if=/dev/zero of="$1" bs=4096 count=2 oflag=direct conv=notrunc status=none || return 1
	shift
	for d in "$@"; do
		dd if=/dev/zero of="$d" bs=4096 count=1 oflag=direct conv=notrunc status=none || return 1
		dd if=/dev/zero of="$d" bs=4096 seek=256 count=2 oflag=direct conv=notrunc status=none || return 1
	done
}

# pl_assemble NAME CONFIG META MEMBER...: create (or reassemble: the same
# table on the same devices) and print the volume's path.
pl_assemble() {
	local name=$1 cfg=$2 table
	shift 2
	if [ "$cfg" = raw ]; then
		echo "$2"
		return 0
	fi
	table=$(pl_table "$cfg" "$@") || return 1
	echo "$table" | dmsetup create "$name" >&2 || { echo "# table: $table" >&2; return 1; }
	[ -b "/dev/mapper/$name" ] || dmsetup mknodes "$name" >&2
	echo "/dev/mapper/$name"
}

# pl_remove NAME CONFIG: remove the table (nothing for raw)
pl_remove() {
	[ "$2" = raw ] && return 0
	dmsetup remove "$1"
}

# pl_group_devs G PER: the metadata device and members of group G (0..)
# when each group takes PER consecutive entries of /ew/disks, the last of
# them being its metadata device.  Prints "META MEMBER...".
pl_group_devs() {
	local g=$1 per=$2
	sed -n "$((g * per + 1)),$((g * per + per))p" /ew/disks >/tmp/pl-group
	echo "$(tail -n 1 /tmp/pl-group) $(sed '$d' /tmp/pl-group | tr '\n' ' ')"
}

# pl_write_fs DEV TREE FIO_SIZE: mkfs.ext4, copy TREE, fio verify's
# randwrite phase on a file of it (tests/fio/verify.fio), umount.
PL_MNT=/mnt/pl
pl_write_fs() {
	local dev=$1 tree=$2 size=$3
	mkdir -p $PL_MNT
	mkfs.ext4 -q -F "$dev" >/tmp/pl-mkfs.out 2>&1 || { sed 's/^/#   /' /tmp/pl-mkfs.out; return 1; }
	mount -t ext4 "$dev" $PL_MNT || return 1
	cp -a "$tree" $PL_MNT/tree || { umount $PL_MNT; return 1; }
	if ! DEV=$PL_MNT/fio.dat SIZE=$size OFFSET=0 fio --eta=never --section=verify-randwrite \
			--output=/tmp/pl-fio.out "$EW_FIO/verify.fio" >/dev/null 2>&1; then
		tail -n 20 /tmp/pl-fio.out | sed 's/^/#   /'
		umount $PL_MNT
		return 1
	fi
	umount $PL_MNT
}

# pl_fsck DEV: e2fsck -fn finds nothing
pl_fsck() {
	e2fsck -fn "$1" >/tmp/pl-fsck.out 2>&1 && return 0
	tail -n 12 /tmp/pl-fsck.out | sed 's/^/#   /'
	return 1
}

# pl_sums DEV SUMS: mount read-only, sha256 of the tree against SUMS
pl_sums() {
	local rc
	mkdir -p $PL_MNT
	mount -t ext4 -o ro "$1" $PL_MNT 2>/tmp/pl-mount.out ||
		{ sed 's/^/#   /' /tmp/pl-mount.out; return 1; }
	(cd $PL_MNT/tree && sha256sum -c --quiet "$2") >/tmp/pl-sums.out 2>&1
	rc=$?
	[ $rc = 0 ] || head -n 8 /tmp/pl-sums.out | sed 's/^/#   /'
	umount $PL_MNT
	return $rc
}

# pl_fio_check DEV SIZE: verify-check.fio on the fio file passes (read
# only, but fio opens a write job's file read-write: mounted rw)
pl_fio_check() {
	local rc
	mkdir -p $PL_MNT
	mount -t ext4 "$1" $PL_MNT 2>/tmp/pl-mount.out ||
		{ sed 's/^/#   /' /tmp/pl-mount.out; return 1; }
	DEV=$PL_MNT/fio.dat SIZE=$2 OFFSET=0 fio --eta=never \
		--output=/tmp/pl-fio.out "$EW_FIO/verify-check.fio" >/dev/null 2>&1
	rc=$?
	[ $rc = 0 ] || grep -E 'verify|bad|err' /tmp/pl-fio.out | head -n 8 | sed 's/^/#   /'
	umount $PL_MNT
	return $rc
}

# pl_lose_blocks DEV: the blocks a control zeroes on the first member
# (filesystem blocks; the volume must be dm-linear at offset 0 of it):
# one of the fio file, one of tree file d4/f6, the first of directory d2.
# Sets lost and fs_bs; pl_zero_lost MEMBER zeroes them.
lost="" fs_bs=4096
pl_lose_blocks() {
	local f b
	lost=""
	fs_bs=$(dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block size: *//p')
	for f in "/fio.dat 1000" "/tree/d4/f6 3" "/tree/d2 0"; do
		b=$(debugfs -R "bmap $f" "$1" 2>/dev/null | grep -E '^[0-9]+$')
		[ -n "$b" ] && [ "$b" != 0 ] || return 1
		lost="$lost $b"
	done
	note "control: zeroing blocks$lost (of $fs_bs bytes): fio.dat block 1000, tree/d4/f6 block 3, directory tree/d2"
}

pl_zero_lost() {
	local b
	for b in $lost; do
		dd if=/dev/zero of="$1" bs="$fs_bs" seek="$b" count=1 \
			oflag=direct conv=notrunc status=none || return 1
	done
}

# pl_memory_only_warned: the target said its map lives in memory only
# (before issue 5's persistence landed), since the kernel log started.
pl_memory_only_warned() {
	dmesg | grep -q 'map in memory only'
}

# pl_ewprobe_verify NAME DEV LOG: ewprobe verify --scan of DEV against
# the write log LOG: every acknowledged write there, no block corrupt or
# holding foreign data, at least one ack.  Prints "# figures NAME: ..."
# and, on failure, the first problems.
pl_ewprobe_verify() {
	local rc
	ewprobe verify --log "$3" --scan --json "$2" >/tmp/pl-v.json 2>/tmp/pl-v.err
	rc=$?
	echo "# figures $1: $(jq -r '"acked=\(.acked) verified=\(.verified) later_write=\(.later_write) lost=\(.lost) corrupt=\(.corrupt) foreign=\(.foreign) unacked=\(.unacked)"' /tmp/pl-v.json 2>/dev/null)"
	[ $rc = 0 ] && jq -e '.result == "ok" and .lost == 0 and .corrupt == 0 and .foreign == 0 and .acked > 0' \
		/tmp/pl-v.json >/dev/null && return 0
	sed 's/^/#   /' /tmp/pl-v.err | head -n 5
	jq -r '.problems[:5][] | "#   block \(.block): \(.kind): \(.found)"' /tmp/pl-v.json 2>/dev/null
	return 1
}

# pl_ewprobe_last_ack LOG: the block of the last whole ack record
pl_ewprobe_last_ack() {
	grep -aE '^EWPROBE ack [0-9]+ [0-9]+ [0-9a-f]{16} [0-9a-f]{8}$' "$1" |
		tail -n 1 | cut -d' ' -f4
}

# pl_ewprobe_control DEV LOG BLOCK: the control of a verify: BLOCK zeroed
# through DEV must be reported lost (verify can fail)
pl_ewprobe_control() {
	[ -n "$3" ] || return 1
	dd if=/dev/zero of="$1" bs=4096 seek="$3" count=1 oflag=direct \
		conv=notrunc status=none || return 1
	ewprobe verify --log "$2" --json "$1" >/tmp/pl-c.json 2>/dev/null
	[ $? = 1 ] && jq -e '.lost >= 1' /tmp/pl-c.json >/dev/null
}

# --- host side: the two boots of a power-cut test -------------------------
# The caller sets vmrun (the vm-run command and its options, an array), dir
# (the disk images, logs and channel) and counts its failures in fails;
# "$0 --guest write|verify ..." is its own guest half.

# pl_guest_results LOG: the guest's "ok", "not ok" and "#" lines; each
# boot with a "not ok" counts one failure.
pl_guest_results() {
	grep -a '^ok \|^not ok \|^# ' "$1"
	if grep -aq '^not ok ' "$1"; then
		fails=$((fails + 1))
	fi
	return 0
}

# pl_boot_cut ARG...: boot 1 runs "$0 --guest write ARG...", whose acks go
# to $dir/channel.log, and QEMU is killed (the power cut) when the guest
# prints EW-POWERCUT-NOW.  pl_rc: vm-run's exit status (137: cut as asked).
# shellcheck disable=SC2154,SC2034 # vmrun, dir: the caller's; pl_rc: for it
pl_boot_cut() {
	"${vmrun[@]}" --channel "$dir/channel.log" --log "$dir/boot1.log" \
		--kill-on '^EW-POWERCUT-NOW' -- "$0" --guest write "$@" \
		>"$dir/vm-run1.out" 2>&1
	pl_rc=$?
	pl_guest_results "$dir/boot1.log"
}

# pl_cut_checked WHAT: after pl_boot_cut, "ok - WHAT, N acks (T s)" when
# vm-run was killed as asked (137) and the host saw at least one ack
# (T: seconds since the caller's t0); otherwise "not ok" with the tail of
# boot 1's log, and status 1.  acks: the count, for the caller.
# shellcheck disable=SC2154,SC2034 # pl_rc, dir, t0: set before; acks: for it
pl_cut_checked() {
	acks=$(grep -acE '^EWPROBE ack ' "$dir/channel.log")
	if [ "$pl_rc" = 137 ] && [ "$acks" -ge 1 ]; then
		ok "$1, $acks acks ($((SECONDS - t0)) s)"
		return 0
	fi
	notok "$1 (vm-run exit $pl_rc, $acks acks)"
	tail -n 8 "$dir/boot1.log" | sed 's/^/#   /'
	return 1
}

# pl_boot_verify IMG ARG...: boot 1's channel (the acks the host saw) is
# written onto the disk image $dir/IMG, then boot 2 runs "$0 --guest
# verify ARG... LEN" (LEN: the channel's length).  pl_rc: vm-run's exit
# status.
# shellcheck disable=SC2154,SC2034 # as pl_boot_cut
pl_boot_verify() {
	local img=$1 len
	shift
	len=$(stat -c %s "$dir/channel.log")
	dd if="$dir/channel.log" of="$dir/$img" conv=notrunc status=none
	"${vmrun[@]}" --log "$dir/boot2.log" -- "$0" --guest verify "$@" "$len" \
		>"$dir/vm-run2.out" 2>&1
	pl_rc=$?
	pl_guest_results "$dir/boot2.log"
}

# pl_host_begin TAG VM-RUN-OPTION...: the host half's common start: fails
# counted by ok/notok, a work directory build/vm/TAG.XXXXXX (removed when
# nothing failed, kept and named otherwise) and vmrun, the vm-run command
# line over it (--disk-dir, a 400 s timeout, quiet) with the options given.
# shellcheck disable=SC2034,SC2154 # fails, dir, vmrun: the caller's; top: its own
pl_host_begin() {
	local tag=$1
	shift
	fails=0
	ok() { echo "ok - $1"; }
	notok() { echo "not ok - $1"; fails=$((fails + 1)); }
	mkdir -p "$top/build/vm" || exit 2
	dir=$(mktemp -d "$top/build/vm/$tag.XXXXXX") || exit 2
	trap '[ "$fails" -eq 0 ] && rm -rf "$dir" || echo "# kept $dir"' EXIT
	vmrun=("$top/scripts/vm-run" "$@" --disk-dir "$dir" --timeout 400 --quiet)
}
