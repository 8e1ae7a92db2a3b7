# shellcheck shell=bash
# Helpers of the eagerwrite target's guest tests (tests/vm/test-target-*.sh),
# sourced, not run.  Each check prints nothing on success and "# " lines
# saying what went wrong otherwise; callers wrap them with check().

fails=0
passes=0
ok() { echo "ok - $1"; passes=$((passes + 1)); }
notok() { echo "not ok - $1"; fails=$((fails + 1)); }
note() { echo "# $*"; }
check() {	# check NAME COMMAND...: ok when COMMAND succeeds
	local name=$1 t0=$SECONDS
	shift
	if "$@"; then ok "$name"; else notok "$name"; fi
	[ $((SECONDS - t0)) -lt 5 ] || note "$name: $((SECONDS - t0)) s"
}
finish() {
	echo "# target: $passes passed, $fails failed"
	_ew_finished=1
	[ "$fails" -eq 0 ]
	exit $?
}

# A guest script that ends before finish (set -u, an arithmetic error, a
# stray exit) skipped the checks after that point: one more "not ok", or
# the harness would count the checks before it as the whole script (a
# test-corrupt run that died at its 9th of 15 checks passed as "8 passed").
if [ "${EW_TESTS:-}" = /ew/tests ]; then
	trap '[ -n "${_ew_finished:-}" ] ||
		echo "not ok - the script ended before finish (status $?)"' EXIT
fi

load_target() {
	dmsetup targets 2>/dev/null | grep -q '^eagerwrite ' && return 0
	modprobe dm-mod 2>/dev/null
	modprobe dm-eagerwrite 2>/dev/null
	[ -e /ew/dm-eagerwrite.ko ] && insmod /ew/dm-eagerwrite.ko 2>/dev/null
	dmsetup targets 2>/dev/null | grep -q '^eagerwrite '
}

# Kernel log: mark where a test starts, then look at what came after it.
# The mark is a line of its own in the log (written to /dev/kmsg), not a
# count of lines: once the ring buffer is full the count stops growing,
# and a count taken then hid every later line (a klog_has that failed,
# a klog_clean that passed on nothing).  klog_mark_all: the whole log.
klog_seq=0
klog_tag=
klog_mark() {
	klog_seq=$((klog_seq + 1))
	klog_tag="ewtest: klog mark ${BASHPID:-$$}.$klog_seq"
	echo "$klog_tag" >>"${EW_KMSG:-/dev/kmsg}"
}
klog_mark_all() { klog_tag=; }
# klog_since: the kernel log after the mark (the last line that carries
# it).  A mark no longer in the ring (it wrapped past it) gives the whole
# ring, all of it newer than the mark, and a last line that says older
# ones were lost, which klog_clean counts as trouble: it cannot vouch for
# lines it did not see.
klog_wrapped="ewtest: the kernel log wrapped past the mark: lines lost"
klog_since() {
	dmesg | awk -v tag="$klog_tag" -v wrapped="$klog_wrapped" '
		tag != "" && substr($0, length($0) - length(tag) + 1) == tag {
			n = 0; found = 1; next
		}
		{ line[n++] = $0 }
		END {
			for (i = 0; i < n; i++)
				print line[i]
			if (tag != "" && !found)
				print wrapped
		}'
}
klog_clean() {
	local bad
	bad=$(klog_since |
		grep -E "WARNING|BUG|Oops|hung task|possible (circular|recursive) locking|inconsistent lock state|lock inversion|suspicious RCU usage|Call Trace|general protection|$klog_wrapped")
	[ -z "$bad" ] && return 0
	printf '%s\n' "$bad" | sed 's/^/#   /'
	return 1
}
klog_has() {	# klog_has STRING: STRING appeared after the mark
	klog_since | grep -qF -- "$1"
}

# table_refused MESSAGE TABLE: dmsetup create refuses TABLE, and the
# kernel log has the constructor's MESSAGE (ti->error) since the call
table_refused() {
	local msg=$1 table=$2
	klog_mark
	if dmsetup create ewbad --table "$table" 2>/dev/null; then
		note "accepted: $table"
		dmsetup remove ewbad
		return 1
	fi
	klog_has "eagerwrite: $msg" && return 0
	note "want: $msg"
	klog_since | grep eagerwrite | sed 's/^/#   /'
	return 1
}

