// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-eagerwrite-io.c - the eagerwrite target's I/O path: the bio entry
 * points (.map, .end_io), foreground writes and reads, discards, the bio
 * worker (retries and deferred bios) and the commit worker (the group
 * commit that flushes and FUA writes wait for).  Their rules are in
 * dm-eagerwrite.h: "Writes", "Free after remap", "Discards",
 * "Persistence".
 */

#include "dm-eagerwrite.h"

/* ---------------------------------------------------------------- */
/* Helpers of the I/O path used by the other files too. */

static bool ew_layout_homes(struct ew_array *a)
{
	return a->geom.p.layout != EW_LAYOUT_EW;
}

/* Replicas of lblock, their homes as map entries. */
void ew_replicas(struct ew_array *a, u64 lblock, struct ew_replica *rep,
		 u32 *home)
{
	u32 r;

	ew_geom_map(&a->geom, lblock, rep);
	for (r = 0; r < a->geom.p.mirrors; r++)
		home[r] = rep[r].home == EW_NO_BLOCK ? EW_MAP_NONE :
			  (u32)rep[r].home;
}

/*
 * Predictor bookkeeping.  A member serves what it is sent in order, and
 * the target sends a request at once, often while others are queued on
 * the same member (a page's two blocks, a read behind a write, a delayed
 * replica): the next request starts where the last one sent leaves the
 * arm, when it ends.  So the requests whose prediction the target makes
 * (foreground reads and writes, delayed replicas written from their
 * page) move the predicted arm when they are sent (ew_head_sent) and are
 * retired at completion (ew_head_done).  kcopyd's copies (a read, then a
 * write sent when the read ends) are seen only at their end
 * (ew_head_seen): they place the arm only on a member with nothing sent
 * in flight.  A non-rotational member (a->pd[].nonrot, see "The write
 * path" in Documentation/eagerwrite.rst) has no arm: placement does not
 * read its head state, so none is kept.  All with a->lock held.
 */
void ew_head_sent(struct ew_array *a, u32 disk, u32 pblock, u64 now,
		  u64 cost)
{
	struct ew_member *m = &a->m[disk];

	if (a->pd[disk].nonrot)
		return;
	ew_head_issue(&m->model, &m->head,
		      ew_disk_block_lba(&m->model, pblock, a->block_sectors),
		      a->block_sectors, now + cost);
}

/* A sent request completed; pred_ns, when known, is judged (field 15). */
void ew_head_done(struct ew_array *a, u32 disk, u32 pblock,
		  u64 start_ns, u64 pred_ns, u64 end_ns)
{
	struct ew_member *m = &a->m[disk];
	u64 measured = end_ns - start_ns;

	m->arm_known = true;
	/* sent before the member became non-rotational: still retired */
	if (a->pd[disk].nonrot && !m->head.inflight)
		return;
	ew_head_retire(&m->model, &m->head,
		       ew_disk_block_lba(&m->model, pblock, a->block_sectors),
		       a->block_sectors, end_ns);
	if (pred_ns) {
		a->err_sum_ns += measured > pred_ns ? measured - pred_ns :
			pred_ns - measured;
		a->err_count++;
	}
}

/*
 * Which members are non-rotational, as their queues say now: called on
 * every resume (a table's members are fixed while it is live).  Under
 * a->lock, as placement reads it.
 */
void ew_members_nonrot(struct ew_array *a)
{
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&a->lock, flags);
	for (i = 0; i < a->nr; i++)
		a->pd[i].nonrot = a->m[i].bdev && bdev_nonrot(a->m[i].bdev);
	spin_unlock_irqrestore(&a->lock, flags);
}

/*
 * An eager write completed: the lead of placement learns whether its
 * block was still ahead of the head when it reached the member.
 */
static void ew_lead_learn(struct ew_array *a, u32 disk, u64 pred_ns,
			  u64 measured_ns)
{
	u64 lead = ew_place_lead_update(a->lead_ns, pred_ns, measured_ns,
					a->m[disk].model.p.rotation_ns);
	u32 i;

	if (lead == a->lead_ns)
		return;
	a->lead_ns = lead;
	for (i = 0; i < a->nr; i++)
		a->pd[i].lead_ns = lead;
}

/* A request not sent through ew_head_sent() ended at lba, nsect. */
static void ew_head_seen_lba(struct ew_array *a, u32 disk, u64 lba,
			     u32 nsect, u64 now)
{
	struct ew_member *m = &a->m[disk];

	m->arm_known = true;
	if (!m->head.inflight && !a->pd[disk].nonrot)
		ew_head_complete(&m->model, &m->head, lba, nsect, now);
}

void ew_head_seen(struct ew_array *a, u32 disk, u32 pblock, u64 now)
{
	ew_head_seen_lba(a, disk, ew_disk_block_lba(&a->m[disk].model, pblock,
						    a->block_sectors),
			 a->block_sectors, now);
}

/*
 * The journal slot of a commit, with the metadata on the members: where
 * the live holders' predicted heads reach first (ew_place_jslot(), the
 * holders' own lead).  Under a->lock, from the commit worker.
 */
u32 ew_jplace(void *ctx, const struct ew_md_jplace *q)
{
	struct ew_array *a = ctx;
	const struct ew_pdisk *pds[EW_META_MAX_COPIES];
	u64 cost, now = ew_now();
	u32 i, n = 0, slot;

	lockdep_assert_held(&a->lock);
	for (i = 0; i < q->nholders; i++)
		if (q->holder[i] < a->nr && !a->pd[q->holder[i]].failed)
			pds[n++] = &a->pd[q->holder[i]];
	slot = ew_place_jslot(pds, n, q->lba0, q->slot_sectors, q->nslots,
			      q->hint, q->is_free, q->ctx, now + a->jlead_ns,
			      &cost);
	a->jpick_ns = now;
	/* learn only from idle holders whose arms are known */
	a->jpred_ns = cost ? a->jlead_ns + cost : 0;
	for (i = 0; i < q->nholders; i++) {
		struct ew_member *m;

		if (q->holder[i] >= a->nr)
			continue;
		m = &a->m[q->holder[i]];
		if (!ew_place_lead_sample(m->arm_known, m->head.inflight,
					  m->unseen + m->rb_runs))
			a->jpred_ns = 0;
	}
	return slot;
}

