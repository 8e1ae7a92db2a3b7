// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-eagerwrite-rebuild.c - rebuild and resync: the scan for stale
 * replicas (after a load, after a read-error repair gave up, for a
 * replaced member), the rebuild runs it forms, member replacement and
 * the member state the superblock keeps.
 */

#include <linux/sort.h>

#include "dm-eagerwrite.h"

static unsigned int rebuild_sort_window = EW_RB_WIN;
module_param(rebuild_sort_window, uint, 0644);
MODULE_PARM_DESC(rebuild_sort_window,
		 "Entries of an ew rebuild's sort window, 16 bytes each, read when the first rebuild of an array starts (256 to 16777216, default 65536)");

/*
 * The scan for stale replicas, one for every reason a replica is stale:
 * after a load (delayed replicas not propagated before the shutdown or
 * crash, raid10 replicas demoted after an unclean shutdown, ddm copies
 * not yet at home), after read-error repair gave up, and for a rebuild
 * (a replacement member, every replica on it stale: ew_replace_member).
 * It walks the map from resync_next, putting each stale replica on a
 * rebuilding member into a rebuild run, or first into the sort window
 * (see "Rebuild runs"), and queueing a delayed replica for every other
 * stale replica on a live member; the propagation worker copies those
 * like any other.  Bounds:
 * EW_RESYNC_SCAN blocks per hold of the lock, at most half of
 * delay_queue in use (writers keep the other half), the runs in flight
 * (EW_RB_RUNS, EW_RB_INFLIGHT_SECTORS), and the rate: scan_tokens
 * copies, refilled at rb_rate_mib MiB/s up to EW_RB_BURST paces' worth
 * (EW_RB_PACE_MS each); when they run out rb_work kicks the scan a pace
 * later.  "rebuild pause" stops it where it is.  A crash loses nothing
 * of it: every stale mark and every completed copy is in the map's
 * journal, so the scan after reassembly finds exactly what is left.
 * Returns true when it stopped with blocks left and room to go on.
 */
static void ew_scan_refill(struct ew_array *a, u64 now)
{
	const u64 tick_ns = EW_RB_TICK_MS * NSEC_PER_MSEC;
	u64 per_tick, add, cap;

	if (!a->rb_rate_mib) {
		a->scan_tokens = EW_RB_SCAN_PER_TICK;
		a->scan_refill_ns = now;
		return;
	}
	/* blocks per tick at the rate, at least one */
	per_tick = div_u64((u64)a->rb_rate_mib * (SZ_1M >> SECTOR_SHIFT) *
			   EW_RB_TICK_MS, MSEC_PER_SEC * a->block_sectors);
	per_tick = max_t(u64, per_tick, 1);
	/* a tick's worth at most, which also keeps the product small */
	if (now - a->scan_refill_ns > tick_ns)
		a->scan_refill_ns = now - tick_ns;
	add = div64_u64((now - a->scan_refill_ns) * per_tick, tick_ns);
	if (!add)
		return;
	/* the time of the tokens given, not now: no fraction is lost */
	a->scan_refill_ns += div64_u64(add * tick_ns, per_tick);
	/* EW_RB_BURST paces' worth saved at most: short runs, often */
	cap = max_t(u64, div_u64(per_tick * EW_RB_PACE_MS * EW_RB_BURST,
				 EW_RB_TICK_MS), 1);
	a->scan_tokens = min(a->scan_tokens + add, cap);
}

/*
 * Rebuild runs.  A stale replica on a rebuilding member is not queued as
 * a delayed replica: the scan gathers such replicas into runs (struct
 * ew_rb_run) whose destinations are ascending blocks of the rebuilding
 * member (consecutive, except that a gathered run's free blocks may skip
 * blocks that are not free), up to EW_RB_RUNS runs and
 * EW_RB_INFLIGHT_SECTORS in flight.
 * The destination of a replica is its fixed home (raid10, ddm's home),
 * else the block the replica still maps (a read repair's), else a free
 * block, the one after the run's last when it is free.  The scan walks
 * logical blocks in order, and so the homes of a member in order: a
 * raid10 or ddm rebuild writes its replacement sequentially.  A raid10
 * run to homes is plain: its sources are consecutive blocks of one
 * member (the partner's homes), copied by one kcopyd job.  A ddm home's
 * source is the partner's eagerly written replica, anywhere on that
 * member, so ddm's runs to homes are gathered like the runs below (a
 * plain run would end at every source that is not the next block: one
 * kcopyd job a block).
 *
 * A replica without a home on a replaced member maps no block
 * (ew_member_stale_all gave them up: eager writing scattered them, and
 * runs to them were one block long), so an ew rebuild, and ddm's
 * partner replicas, write free blocks of the replacement in order from
 * its first (m->rb_alloc).  Their sources are where eager writing put
 * them on the surviving members: such a run is gathered when the block
 * is a page and a->rb_pages has a page for each of its blocks
 * (EW_RB_INFLIGHT_SECTORS worth, allocated when a rebuild starts;
 * without them runs are plain).  A gathered run takes its sources from
 * any member (src_mask), so that every member holding a partner is read
 * at once; they are sorted by member and block and read with one request
 * per stretch, a gap of up to EW_RB_GAP_MAX blocks between two sources
 * read through into a scratch page (a->rb_gap_page): on a rotating disk a
 * request of its own for the next source would miss it and wait most of
 * a turn, reading the gap costs its transfer only.  The destination is
 * written once every read is done, one request a stretch of consecutive
 * blocks (ew_rb_write_work, on prop_wq: dm_io() may sleep).  A run to
 * free blocks does not end where the free blocks do: on ddm the
 * replacement's free blocks come in stretches between home chunks (32
 * blocks then 16 at dilution 2), and runs that ended with each stretch
 * read the partner in requests of about 48 blocks, the next starting
 * where the last ended: on a rotating disk each such request misses its
 * first block by the controller's overhead and waits most of a turn
 * (4.5 ms a read, the rebuild 0.56 of the spare's rate).  So the run
 * goes on into the next stretch, and its reads stay long; not while a
 * member it touches has foreground I/O (below), which would wait behind
 * each of its stretches.
 *
 * Such runs are formed in the physical order of their sources, not in
 * logical order: eager writing put a logical range's replicas anywhere
 * on the partner, and runs of logically consecutive blocks read across
 * each other's sources (each reads through gaps holding the next run's,
 * which are read again: an ew rebuild read 17,345 blocks for 12,288
 * replicas, 0.54 of the spare's rate).  So on ew the scan puts a
 * block whose stale replicas all go to free blocks into a sort window
 * (a->rb_win, up to EW_RB_WIN blocks, allocated with the pages) keyed
 * by its source
 * (block, then member: every source member is swept at once), and once
 * the window is full or the scan has reached the end of the map, sorts
 * it (outside the lock) and takes its blocks in that order, each checked
 * again as the scan checks a block, into runs whose destinations are
 * allocated in the same order: the sources are read in one sweep per
 * window, each at most once, and the replacement is written in order.
 * A window's worth taken in logical order has its sources all over the
 * member, so with more such blocks than a window the scan works in bands
 * of source blocks: its first pass only counts them by source block
 * (a->rb_band_hist), each later pass starts over from block 0 and takes
 * into the window the blocks whose source block is below the band's end
 * (a->rb_band_hi, chosen by ew_rb_band_next for about three quarters of
 * a window) and counts the rest again: one sweep per band, each at the
 * density of the stale replicas, for a pass over the map per band.  A
 * block whose source moved below the band since is taken by the band
 * that sees it; the last band takes everything.  A band starts once the
 * runs of the one before are done (their blocks are stale until then).
 * ddm's home replicas are rebuilt the same way: the source of a home is
 * the partner's replica, which eager writing put anywhere on the
 * partner, so runs to homes in logical order read it a block at a time
 * all over the member (0.17 of the spare's rate on hddsim).  With a
 * window, a rotational partner (a non-rotational one skips the window:
 * see ew_rb_win_add), and while the member keeps more than
 * 1/EW_RB_HOME_RESERVE of its region free (ew_rb_home_eager), a stale
 * home replica goes to a free block like a partner replica, in source
 * order; once every replica is current the member is rebuilt, and the
 * rebuild makes one more pass of the scan (a->rb_homes_pass), which
 * queues each ddm copy away from its home as a delayed replica to its
 * home, as after a load: the array is redundant at the sweep's rate,
 * and the copies go home when the members have nothing else to do, as
 * a ddm write's do.  Runs to fixed homes (raid10, ddm otherwise) and to
 * a replica's own block keep logical order: their destinations are
 * fixed.  Without a window (no memory), runs are formed in logical
 * order.
 *
 * Runs yield to foreground I/O on the members they touch: while a member
 * has foreground requests in flight (pd.queued) or completed one in the
 * last EW_RB_FG_IDLE_NS, a run reading or writing it grows to
 * EW_RB_FG_RUN_SECTORS at most, by a consecutive source on the same
 * member only (a gathered read is a seek in front of the request), and a
 * new one starts only when fewer than EW_RB_FG_RUNS runs touch it
 * (m->rb_runs, a->lock), so a foreground request waits behind about one
 * short run, not 4 MiB; the scan stops there, and the completion of a
 * run touching that member kicks it again.  Only the first run of a
 * block may yield (a block with two rebuilding replicas is added whole),
 * so a busy member may carry EW_RB_FG_RUNS + mirrors - 1 runs at most.
 *
 * The rule that keeps a rebuild from copying a stale replica or racing a
 * foreground write (the same as for delayed replicas):
 * - a run records, under a->lock, each block's generation and the block
 *   its replica maps; when the run completes, a block's replica becomes
 *   current only if, under a->lock again, the generation is the same, the
 *   replica is still stale and still maps that block (no write, discard
 *   or other copy of the block came in between); otherwise the copy is
 *   dropped, and a destination allocated for it is freed.  ew_rb_done
 *   runs only once the run's write has completed (kcopyd's callback, or
 *   dm-io's for a gathered run), so a replica is marked current only
 *   when its data is on the replacement; its journal record commits
 *   before any later flush or FUA is acknowledged, as for any copy;
 * - a run whose destinations are fixed homes holds the blocks' cells for
 *   the whole copy, so a write or discard of those blocks (which would
 *   write the same home) waits for it; a block whose cell is busy when
 *   the scan reaches it (a write in flight) or that is being discarded
 *   gets a delayed replica instead, which the write supersedes or follows;
 * - the run is a reader in a read epoch until it completes, so neither
 *   its sources nor a destination the replica gave up meanwhile is freed
 *   and reused under it (see "Free after remap").
 * A failed run (a read or write error, in any of its requests) commits
 * nothing and moves the scan back to its first block: the scan finds
 * again what is still stale.
 */