# A tree of files: sizes from a few bytes to 2 MiB, nested directories.
make_tree() {
	local dir=$1 i j
	rm -rf "$dir"
	mkdir -p "$dir"
	for i in 1 2 3 4; do
		mkdir -p "$dir/d$i/sub"
		for j in 1 2 3 4 5 6; do
			head -c $(( (i * 7919 + j * 104729) % 2097152 + 1 )) \
				/dev/urandom >"$dir/d$i/f$j"
		done
		head -c $((i * 333)) /dev/urandom >"$dir/d$i/sub/small"
	done
	(cd "$dir" && find . -type f | sort | xargs sha256sum) >/tmp/tree.sums
}

table_round_trip() {	# reload what dmsetup table prints: same table
	local dev=$1 t1 t2
	t1=$(dmsetup table "$dev") || return 1
	dmsetup reload "$dev" --table "$t1" || { note "reload refused"; return 1; }
	dmsetup resume "$dev" || return 1
	t2=$(dmsetup table "$dev") || return 1
	[ "$t1" = "$t2" ] && return 0
	note "before: $t1"
	note "after:  $t2"
	return 1
}

# INFO: <layout> <N> <Dm> <Dd> <Ds> <region> <states> <pending> <reads>
# <writes> <fg> <bg> <eager> <flushes> <mae_ns> <metadata mode>
# <journal seq> <commits> <checkpoints> <resync done/total> <read_errors>
# <write_errors> <repairs> <owed> <lost> <rebuild done/total>
# <rebuild state> <rebuild MiB/s> <delay pages used/pool> <delay
# fallbacks> <copy slots used/total> <metadata copies> <metadata
# repairs> <journal waits> <checkpoint done/total> <placement lead ns>,
# after "start len target".
status_sane() {
	local dev=$1 layout=$2 s
	s=$(dmsetup status "$dev") || return 1
	# shellcheck disable=SC2086
	set -- $s
	if [ $# -ne 39 ] || [ "$4" != "$layout" ] || [ "$5" != "$EW_NR_DISKS" ] ||
		[ "${#10}" != "$EW_NR_DISKS" ] || [ -n "$(printf '%s' "${10}" | tr -d A)" ] ||
		[ "${19}" != ok ] || ! [[ "${23}" =~ ^[0-9]+/[0-9]+$ ]] ||
		! [[ "${37}" =~ ^[0-9]+$ ]] || ! [[ "${38}" =~ ^[0-9]+/[0-9]+$ ]] ||
		! [[ "${39}" =~ ^[0-9]+$ ]]; then
		note "status: $s"
		return 1
	fi
}

status_field() {	# status_field DEV N: Nth INFO field, 1 = layout
	dmsetup status "$1" | awk -v n="$2" '{ print $(3 + n) }'
}

member_state() {	# member_state DEV I: member I's character in status field 7
	status_field "$1" 7 | cut -c$(($2 + 1))
}

# drained_now DEV: the rebuild scan idle (field 27), every member A (field
# 7), nothing pending (field 8), from one dmsetup status and no other
# process: the loops that wait for a drained array poll it.  Reading each
# field through its own dmsetup | awk (and tr) every 50 ms, about ten
# processes a poll, took a quarter of the guest's one vCPU in exact time
# from the copies it waited for (bench-rebuild's ddm boot).
drained_now() {
	local line f
	line=$(dmsetup status "$1") || return 1
	read -r -a f <<<"$line"
	# f[0..2]: start, length, target; INFO field N is f[2 + N]
	[ "${f[29]:-}" = idle ] && [ -n "${f[9]:-}" ] && [ -z "${f[9]//A/}" ] &&
		[ "${f[10]:-}" = 0 ]
}

rebuilt_drained() {	# rebuilt_drained DEV SECONDS: scan idle, every member A, field 8 at 0
	local _
	for _ in $(seq $(($2 * 2))); do
		drained_now "$1" && return 0
		sleep 0.5
	done
	note "not rebuilt: $(dmsetup status "$1")"
	return 1
}

counters_moved() {	# reads, writes, foreground writes all > 0
	local dev=$1
	[ "$(status_field "$dev" 9)" -gt 0 ] && [ "$(status_field "$dev" 10)" -gt 0 ] &&
		[ "$(status_field "$dev" 11)" -gt 0 ] || { note "$(dmsetup status "$dev")"; return 1; }
}

fs_round_trip() {	# DEV FS TREE: mkfs, copy, verify after remount, fsck
	local dev=/dev/mapper/$1 fs=$2 tree=$3 mnt=/mnt/ewt
	modprobe "$fs" 2>/dev/null
	mkdir -p $mnt
	case $fs in
	ext4) mkfs.ext4 -q -F "$dev" || return 1 ;;
	xfs) mkfs.xfs -q -f "$dev" || return 1 ;;
	esac
	mount -t "$fs" "$dev" $mnt || return 1
	cp -a "$tree" $mnt/tree || { umount $mnt; return 1; }
	umount $mnt || return 1
	echo 3 >/proc/sys/vm/drop_caches
	mount -t "$fs" "$dev" $mnt || return 1
	if ! (cd $mnt/tree && sha256sum -c --quiet /tmp/tree.sums); then
		umount $mnt
		return 1
	fi
	umount $mnt || return 1
	case $fs in
	ext4) e2fsck -fn "$dev" >/tmp/fsck.out 2>&1 ;;
	xfs) xfs_repair -n "$dev" >/tmp/fsck.out 2>&1 ;;
	esac || { sed 's/^/#   /' /tmp/fsck.out | tail -n 20; return 1; }
}

