/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-eagerwrite-metadata.h - the persistent metadata of an eagerwrite
 * array: open (format or recover), the journal, commit, checkpoint, the
 * clean flag and the failure latch.  The on-disk format is the core's
 * (core/ew_meta.h, Documentation/on-disk-format.rst); this is its I/O.
 *
 * Two kinds of calls:
 *  - "under the lock": the array lock given at open (struct
 *    ew_md_config.lock) held, any context (completions run in irq
 *    context); they never sleep nor allocate;
 *  - "process context": they sleep (metadata I/O) and serialise among
 *    themselves; never with the array lock held.
 */
#ifndef DM_EAGERWRITE_METADATA_H
#define DM_EAGERWRITE_METADATA_H

#include <linux/blkdev.h>
#include <linux/spinlock.h>

#include "core/ew_geom.h"
#include "core/ew_table.h"
#include "core/ew_map.h"
#include "core/ew_meta.h"

struct ew_md;

/*
 * A journal slot to choose (jfree): slot k is slot_sectors sectors at
 * lba0 + k * slot_sectors of each of the holders (member indexes, the
 * live metadata copies); is_free(ctx, k) says whether it may be written;
 * hint: where to start looking for a free one without placement.
 */
struct ew_md_jplace {
	u32 nholders;
	u32 holder[EW_META_MAX_COPIES];
	u64 lba0;
	u32 slot_sectors;
	u32 nslots;
	u32 hint;
	bool (*is_free)(void *ctx, u32 slot);
	void *ctx;
};

struct ew_md_config {
	/*
	 * The metadata copies (the metadata device, then metadata_mirror):
	 * the same image on each (Documentation/on-disk-format.rst,
	 * "Metadata copies")
	 */
	struct block_device *meta[EW_META_MAX_COPIES];
	sector_t meta_off[EW_META_MAX_COPIES];	/* where each image starts */
	u32 nmeta;
	/*
	 * The table's "-": the copies are on the members meta_member[c]
	 * (ew_meta_members_holders()); meta[c] is that member's device,
	 * NULL when it is missing
	 */
	bool on_members;
	u32 meta_member[EW_META_MAX_COPIES];
	struct block_device *data[EW_MAX_DISKS];
	u32 nr;
	const struct ew_table_args *t;
	const struct ew_geom *g;
	spinlock_t *lock;		/* the array lock */
	struct ew_map *map;		/* the array's map, under *lock */
	struct ew_dfree *dfree;		/* its deferred-free list, ditto */
	/*
	 * journal_copy: gives back a page of the target's pool that held
	 * a copy slot's data (under *lock, any context)
	 */
	void (*page_put)(void *ctx, struct page *page);
	void *page_ctx;
	/* a metadata copy stopped being written (process context) */
	void (*event)(void *ctx);
	void *event_ctx;
	/*
	 * a commit is wanted: half the journal buffers are sealed (under
	 * *lock, any context; not called by a commit or a checkpoint)
	 */
	void (*commit)(void *ctx);
	void *commit_ctx;
	/*
	 * jfree (the metadata on the members): the journal slot a commit
	 * writes, chosen over the holders' predicted heads (under *lock;
	 * returns q->nslots when none suits: the next free one is taken);
	 * then the write of that slot ended (process context).  NULL: the
	 * next free slot.
	 */
	u32 (*jplace)(void *ctx, const struct ew_md_jplace *q);
	void (*jdone)(void *ctx, const struct ew_md_jplace *q, u32 slot);
	void *jplace_ctx;
};

/* What opening found. */
struct ew_md_open_result {
	bool formatted;			/* a new array */
	bool clean;			/* the superblock said CLEAN */
	u64 replayed;			/* journal blocks applied */
	u64 records;			/* ... and their records */
	u32 damaged;			/* ... their copies found damaged */
	/*
	 * Members named in the table whose label could not be read (an
	 * I/O error): left out, to be failed by the caller; the rest
	 * keeps a replica of every block.
	 */
	u64 unreadable;
	u32 copies;			/* live journal copies replayed */
	/*
	 * An array loaded: per member, a bit for every block a replica
	 * maps (ew_meta_map_check_used()), for the free maps; the caller
	 * kvfree()s it.  NULL when formatted or on error.
	 */
	u64 *used;
};