/*
 * The run of the fill's batch that may grow on member disk with a block
 * to its home (to_home) or to a free block, or NULL.  The two kinds are
 * kept apart: on ddm a rebuilding member holds the homes of half its
 * pair's blocks and the eager replicas of the other half, which come
 * alternately in the scan's logical order, so a single open run would
 * end at every block.
 */
static struct ew_rb_run *ew_rb_open(struct list_head *batch, u32 disk,
				    bool to_home)
{
	struct ew_rb_run *run, *open = NULL;

	list_for_each_entry(run, batch, list)
		if (run->dst_disk == disk && run->to_home == to_home)
			open = run;
	return open;
}

static u32 ew_rb_run_max(struct ew_array *a, bool busy)
{
	u32 sectors = busy ? EW_RB_FG_RUN_SECTORS : EW_RB_RUN_SECTORS;

	return clamp_t(u32, sectors / a->block_sectors, 1, EW_RB_RUN_MAX);
}

/*
 * Foreground I/O on member disk, in flight or just done: at QD1 a member
 * is idle between one request and the next, and runs formed in that gap
 * would stand in front of the next one.  a->lock held.
 */
static bool ew_rb_fg_busy(struct ew_array *a, u32 disk, u64 now)
{
	return a->pd[disk].queued ||
	       now - a->m[disk].fg_done_ns < EW_RB_FG_IDLE_NS;
}

/*
 * ddm: whether a stale home replica on rebuilding member disk is written
 * to a free block of it, in the order of its source, instead of to its
 * home (see "Rebuild runs"): with a sort window, when its source (the
 * pair's other member) is rotational, while the member keeps more than
 * 1/EW_RB_HOME_RESERVE of its region free.  a->lock held.
 */
static bool ew_rb_home_eager(struct ew_array *a, u32 disk, u32 home)
{
	struct ew_member *m = &a->m[disk];

	return home != EW_MAP_NONE && a->geom.p.layout == EW_LAYOUT_DDM &&
	       a->rb_win && a->rb_pages_nr && m->has_fm &&
	       !a->pd[disk ^ 1].nonrot &&
	       m->fm.nr_free > div_u64(a->geom.region_blocks,
				       EW_RB_HOME_RESERVE);
}

/*
 * Where replica r of lblock (stale, on rebuilding member disk) is copied
 * to: its home (unless eager: ew_rb_home_eager), its own block, or a
 * free block (*fresh; not yet allocated), EW_MAP_NONE when the member
 * has none.  a->lock held.
 */
static u32 ew_rb_dst(struct ew_array *a, u64 lblock, u32 r, u32 disk,
		     u32 home, bool eager, struct ew_rb_run *open,
		     bool *fresh)
{
	struct ew_member *m = &a->m[disk];
	u32 p = ew_map_pblock(&a->map, lblock, r);
	u64 b;

	*fresh = false;
	if (home != EW_MAP_NONE && !eager)
		return home;
	if ((p != EW_MAP_NONE && p != home) || !m->has_fm)
		return p;
	*fresh = true;
	if (open && !open->to_home &&
	    ew_freemap_is_free(&m->fm, (u64)open->dstb[open->n - 1] + 1))
		return open->dstb[open->n - 1] + 1;
	b = ew_freemap_find_free(&m->fm, m->rb_alloc, a->geom.region_blocks);
	if (b == EW_NO_BLOCK)
		b = ew_freemap_find_free(&m->fm, 0, a->geom.region_blocks);
	return b == EW_NO_BLOCK ? EW_MAP_NONE : (u32)b;
}

/*
 * Adds stale replica r of lblock, on rebuilding member rep[r].disk, to a
 * run of batch (growing the open one or taking an idle one).  The caller
 * checked that journal room and in-flight room are there, and an idle
 * run for each replica of a block with more than one to copy.  Returns
 * false when the block cannot be copied now (no free block on the
 * member, no idle run for a new one, or may_yield and it would start a
 * run on a member busy with foreground I/O that has its share: see
 * "Rebuild runs"): the scan stops there.  a->lock held.
 */
