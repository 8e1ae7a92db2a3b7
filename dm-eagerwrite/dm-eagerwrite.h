/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-eagerwrite.h - the eagerwrite target's private header: the objects
 * its files share (the array, its members, delayed replicas, rebuild
 * runs, per-bio data), the rules that go with them (below), the small
 * helpers every file calls, and the calls one file makes into another.
 * The files (Documentation/eagerwrite.rst, "Source layout"):
 *  - dm-eagerwrite-target.c: the module and the target's interface to
 *    dm: constructor and destructor (the array: creation, loading,
 *    sharing between tables), suspend and resume, status, messages;
 *  - dm-eagerwrite-io.c: the I/O path: .map and .end_io, foreground
 *    writes and reads, discards, the bio worker, the commit worker that
 *    completes flushes and FUA writes;
 *  - dm-eagerwrite-propagate.c: the delayed-write queues and their
 *    pages, the propagation worker and its copies (kcopyd, dm-io);
 *  - dm-eagerwrite-failure.c: member errors and failure, the label
 *    probe, read-error repair, dm events;
 *  - dm-eagerwrite-rebuild.c: the scan for stale replicas (resync and
 *    rebuild), rebuild runs, member replacement, the member state;
 *  - dm-eagerwrite-metadata.c: the persistent map, behind its own
 *    header (dm-eagerwrite-metadata.h).
 * A name in quotes ("Locking") is the comment that begins with it: in
 * this header, or "Member failures" and "The label probe" in
 * dm-eagerwrite-failure.c, "Delayed-write pages" in
 * dm-eagerwrite-propagate.c, "Rebuild" and "Rebuild runs" in
 * dm-eagerwrite-rebuild.c.
 *
 * Mirrors a volume over many disks and makes synchronous writes fast by
 * eager writing (Zhang et al., "Configuring and Scheduling an
 * Eager-Writing Disk Array", FAST 2002).  The decisions (geometry,
 * placement, head prediction, free maps, map bookkeeping) live in the
 * portable core (core/); the target's files own the state, the locking,
 * the clock and the I/O.
 *
 * Objects.  struct ew_array is the array: members, map, free maps, head
 * predictors, delayed-write queues, counters.  It is shared by every
 * table of one mapped device that names the same metadata device with
 * the same geometry, so that "dmsetup reload" of the same table (and the
 * swap on resume) keeps the in-memory map, the way dm-thin's pool
 * outlives its targets; another mapped device naming it is refused.
 * struct ew_target is one table's target: its devices and table words.
 *
 * Blocks.  ti->max_io_len is the block size, so dm splits bios at block
 * boundaries, and io_hints advertises block_size as the logical block
 * size: every read and write covers exactly one whole block, and no
 * read-modify-write is ever needed.  This is why block_size is limited to
 * PAGE_SIZE (a block layer limit on logical_block_size).
 *
 * Locking.  One spinlock per array (a->lock, irq-safe: completions run in
 * interrupt context) protects the map, the free maps, the deferred-free
 * list and read epochs, the head predictors and queue counts, the
 * in-flight block table, the delayed-write queues, the bio lists
 * (including the flush/FUA bios waiting for a commit) and the open
 * journal block of dm-eagerwrite-metadata.c, whose "under the lock" calls
 * are made with it held.  It is never held across I/O submission, bio
 * allocation, kcopyd calls or metadata I/O; .map never sleeps.
 * ew_arrays_lock (a mutex) protects the list of arrays and their
 * reference counts (constructor and destructor only); the metadata's
 * process-context calls serialise on its own mutex.
 *
 * Writes.  A write takes the block's cell (struct ew_cell in the
 * in-flight table): writes to one block are serialised, and a write waits
 * for a background copy to a fixed home of that block (both would write
 * the same physical block).  ew_place_write chooses the `sync` foreground
 * replicas: the home for raid10, the free block nearest the predicted
 * head for ddm and ew.  Each is a clone of the bio (FUA kept).  When all
 * foreground replicas completed, the map commits the new generation, the
 * blocks given up go to the deferred-free list, the remaining replicas go
 * to their disks' delayed-write queues and the bio completes.
 *
 * Delayed replicas.  Each entry names (block, replica, generation).  The
 * propagation worker serves a disk's queue when it has no foreground I/O
 * (or when the queues are three quarters full or writers wait), writing
 * it to an eager-placed free block (ew, ddm's partner) or to the fixed
 * home (raid10, ddm's home step).  A copy whose generation is no longer
 * current is stale: it is dropped before it starts, and if it completes
 * late it never becomes current (its block is freed).  The generation
 * check is sound only because of this rule: a copy (a delayed replica or
 * a rebuild run) starts only while no write or discard of its block is in
 * flight (the block's cell is free), so the source it reads holds the
 * data of the generation it names.  A write bumps the generation when it
 * starts but moves the map only when it completes: an entry queued
 * meanwhile (the scan or a read repair found the block busy) names the
 * new generation while the map still points at the old data, and a copy
 * started then would make that old data current after the write
 * completed, over the acknowledged write (the ew sync 2 loss in
 * host-crash-rebuild).  Such an entry waits at the head of its queue
 * until the write completes, which kicks the worker.  Entries are
 * preallocated (delay_queue of them); a write reserves its entries before
 * it starts and, when none are left, waits in the bio worker: nothing is
 * dropped.  A write's delayed replica is written from memory (dm-io): its
 * completion copies the block into a page of the array's preallocated
 * pool (see "Delayed-write pages"), so the copy never reads back the
 * block its member has just written (the paper's Delay).  An entry
 * without a page (the pool was empty, or a repair or resync entry, whose
 * data was never in memory) is copied by kcopyd: it reads an up-to-date
 * replica, then writes it.
 *
 * Free after remap.  A block given up by a remap is pushed on the
 * deferred-free list and returned to its free map only at a safe point:
 * when every read (foreground read or copy source) that started before
 * it was pushed has completed, and the journal block recording the remap
 * that gave it up is durable (ew_md_dfree_safe()): recovery rebuilds the
 * free maps from the durable map, which may still point at it.  Reads
 * enter one of two epochs; a free pushed during epoch e is released once
 * the reads of e and of the epoch before it are done.
 *
 * Discards.  The map forgets whole blocks at once (they read zeros, their
 * eager blocks go to the deferred-free list); for layouts with fixed
 * homes the bio worker also discards the homes on the members while
 * writes and home copies of the range wait.
 *
 * Persistence.  Every map change is journalled under a->lock when it
 * happens (ew_write_done, ew_copy_done, ew_discard), into journal space
 * reserved before the I/O started.  The commit worker (ew_commit_work,
 * kicked by flushes and FUA writes, and every EW_COMMIT_PERIOD) flushes
 * the members written since the last commit and only then writes the
 * journal with FUA (the order is in dm-eagerwrite-metadata.c).  An empty
 * PREFLUSH bio (num_flush_bios = 1) and a FUA write complete when the
 * commit covering every write completed before them (resp. their own
 * record) is durable.  When the journal is half full the commit worker
 * also writes a checkpoint, a step after each commit (the bios that
 * commit covers complete first).  postsuspend commits and marks the
 * superblock clean (ew_md_shutdown(): the whole map only when a
 * checkpoint is owed); preresume marks it in use.  A metadata I/O error
 * makes the array read-only: writes, discards and flushes fail, reads
 * go on.  Loading formats an all-zero metadata device or recovers the
 * map from it; see Documentation/eagerwrite.rst and on-disk-format.rst.
 */

#ifndef DM_EAGERWRITE_H
#define DM_EAGERWRITE_H

#include <linux/device-mapper.h>
#include <linux/dm-kcopyd.h>
#include <linux/module.h>
#include <linux/init.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/ktime.h>
#include <linux/atomic.h>

#include "core/ew_geom.h"
#include "core/ew_disk.h"
#include "core/ew_freemap.h"
#include "core/ew_place.h"
#include "core/ew_table.h"
#include "core/ew_map.h"
#include "core/ew_meta.h"
#include "core/ew_msg.h"
#include "dm-eagerwrite-metadata.h"

#define DM_MSG_PREFIX "eagerwrite"

#define EW_CELL_BITS		10
#define EW_COPIES_PER_DISK	4	/* background copies in flight per disk */
#define EW_MAX_DISCARD_BLOCKS	65536	/* discard bios are split to this */
#define EW_DISCARD_SLICE	512	/* blocks per hold of the lock */
#define EW_COMMIT_PERIOD	HZ	/* periodic commit: bounds lost work */
/*
 * Deferred frees released a lock hold by the commit worker (see
 * ew_release_frees); an I/O completion releases twice Dm.
 */
#define EW_FREES_BATCH		256
#define EW_RESYNC_SCAN		1024	/* blocks scanned per hold of the lock */
/*
 * Member errors (see "Member failures"): a member is failed once it
 * has returned at least EW_FAIL_MIN_ERRORS errors and nothing but errors
 * for EW_FAIL_AFTER_NS; until then it is only avoided, and its queue is
 * retried every EW_ERR_BACKOFF_NS.
 */
#define EW_FAIL_MIN_ERRORS	8
#define EW_FAIL_AFTER_NS	(5 * NSEC_PER_SEC)
#define EW_ERR_BACKOFF_NS	(200 * NSEC_PER_MSEC)
#define EW_WRITE_RETRIES	3	/* re-placements of a write none took */
/*
 * The label probe (see "Member failures"): how often an idle member in
 * an error run has its label read, and how long a probe may stay out
 * before each further period counts as an error.
 */
#define EW_PROBE_PERIOD		HZ
#define EW_PROBE_TIMEOUT_NS	EW_FAIL_AFTER_NS
/*
 * Rebuild: a tick of the scan, its slice under the lock, default rate.
 * A throttled scan (rebuild_rate > 0) is paced every EW_RB_PACE_MS and
 * may save up EW_RB_BURST paces of tokens, no more: at 4 MiB/s a run is
 * then at most 80 KiB, not a whole tick's 400 KiB, and a foreground
 * request on the members waits behind that at most.
 */
#define EW_RB_TICK_MS		100
#define EW_RB_PACE_MS		10
#define EW_RB_BURST		2
#define EW_RB_SLICE		512
#define EW_RB_SCAN_PER_TICK	65536
#define EW_RB_DEFAULT_MIB	32
/*
 * Rebuild runs (see "Rebuild"): blocks per run at most, and what is in
 * flight at most, in runs and in sectors (4 MiB: keeps a replacement
 * busy without a deep queue on the members that serve the reads).
 */
#define EW_RB_RUN_MAX		128
#define EW_RB_RUN_SECTORS	1024	/* 512 KiB per copy */
#define EW_RB_RUNS		32
#define EW_RB_INFLIGHT_SECTORS	8192
/*
 * Gathered runs (see "Rebuild runs"): a gap of at most EW_RB_GAP_MAX
 * blocks between two sources of a run on one member is read through (into
 * a scratch page) rather than costing a request of its own, which on a
 * rotating disk misses the next block and waits a turn; a run reads at
 * most EW_RB_SPAN_MAX blocks in all (its sources and the gaps).
 */
#define EW_RB_GAP_MAX		16
#define EW_RB_SPAN_MAX		(4 * EW_RB_RUN_MAX)
/*
 * The rebuild's sort window (see "Rebuild runs"): the stale replicas of
 * up to EW_RB_WIN logical blocks bound for free blocks of a replacement,
 * taken in logical order and copied in the physical order of their
 * sources (1 MiB of entries, allocated when a rebuild starts; the module
 * parameter rebuild_sort_window sets the entries).
 */
#define EW_RB_WIN		65536
/*
 * The window's bands (see "Rebuild runs"): a band holds about
 * EW_RB_BAND_FILL of a window's entries, chosen from a histogram of the
 * sources' blocks in EW_RB_HIST buckets.
 */
#define EW_RB_HIST		1024
#define EW_RB_BAND_FILL(win)	((win) / 4 * 3)
/*
 * ddm's home replicas rebuilt eagerly (see "Rebuild runs"): while the
 * rebuilding member keeps more than 1/EW_RB_HOME_RESERVE of its region
 * free, for foreground writes.
 */
#define EW_RB_HOME_RESERVE	8
/*
 * Runs yield to foreground I/O (see "Rebuild runs"): while a member has
 * foreground I/O in flight or completed one less than EW_RB_FG_IDLE_NS
 * ago, a new run that reads or writes it starts only when fewer than
 * EW_RB_FG_RUNS runs touch it, and a run grows to EW_RB_FG_RUN_SECTORS at
 * most (64 KiB: one kcopyd sub-job).
 */
#define EW_RB_FG_RUNS		1
#define EW_RB_FG_RUN_SECTORS	128
#define EW_RB_FG_IDLE_NS	(100 * NSEC_PER_MSEC)
/*
 * Delayed replicas written from memory: a copy of the block taken when
 * the write completes, so that the copy need not read back the block its
 * member has just written (the paper's Delay, ewsim).  One page per
 * delay_queue entry, at most the module parameter delay_pages_max per
 * array (default EW_DELAY_PAGES: 64 MiB with 4 KiB pages; 39 MiB at the
 * default delay_queue), preallocated; an entry that finds none is copied
 * by kcopyd (read, then write) and counted (see "Delayed-write pages").
 * Issue 14: with 1024 pages, 89% of ew1's prefill copies read back, and
 * the predictor, which does not see those reads, missed a turn on most
 * writes sent to their members.
 */
#define EW_DELAY_PAGES		16384
#define EW_DELAY_PAGES_MAX	BIT(20)

enum ew_counter {
	EW_C_READS,
	EW_C_WRITES,
	EW_C_FG_WRITES,
	EW_C_BG_WRITES,
	EW_C_EAGER_WRITES,
	EW_C_FLUSHES,
	EW_C_NR
};

struct ew_array;

/* A member's label probe (see "Member failures"); busy, start_ns under a->lock. */
struct ew_probe {
	struct ew_array *a;
	u32 disk;
	bool busy;			/* a probe bio in flight */
	u64 start_ns;			/* ... sent then */
};

/* A block with I/O in flight that others must not overlap. */
struct ew_cell {
	struct hlist_node node;
	u64 lblock;
};

/*
 * What a rebuild read from a member and wrote to it, since the last
 * replacement (ew_replace_member, or a rebuild resumed after a load):
 * requests, blocks (with the gap blocks read through), the lowest and
 * highest block read (the span swept), the blocks jumped over between
 * one read and the next sent, and the reads sent behind the previous
 * one's end (out of physical order).  Logged when the rebuild ends.
 */
struct ew_rb_stat {
	u64 reads, read_blocks, gap_blocks, skipped, back;
	u64 lo, hi, next;
	u64 writes, write_blocks;
};

struct ew_member {
	struct block_device *bdev;
	struct ew_disk model;
	struct ew_head head;
	struct ew_freemap fm;
	bool has_fm;
	u32 copies;			/* background copies in flight */
	/*
	 * Delayed replicas' kcopyd copies in flight that read or write
	 * this member: the predictor sees them only when they end (the
	 * lead does not learn behind them).  Rebuild runs are not counted
	 * here but in rb_runs, which the lead checks too.
	 */
	u32 unseen;
	bool arm_known;			/* a request completed since load */
	struct list_head delayed;	/* queued struct ew_delayed */
	u32 nr_delayed;
	/* errors: see "Member failures" */
	u32 err_run;			/* errors since the last success */
	u64 err_since_ns;		/* first error of that run */
	u64 last_err_ns;
	u64 read_errors;
	u64 write_errors;
	u64 owed;			/* delayed replicas dropped on failure */
	bool rebuilding;		/* replaced: its replicas are rebuilt */
	u64 rb_alloc;			/* rebuild: next free block to try */
	u32 rb_runs;			/* runs formed or in flight from or to it */
	struct ew_rb_stat rbs;		/* the rebuild's I/O on it, a->lock */
	u64 fg_done_ns;			/* its last foreground completion */
	struct ew_probe probe;
};

/*
 * An entry of the rebuild's sort window: logical block lblock, whose
 * stale replicas on rebuilding members are copied from the source key
 * names (its block << 8 | its member: the window sorts by source block
 * first, so that every source member is swept at once).
 */
struct ew_rb_win_ent {
	u64 key;
	u64 lblock;
};

/* One read of a gathered rebuild run: dm-io's completion context. */
struct ew_rb_read {
	struct ew_rb_run *run;
	u32 disk;
};

/*
 * A rebuild run: stale replicas of up to EW_RB_RUN_MAX logical blocks
 * whose destinations lie in one contiguous range of the rebuilding
 * member.  A plain run's sources are one contiguous range of one member,
 * and one kcopyd job copies it; a gathered run's sources are anywhere on
 * the members in src_mask: they are read (sorted by member and block,
 * small gaps read through) into pages of a->rb_pages, then written with
 * one request (see "Rebuild runs").  The logical blocks need not be
 * consecutive.  Its fields are the scan's while it forms (a->lock), then
 * the copy's until ew_rb_done.
 */
struct ew_rb_run {
	struct list_head list;		/* a->rb_idle, or a fill's batch */
	struct ew_array *a;
	u32 n;
	u32 src_disk;			/* the first block's source member */
	u32 dst_disk;
	u32 dst;			/* first destination block */
	u64 src_mask;			/* source members (rb_runs counted) */
	bool to_home;			/* cells held: see "Rebuild" */
	bool gather;			/* sources anywhere: read into pages */
	u8 epoch;
	atomic_t reads;			/* gathered: reads in flight, + 1 */
	atomic_t read_err;		/* ... 1 + the member that failed one */
	atomic_t writes;		/* gathered: writes in flight, + 1 */
	atomic_t write_err;		/* ... one of them failed */
	struct work_struct work;	/* gathered: the write, after the reads */
	u8 srcd[EW_RB_RUN_MAX];		/* each block's source member */
	u32 srcb[EW_RB_RUN_MAX];	/* ... and block there */
	u32 dstb[EW_RB_RUN_MAX];	/* each block's destination, ascending */
	u64 order[EW_RB_RUN_MAX];	/* sources sorted: see ew_rb_gather */
	struct page_list wpl[EW_RB_RUN_MAX];	/* pages, in block order */
	struct page_list rpl[EW_RB_SPAN_MAX];	/* ... in read order */
	struct ew_rb_read rd[EW_RB_RUN_MAX];	/* one a read */
	u64 lblock[EW_RB_RUN_MAX];
	u32 gen[EW_RB_RUN_MAX];		/* generation when the run formed */
	u32 oldp[EW_RB_RUN_MAX];	/* the replica's block then */
	u8 rr[EW_RB_RUN_MAX];		/* the replica rebuilt, on dst_disk */
	struct ew_cell cell[EW_RB_RUN_MAX];
};

/* One delayed replica. */
struct ew_delayed {
	struct list_head list;
	struct ew_cell cell;		/* held while copying to a home */
	struct ew_array *a;
	u64 lblock;
	u32 gen;
	u8 r;
	bool to_home;
	u8 epoch;
	u8 src_r;			/* replica read */
	u32 src_disk;
	u32 src;
	u32 dst_disk;
	u32 dst;
	struct page *page;		/* the data of gen, or NULL */
	u32 slot;			/* its journal copy, or EW_NO_SLOT */
	bool sent;			/* written from page: ew_head_sent */
};

#define EW_NO_SLOT		U32_MAX

struct ew_array {
	struct list_head list;		/* ew_arrays */
	unsigned int refs;		/* under ew_arrays_lock */
	/*
	 * The one mapped device whose tables share this array (a reload
	 * of it keeps the array); set once, compared only.  The array
	 * lives while a table of it exists, so the pointer stays valid.
	 */
	struct mapped_device *owner;
	dev_t meta_dev;
	dev_t meta_mirror_dev;		/* metadata_mirror; 0: none */
	dev_t data_dev[EW_MAX_DISKS];
	struct ew_table_args args;	/* device words cleared */
	struct ew_geom geom;
	u32 nr;
	u32 block_sectors;
	/* where the layout starts on every member (ew_block_sector()) */
	sector_t data_off;
	bool on_members;		/* the metadata is on the members */
	u32 need_delayed;		/* entries a write reserves */
	/*
	 * Replicas a write waits for: args.sync, except with journal_copy
	 * on a rotating metadata device, where a copy would cost a seek:
	 * such a write waits for two replicas (sync 2).  args keeps the
	 * table as given (TABLE reloads it exactly).
	 */
	u32 sync;
	bool jcopy;			/* journal copies written */

	spinlock_t lock;		/* see "Locking" at the top */
	struct ew_member *m;
	struct ew_pdisk *pd;		/* placement view; .queued = fg I/O */
	struct ew_map map;
	struct ew_dfree dfree;
	u64 epoch_start[2];		/* dfree sequence at epoch start */
	u32 readers[2];
	u8 epoch;
	/*
	 * The propagation worker is in a pass (prop_running), and a kick
	 * came meanwhile that it must answer before it stops (prop_again):
	 * see ew_kick_prop_locked()
	 */
	bool prop_running, prop_again;
	/* I/O completions (ew_release_some), and as the commit worker saw */
	u64 io_ends, io_ends_seen;
	/* writes and discards that found the journal buffers full */
	u64 journal_waits;
	struct hlist_head cells[1 << EW_CELL_BITS];
	struct bio_list deferred;	/* waiting for a cell or free space */
	struct bio_list retry;		/* for the worker, may sleep */
	struct ew_delayed *dpool;
	struct list_head dfree_entries;	/* unused struct ew_delayed */
	/* see "Delayed-write pages" */
	struct page **dpages;		/* free pages for delayed data */
	u32 dpages_nr, dpages_free;	/* allocated, free (a stack) */
	u32 dpages_resv;		/* ... promised to journal copies */
	u64 delay_fallbacks;		/* write entries queued with none */
	struct dm_io_client *io;	/* delayed replicas from memory */
	u32 writes;			/* foreground writes in flight */
	u32 delay_used;			/* entries reserved or queued */
	u32 pending;			/* entries queued or copying */
	u32 copies;
	bool suspended;
	bool discarding;		/* homes of [disc_first, disc_end) */
	u64 disc_first;
	u64 disc_end;
	u64 run_start[EW_MAX_DISKS];	/* bio worker: home discard runs */
	u64 run_len[EW_MAX_DISKS];
	u64 err_sum_ns;
	u64 err_count;
	/*
	 * The lead of eager placement (ew_place_lead_update), learned from
	 * eager writes' completions, copied into every pd[].lead_ns.
	 */
	u64 lead_ns;
	/*
	 * The journal slots' own lead, past lead_ns (the commit worker's
	 * path: the block sealed after its slot is chosen, then dm_io),
	 * learned as lead_ns is; jpick_ns and jpred_ns: when the last slot
	 * was chosen and its predicted service (0: none predicted)
	 */
	u64 jlead_ns;
	u64 jpick_ns;
	u64 jpred_ns;
	u64 repairs;			/* replicas rewritten after a bad read */
	/* blocks whose only current replica was on a replaced member */
	unsigned long *lost;
	u64 nr_lost;
	/* rebuild, the scan for stale replicas: see "Rebuild" */
	struct delayed_work rb_work;
	u64 scan_tokens;		/* copies the rate allows now */
	u64 scan_refill_ns;
	struct work_struct state_work;	/* member state to the superblock */
	struct delayed_work probe_work;	/* label probes: "Member failures" */
	u32 probes;			/* label probe bios in flight */
	bool rb_active;
	bool rb_paused;
	u32 rb_rate_mib;		/* MiB/s, 0: unlimited */
	struct ew_rb_run *rb_runs;	/* EW_RB_RUNS of them */
	struct list_head rb_idle;	/* runs not in flight */
	u32 rb_inflight;		/* runs in flight */
	u64 rb_sectors;			/* ... and their sectors */
	u64 rb_blocks;			/* ... and their blocks */
	/* gathered runs' pages (a stack, a->lock) and gap page */
	struct page **rb_pages;
	u32 rb_pages_nr, rb_pages_free;
	struct page *rb_gap_page;
	/*
	 * The sort window (see "Rebuild runs"): entries are filled and
	 * sorted by the scan alone (prop_work: one at a time); the counts
	 * change under a->lock.  Filled while !rb_win_sorted, then taken
	 * from rb_win_pos to rb_win_n.
	 */
	struct ew_rb_win_ent *rb_win;
	u32 rb_win_max;			/* its entries */
	u32 rb_win_n, rb_win_pos;
	bool rb_win_sorted;
	/*
	 * Its bands (see "Rebuild runs"), also the scan's alone under
	 * a->lock: a pass of the scan puts a block into the window only when
	 * its source block is below rb_band_hi (0: the first pass only
	 * counts), and counts the others in rb_band_hist by source block >>
	 * rb_band_shift (rb_band_more); the next pass raises rb_band_hi.
	 * rb_band_base/cur/total: blocks of the bands before this one, of
	 * this one, and of all (the first pass's count), for the progress.
	 */
	u32 *rb_band_hist;		/* EW_RB_HIST buckets */
	u32 rb_band_shift;
	bool rb_band_more;
	u64 rb_band_hi;
	u64 rb_band_base, rb_band_cur, rb_band_total;
	u32 rb_bands;			/* passes with a band, for the log */
	/*
	 * ddm: home replicas a rebuild wrote to free blocks (a->lock), and
	 * the scan's pass that moves them home is running (rb_homes_pass)
	 */
	u64 rb_homes_off;
	bool rb_homes_pass;
	struct bio_list read_retry;	/* reads to send to another replica */
	atomic64_t counters[EW_C_NR];
	struct ew_md *md;		/* the persistent map */
	struct bio_list commit_wait;	/* flush and FUA bios: io->commit_seq */
	u64 lost_seen;			/* ew_md_lost_seq() handled */
	bool lost_pending;		/* ... and no waiter was told yet */
	u64 resync_next;		/* stale-replica scan cursor */

	wait_queue_head_t throttle_wait;
	wait_queue_head_t copy_wait;
	struct workqueue_struct *wq;
	struct work_struct bio_work;
	struct workqueue_struct *prop_wq;
	struct work_struct prop_work;
	struct workqueue_struct *commit_wq;
	struct delayed_work commit_work;
	struct delayed_work backoff_work;	/* kicks prop_work later */
	/*
	 * dm events (dm_table_event) for a member failed, a rebuild
	 * started, paused, resumed or ended, a block lost, the metadata
	 * read-only: ew_event() queues event_work, from any context;
	 * event_work raises it on the live table's target event_ti.
	 * event_ti is set in resume and cleared in postsuspend (then
	 * event_work is flushed), under event_lock: an event while no table
	 * is live is not raised (resume raises one if a rebuild runs).
	 */
	struct work_struct event_work;
	struct mutex event_lock;	/* event_ti against the work */
	struct dm_target *event_ti;
	bool md_failed_seen;		/* commit worker: read-only raised */
	struct dm_kcopyd_client *kc;
	struct bio_set bs;
};

struct ew_target {
	struct dm_target *ti;
	struct ew_array *a;
	struct ew_table_args args;	/* device words cleared */
	struct dm_dev *meta;
	struct dm_dev *meta_mirror;	/* metadata_mirror; or NULL */
	struct dm_dev *dev[EW_MAX_DISKS];
	u32 nr;
	sector_t data_off;		/* the layout's start on each member */
	bool on_members;		/* metadata "-": on the members */
};

enum ew_io_kind {
	EW_IO_READ = 1,
	EW_IO_WRITE,
	EW_IO_FLUSH,
	EW_IO_OTHER,
};

/* Per-bio data. */
struct ew_io {
	struct ew_cell cell;
	struct ew_array *a;
	u64 lblock;
	u64 start_ns;
	struct bvec_iter iter;		/* read: as .map saw it, for a retry */
	u64 pred_ns[EW_MAX_MIRRORS];
	u32 newp[EW_MAX_MIRRORS];
	u32 gen;
	u32 disk;			/* read: the member read */
	atomic_t pending;
	blk_status_t status;
	u8 kind;
	u8 fg_mask;
	u8 ok_mask;
	u8 epoch;
	u8 reserved;
	u8 jres;			/* journal records reserved */
	u8 rep;				/* read: the replica read */
	u8 lead_mask;			/* write: replicas the lead learns from */
	u8 retries;
	bool tracked;			/* read: counted in queue and epoch */
	u64 commit_seq;			/* flush, FUA: journal block waited for */
	u32 slot;			/* write: copy slot reserved */
};

/*
 * A foreground replica write: the clone of a write bio, in front of
 * which a->bs keeps the replica it writes (front_pad), so that its
 * completion needs no guess from the device it went to.
 */
struct ew_clone {
	u32 r;
	struct bio bio;		/* last: bio_alloc_clone's front_pad */
};

/* ---------------------------------------------------------------- */
/* Small helpers, all called with a->lock held unless said otherwise. */

static inline u64 ew_now(void)
{
	return ktime_get_ns();
}

static inline void ew_count(struct ew_array *a, enum ew_counter c)
{
	atomic64_inc(&a->counters[c]);
}

static inline struct hlist_head *ew_cell_bucket(struct ew_array *a, u64 lblock)
{
	return &a->cells[hash_64(lblock, EW_CELL_BITS)];
}

static inline bool ew_cell_busy(struct ew_array *a, u64 lblock)
{
	struct ew_cell *c;

	hlist_for_each_entry(c, ew_cell_bucket(a, lblock), node)
		if (c->lblock == lblock)
			return true;
	return false;
}

static inline bool ew_in_discard(struct ew_array *a, u64 lblock)
{
	return a->discarding && lblock >= a->disc_first &&
		lblock < a->disc_end;
}

static inline void ew_cell_hold(struct ew_array *a, struct ew_cell *c,
				u64 lblock)
{
	c->lblock = lblock;
	hlist_add_head(&c->node, ew_cell_bucket(a, lblock));
}

/* Returns true when deferred bios should be retried. */
static inline bool ew_cell_release(struct ew_array *a, struct ew_cell *c)
{
	hlist_del_init(&c->node);
	return !bio_list_empty(&a->deferred);
}

/*
 * A physical block's sector on its member: the layout starts after the
 * member label (a->data_off).  Every member I/O goes through here.
 */
static inline sector_t ew_block_sector(struct ew_array *a, u64 pblock)
{
	return a->data_off + pblock * a->block_sectors;
}

static inline u8 ew_epoch_enter(struct ew_array *a)
{
	a->readers[a->epoch]++;
	return a->epoch;
}

static inline void ew_kick_bios(struct ew_array *a)
{
	queue_work(a->wq, &a->bio_work);
}

static inline void ew_kick_prop(struct ew_array *a)
{
	queue_work(a->prop_wq, &a->prop_work);
}

/*
 * A kick under a->lock: while the worker runs a pass it is only noted,
 * and the worker looks again before it stops.  A copy that completes
 * inside its own submission (a member that completes bios at once) used
 * to queue a second run of the worker for every copy, that found
 * nothing new to do.
 */
static inline void ew_kick_prop_locked(struct ew_array *a)
{
	lockdep_assert_held(&a->lock);
	if (a->prop_running)
		a->prop_again = true;
	else
		ew_kick_prop(a);
}

/* A commit now (any context; the periodic one is re-armed after it). */
static inline void ew_kick_commit(struct ew_array *a)
{
	mod_delayed_work(a->commit_wq, &a->commit_work, 0);
}

/* dm-eagerwrite-io.c */
void ew_replicas(struct ew_array *a, u64 lblock, struct ew_replica *rep,
		 u32 *home);
void ew_head_sent(struct ew_array *a, u32 disk, u32 pblock, u64 now,
		  u64 cost);
void ew_head_done(struct ew_array *a, u32 disk, u32 pblock,
		  u64 start_ns, u64 pred_ns, u64 end_ns);
void ew_head_seen(struct ew_array *a, u32 disk, u32 pblock, u64 now);
/* The metadata's journal slots on the holders (struct ew_md_config). */
u32 ew_jplace(void *ctx, const struct ew_md_jplace *q);
void ew_jdone(void *ctx, const struct ew_md_jplace *q, u32 slot);
void ew_members_nonrot(struct ew_array *a);
void ew_defer_free(struct ew_array *a, u32 disk, u32 pblock);
void ew_epoch_exit(struct ew_array *a, u8 epoch);
void ew_bio_work(struct work_struct *work);
void ew_commit_work(struct work_struct *work);
int ew_map(struct dm_target *ti, struct bio *bio);
int ew_end_io(struct dm_target *ti, struct bio *bio,
	      blk_status_t *error);

/* dm-eagerwrite-propagate.c */
void ew_delayed_unpage(struct ew_array *a, struct ew_delayed *d);
void ew_delayed_page(struct ew_array *a, struct ew_delayed *d,
		     struct bio *bio, bool resv);
void ew_copy_page_put(void *ctx, struct page *page);
void ew_delayed_put(struct ew_array *a, struct ew_delayed *d);
struct ew_delayed *ew_delayed_queue(struct ew_array *a, u64 lblock,
				    u32 gen, u32 r, u32 disk,
				    bool to_home);
void ew_copy_wake(struct ew_array *a, bool kick_bios);
void ew_prop_work(struct work_struct *work);
void ew_backoff_work(struct work_struct *work);

/* dm-eagerwrite-failure.c */
bool ew_member_avoid(struct ew_array *a, u32 disk);
void ew_event(struct ew_array *a);
void ew_event_work(struct work_struct *work);
void ew_member_fail(struct ew_array *a, u32 disk, const char *why);
void ew_probe_arm(struct ew_array *a);
void ew_member_error(struct ew_array *a, u32 disk, bool write);
void ew_member_ok(struct ew_array *a, u32 disk);
bool ew_probe_wanted(struct ew_array *a, u32 disk);
void ew_probe_work(struct work_struct *work);
bool ew_read_failed(struct ew_array *a, u64 lblock, u32 r, u32 disk,
		    u32 pblock);
bool ew_other_replica(struct ew_array *a, u64 lblock, u32 disk,
		      u32 pblock);

/* dm-eagerwrite-rebuild.c */
bool ew_resync_fill(struct ew_array *a, bool *backoff);
u64 ew_resync_done(struct ew_array *a);
void ew_rebuild_work(struct work_struct *work);
void ew_member_masks(struct ew_array *a, u64 *failed, u64 *rebuilding);
void ew_member_state_sync(struct ew_array *a);
void ew_state_work(struct work_struct *work);
int ew_replace_member(struct ew_array *a, u32 i,
		      struct block_device *bdev);
void ew_array_member_state(struct ew_array *a);
void ew_rebuild_free(struct ew_array *a);

#endif
