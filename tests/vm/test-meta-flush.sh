#!/bin/bash
# vm-run: --icount --disks 2 --disk-size 48M --meta-size 16M --timeout 600
# vmtest: beside
#
# What a commit asks of the metadata device (issue 15: "no redundant
# PREFLUSH on the journal write").  A commit flushes the members it
# wrote, then writes its journal block with FUA; a cache flush of the
# metadata device in front of that block is owed only when the commit
# wrote journal copy slots there first (Documentation/eagerwrite.rst,
# "Metadata commits").  Before this test the journal block always carried
# REQ_PREFLUSH | REQ_FUA: one flush more per commit on a metadata device
# with a volatile write cache (an SSD's flush is its costliest command).
#
# The metadata device (a loop device: a volatile write cache, no FUA, so
# the block layer sends a FUA write as the write and a flush after it) is
# set to "write back" if it is not.  For each layout (ew and raid10, sync
# 2, no journal copies), NWRITES single-block O_DIRECT|O_DSYNC writes
# (each a FUA bio: one commit each); from the metadata device's
# /sys/block/X/stat (field 16: flush requests completed) and the array's
# status (17: journal seq, 19: checkpoints), held:
#  - at least NWRITES/2 journal blocks were written (the check is not
#    vacuous);
#  - flushes <= journal blocks x F + 2 x checkpoints + 2, where F is 0 on
#    a device with FUA and 1 without (the emulated FUA's flush); the old
#    commit sent one flush more per journal block (2 per block here);
#  - the data read back;
# then with sync 1, that a flush does not wait for the records of the
# delayed replicas (a journal block per O_DSYNC write, not two).
# Prints "ok - NAME" / "not ok - NAME" and "# " notes.
set -u
export DM_DISABLE_UDEV=1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=tests/vm/target-lib.sh
. "${EW_TESTS:-$(dirname "$0")/..}/vm/target-lib.sh"

NWRITES=${NWRITES:-64}
DEV=ewmf
A=/dev/mapper/$DEV

load_target || { notok "module loaded"; finish; }
ok "module loaded"

q=/sys/block/${EW_META#/dev/}/queue
if [ "$(cat $q/write_cache)" != "write back" ]; then
	echo "write back" >$q/write_cache 2>/dev/null
fi
check "metadata device has a volatile write cache" \
	[ "$(cat $q/write_cache)" = "write back" ]
fua=$(cat $q/fua 2>/dev/null || echo 0)
per_block=$((fua == 1 ? 0 : 1))
note "metadata device ${EW_META}: fua $fua, so $per_block flush per FUA write"

meta_flushes() { awk '{ print $16 }' "/sys/block/${EW_META#/dev/}/stat"; }

# shellcheck disable=SC2086
set -- $EW_DISKS
for layout in ew raid10; do
	t=$layout
	dmsetup remove $DEV 2>/dev/null
	wipe_array || { notok "$t: wipe"; continue; }
	table=$(ewctl table --layout $layout --sync 2 --len 16M \
		--metadata "$EW_META" "$1" "$2") || { notok "$t: table"; continue; }
	if ! dmsetup create $DEV --table "$table"; then
		notok "$t: create"
		continue
	fi
	head -c $((NWRITES * 4096)) /dev/urandom >/tmp/mf.pat
	sync
	f0=$(meta_flushes)
	j0=$(status_field $DEV 17)
	c0=$(status_field $DEV 19)
	bad=0
	for ((i = 0; i < NWRITES; i++)); do
		dd if=/tmp/mf.pat of=$A bs=4096 skip=$i seek=$((i * 3)) count=1 \
			oflag=direct,dsync status=none || bad=$((bad + 1))
	done
	f1=$(meta_flushes)
	j1=$(status_field $DEV 17)
	c1=$(status_field $DEV 19)
	check "$t: $NWRITES O_DSYNC writes" [ $bad -eq 0 ]
	jb=$((j1 - j0)) fl=$((f1 - f0)) ck=$((c1 - c0))
	bound=$((jb * per_block + 2 * ck + 2))
	note "$t: $jb journal blocks, $ck checkpoints, $fl metadata flushes (at most $bound; the old commit: about $((jb * (per_block + 1))))"
	check "$t: a journal block per write or so" [ $jb -ge $((NWRITES / 2)) ]
	check "$t: no flush of the metadata device before a journal block" \
		[ $fl -le $bound ]
	bad=0
	for ((i = 0; i < NWRITES; i++)); do
		[ "$(dd if=$A bs=4096 skip=$((i * 3)) count=1 iflag=direct status=none | sha256sum)" = \
			"$(dd if=/tmp/mf.pat bs=4096 skip=$i count=1 status=none | sha256sum)" ] ||
			bad=$((bad + 1))
	done
	check "$t: data read back" [ $bad -eq 0 ]
	dmsetup remove $DEV || notok "$t: remove"
done

# A flush waits for the records of foreground work only (issue 15: "an
# fsync of an idle array costs no device I/O").  With sync 1 each O_DSYNC
# write (a FUA write, then an empty flush) commits its record; its
# delayed replica, copied meanwhile, logs a record of its own that the
# flush must not wait for: it carries no acknowledged data, and the next
# commit takes it.  When the flush waited for it, every write cost two
# journal blocks (the replica's, then the next write's).
t="ew sync 1"
dmsetup remove $DEV 2>/dev/null
if wipe_array && table=$(ewctl table --layout ew --sync 1 --len 16M \
		--metadata "$EW_META" "$1" "$2" 2>/dev/null) &&
		dmsetup create $DEV --table "$table"; then
	bad=0
	j0=$(status_field $DEV 17)
	w0=$(status_field $DEV 12)
	for ((i = 0; i < NWRITES; i++)); do
		dd if=/tmp/mf.pat of=$A bs=4096 skip=$i seek=$((i * 3)) count=1 \
			oflag=direct,dsync status=none || bad=$((bad + 1))
	done
	j1=$(status_field $DEV 17)
	w1=$(status_field $DEV 12)
	check "$t: $NWRITES O_DSYNC writes" [ $bad -eq 0 ]
	jb=$((j1 - j0)) bg=$((w1 - w0))
	note "$t: $jb journal blocks, $bg delayed replicas written meanwhile"
	check "$t: delayed replicas were written during the writes" \
		[ $bg -ge $((NWRITES / 2)) ]
	check "$t: a journal block per write, not two" \
		[ $((jb >= NWRITES / 2 && jb <= NWRITES * 5 / 4 + 2)) = 1 ]
	dd if=/dev/zero of=$A bs=4096 count=0 conv=fsync status=none
	c0=$(status_field $DEV 18)
	dd if=/dev/zero of=$A bs=4096 count=0 conv=fsync status=none
	c1=$(status_field $DEV 18)
	check "$t: a flush with nothing new commits nothing" [ "$c1" = "$c0" ]
	dmsetup remove $DEV || notok "$t: remove"
else
	notok "$t: create"
fi
finish