/*
 * Its write ended: the journal's lead learns from it, and the holders'
 * arms are there, as after a kcopyd copy (ew_head_seen()): only on a
 * member with nothing sent in flight.
 */
void ew_jdone(void *ctx, const struct ew_md_jplace *q, u32 slot)
{
	struct ew_array *a = ctx;
	unsigned long flags;
	u64 now = ew_now();
	u32 i;

	spin_lock_irqsave(&a->lock, flags);
	/* a slot passed under the head before the write came: more lead */
	if (a->jpred_ns && q->nholders && q->holder[0] < a->nr)
		a->jlead_ns = ew_place_lead_update(a->jlead_ns, a->jpred_ns,
						   now - a->jpick_ns,
						   a->m[q->holder[0]].model.p.rotation_ns);
	a->jpred_ns = 0;
	for (i = 0; i < q->nholders; i++)
		if (q->holder[i] < a->nr)
			ew_head_seen_lba(a, q->holder[i],
					 q->lba0 + (u64)slot * q->slot_sectors,
					 q->slot_sectors, now);
	spin_unlock_irqrestore(&a->lock, flags);
}

/*
 * Release up to @budget deferred frees whose readers are gone and whose
 * remap is durable (see "Free after remap"); true if the budget ran out
 * (more may be releasable).  Under a->lock, interrupts off: a commit
 * that makes thousands of frees safe at once (one per replica a write
 * gave up) is released a little at a time, by each completion that
 * follows (ew_release_some) and EW_FREES_BATCH a lock hold by the commit
 * worker (ew_release_frees_all), never in one hold of milliseconds.
 */
static bool ew_release_frees(struct ew_array *a, u32 budget)
{
	u64 durable = a->md ? ew_md_dfree_safe(a->md) : U64_MAX;
	bool released = false;
	u32 disk, p;
	int round;

	lockdep_assert_held(&a->lock);
	for (round = 0; round < 2 && budget; round++) {
		u8 old = a->epoch ^ 1;

		if (a->readers[old])
			break;
		while (budget && ew_dfree_pop(&a->dfree,
					      min(a->epoch_start[a->epoch],
						  durable), &disk, &p)) {
			budget--;
			released = true;
			if (a->m[disk].has_fm &&
			    ew_freemap_free(&a->m[disk].fm, p))
				DMERR_LIMIT("free of free block %u on member %u",
					    p, disk);
		}
		if (!budget || a->dfree.tail == a->epoch_start[a->epoch])
			break;
		a->epoch = old;
		a->epoch_start[old] = a->dfree.tail;
	}
	/* writes and copies waiting for free space may go on */
	if (released && !bio_list_empty(&a->deferred))
		queue_work(a->wq, &a->bio_work);
	if (released && a->pending)
		ew_kick_prop_locked(a);
	return !budget;
}

/*
 * An I/O completion's share: twice what a write gives up (Dm blocks), so
 * the completions after a commit release its frees faster than writes
 * push new ones.
 */
static void ew_release_some(struct ew_array *a)
{
	a->io_ends++;
	ew_release_frees(a, 2 * a->geom.p.mirrors);
}

/*
 * The commit worker's share (process context, a->lock not held): one
 * batch, and the rest too, a batch a lock hold, when writes wait for
 * free space or when no I/O completed since its last look (nothing else
 * would release them soon).  "In flight" would not do: on members that
 * complete a bio inside its submission, nothing is ever in flight when
 * the worker looks.
 */
static void ew_release_frees_all(struct ew_array *a)
{
	unsigned long flags;
	bool more, all, idle;

	spin_lock_irqsave(&a->lock, flags);
	idle = a->io_ends == a->io_ends_seen;
	a->io_ends_seen = a->io_ends;
	for (;;) {
		more = ew_release_frees(a, EW_FREES_BATCH);
		all = idle || !bio_list_empty(&a->deferred);
		spin_unlock_irqrestore(&a->lock, flags);
		if (!more || !all)
			return;
		cond_resched();
		spin_lock_irqsave(&a->lock, flags);
	}
}

/* New data (a write, a discard) for a lost block: no longer lost. */
static void ew_unlose(struct ew_array *a, u64 lblock)
{
	if (test_bit(lblock, a->lost)) {
		clear_bit(lblock, a->lost);
		/* the last one: a rebuild waiting for it may end */
		if (!--a->nr_lost && a->rb_active)
			queue_delayed_work(a->prop_wq, &a->rb_work, 0);
	}
}

void ew_defer_free(struct ew_array *a, u32 disk, u32 pblock)
{
	if (pblock == EW_MAP_NONE)
		return;
	if (ew_dfree_push(&a->dfree, disk, pblock) < 0)
		DMERR_LIMIT("deferred-free list full");
}

static void ew_defer_frees(struct ew_array *a, const struct ew_replica *rep,
			   const u32 *freed)
{
	u32 r;

	for (r = 0; r < a->geom.p.mirrors; r++)
		ew_defer_free(a, rep[r].disk, freed[r]);
}

void ew_epoch_exit(struct ew_array *a, u8 epoch)
{
	a->readers[epoch]--;
	ew_release_some(a);
}

/* ---------------------------------------------------------------- */
/* Foreground writes. */

