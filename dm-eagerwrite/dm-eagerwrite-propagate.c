// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-eagerwrite-propagate.c - delayed replicas: the delayed-write queues,
 * their preallocated entries and pages, and the propagation worker that
 * copies queued replicas to their members when those are idle (kcopyd,
 * or dm-io from the page).  Their rules are in dm-eagerwrite.h
 * ("Delayed replicas"); the scan that queues stale replicas is in
 * dm-eagerwrite-rebuild.c.
 */

#include "dm-eagerwrite.h"

static bool ew_pressure(struct ew_array *a)
{
	bool waiters;

	/* lockless: a missed waiter is seen at the next kick */
	waiters = waitqueue_active(&a->throttle_wait);
	return a->delay_used * 4 >= a->args.delay_queue * 3 || waiters;
}

/* ---------------------------------------------------------------- */
/* Delayed-write queues. */

static struct ew_delayed *ew_delayed_get(struct ew_array *a)
{
	struct ew_delayed *d;

	d = list_first_entry_or_null(&a->dfree_entries, struct ew_delayed,
				     list);
	if (d)
		list_del_init(&d->list);
	return d;
}

/*
 * Delayed-write pages.  The pool is a stack of preallocated pages
 * (a->dpages[0 .. dpages_free)), one page holds one block (block_size is
 * at most PAGE_SIZE), min(delay_queue, delay_pages_max) of them, allocated
 * by the constructor (fewer if memory is short: fewer only cost reads)
 * and freed by the destructor; nothing is allocated on the I/O path.
 * a->lock protects the stack and every entry's ->page while the entry is
 * on a queue.  A page belongs to one entry from the write completion
 * that fills it (ew_delayed_page) until the entry is given back by
 * ew_delayed_put (a copy done, an entry superseded or dropped, a failed
 * member's queue) or by the destructor (entries still queued): the entry
 * keeps it while it is copied (off every list, owned by the propagation
 * worker, then by its completion), when it is queued again after a
 * failed write, and across a suspend.  So a page is pushed back exactly
 * once, and dpages_nr - dpages_free are in use.
 */

/* Gives back an entry's page, if it holds one.  a->lock held. */
void ew_delayed_unpage(struct ew_array *a, struct ew_delayed *d)
{
	if (d->page) {
		a->dpages[a->dpages_free++] = d->page;
		d->page = NULL;
	}
}

/*
 * Keeps a copy of the block a write is completing with, for its delayed
 * replica d; with no page left, d is copied by kcopyd (counted).  a->lock
 * held, any context: the bio's pages stay until it completes, and the
 * copy (one block, bvec_kmap_local) neither sleeps nor allocates.  It is
 * made under the lock because the entry is already queued: the worker
 * may take it as soon as the lock is dropped.
 */
void ew_delayed_page(struct ew_array *a, struct ew_delayed *d,
		     struct bio *bio, bool resv)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	u32 off = 0;
	u8 *dst;

	/* a page promised to a journal copy is taken by that one only */
	if (resv) {
		a->dpages_resv--;
	} else if (a->dpages_free <= a->dpages_resv ||
		   bio_sectors(bio) != a->block_sectors) {
		a->delay_fallbacks++;
		return;
	}
	d->page = a->dpages[--a->dpages_free];
	dst = page_address(d->page);
	bio_for_each_segment(bv, bio, iter) {
		memcpy_from_bvec(dst + off, &bv);
		off += bv.bv_len;
	}
}

/* md gives back a page that held a copy slot's data.  a->lock held. */
void ew_copy_page_put(void *ctx, struct page *page)
{
	struct ew_array *a = ctx;

	a->dpages[a->dpages_free++] = page;
}

/*
 * Gives back an entry and its reservation.  Its journal copy ends with
 * it (UNCOPY, with the unit its write reserved): the replica it waited
 * for is now current (a copy done), or no longer wanted (superseded, its
 * member failed).  The page stays md's while the slot is not written.
 */
void ew_delayed_put(struct ew_array *a, struct ew_delayed *d)
{
	if (d->slot != EW_NO_SLOT) {
		if (ew_md_copy_release(a->md, d->slot))
			d->page = NULL;
		d->slot = EW_NO_SLOT;
		/* a checkpoint waits for the last copy to end */
		if (ew_md_copy_held(a->md))
			ew_kick_commit(a);
	}
	ew_delayed_unpage(a, d);
	list_add(&d->list, &a->dfree_entries);
	a->delay_used--;
	a->pending--;
}