static bool ew_rb_add(struct ew_array *a, struct list_head *batch,
		      u64 lblock, u32 r, const struct ew_replica *rep,
		      const u32 *home, u8 up, u64 now, bool may_yield)
{
	u32 sdisk[EW_MAX_MIRRORS], disk = rep[r].disk;
	u64 sblock[EW_MAX_MIRRORS];
	bool eager = ew_rb_home_eager(a, disk, home[r]);
	bool to_home = home[r] != EW_MAP_NONE && !eager;
	struct ew_rb_run *run = ew_rb_open(batch, disk, to_home);
	u32 k, n = 0, avoid = 0, src = EW_MAP_NONE, sd = 0, dst;
	struct ew_choice ch;
	bool fresh, grow, busy, next;

	for (k = 0; k < a->geom.p.mirrors; k++) {
		if (!(up & (1U << k)) || a->pd[rep[k].disk].failed)
			continue;
		sdisk[n] = rep[k].disk;
		sblock[n] = ew_map_pblock(&a->map, lblock, k);
		if (ew_member_avoid(a, sdisk[n]))
			avoid |= 1U << n;
		n++;
	}
	/* every up-to-date replica on a failed member: owed, as delayed */
	if (!n) {
		a->m[disk].owed++;
		return true;
	}
	/* the open run's last source member, at its next block */
	for (k = 0; run && k < n; k++)
		if (sdisk[k] == run->srcd[run->n - 1] &&
		    sblock[k] == (u64)run->srcb[run->n - 1] + 1 &&
		    !(avoid & (1U << k))) {
			sd = sdisk[k];
			src = (u32)sblock[k];
		}
	if (src == EW_MAP_NONE) {
		if (ew_place_read(a->pd, sdisk, sblock, n, avoid,
				  a->block_sectors, a->block_sectors, now,
				  &ch) &&
		    ew_place_read(a->pd, sdisk, sblock, n, 0, a->block_sectors,
				  a->block_sectors, now, &ch))
			return true;	/* not reached: n > 0 live sources */
		sd = ch.disk;
		src = (u32)ch.block;
	}
	dst = ew_rb_dst(a, lblock, r, disk, home[r], eager, run, &fresh);
	if (dst == EW_MAP_NONE)
		return false;
	busy = ew_rb_fg_busy(a, sd, now) || ew_rb_fg_busy(a, disk, now);
	next = run && sd == run->srcd[run->n - 1] &&
	       src == run->srcb[run->n - 1] + 1;
	/*
	 * A gathered run's free blocks ascend but may skip blocks that are
	 * not free (ddm's home chunks between its free stretches): each
	 * stretch is a write of its own, and the run, its sources' reads
	 * with it, is not cut short (see "Rebuild runs").  Not while a
	 * member of it has foreground I/O: a foreground request would wait
	 * behind every stretch.
	 */
	grow = run && run->n < ew_rb_run_max(a, busy) &&
	       run->to_home == to_home &&
	       (dst == run->dstb[run->n - 1] + 1 ||
		(run->gather && fresh && !busy &&
		 dst > run->dstb[run->n - 1])) &&
	       (run->gather ? a->rb_pages_free && (next || !busy) : next);
	/* yield: before the free block is taken, nothing to undo */
	if (!grow && may_yield &&
	    ((ew_rb_fg_busy(a, sd, now) && a->m[sd].rb_runs >= EW_RB_FG_RUNS) ||
	     (ew_rb_fg_busy(a, disk, now) &&
	      a->m[disk].rb_runs >= EW_RB_FG_RUNS)))
		return false;
	/* every run in flight: this one must wait (see ew_resync_fill) */
	if (!grow && list_empty(&a->rb_idle))
		return false;
	if (fresh && ew_freemap_alloc(&a->m[disk].fm, dst))
		return false;
	if (fresh)
		a->m[disk].rb_alloc = (u64)dst + 1;
	if (!grow) {
		run = list_first_entry(&a->rb_idle, struct ew_rb_run, list);
		list_move_tail(&run->list, batch);
		run->n = 0;
		run->src_disk = sd;
		run->src_mask = 0;
		run->dst_disk = disk;
		run->dst = dst;
		run->to_home = to_home;
		run->gather = a->rb_pages_free > 0;
		run->epoch = ew_epoch_enter(a);
		a->rb_inflight++;
		a->m[disk].rb_runs++;
		a->copies++;
	}
	/* each source member counts the run once */
	if (!(run->src_mask & BIT_ULL(sd))) {
		run->src_mask |= BIT_ULL(sd);
		a->m[sd].rb_runs++;
	}
	ew_md_reserve(a->md, 1);	/* the caller saw the room */
	if (run->gather)
		run->wpl[run->n].page = a->rb_pages[--a->rb_pages_free];
	run->srcd[run->n] = (u8)sd;
	run->srcb[run->n] = src;
	run->dstb[run->n] = dst;
	run->lblock[run->n] = lblock;
	run->gen[run->n] = ew_map_gen(&a->map, lblock);
	run->oldp[run->n] = ew_map_pblock(&a->map, lblock, r);
	run->rr[run->n] = (u8)r;
	if (run->to_home)
		ew_cell_hold(a, &run->cell[run->n], lblock);
	run->n++;
	a->rb_sectors += a->block_sectors;
	a->rb_blocks++;
	return true;
}

/*
 * Counts a rebuild read of nr blocks from member disk at block first, gap
 * of them read through, in the order reads are sent (struct ew_rb_stat).
 * Takes a->lock.
 */
static void ew_rb_stat_read(struct ew_array *a, u32 disk, u64 first, u32 nr,
			    u32 gap)
{
	struct ew_rb_stat *s = &a->m[disk].rbs;
	u64 last = first + nr - 1;
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	if (!s->reads) {
		s->lo = first;
		s->hi = last;
	} else if (first < s->next) {
		s->back++;
	} else if (first > s->hi) {
		/*
		 * Past the furthest block read: counted from the last
		 * read's end, reads back and forth (null_blk's ddm, no
		 * window) counted the same blocks again and again.
		 */
		s->skipped += first - s->hi - 1;
	}
	s->lo = min(s->lo, first);
	s->hi = max(s->hi, last);
	s->next = last + 1;
	s->reads++;
	s->read_blocks += nr;
	s->gap_blocks += gap;
	spin_unlock_irqrestore(&a->lock, flags);
}

/* Counts a rebuild write of nr blocks to member disk.  Takes a->lock. */
static void ew_rb_stat_write(struct ew_array *a, u32 disk, u32 nr)
{
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	a->m[disk].rbs.writes++;
	a->m[disk].rbs.write_blocks += nr;
	spin_unlock_irqrestore(&a->lock, flags);
}

static bool ew_resync_left(struct ew_array *a);