struct ew_md_stats {
	bool failed;
	u64 journal_seq;		/* the open journal block */
	u64 durable_seq;		/* the last durable one */
	u64 commits;
	u64 checkpoints;
	/* the periodic checkpoint in progress: map blocks written, of */
	u64 ckpt_done, ckpt_total;	/* 0, 0: none */
};

/*
 * Process context.  Formats the metadata device when its first block is
 * all zeros, else validates it against the table and the member labels
 * and loads the map into cfg->map (checkpoint, then the journal).
 * -EINVAL with a precise *error (static) when refused.
 */
int ew_md_open(const struct ew_md_config *cfg, struct ew_md **out,
	       struct ew_md_open_result *res, const char **error);
void ew_md_close(struct ew_md *md);

/* Under the lock.  Journal space: units are records (one per replica). */
bool ew_md_reserve(struct ew_md *md, u32 units);
bool ew_md_room(struct ew_md *md, u32 units);
void ew_md_unreserve(struct ew_md *md, u32 units);
/*
 * Logs the current state of lblock's replicas (mask; 0: only the mask)
 * into the open journal block, using reserved units; returns the seq of
 * the journal block that holds the record (0 once failed).
 */
u64 ew_md_log_block(struct ew_md *md, u64 lblock, u8 replicas);
/*
 * The same for background work (a delayed replica, a rebuild copy, a
 * stale mark after a read error): a record that carries no acknowledged
 * data, which a flush does not wait for (the next commit takes it).
 */
u64 ew_md_log_bg(struct ew_md *md, u64 lblock, u8 replicas);
u64 ew_md_log_discard(struct ew_md *md, u64 lblock, u32 count);
/*
 * The same for a foreground write that committed: a live journal copy
 * of an older generation of lblock ends in the same journal block.
 */
u64 ew_md_log_write(struct ew_md *md, u64 lblock, u8 replicas);
/*
 * A write to member disk completed: the next commit flushes it.  sole:
 * it holds the only acknowledged copy of the write, which a failed flush
 * of disk then loses.
 */
void ew_md_member_dirty(struct ew_md *md, u32 disk, bool sole);
/*
 * The journal blocks *first .. return value made durable by the last
 * commit in which a member holding a write's only copy failed its flush
 * (0: none): the flushes and FUA writes that cover them fail.
 */
u64 ew_md_lost_seq(struct ew_md *md, u64 *first);
/*
 * The journal seq a flush arriving now waits for: the block holding the
 * last record of foreground work (ew_md_log_bg() records do not count);
 * 0: nothing to wait for.
 */
u64 ew_md_flush_seq(struct ew_md *md);
u64 ew_md_durable_seq(struct ew_md *md);
/* Deferred frees below this sequence have their remaps durable. */
u64 ew_md_dfree_safe(struct ew_md *md);
void ew_md_stats(struct ew_md *md, struct ew_md_stats *st);

/*
 * Under the lock: journal copies (journal_copy; Documentation/
 * eagerwrite.rst, "Journal copies").  A write that needs a copy takes a
 * slot before it starts (ew_md_copy_get: -1 when none is free, or while
 * a checkpoint waits for the live ones to end, ew_md_copy_held(): the
 * write waits, and the caller kicks a commit at each copy's end) and one
 * journal unit each for its COPY and UNCOPY records.  ew_md_copy_log
 * logs COPY for lblock at generation gen with its data in page; the
 * commit that makes the record durable writes the slot first.  page
 * stays the caller's; ew_md_copy_release logs UNCOPY and returns true
 * when the slot is not written yet: the page is then md's until the
 * commit wrote it, and given back through page_put.  The slot is free
 * again once the UNCOPY is durable.  ew_md_copy_find: the page of a
 * live copy of lblock at gen, or NULL.
 */