struct ew_delayed *ew_delayed_queue(struct ew_array *a, u64 lblock,
				    u32 gen, u32 r, u32 disk,
				    bool to_home)
{
	struct ew_delayed *d = ew_delayed_get(a);

	/* the write reserved it: there is always one */
	if (WARN_ON_ONCE(!d))
		return NULL;
	d->lblock = lblock;
	d->gen = gen;
	d->r = r;
	d->to_home = to_home;
	d->dst_disk = disk;
	d->page = NULL;
	d->slot = EW_NO_SLOT;
	list_add_tail(&d->list, &a->m[disk].delayed);
	a->m[disk].nr_delayed++;
	a->pending++;
	return d;
}

/* ---------------------------------------------------------------- */
/* Background propagation of delayed replicas. */

/*
 * After a copy or a rebuild run completed, under a->lock: once a->copies
 * is 0 and the lock dropped, postsuspend may return and the destructor
 * free the array, so nothing of it is touched after the unlock.  Neither
 * waking nor queueing work sleeps or takes a->lock.
 */
void ew_copy_wake(struct ew_array *a, bool kick_bios)
{
	lockdep_assert_held(&a->lock);
	wake_up(&a->throttle_wait);
	wake_up(&a->copy_wait);
	if (kick_bios)
		ew_kick_bios(a);
	ew_kick_prop_locked(a);
}

static void ew_copy_done(int read_err, unsigned long write_err, void *context)
{
	struct ew_delayed *d = context;
	struct ew_array *a = d->a;
	u32 home[EW_MAX_MIRRORS], freed;
	struct ew_replica rep[EW_MAX_MIRRORS];
	struct ew_member *dm;
	bool kick_bios = false, logged = false, again = false;
	unsigned long flags;
	u64 now = ew_now();

	spin_lock_irqsave(&a->lock, flags);
	ew_replicas(a, d->lblock, rep, home);
	dm = &a->m[d->dst_disk];
	dm->copies--;
	a->copies--;
	/* no prediction to judge (kcopyd reports only the end of both) */
	if (d->sent) {
		ew_head_done(a, d->dst_disk, d->dst, now, 0, now);
	} else {
		a->m[d->src_disk].unseen--;
		dm->unseen--;
		ew_head_seen(a, d->src_disk, d->src, now);
		ew_head_seen(a, d->dst_disk, d->dst, now);
	}
	if (read_err || write_err) {
		DMERR_LIMIT("background copy of block %llu replica %u failed (%s)",
			    d->lblock, d->r, read_err ? "read" : "write");
		if (read_err)
			ew_read_failed(a, d->lblock, d->src_r, d->src_disk,
				       d->src);
		else if (!d->page)
			ew_member_ok(a, d->src_disk);
		if (write_err)
			ew_member_error(a, d->dst_disk, true);
		ew_defer_free(a, d->dst_disk,
			      d->dst == home[d->r] ? EW_MAP_NONE : d->dst);
		/*
		 * Try again later (another source, or the same member after
		 * its back-off) unless the member failed or no source is
		 * left; a dropped entry leaves the replica stale.
		 */
		again = !a->pd[d->dst_disk].failed &&
			(!read_err ||
			 ew_other_replica(a, d->lblock, d->src_disk, d->src));
	} else {
		/* a copy from memory read nothing: the source is not judged */
		if (!d->page)
			ew_member_ok(a, d->src_disk);
		ew_member_ok(a, d->dst_disk);
		if (ew_map_commit_copy(&a->map, d->lblock, d->gen, d->r,
				       d->dst, home[d->r], &freed)) {
			/* the record before the free, as for writes */
			ew_md_log_bg(a->md, d->lblock, 1U << d->r);
			ew_md_member_dirty(a->md, d->dst_disk, false);
			logged = true;
			ew_count(a, EW_C_BG_WRITES);
		}
		ew_defer_free(a, d->dst_disk, freed);
	}
	if (!logged)
		ew_md_unreserve(a->md, 1);
	if (d->to_home)
		kick_bios = ew_cell_release(a, &d->cell);
	if (again) {
		list_add_tail(&d->list, &dm->delayed);
		dm->nr_delayed++;
	} else {
		ew_delayed_put(a, d);
	}
	ew_epoch_exit(a, d->epoch);
	/*
	 * Under the lock, as in ew_write_done: once a->copies is 0 and the
	 * lock dropped, postsuspend may return and the destructor free the
	 * array.  kcopyd's client destruction waits for its callbacks,
	 * dm-io's (a copy from memory completes in interrupt context) does
	 * not.  Neither waking nor queueing work sleeps or takes a->lock.
	 */
	ew_copy_wake(a, kick_bios);
	spin_unlock_irqrestore(&a->lock, flags);
}

/* A delayed replica written from its page (dm-io), completed. */
static void ew_page_copy_done(unsigned long error, void *context)
{
	ew_copy_done(0, error, context);
}

