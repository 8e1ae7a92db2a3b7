#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Persistence across a reboot (issue 5), run on the HOST: two vm-run boots
# on one --disk-dir; the script passes itself in as the guest script.
#
#   boot 1  for each group (CONFIG@MODE; default raid10:2@clean ddm:2@cut
#           ew:2@cut linear@lose: sync 1 is in test-persist.sh) on its own 4
#           members and metadata disk: a new array, mkfs.ext4, a tree of
#           files (make_tree), fio verify.fio's randwrite phase on a file,
#           umount; MODE clean: dmsetup remove; MODE cut: the table stays
#           loaded.  The tree's sums go to the spare disk.  Then the host
#           cuts the power (--kill-on), so the cut groups never see a
#           removal, only the flushes of umount.
#   boot 2  each group is created again from the same table line: e2fsck
#           -fn clean, every sha256 matches, fio verify-check.fio passes.
#
# CONFIG is LAYOUT:SYNC, or linear (dm-linear over the group's first
# member: the harness's own check, it passes).  MODE lose (a control)
# zeroes three filesystem blocks of a linear group after umount in boot 1:
# boot 2 must then report every check failed.  It is in the default run,
# so that a boot 2 whose checks cannot fail (a stale image, a check that
# reads nothing) fails the test.
#   tests/vm/host-persist-reboot.sh linear@cut linear@lose   # harness check
# Prints "ok - NAME" / "not ok - NAME"; exits non-zero on any failure.
set -u
PER=5	# devices per group: 4 members, then the group's metadata device

# ---- in the guest ----
if [ "${1-}" = --guest ]; then
	phase=$2
	shift 2
	export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
	# shellcheck source=tests/vm/target-lib.sh
	. "$EW_TESTS/vm/target-lib.sh"
	# shellcheck source=tests/vm/persist-lib.sh
	. "$EW_TESTS/vm/persist-lib.sh"
	case " $* " in *:*) load_target || { notok "module loaded"; exit 1; } ;; esac
	spare=$(tail -n 1 /ew/disks)
	klog_mark
	[ "$phase" = verify ] && head -c 1048576 "$spare" | tr -d '\0' >/tmp/tree.sums
	g=0
	for spec in "$@"; do
		cfg=${spec%@*} mode=${spec##*@}
		name="group $g: $cfg, $mode"
		# shellcheck disable=SC2046 # META MEMBER...
		set -- $(pl_group_devs $g $PER)
		meta=$1
		shift
		if [ "$phase" = write ]; then
			[ $g = 0 ] && make_tree /tmp/tree
			pl_fresh "$meta" "$@"
			if dev=$(pl_assemble "pr$g" "$cfg" "$meta" "$@") &&
					pl_write_fs "$dev" /tmp/tree 8M; then
				ok "boot 1: $name: create, mkfs.ext4, tree, fio verify write"
			else
				notok "boot 1: $name: create, mkfs.ext4, tree, fio verify write"
			fi
			case $mode in
			clean) check "boot 1: $name: remove" pl_remove "pr$g" "$cfg" ;;
			lose) pl_lose_blocks "$dev" && pl_zero_lost "$1" ;;
			esac
		else
			if ! dev=$(pl_assemble "pr$g" "$cfg" "$meta" "$@"); then
				notok "boot 2: $name: create again from the same table"
				g=$((g + 1))
				continue
			fi
			ok "boot 2: $name: create again from the same table"
			pl_fsck "$dev" && f=1 || f=0
			pl_sums "$dev" /tmp/tree.sums && s=1 || s=0
			pl_fio_check "$dev" 8M && v=1 || v=0
			note "$name: fsck clean $f, sums match $s, fio verify-check $v"
			if [ "$mode" = lose ]; then
				[ $((f + s + v)) = 0 ] && ok "boot 2: $name: control: every check reports the zeroed blocks" ||
					notok "boot 2: $name: control: every check reports the zeroed blocks"
			else
				[ "$f" = 1 ] && ok "boot 2: $name: e2fsck -fn clean" || notok "boot 2: $name: e2fsck -fn clean"
				[ "$s" = 1 ] && ok "boot 2: $name: every sha256 matches" || notok "boot 2: $name: every sha256 matches"
				[ "$v" = 1 ] && ok "boot 2: $name: fio verify-check passes" || notok "boot 2: $name: fio verify-check passes"
			fi
			check "boot 2: $name: remove" pl_remove "pr$g" "$cfg"
		fi
		g=$((g + 1))
	done
	if [ "$phase" = write ]; then
		# the sums survive on the raw spare disk (a completed write
		# survives the kill: --disk-dir, cache=unsafe)
		dd if=/dev/zero of="$spare" bs=1M count=1 oflag=direct conv=notrunc status=none
		dd if=/tmp/tree.sums of="$spare" oflag=direct,sync conv=notrunc status=none 2>/dev/null ||
			dd if=/tmp/tree.sums of="$spare" conv=notrunc,fsync status=none
		sync
		check "boot 1: kernel log clean" klog_clean
		echo "# boot 1: $passes passed, $fails failed; cutting the power"
		echo "EW-PERSIST-CUT-NOW"
		sleep 120
		echo "not ok - boot 1: the power cut did not come"
		exit 1
	fi
	check "boot 2: kernel log clean" klog_clean
	pl_memory_only_warned && note "the target logged 'map in memory only': issue 5's persistence is not in this module"
	finish
fi

# ---- on the host ----
if [ -e /ew/config ]; then
	echo "not ok - $(basename "$0") runs on the host (it boots the guest itself)"
	exit 1
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(raid10:2@clean ddm:2@cut ew:2@cut linear@lose)
fails=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fails=$((fails + 1)); }
mkdir -p "$top/build/vm"
dir=$(mktemp -d "$top/build/vm/persist-reboot.XXXXXX") || exit 2
trap '[ "$fails" -eq 0 ] && rm -rf "$dir" || echo "# kept $dir"' EXIT
ndisks=$(( ${#specs[@]} * PER + 1 ))
vmrun=("$top/scripts/vm-run" --disks "$ndisks" --disk-size 128M --meta-size 16M
	--disk-dir "$dir" --timeout 1500 --quiet)
echo "# groups: ${specs[*]} ($ndisks disks)"

t0=$SECONDS
"${vmrun[@]}" --channel "$dir/channel1.log" --kill-on '^EW-PERSIST-CUT-NOW' \
	--log "$dir/boot1.log" -- "$0" --guest write "${specs[@]}"
rc=$?
grep -a '^ok \|^not ok \|^# ' "$dir/boot1.log"
[ $rc = 137 ] && ok "boot 1: written, then the power cut ($((SECONDS - t0)) s)" ||
	notok "boot 1: written, then the power cut (vm-run exit $rc)"
grep -aq '^not ok ' "$dir/boot1.log" && fails=$((fails + 1))

t0=$SECONDS
"${vmrun[@]}" --channel "$dir/channel2.log" --log "$dir/boot2.log" -- \
	"$0" --guest verify "${specs[@]}"
rc=$?
grep -a '^ok \|^not ok \|^# ' "$dir/boot2.log"
[ $rc = 0 ] && ok "boot 2: reassembled and verified ($((SECONDS - t0)) s)" ||
	notok "boot 2: reassembled and verified (vm-run exit $rc)"
[ "$fails" -eq 0 ]