static void ew_write_done(struct ew_io *io)
{
	struct ew_array *a = io->a;
	struct ew_delayed *d, *cd = NULL;
	struct bio *bio = dm_bio_from_per_bio_data(io, sizeof(*io));
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], freed[EW_MAX_MIRRORS];
	u32 mirrors = a->geom.p.mirrors, r, used = 0;
	bool ddm = a->geom.p.layout == EW_LAYOUT_DDM;
	bool kick_bios, logged = false, park = false, again = false;
	unsigned long flags;
	u64 seq = 0;
	u8 stale = 0;
	int ret;

	spin_lock_irqsave(&a->lock, flags);
	ew_replicas(a, io->lblock, rep, home);
	if (io->ok_mask) {
		ret = ew_map_commit_write(&a->map, io->lblock, io->gen,
					  io->ok_mask, io->newp, home, freed);
		if (ret >= 0) {
			/*
			 * The record before the frees: a block it gives up
			 * waits for the journal block holding it.  Every
			 * replica is logged, so the written members are
			 * flushed by the commit that makes it durable.
			 */
			seq = ew_md_log_write(a->md, io->lblock,
					      (1U << mirrors) - 1);
			logged = true;
			for (r = 0; r < mirrors; r++)
				if (io->ok_mask & (1U << r))
					ew_md_member_dirty(a->md, rep[r].disk,
							   hweight8(io->ok_mask) == 1 &&
							   io->slot == EW_NO_SLOT);
			ew_defer_frees(a, rep, freed);
			ew_unlose(a, io->lblock);
			for (r = 0; r < mirrors; r++) {
				bool fg = io->ok_mask & (1U << r);

				if (fg && !(ddm && r == 0))
					continue;
				/* a failed member gets no copy: stale */
				if (a->pd[rep[r].disk].failed)
					continue;
				/*
				 * A foreground replica that failed was not
				 * reserved for: it takes a free entry, or
				 * stays stale (owed) until the next write.
				 */
				if (used >= io->reserved) {
					if (a->delay_used >=
					    a->args.delay_queue) {
						a->m[rep[r].disk].owed++;
						continue;
					}
					a->delay_used++;
					io->reserved++;
				}
				d = ew_delayed_queue(a, io->lblock, io->gen, r,
						     rep[r].disk,
						     home[r] != EW_MAP_NONE);
				/*
				 * The journal copy goes with the first
				 * entry of a replica the write did not
				 * take: it ends when that one is current.
				 */
				if (d && io->slot != EW_NO_SLOT && !cd && !fg) {
					ew_delayed_page(a, d, bio, true);
					cd = d;
				} else if (d) {
					ew_delayed_page(a, d, bio, false);
				}
				used++;
			}
			/*
			 * The copy's record after the block's: its slot is
			 * written by the commit that makes both durable,
			 * before their journal block (see the commit).
			 */
			if (cd) {
				cd->slot = io->slot;
				io->slot = EW_NO_SLOT;
				ew_md_copy_log(a->md, cd->slot, io->lblock,
					       io->gen, cd->page);
			}
		}
	}
	/* a copy reserved and not needed (no replica took the write) */
	if (io->slot != EW_NO_SLOT) {
		ew_md_copy_cancel(a->md, io->slot);
		ew_md_unreserve(a->md, 2);
		a->dpages_resv--;
		io->slot = EW_NO_SLOT;
	}
	/*
	 * Blocks written by failed replicas were never mapped.  When no
	 * replica took the write, a home that failed an update in place
	 * holds unknown data: stale, and journalled as such (with the
	 * units this write reserved) so that recovery never trusts it.
	 */
	for (r = 0; r < mirrors; r++) {
		if (!((io->fg_mask & ~io->ok_mask) & (1U << r)))
			continue;
		if (io->newp[r] != home[r])
			ew_defer_free(a, rep[r].disk, io->newp[r]);
		else if (!io->ok_mask &&
			 ew_map_pblock(&a->map, io->lblock, r) == home[r] &&
			 ew_map_set_stale(&a->map, io->lblock, r))
			stale |= 1U << r;
	}
	if (stale && !logged) {
		ew_md_unreserve(a->md, io->jres - hweight8(stale));
		ew_md_log_block(a->md, io->lblock, stale);
		logged = true;
	}
	a->delay_used -= io->reserved - used;
	if (!logged)
		ew_md_unreserve(a->md, io->jres);
	/*
	 * One replica that took the write is enough (the others are stale
	 * or queued); when none did, place it again, on another member
	 * now that this one is avoided.
	 */
	if (io->ok_mask) {
		io->status = BLK_STS_OK;
	} else if (io->retries < EW_WRITE_RETRIES) {
		io->retries++;
		io->status = BLK_STS_OK;
		bio_list_add(&a->retry, bio);
		again = true;
	}
	/* after a metadata error nothing written is durable any more */
	if (!again && !io->status && ew_md_failed(a->md))
		io->status = BLK_STS_IOERR;
	/* FUA: complete when the commit covering the record is durable */
	if (!again && !io->status && (bio->bi_opf & REQ_FUA) && seq &&
	    seq > ew_md_durable_seq(a->md)) {
		io->commit_seq = seq;
		bio_list_add(&a->commit_wait, bio);
		park = true;
	}
	kick_bios = ew_cell_release(a, &io->cell);
	a->writes--;
	ew_release_some(a);
	/*
	 * io is the bio's per-bio data: once the lock is dropped a parked
	 * FUA bio may be completed by the commit worker, and a retried one
	 * restarted (and completed) by the bio worker, at any moment; the
	 * device may then suspend and free the array.  So neither io nor
	 * the array is touched after the unlock unless this bio is still
	 * ours (neither parked nor retried).  Waking and queueing work do
	 * not sleep and take no a->lock: both are done here.
	 */
	if (io->reserved != used)
		wake_up(&a->throttle_wait);
	if (kick_bios || again)
		ew_kick_bios(a);
	/* a delayed replica of this block may wait for it (ew_next_copy) */
	if (used || a->pending)
		ew_kick_prop_locked(a);
	if (park)
		ew_kick_commit(a);
	spin_unlock_irqrestore(&a->lock, flags);

	if (again || park)
		return;
	bio->bi_status = io->status;
	bio_endio(bio);
}

static void ew_fg_endio(struct bio *clone)
{
	struct ew_io *io = clone->bi_private;
	struct ew_array *a = io->a;
	u64 now = ew_now();
	unsigned long flags;
	bool kick = false;
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 r, disk;

	spin_lock_irqsave(&a->lock, flags);
	ew_geom_map(&a->geom, io->lblock, rep);
	r = container_of(clone, struct ew_clone, bio)->r;
	if (!WARN_ON_ONCE(r >= a->geom.p.mirrors ||
			  !(io->fg_mask & (1U << r)))) {
		disk = rep[r].disk;
		a->pd[disk].queued--;
		a->m[disk].fg_done_ns = now;
		ew_head_done(a, disk, io->newp[r], io->start_ns,
			     io->pred_ns[r], now);
		if (ew_layout_eager(a->geom.p.layout) && !clone->bi_status &&
		    !a->pd[disk].nonrot && (io->lead_mask & (1U << r)))
			ew_lead_learn(a, disk, io->pred_ns[r],
				      now - io->start_ns);
		if (clone->bi_status) {
			io->status = clone->bi_status;
			ew_member_error(a, disk, true);
		} else {
			io->ok_mask |= 1U << r;
			ew_member_ok(a, disk);
		}
		kick = !a->pd[disk].queued && a->m[disk].nr_delayed;
	} else {
		io->status = BLK_STS_IOERR;
	}
	spin_unlock_irqrestore(&a->lock, flags);
	bio_put(clone);
	if (kick)
		ew_kick_prop(a);
	if (atomic_dec_and_test(&io->pending))
		ew_write_done(io);
}