/*
 * Writes delayed replica d from its page to region to: no read of the
 * source.  Process context (the propagation worker), a->lock not held:
 * dm_io() may sleep for its mempool.  d is off every list and ours until
 * its completion; the page goes with it (ew_copy_done).
 */
static void ew_copy_from_page(struct ew_array *a, struct ew_delayed *d,
			      struct dm_io_region *to)
{
	struct dm_io_request req = {
		.bi_opf = REQ_OP_WRITE,
		.mem.type = DM_IO_KMEM,
		.mem.ptr.addr = page_address(d->page),
		.notify.fn = ew_page_copy_done,
		.notify.context = d,
		.client = a->io,
	};

	if (dm_io(&req, 1, to, NULL, IOPRIO_DEFAULT))
		ew_copy_done(0, 1, d);
}

/*
 * Takes the first entry of member disk's queue that can start, with its
 * source and destination; NULL when none can start now.  An entry with
 * a page is written from it: the source is chosen all the same (no live
 * up-to-date replica: dropped and owed, as before), never read.
 */
static struct ew_delayed *ew_next_copy(struct ew_array *a, u32 disk,
				       struct dm_io_region *from,
				       struct dm_io_region *to)
{
	struct ew_member *m = &a->m[disk];
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], sdisk[EW_MAX_MIRRORS], sr[EW_MAX_MIRRORS];
	u64 sblock[EW_MAX_MIRRORS], now;
	struct ew_delayed *d;
	struct ew_choice ch;
	struct ew_access acc;
	u32 r, n, avoid;
	u8 up;

	while ((d = list_first_entry_or_null(&m->delayed, struct ew_delayed,
					     list))) {
		up = ew_map_uptodate(&a->map, d->lblock);
		ew_replicas(a, d->lblock, rep, home);
		/* a lost block has no source worth copying */
		if (ew_map_gen(&a->map, d->lblock) != d->gen || !up ||
		    test_bit(d->lblock, a->lost) ||
		    ((up & (1U << d->r)) &&
		     (!d->to_home ||
		      ew_map_pblock(&a->map, d->lblock, d->r) == home[d->r]))) {
			/* superseded, or nothing left to do */
			list_del_init(&d->list);
			m->nr_delayed--;
			ew_delayed_put(a, d);
			wake_up(&a->throttle_wait);
			continue;
		}
		/*
		 * A write of the block in flight: its generation may be d's
		 * while the map still points at the data before it (see
		 * "Delayed replicas"); a copy to a home would also race it
		 * on the same physical block.  Wait for it.
		 */
		if (ew_cell_busy(a, d->lblock) || ew_in_discard(a, d->lblock))
			return NULL;
		/* the copy's record, before it starts */
		if (!ew_md_reserve(a->md, 1)) {
			ew_kick_commit(a);
			return NULL;
		}
		now = ew_now();
		n = 0;
		avoid = 0;
		for (r = 0; r < a->geom.p.mirrors; r++) {
			if (!(up & (1U << r)))
				continue;
			sdisk[n] = rep[r].disk;
			sblock[n] = ew_map_pblock(&a->map, d->lblock, r);
			if (ew_member_avoid(a, sdisk[n]))
				avoid |= 1U << n;
			sr[n++] = r;
		}
		/* members with errors only when no other source is left */
		if (d->page && d->slot != EW_NO_SLOT) {
			/*
			 * A journal copy's entry: its data is in memory and
			 * this replica is what restores the second copy,
			 * even when every other one is on a failed member.
			 */
			ch.disk = d->dst_disk;
			ch.block = 0;
			ch.index = 0;
			sr[0] = d->r;
		} else if (ew_place_read(a->pd, sdisk, sblock, n, avoid,
					 a->block_sectors, a->block_sectors,
					 now, &ch) &&
			   ew_place_read(a->pd, sdisk, sblock, n, 0,
					 a->block_sectors, a->block_sectors,
					 now, &ch)) {
			/*
			 * Every up-to-date replica is on a failed member
			 * (only a failed member is refused with no mask):
			 * no source will ever come back, so the entry is
			 * dropped and owed, like the queue of a failed
			 * member.  Left at the head it would hold its
			 * queue, then delay_queue, every writer and
			 * suspend for ever.
			 */
			ew_md_unreserve(a->md, 1);
			list_del_init(&d->list);
			m->nr_delayed--;
			m->owed++;
			ew_delayed_put(a, d);
			wake_up(&a->throttle_wait);
			continue;
		}
		d->src_disk = ch.disk;
		d->src = (u32)ch.block;
		d->src_r = (u8)sr[ch.index];
		from->bdev = a->m[ch.disk].bdev;
		from->sector = ew_block_sector(a, (u32)ch.block);
		from->count = a->block_sectors;
		if (d->to_home) {
			d->dst = home[d->r];
		} else {
			if (ew_place_write(a->pd, &rep[d->r], 1, 0, true,
					   a->block_sectors, now, &ch) ||
			    ew_freemap_alloc(&m->fm, ch.block)) {
				ew_md_unreserve(a->md, 1);
				/* frees may wait for a commit */
				ew_kick_commit(a);
				return NULL;
			}
			d->dst = (u32)ch.block;
			ew_count(a, EW_C_EAGER_WRITES);
		}
		/*
		 * From its page the write goes to the member at once
		 * (ew_copy_from_page): later requests queue behind it.
		 */
		d->sent = !!d->page;
		if (d->sent) {
			if (d->to_home) {
				ew_disk_predict(&m->model, &m->head, now,
						ew_disk_block_lba(&m->model,
								  d->dst,
								  a->block_sectors),
						a->block_sectors, true, &acc);
				ch.cost_ns = acc.end_ns - now;
			}
			ew_head_sent(a, d->dst_disk, d->dst, now, ch.cost_ns);
		}
		to->bdev = m->bdev;
		to->sector = ew_block_sector(a, d->dst);
		to->count = a->block_sectors;
		list_del_init(&d->list);
		m->nr_delayed--;
		if (d->to_home)
			ew_cell_hold(a, &d->cell, d->lblock);
		d->epoch = ew_epoch_enter(a);
		m->copies++;
		a->copies++;
		if (!d->sent) {
			/* kcopyd's: seen only at their end (ew_head_seen) */
			m->unseen++;
			a->m[d->src_disk].unseen++;
		}
		return d;
	}
	return NULL;
}