static void ew_rb_done(int read_err, unsigned long write_err, void *context)
{
	struct ew_rb_run *run = context;
	struct ew_array *a = run->a;
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], r, j, dst, freed, logged = 0;
	u32 err_disk = run->src_disk;
	u8 bit, up;
	bool ok = !read_err && !write_err, kick_bios = false;
	unsigned long flags;
	u64 now = ew_now(), l, mask;

	/* a gathered run names the member whose read failed */
	if (run->gather && atomic_read(&run->read_err))
		err_disk = atomic_read(&run->read_err) - 1;
	spin_lock_irqsave(&a->lock, flags);
	/* no prediction to judge (kcopyd reports only the end of both) */
	ew_head_seen(a, run->srcd[run->n - 1], run->srcb[run->n - 1], now);
	ew_head_seen(a, run->dst_disk, run->dstb[run->n - 1], now);
	if (!ok) {
		DMERR_LIMIT("rebuild copy of %u blocks from member %u to member %u failed (%s)",
			    run->n, err_disk, run->dst_disk,
			    read_err ? "read" : "write");
		if (read_err)
			ew_member_error(a, err_disk, false);
		if (write_err)
			ew_member_error(a, run->dst_disk, true);
		/* the scan comes back for what is still stale */
		for (j = 0; j < run->n; j++)
			a->resync_next = min(a->resync_next, run->lblock[j]);
	}
	for (mask = run->src_mask; mask; mask &= mask - 1) {
		j = __ffs64(mask);
		if (ok)
			ew_member_ok(a, j);
		a->m[j].rb_runs--;
	}
	if (ok)
		ew_member_ok(a, run->dst_disk);
	for (j = 0; j < run->n; j++) {
		l = run->lblock[j];
		r = run->rr[j];
		bit = 1U << r;
		dst = run->dstb[j];
		up = ew_map_uptodate(&a->map, l);
		ew_replicas(a, l, rep, home);
		/* the rule in "Rebuild runs" */
		if (ok && !a->pd[run->dst_disk].failed &&
		    ew_map_gen(&a->map, l) == run->gen[j] && up && !(up & bit) &&
		    ew_map_pblock(&a->map, l, r) == run->oldp[j]) {
			ew_map_commit_copy(&a->map, l, run->gen[j], r, dst,
					   home[r], &freed);
			/* the record before the free, as for writes */
			ew_md_log_bg(a->md, l, bit);
			ew_defer_free(a, run->dst_disk, freed);
			ew_count(a, EW_C_BG_WRITES);
			logged++;
			/* ddm's home replica, eagerly: moved home later */
			if (home[r] != EW_MAP_NONE && dst != home[r])
				a->rb_homes_off++;
		} else if (dst != home[r] && dst != run->oldp[j]) {
			/* a block allocated for the copy, never mapped */
			ew_defer_free(a, run->dst_disk, dst);
		}
		if (run->to_home)
			kick_bios |= ew_cell_release(a, &run->cell[j]);
		if (run->gather)
			a->rb_pages[a->rb_pages_free++] = run->wpl[j].page;
	}
	if (logged)
		ew_md_member_dirty(a->md, run->dst_disk, false);
	ew_md_unreserve(a->md, run->n - logged);
	a->rb_inflight--;
	a->m[run->dst_disk].rb_runs--;
	a->rb_sectors -= (u64)run->n * a->block_sectors;
	a->rb_blocks -= run->n;
	a->copies--;
	list_add(&run->list, &a->rb_idle);
	ew_epoch_exit(a, run->epoch);
	/*
	 * The last run of a scan that is over: the rebuild may end now, not
	 * at rb_work's next tick (up to EW_RB_TICK_MS later).  Not once
	 * suspended: postsuspend cancels rb_work before the last copies.
	 */
	if (a->rb_active && !a->suspended && !a->rb_inflight &&
	    !ew_resync_left(a))
		mod_delayed_work(a->prop_wq, &a->rb_work, 0);
	/* under the lock, as in ew_copy_done (see ew_copy_wake) */
	ew_copy_wake(a, kick_bios);
	spin_unlock_irqrestore(&a->lock, flags);
}

/* dm-io's completion of one of a gathered run's writes. */
static void ew_rb_write_done(unsigned long error, void *context)
{
	struct ew_rb_run *run = context;

	if (error)
		atomic_set(&run->write_err, 1);
	if (atomic_dec_and_test(&run->writes))
		ew_rb_done(0, atomic_read(&run->write_err), run);
}

/*
 * A gathered run's reads are done: its writes, one a stretch of
 * consecutive destinations (may sleep).
 */
static void ew_rb_write_work(struct work_struct *work)
{
	struct ew_rb_run *run = container_of(work, struct ew_rb_run, work);
	struct ew_array *a = run->a;
	struct dm_io_region to = { .bdev = a->m[run->dst_disk].bdev };
	struct dm_io_request req = {
		.bi_opf = REQ_OP_WRITE,
		.mem.type = DM_IO_PAGE_LIST,
		.notify.fn = ew_rb_write_done,
		.notify.context = run,
		.client = a->io,
	};
	u32 i, j;

	if (atomic_read(&run->read_err)) {
		ew_rb_done(1, 0, run);
		return;
	}
	atomic_set(&run->write_err, 0);
	atomic_set(&run->writes, 1);	/* held until every write is sent */
	for (i = 0; i < run->n; i = j) {
		for (j = i + 1; j < run->n &&
		     run->dstb[j] == run->dstb[j - 1] + 1; j++)
			;
		/* the pages of this stretch only */
		run->wpl[j - 1].next = NULL;
		req.mem.ptr.pl = &run->wpl[i];
		to.sector = ew_block_sector(a, run->dstb[i]);
		to.count = (sector_t)(j - i) * a->block_sectors;
		ew_rb_stat_write(a, run->dst_disk, j - i);
		atomic_inc(&run->writes);
		if (dm_io(&req, 1, &to, NULL, IOPRIO_DEFAULT))
			ew_rb_write_done(1, run);
	}
	ew_rb_write_done(0, run);
}

/* dm-io's completion of one of a gathered run's reads. */
static void ew_rb_read_done(unsigned long error, void *context)
{
	struct ew_rb_read *rd = context;
	struct ew_rb_run *run = rd->run;

	if (error)
		atomic_cmpxchg(&run->read_err, 0, rd->disk + 1);
	if (atomic_dec_and_test(&run->reads))
		queue_work(run->a->prop_wq, &run->work);
}

static int ew_rb_cmp_u64(const void *x, const void *y)
{
	u64 a = *(const u64 *)x, b = *(const u64 *)y;

	return a < b ? -1 : a > b;
}

/* Sort key of a gathered run's block j: member, block, then j. */
#define EW_RB_KEY(disk, block, j) \
	((u64)(disk) << 56 | (u64)(block) << 8 | (j))
#define EW_RB_KEY_DISK(key)	((u32)((key) >> 56))
#define EW_RB_KEY_BLOCK(key)	((u32)((key) >> 8))
#define EW_RB_KEY_IDX(key)	((u32)((key) & 0xff))

/*
 * Read rd of a gathered run: from member rd->disk, block first, nr blocks
 * into pl's pages.  May sleep.
 */
static void ew_rb_read(struct ew_array *a, struct ew_rb_read *rd,
		       u32 first, u32 nr, struct page_list *pl)
{
	struct ew_rb_run *run = rd->run;
	u32 disk = rd->disk;
	struct dm_io_request req = {
		.bi_opf = REQ_OP_READ,
		.mem.type = DM_IO_PAGE_LIST,
		.mem.ptr.pl = pl,
		.notify.fn = ew_rb_read_done,
		.notify.context = rd,
		.client = a->io,
	};
	struct dm_io_region from = {
		.bdev = a->m[disk].bdev,
		.sector = ew_block_sector(a, first),
		.count = (sector_t)nr * a->block_sectors,
	};

	atomic_inc(&run->reads);
	if (dm_io(&req, 1, &from, NULL, IOPRIO_DEFAULT))
		ew_rb_read_done(1, rd);
}

/*
 * A gathered run (see "Rebuild runs"): its sources sorted by member and
 * block, one read per stretch, each source into its block's page, a gap
 * of at most EW_RB_GAP_MAX blocks inside a stretch into the scratch page
 * (its data is not used), EW_RB_SPAN_MAX blocks read in all at most; the
 * last read to complete queues the write.  May sleep.
 */
static void ew_rb_gather(struct ew_array *a, struct ew_rb_run *run)
{
	u32 i, j, k = 0, gaps = 0, nrd = 0, disk, first, last, gap, start;
	struct ew_rb_read hold = { .run = run };

	for (j = 0; j < run->n; j++) {
		run->wpl[j].next = j + 1 < run->n ? &run->wpl[j + 1] : NULL;
		run->order[j] = EW_RB_KEY(run->srcd[j], run->srcb[j], j);
	}
	sort(run->order, run->n, sizeof(u64), ew_rb_cmp_u64, NULL);
	atomic_set(&run->read_err, 0);
	atomic_set(&run->reads, 1);	/* held until every read is sent */
	for (i = 0; i < run->n; ) {
		disk = EW_RB_KEY_DISK(run->order[i]);
		first = EW_RB_KEY_BLOCK(run->order[i]);
		last = first;
		start = k;
		for (j = i; j < run->n; j++) {
			u32 b = EW_RB_KEY_BLOCK(run->order[j]);

			if (j > i) {
				if (EW_RB_KEY_DISK(run->order[j]) != disk ||
				    b - last - 1 > EW_RB_GAP_MAX ||
				    run->n + gaps + (b - last - 1) >
				    EW_RB_SPAN_MAX)
					break;
				/* the gap, read through */
				for (gap = last + 1; gap < b; gap++, gaps++) {
					run->rpl[k].page = a->rb_gap_page;
					run->rpl[k - 1].next = &run->rpl[k];
					k++;
				}
			}
			run->rpl[k].page =
				run->wpl[EW_RB_KEY_IDX(run->order[j])].page;
			run->rpl[k].next = NULL;
			if (k > start)
				run->rpl[k - 1].next = &run->rpl[k];
			k++;
			last = b;
		}
		run->rd[nrd].run = run;
		run->rd[nrd].disk = disk;
		ew_rb_stat_read(a, disk, first, k - start, (k - start) -
				(j - i));
		ew_rb_read(a, &run->rd[nrd++], first, k - start,
			   &run->rpl[start]);
		i = j;
	}
	ew_rb_read_done(0, &hold);
}