enum ew_map_result {
	EW_STARTED,
	EW_DEFERRED,	/* on a->deferred (cell busy, no free block yet) */
	EW_RETRY,	/* no memory or no reservation: the worker retries */
	EW_FAILED,	/* bio ended with an error */
};

/*
 * The searches take time (tens of microseconds, several hundred when no
 * free block is near a head: the walk goes out until the seek alone
 * costs more than the best found), and the clones are sent only after
 * the last of them, so a block priced for a request sent at now may have
 * passed under its head by the time the request gets there: the write
 * would wait a turn.  Each eager replica on a rotating member is priced
 * again at the time it will be sent (ew_place_reached); one the head
 * will have passed is placed again (ew_place_again: given back, and its
 * member searched again assuming the new search takes as long as the
 * searches so far).  Its predicted service stays relative to now, as
 * ew_head_sent() and the lead's learner expect.  a->lock held.
 */
static void ew_write_replace_late(struct ew_array *a,
				  const struct ew_replica *rep,
				  const u32 *target, u32 want,
				  struct ew_io *io, u64 now)
{
	u32 i, r, disk;
	u64 t, end;

	for (i = 0; i < want; i++) {
		r = target[i];
		disk = rep[r].disk;
		t = ew_now();
		end = now + io->pred_ns[r];
		if (ew_place_reached(&a->pd[disk], io->newp[r],
				     a->block_sectors, end, t))
			continue;
		io->newp[r] = (u32)ew_place_again(&a->pd[disk], &a->m[disk].fm,
						  a->block_sectors,
						  io->newp[r], now, t, &end);
		io->pred_ns[r] = end - now;
	}
}

static enum ew_map_result ew_write(struct ew_array *a, struct bio *bio,
				   struct ew_io *io, gfp_t gfp)
{
	u32 mirrors = a->geom.p.mirrors, sync = a->sync;
	bool eager = ew_layout_eager(a->geom.p.layout);
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS];
	struct bio *clone[EW_MAX_MIRRORS];
	u32 target[EW_MAX_MIRRORS];
	struct ew_choice ch;
	unsigned long flags;
	u32 i, skip = 0, avoid = 0, alive = 0, want, extra = 0;
	/* with journal copies a write without a page runs as sync 2 */
	u32 nclone = a->jcopy ? 2 : sync;
	int slot = -1;
	u64 now;
	int ret = 0;

	io->slot = EW_NO_SLOT;
	for (i = 0; i < nclone; i++) {
		clone[i] = bio_alloc_clone(a->m[0].bdev, bio, gfp, &a->bs);
		if (!clone[i]) {
			while (i--)
				bio_put(clone[i]);
			return EW_RETRY;
		}
	}

	spin_lock_irqsave(&a->lock, flags);
	if (a->delay_used + a->need_delayed > a->args.delay_queue) {
		spin_unlock_irqrestore(&a->lock, flags);
		ret = EW_RETRY;
		goto put;
	}
	if (ew_cell_busy(a, io->lblock) || ew_in_discard(a, io->lblock)) {
		bio_list_add(&a->deferred, bio);
		spin_unlock_irqrestore(&a->lock, flags);
		ret = EW_DEFERRED;
		goto put;
	}
	if (ew_md_failed(a->md)) {
		spin_unlock_irqrestore(&a->lock, flags);
		bio->bi_status = BLK_STS_IOERR;
		bio_endio(bio);
		ret = EW_FAILED;
		goto put;
	}
	/*
	 * A journal copy: a slot, a page for its data and journal units
	 * for its COPY and UNCOPY records.  No slot free: the write waits
	 * (a copy is never dropped); no page free: it runs as sync 2.
	 */
	if (a->jcopy) {
		if (a->dpages_free > a->dpages_resv) {
			slot = ew_md_copy_get(a->md);
			if (slot < 0) {
				spin_unlock_irqrestore(&a->lock, flags);
				ew_kick_commit(a);
				ret = EW_RETRY;
				goto put;
			}
			extra = 2;
		} else {
			sync = 2;
		}
	}
	/* the journal records of its map change, before it starts */
	if (!ew_md_reserve(a->md, mirrors + extra)) {
		a->journal_waits++;
		if (slot >= 0)
			ew_md_copy_cancel(a->md, slot);
		spin_unlock_irqrestore(&a->lock, flags);
		ew_kick_commit(a);
		ret = EW_RETRY;
		goto put;
	}
	ew_replicas(a, io->lblock, rep, home);
	now = ew_now();
	io->fg_mask = 0;
	io->ok_mask = 0;
	/* degraded: as many foreground replicas as live members allow */
	for (i = 0; i < mirrors; i++) {
		if (!a->pd[rep[i].disk].failed)
			alive++;
		/*
		 * A rebuilding member only where nothing else can take the
		 * write: a block whose only current replica is there would
		 * read as lost after a reboot (ew_array_member_state).
		 */
		if (ew_member_avoid(a, rep[i].disk) ||
		    a->m[rep[i].disk].rebuilding)
			avoid |= 1U << i;
	}
	want = min(sync, alive);
	if (!want)
		ret = -EIO;
	for (i = 0; i < want; i++) {
		/* members with errors only where no other candidate is left */
		ret = ew_place_write(a->pd, rep, mirrors, skip | avoid, eager,
				     a->block_sectors, now, &ch);
		if (ret)
			ret = ew_place_write(a->pd, rep, mirrors, skip, eager,
					     a->block_sectors, now, &ch);
		if (!ret && eager)
			ret = ew_freemap_alloc(&a->m[ch.disk].fm, ch.block);
		if (ret)
			break;
		/* next fit: the next search starts after this block */
		if (eager && a->pd[ch.disk].nonrot)
			a->pd[ch.disk].next_free = ch.block + 1;
		skip |= 1U << ch.index;
		io->newp[ch.index] = (u32)ch.block;
		io->pred_ns[ch.index] = ch.cost_ns;
		target[i] = ch.index;
		a->pd[ch.disk].queued++;
	}
	if (ret) {
		/* undo the replicas placed so far */
		while (i--) {
			u32 r = target[i];

			a->pd[rep[r].disk].queued--;
			if (eager)
				ew_freemap_free(&a->m[rep[r].disk].fm,
						io->newp[r]);
		}
		ew_md_unreserve(a->md, mirrors + extra);
		if (slot >= 0)
			ew_md_copy_cancel(a->md, slot);
		/*
		 * No free block now, but some will come: frees waiting for
		 * their safe point, or writes in flight, which give up
		 * their old blocks when they complete (and kick the
		 * deferred bios).  With little slack (a low dilution) the
		 * writes in flight can hold every free block of a member
		 * while nothing is deferred yet: that is no reason to fail.
		 */
		if (ret == -ENOSPC &&
		    (ew_dfree_pending(&a->dfree) || a->writes)) {
			bio_list_add(&a->deferred, bio);
			spin_unlock_irqrestore(&a->lock, flags);
			/* the frees may wait for their remaps to be durable */
			ew_kick_commit(a);
			ret = EW_DEFERRED;
			goto put;
		}
		spin_unlock_irqrestore(&a->lock, flags);
		DMWARN_LIMIT("no replica can take a write (%d)", ret);
		bio->bi_status = ret == -ENOSPC ? BLK_STS_NOSPC : BLK_STS_IOERR;
		bio_endio(bio);
		ret = EW_FAILED;
		goto put;
	}
	if (eager)
		ew_write_replace_late(a, rep, target, want, io, now);
	/*
	 * Every replica on its own member: none moved another's arm.  The
	 * ones sent to an idle member with a known arm teach the lead when
	 * they complete (ew_place_lead_sample).
	 */
	io->lead_mask = 0;
	for (i = 0; i < want; i++) {
		struct ew_member *m = &a->m[rep[target[i]].disk];

		if (ew_place_lead_sample(m->arm_known, m->head.inflight,
					 m->unseen + m->rb_runs))
			io->lead_mask |= 1U << target[i];
		ew_head_sent(a, rep[target[i]].disk, io->newp[target[i]], now,
			     io->pred_ns[target[i]]);
	}
	io->fg_mask = skip;
	io->gen = ew_map_begin_write(&a->map, io->lblock);
	io->start_ns = now;
	io->reserved = a->need_delayed;
	io->jres = mirrors;
	if (slot >= 0) {
		io->slot = slot;
		a->dpages_resv++;
	}
	a->delay_used += a->need_delayed;
	ew_cell_hold(a, &io->cell, io->lblock);
	a->writes++;
	spin_unlock_irqrestore(&a->lock, flags);

	ew_count(a, EW_C_WRITES);
	atomic_set(&io->pending, want);
	for (i = want; i < nclone; i++)
		bio_put(clone[i]);
	for (i = 0; i < want; i++) {
		u32 r = target[i];

		bio_set_dev(clone[i], a->m[rep[r].disk].bdev);
		clone[i]->bi_iter.bi_sector = ew_block_sector(a, io->newp[r]);
		clone[i]->bi_end_io = ew_fg_endio;
		clone[i]->bi_private = io;
		container_of(clone[i], struct ew_clone, bio)->r = r;
		ew_count(a, EW_C_FG_WRITES);
		if (eager)
			ew_count(a, EW_C_EAGER_WRITES);
		submit_bio_noacct(clone[i]);
	}
	return EW_STARTED;