fio_verify() {	# DEV RW SIZE [OFFSET]: fio verify, zero errors
	local dev=/dev/mapper/$1 rw=$2 size=$3 off=${4:-0}
	fio --name=verify --filename="$dev" --rw="$rw" --bsrange=4k-256k \
		--iodepth=16 --ioengine=libaio --direct=1 --size="$size" \
		--offset="$off" --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--eta=never --output=/tmp/fio.out >/dev/null 2>&1 && return 0
	tail -n 30 /tmp/fio.out | sed 's/^/#   /'
	return 1
}

piece_sum() {	# FILE MIB_SKIP: sha256 of the 1 MiB at MIB_SKIP
	dd if="$1" bs=1M skip="$2" count=1 status=none | sha256sum | cut -d' ' -f1
}

discard_zeros() {	# write, discard, read zeros; bytes around untouched
	local dev=/dev/mapper/$1 off=$((64 * 1048576)) zero
	head -c $((3 * 1048576)) /dev/urandom >/tmp/pat || return 1
	dd if=/tmp/pat of="$dev" bs=1M seek=64 oflag=direct status=none || return 1
	blkdiscard -o $((off + 1048576)) -l 1048576 "$dev" || return 1
	dd if="$dev" of=/tmp/back bs=1M skip=64 count=3 iflag=direct status=none ||
		return 1
	zero=$(head -c 1048576 /dev/zero | sha256sum | cut -d' ' -f1)
	[ "$(piece_sum /tmp/pat 0)" = "$(piece_sum /tmp/back 0)" ] ||
		{ note "before the discarded range changed"; return 1; }
	[ "$(piece_sum /tmp/back 1)" = "$zero" ] ||
		{ note "discarded range does not read zeros"; return 1; }
	[ "$(piece_sum /tmp/pat 2)" = "$(piece_sum /tmp/back 2)" ] ||
		{ note "after the discarded range changed"; return 1; }
}