static void ew_rb_submit(struct ew_array *a, struct list_head *batch)
{
	struct ew_rb_run *run, *tmp;
	struct dm_io_region from, to;

	list_for_each_entry_safe(run, tmp, batch, list) {
		list_del_init(&run->list);
		if (run->gather) {
			ew_rb_gather(a, run);
			continue;
		}
		from.bdev = a->m[run->src_disk].bdev;
		from.sector = ew_block_sector(a, run->srcb[0]);
		from.count = (sector_t)run->n * a->block_sectors;
		to.bdev = a->m[run->dst_disk].bdev;
		to.sector = ew_block_sector(a, run->dst);
		to.count = from.count;
		ew_rb_stat_read(a, run->src_disk, run->srcb[0], run->n, 0);
		ew_rb_stat_write(a, run->dst_disk, run->n);
		dm_kcopyd_copy(a->kc, &from, 1, &to, 0, ew_rb_done, run);
	}
}

/*
 * The delayed replicas the scan may have queued at most: half of
 * delay_queue (writers keep the other half), a block's worth at least.
 */
static u32 ew_resync_cap(struct ew_array *a)
{
	return max(a->args.delay_queue / 2, a->geom.p.mirrors);
}

/*
 * Blocks left to the scan: ahead of it, in its window, or in a later
 * band.  a->lock held.
 */
static bool ew_resync_left(struct ew_array *a)
{
	return a->resync_next < a->map.nr_blocks || a->rb_win_n ||
	       a->rb_band_more;
}

/*
 * The scan's progress (status): the blocks it has passed, less those
 * still waiting in its window.  With bands (see "Rebuild runs") the
 * passes share the length: each band its part of the blocks the first
 * pass counted, the first pass none once it has put a block off; a scan
 * with nothing left has passed every block (writes may have taken
 * blocks out of the later bands' counts).  a->lock held.
 */
u64 ew_resync_done(struct ew_array *a)
{
	u64 waiting = a->rb_win_n - a->rb_win_pos, nr = a->map.nr_blocks;
	u64 pass = a->resync_next > waiting ? a->resync_next - waiting : 0;
	u64 done;

	if (!a->rb_band_hist || !nr || !ew_resync_left(a) ||
	    (!a->rb_bands && !a->rb_band_more))
		return pass;
	if (!a->rb_bands || !a->rb_band_total)
		return 0;
	done = a->rb_band_base +
	       mul_u64_u64_div_u64(a->rb_band_cur, min(pass, nr), nr);
	return min(mul_u64_u64_div_u64(nr, done, a->rb_band_total), nr);
}

/* What the scan does with a block (ew_resync_masks). */
enum ew_resync_step {
	EW_RS_COPY,		/* copy runs and dly */
	EW_RS_SKIP,		/* lost: nothing worth copying */
	EW_RS_BACKOFF,		/* a rebuilding member erred just now: stop */
};

/*
 * What the scan copies of block l: its stale replicas on rebuilding
 * members in rebuild runs (*runs), unless a write or discard of it is in
 * flight; every other stale replica, and on ddm a current replica away
 * from its home, as delayed replicas (*dly).  With rebuild_only, only
 * the replicas on rebuilding members (a sort window's block: the others
 * were queued when it went in).  Fills rep, home and *up.  a->lock held.
 */
static enum ew_resync_step ew_resync_masks(struct ew_array *a, u64 l,
					   bool rebuild_only, u64 now,
					   struct ew_replica *rep, u32 *home,
					   u8 *up, u8 *runs, u8 *dly)
{
	bool ddm = a->geom.p.layout == EW_LAYOUT_DDM && !rebuild_only;
	bool busy, stale, off_home;
	struct ew_member *m;
	u32 r;

	*up = ew_map_uptodate(&a->map, l);
	*runs = 0;
	*dly = 0;
	/* a lost block has no source worth copying */
	if (!*up || test_bit(l, a->lost))
		return EW_RS_SKIP;
	ew_replicas(a, l, rep, home);
	busy = ew_cell_busy(a, l) || ew_in_discard(a, l);
	for (r = 0; r < a->geom.p.mirrors; r++) {
		stale = !(*up & (1U << r));
		off_home = ddm && r == 0 && !stale &&
			ew_map_pblock(&a->map, l, 0) != home[0];
		m = &a->m[rep[r].disk];
		if ((!stale && !off_home) || a->pd[rep[r].disk].failed ||
		    (rebuild_only && !m->rebuilding))
			continue;
		if (stale && m->rebuilding && !busy) {
			if (m->err_run &&
			    now - m->last_err_ns < EW_ERR_BACKOFF_NS)
				return EW_RS_BACKOFF;
			*runs |= 1U << r;
		} else {
			*dly |= 1U << r;
		}
	}
	return EW_RS_COPY;
}

/*
 * Copies the stale replicas of block l: those in runs (on rebuilding
 * members) in rebuild runs, those in dly as delayed replicas.  The whole
 * block or none of it.  A block with one replica to copy may grow a run
 * of the batch with every run in flight (ew_rb_add stops the scan when it
 * needs a new one): checked here, a full set of runs let each pass start
 * one run and end, so that once EW_RB_RUNS short runs were in flight (a
 * throttled or yielding rebuild) every later run was a block long.
 * Returns false when the scan stops at l.  a->lock held.
 */
static bool ew_resync_block(struct ew_array *a, struct list_head *batch,
			    u64 l, const struct ew_replica *rep,
			    const u32 *home, u8 up, u8 runs, u8 dly, u64 now)
{
	u32 nr = hweight8(runs), nd = hweight8(dly), r;
	bool added = false;

	if ((nd && a->delay_used + nd > ew_resync_cap(a)) ||
	    (nr && a->rb_sectors + nr * a->block_sectors >
	     EW_RB_INFLIGHT_SECTORS) ||
	    (nr > 1 && a->rb_inflight + nr > EW_RB_RUNS))
		return false;
	if (nr && !ew_md_room(a->md, nr)) {
		ew_kick_commit(a);
		return false;
	}
	for (r = 0; r < a->geom.p.mirrors; r++) {
		if (runs & (1U << r)) {
			if (!ew_rb_add(a, batch, l, r, rep, home, up, now,
				       !added))
				return false;
		} else if (dly & (1U << r)) {
			a->delay_used++;
			ew_delayed_queue(a, l, ew_map_gen(&a->map, l), r,
					 rep[r].disk, home[r] != EW_MAP_NONE);
		} else {
			continue;
		}
		added = true;
		if (a->scan_tokens)
			a->scan_tokens--;
	}
	return true;
}

/*
 * Puts block l into the sort window (see "Rebuild runs") when a window
 * is in use and every replica of runs goes to a free block of its
 * rebuilding member (no home, no block of its own): keyed by the source
 * at the lowest block among its live up-to-date replicas; or, when that
 * source block is not below this pass's band, counts it for a later
 * pass.  Returns false when l is not one for the window.  a->lock held.
 */