put:
	for (i = 0; i < nclone; i++)
		bio_put(clone[i]);
	return ret;
}

/* ---------------------------------------------------------------- */
/*
 * Discards: whole blocks only (the discard granularity is the block).
 * The map forgets the blocks at once (they read zeros); where the layout
 * has fixed homes (raid10, ddm) the homes are discarded on the members
 * too, from the bio worker (it sleeps), while writes and home copies of
 * the range wait (a->disc_*), so a discard never lands on newer data.
 */

/*
 * A member that is missing ("-"), removed or failed gets no discard: it
 * has no device (bdev NULL) or gets no I/O at all (ew_member_fail).  The
 * bio worker runs while the table is live, so bdev does not change under
 * it (ew_preresume changes it with the worker flushed).
 */
static bool ew_discard_member(struct ew_array *a, u32 disk)
{
	return a->m[disk].bdev && !READ_ONCE(a->pd[disk].failed);
}

static void ew_discard_run(struct ew_array *a, u32 disk)
{
	struct block_device *bdev = a->m[disk].bdev;

	if (a->run_len[disk] && ew_discard_member(a, disk) &&
	    bdev_max_discard_sectors(bdev))
		/* advisory: an error leaves old data in a free place */
		blkdev_issue_discard(bdev,
				     ew_block_sector(a, a->run_start[disk]),
				     a->run_len[disk] * a->block_sectors,
				     GFP_NOIO);
	a->run_len[disk] = 0;
}

static void ew_discard_homes(struct ew_array *a, u64 first, u64 end)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 r, d;
	u64 b;

	for (b = first; b < end; b++) {
		if (!((b - first) % EW_DISCARD_SLICE))
			cond_resched();
		ew_geom_map(&a->geom, b, rep);
		for (r = 0; r < a->geom.p.mirrors; r++) {
			d = rep[r].disk;
			if (rep[r].home == EW_NO_BLOCK ||
			    !ew_discard_member(a, d))
				continue;
			if (a->run_len[d] &&
			    a->run_start[d] + a->run_len[d] == rep[r].home) {
				a->run_len[d]++;
				continue;
			}
			ew_discard_run(a, d);
			a->run_start[d] = rep[r].home;
			a->run_len[d] = 1;
		}
	}
	for (d = 0; d < a->nr; d++)
		ew_discard_run(a, d);
}

/* Does a write or a home copy hold a block of [first, end)? */
static bool ew_range_busy(struct ew_array *a, u64 first, u64 end)
{
	struct ew_cell *c;
	u32 i;
	u64 b;

	if (end - first <= EW_DISCARD_SLICE) {
		for (b = first; b < end; b++)
			if (ew_cell_busy(a, b))
				return true;
		return false;
	}
	/* a long range: the cells in flight are fewer than its blocks */
	for (i = 0; i < ARRAY_SIZE(a->cells); i++)
		hlist_for_each_entry(c, &a->cells[i], node)
			if (c->lblock >= first && c->lblock < end)
				return true;
	return false;
}