messages() {	# the documented messages work, bad ones are refused
	local dev=$1
	dmsetup message "$dev" 0 reset_counters || return 1
	[ "$(status_field "$dev" 9)" -eq 0 ] || { note "reads not reset"; return 1; }
	dmsetup message "$dev" 0 disk_param all rotation_ns 6000000 || return 1
	dmsetup message "$dev" 0 disk_param 0 seek_a_ns 900000 || return 1
	dmsetup message "$dev" 0 disk_param all overhead_ns 500000 || return 1
	dmsetup message "$dev" 0 checkpoint || return 1
	if dmsetup message "$dev" 0 bogus 2>/dev/null ||
		dmsetup message "$dev" 0 checkpoint now 2>/dev/null ||
		dmsetup message "$dev" 0 disk_param 999 rotation_ns 1 2>/dev/null ||
		dmsetup message "$dev" 0 disk_param all nokey 1 2>/dev/null ||
		dmsetup message "$dev" 0 disk_param all rotation_ns x 2>/dev/null ||
		dmsetup message "$dev" 0 disk_param all rotation_ns 0 2>/dev/null ||
		dmsetup message "$dev" 0 disk_param all 2>/dev/null; then
		note "a bad message was accepted"
		return 1
	fi
	dmsetup message "$dev" 0 disk_param all rotation_ns 5973120 || return 1
}