static bool ew_rb_win_add(struct ew_array *a, u64 l,
			  const struct ew_replica *rep, const u32 *home, u8 up,
			  u8 runs)
{
	u64 key = U64_MAX;
	bool rot = false;
	u32 r, p;

	/* raid10: every replica goes home, in logical order */
	if (!a->rb_win || !runs || !a->rb_pages_nr ||
	    a->geom.p.layout == EW_LAYOUT_RAID10)
		return false;
	for (r = 0; r < a->geom.p.mirrors; r++) {
		if (runs & (1U << r)) {
			p = ew_map_pblock(&a->map, l, r);
			if ((home[r] != EW_MAP_NONE &&
			     !ew_rb_home_eager(a, rep[r].disk, home[r])) ||
			    !a->m[rep[r].disk].has_fm ||
			    (p != EW_MAP_NONE && p != home[r]))
				return false;
		} else if ((up & (1U << r)) && !a->pd[rep[r].disk].failed) {
			key = min(key,
				  (u64)ew_map_pblock(&a->map, l, r) << 8 |
				  rep[r].disk);
			rot |= !a->pd[rep[r].disk].nonrot;
		}
	}
	/*
	 * no live source: ew_rb_add counts it owed.  ddm with a
	 * non-rotational partner: a source read out of order costs nothing
	 * more, and its home runs in logical order were cheaper (null_blk:
	 * 0.35 of the spare's rate against 0.27 sorted).  ew's sorted runs
	 * are cheaper there too (0.28 against 0.22: far fewer requests).
	 */
	if (key == U64_MAX ||
	    (!rot && a->geom.p.layout == EW_LAYOUT_DDM))
		return false;
	if (a->rb_band_hist && (key >> 8) >= a->rb_band_hi) {
		a->rb_band_hist[min_t(u64, (key >> 8) >> a->rb_band_shift,
				      EW_RB_HIST - 1)]++;
		a->rb_band_more = true;
		return true;
	}
	a->rb_win[a->rb_win_n].key = key;
	a->rb_win[a->rb_win_n].lblock = l;
	a->rb_win_n++;
	return true;
}

static int ew_rb_win_cmp(const void *x, const void *y)
{
	const struct ew_rb_win_ent *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->lblock < b->lblock ? -1 : a->lblock > b->lblock;
}

/*
 * Takes the sorted window's blocks into runs, in order (see "Rebuild
 * runs"), each checked again as the scan checks a block: a write,
 * discard or copy since the window was filled may have made its replicas
 * current, or its cell busy (then they become delayed replicas, as in the
 * scan).  Returns true when the scan stopped; when the window is empty
 * the scan fills it again.  a->lock held.
 */
static bool ew_rb_win_take(struct ew_array *a, struct list_head *batch,
			   u64 now, bool *backoff)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], scanned = 0;
	enum ew_resync_step step;
	struct ew_rb_win_ent *e;
	u8 up, runs, dly;

	while (a->rb_win_pos < a->rb_win_n && a->scan_tokens &&
	       scanned++ < EW_RESYNC_SCAN) {
		e = &a->rb_win[a->rb_win_pos];
		/* a block the scan put in twice (it went back): once */
		if (a->rb_win_pos && e[-1].lblock == e->lblock &&
		    e[-1].key == e->key) {
			a->rb_win_pos++;
			continue;
		}
		step = ew_resync_masks(a, e->lblock, true, now, rep, home, &up,
				       &runs, &dly);
		if (step == EW_RS_BACKOFF) {
			*backoff = true;
			return true;
		}
		if (step == EW_RS_COPY &&
		    !ew_resync_block(a, batch, e->lblock, rep, home, up, runs,
				     dly, now))
			return true;
		a->rb_win_pos++;
	}
	if (a->rb_win_pos == a->rb_win_n) {
		a->rb_win_n = 0;
		a->rb_win_pos = 0;
		a->rb_win_sorted = false;
	}
	return false;
}

/*
 * The scan passed the end of the map and put blocks off (see "Rebuild
 * runs"): the next band takes the buckets from the lowest one counted up
 * to a window's fill (one bucket at least), or every block left, and the
 * scan starts over.  a->lock held.
 */
static void ew_rb_band_next(struct ew_array *a)
{
	u32 fill = EW_RB_BAND_FILL(a->rb_win_max), b;
	u64 sum = 0, all = 0;

	for (b = 0; b < EW_RB_HIST; b++)
		all += a->rb_band_hist[b];
	for (b = 0; b < EW_RB_HIST; b++) {
		if (sum && sum + a->rb_band_hist[b] > fill)
			break;
		sum += a->rb_band_hist[b];
	}
	if (!a->rb_bands)
		a->rb_band_total = all;
	a->rb_band_base += a->rb_band_cur;
	a->rb_band_cur = sum;
	a->rb_band_hi = b == EW_RB_HIST ? U64_MAX : (u64)b << a->rb_band_shift;
	a->rb_bands++;
	memset(a->rb_band_hist, 0, EW_RB_HIST * sizeof(*a->rb_band_hist));
	a->rb_band_more = false;
	a->resync_next = 0;
}

/* A new scan: the first pass counts (see "Rebuild runs").  a->lock held. */
static void ew_rb_band_reset(struct ew_array *a)
{
	a->rb_band_hi = a->rb_band_hist ? 0 : U64_MAX;
	a->rb_band_more = false;
	a->rb_band_base = 0;
	a->rb_band_cur = 0;
	a->rb_band_total = 0;
	a->rb_bands = 0;
	if (a->rb_band_hist)
		memset(a->rb_band_hist, 0,
		       EW_RB_HIST * sizeof(*a->rb_band_hist));
}

/*
 * One pass of the scan (see above): returns true when it stopped with
 * blocks left and room to go on; *backoff when a rebuilding member with
 * fresh errors stopped it.  Runs only in prop_work, which owns the sort
 * window's entries: the window is sorted here, outside the lock.
 */
bool ew_resync_fill(struct ew_array *a, bool *backoff)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], mirrors = a->geom.p.mirrors;
	bool more, throttled, sort_win, band_wait, stop = false;
	enum ew_resync_step step;
	LIST_HEAD(batch);
	unsigned long flags;
	u32 scanned = 0, nd;
	u8 up, runs, dly;
	u64 now;

	spin_lock_irqsave(&a->lock, flags);
	if (a->suspended || a->rb_paused || !ew_resync_left(a)) {
		spin_unlock_irqrestore(&a->lock, flags);
		return false;
	}
	now = ew_now();
	ew_scan_refill(a, now);
	/*
	 * The next band once the runs of this one are done: the next pass
	 * would find their blocks still stale and copy them again.  The
	 * last run's completion kicks the scan.
	 */
	band_wait = a->resync_next >= a->map.nr_blocks && !a->rb_win_n &&
		    a->rb_band_more;
	if (band_wait && !a->rb_inflight) {
		ew_rb_band_next(a);
		band_wait = false;
	}
	if (a->rb_win_sorted)
		stop = ew_rb_win_take(a, &batch, now, backoff);
	while (!stop && !a->rb_win_sorted &&
	       a->resync_next < a->map.nr_blocks && a->scan_tokens &&
	       (!a->rb_win || a->rb_win_n < a->rb_win_max) &&
	       scanned++ < EW_RESYNC_SCAN) {
		u64 l = a->resync_next;

		step = ew_resync_masks(a, l, false, now, rep, home, &up, &runs,
				       &dly);
		if (step == EW_RS_SKIP) {
			a->resync_next++;
			continue;
		}
		if (step == EW_RS_BACKOFF) {
			*backoff = true;
			stop = true;
			break;
		}
		/* to free blocks: into the window, copied in source order */
		nd = hweight8(dly);
		if ((!nd || a->delay_used + nd <= ew_resync_cap(a)) &&
		    ew_rb_win_add(a, l, rep, home, up, runs))
			runs = 0;
		if (!ew_resync_block(a, &batch, l, rep, home, up, runs, dly,
				     now)) {
			stop = true;
			break;
		}
		a->resync_next++;
	}
	/* the window is full, or holds the last of the map: sort it */
	sort_win = !a->rb_win_sorted && a->rb_win_n &&
		   (a->rb_win_n == a->rb_win_max ||
		    a->resync_next >= a->map.nr_blocks);
	throttled = ew_resync_left(a) && !a->scan_tokens;
	more = !stop && !band_wait && ew_resync_left(a) &&
	       a->delay_used + mirrors <= ew_resync_cap(a) &&
	       a->scan_tokens && a->rb_inflight < EW_RB_RUNS &&
	       a->rb_sectors < EW_RB_INFLIGHT_SECTORS;
	spin_unlock_irqrestore(&a->lock, flags);
	ew_rb_submit(a, &batch);
	if (sort_win) {
		sort(a->rb_win, a->rb_win_n, sizeof(*a->rb_win),
		     ew_rb_win_cmp, NULL);
		spin_lock_irqsave(&a->lock, flags);
		a->rb_win_pos = 0;
		a->rb_win_sorted = true;
		spin_unlock_irqrestore(&a->lock, flags);
	}
	/* the next pace's tokens: sooner than the tick rb_work keeps */
	if (throttled)
		mod_delayed_work(a->prop_wq, &a->rb_work,
				 msecs_to_jiffies(EW_RB_PACE_MS));
	return more;
}