static bool ew_journal_room(struct ew_array *a, u32 units)
{
	unsigned long flags;
	bool room;

	spin_lock_irqsave(&a->lock, flags);
	room = ew_md_room(a->md, units);
	spin_unlock_irqrestore(&a->lock, flags);
	return room;
}

/* Called from the bio worker only: it may sleep. */
static void ew_discard(struct ew_array *a, struct bio *bio)
{
	u64 first = bio->bi_iter.bi_sector, end, stop, b;
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], freed[EW_MAX_MIRRORS];
	unsigned long flags;
	bool kick, kick_prop;

	end = div_u64(first + bio_sectors(bio), a->block_sectors);
	first = div_u64(first + a->block_sectors - 1, a->block_sectors);
	end = min(end, a->map.nr_blocks);
	if (first >= end) {
		bio_endio(bio);
		return;
	}
	spin_lock_irqsave(&a->lock, flags);
	if (ew_range_busy(a, first, end)) {
		bio_list_add(&a->deferred, bio);
		spin_unlock_irqrestore(&a->lock, flags);
		return;
	}
	/* from here on, writes and home copies of the range wait */
	a->discarding = true;
	a->disc_first = first;
	a->disc_end = end;
	spin_unlock_irqrestore(&a->lock, flags);

	for (b = first; b < end; ) {
		stop = min(end, b + EW_DISCARD_SLICE);
		spin_lock_irqsave(&a->lock, flags);
		while (!ew_md_reserve(a->md, 1)) {
			a->journal_waits++;
			spin_unlock_irqrestore(&a->lock, flags);
			ew_kick_commit(a);
			wait_event(a->throttle_wait, ew_journal_room(a, 1));
			spin_lock_irqsave(&a->lock, flags);
		}
		/* the record before the frees, as for writes */
		ew_md_log_discard(a->md, b, stop - b);
		for (; b < stop; b++) {
			ew_replicas(a, b, rep, home);
			ew_map_discard(&a->map, b, home, freed);
			ew_defer_frees(a, rep, freed);
			ew_unlose(a, b);
		}
		ew_release_frees(a, EW_FREES_BATCH);
		spin_unlock_irqrestore(&a->lock, flags);
		cond_resched();
	}
	if (ew_layout_homes(a))
		ew_discard_homes(a, first, end);

	spin_lock_irqsave(&a->lock, flags);
	a->discarding = false;
	kick = !bio_list_empty(&a->deferred);
	/* copies of the range wait for the discard (ew_next_copy) */
	kick_prop = a->pending;
	spin_unlock_irqrestore(&a->lock, flags);
	if (kick)
		ew_kick_bios(a);
	if (kick_prop)
		ew_kick_prop(a);
	bio_endio(bio);
}

/* ---------------------------------------------------------------- */
/* Reads. */

/*
 * Every up-to-date replica of lblock is on a failed member: a live
 * journal copy of its current generation serves the read from memory
 * (the page its delayed replica is written from, which restores a live
 * replica).  a->lock held; the page stays while the copy is live.
 */
static bool ew_read_copy(struct ew_array *a, struct bio *bio, u64 lblock)
{
	struct page *page;
	struct bvec_iter iter;
	struct bio_vec bv;
	u32 off;
	u8 *src;

	page = ew_md_copy_find(a->md, lblock, ew_map_gen(&a->map, lblock));
	if (!page)
		return false;
	src = page_address(page);
	off = (bio->bi_iter.bi_sector & (a->block_sectors - 1)) << SECTOR_SHIFT;
	bio_for_each_segment(bv, bio, iter) {
		memcpy_to_bvec(&bv, src + off);
		off += bv.bv_len;
	}
	return true;
}

static int ew_read(struct ew_array *a, struct bio *bio, struct ew_io *io)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], disk[EW_MAX_MIRRORS], ridx[EW_MAX_MIRRORS];
	u64 block[EW_MAX_MIRRORS];
	struct ew_choice ch;
	unsigned long flags;
	u32 r, n = 0, avoid = 0;
	u8 up;
	int ret;

	if (!io->retries)
		ew_count(a, EW_C_READS);
	spin_lock_irqsave(&a->lock, flags);
	up = ew_map_uptodate(&a->map, io->lblock);
	if (test_bit(io->lblock, a->lost)) {
		spin_unlock_irqrestore(&a->lock, flags);
		DMERR_LIMIT("block %llu lost with a replaced member",
			    io->lblock);
		return DM_MAPIO_KILL;
	}
	if (!up) {
		/* never written or discarded: zeros, no I/O */
		spin_unlock_irqrestore(&a->lock, flags);
		zero_fill_bio(bio);
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}
	ew_replicas(a, io->lblock, rep, home);
	for (r = 0; r < a->geom.p.mirrors; r++) {
		if (!(up & (1U << r)))
			continue;
		disk[n] = rep[r].disk;
		block[n] = ew_map_pblock(&a->map, io->lblock, r);
		if (ew_member_avoid(a, disk[n]))
			avoid |= 1U << n;
		ridx[n++] = r;
	}
	io->start_ns = ew_now();
	/* members with errors only when no other replica is readable */
	ret = ew_place_read(a->pd, disk, block, n, avoid, a->block_sectors,
			    bio_sectors(bio), io->start_ns, &ch);
	if (ret)
		ret = ew_place_read(a->pd, disk, block, n, 0, a->block_sectors,
				    bio_sectors(bio), io->start_ns, &ch);
	if (ret && a->jcopy &&
	    ew_read_copy(a, bio, io->lblock)) {
		spin_unlock_irqrestore(&a->lock, flags);
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}
	if (ret) {
		/* every up-to-date replica is on a failed member */
		spin_unlock_irqrestore(&a->lock, flags);
		DMERR_LIMIT("block %llu: no up-to-date replica on a live member",
			    io->lblock);
		return DM_MAPIO_KILL;
	}
	io->rep = (u8)ridx[ch.index];
	io->disk = ch.disk;
	io->newp[0] = (u32)ch.block;
	io->pred_ns[0] = ch.cost_ns;
	io->epoch = ew_epoch_enter(a);
	io->tracked = true;
	a->pd[ch.disk].queued++;
	ew_head_sent(a, ch.disk, io->newp[0], io->start_ns, ch.cost_ns);
	spin_unlock_irqrestore(&a->lock, flags);

	bio_set_dev(bio, a->m[ch.disk].bdev);
	bio->bi_iter.bi_sector = ew_block_sector(a, io->newp[0]) +
		(bio->bi_iter.bi_sector & (a->block_sectors - 1));
	return DM_MAPIO_REMAPPED;
}