# Forgets the array on the metadata device and the members: the first
# 8 KiB of the metadata device (both superblock slots) and each member's
# label (its first 4 KiB), so that the next create formats a new array
# (the target never formats over metadata it finds).
wipe_array() {	# wipe_array [META [MEMBER...]]: default $EW_META $EW_DISKS
	local meta=${1:-$EW_META} d
	[ $# -gt 0 ] && shift
	[ $# -gt 0 ] || set -- $EW_DISKS
	dd if=/dev/zero of="$meta" bs=4096 count=2 conv=fsync status=none || return 1
	for d in "$@"; do
		dd if=/dev/zero of="$d" bs=4096 count=1 conv=fsync status=none || return 1
	done
}

# Gives the members' space back between configurations (loop over tmpfs),
# and forgets the array.
wipe_members() {
	local d
	for d in $EW_DISKS; do
		blkdiscard "$d" 2>/dev/null
	done
	wipe_array
}

# The fault-injecting test target (tests/ewfault, carried by vm-run to
# /ew/modules/ewfault.ko; scripts/vmtest builds it).
load_ewfault() {
	dmsetup targets 2>/dev/null | grep -q '^ewfault ' && return 0
	insmod /ew/modules/ewfault.ko 2>/dev/null
	dmsetup targets 2>/dev/null | grep -q '^ewfault '
}
ewfault_field() {	# ewfault_field DEV N: Nth INFO field (1 = flushes)
	dmsetup status "$1" | awk -v n="$2" '{ print $(3 + n) }'
}
# ewfault_members PREFIX N: a new array's members PREFIX0..PREFIX<N-1>,
# each an ewfault device over the guest disk of that index with its label
# zeroed (an old one is removed first), and the metadata's first MiB
# zeroed (both superblock slots).
ewfault_members() {
	local p=$1 n=$2 i sz
	# shellcheck disable=SC2206
	local d=($EW_DISKS)
	for ((i = 0; i < n; i++)); do
		dmsetup remove "$p$i" 2>/dev/null
		dd if=/dev/zero of="${d[$i]}" bs=4096 count=1 oflag=direct 2>/dev/null
		sz=$(blockdev --getsz "${d[$i]}")
		dmsetup create "$p$i" --table "0 $sz ewfault ${d[$i]} 0" || return 1
	done
	dd if=/dev/zero of="$EW_META" bs=1M count=1 oflag=direct 2>/dev/null
}

# Generation-checked data (issue 19).  fio's verify_only cannot tell an
# older valid block from the current one, so a stale replica passes it.
# ewprobe write stamps every 4 KiB block with its write's sequence number
# (and address, run seed, checksum) and logs each write's intent and
# acknowledgement; ewprobe verify reads every block back and reports one
# that holds an older write of the run ("lost: ... an older write"), zeros
# or another block's data.  The blocks are the first GEN_BLOCKS of the
# device; each write is fdatasync'ed before it is acknowledged.
GEN_BLOCKS=${GEN_BLOCKS:-256}
# ewprobe --force writes a regular file where DEV is missing (and verifies
# it), which would pass for the array and then make dmsetup create fail.
gen_dev() {
	[ -b "/dev/mapper/$1" ] && return 0
	note "/dev/mapper/$1 is not a block device"
	return 1
}
# gen_write DEV COUNT [SEED]: a new run, log /tmp/gen-DEV.log; GEN_OPTS:
# more ewprobe write options (e.g. --stop-after N)
gen_write() {
	local dev=$1 n=$2
	gen_dev "$dev" || return 1
	rm -f "/tmp/gen-$dev.log"
	# shellcheck disable=SC2086 # the seed, when given, is two words
	ewprobe write --log "/tmp/gen-$dev.log" --count "$n" ${GEN_OPTS:-} \
		--blocks "$GEN_BLOCKS" ${3:+--seed $3} --force "/dev/mapper/$dev" \
		>/tmp/gen-w.out 2>&1 && return 0
	tail -n 5 /tmp/gen-w.out | sed 's/^/#   /'
	return 1
}
gen_verify() {	# gen_verify DEV: every acknowledged write there, none older
	local dev=$1
	gen_dev "$dev" || return 1
	ewprobe verify --log "/tmp/gen-$dev.log" "/dev/mapper/$dev" \
		>/tmp/gen-v.out 2>&1 && grep -q '^result: OK' /tmp/gen-v.out &&
		return 0
	grep -E '^block|^acked|^result|rror' /tmp/gen-v.out | head -n 8 |
		sed 's/^/#   /'
	return 1
}

# The second replica of every replica set of a "mirrors 2" array of N
# members (ew_geom.c): raid10 and ew put replica k of column c on member
# k * N/2 + c, ddm pairs members 2p and 2p + 1.  With those members failed
# every block is read from its other replica, so a delayed copy written
# wrong (or not at all) is read.
second_replicas() {	# second_replicas LAYOUT N: their indexes
	local i
	for ((i = 0; i < $2; i++)); do
		if [ "$1" = ddm ]; then
			[ $((i % 2)) -eq 1 ] && echo "$i"
		else
			[ "$i" -ge $(($2 / 2)) ] && echo "$i"
		fi
	done
}
# wrap_partners LAYOUT: $EW_DISKS with each second replica as
# /dev/mapper/ewp<i>, a dm-linear over the disk (created), printed
wrap_partners() {
	local i=0 d sz out=""
	local -A second
	for d in $(second_replicas "$1" "$EW_NR_DISKS"); do second[$d]=1; done
	for d in $EW_DISKS; do
		if [ -n "${second[$i]:-}" ]; then
			sz=$(blockdev --getsz "$d")
			dmsetup remove "ewp$i" 2>/dev/null
			dmsetup create "ewp$i" --table "0 $sz linear $d 0" || return 1
			d=/dev/mapper/ewp$i
		fi
		out="$out $d"
		i=$((i + 1))
	done
	echo "$out"
}
fail_partners() {	# every ewp<i> returns errors from now on
	local p sz
	for p in $(dmsetup ls | awk '/^ewp[0-9]/ { print $1 }'); do
		sz=$(blockdev --getsz "/dev/mapper/$p")
		dmsetup reload "$p" --table "0 $sz error" &&
			dmsetup resume "$p" || return 1
	done
}
unwrap_partners() {
	local p
	for p in $(dmsetup ls | awk '/^ewp[0-9]/ { print $1 }'); do
		dmsetup remove "$p" || return 1
	done
}
# The table of a dm-delay device over the harness's metadata disk, its
# writes and flushes delayed MS ms (reads not): a slow metadata disk.
meta_delay_table() {	# meta_delay_table MS
	local n
	n=$(blockdev --getsz "$EW_META") || return 1
	echo "0 $n delay $EW_META 0 0 $EW_META 0 $1 $EW_META 0 $1"
}

wait_drained() {	# wait_drained DEV SECONDS: pending (field 8) reaches 0
	local _
	for _ in $(seq "$2"); do
		[ "$(status_field "$1" 8)" = 0 ] && return 0
		sleep 1
	done
	note "still pending: $(dmsetup status "$1")"
	return 1
}