/* ---------------------------------------------------------------- */
/*
 * Rebuild.  A new device at the position of a failed or missing member
 * (a table reload, ew_preresume) holds nothing: ew_replace_member makes
 * every replica on it stale, labels it and checkpoints that map with
 * the member "rebuilding" in the superblock; then the scan for stale
 * replicas (ew_resync_fill) starts over from block 0 and copies them in
 * runs (see "Rebuild runs" above): to the fixed home, or to free blocks
 * of the replacement in order; a write meanwhile supersedes them.  Each
 * completed copy is journalled (ew_rb_done), so after a crash the scan
 * finds only what is left and never copies a block twice.
 * The rebuild is over when the scan has passed the last block, no run is
 * in flight and the rebuilt members' queues are empty: the superblock
 * then drops the bit (ew_state_work).  A block whose only current
 * replica was on the replaced member is *lost*: it reads as an error
 * until it is written or discarded.
 */

/* What the rebuild read from member i and wrote to it, if anything. */
static void ew_rb_stat_log(struct ew_array *a, u32 i)
{
	struct ew_rb_stat *s = &a->m[i].rbs;

	if (s->reads) {
		DMINFO("member %u rebuild reads: %llu blocks (%llu gaps) in %llu requests",
		       i, s->read_blocks, s->gap_blocks, s->reads);
		DMINFO("member %u rebuild sweep: blocks %llu-%llu, %llu skipped, %llu out of order",
		       i, s->lo, s->hi, s->skipped, s->back);
	}
	if (s->writes)
		DMINFO("member %u rebuild writes: %llu blocks in %llu requests",
		       i, s->write_blocks, s->writes);
}

/*
 * The scan is over and the rebuilt members' queues are empty: they are
 * rebuilt.  Not while blocks are lost: the superblock's rebuilding bit is
 * what finds them again after a reboot (ew_array_member_state).  On ddm,
 * when home replicas were written to free blocks (see "Rebuild runs"),
 * the rebuild then makes one more pass of the scan, which queues their
 * moves home as for any ddm copy away from its home, and ends after it.
 * Returns true when the member state changed.  a->lock held.
 */
static bool ew_rebuild_finish(struct ew_array *a)
{
	bool rebuilt = false;
	u32 i;

	if (a->nr_lost || a->rb_inflight)
		return false;
	for (i = 0; i < a->nr; i++)
		if (a->m[i].rebuilding &&
		    (a->m[i].nr_delayed || a->m[i].copies))
			return false;
	for (i = 0; i < a->nr; i++)
		rebuilt |= a->m[i].rebuilding;
	if (rebuilt) {
		for (i = 0; i < a->nr; i++)
			ew_rb_stat_log(a, i);
		if (a->rb_bands)
			DMINFO("rebuild sources swept in %u band%s",
			       a->rb_bands, a->rb_bands == 1 ? "" : "s");
	}
	for (i = 0; i < a->nr; i++) {
		if (!a->m[i].rebuilding)
			continue;
		a->m[i].rebuilding = false;
		DMINFO("member %u (%pg) rebuilt", i, a->m[i].bdev);
	}
	if (a->rb_homes_off && !a->rb_homes_pass) {
		DMINFO("rebuild wrote %llu home replicas to free blocks: moving them home",
		       a->rb_homes_off);
		a->rb_homes_off = 0;
		a->rb_homes_pass = true;
		ew_rb_band_reset(a);
		a->resync_next = 0;
		if (rebuilt)
			ew_event(a);
		return rebuilt;
	}
	if (a->rb_homes_pass)
		DMINFO("rebuild: home replicas queued to move home");
	a->rb_homes_pass = false;
	a->rb_active = false;
	ew_event(a);
	return true;
}

/*
 * The scan's clock: while a rebuild runs, a tick every EW_RB_TICK_MS
 * (new rate tokens, the end of the rebuild); otherwise armed once when
 * the rate stopped the scan.
 */
void ew_rebuild_work(struct work_struct *work)
{
	struct ew_array *a = container_of(to_delayed_work(work),
					  struct ew_array, rb_work);
	unsigned long flags;
	bool again, done = false;

	spin_lock_irqsave(&a->lock, flags);
	if (a->rb_active && !a->suspended && !ew_resync_left(a))
		done = ew_rebuild_finish(a);
	/* only lost blocks left: ew_unlose kicks the last look */
	again = a->rb_active && !a->rb_paused && !a->suspended &&
		!(a->nr_lost && !ew_resync_left(a));
	spin_unlock_irqrestore(&a->lock, flags);
	if (done)
		queue_work(a->commit_wq, &a->state_work);
	ew_kick_prop(a);
	if (again)
		queue_delayed_work(a->prop_wq, &a->rb_work,
				   msecs_to_jiffies(EW_RB_TICK_MS));
}

/* Member state as a bit mask each.  a->lock held. */
void ew_member_masks(struct ew_array *a, u64 *failed, u64 *rebuilding)
{
	u32 i;

	*failed = 0;
	*rebuilding = 0;
	for (i = 0; i < a->nr; i++) {
		if (a->pd[i].failed)
			*failed |= BIT_ULL(i);
		else if (a->m[i].rebuilding)
			*rebuilding |= BIT_ULL(i);
	}
}

/*
 * Writes the member state to the superblock when it changed (a member
 * failed, a rebuild ended), from the commit workqueue: it sleeps.
 */
void ew_member_state_sync(struct ew_array *a)
{
	unsigned long flags;
	u64 failed, rebuilding;

	spin_lock_irqsave(&a->lock, flags);
	ew_member_masks(a, &failed, &rebuilding);
	spin_unlock_irqrestore(&a->lock, flags);
	ew_md_set_member_state(a->md, failed, rebuilding);
}

void ew_state_work(struct work_struct *work)
{
	ew_member_state_sync(container_of(work, struct ew_array, state_work));
}

/*
 * The pages of gathered rebuild runs (see "Rebuild runs") and the gap
 * page, when a rebuild starts (the array suspended or not yet live, so
 * GFP_NOIO), kept until the array goes (ew_rebuild_free); as many as the
 * runs in flight can hold.  With fewer (or none) runs are plain or
 * gather less.  No run is in flight.  Sleeps.
 */