/* ---------------------------------------------------------------- */
/* The bio worker: retries and deferred bios; may sleep. */

static bool ew_room(struct ew_array *a)
{
	unsigned long flags;
	bool room;

	spin_lock_irqsave(&a->lock, flags);
	room = a->delay_used + a->need_delayed <= a->args.delay_queue &&
	       ew_md_room(a->md, a->geom.p.mirrors + (a->jcopy ? 2 : 0)) &&
	       (!a->jcopy || a->dpages_free <= a->dpages_resv ||
		ew_md_copy_room(a->md));
	spin_unlock_irqrestore(&a->lock, flags);
	return room;
}

/* A read that failed on one replica, sent to another (see ew_end_io). */
static void ew_read_again(struct ew_array *a, struct bio *bio)
{
	struct ew_io *io = dm_per_bio_data(bio, sizeof(*io));

	bio->bi_iter = io->iter;
	bio->bi_status = BLK_STS_OK;
	switch (ew_read(a, bio, io)) {
	case DM_MAPIO_REMAPPED:
		submit_bio_noacct(bio);
		break;
	case DM_MAPIO_KILL:
		bio_io_error(bio);
		break;
	default:	/* completed (zeros) */
		break;
	}
}

void ew_bio_work(struct work_struct *work)
{
	struct ew_array *a = container_of(work, struct ew_array, bio_work);
	struct bio_list bios, reads;
	unsigned long flags;
	struct bio *bio;

	spin_lock_irqsave(&a->lock, flags);
	reads = a->read_retry;
	bio_list_init(&a->read_retry);
	bios = a->retry;
	bio_list_init(&a->retry);
	bio_list_merge(&bios, &a->deferred);
	bio_list_init(&a->deferred);
	spin_unlock_irqrestore(&a->lock, flags);

	while ((bio = bio_list_pop(&reads)))
		ew_read_again(a, bio);
	while ((bio = bio_list_pop(&bios))) {
		struct ew_io *io = dm_per_bio_data(bio, sizeof(*io));

		if (bio_op(bio) == REQ_OP_DISCARD) {
			ew_discard(a, bio);
			continue;
		}
		/* throttle: wait for delayed-queue room, nothing dropped */
		while (ew_write(a, bio, io, GFP_NOIO) == EW_RETRY)
			wait_event(a->throttle_wait, ew_room(a));
	}
}

/* ---------------------------------------------------------------- */
/*
 * After a commit: members whose flush failed are failed, the bios the
 * durable journal covers complete, the frees it made safe are released.
 * True while bios still wait.
 */
static bool ew_commit_done(struct ew_array *a)
{
	struct bio_list done, keep;
	struct bio *bio;
	unsigned long flags;
	u64 durable, errs, lost, lost_first;
	bool failed, more, kick_prop, told = false;
	u32 i;

	errs = ew_md_member_errors(a->md);

	bio_list_init(&done);
	bio_list_init(&keep);
	spin_lock_irqsave(&a->lock, flags);
	/* a member whose flush failed may have lost acknowledged data */
	for (i = 0; i < a->nr; i++)
		if (errs & BIT_ULL(i))
			ew_member_fail(a, i, "flush failed");
	failed = ew_md_failed(a->md);
	if (failed && !a->md_failed_seen) {
		a->md_failed_seen = true;
		ew_event(a);
	}
	durable = ew_md_durable_seq(a->md);
	lost = ew_md_lost_seq(a->md, &lost_first);
	while ((bio = bio_list_pop(&a->commit_wait))) {
		struct ew_io *io = dm_per_bio_data(bio, sizeof(*io));

		/*
		 * A commit lost writes (a member holding their only copy
		 * failed its flush): every waiter there now that covers
		 * them fails, now or when its own block is durable; with
		 * none there, the next flush fails (ew_map).  The loss is
		 * reported once, like a writeback error.
		 */
		if (lost != a->lost_seen && io->commit_seq >= lost_first) {
			bio->bi_status = BLK_STS_IOERR;
			told = true;
		}
		if (io->commit_seq <= durable) {
			bio_list_add(&done, bio);
		} else if (failed) {
			bio->bi_status = BLK_STS_IOERR;
			bio_list_add(&done, bio);
		} else {
			bio_list_add(&keep, bio);
		}
	}
	a->commit_wait = keep;
	if (lost != a->lost_seen)
		a->lost_pending = !told;
	a->lost_seen = lost;
	more = !bio_list_empty(&a->commit_wait);
	kick_prop = a->pending;
	spin_unlock_irqrestore(&a->lock, flags);

	while ((bio = bio_list_pop(&done)))
		bio_endio(bio);
	ew_release_frees_all(a);
	/* journal space is back: writes, copies and discards may go on */
	wake_up(&a->throttle_wait);
	if (kick_prop)
		ew_kick_prop(a);
	return more;
}

/*
 * The commit worker: group commit, kicked by flushes, FUA writes and
 * waiters for journal space or free blocks, and every EW_COMMIT_PERIOD
 * otherwise (which bounds what a crash loses of writes never flushed).
 * The order (members flushed, then the journal with FUA) is in
 * ew_md_commit(); here the bios it covers complete.  Then, when the
 * journal asks for one, a step of the periodic checkpoint: the bios of
 * this commit do not wait for it, and the next run (at once while the
 * checkpoint is not over) commits before the next step.
 */