u32 ew_md_copy_slots(struct ew_md *md);
int ew_md_copy_get(struct ew_md *md);
bool ew_md_copy_room(struct ew_md *md);
bool ew_md_copy_held(struct ew_md *md);
void ew_md_copy_drop_pages(struct ew_md *md);
void ew_md_copy_cancel(struct ew_md *md, u32 slot);
u64 ew_md_copy_log(struct ew_md *md, u32 slot, u64 lblock, u32 gen,
		   struct page *page);
bool ew_md_copy_release(struct ew_md *md, u32 slot);
struct page *ew_md_copy_find(struct ew_md *md, u64 lblock, u32 gen);
void ew_md_copy_stats(struct ew_md *md, u32 *used, u32 *total);
/*
 * After a load, the live copies the replay found (no entry holds them):
 * ew_md_copy_recovered gives the next from slot from on (-1: none), under
 * the lock; ew_md_copy_read reads and checks one into buf (process
 * context, -EINVAL when the slot is not the copy the journal names);
 * the target then gives it an entry and a page (ew_md_copy_adopt) or
 * ends it (ew_md_copy_drop: UNCOPY, one unit reserved).
 */
int ew_md_copy_recovered(struct ew_md *md, u32 from, u64 *lblock);
int ew_md_copy_read(struct ew_md *md, u32 slot, void *buf);
void ew_md_copy_adopt(struct ew_md *md, u32 slot, u32 gen,
		      struct page *page);
void ew_md_copy_drop(struct ew_md *md, u32 slot);

/*
 * Under the lock: the metadata copies; bit c of *live, copy c is written;
 * *repairs, blocks read from another copy than the first choice.
 */
void ew_md_mcopies(struct ew_md *md, u32 *n, u32 *live, u64 *repairs);

/* Any context, no lock: the failure latch. */
bool ew_md_failed(struct ew_md *md);

/* Process context. */
int ew_md_commit(struct ew_md *md);
bool ew_md_checkpoint_due(struct ew_md *md);
/*
 * The whole checkpoint at once, at load (clean: the superblock says
 * CLEAN).  A periodic one in progress starts again in it.
 */
int ew_md_checkpoint(struct ew_md *md, bool clean);
/*
 * The same for the checkpoint message, writes going on; the CLEAN flag
 * kept.  -EAGAIN: the live journal copies do not fit in the journal's
 * room now (nothing done but a commit).
 */
int ew_md_checkpoint_now(struct ew_md *md);
/*
 * Clean shutdown, nothing in flight: a commit and a CLEAN superblock;
 * the whole checkpoint only when one is owed (see the definition).
 */
int ew_md_shutdown(struct ew_md *md);
/*
 * The periodic checkpoint, a part of it per call, between commits (see
 * "Checkpoints between commits" in dm-eagerwrite-metadata.c): due
 * (ew_md_checkpoint_due()) until it ends, active once it began.
 * Returns -EAGAIN when it cannot begin, as it cannot carry every live
 * journal copy (it is due again once none is live).
 */
int ew_md_checkpoint_step(struct ew_md *md);
bool ew_md_checkpoint_active(struct ew_md *md);
int ew_md_set_clean(struct ew_md *md, bool clean);
/*
 * The map changed without journal records (the demotions after an
 * unclean shutdown): the next checkpoint writes the map, never only the
 * clean flag.
 */
void ew_md_map_changed(struct ew_md *md);
/*
 * Members whose flush failed since the last call (bit per member); the
 * commit has already failed them in the superblock.
 */
u64 ew_md_member_errors(struct ew_md *md);

/*
 * Process context: member state in the superblock (bit i: member i).
 * ew_md_replace_member relabels bdev as member i (next generation) and
 * checkpoints with i rebuilding; the map must already hold every
 * replica on i stale.
 */
void ew_md_member_state(struct ew_md *md, u64 *failed, u64 *rebuilding);
int ew_md_set_member_state(struct ew_md *md, u64 failed, u64 rebuilding);
int ew_md_replace_member(struct ew_md *md, u32 i, struct block_device *bdev,
			 u64 failed, u64 rebuilding);
void ew_md_forget_member(struct ew_md *md, u32 i);

#endif /* DM_EAGERWRITE_METADATA_H */