static void ew_rb_pages_alloc(struct ew_array *a)
{
	u32 nr = EW_RB_INFLIGHT_SECTORS / a->block_sectors, i;
	u32 win_max = clamp(READ_ONCE(rebuild_sort_window), 256U, 1U << 24);
	struct ew_rb_win_ent *win;
	struct page **pages;
	struct page *gap;
	u32 *hist = NULL;

	if (a->rb_pages || a->block_sectors != (PAGE_SIZE >> SECTOR_SHIFT) ||
	    !ew_layout_eager(a->geom.p.layout))
		return;
	gap = alloc_page(GFP_NOIO);
	pages = kvcalloc(nr, sizeof(*pages), GFP_NOIO);
	if (!pages || !gap) {
		kvfree(pages);
		if (gap)
			__free_page(gap);
		return;
	}
	for (i = 0; i < nr; i++) {
		pages[i] = alloc_page(GFP_NOIO);
		if (!pages[i])
			break;
	}
	for (nr = 0; nr < EW_RB_RUNS; nr++)
		INIT_WORK(&a->rb_runs[nr].work, ew_rb_write_work);
	/* ew's and ddm's (ew_rb_win_add); without it, logical order */
	win = kvmalloc_array(win_max, sizeof(*win), GFP_NOIO);
	/* without the histogram, one band: the window sweeps in turns */
	if (win)
		hist = kcalloc(EW_RB_HIST, sizeof(*hist), GFP_NOIO);
	spin_lock_irq(&a->lock);
	a->rb_pages = pages;
	a->rb_pages_nr = i;
	a->rb_pages_free = i;
	a->rb_gap_page = gap;
	a->rb_win = win;
	a->rb_win_max = win_max;
	a->rb_win_n = 0;
	a->rb_win_pos = 0;
	a->rb_win_sorted = false;
	a->rb_band_hist = hist;
	a->rb_band_shift = 0;
	while ((a->geom.region_blocks - 1) >> a->rb_band_shift >= EW_RB_HIST)
		a->rb_band_shift++;
	spin_unlock_irq(&a->lock);
}

/* When the array goes: every run is done, all pages are back. */
void ew_rebuild_free(struct ew_array *a)
{
	u32 q;

	if (!a->rb_pages)
		return;
	for (q = 0; q < a->rb_pages_free; q++)
		__free_page(a->rb_pages[q]);
	kvfree(a->rb_pages);
	__free_page(a->rb_gap_page);
	kvfree(a->rb_win);
	kfree(a->rb_band_hist);
}

/*
 * Marks every current replica on member i stale, in memory only (the
 * caller checkpoints); a block whose only current replica is there is
 * lost instead.  A stale replica without a home gives its block up: the
 * new device holds nothing there, and the rebuild copies it to free
 * blocks in order (see "Rebuild runs").  The block goes straight back
 * to the free map, not through the deferred frees, and is not
 * journalled: member i is failed and the array not live, so nothing
 * reads, writes or allocates its blocks before the caller's checkpoint
 * makes the map that gave them up durable (if that checkpoint fails,
 * the member stays failed and its blocks unused).  Returns the number of
 * blocks lost.  Sleeps.
 */
static u64 ew_member_stale_all(struct ew_array *a, u32 i)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], r, p;
	unsigned long flags;
	u64 b = 0, end, lost = 0;

	while (b < a->map.nr_blocks) {
		end = min_t(u64, a->map.nr_blocks, b + EW_RB_SLICE);
		spin_lock_irqsave(&a->lock, flags);
		for (; b < end; b++) {
			ew_replicas(a, b, rep, home);
			for (r = 0; r < a->geom.p.mirrors; r++) {
				if (rep[r].disk != i)
					continue;
				if ((ew_map_uptodate(&a->map, b) & (1U << r)) &&
				    !ew_map_set_stale(&a->map, b, r) &&
				    !test_and_set_bit(b, a->lost)) {
					a->nr_lost++;
					lost++;
				}
				p = ew_map_drop_stale(&a->map, b, r, home[r]);
				if (p != EW_MAP_NONE && a->m[i].has_fm &&
				    ew_freemap_free(&a->m[i].fm, p))
					DMERR_LIMIT("free of free block %u on member %u",
						    p, i);
			}
		}
		spin_unlock_irqrestore(&a->lock, flags);
		cond_resched();
	}
	return lost;
}

/*
 * Member i is now bdev, a new device: every replica on it becomes stale,
 * it gets a label of the next generation, the superblock says it is
 * rebuilding (ew_md_replace_member, with a checkpoint of the stale map)
 * and the scan starts over.  Called with the array not live (suspended,
 * from ew_preresume): it may sleep.  On a metadata error the member
 * stays failed and the device is not used.
 */
int ew_replace_member(struct ew_array *a, u32 i,
		      struct block_device *bdev)
{
	unsigned long flags;
	u64 lost, failed, rebuilding;
	u32 r;
	int ret;

	lost = ew_member_stale_all(a, i);
	ew_rb_pages_alloc(a);
	flush_work(&a->state_work);
	spin_lock_irqsave(&a->lock, flags);
	ew_member_masks(a, &failed, &rebuilding);
	spin_unlock_irqrestore(&a->lock, flags);
	ret = ew_md_replace_member(a->md, i, bdev, failed, rebuilding);
	if (ret) {
		DMERR("member %u: replacement by %pg refused (%d): metadata not written",
		      i, bdev, ret);
		return ret;
	}
	spin_lock_irqsave(&a->lock, flags);
	a->m[i].bdev = bdev;
	a->data_dev[i] = bdev->bd_dev;
	a->pd[i].failed = false;
	a->m[i].err_run = 0;
	a->m[i].owed = 0;
	a->m[i].rebuilding = true;
	a->m[i].rb_alloc = 0;
	for (r = 0; r < a->nr; r++)
		memset(&a->m[r].rbs, 0, sizeof(a->m[r].rbs));
	a->resync_next = 0;
	ew_rb_band_reset(a);
	/* a pass that moves home copies: this scan does it, then another */
	a->rb_homes_pass = false;
	a->rb_active = true;
	spin_unlock_irqrestore(&a->lock, flags);
	DMINFO("member %u replaced by %pg: rebuilding, %llu blocks lost",
	       i, bdev, lost);
	return 0;
}

/*
 * After a load: the member state the superblock holds.  A block whose
 * every current replica is on a rebuilding member was lost when that
 * member was replaced (foreground writes avoid rebuilding members).
 */
void ew_array_member_state(struct ew_array *a)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], i, r;
	u64 failed, rebuilding, b;
	bool alive;
	u8 up;

	ew_md_member_state(a->md, &failed, &rebuilding);
	for (i = 0; i < a->nr; i++) {
		if (failed & BIT_ULL(i)) {
			a->pd[i].failed = true;
			DMWARN("member %u failed before: not used until replaced",
			       i);
		}
		if (rebuilding & BIT_ULL(i)) {
			a->m[i].rebuilding = true;
			a->rb_active = true;
		}
	}
	if (!rebuilding)
		return;
	ew_rb_pages_alloc(a);
	for (b = 0; b < a->map.nr_blocks; b++) {
		if (!(b % 4096))
			cond_resched();
		up = ew_map_uptodate(&a->map, b);
		if (!up)
			continue;
		ew_replicas(a, b, rep, home);
		alive = false;
		for (r = 0; r < a->geom.p.mirrors; r++)
			if ((up & (1U << r)) &&
			    !(rebuilding & BIT_ULL(rep[r].disk)))
				alive = true;
		if (!alive && !test_and_set_bit(b, a->lost))
			a->nr_lost++;
	}
	DMINFO("rebuild of members %llx resumes, %llu blocks lost",
	       rebuilding, a->nr_lost);
}