void ew_prop_work(struct work_struct *work)
{
	struct ew_array *a = container_of(work, struct ew_array, prop_work);
	struct dm_io_region from, to;
	struct ew_delayed *d;
	unsigned long flags;
	bool progress = true, backoff = false;
	DECLARE_BITMAP(queued, EW_MAX_DISKS);
	u32 disk;

	spin_lock_irqsave(&a->lock, flags);
	a->prop_running = true;
	a->prop_again = false;
	spin_unlock_irqrestore(&a->lock, flags);
again:
	while (progress) {
		progress = ew_resync_fill(a, &backoff);
		cond_resched();
		/*
		 * The members with entries queued, in one hold of the lock:
		 * a pass visits only those (an array of 36 members with one
		 * busy queue took the lock 36 times a pass, twice a kick).
		 * One queued after the look is seen by the kick it comes
		 * with.
		 */
		bitmap_zero(queued, EW_MAX_DISKS);
		spin_lock_irqsave(&a->lock, flags);
		for (disk = 0; disk < a->nr; disk++)
			if (a->m[disk].nr_delayed)
				__set_bit(disk, queued);
		spin_unlock_irqrestore(&a->lock, flags);
		for_each_set_bit(disk, queued, a->nr) {
			struct ew_member *m = &a->m[disk];

			spin_lock_irqsave(&a->lock, flags);
			d = NULL;
			/* a member with errors: its queue waits a while */
			if (m->err_run && m->nr_delayed && !a->suspended &&
			    !a->pd[disk].failed &&
			    ew_now() - m->last_err_ns < EW_ERR_BACKOFF_NS) {
				spin_unlock_irqrestore(&a->lock, flags);
				backoff = true;
				continue;
			}
			if (!a->suspended && !a->pd[disk].failed &&
			    a->m[disk].nr_delayed &&
			    a->m[disk].copies < EW_COPIES_PER_DISK &&
			    (!a->pd[disk].queued || ew_pressure(a)))
				d = ew_next_copy(a, disk, &from, &to);
			spin_unlock_irqrestore(&a->lock, flags);
			if (!d)
				continue;
			progress = true;
			if (d->page)
				ew_copy_from_page(a, d, &to);
			else
				dm_kcopyd_copy(a->kc, &from, 1, &to, 0,
					       ew_copy_done, d);
		}
	}
	/* kicked during the pass (ew_kick_prop_locked): once more */
	spin_lock_irqsave(&a->lock, flags);
	progress = a->prop_again;
	a->prop_again = false;
	a->prop_running = progress;
	spin_unlock_irqrestore(&a->lock, flags);
	if (progress)
		goto again;
	if (backoff)
		queue_delayed_work(a->prop_wq, &a->backoff_work,
				   nsecs_to_jiffies(EW_ERR_BACKOFF_NS));
}

void ew_backoff_work(struct work_struct *work)
{
	struct ew_array *a = container_of(to_delayed_work(work),
					  struct ew_array, backoff_work);

	ew_kick_prop(a);
}