void ew_commit_work(struct work_struct *work)
{
	struct ew_array *a = container_of(to_delayed_work(work),
					  struct ew_array, commit_work);
	bool more;
	int ret;

	/*
	 * A member failed in memory (write errors) is failed on disk
	 * before this commit's journal can call its replicas current, and
	 * the commit does not flush it.
	 */
	if (!ew_md_failed(a->md))
		ew_member_state_sync(a);
	ret = ew_md_commit(a->md);
	more = ew_commit_done(a);
	if (!ret && ew_md_checkpoint_due(a->md)) {
		ew_md_checkpoint_step(a->md);
		/* its last part commits too */
		more = ew_commit_done(a) ||
		       ew_md_checkpoint_active(a->md);
	}
	queue_delayed_work(a->commit_wq, &a->commit_work,
			   more ? 0 : EW_COMMIT_PERIOD);
}

/* ---------------------------------------------------------------- */
/* Bio entry points. */

int ew_map(struct dm_target *ti, struct bio *bio)
{
	struct ew_target *t = ti->private;
	struct ew_array *a = t->a;
	struct ew_io *io = dm_per_bio_data(bio, sizeof(*io));
	unsigned long flags;

	memset(io, 0, sizeof(*io));
	io->a = a;
	INIT_HLIST_NODE(&io->cell.node);
	io->kind = EW_IO_OTHER;

	if (bio->bi_opf & REQ_PREFLUSH) {
		/* dm sends the data of a PREFLUSH bio separately: empty */
		io->kind = EW_IO_FLUSH;
		ew_count(a, EW_C_FLUSHES);
		if (ew_md_failed(a->md))
			return DM_MAPIO_KILL;
		spin_lock_irqsave(&a->lock, flags);
		/* lost writes no waiter was told of: this flush covers them */
		if (a->lost_pending) {
			a->lost_pending = false;
			spin_unlock_irqrestore(&a->lock, flags);
			return DM_MAPIO_KILL;
		}
		io->commit_seq = ew_md_flush_seq(a->md);
		if (io->commit_seq)
			bio_list_add(&a->commit_wait, bio);
		spin_unlock_irqrestore(&a->lock, flags);
		if (io->commit_seq)
			ew_kick_commit(a);
		else
			bio_endio(bio);	/* nothing written since the commit */
		return DM_MAPIO_SUBMITTED;
	}

	bio->bi_iter.bi_sector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	io->lblock = bio->bi_iter.bi_sector >> ilog2(a->block_sectors);

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		io->kind = EW_IO_READ;
		io->iter = bio->bi_iter;
		return ew_read(a, bio, io);
	case REQ_OP_WRITE:
		io->kind = EW_IO_WRITE;
		if (ew_md_failed(a->md))
			return DM_MAPIO_KILL;
		if (ew_write(a, bio, io, GFP_NOWAIT) == EW_RETRY) {
			spin_lock_irqsave(&a->lock, flags);
			bio_list_add(&a->retry, bio);
			spin_unlock_irqrestore(&a->lock, flags);
			ew_kick_bios(a);
		}
		return DM_MAPIO_SUBMITTED;
	case REQ_OP_DISCARD:
		if (ew_md_failed(a->md))
			return DM_MAPIO_KILL;
		/* long, and may sleep (homes): the worker does it */
		spin_lock_irqsave(&a->lock, flags);
		bio_list_add(&a->retry, bio);
		spin_unlock_irqrestore(&a->lock, flags);
		ew_kick_bios(a);
		return DM_MAPIO_SUBMITTED;
	default:
		return DM_MAPIO_KILL;
	}
}

int ew_end_io(struct dm_target *ti, struct bio *bio,
	      blk_status_t *error)
{
	struct ew_target *t = ti->private;
	struct ew_array *a = t->a;
	struct ew_io *io = dm_per_bio_data(bio, sizeof(*io));
	unsigned long flags;
	bool kick, retry = false, repair = false, lost = false;
	u64 now;

	if (io->kind != EW_IO_READ || !io->tracked)
		return DM_ENDIO_DONE;
	spin_lock_irqsave(&a->lock, flags);
	now = ew_now();
	a->pd[io->disk].queued--;
	a->m[io->disk].fg_done_ns = now;
	ew_head_done(a, io->disk, io->newp[0], io->start_ns, io->pred_ns[0],
		     now);
	ew_epoch_exit(a, io->epoch);
	io->tracked = false;
	if (!*error) {
		ew_member_ok(a, io->disk);
	} else if (*error == BLK_STS_AGAIN || (bio->bi_opf & REQ_RAHEAD)) {
		/*
		 * Not the member's fault: a member may refuse to wait
		 * (BLK_STS_AGAIN) or drop a read-ahead (md and dm-raid1 fail
		 * REQ_RAHEAD instead of retrying it).  Neither counts
		 * towards failing the member nor marks the replica stale;
		 * the error goes up as it came (read-ahead is advisory).
		 */
	} else {
		repair = ew_read_failed(a, io->lblock, io->rep, io->disk,
					io->newp[0]);
		/* at most one retry per replica, and only to another one */
		if (io->retries < a->geom.p.mirrors &&
		    ew_other_replica(a, io->lblock, io->disk, io->newp[0])) {
			io->retries++;
			bio_list_add(&a->read_retry, bio);
			retry = true;
		} else {
			/*
			 * No other replica left to try (the partner is
			 * failing but not yet failed, or the retries are
			 * spent): a live journal copy serves the read, or
			 * the error goes up and is logged below.  A read
			 * whose replicas are all on failed members never
			 * gets here; .map logs and fails it.
			 */
			if (a->jcopy) {
				bio->bi_iter = io->iter;
				if (ew_read_copy(a, bio, io->lblock))
					*error = BLK_STS_OK;
			}
			lost = *error != BLK_STS_OK;
		}
	}
	kick = (!a->pd[io->disk].queued && a->m[io->disk].nr_delayed) ||
		repair;
	spin_unlock_irqrestore(&a->lock, flags);
	if (lost)
		DMERR_LIMIT("block %llu: read error on member %u, no other replica to read",
			    io->lblock, io->disk);
	if (kick)
		ew_kick_prop(a);
	if (!retry)
		return DM_ENDIO_DONE;
	/*
	 * Retried from the bio worker, the way dm-mpath retries a bio on
	 * another path: the bio is restored as .map saw it and mapped
	 * again, to an up-to-date replica on another member (the one that
	 * failed is now stale or avoided).  Not DM_ENDIO_REQUEUE: dm
	 * resubmits the whole original bio through .map only while
	 * suspending with noflush and fails it with -EIO otherwise.
	 */
	ew_kick_bios(a);
	return DM_ENDIO_INCOMPLETE;
}
