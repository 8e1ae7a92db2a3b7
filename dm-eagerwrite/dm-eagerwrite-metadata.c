// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-eagerwrite-metadata.c - the persistent map of an eagerwrite array:
 * the I/O, the order and the bookkeeping around the on-disk format of
 * core/ew_meta.c (Documentation/on-disk-format.rst is the design).
 *
 * This file owns the metadata device, the member labels, the journal
 * buffers, the superblock in use and the failure latch.  The target
 * (dm-eagerwrite-target.c) owns the map and the deferred-free list and
 * calls in here, under its array lock, at the moment the map changes.
 *
 * Journal.  EW_MD_JBUFS preallocated 8 KiB buffers (a journal slot: the
 * block and its second copy) form a ring: journal block seq s uses
 * buffer s % EW_MD_JBUFS.  Blocks durable_seq + 1 ..
 * open_seq - 1 are sealed and wait for the commit; open_seq is being
 * filled.  A record is appended under the array lock when the map
 * changes, so the journal's order is the map's.  Completions run in irq
 * context and cannot wait for a buffer, so every record is reserved
 * before its I/O starts (ew_md_reserve(), like the delayed-queue
 * entries): a reservation is accepted only if the open block and the
 * free buffers are sure to hold every reserved record, a block losing at
 * most (largest record group - 1) records to the all-or-nothing rule of
 * ew_meta_jbuf_log_block(), with one block to spare so that a commit can
 * always seal the open block.
 *
 * Commit order (group commit; one commit serves every record logged
 * before it):
 *   1. under the lock: take the set of members written since the last
 *      commit and seal the open block; every record in a sealed block is
 *      of a write or copy that completed before this point;
 *   2. flush those members, in parallel (REQ_PREFLUSH): the data the
 *      records point at is durable before anything points at it;
 *   3. write the sealed blocks, one after the other, each as one 8 KiB
 *      write of both copies with REQ_FUA: block s + 1 is not submitted
 *      before block s is durable (recovery tells a torn end from a lost
 *      block by it), and a commit is acknowledged only when both copies
 *      are (one damaged copy is then recovered from the other instead of
 *      ending the journal early).  The first block of a commit that
 *      wrote journal copy slots (2b) adds REQ_PREFLUSH, which makes the
 *      slots durable before the records naming them.  No other write to
 *      the metadata device is owed before a journal block: the members'
 *      data were flushed in 2, the previous journal block and every
 *      superblock were written with FUA, and checkpoint blocks are named
 *      only by a superblock written after a flush of their own;
 *   4. durable_seq advances: the target completes the PREFLUSH and FUA
 *      bios waiting for it and releases the deferred frees whose remaps
 *      are durable (ew_md_dfree_safe()).
 * A checkpoint (ew_md_checkpoint()) writes the map to the area the
 * superblock does not name, commits, flushes the metadata device and
 * then writes the superblock naming it with REQ_PREFLUSH | REQ_FUA.  It
 * is taken when the on-disk journal is half full, so that a journal
 * block never overwrites one the durable superblock needs; that one
 * runs in steps between commits (ew_md_checkpoint_step()).  The others:
 * a load after a crash, a member replacement, the checkpoint message
 * (ew_md_checkpoint_now()), and a clean shutdown only when one is owed
 * (ew_md_shutdown(): otherwise a commit and a CLEAN superblock).
 *
 * Failure.  A metadata I/O error latches md->failed (DMERR once): no
 * metadata is written after it, records are dropped, the target fails
 * writes and flushes with EIO and goes on serving reads.
 *
 * Metadata copies (the table's metadata_mirror; on-disk-format.rst,
 * "Metadata copies").  The metadata image is kept on nmdev devices, every
 * write going to each live copy in one dm_io request (a write is done
 * when every live copy has it).  When some copies fail a write and others
 * do not, the failed ones are dropped from mlive and, before the write
 * returns (so before anything is acknowledged on it), the survivors get a
 * new superblock generation naming them stale (ew_md_mlost()); from then
 * on only the survivors are written.  A write that fails on every live
 * copy latches the failure as above.  Reads come from msrc; an I/O error
 * there, or at load a block that does not check, is read from another
 * live copy and written back over the bad one.
 *
 * Locking.  *lock (the array's spinlock) guards the journal buffers, the
 * seqs, the reservations, the dirty-member set and the counters.
 * io_mutex serialises the process-context calls (commit worker,
 * suspend/resume, open) and guards the superblock in use (sb); the
 * journal layout fields of sb never change after open, which is what
 * sealing reads under the spinlock (jsb, a copy).
 */

#include <linux/device-mapper.h>
#include <linux/delay.h>
#include <linux/dm-io.h>
#include <linux/bitops.h>
#include <linux/hash.h>
#include <linux/ioprio.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uuid.h>
#include <linux/vmalloc.h>

#include "core/ew_meta.h"
#include "dm-eagerwrite-metadata.h"

#define DM_MSG_PREFIX "eagerwrite"

#define EW_MD_JBUFS		32	/* journal buffers (a slot, 8 KiB, each) */
#define EW_MD_IOBLOCKS		16	/* a step's blocks, at least */
/*
 * Blocks per bulk metadata I/O (iobuf, 1 MiB): the checkpoint's reads
 * at load and its writes, the copy resync.  Each of these I/Os is
 * synchronous, so on a rotating metadata disk the next one starts after
 * the platter has moved past it and waits for it to come round again:
 * 64 KiB reads made the load of an 8 GiB array's map 2.9 s on a 10,000
 * RPM disk (a turn missed every 64 KiB), 1 MiB reads about half of
 * that, close to the disk's transfer time (Documentation/benchmarks.rst,
 * "Loading an array").
 */
#define EW_MD_BULK_BLOCKS	256
/*
 * The journal is replayed EW_MD_IOSLOTS slots a read at first, twice as
 * many each read after, up to the bulk size: a short journal (a clean
 * shutdown leaves a few blocks) costs one small read, a long one (a
 * crash, half the ring) reads at the bulk size.
 */
#define EW_MD_IOSLOTS		(EW_MD_IOBLOCKS / EW_META_JOURNAL_COPIES)
#define EW_MD_BULK_SLOTS	(EW_MD_BULK_BLOCKS / EW_META_JOURNAL_COPIES)
/* A member flush that fails is retried for about 5 s (see the commit). */
#define EW_MD_FLUSH_TRIES	25
#define EW_MD_FLUSH_RETRY_MS	200
#define EW_MD_COPY_HASH_BITS	10	/* live copies by logical block */

struct ew_md {
	/* set at open */
	struct dm_io_client *io;
	struct block_device *mdev[EW_META_MAX_COPIES];	/* the copies */
	sector_t moff[EW_META_MAX_COPIES];	/* ... each image's start */
	int mmember[EW_META_MAX_COPIES];	/* ... on this member; or -1 */
	u32 nmdev;
	bool opening;			/* in ew_md_open: a copy error refuses */
	void (*event)(void *ctx);
	void *event_ctx;
	struct block_device *data[EW_MAX_DISKS];
	u32 nr;
	struct ew_geom g;
	spinlock_t *lock;		/* the array lock: see "Locking" */
	struct ew_map *map;
	struct ew_dfree *dfree;
	u32 unit_max;			/* records of the largest group */
	u32 unit_block;			/* records a block surely takes */
	struct ew_meta_sb jsb;		/* journal layout and uuid */

	struct mutex io_mutex;		/* process-context calls, sb */
	struct ew_meta_sb sb;		/* the durable superblock */
	/*
	 * jfree (under io_mutex): jslot_seq[slot], the journal block the
	 * slot holds (0: none; free once below sb.journal_seq);
	 * jslot_of[seq % journal_slots], the slot of a live seq (at most
	 * journal_slots of them); jnext, where the next free slot is
	 * looked for when no placement is given.
	 */
	u64 *jslot_seq;
	u32 *jslot_of;
	u32 jnext;
	u32 (*jplace)(void *ctx, const struct ew_md_jplace *q);
	void (*jdone)(void *ctx, const struct ew_md_jplace *q, u32 slot);
	void *jplace_ctx;
	struct ew_md_jplace jq;		/* the last slot's choice */
	u32 jq_slot;			/* its slot; nslots: no choice */
	/* under io_mutex: ew_md_flush_members()' regions (off the stack) */
	struct dm_io_region flush_where[EW_MAX_DISKS];
	u32 flush_idx[EW_MAX_DISKS];
	bool map_changed;		/* not journalled: checkpoint it */
	/*
	 * The periodic checkpoint in progress (ew_md_checkpoint_step()):
	 * its area, seq and journal start (under io_mutex), and whether it
	 * is active with the map blocks written so far (written with
	 * io_mutex and *lock held, read under either: status reads them).
	 */
	u32 ck_area;
	u64 ck_seq, ck_start;
	bool ck_active;
	u64 ck_idx;
	void *iobuf;			/* EW_MD_BULK_BLOCKS blocks, vmalloc */
	void *sbbuf;			/* a superblock being written */
	void *altbuf;			/* a journal slot of another copy */
	/*
	 * Metadata copies: bit c of mlive, copy c is written (and read);
	 * msrc, the copy reads come from; mrepairs, blocks read from
	 * another copy.  Written with io_mutex and *lock held, read under
	 * either.
	 */
	u32 mlive;
	u32 msrc;
	u64 mrepairs;

	/* under *lock */
	void *jblk[EW_MD_JBUFS];
	u64 jmark[EW_MD_JBUFS];		/* dfree tail when sealed */
	u32 jnr[EW_MD_JBUFS];		/* records, when sealed */
	struct ew_meta_jbuf open;
	u64 open_seq;
	u64 durable_seq;
	/*
	 * The journal block holding the last record of foreground work (a
	 * write, a discard, a journal copy, a failed write's stale mark):
	 * what a flush waits for (ew_md_flush_seq()).
	 */
	u64 flush_mark;
	u64 resv;
	u64 dirty;			/* members written since the commit */
	u64 dirty_sole;			/* ... holding a write's only copy */
	u64 member_errors;
	u64 lost_first, lost_seq;	/* the last commit that lost writes */
	u64 dfree_safe;
	u64 commits;
	u64 checkpoints;
	bool failed;

	/* journal copies (see "Copy slots"); under *lock */
	struct ew_md_copy *copy;	/* copy_nr of them */
	u32 copy_nr;
	u32 *copy_free;			/* a stack of free slots */
	u32 copy_nfree;
	u32 *copy_fifo;			/* released, UNCOPY not yet durable */
	u32 copy_fhead, copy_fcount;
	u32 *copy_dirty;		/* a ring: filled, not yet written */
	u32 copy_dhead, copy_dcount;
	bool copy_hold;			/* a checkpoint waits: no new copy */
	struct hlist_head copy_hash[1 << EW_MD_COPY_HASH_BITS]; /* LIVE */
	void (*page_put)(void *ctx, struct page *page);
	void *page_ctx;
	void (*commit)(void *ctx);
	void *commit_ctx;
};

/*
 * Copy slots (Documentation/eagerwrite.rst, "Journal copies").  A slot
 * is FREE (on copy_free), RESERVED by a write in flight, LIVE (its COPY
 * record logged at seq; dirty until the commit wrote it) or RELEASED
 * (its UNCOPY logged at seq, on copy_fifo until that block is durable
 * and the entry let it go: a slot is reused only after the record that
 * made it unneeded is durable, so that a replay never finds a COPY whose
 * slot holds another block).  A copy ends when its delayed entry ends
 * (ew_md_copy_release) or, earlier, when a newer write of its block
 * commits (ew_md_log_write): the UNCOPY then goes in the journal block
 * of the write's records, so that a replay never restores a copy older
 * than a durable write.  The data of a dirty slot is a page of the target's pool,
 * shared with the delayed entry that holds the copy: when the entry
 * gives it up first (page_owned), the commit gives it back through
 * page_put after writing it.
 */
enum {
	EW_MD_COPY_FREE,
	EW_MD_COPY_RESERVED,
	EW_MD_COPY_LIVE,
	EW_MD_COPY_RELEASED,
};

struct ew_md_copy {
	struct hlist_node hnode;	/* copy_hash, while LIVE */
	u64 lblock;
	u64 seq;
	struct page *page;		/* while dirty */
	u32 gen;
	u8 state;
	bool dirty;
	bool page_owned;
	bool held;			/* by its delayed entry */
};

/* ---------------------------------------------------------------- */
/* I/O: synchronous dm_io, from process context only. */

static int ew_md_rw_at(struct ew_md *md, struct block_device *bdev,
		       sector_t off, blk_opf_t opf, void *buf, u64 blocknr,
		       u32 nblocks)
{
	struct dm_io_region where = {
		.bdev = bdev,
		.sector = off + blocknr * EW_META_BLOCK_SECTORS,
		.count = (sector_t)nblocks * EW_META_BLOCK_SECTORS,
	};
	struct dm_io_request req = {
		.bi_opf = opf,
		.client = md->io,
	};
	unsigned long err = 0;
	int ret;

	if (is_vmalloc_addr(buf)) {
		req.mem.type = DM_IO_VMA;
		req.mem.ptr.vma = buf;
	} else {
		req.mem.type = DM_IO_KMEM;
		req.mem.ptr.addr = buf;
	}
	ret = dm_io(&req, 1, &where, &err, IOPRIO_DEFAULT);
	if (!ret && err)
		ret = -EIO;
	return ret;
}

/* A member label (at the start of the device). */
static int ew_md_rw(struct ew_md *md, struct block_device *bdev,
		    blk_opf_t opf, void *buf, u64 blocknr, u32 nblocks)
{
	return ew_md_rw_at(md, bdev, 0, opf, buf, blocknr, nblocks);
}

static int ew_md_read(struct ew_md *md, struct block_device *bdev, void *buf,
		      u64 blocknr, u32 nblocks)
{
	return ew_md_rw(md, bdev, REQ_OP_READ, buf, blocknr, nblocks);
}

/* Metadata block blocknr of copy c. */
static int ew_md_crw(struct ew_md *md, u32 c, blk_opf_t opf, void *buf,
		     u64 blocknr, u32 nblocks)
{
	return ew_md_rw_at(md, md->mdev[c], md->moff[c], opf, buf, blocknr,
			   nblocks);
}

static int ew_md_cread(struct ew_md *md, u32 c, void *buf, u64 blocknr,
		       u32 nblocks)
{
	return ew_md_crw(md, c, REQ_OP_READ, buf, blocknr, nblocks);
}

/*
 * One dm_io request of buf to the metadata copies in mask (nblocks 0: an
 * empty flush).  Bit c of *bad: copy c failed it.
 */
static void ew_md_mio(struct ew_md *md, u32 mask, blk_opf_t opf, void *buf,
		      u64 blocknr, u32 nblocks, u32 *bad)
{
	struct dm_io_region where[EW_META_MAX_COPIES];
	struct dm_io_request req = {
		.bi_opf = opf,
		.client = md->io,
	};
	u32 idx[EW_META_MAX_COPIES], n = 0, c;
	unsigned long err = 0;
	int ret;

	for (c = 0; c < md->nmdev; c++) {
		if (!(mask & BIT(c)))
			continue;
		where[n].bdev = md->mdev[c];
		where[n].sector = md->moff[c] + blocknr * EW_META_BLOCK_SECTORS;
		where[n].count = (sector_t)nblocks * EW_META_BLOCK_SECTORS;
		idx[n++] = c;
	}
	*bad = 0;
	if (!n)
		return;
	if (buf && is_vmalloc_addr(buf)) {
		req.mem.type = DM_IO_VMA;
		req.mem.ptr.vma = buf;
	} else {
		req.mem.type = DM_IO_KMEM;
		req.mem.ptr.addr = buf;
	}
	ret = dm_io(&req, n, where, &err, IOPRIO_DEFAULT);
	for (c = 0; c < n; c++)
		if (err & BIT(c))
			*bad |= BIT(idx[c]);
	if (ret && !*bad)
		*bad = mask;
}

/* Copies no longer written: said, and the target told (process context). */
static void ew_md_mdrop(struct ew_md *md, u32 bad, const char *why)
{
	u32 c;

	bad &= md->mlive;
	for (c = 0; c < md->nmdev; c++)
		if (bad & BIT(c))
			DMERR("metadata copy %u (%pg): %s: no longer written, marked stale",
			      c, md->mdev[c], why);
	spin_lock_irq(md->lock);
	md->mlive &= ~bad;
	if (md->mlive && !(md->mlive & BIT(md->msrc)))
		md->msrc = __ffs(md->mlive);
	spin_unlock_irq(md->lock);
	if (md->event)
		md->event(md->event_ctx);
}

static int ew_md_write_sb(struct ew_md *md, struct ew_meta_sb *sb);

/*
 * A write failed on the copies in bad and reached the others: the
 * survivors' superblock says so (a new generation) before the write
 * counts as done.
 */
static int ew_md_mlost(struct ew_md *md, u32 bad, const char *why)
{
	struct ew_meta_sb nsb = md->sb;
	int ret;

	ew_md_mdrop(md, bad, why);
	ew_meta_sb_set_flags(&nsb, nsb.flags);
	ret = ew_md_write_sb(md, &nsb);
	if (!ret)
		md->sb = nsb;
	return ret;
}

/* A metadata write to every live copy; see "Metadata copies" above. */
static int ew_md_mwrite(struct ew_md *md, blk_opf_t opf, void *buf,
			u64 blocknr, u32 nblocks)
{
	u32 bad;

	ew_md_mio(md, md->mlive, opf, buf, blocknr, nblocks, &bad);
	if (!bad)
		return 0;
	if (bad == md->mlive || md->opening)
		return -EIO;
	return ew_md_mlost(md, bad, nblocks ? "write failed" : "flush failed");
}

/*
 * A metadata read from msrc; on an I/O error, from another live copy
 * (counted; the bad copy is left to the write that next covers it or to
 * the resync of the next load).
 */
static int ew_md_mread(struct ew_md *md, void *buf, u64 blocknr, u32 nblocks)
{
	u32 c;
	int ret, ret2;

	ret = ew_md_cread(md, md->msrc, buf, blocknr, nblocks);
	if (!ret)
		return 0;
	for (c = 0; c < md->nmdev; c++) {
		if (c == md->msrc || !(md->mlive & BIT(c)))
			continue;
		ret2 = ew_md_cread(md, c, buf, blocknr, nblocks);
		if (ret2)
			continue;
		DMWARN_LIMIT("metadata copy %u: read error (%d) at block %llu: used copy %u",
			     md->msrc, ret, blocknr, c);
		spin_lock_irq(md->lock);
		md->mrepairs += nblocks;
		spin_unlock_irq(md->lock);
		return 0;
	}
	return ret;
}

/*
 * Empty REQ_PREFLUSH to the members in mask, in parallel.  Called with
 * io_mutex held: the regions are md's (64 of them on the stack came to
 * over 2 KiB of frame with KASAN).  A member whose queue has no volatile
 * write cache is not asked: the block layer would complete the empty
 * flush at once without reaching the device (submit_bio_noacct()), so
 * asking costs a dm_io round trip and proves nothing (a stacked device
 * reports the cache of what is under it).
 */
static int ew_md_flush_members(struct ew_md *md, u64 mask, u64 *failed)
{
	struct dm_io_region *where = md->flush_where;
	struct dm_io_request req = {
		.bi_opf = REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC,
		.mem.type = DM_IO_KMEM,
		.mem.ptr.addr = NULL,
		.client = md->io,
	};
	u32 *idx = md->flush_idx, n = 0, i;
	unsigned long err = 0;
	int ret;

	lockdep_assert_held(&md->io_mutex);
	*failed = 0;
	for (i = 0; i < md->nr; i++) {
		if (!(mask & BIT_ULL(i)) || !md->data[i] ||
		    !bdev_write_cache(md->data[i]))
			continue;
		where[n].bdev = md->data[i];
		where[n].sector = 0;
		where[n].count = 0;
		idx[n++] = i;
	}
	if (!n)
		return 0;
	ret = dm_io(&req, n, where, &err, IOPRIO_DEFAULT);
	for (i = 0; i < n; i++)
		if (err & BIT(i))
			*failed |= BIT_ULL(idx[i]);
	return ret;
}

static int ew_md_flush_meta(struct ew_md *md)
{
	return ew_md_mwrite(md, REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC, NULL,
			    0, 0);
}

/* The latch: from here on nothing is written to the metadata device. */
static void ew_md_fail(struct ew_md *md, const char *what, int err)
{
	unsigned long flags;
	bool first;

	spin_lock_irqsave(md->lock, flags);
	first = !md->failed;
	WRITE_ONCE(md->failed, true);
	spin_unlock_irqrestore(md->lock, flags);
	if (first)
		DMERR("metadata %s failed (%d): array is read-only, writes fail",
		      what, err);
}

bool ew_md_failed(struct ew_md *md)
{
	return READ_ONCE(md->failed);
}

/*
 * The superblock sb to every live copy, each saying which copy it is and
 * which copies are stale (one copy: the zeros of an array without copies).
 * A copy that fails it is dropped and the survivors get the next
 * generation saying so: sb is then that generation.
 */
static int ew_md_write_sb(struct ew_md *md, struct ew_meta_sb *sb)
{
	u32 c, bad;
	u64 bn;

	for (;;) {
		bad = 0;
		sb->meta_copies = md->nmdev > 1 ? md->nmdev : 0;
		sb->meta_stale = md->nmdev > 1 ?
			~md->mlive & (BIT(md->nmdev) - 1) : 0;
		for (c = 0; c < md->nmdev; c++) {
			if (!(md->mlive & BIT(c)))
				continue;
			sb->meta_copy = c;
			bn = ew_meta_sb_encode(sb, md->sbbuf);
			if (ew_md_crw(md, c, REQ_OP_WRITE |
				      REQ_PREFLUSH | REQ_FUA | REQ_SYNC,
				      md->sbbuf, bn, 1))
				bad |= BIT(c);
		}
		sb->meta_copy = 0;
		if (!bad)
			return 0;
		if (bad == md->mlive || md->opening) {
			ew_md_fail(md, "superblock write", -EIO);
			return -EIO;
		}
		ew_md_mdrop(md, bad, "superblock write failed");
		ew_meta_sb_set_flags(sb, sb->flags);
	}
}

/*
 * A new superblock generation naming the same checkpoint and journal,
 * with flags; io_mutex held.
 */
static int ew_md_set_flags(struct ew_md *md, u32 flags)
{
	struct ew_meta_sb nsb = md->sb;
	int ret;

	ew_meta_sb_set_flags(&nsb, flags);
	ret = ew_md_write_sb(md, &nsb);
	if (!ret)
		md->sb = nsb;
	return ret;
}

/* ---------------------------------------------------------------- */
/* The journal, under the lock. */

static u64 ew_md_free_bufs(struct ew_md *md)
{
	return EW_MD_JBUFS - (md->open_seq - md->durable_seq);
}

/* Records the open block and the free buffers are sure to take. */
static u64 ew_md_capacity(struct ew_md *md)
{
	u32 left = EW_META_JREC_PER_BLOCK - md->open.nr;

	left = left >= md->unit_max ? left - (md->unit_max - 1) : 0;
	return left + ew_md_free_bufs(md) * md->unit_block;
}

bool ew_md_room(struct ew_md *md, u32 units)
{
	lockdep_assert_held(md->lock);
	return md->failed ||
	       md->resv + units + md->unit_block <= ew_md_capacity(md);
}

bool ew_md_reserve(struct ew_md *md, u32 units)
{
	if (!ew_md_room(md, units))
		return false;
	if (!md->failed)
		md->resv += units;
	return true;
}

void ew_md_unreserve(struct ew_md *md, u32 units)
{
	lockdep_assert_held(md->lock);
	if (md->failed)
		return;
	if (WARN_ON_ONCE(md->resv < units))
		units = md->resv;
	md->resv -= units;
}

/*
 * Closes the open block: no record goes into it any more.  Its header
 * and checksums (and the second copy) are written by the commit, in
 * process context just before the block's write (ew_md_jblk_encode()),
 * not here, where the write that filled the block holds *lock with
 * interrupts off: an 8 KiB checksum and copy off the I/O path.
 */
static void ew_md_seal_open(struct ew_md *md)
{
	u32 b = md->open_seq % EW_MD_JBUFS;

	md->jnr[b] = md->open.nr;
	md->jmark[b] = md->dfree->tail;
	md->open_seq++;
	ew_meta_jbuf_init(&md->open, md->jblk[md->open_seq % EW_MD_JBUFS]);
}

/* Makes room in the open block for units records; false: a bug. */
static bool ew_md_make_room(struct ew_md *md, u32 units)
{
	if (EW_META_JREC_PER_BLOCK - md->open.nr >= units)
		return true;
	if (WARN_ON_ONCE(!ew_md_free_bufs(md)))
		return false;
	ew_md_seal_open(md);
	/*
	 * Half the buffers sealed and not yet durable: a commit now, to
	 * write them while the writes fill the other half, rather than
	 * when the writes find no room and wait for it (ew_md_room()).
	 */
	if (md->open_seq - md->durable_seq >= EW_MD_JBUFS / 2 && md->commit)
		md->commit(md->commit_ctx);
	return true;
}

u64 ew_md_log_bg(struct ew_md *md, u64 lblock, u8 replicas)
{
	u32 units = replicas ? hweight8(replicas) : 1;

	lockdep_assert_held(md->lock);
	if (md->failed)
		return 0;
	ew_md_unreserve(md, units);
	if (!ew_md_make_room(md, units) ||
	    ew_meta_jbuf_log_block(&md->open, md->map, lblock, replicas)) {
		WRITE_ONCE(md->failed, true);
		DMERR_LIMIT("journal overflow: array is read-only");
		return 0;
	}
	return md->open_seq;
}

/* A flush waits for the journal block holding seq (0: nothing logged). */
static u64 ew_md_mark(struct ew_md *md, u64 seq)
{
	if (seq)
		md->flush_mark = seq;
	return seq;
}

u64 ew_md_log_block(struct ew_md *md, u64 lblock, u8 replicas)
{
	return ew_md_mark(md, ew_md_log_bg(md, lblock, replicas));
}

struct ew_md_copy;
static struct ew_md_copy *ew_md_copy_lookup(struct ew_md *md, u64 lblock);
static void ew_md_copy_end(struct ew_md *md, struct ew_md_copy *c, u32 slot);

u64 ew_md_log_write(struct ew_md *md, u64 lblock, u8 replicas)
{
	struct ew_md_copy *c = NULL;
	u32 units = hweight8(replicas);

	lockdep_assert_held(md->lock);
	if (md->copy_nr)
		c = ew_md_copy_lookup(md, lblock);
	if (!c || md->failed)
		return ew_md_log_block(md, lblock, replicas);
	/* the write's records and the older copy's UNCOPY in one block */
	if (!ew_md_make_room(md, units + 1)) {
		WRITE_ONCE(md->failed, true);
		DMERR_LIMIT("journal overflow: array is read-only");
		return 0;
	}
	ew_md_log_block(md, lblock, replicas);
	ew_md_copy_end(md, c, c - md->copy);
	return ew_md_mark(md, md->open_seq);
}

u64 ew_md_log_discard(struct ew_md *md, u64 lblock, u32 count)
{
	lockdep_assert_held(md->lock);
	if (md->failed)
		return 0;
	ew_md_unreserve(md, 1);
	if (!ew_md_make_room(md, 1) ||
	    ew_meta_jbuf_log_discard(&md->open, lblock, count)) {
		WRITE_ONCE(md->failed, true);
		DMERR_LIMIT("journal overflow: array is read-only");
		return 0;
	}
	return ew_md_mark(md, md->open_seq);
}

void ew_md_member_dirty(struct ew_md *md, u32 disk, bool sole)
{
	lockdep_assert_held(md->lock);
	md->dirty |= BIT_ULL(disk);
	if (sole)
		md->dirty_sole |= BIT_ULL(disk);
}

u64 ew_md_lost_seq(struct ew_md *md, u64 *first)
{
	lockdep_assert_held(md->lock);
	*first = md->lost_first;
	return md->lost_seq;
}

u64 ew_md_flush_seq(struct ew_md *md)
{
	u64 s;

	lockdep_assert_held(md->lock);
	s = md->flush_mark;
	return s > md->durable_seq ? s : 0;
}

u64 ew_md_durable_seq(struct ew_md *md)
{
	lockdep_assert_held(md->lock);
	return md->durable_seq;
}

u64 ew_md_dfree_safe(struct ew_md *md)
{
	lockdep_assert_held(md->lock);
	if (md->failed)
		return md->dfree_safe;
	/* nothing logged that is not durable: every free so far is safe */
	if (ew_meta_jbuf_empty(&md->open) &&
	    md->durable_seq + 1 == md->open_seq)
		return md->dfree->tail;
	return md->dfree_safe;
}

void ew_md_stats(struct ew_md *md, struct ew_md_stats *st)
{
	lockdep_assert_held(md->lock);
	st->failed = md->failed;
	st->journal_seq = md->open_seq;
	st->durable_seq = md->durable_seq;
	st->commits = md->commits;
	st->checkpoints = md->checkpoints;
	st->ckpt_done = md->ck_active ? md->ck_idx : 0;
	st->ckpt_total = md->ck_active ? md->sb.ckpt_blocks : 0;
}

/* io_mutex held: the checkpoint in progress, or none. */
static void ew_md_ck_set(struct ew_md *md, bool active, u64 idx)
{
	spin_lock_irq(md->lock);
	md->ck_active = active;
	md->ck_idx = idx;
	spin_unlock_irq(md->lock);
}

/* ---------------------------------------------------------------- */
/* Copy slots, under the lock (see "Copy slots" above). */

u32 ew_md_copy_slots(struct ew_md *md)
{
	return md->copy_nr;
}

static struct hlist_head *ew_md_copy_bucket(struct ew_md *md, u64 lblock)
{
	return &md->copy_hash[hash_64(lblock, EW_MD_COPY_HASH_BITS)];
}

/* Released slots whose UNCOPY is durable become free. */
static void ew_md_copy_reclaim(struct ew_md *md)
{
	struct ew_md_copy *c;
	u32 slot;

	while (md->copy_fcount) {
		slot = md->copy_fifo[md->copy_fhead];
		c = &md->copy[slot];
		if (c->seq > md->durable_seq && !md->failed)
			break;
		md->copy_fhead = (md->copy_fhead + 1) % md->copy_nr;
		md->copy_fcount--;
		c->state = EW_MD_COPY_FREE;
		md->copy_free[md->copy_nfree++] = slot;
	}
}

int ew_md_copy_get(struct ew_md *md)
{
	u32 slot;

	lockdep_assert_held(md->lock);
	if (!md->copy_nr || md->copy_hold)
		return -1;
	ew_md_copy_reclaim(md);
	if (!md->copy_nfree)
		return -1;
	slot = md->copy_free[--md->copy_nfree];
	md->copy[slot].state = EW_MD_COPY_RESERVED;
	return slot;
}

bool ew_md_copy_room(struct ew_md *md)
{
	lockdep_assert_held(md->lock);
	if (md->copy_hold)
		return false;
	ew_md_copy_reclaim(md);
	return md->copy_nfree;
}

/* A checkpoint waits for the live copies to end: each end is news. */
bool ew_md_copy_held(struct ew_md *md)
{
	lockdep_assert_held(md->lock);
	return md->copy_hold;
}

/* Pages md still holds go back before the pool is freed (destructor). */
void ew_md_copy_drop_pages(struct ew_md *md)
{
	u32 i;

	lockdep_assert_held(md->lock);
	for (i = 0; i < md->copy_nr; i++) {
		struct ew_md_copy *c = &md->copy[i];

		if (c->page_owned)
			md->page_put(md->page_ctx, c->page);
		c->page = NULL;
		c->page_owned = false;
	}
}

void ew_md_copy_cancel(struct ew_md *md, u32 slot)
{
	lockdep_assert_held(md->lock);
	if (WARN_ON_ONCE(md->copy[slot].state != EW_MD_COPY_RESERVED))
		return;
	md->copy[slot].state = EW_MD_COPY_FREE;
	md->copy_free[md->copy_nfree++] = slot;
}

static u64 ew_md_log_copy(struct ew_md *md, u64 lblock, u32 slot, bool copy)
{
	if (md->failed)
		return 0;
	ew_md_unreserve(md, 1);
	if (!ew_md_make_room(md, 1) ||
	    ew_meta_jbuf_log_copy(&md->open, lblock, slot, copy)) {
		WRITE_ONCE(md->failed, true);
		DMERR_LIMIT("journal overflow: array is read-only");
		return 0;
	}
	return md->open_seq;
}

u64 ew_md_copy_log(struct ew_md *md, u32 slot, u64 lblock, u32 gen,
		   struct page *page)
{
	struct ew_md_copy *c = &md->copy[slot];

	lockdep_assert_held(md->lock);
	if (WARN_ON_ONCE(c->state != EW_MD_COPY_RESERVED))
		return 0;
	c->state = EW_MD_COPY_LIVE;
	c->lblock = lblock;
	c->gen = gen;
	c->page = page;
	c->page_owned = false;
	c->held = true;
	hlist_add_head(&c->hnode, ew_md_copy_bucket(md, lblock));
	c->seq = ew_md_mark(md, ew_md_log_copy(md, lblock, slot, true));
	c->dirty = true;
	md->copy_dirty[(md->copy_dhead + md->copy_dcount++) % md->copy_nr] =
		slot;
	return c->seq;
}

/* UNCOPY: the copy is no longer needed (its unit was reserved). */
static void ew_md_copy_end(struct ew_md *md, struct ew_md_copy *c, u32 slot)
{
	hlist_del_init(&c->hnode);
	c->state = EW_MD_COPY_RELEASED;
	c->seq = ew_md_log_copy(md, c->lblock, slot, false);
}

bool ew_md_copy_release(struct ew_md *md, u32 slot)
{
	struct ew_md_copy *c = &md->copy[slot];
	bool keep = false;

	lockdep_assert_held(md->lock);
	if (WARN_ON_ONCE(!c->held))
		return false;
	if (c->dirty) {
		/* the commit writes it, then gives the page back */
		c->page_owned = true;
		keep = true;
	} else {
		c->page = NULL;
	}
	c->held = false;
	/* not ended already by a newer write of the block */
	if (c->state == EW_MD_COPY_LIVE)
		ew_md_copy_end(md, c, slot);
	md->copy_fifo[(md->copy_fhead + md->copy_fcount++) % md->copy_nr] =
		slot;
	return keep;
}

static struct ew_md_copy *ew_md_copy_lookup(struct ew_md *md, u64 lblock)
{
	struct ew_md_copy *c;

	hlist_for_each_entry(c, ew_md_copy_bucket(md, lblock), hnode)
		if (c->lblock == lblock)
			return c;
	return NULL;
}

struct page *ew_md_copy_find(struct ew_md *md, u64 lblock, u32 gen)
{
	struct ew_md_copy *c;

	lockdep_assert_held(md->lock);
	if (!md->copy_nr)
		return NULL;
	c = ew_md_copy_lookup(md, lblock);
	return c && c->gen == gen ? c->page : NULL;
}

int ew_md_copy_recovered(struct ew_md *md, u32 from, u64 *lblock)
{
	u32 i;

	lockdep_assert_held(md->lock);
	for (i = from; i < md->copy_nr; i++) {
		struct ew_md_copy *c = &md->copy[i];

		if (c->state == EW_MD_COPY_LIVE && !c->held) {
			*lblock = c->lblock;
			return i;
		}
	}
	return -1;
}

void ew_md_copy_adopt(struct ew_md *md, u32 slot, u32 gen,
		      struct page *page)
{
	struct ew_md_copy *c = &md->copy[slot];

	lockdep_assert_held(md->lock);
	c->held = true;
	c->gen = gen;
	c->page = page;
}

void ew_md_copy_drop(struct ew_md *md, u32 slot)
{
	struct ew_md_copy *c = &md->copy[slot];

	lockdep_assert_held(md->lock);
	c->held = true;
	ew_md_copy_release(md, slot);
}

int ew_md_copy_read(struct ew_md *md, u32 slot, void *buf)
{
	struct ew_md_copy *c = &md->copy[slot];
	void *data = md->iobuf + EW_META_BLOCK_SIZE;
	const char *why;
	int ret;

	mutex_lock(&md->io_mutex);
	ret = ew_md_mread(md, md->iobuf, ew_meta_copy_blocknr(&md->sb, slot),
			  md->sb.copy_slot_blocks);
	if (!ret) {
		ret = ew_meta_copy_check(&md->sb, slot, c->lblock, c->seq,
					 md->iobuf, data, &why);
		if (ret)
			DMERR("journal copy slot %u (block %llu): %s", slot,
			      c->lblock, why);
		else
			memcpy(buf, data, md->sb.block_size);
	}
	mutex_unlock(&md->io_mutex);
	return ret;
}

void ew_md_mcopies(struct ew_md *md, u32 *n, u32 *live, u64 *repairs)
{
	lockdep_assert_held(md->lock);
	*n = md->nmdev;
	*live = md->mlive;
	*repairs = md->mrepairs;
}

void ew_md_copy_stats(struct ew_md *md, u32 *used, u32 *total)
{
	lockdep_assert_held(md->lock);
	*total = md->copy_nr;
	*used = md->copy_nr - md->copy_nfree;
}

/*
 * A checkpoint ends every copy the journal before it named: each live
 * one whose COPY record is before journal block start (the first the new
 * superblock replays) is logged again (COPY) in the open block, without
 * rewriting its slot, whose header keeps the older seq
 * (ew_meta_copy_check() takes a header older than the replayed journal).
 * A copy whose COPY is in block start or later is replayed as it is; a
 * second record would give it a seq its header does not hold, and
 * recovery would refuse the slot.  The periodic checkpoint carries them
 * only when all fit (ew_md_copy_uncarried(), ew_md_room()), else it waits
 * (ew_md_checkpoint_due()); the others (suspend, load, member
 * replacement) do not wait: these records were not reserved, and one
 * that finds no room is not logged, said loudly (a crash after this
 * checkpoint would not restore that copy).
 */
static bool ew_md_copy_before(const struct ew_md_copy *c, u64 start)
{
	return c->seq < start;
}

static u32 ew_md_copy_uncarried(struct ew_md *md, u64 start)
{
	struct ew_md_copy *c;
	u32 b, n = 0;

	for (b = 0; b < ARRAY_SIZE(md->copy_hash); b++)
		hlist_for_each_entry(c, &md->copy_hash[b], hnode)
			n += ew_md_copy_before(c, start);
	return n;
}

static void ew_md_copy_carry(struct ew_md *md, u64 start)
{
	struct ew_md_copy *c;
	u32 b, dropped = 0;

	for (b = 0; b < ARRAY_SIZE(md->copy_hash); b++) {
		hlist_for_each_entry(c, &md->copy_hash[b], hnode) {
			if (!ew_md_copy_before(c, start))
				continue;
			if (md->failed || !ew_md_room(md, 1) ||
			    !ew_md_make_room(md, 1) ||
			    ew_meta_jbuf_log_copy(&md->open, c->lblock,
						  c - md->copy, true)) {
				dropped++;
				continue;
			}
		}
	}
	if (dropped)
		DMERR("checkpoint: %u journal copies not carried (no journal room)",
		      dropped);
}

/*
 * Process context, io_mutex held: writes the first n dirty slots (those
 * filled before the commit sealed its blocks), each a header and its
 * data in one write, before the journal blocks naming them.  The first
 * journal write's REQ_PREFLUSH (ncopies > 0) makes them durable first.
 */
static int ew_md_copy_write(struct ew_md *md, u32 n)
{
	void *hdr = md->iobuf, *data = md->iobuf + EW_META_BLOCK_SIZE;
	struct ew_md_copy *c;
	u64 blocknr;
	u32 slot;
	int ret;

	for (; n; n--) {
		spin_lock_irq(md->lock);
		if (md->failed || !md->copy_dcount) {
			spin_unlock_irq(md->lock);
			break;
		}
		slot = md->copy_dirty[md->copy_dhead];
		md->copy_dhead = (md->copy_dhead + 1) % md->copy_nr;
		md->copy_dcount--;
		c = &md->copy[slot];
		memcpy(data, page_address(c->page), md->jsb.block_size);
		blocknr = ew_meta_copy_encode(&md->jsb, slot, c->lblock, c->seq,
					      data, hdr);
		c->dirty = false;
		if (c->page_owned) {
			md->page_put(md->page_ctx, c->page);
			c->page = NULL;
			c->page_owned = false;
		}
		spin_unlock_irq(md->lock);
		ret = ew_md_mwrite(md, REQ_OP_WRITE | REQ_SYNC, md->iobuf,
				   blocknr, md->jsb.copy_slot_blocks);
		if (ret) {
			ew_md_fail(md, "copy slot write", ret);
			return ret;
		}
	}
	return 0;
}

u64 ew_md_member_errors(struct ew_md *md)
{
	u64 e;

	spin_lock_irq(md->lock);
	e = md->member_errors;
	md->member_errors = 0;
	spin_unlock_irq(md->lock);
	return e;
}

/* ---------------------------------------------------------------- */
/* Commit and checkpoint: process context, io_mutex held. */

static int __ew_md_set_member_state(struct ew_md *md, u64 failed,
				    u64 rebuilding);

/* Copy 0 of live journal block seq (io_mutex held). */
static u64 ew_md_jbn(struct ew_md *md, u64 seq)
{
	u64 i;

	if (!md->sb.jfree)
		return ew_meta_journal_blocknr(&md->sb, seq);
	div64_u64_rem(seq, md->sb.journal_slots, &i);
	return ew_meta_jslot_blocknr(&md->sb, md->jslot_of[i]);
}

static bool ew_md_jslot_free(struct ew_md *md, u32 slot)
{
	return md->jslot_seq[slot] < md->sb.journal_seq;
}

static bool ew_md_jslot_free_cb(void *ctx, u32 slot)
{
	return ew_md_jslot_free(ctx, slot);
}

/*
 * The holders' predicted heads choose (on the members: the target's
 * placement, ew_place_jslot()); md->jq keeps the question for jdone.
 */
static u32 ew_md_jslot_place(struct ew_md *md)
{
	struct ew_md_jplace *q = &md->jq;
	u32 c, slot;

	q->nslots = md->sb.journal_slots;
	md->jq_slot = q->nslots;
	if (!md->jplace)
		return q->nslots;
	q->nholders = 0;
	for (c = 0; c < md->nmdev; c++) {
		if (!(md->mlive & BIT(c)) || md->mmember[c] < 0)
			continue;
		q->holder[q->nholders++] = md->mmember[c];
		q->lba0 = md->moff[c] + md->sb.journal_start *
			  EW_META_BLOCK_SECTORS;
	}
	if (!q->nholders)
		return q->nslots;
	q->slot_sectors = EW_META_JOURNAL_COPIES * EW_META_BLOCK_SECTORS;
	q->hint = md->jnext;
	q->is_free = ew_md_jslot_free_cb;
	q->ctx = md;
	spin_lock_irq(md->lock);
	slot = md->jplace(md->jplace_ctx, q);
	spin_unlock_irq(md->lock);
	if (slot < q->nslots && ew_md_jslot_free(md, slot))
		md->jq_slot = slot;
	return md->jq_slot;
}

/*
 * jfree: the slot journal block seq goes to.  A slot is free when the
 * block it holds is older than the durable superblock's journal_seq (a
 * recovery never reads it again); the journal never holds more than
 * journal_slots live blocks (ew_meta_journal_full()), so there is one.
 */
static u32 ew_md_jslot_pick(struct ew_md *md, u64 seq)
{
	u32 n = md->sb.journal_slots, slot, k;
	u64 i;

	slot = ew_md_jslot_place(md);
	if (slot >= n) {
		slot = md->jnext;
		for (k = 0; k < n && !ew_md_jslot_free(md, slot); k++)
			slot = slot + 1 < n ? slot + 1 : 0;
	}
	md->jnext = slot + 1 < n ? slot + 1 : 0;
	md->jslot_seq[slot] = seq;
	div64_u64_rem(seq, md->sb.journal_slots, &i);
	md->jslot_of[i] = slot;
	return slot;
}

/* jfree: the slot arrays, all free (io_mutex held, or opening). */
static int ew_md_jslots_alloc(struct ew_md *md)
{
	if (!md->sb.jfree)
		return 0;
	kvfree(md->jslot_seq);
	kvfree(md->jslot_of);
	md->jslot_seq = kvcalloc(md->sb.journal_slots, sizeof(u64),
				 GFP_KERNEL);
	md->jslot_of = kvcalloc(md->sb.journal_slots, sizeof(u32),
				GFP_KERNEL);
	md->jnext = 0;
	return md->jslot_seq && md->jslot_of ? 0 : -ENOMEM;
}

/*
 * A sealed block's header, checksum and second copy, for its write (at
 * the slot chosen now, with jfree).  Process context, io_mutex held:
 * nothing else writes a sealed block (records go to the open one) until
 * it is durable and reused.
 */
static void ew_md_jblk_encode(struct ew_md *md, u64 seq)
{
	u32 b = seq % EW_MD_JBUFS;
	struct ew_meta_jbuf j = { .blk = md->jblk[b], .nr = md->jnr[b] };

	if (md->sb.jfree)
		ew_md_jslot_pick(md, seq);
	ew_meta_jbuf_seal_at(&j, &md->jsb, seq, ew_md_jbn(md, seq));
}

static int __ew_md_commit(struct ew_md *md)
{
	u64 dirty, sole, last, s, bad, dead, first;
	u32 tries, ncopies;
	bool again;
	int ret;

	do {
		spin_lock_irq(md->lock);
		if (md->failed) {
			spin_unlock_irq(md->lock);
			return -EIO;
		}
		dirty = md->dirty;
		sole = md->dirty_sole;
		md->dirty = 0;
		md->dirty_sole = 0;
		again = false;
		if (!ew_meta_jbuf_empty(&md->open)) {
			if (ew_md_free_bufs(md))
				ew_md_seal_open(md);
			else
				again = true;	/* write the sealed ones first */
		}
		last = md->open_seq - 1;
		s = md->durable_seq;
		ncopies = md->copy_dcount;
		spin_unlock_irq(md->lock);
		if (last == s)
			return 0;

		/*
		 * 2. the data the records point at is durable first.  A
		 * member failed on disk is not asked (it may hang for the
		 * whole retry time): what it was given counts as lost.
		 */
		dead = dirty & md->sb.member_failed;
		ret = ew_md_flush_members(md, dirty & ~dead, &bad);
		/*
		 * A member whose flush fails is asked again for as long as
		 * the target's failure policy lets a member return errors
		 * (a transient fault, a dm-flakey down interval); only then
		 * is it reported, and the target fails it.
		 */
		for (tries = 0; bad && tries < EW_MD_FLUSH_TRIES; tries++) {
			msleep(EW_MD_FLUSH_RETRY_MS);
			ret = ew_md_flush_members(md, bad, &bad);
		}
		/*
		 * A member whose flush failed may have lost what it
		 * acknowledged: it is failed on disk (superblock, FUA)
		 * before any journal block of this commit can say its
		 * replicas are current, so that recovery never trusts
		 * them.  Writes whose only copy it held are lost: the
		 * commit records that (lost_seq) and the target fails the
		 * waiters it covers.  Its safe point for frees is not
		 * taken (see 4).
		 */
		if (bad) {
			DMERR_LIMIT("flush of members %llx failed: failing them",
				    bad);
			ret = __ew_md_set_member_state(md, md->sb.member_failed |
						       bad, md->sb.member_rebuilding &
						       ~bad);
			if (ret)
				return ret;
			spin_lock_irq(md->lock);
			md->member_errors |= bad;
			spin_unlock_irq(md->lock);
		}
		bad |= dead;
		if (bad & sole)
			DMERR("writes lost: members %llx held their only copy",
			      bad & sole);
		/*
		 * 2b. the copy slots its COPY records name, before them
		 * (journal copies: the second durable copy of a write)
		 */
		ret = ew_md_copy_write(md, ncopies);
		if (ret)
			return ret;
		/* 3. then the journal, one block after the other */
		first = s + 1;
		for (s = first; s <= last; s++) {
			if (WARN_ON_ONCE(ew_meta_journal_full(&md->sb, s))) {
				ew_md_fail(md, "journal (ring full)", -ENOSPC);
				return -EIO;
			}
			ew_md_jblk_encode(md, s);
			ret = ew_md_mwrite(md, REQ_OP_WRITE | REQ_FUA |
				       REQ_SYNC | (s == first && ncopies ?
						   REQ_PREFLUSH : 0),
				       md->jblk[s % EW_MD_JBUFS],
				       ew_md_jbn(md, s),
				       EW_META_JOURNAL_COPIES);
			if (ret) {
				ew_md_fail(md, "journal write", ret);
				return ret;
			}
			/* the holders' arms are at the slot now */
			if (md->jq_slot < md->jq.nslots && md->jdone)
				md->jdone(md->jplace_ctx, &md->jq, md->jq_slot);
			/* 4. durable: waiters and deferred frees may go */
			spin_lock_irq(md->lock);
			md->durable_seq = s;
			if (bad & sole) {
				md->lost_first = first;
				md->lost_seq = s;
			} else {
				md->dfree_safe = md->jmark[s % EW_MD_JBUFS];
			}
			spin_unlock_irq(md->lock);
		}
		spin_lock_irq(md->lock);
		md->commits++;
		if (md->copy_nr)
			ew_md_copy_reclaim(md);
		spin_unlock_irq(md->lock);
		/*
		 * During a periodic checkpoint a commit writes at most
		 * the buffers sealed when it began, EW_MD_JBUFS + 1
		 * blocks: the checkpoint's steps count on that bound
		 * (ew_md_checkpoint_step()); the rest is the next one's.
		 */
	} while (again && !md->ck_active);
	return 0;
}

int ew_md_commit(struct ew_md *md)
{
	int ret;

	mutex_lock(&md->io_mutex);
	ret = __ew_md_commit(md);
	mutex_unlock(&md->io_mutex);
	return ret;
}

/*
 * Journal slots the commits may still write before one would overwrite
 * a block the durable superblock needs, counting the buffers that may
 * fill before the next look.  io_mutex held.
 */
static u64 ew_md_ring_room(struct ew_md *md)
{
	u64 used;

	spin_lock_irq(md->lock);
	used = md->open_seq + EW_MD_JBUFS - md->sb.journal_seq;
	spin_unlock_irq(md->lock);
	return used < md->sb.journal_slots ? md->sb.journal_slots - used : 0;
}

/*
 * The on-disk journal is half full: checkpoint, long before a journal
 * block could overwrite one the durable superblock still needs.
 * io_mutex held.
 */
static bool ew_md_ring_half(struct ew_md *md)
{
	return md->sb.journal_slots - ew_md_ring_room(md) >=
	       md->sb.journal_slots / 2;
}

/* A periodic checkpoint in progress is due until it ends. */
bool ew_md_checkpoint_due(struct ew_md *md)
{
	bool due;

	mutex_lock(&md->io_mutex);
	due = !ew_md_failed(md) && (md->ck_active || ew_md_ring_half(md));
	/*
	 * The checkpoint carries the live copies (ew_md_copy_carry()).
	 * Only when their records did not fit in the journal's free room
	 * (copy_hold, set by the checkpoint that gave up) does it wait
	 * until none is live, no new one starting meanwhile (writes that
	 * want one wait); the delayed replicas that end them go on, and
	 * the target kicks a commit at each (ew_md_copy_held()).
	 */
	if (due && !md->ck_active && md->copy_nr) {
		spin_lock_irq(md->lock);
		if (md->copy_hold)
			due = md->copy_nfree + md->copy_fcount == md->copy_nr;
		spin_unlock_irq(md->lock);
	}
	mutex_unlock(&md->io_mutex);
	return due;
}

/*
 * Who asks for a checkpoint, which decides what it does when the live
 * journal copies do not fit in the journal's free room.
 */
enum ew_md_ck_mode {
	/* at load, clean shutdown or member replacement: carries them all */
	EW_MD_CK_ONCE,
	/* the journal's room: gives up and holds new copies until none */
	EW_MD_CK_PERIODIC,
	/* the checkpoint message, writes going on: gives up, holds nothing */
	EW_MD_CK_TRY,
};

/*
 * A checkpoint in three parts, io_mutex held in each (see "Checkpoints
 * between commits" at ew_md_checkpoint_step()).
 *
 * Begin.  Except EW_MD_CK_ONCE, it gives up (-EAGAIN, nothing written
 * but the commit, a checkpoint in progress left as it was) rather than
 * drop a live copy it cannot carry.
 */
static int ew_md_ckpt_begin(struct ew_md *md, enum ew_md_ck_mode mode)
{
	u64 start;
	int ret;

	/*
	 * What is logged so far goes to the journal first: when nothing
	 * changes meanwhile (a suspended array), the checkpoint leaves
	 * nothing to replay.
	 */
	ret = __ew_md_commit(md);
	if (ret)
		return ret;
	/*
	 * 1. every map change from here on is in journal block >= start;
	 * the live copies are named again there (carried)
	 */
	spin_lock_irq(md->lock);
	start = md->open_seq;
	if (mode != EW_MD_CK_ONCE && md->copy_nr &&
	    !ew_md_room(md, ew_md_copy_uncarried(md, start))) {
		if (mode == EW_MD_CK_PERIODIC)
			md->copy_hold = true;
		spin_unlock_irq(md->lock);
		return -EAGAIN;
	}
	md->ck_start = start;
	if (md->copy_nr)
		ew_md_copy_carry(md, md->ck_start);
	spin_unlock_irq(md->lock);
	md->ck_area = ew_meta_ckpt_next_area(&md->sb);
	md->ck_seq = ew_meta_ckpt_next_seq(&md->sb);
	ew_md_ck_set(md, true, 0);
	return 0;
}

/*
 * 2. the map, at most nblocks more of it, each block encoded under the
 * lock (a fuzzy copy: a change made after the block was encoded is in
 * the journal from ck_start, which recovery replays over it).
 */
static int ew_md_ckpt_write(struct ew_md *md, u64 nblocks)
{
	u64 end = min(md->ck_idx + nblocks, md->sb.ckpt_blocks), idx, i, n;
	int ret;

	for (idx = md->ck_idx; idx < end; idx += n) {
		n = min_t(u64, EW_MD_BULK_BLOCKS, end - idx);
		for (i = 0; i < n; i++) {
			spin_lock_irq(md->lock);
			ew_meta_ckpt_encode(&md->sb, md->map, md->ck_area,
					    md->ck_seq, idx + i,
					    md->iobuf + i * EW_META_BLOCK_SIZE);
			spin_unlock_irq(md->lock);
		}
		ret = ew_md_mwrite(md, REQ_OP_WRITE, md->iobuf,
				   md->sb.ckpt_start[md->ck_area] + idx, n);
		if (ret) {
			ew_md_ck_set(md, false, 0);
			ew_md_fail(md, "checkpoint write", ret);
			return ret;
		}
		ew_md_ck_set(md, true, idx + n);
		cond_resched();
	}
	return 0;
}

/* End: every map block written; durable, then named by the superblock. */
static int ew_md_ckpt_end(struct ew_md *md, bool clean)
{
	struct ew_meta_sb nsb;
	int ret;

	/* 3. what the journal holds up to now, and the checkpoint, durable */
	ret = __ew_md_commit(md);
	ew_md_ck_set(md, false, 0);
	if (ret)
		return ret;
	ret = ew_md_flush_meta(md);
	if (ret) {
		ew_md_fail(md, "metadata flush", ret);
		return ret;
	}
	/*
	 * 4. the superblock naming it, in the other slot; taken now, as a
	 * commit above may have failed a member (a new md->sb)
	 */
	nsb = md->sb;
	ew_meta_sb_commit_ckpt(&nsb, md->ck_area, md->ck_seq, md->ck_start);
	nsb.flags = clean ? EW_META_SB_CLEAN : 0;
	ret = ew_md_write_sb(md, &nsb);
	if (ret)
		return ret;
	md->sb = nsb;
	spin_lock_irq(md->lock);
	md->checkpoints++;
	md->copy_hold = false;
	spin_unlock_irq(md->lock);
	return 0;
}

/*
 * The whole checkpoint at once (load, clean shutdown, member
 * replacement, the message; io_mutex held).  A periodic one in progress
 * starts again, from its first block, not finished: the map may have
 * changed since without journal records (a member replaced: its
 * replicas made stale), which its blocks written so far do not hold;
 * nothing names that area before the end.
 */
static int __ew_md_checkpoint(struct ew_md *md, bool clean,
			      enum ew_md_ck_mode mode)
{
	int ret;

	ret = ew_md_ckpt_begin(md, mode);
	if (ret)
		return ret;
	ret = ew_md_ckpt_write(md, md->sb.ckpt_blocks);
	if (ret)
		return ret;
	return ew_md_ckpt_end(md, clean);
}

/*
 * Checkpoints between commits.  The periodic checkpoint runs on the
 * commit worker, a step per run, each step after that run's commit and
 * its waiters' completion: an fsync never waits for a whole checkpoint
 * (on a rotating metadata disk or a large array, tens of milliseconds
 * to seconds), only for the step in progress.  The commits between the
 * steps write journal blocks past ck_start.  The ring's blocks before
 * ck_start are free only once the superblock names the new area, so a
 * step writes enough of the map that the checkpoint ends before the
 * commits could reach a block the durable superblock needs: one commit
 * runs between two steps and, while a checkpoint is in progress, writes
 * at most EW_MD_CKPT_COMMIT blocks (__ew_md_commit()); a step leaves
 * room for three commits more than the steps of map it plans (the end's
 * step, its own commit, and one of slack), and writes the rest of the
 * map and ends at once when the room is down to that.  A step is at
 * least EW_MD_CKPT_STEP_MIN map blocks.  The WARN in
 * __ew_md_commit() stays the proof.  A crash before the superblock names
 * the new area recovers from the old one and the whole journal since, as
 * before.
 */
#define EW_MD_CKPT_COMMIT	(EW_MD_JBUFS + 1)
#define EW_MD_CKPT_STEP_MIN	EW_MD_IOBLOCKS	/* blocks a step, at least */

int ew_md_checkpoint_step(struct ew_md *md)
{
	u64 room, steps, left, n;
	int ret = 0;

	mutex_lock(&md->io_mutex);
	if (ew_md_failed(md)) {
		ret = -EIO;
		goto out;
	}
	if (!md->ck_active) {
		ret = ew_md_ckpt_begin(md, EW_MD_CK_PERIODIC);
		if (ret)
			goto out;
	}
	left = md->sb.ckpt_blocks - md->ck_idx;
	room = ew_md_ring_room(md);
	/*
	 * steps left, each after one commit of up to EW_MD_CKPT_COMMIT;
	 * the end (a commit, a flush, the superblock) is a step of its own
	 */
	steps = room / EW_MD_CKPT_COMMIT;
	steps = steps > 3 ? steps - 3 : 0;
	n = steps ? max_t(u64, DIV_ROUND_UP(left, steps),
			  EW_MD_CKPT_STEP_MIN) : left;
	if (left)
		ret = ew_md_ckpt_write(md, n);
	if (!ret && md->ck_idx == md->sb.ckpt_blocks && (!left || !steps)) {
		ret = ew_md_ckpt_end(md, false);
		if (!ret)
			md->map_changed = false;
	}
out:
	mutex_unlock(&md->io_mutex);
	return ret;
}

bool ew_md_checkpoint_active(struct ew_md *md)
{
	bool active;

	spin_lock_irq(md->lock);
	active = md->ck_active;
	spin_unlock_irq(md->lock);
	return active;
}

/*
 * A checkpoint unless nothing was logged since the last one and nothing
 * changed without a record (ew_md_map_changed()): then the flag is
 * enough.  io_mutex held, md not failed.
 */
static int ew_md_checkpoint_locked(struct ew_md *md, bool clean,
				   enum ew_md_ck_mode mode)
{
	bool idle;
	int ret;

	spin_lock_irq(md->lock);
	idle = ew_meta_jbuf_empty(&md->open) &&
	       md->open_seq == md->sb.journal_seq && md->sb.ckpt_seq &&
	       !md->map_changed && !md->ck_active;
	spin_unlock_irq(md->lock);
	if (!idle) {
		ret = __ew_md_checkpoint(md, clean, mode);
		if (!ret)
			md->map_changed = false;
		return ret;
	}
	if (!!(md->sb.flags & EW_META_SB_CLEAN) == clean)
		return 0;
	return ew_md_set_flags(md, clean ? EW_META_SB_CLEAN : 0);
}

int ew_md_checkpoint(struct ew_md *md, bool clean)
{
	int ret = -EIO;

	mutex_lock(&md->io_mutex);
	if (!ew_md_failed(md))
		ret = ew_md_checkpoint_locked(md, clean, EW_MD_CK_ONCE);
	mutex_unlock(&md->io_mutex);
	return ret;
}

/*
 * The checkpoint message: writes may go on, waiting for the journal
 * while it runs (io_mutex is held throughout, as the commits need it).
 * The superblock keeps its CLEAN flag: set only while the array is
 * suspended, when a checkpoint must not make it unclean.
 */
int ew_md_checkpoint_now(struct ew_md *md)
{
	int ret = -EIO;

	mutex_lock(&md->io_mutex);
	if (!ew_md_failed(md))
		ret = ew_md_checkpoint_locked(md, md->sb.flags &
					      EW_META_SB_CLEAN, EW_MD_CK_TRY);
	mutex_unlock(&md->io_mutex);
	return ret;
}

/*
 * Clean shutdown (the target's postsuspend: no bio in flight, nothing
 * copying).  What is logged is committed, then a superblock naming the
 * same checkpoint and journal says CLEAN: the next load replays a
 * journal that no write in flight can have torn, and a suspend costs a
 * commit and a superblock, not the whole map.  The map is written only
 * when a checkpoint is owed: the map changed without records, or a
 * periodic checkpoint is in progress or due (so that no load finds the
 * ring fuller than a running array lets it get before its checkpoint
 * begins).
 */
int ew_md_shutdown(struct ew_md *md)
{
	int ret = -EIO;

	mutex_lock(&md->io_mutex);
	if (ew_md_failed(md))
		goto out;
	if (md->map_changed || md->ck_active || ew_md_ring_half(md)) {
		ret = ew_md_checkpoint_locked(md, true, EW_MD_CK_ONCE);
		goto out;
	}
	ret = __ew_md_commit(md);
	if (!ret && !(md->sb.flags & EW_META_SB_CLEAN))
		ret = ew_md_set_flags(md, EW_META_SB_CLEAN);
out:
	mutex_unlock(&md->io_mutex);
	return ret;
}

void ew_md_map_changed(struct ew_md *md)
{
	mutex_lock(&md->io_mutex);
	md->map_changed = true;
	mutex_unlock(&md->io_mutex);
}

int ew_md_set_clean(struct ew_md *md, bool clean)
{
	int ret = -EIO;

	mutex_lock(&md->io_mutex);
	if (!ew_md_failed(md)) {
		ret = 0;
		if (!!(md->sb.flags & EW_META_SB_CLEAN) != clean)
			ret = ew_md_set_flags(md, clean ? EW_META_SB_CLEAN : 0);
	}
	mutex_unlock(&md->io_mutex);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Open: format or recover (on-disk-format.rst, "Recovery"). */

static const char *const ew_md_errors[] = {
	"Cannot read the metadata device",
	"Cannot read a data device's label",
	"Data device carries an eagerwrite label: zero its first 4 KiB to reuse it",
	"Cannot write the new metadata",
	"Cannot allocate the metadata buffers",
	"Cannot create an array with a missing data device",
	"Every replica of some blocks is on a missing, failed or unreadable data device",
	"No valid metadata copy: every copy is unreadable or corrupt",
	"Metadata copies belong to different arrays",
	"Cannot resynchronise a metadata copy",
};

#define E_MD_READ	ew_md_errors[0]
#define E_MD_LREAD	ew_md_errors[1]
#define E_MD_LABELLED	ew_md_errors[2]
#define E_MD_FORMAT	ew_md_errors[3]
#define E_MD_NOMEM	ew_md_errors[4]
#define E_MD_MISSING	ew_md_errors[5]
#define E_MD_TOO_FEW	ew_md_errors[6]
#define E_MD_NOCOPY	ew_md_errors[7]
#define E_MD_MUUID	ew_md_errors[8]
#define E_MD_MRESYNC	ew_md_errors[9]

/* What one metadata copy's superblock slots said at open. */
struct ew_md_mscan {
	int st;		/* 0 valid, -ENODATA zeros, -EIO unreadable, invalid */
	const char *why;
	u64 gen;
	u32 stale;	/* its meta_stale */
	u32 copy;	/* its meta_copy */
	u8 uuid[EW_META_UUID_SIZE];
};

/*
 * Reads every copy's superblock slots; *best: the valid copy with the
 * newest generation (the first of equals), or -1.  md->sb is scratch.
 */
static void ew_md_mscan(struct ew_md *md, struct ew_md_mscan *ms, int *best)
{
	u32 c, slot;

	*best = -1;
	for (c = 0; c < md->nmdev; c++) {
		memset(&ms[c], 0, sizeof(ms[c]));
		if (!md->mdev[c]) {
			/* on a member the table says is missing ("-") */
			DMWARN("metadata copy %u: on member %d, missing",
			       c, md->mmember[c]);
			ms[c].st = -EIO;
			ms[c].why = "missing";
			continue;
		}
		ms[c].st = ew_md_cread(md, c, md->iobuf, 0, 2);
		if (ms[c].st) {
			DMERR("metadata copy %u (%pg): superblock unreadable (%d)",
			      c, md->mdev[c], ms[c].st);
			ms[c].st = -EIO;
			ms[c].why = "unreadable";
			continue;
		}
		ms[c].st = ew_meta_sb_pick(md->iobuf, md->iobuf +
					   EW_META_BLOCK_SIZE, &md->sb, &slot,
					   &ms[c].why);
		if (ms[c].st == -ENODATA)
			ms[c].why = "blank (a new or replaced device)";
		if (ms[c].st)
			continue;
		ms[c].gen = md->sb.generation;
		ms[c].stale = md->sb.meta_stale;
		ms[c].copy = md->sb.meta_copy;
		memcpy(ms[c].uuid, md->sb.uuid, EW_META_UUID_SIZE);
		if (*best < 0 || ms[c].gen > ms[*best].gen)
			*best = c;
	}
}

/* Blocks from .. to - 1 of the source to the copies in mask, flushed. */
static int ew_md_mcopy(struct ew_md *md, u32 mask, u64 from, u64 to)
{
	u64 bn, n;
	u32 bad;
	int ret;

	for (bn = from; bn < to; bn += n) {
		n = min_t(u64, EW_MD_BULK_BLOCKS, to - bn);
		ret = ew_md_mread(md, md->iobuf, bn, n);
		if (ret)
			return ret;
		ew_md_mio(md, mask, REQ_OP_WRITE, md->iobuf, bn, n, &bad);
		if (bad)
			return -EIO;
		cond_resched();
	}
	ew_md_mio(md, mask, REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC, NULL, 0, 0,
		  &bad);
	return bad ? -EIO : 0;
}

/*
 * The copies in mask get the source's whole metadata area (the layout's
 * total_blocks): the superblock slots last, each part flushed, so that a
 * crash in between leaves them no valid superblock of the source's
 * generation over a half copy.  They are live from then on.
 */
static int ew_md_mresync(struct ew_md *md, u32 mask,
			 const struct ew_md_mscan *ms)
{
	u32 c;
	int ret;

	ret = ew_md_mcopy(md, mask, EW_META_SB_SLOTS, md->sb.total_blocks);
	if (!ret)
		ret = ew_md_mcopy(md, mask, 0, EW_META_SB_SLOTS);
	if (ret)
		return ret;
	for (c = 0; c < md->nmdev; c++) {
		if (!(mask & BIT(c)))
			continue;
		if (ms[c].st)
			DMWARN("metadata copy %u (%pg): %s: repaired from copy %u",
			       c, md->mdev[c], ms[c].why, md->msrc);
		else
			DMWARN("metadata copy %u (%pg): %s (gen %llu): repaired from copy %u",
			       c, md->mdev[c],
			       ms[md->msrc].stale & BIT(c) ? "stale" : "older",
			       ms[c].gen, md->msrc);
	}
	spin_lock_irq(md->lock);
	md->mlive |= mask;
	spin_unlock_irq(md->lock);
	return 0;
}

/*
 * Which copies are in sync with the newest (live), which to resynchronise
 * (*resync: blank, corrupt, older or marked stale); unreadable ones stay
 * out, stale.  Refuses copies of two arrays, or no valid copy where one
 * is not blank.
 */
static int ew_md_mchoose(struct ew_md *md, const struct ew_md_mscan *ms,
			 int best, u32 *resync, const char **error)
{
	u32 c, live = 0;

	*resync = 0;
	if (best < 0) {
		/* all blank (or unreadable): a new array on the blank ones */
		for (c = 0; c < md->nmdev; c++) {
			if (ms[c].st == -ENODATA) {
				live |= BIT(c);
			} else if (ms[c].st != -EIO) {
				/* one copy: its own precise message */
				if (md->nmdev == 1) {
					*error = ms[c].why;
					return ms[c].st;
				}
				DMERR("metadata copy %u (%pg): %s",
				      c, md->mdev[c], ms[c].why);
				*error = E_MD_NOCOPY;
				return -EINVAL;
			}
		}
		if (!live) {
			*error = md->nmdev == 1 ? E_MD_READ : E_MD_NOCOPY;
			return -EIO;
		}
		md->msrc = __ffs(live);
		md->mlive = live;
		return -ENODATA;
	}
	for (c = 0; c < md->nmdev; c++) {
		if (c == best || ms[c].st == -EIO)
			continue;
		if (!ms[c].st && memcmp(ms[c].uuid, ms[best].uuid,
					EW_META_UUID_SIZE)) {
			DMERR("metadata copy %u (%pg) belongs to another array than copy %u",
			      c, md->mdev[c], best);
			*error = E_MD_MUUID;
			return -EINVAL;
		}
		if (!ms[c].st && ms[c].gen == ms[best].gen &&
		    !(ms[best].stale & BIT(c)))
			live |= BIT(c);
		else
			*resync |= BIT(c);
	}
	md->msrc = best;
	md->mlive = live | BIT(best);
	return 0;
}

/*
 * Format, in this order, each step durable before the next
 * (Documentation/on-disk-format.rst, "Format"):
 *   1. slot 1 zeroed, then generation 1 with FORMATTING in slot 0;
 *   2. the member labels;
 *   3. generation 2, FORMATTING cleared (CLEAN), in slot 1.
 * A crash before 1 leaves zeros (format again), after it a superblock
 * with FORMATTING: format again with its uuid (redo), overwriting labels
 * of that uuid, never another array's.
 */
static int ew_md_format(struct ew_md *md, const struct ew_md_config *cfg,
			const u8 *redo_uuid, const char **error)
{
	struct ew_meta_label lb;
	const char *why;
	u8 uuid[EW_META_UUID_SIZE];
	u32 i;
	int ret;

	/* never format over a member of an array (but ours, on a redo) */
	for (i = 0; i < md->nr; i++) {
		if (!md->data[i]) {
			*error = E_MD_MISSING;
			return -EINVAL;
		}
		ret = ew_md_read(md, md->data[i], md->iobuf, 0, 1);
		if (ret) {
			*error = E_MD_LREAD;
			return ret;
		}
		if (!ew_meta_label_decode(md->iobuf, &lb, &why) &&
		    (!redo_uuid ||
		     memcmp(lb.uuid, redo_uuid, EW_META_UUID_SIZE))) {
			DMERR("data device %u carries a label of another array",
			      i);
			*error = E_MD_LABELLED;
			return -EINVAL;
		}
	}
	if (redo_uuid)
		memcpy(uuid, redo_uuid, EW_META_UUID_SIZE);
	else
		generate_random_uuid(uuid);
	ret = ew_meta_sb_init(&md->sb, cfg->t, cfg->g, uuid, error);
	if (ret)
		return ret;
	/* 1. slot 1 zeroed, generation 1 (FORMATTING) in slot 0 */
	memset(md->iobuf, 0, EW_META_BLOCK_SIZE);
	ret = ew_md_mwrite(md, REQ_OP_WRITE | REQ_FUA | REQ_SYNC,
			   md->iobuf, 1, 1);
	if (ret)
		goto bad;
	md->sb.flags = EW_META_SB_FORMATTING;
	ret = ew_md_write_sb(md, &md->sb);
	if (ret)
		goto bad;
	/* 2. the labels */
	for (i = 0; i < md->nr; i++) {
		ew_meta_label_encode(&md->sb, i, md->iobuf);
		ret = ew_md_rw(md, md->data[i], REQ_OP_WRITE | REQ_FUA |
			       REQ_SYNC, md->iobuf, 0, 1);
		if (ret)
			goto bad;
	}
	/* 3. the array exists: generation 2, clean, in slot 1 */
	ew_meta_sb_set_flags(&md->sb, EW_META_SB_CLEAN);
	ret = ew_md_write_sb(md, &md->sb);
	if (ret)
		goto bad;
	return 0;
bad:
	*error = E_MD_FORMAT;
	return ret;
}

/*
 * One copy of a replayed journal block was not valid: the block came from
 * the other copy.  Said loudly, naming the block: it is damage (or a torn
 * write that left one copy whole), and the checkpoint after recovery
 * retires it.
 */
static void ew_md_warn_damaged(u64 seq, u64 bn, u32 damaged)
{
	u32 c;

	for (c = 0; c < EW_META_JOURNAL_COPIES; c++) {
		if (!(damaged & (1U << c)))
			continue;
		DMWARN("journal seq %llu copy %u (metadata block %llu) damaged, used copy %u",
		       seq, c, bn + c, c ^ 1);
	}
}

/*
 * Blocks bn .. bn + n - 1 of the source copy did not check: the same
 * blocks of another live copy into buf, if check() takes them, and then
 * written over the source's (process context, at load).  Returns the copy
 * used, or -1.
 */
static int ew_md_mfix(struct ew_md *md, void *buf, u64 bn, u32 n,
		      bool (*check)(struct ew_md *md, void *buf, void *arg),
		      void *arg)
{
	u32 c;

	for (c = 0; c < md->nmdev; c++) {
		if (c == md->msrc || !(md->mlive & BIT(c)))
			continue;
		if (ew_md_cread(md, c, buf, bn, n) ||
		    !check(md, buf, arg))
			continue;
		DMWARN_LIMIT("metadata copy %u: block %llu damaged, read from copy %u and repaired",
			     md->msrc, bn, c);
		if (ew_md_crw(md, md->msrc, REQ_OP_WRITE | REQ_FUA |
			      REQ_SYNC, buf, bn, n))
			DMWARN("metadata copy %u: repair of block %llu failed",
			       md->msrc, bn);
		spin_lock_irq(md->lock);
		md->mrepairs += n;
		spin_unlock_irq(md->lock);
		return c;
	}
	return -1;
}

struct ew_md_fix_ckpt {
	u64 idx;
	const char **error;
};

static bool ew_md_fix_ckpt(struct ew_md *md, void *buf, void *arg)
{
	struct ew_md_fix_ckpt *f = arg;

	return !ew_meta_ckpt_decode(&md->sb, buf, f->idx, md->map, f->error);
}

struct ew_md_fix_journal {
	u64 seq;
	u64 bn;
	struct ew_meta_copies *cp;
	struct ew_meta_jslot_res *js;
	const char **error;
};

static bool ew_md_fix_journal(struct ew_md *md, void *buf, void *arg)
{
	struct ew_md_fix_journal *f = arg;

	return ew_meta_replay_block_at(&md->sb, &md->g, md->map, f->seq,
				       f->bn, buf, f->cp, f->js,
				       f->error) > 0;
}

/*
 * One range of the image on copy c against the source (in md->iobuf):
 * blocks bn .. bn + n - 1 read from c into buf and compared.  A block
 * that differs is judged on both sides, a checkpoint block (seq 0;
 * ckpt_idx its index in the checkpoint) by ew_meta_ckpt_block_ok(), a
 * journal block (seq: the journal seq of the range's first slot, never
 * 0) by ew_meta_journal_valid(): the valid one is written over the
 * other, in either direction; two valid blocks that differ, or two
 * invalid ones, are left alone.  Returns the blocks rewritten.
 */
static u64 ew_md_scrub_range(struct ew_md *md, u32 c, void *buf, u64 bn,
			     u32 n, u64 seq, u64 ckpt_idx)
{
	const u32 bs = EW_META_BLOCK_SIZE;
	u8 *src = md->iobuf, *cb = buf;
	u32 i, j, k, vs, vc;
	u64 fixed = 0;

	if (ew_md_cread(md, c, buf, bn, n)) {
		DMWARN_LIMIT("metadata copy %u: blocks %llu-%llu unreadable: not checked",
			     c, bn, bn + n - 1);
		return 0;
	}
	for (i = 0; i < n; i += k) {
		k = seq ? EW_META_JOURNAL_COPIES : 1;
		if (!memcmp(src + i * bs, cb + i * bs, k * bs))
			continue;
		if (seq) {
			vs = ew_meta_journal_valid_at(&md->sb, seq + i / k,
						      bn + i, src + i * bs);
			vc = ew_meta_journal_valid_at(&md->sb, seq + i / k,
						      bn + i, cb + i * bs);
		} else {
			vs = ew_meta_ckpt_block_ok(&md->sb, src + i * bs,
						   ckpt_idx + i);
			vc = ew_meta_ckpt_block_ok(&md->sb, cb + i * bs,
						   ckpt_idx + i);
		}
		for (j = 0; j < k; j++) {
			u32 off = (i + j) * bs;
			bool to_c;

			if (!memcmp(src + off, cb + off, bs) ||
			    ((vs & BIT(j)) && (vc & BIT(j))))
				continue;
			if (vs & BIT(j))
				to_c = true;
			else if (vc & BIT(j))
				to_c = false;
			else
				continue;	/* neither: the other block of the slot */
			DMWARN_LIMIT("metadata copy %u: block %llu bad: rewritten from copy %u",
				     to_c ? c : md->msrc, bn + i + j,
				     to_c ? md->msrc : c);
			if (ew_md_crw(md, to_c ? c : md->msrc, REQ_OP_WRITE |
				      REQ_FUA | REQ_SYNC,
				      (to_c ? src : cb) + off, bn + i + j, 1))
				DMWARN("metadata copy %u: rewrite of block %llu failed",
				       to_c ? c : md->msrc, bn + i + j);
			else
				fixed++;
		}
	}
	return fixed;
}

/*
 * After recovery, the blocks it read (the checkpoint in use and the
 * journal from journal_seq to end) on every other live copy, compared
 * with the source's: a copy is read only when the source fails, so
 * damage there would otherwise wait, unseen, until it is the last copy.
 * Load time only; a read error leaves the range unchecked (the copy's
 * next write failure drops it).
 */
static void ew_md_scrub(struct ew_md *md, u64 end)
{
	struct ew_meta_sb *sb = &md->sb;
	u64 idx, seq, bn, fixed = 0;
	void *buf;
	u32 c, n;

	if (hweight32(md->mlive) < 2)
		return;
	buf = vmalloc(EW_MD_BULK_BLOCKS * EW_META_BLOCK_SIZE);
	if (!buf) {
		DMWARN("metadata copies not compared: no memory");
		return;
	}
	for (c = 0; c < md->nmdev; c++) {
		if (c == md->msrc || !(md->mlive & BIT(c)))
			continue;
		for (idx = 0; sb->ckpt_seq && idx < sb->ckpt_blocks; idx += n) {
			n = min_t(u64, EW_MD_BULK_BLOCKS, sb->ckpt_blocks - idx);
			bn = sb->ckpt_start[sb->ckpt_area] + idx;
			if (ew_md_cread(md, md->msrc, md->iobuf, bn, n))
				break;
			fixed += ew_md_scrub_range(md, c, buf, bn, n, 0, idx);
			cond_resched();
		}
		for (seq = sb->journal_seq; seq < end; seq += n) {
			bn = ew_md_jbn(md, seq);
			/* jfree: one slot at a time, wherever it is */
			n = sb->jfree ? 1 :
			    min_t(u64, min_t(u64, EW_MD_BULK_SLOTS, end - seq),
				  (sb->journal_start + sb->journal_slots *
				   EW_META_JOURNAL_COPIES - bn) /
				  EW_META_JOURNAL_COPIES);
			if (ew_md_cread(md, md->msrc, md->iobuf, bn,
					n * EW_META_JOURNAL_COPIES))
				break;
			fixed += ew_md_scrub_range(md, c, buf, bn,
						   n * EW_META_JOURNAL_COPIES,
						   seq, 0);
			cond_resched();
		}
	}
	vfree(buf);
	if (!fixed)
		return;
	spin_lock_irq(md->lock);
	md->mrepairs += fixed;
	spin_unlock_irq(md->lock);
	DMWARN("metadata copies compared: blocks rewritten: %llu", fixed);
}

/*
 * The ring's journal (not jfree), a few slots per read, more each read
 * (never past the ring's end): block after block until the first that is
 * not the next; *endp is that seq.
 */
static int ew_md_recover_ring(struct ew_md *md, struct ew_md_open_result *res,
			      const char **error, struct ew_meta_copies *cp,
			      u64 *endp)
{
	struct ew_meta_jslot_res js;
	struct ew_meta_sb *sb = &md->sb;
	const char *why = NULL;
	u64 n, i, seq, bn, want;
	int ret;

	seq = sb->journal_seq;
	n = 0;		/* slots in iobuf, from seq */
	want = 0;	/* slots the next read asks for */
	i = 0;
	for (;;) {
		if (seq - sb->journal_seq >= sb->journal_slots)
			break;
		if (i == n) {
			bn = ew_meta_journal_blocknr(sb, seq);
			want = want ? min_t(u64, 2 * want, EW_MD_BULK_SLOTS) :
				EW_MD_IOSLOTS;
			n = min_t(u64, want,
				  (sb->journal_start + sb->journal_slots *
				   EW_META_JOURNAL_COPIES - bn) /
				  EW_META_JOURNAL_COPIES);
			ret = ew_md_mread(md, md->iobuf, bn,
					  n * EW_META_JOURNAL_COPIES);
			if (ret) {
				*error = E_MD_READ;
				return ret;
			}
			i = 0;
			cond_resched();
		}
		ret = ew_meta_replay_block_copies(sb, &md->g, md->map, seq,
						  md->iobuf +
						  i * EW_META_JSLOT_SIZE,
						  cp, &js, error);
		/*
		 * Not there, or corrupt, on the source copy: another copy
		 * may have it (a damaged block, or a commit that reached
		 * one copy before a crash)
		 */
		if (ret <= 0) {
			struct ew_meta_jslot_res js2;
			struct ew_md_fix_journal f = {
				seq, ew_meta_journal_blocknr(sb, seq), cp,
				&js2, &why
			};

			if (ew_md_mfix(md, md->altbuf,
				       ew_meta_journal_blocknr(sb, seq),
				       EW_META_JOURNAL_COPIES,
				       ew_md_fix_journal, &f) >= 0) {
				js = js2;
				ret = 1;
			}
		}
		if (ret < 0) {
			DMERR("journal seq %llu, metadata block %llu (copy %u): %s",
			      seq, ew_meta_journal_blocknr(sb, seq) + js.bad_copy,
			      js.bad_copy, *error);
			return ret;
		}
		if (!ret)
			break;
		ew_md_warn_damaged(seq, ew_meta_journal_blocknr(sb, seq),
				   js.damaged);
		res->damaged += hweight32(js.damaged);
		res->records += js.records;
		seq++;
		i++;
	}
	res->replayed = seq - sb->journal_seq;
	/* a valid block right after the end: seq was lost, not torn */
	if (res->replayed + 1 < sb->journal_slots) {
		void *next;

		if (i + 1 < n) {
			next = md->iobuf + (i + 1) * EW_META_JSLOT_SIZE;
		} else {
			next = md->iobuf;
			ret = ew_md_mread(md, next,
					  ew_meta_journal_blocknr(sb, seq + 1),
					  EW_META_JOURNAL_COPIES);
			if (ret) {
				*error = E_MD_READ;
				return ret;
			}
		}
		ret = ew_meta_journal_end(sb, seq, next, error);
		if (ret) {
			bn = ew_meta_journal_blocknr(sb, seq);
			DMERR("journal seq %llu (metadata blocks %llu, %llu): %s",
			      seq, bn, bn + 1, *error);
			return ret;
		}
	}
	*endp = seq;
	return 0;
}

/*
 * jfree: the journal area of metadata copy c, every slot's live block
 * added to x.  A read error on one of several live copies leaves its
 * range to the others (*skipped set).
 */
static int ew_md_jscan_copy(struct ew_md *md, u32 c, struct ew_meta_jindex *x,
			    bool *skipped, const char **error)
{
	struct ew_meta_sb *sb = &md->sb;
	u64 slot, n, i, seq, bn;
	int ret;

	*skipped = false;
	for (slot = 0; slot < sb->journal_slots; slot += n) {
		n = min_t(u64, EW_MD_BULK_SLOTS, sb->journal_slots - slot);
		bn = ew_meta_jslot_blocknr(sb, slot);
		ret = ew_md_cread(md, c, md->iobuf, bn,
				  n * EW_META_JOURNAL_COPIES);
		if (ret && hweight32(md->mlive) > 1) {
			DMWARN("metadata copy %u: journal %llu-%llu unreadable (%d): skipped",
			       c, bn, bn + n * EW_META_JOURNAL_COPIES - 1, ret);
			*skipped = true;
			continue;
		}
		if (ret) {
			*error = E_MD_READ;
			return ret;
		}
		for (i = 0; i < n; i++, bn += EW_META_JOURNAL_COPIES) {
			ret = ew_meta_jslot_seq(sb, bn, md->iobuf + i *
						EW_META_JSLOT_SIZE, &seq, error);
			if (ret > 0)
				ret = ew_meta_jindex_add(x, seq, slot + i,
							 error);
			if (ret < 0) {
				DMERR("metadata copy %u: journal slot %llu (block %llu): %s",
				      c, slot + i, bn, *error);
				return ret;
			}
		}
		cond_resched();
	}
	return 0;
}

/*
 * jfree: every slot of the journal area, on every live copy, read in
 * bulk and indexed by the live journal block it holds
 * (ew_meta_jslot_seq(): the union of the copies, so that a block one
 * copy lost is not taken for the end); then the blocks replayed in seq
 * order, each read from the source copy, or from another copy's same
 * slot when the source's does not check.  A read error on one of
 * several copies leaves that copy's range out, as long as one copy was
 * read whole (else the load fails: the union could miss a block); a
 * corrupt slot, a block in two slots, a lost block before the end or one
 * from the future refuses the load, as in the ring.  *endp: the first
 * seq no slot holds.
 */
static int ew_md_recover_jfree(struct ew_md *md,
			       struct ew_md_open_result *res,
			       const char **error, struct ew_meta_copies *cp,
			       u64 *endp)
{
	struct ew_meta_sb *sb = &md->sb;
	struct ew_meta_jindex x = { .base = sb->journal_seq,
				    .n = sb->journal_slots };
	struct ew_meta_jslot_res js;
	const char *why = NULL;
	u64 slot, i, seq, bn, end, total = sb->journal_slots;
	bool skipped, whole = false;
	u32 c;
	int ret;

	x.slot = kvcalloc(x.n, sizeof(u32), GFP_KERNEL);
	if (!x.slot) {
		*error = E_MD_NOMEM;
		return -ENOMEM;
	}
	for (c = 0; c < md->nmdev; c++) {
		if (!(md->mlive & BIT(c)))
			continue;
		ret = ew_md_jscan_copy(md, c, &x, &skipped, error);
		if (ret)
			goto out;
		whole |= !skipped;
	}
	/* the union is whole only if one copy was read whole */
	if (!whole) {
		*error = E_MD_READ;
		ret = -EIO;
		goto out;
	}
	ret = ew_meta_jindex_end(&x, &end, error);
	if (ret) {
		DMERR("journal seq %llu (in no slot): %s", end, *error);
		goto out;
	}
	for (seq = x.base; seq < end; seq++) {
		slot = x.slot[seq - x.base] - 1;
		bn = ew_meta_jslot_blocknr(sb, slot);
		ret = ew_md_mread(md, md->iobuf, bn, EW_META_JOURNAL_COPIES);
		if (ret) {
			*error = E_MD_READ;
			goto out;
		}
		ret = ew_meta_replay_block_at(sb, &md->g, md->map, seq, bn,
					      md->iobuf, cp, &js, error);
		if (ret <= 0) {
			struct ew_meta_jslot_res js2;
			struct ew_md_fix_journal f = { seq, bn, cp, &js2, &why };

			if (ew_md_mfix(md, md->altbuf, bn,
				       EW_META_JOURNAL_COPIES,
				       ew_md_fix_journal, &f) >= 0) {
				js = js2;
				ret = 1;
			} else if (!ret) {
				/* the copy that held it no longer checks */
				*error = why ? why : E_MD_READ;
				ret = -EIO;
			}
		}
		if (ret < 0) {
			DMERR("journal seq %llu, metadata block %llu (copy %u): %s",
			      seq, bn + min_t(u32, js.bad_copy, 1),
			      js.bad_copy, *error);
			goto out;
		}
		ew_md_warn_damaged(seq, bn, js.damaged);
		res->damaged += hweight32(js.damaged);
		res->records += js.records;
		md->jslot_seq[slot] = seq;
		div64_u64_rem(seq, total, &i);
		md->jslot_of[i] = slot;
		cond_resched();
	}
	res->replayed = end - sb->journal_seq;
	*endp = end;
	ret = 0;
out:
	kvfree(x.slot);
	return ret;
}

/* Steps 2-5 of recovery on a superblock picked from the slots. */
static int ew_md_recover(struct ew_md *md, struct ew_md_open_result *res,
			 const char **error, struct ew_meta_copies *cp)
{
	struct ew_meta_sb *sb = &md->sb;
	const char *why = NULL;
	u64 idx, n, i, seq, l;
	u32 r;
	int ret;

	/* checkpoint */
	for (idx = 0; sb->ckpt_seq && idx < sb->ckpt_blocks; idx += n) {
		n = min_t(u64, EW_MD_BULK_BLOCKS, sb->ckpt_blocks - idx);
		ret = ew_md_mread(md, md->iobuf,
				  sb->ckpt_start[sb->ckpt_area] + idx, n);
		if (ret) {
			*error = E_MD_READ;
			return ret;
		}
		for (i = 0; i < n; i++) {
			ret = ew_meta_ckpt_decode(sb, md->iobuf +
						  i * EW_META_BLOCK_SIZE,
						  idx + i, md->map, error);
			if (ret) {
				struct ew_md_fix_ckpt f = { idx + i, &why };

				if (ew_md_mfix(md, md->altbuf,
					       sb->ckpt_start[sb->ckpt_area] +
					       idx + i, 1, ew_md_fix_ckpt,
					       &f) >= 0) {
					ret = 0;
					continue;
				}
				DMERR("checkpoint area %u block %llu (metadata block %llu): %s",
				      sb->ckpt_area, idx + i,
				      sb->ckpt_start[sb->ckpt_area] + idx + i,
				      *error);
				return ret;
			}
		}
		cond_resched();
	}
	ret = ew_md_jslots_alloc(md);
	if (ret) {
		*error = E_MD_NOMEM;
		return ret;
	}
	ret = sb->jfree ? ew_md_recover_jfree(md, res, error, cp, &seq) :
	      ew_md_recover_ring(md, res, error, cp, &seq);
	if (ret)
		return ret;
	/* the check's bitmaps are the free maps' used blocks: kept */
	res->used = kvcalloc(ew_meta_map_used_words(&md->g) * md->g.p.nr_disks,
			     sizeof(u64), GFP_KERNEL);
	if (!res->used) {
		*error = E_MD_NOMEM;
		return -ENOMEM;
	}
	ret = ew_meta_map_check_used(&md->g, md->map, res->used, &l, &r,
				     error);
	if (ret) {
		DMERR("map check: logical block %llu replica %u: %s",
		      l, r, *error);
		kvfree(res->used);
		res->used = NULL;
		return ret;
	}
	ew_md_scrub(md, seq);
	md->open_seq = seq;
	md->durable_seq = seq - 1;
	return 0;
}

/*
 * The superblock in use came from slot; if the other slot is neither
 * zeros nor valid, recovery fell back past a damaged (or torn) one: say
 * so, and never reuse a generation or checkpoint seq it may have named
 * (ew_meta_sb_skip_lost()).  iobuf holds both slots.
 */
static void ew_md_check_other_slot(struct ew_md *md, u32 slot)
{
	const void *other = md->iobuf + (slot ^ 1) * EW_META_BLOCK_SIZE;
	struct ew_meta_sb osb;
	const char *why = NULL;

	if (ew_meta_block_is_zero(other) ||
	    !ew_meta_sb_decode(other, slot ^ 1, &osb, &why))
		return;
	DMWARN("superblock slot %u (metadata block %u): %s; using generation %llu",
	       slot ^ 1, slot ^ 1, why, md->sb.generation);
	ew_meta_sb_skip_lost(&md->sb);
}

/*
 * Recovery with journal copies: the replay tracks the live slots (a
 * COPY durable, its UNCOPY not), which become live copies again with no
 * page and no entry (ew_md_copy_recovered()); the target restores them.
 */
static int ew_md_recover_copies(struct ew_md *md,
				struct ew_md_open_result *res,
				const char **error)
{
	struct ew_meta_copies c = { .nr = md->copy_nr };
	struct ew_md_copy *cs;
	u32 i;
	int ret;

	if (!md->copy_nr || md->sb.copy_slots != md->copy_nr)
		return ew_md_recover(md, res, error, NULL);
	c.lblock = kvmalloc_array(c.nr, sizeof(u64), GFP_KERNEL);
	c.seq = kvmalloc_array(c.nr, sizeof(u64), GFP_KERNEL);
	ret = -ENOMEM;
	*error = E_MD_NOMEM;
	if (!c.lblock || !c.seq)
		goto out;
	for (i = 0; i < c.nr; i++)
		c.lblock[i] = EW_META_COPY_NONE;
	ret = ew_md_recover(md, res, error, &c);
	if (ret)
		goto out;
	md->copy_nfree = 0;
	for (i = c.nr; i--; ) {
		cs = &md->copy[i];
		if (c.lblock[i] == EW_META_COPY_NONE) {
			md->copy_free[md->copy_nfree++] = i;
			continue;
		}
		cs->state = EW_MD_COPY_LIVE;
		cs->lblock = c.lblock[i];
		cs->seq = c.seq[i];
		hlist_add_head(&cs->hnode, ew_md_copy_bucket(md, cs->lblock));
		res->copies++;
	}
out:
	kvfree(c.lblock);
	kvfree(c.seq);
	return ret;
}

int ew_md_open(const struct ew_md_config *cfg, struct ew_md **out,
	       struct ew_md_open_result *res, const char **error)
{
	struct ew_md *md;
	struct ew_md_mscan *ms = NULL;
	const char *why = NULL;
	u8 uuid[EW_META_UUID_SIZE];
	void *blk1;
	u32 slot, i, resync = 0;
	int ret, best;

	memset(res, 0, sizeof(*res));
	md = kzalloc(sizeof(*md), GFP_KERNEL);
	if (!md) {
		*error = E_MD_NOMEM;
		return -ENOMEM;
	}
	md->nmdev = cfg->nmeta;
	for (i = 0; i < cfg->nmeta; i++) {
		md->mdev[i] = cfg->meta[i];
		md->moff[i] = cfg->meta_off[i];
		md->mmember[i] = cfg->on_members ? cfg->meta_member[i] : -1;
	}
	md->event = cfg->event;
	md->event_ctx = cfg->event_ctx;
	md->opening = true;
	md->nr = cfg->nr;
	for (i = 0; i < cfg->nr; i++)
		md->data[i] = cfg->data[i];
	md->g = *cfg->g;
	md->lock = cfg->lock;
	md->map = cfg->map;
	md->dfree = cfg->dfree;
	md->unit_max = cfg->g->p.mirrors;
	md->unit_block = EW_META_JREC_PER_BLOCK - (md->unit_max - 1);
	mutex_init(&md->io_mutex);
	ret = -ENOMEM;
	*error = E_MD_NOMEM;
	md->iobuf = vmalloc(EW_MD_BULK_BLOCKS * EW_META_BLOCK_SIZE);
	md->sbbuf = kmalloc(EW_META_BLOCK_SIZE, GFP_KERNEL);
	md->altbuf = kmalloc(EW_META_JSLOT_SIZE, GFP_KERNEL);
	ms = kcalloc(md->nmdev, sizeof(*ms), GFP_KERNEL);
	if (!md->iobuf || !md->sbbuf || !md->altbuf || !ms)
		goto bad;
	for (i = 0; i < EW_MD_JBUFS; i++) {
		md->jblk[i] = kmalloc(EW_META_JSLOT_SIZE, GFP_KERNEL);
		if (!md->jblk[i])
			goto bad;
	}
	md->page_put = cfg->page_put;
	md->page_ctx = cfg->page_ctx;
	md->commit = cfg->commit;
	md->commit_ctx = cfg->commit_ctx;
	md->jplace = cfg->jplace;
	md->jdone = cfg->jdone;
	md->jplace_ctx = cfg->jplace_ctx;
	md->copy_nr = cfg->t->journal_copy;
	if (md->copy_nr) {
		md->copy = kvcalloc(md->copy_nr, sizeof(*md->copy), GFP_KERNEL);
		md->copy_free = kvcalloc(md->copy_nr, sizeof(u32), GFP_KERNEL);
		md->copy_fifo = kvcalloc(md->copy_nr, sizeof(u32), GFP_KERNEL);
		md->copy_dirty = kvcalloc(md->copy_nr, sizeof(u32),
					  GFP_KERNEL);
		if (!md->copy || !md->copy_free || !md->copy_fifo ||
		    !md->copy_dirty)
			goto bad;
		/* slot 0 on top: the first used */
		for (i = 0; i < md->copy_nr; i++) {
			md->copy_free[i] = md->copy_nr - 1 - i;
			INIT_HLIST_NODE(&md->copy[i].hnode);
		}
		for (i = 0; i < ARRAY_SIZE(md->copy_hash); i++)
			INIT_HLIST_HEAD(&md->copy_hash[i]);
		md->copy_nfree = md->copy_nr;
	}
	md->io = dm_io_client_create();
	if (IS_ERR(md->io)) {
		ret = PTR_ERR(md->io);
		md->io = NULL;
		goto bad;
	}

	/*
	 * 1. the superblock slots of every metadata copy; those of the
	 * newest
	 */
	ew_md_mscan(md, ms, &best);
	ret = ew_md_mchoose(md, ms, best, &resync, error);
	if (ret && ret != -ENODATA)
		goto bad;
	ret = ew_md_mread(md, md->iobuf, 0, 2);
	if (ret) {
		*error = E_MD_READ;
		goto bad;
	}
	blk1 = md->iobuf + EW_META_BLOCK_SIZE;
	ret = ew_meta_sb_pick(md->iobuf, blk1, &md->sb, &slot, &why);
	if (!ret && (md->sb.flags & EW_META_SB_FORMATTING)) {
		/* a new array: on every copy that can be written */
		md->mlive |= resync;
		resync = 0;
		memcpy(uuid, md->sb.uuid, EW_META_UUID_SIZE);
		DMWARN("format incomplete (superblock generation %llu): formatting again",
		       md->sb.generation);
		ret = -ENODATA;
	} else if (!ret) {
		ew_md_check_other_slot(md, slot);
	}
	if (ret == -ENODATA) {
		ret = ew_md_format(md, cfg, md->sb.generation ? uuid : NULL,
				   error);
		if (ret)
			goto bad;
		res->formatted = true;
		ret = ew_md_jslots_alloc(md);
		if (ret) {
			*error = E_MD_NOMEM;
			goto bad;
		}
		md->open_seq = md->sb.journal_seq;
		md->durable_seq = md->open_seq - 1;
	} else if (ret) {
		*error = why;
		goto bad;
	} else {
		/* 2. this array, this table, these members in this order */
		ret = ew_meta_sb_check_table(&md->sb, cfg->t, cfg->g, error);
		for (i = 0; !ret && i < md->nmdev; i++)
			if ((md->mlive | resync) & BIT(i))
				ret = ew_meta_sb_check_size(&md->sb,
							    bdev_nr_sectors(md->mdev[i]) -
							    md->moff[i],
							    error);
		for (i = 0; !ret && i < md->nr; i++) {
			/*
			 * A failed member's position holds nothing trusted
			 * (a device named there is a replacement), a missing
			 * one nothing at all: no label to check.
			 */
			if (!md->data[i] ||
			    (md->sb.member_failed & BIT_ULL(i)))
				continue;
			ret = ew_md_read(md, md->data[i], md->iobuf, 0, 1);
			if (ret) {
				/*
				 * A dead disk still named in the table: as
				 * dm-raid does, assemble without it if the
				 * others hold every block (checked below).
				 */
				DMERR("data device %u: label unreadable (%d), left out",
				      i, ret);
				res->unreadable |= BIT_ULL(i);
				md->data[i] = NULL;	/* never flushed */
				ret = 0;
				continue;
			}
			ret = ew_meta_label_check(&md->sb, md->iobuf, i, error);
			if (ret)
				DMERR("data device %u: %s", i, *error);
		}
		if (!ret && res->unreadable) {
			u64 gone = md->sb.member_failed | res->unreadable;

			for (i = 0; i < md->nr; i++)
				if (!md->data[i])
					gone |= BIT_ULL(i);
			if (!ew_table_members_ok(cfg->t, gone)) {
				*error = E_MD_TOO_FEW;
				ret = -EIO;
			}
		}
		if (ret)
			goto bad;
		/* 3-5. checkpoint, journal, cross-check */
		ret = ew_md_recover_copies(md, res, error);
		if (ret)
			goto bad;
		res->clean = md->sb.flags & EW_META_SB_CLEAN;
		/*
		 * 6. the copies that are not the newest get it; the
		 * superblock says which copies are live (and each which
		 * copy it is) in a new generation, if that changed
		 */
		if (resync) {
			ret = ew_md_mresync(md, resync, ms);
			if (ret) {
				*error = E_MD_MRESYNC;
				goto bad;
			}
		}
		for (i = 0; i < md->nmdev; i++)
			if ((md->mlive & BIT(i)) && !ms[i].st &&
			    ms[i].copy != i)
				resync |= BIT(i);
		if (resync || md->sb.meta_copies !=
		    (md->nmdev > 1 ? md->nmdev : 0) ||
		    md->sb.meta_stale != (md->nmdev > 1 ?
		    ~md->mlive & (BIT(md->nmdev) - 1) : 0)) {
			struct ew_meta_sb nsb = md->sb;

			ew_meta_sb_set_flags(&nsb, nsb.flags);
			ret = ew_md_write_sb(md, &nsb);
			if (ret) {
				*error = E_MD_MRESYNC;
				goto bad;
			}
			md->sb = nsb;
		}
	}
	md->opening = false;
	kfree(ms);
	md->jsb = md->sb;
	ew_meta_jbuf_init(&md->open, md->jblk[md->open_seq % EW_MD_JBUFS]);
	md->dfree_safe = md->dfree->tail;
	*out = md;
	return 0;
bad:
	kfree(ms);
	kvfree(res->used);
	res->used = NULL;
	ew_md_close(md);
	return ret;
}

void ew_md_close(struct ew_md *md)
{
	u32 i;

	if (!md)
		return;
	if (md->io)
		dm_io_client_destroy(md->io);
	for (i = 0; i < EW_MD_JBUFS; i++)
		kfree(md->jblk[i]);
	vfree(md->iobuf);
	kfree(md->sbbuf);
	kfree(md->altbuf);
	kvfree(md->copy);
	kvfree(md->copy_free);
	kvfree(md->copy_fifo);
	kvfree(md->copy_dirty);
	kvfree(md->jslot_seq);
	kvfree(md->jslot_of);
	kfree(md);
}

/* ---------------------------------------------------------------- */
/*
 * Member state (on-disk-format.rst, "Member state"): the failed and
 * rebuilding bits of the superblock, and the label of a replacement.
 * Process context; io_mutex serialises them with commits and
 * checkpoints, which copy md->sb and so keep the bits.
 */

void ew_md_member_state(struct ew_md *md, u64 *failed, u64 *rebuilding)
{
	mutex_lock(&md->io_mutex);
	*failed = md->sb.member_failed;
	*rebuilding = md->sb.member_rebuilding;
	mutex_unlock(&md->io_mutex);
}

static int __ew_md_set_member_state(struct ew_md *md, u64 failed,
				    u64 rebuilding)
{
	struct ew_meta_sb nsb = md->sb;
	int ret;

	if (ew_md_failed(md))
		return -EIO;
	if (md->sb.member_failed == failed &&
	    md->sb.member_rebuilding == rebuilding)
		return 0;
	nsb.generation++;
	nsb.member_failed = failed;
	nsb.member_rebuilding = rebuilding & ~failed;
	ret = ew_md_write_sb(md, &nsb);
	if (!ret)
		md->sb = nsb;
	return ret;
}

/*
 * A new superblock generation with these member bits.  A member failed
 * in memory is failed on disk before anything trusts its absence: the
 * map already says which replicas it missed, this says never to trust
 * what it holds.
 */
int ew_md_set_member_state(struct ew_md *md, u64 failed, u64 rebuilding)
{
	int ret;

	mutex_lock(&md->io_mutex);
	/* a commit may have failed a member the caller does not know of */
	failed |= md->sb.member_failed;
	ret = __ew_md_set_member_state(md, failed, rebuilding);
	mutex_unlock(&md->io_mutex);
	return ret;
}

/*
 * bdev replaces failed member i; the caller has made every replica on
 * it stale in the map (the array is not live).  Order:
 *   1. the superblock says member i is failed (if it did not yet);
 *   2. the new device's label, next generation, with FUA;
 *   3. a checkpoint of the map (its stale replicas) whose superblock
 *      holds the new generation and member i rebuilding.
 * A crash before 3 leaves member i failed on disk, its label check
 * skipped: the same device is taken as a replacement again.
 */
/*
 * Member i gets another device (bdev; NULL: missing), with the metadata
 * on the members: the old device leaves with the old table, so the copy
 * on it is no longer written (the survivors' superblock marks it stale,
 * before anything else is written) and the next load resynchronises it
 * onto bdev (ew_md_mchoose()).  The last live copy cannot go: the array
 * turns read-only.  io_mutex held.
 */
static int ew_md_member_copy_gone(struct ew_md *md, u32 i,
				  struct block_device *bdev)
{
	int ret = 0;
	u32 c;

	lockdep_assert_held(&md->io_mutex);
	for (c = 0; c < md->nmdev; c++) {
		if (md->mmember[c] != (int)i)
			continue;
		if (!ret && (md->mlive & BIT(c))) {
			if (md->mlive & ~BIT(c)) {
				ret = ew_md_mlost(md, BIT(c),
						  "its member is replaced");
			} else {
				ew_md_mdrop(md, BIT(c), "its member is replaced");
				ew_md_fail(md, "copy (the last one left)",
					   -EIO);
				ret = -EIO;
			}
		}
		md->mdev[c] = bdev;
	}
	return ret;
}

int ew_md_replace_member(struct ew_md *md, u32 i, struct block_device *bdev,
			 u64 failed, u64 rebuilding)
{
	struct block_device *old_bdev;
	u64 old_failed, old_rebuilding;
	int ret;

	mutex_lock(&md->io_mutex);
	ret = ew_md_member_copy_gone(md, i, bdev);
	if (ret)
		goto out;
	ret = __ew_md_set_member_state(md, md->sb.member_failed | BIT_ULL(i),
				       md->sb.member_rebuilding &
				       ~BIT_ULL(i));
	if (ret)
		goto out;
	md->sb.member_gen[i]++;
	ew_meta_label_encode(&md->sb, i, md->iobuf);
	ret = ew_md_rw(md, bdev, REQ_OP_WRITE | REQ_FUA | REQ_SYNC,
		       md->iobuf, 0, 1);
	if (ret) {
		/* the device is refused; the array stays as it was */
		md->sb.member_gen[i]--;
		goto out;
	}
	old_bdev = md->data[i];
	old_failed = md->sb.member_failed;
	old_rebuilding = md->sb.member_rebuilding;
	md->data[i] = bdev;
	md->sb.member_failed = failed & ~BIT_ULL(i);
	md->sb.member_rebuilding = (rebuilding | BIT_ULL(i)) &
		~md->sb.member_failed;
	ret = __ew_md_checkpoint(md, false, EW_MD_CK_ONCE);
	if (ret) {
		/* not durable: the member stays failed, its device unused */
		md->data[i] = old_bdev;
		md->sb.member_failed = old_failed;
		md->sb.member_rebuilding = old_rebuilding;
		md->sb.member_gen[i]--;
	}
out:
	mutex_unlock(&md->io_mutex);
	return ret;
}

/* Member i has no device any more ("-"): nothing is flushed there. */
void ew_md_forget_member(struct ew_md *md, u32 i)
{
	mutex_lock(&md->io_mutex);
	md->data[i] = NULL;
	ew_md_member_copy_gone(md, i, NULL);
	mutex_unlock(&md->io_mutex);
}
