// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-eagerwrite-failure.c - member failures: the errors counted against a
 * member, the one place a member becomes failed, the label probe of an
 * idle member in an error run, read-error repair and dm events.  The
 * policy is in the comment "Member failures" below.
 */

#include "dm-eagerwrite.h"

/* ---------------------------------------------------------------- */
/*
 * Member failures.  Every member I/O error is counted against the member
 * (ew_member_error) and the I/O goes elsewhere: a read is retried on
 * another up-to-date replica and the replica that failed is rewritten
 * from a good copy (md's read-error repair), a write is committed on the
 * replicas that took it or placed again, a background copy is retried.
 * While a member has errors and no success since, it is avoided where
 * another replica can serve and its delayed queue is retried after a
 * back-off; the first success clears that.  It is *failed* only when it
 * has returned nothing but errors (at least EW_FAIL_MIN_ERRORS) for
 * EW_FAIL_AFTER_NS: a transient fault (a cable, a dm-flakey down
 * interval) never fails a member, a dead one is failed within seconds.
 * A failed member gets no I/O; its queued delayed replicas are dropped
 * and counted as owed (those replicas stay stale in the map); blocks
 * whose every up-to-date replica is on failed members read as errors.
 * All of this runs under a->lock (completions, in interrupt context).
 *
 * The label probe.  A member in an error run with nothing queued for it
 * and no I/O in flight on it gets nothing that could end the run or fail
 * it: on an idle array a dead member would stay "A" (avoided while its
 * errors are recent, then used again by the next write) for ever, and
 * no replacement would be asked for.  So while any member is in an error
 * run and not failed, probe_work runs every EW_PROBE_PERIOD and reads
 * the label block (sector 0, EW_META_BLOCK_SIZE) of each such member
 * that is idle, one probe at a time per member.  A failed probe is a
 * read error like any other (ew_member_error): EW_FAIL_MIN_ERRORS of
 * them over EW_FAIL_AFTER_NS fail the member (ew_member_fail: superblock
 * through state_work, dm event).  A successful one ends the run as any
 * successful I/O does (ew_member_ok).  A member with queued or in-flight
 * work is left to that work, which judges writes too (a read that
 * succeeds must not end the run of a member whose writes fail).  A bio
 * cannot be taken back, so a probe has no timeout of its own: one out for
 * longer than EW_PROBE_TIMEOUT_NS counts as a read error each period
 * until it completes, so a member that hangs is failed as well.
 * Locking: probe_work runs in process context; struct ew_probe's busy
 * and start_ns and a->probes are under a->lock; the bio is allocated and
 * submitted with the lock dropped; its completion (any context) takes
 * a->lock and, under it, wakes copy_wait (once a->probes is 0 and the
 * lock dropped, postsuspend may return and the array be freed).  The
 * work is armed only while not suspended (a->suspended under a->lock);
 * postsuspend cancels it and waits for the probes in flight, resume arms
 * it again.  A member's bdev changes only in preresume, while no probe
 * can be in flight.
 */

/* Errors with a gap longer than this belong to different runs. */
static bool ew_err_run_live(struct ew_member *m, u64 now)
{
	return m->err_run && now - m->last_err_ns < EW_FAIL_AFTER_NS;
}

bool ew_member_avoid(struct ew_array *a, u32 disk)
{
	return a->pd[disk].failed || ew_err_run_live(&a->m[disk], ew_now());
}

/* Tells userspace (dmsetup wait, ewctl monitor): any context. */
void ew_event(struct ew_array *a)
{
	schedule_work(&a->event_work);
}

void ew_event_work(struct work_struct *work)
{
	struct ew_array *a = container_of(work, struct ew_array, event_work);

	mutex_lock(&a->event_lock);
	if (a->event_ti)
		dm_table_event(a->event_ti->table);
	mutex_unlock(&a->event_lock);
}

/* The only place a member becomes failed.  a->lock held. */
void ew_member_fail(struct ew_array *a, u32 disk, const char *why)
{
	struct ew_member *m = &a->m[disk];
	struct ew_delayed *d, *tmp;

	if (a->pd[disk].failed)
		return;
	a->pd[disk].failed = true;
	m->rebuilding = false;
	DMERR("member %u (%pg) failed: %s; %u delayed replicas owed",
	      disk, m->bdev, why, m->nr_delayed);
	list_for_each_entry_safe(d, tmp, &m->delayed, list) {
		list_del_init(&d->list);
		m->nr_delayed--;
		m->owed++;
		ew_delayed_put(a, d);
	}
	wake_up(&a->throttle_wait);
	if (!bio_list_empty(&a->deferred))
		queue_work(a->wq, &a->bio_work);
	/* other queues' entries whose only source was here: dropped */
	if (a->pending)
		queue_work(a->prop_wq, &a->prop_work);
	/* never trusted again, across reloads and reboots too */
	queue_work(a->commit_wq, &a->state_work);
	ew_event(a);
}

/* Probes idle members in an error run from now on.  a->lock held. */
void ew_probe_arm(struct ew_array *a)
{
	if (!a->suspended)
		queue_delayed_work(a->prop_wq, &a->probe_work, EW_PROBE_PERIOD);
}

/*
 * An I/O error on member disk; why says what failed it if this error
 * does.  a->lock held.
 */
static void ew_member_error_why(struct ew_array *a, u32 disk, bool write,
				const char *why)
{
	struct ew_member *m = &a->m[disk];
	u64 now = ew_now();

	if (write)
		m->write_errors++;
	else
		m->read_errors++;
	if (!ew_err_run_live(m, now))
		m->err_run = 0;
	m->last_err_ns = now;
	if (a->pd[disk].failed)
		return;
	if (!m->err_run++) {
		m->err_since_ns = now;
		DMERR_LIMIT("member %u (%pg): %s error; avoided while its errors last",
			    disk, m->bdev, write ? "write" : "read");
		ew_probe_arm(a);
	}
	if (m->err_run >= EW_FAIL_MIN_ERRORS &&
	    now - m->err_since_ns >= EW_FAIL_AFTER_NS)
		ew_member_fail(a, disk, why);
}

void ew_member_error(struct ew_array *a, u32 disk, bool write)
{
	ew_member_error_why(a, disk, write,
			    write ? "write errors" : "read errors");
}

/* A successful I/O on member disk ends its error run.  a->lock held. */
void ew_member_ok(struct ew_array *a, u32 disk)
{
	a->m[disk].err_run = 0;
}

/* Does member disk want label probes?  a->lock held. */
bool ew_probe_wanted(struct ew_array *a, u32 disk)
{
	struct ew_member *m = &a->m[disk];

	return m->err_run && !a->pd[disk].failed && m->bdev;
}

/* A label probe ended (status), or was not sent (judge false). */
static void ew_probe_done(struct ew_probe *p, blk_status_t status, bool judge)
{
	struct ew_array *a = p->a;
	struct ew_member *m = &a->m[p->disk];
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	p->busy = false;
	if (judge && status) {
		ew_member_error_why(a, p->disk, false, "label probe failed");
	} else if (judge && m->err_run && !a->pd[p->disk].failed) {
		DMINFO("member %u (%pg): label probe read, no longer avoided",
		       p->disk, m->bdev);
		ew_member_ok(a, p->disk);
	}
	a->probes--;
	/* under the lock: see "The label probe" */
	wake_up(&a->copy_wait);
	spin_unlock_irqrestore(&a->lock, flags);
}

static void ew_probe_end_io(struct bio *bio)
{
	struct ew_probe *p = bio->bi_private;
	blk_status_t status = bio->bi_status;

	__free_page(bio_first_page_all(bio));
	bio_put(bio);
	ew_probe_done(p, status, true);
}

/* Reads member p->disk's label.  Process context, a->lock not held. */
static void ew_probe_submit(struct ew_array *a, struct ew_probe *p)
{
	struct page *page = alloc_page(GFP_NOIO);
	struct bio *bio;

	if (!page) {
		ew_probe_done(p, BLK_STS_RESOURCE, false);
		return;
	}
	/* from fs_bio_set with GFP_NOIO: never fails */
	bio = bio_alloc(a->m[p->disk].bdev, 1, REQ_OP_READ | REQ_SYNC,
			GFP_NOIO);
	bio->bi_iter.bi_sector = 0;
	__bio_add_page(bio, page, EW_META_BLOCK_SIZE, 0);
	bio->bi_private = p;
	bio->bi_end_io = ew_probe_end_io;
	submit_bio(bio);
}

void ew_probe_work(struct work_struct *work)
{
	struct ew_array *a = container_of(to_delayed_work(work),
					  struct ew_array, probe_work);
	unsigned long flags;
	u64 send = 0, now = ew_now();
	bool again = false;
	u32 disk;

	spin_lock_irqsave(&a->lock, flags);
	for (disk = 0; disk < a->nr && !a->suspended; disk++) {
		struct ew_member *m = &a->m[disk];

		if (!ew_probe_wanted(a, disk))
			continue;
		again = true;
		if (m->probe.busy) {
			if (now - m->probe.start_ns >= EW_PROBE_TIMEOUT_NS)
				ew_member_error_why(a, disk, false,
						    "label probe timed out");
			continue;
		}
		/* queued or in-flight work judges it: see "The label probe" */
		if (m->nr_delayed || m->copies || a->pd[disk].queued)
			continue;
		m->probe.busy = true;
		m->probe.start_ns = now;
		a->probes++;
		send |= BIT_ULL(disk);
	}
	if (again)
		ew_probe_arm(a);
	spin_unlock_irqrestore(&a->lock, flags);
	for (disk = 0; disk < a->nr; disk++)
		if (send & BIT_ULL(disk))
			ew_probe_submit(a, &a->m[disk].probe);
}

/*
 * Queues a rewrite of replica r of lblock (made stale by a failed read)
 * from an up-to-date replica.  Skipped when the member failed or no
 * delayed entry is free: the replica then stays stale until the next
 * write of the block.  a->lock held.
 */
static bool ew_queue_repair(struct ew_array *a, u64 lblock, u32 r)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS];

	ew_replicas(a, lblock, rep, home);
	if (a->pd[rep[r].disk].failed ||
	    a->delay_used >= a->args.delay_queue)
		return false;
	a->delay_used++;	/* the reservation ew_delayed_queue takes */
	ew_delayed_queue(a, lblock, ew_map_gen(&a->map, lblock), r,
			 rep[r].disk, home[r] != EW_MAP_NONE);
	a->repairs++;
	return true;
}

/*
 * Replica r of lblock, at pblock on disk, failed a read: make it stale
 * and queue its repair, unless it is no longer what the map holds.
 * Returns true when a repair was queued.  a->lock held.
 */
bool ew_read_failed(struct ew_array *a, u64 lblock, u32 r, u32 disk,
		    u32 pblock)
{
	ew_member_error(a, disk, false);
	if (!(ew_map_uptodate(&a->map, lblock) & (1U << r)) ||
	    ew_map_pblock(&a->map, lblock, r) != pblock)
		return false;
	/*
	 * The stale mark is journalled like any map change, or not made:
	 * with no journal space now (this may be interrupt context, which
	 * never waits) the replica stays current in the map and is only
	 * avoided; the next read error tries again.
	 */
	if (!ew_md_reserve(a->md, 1))
		return false;
	if (!ew_map_set_stale(&a->map, lblock, r)) {
		ew_md_unreserve(a->md, 1);
		return false;	/* the last current replica: keep it */
	}
	ew_md_log_bg(a->md, lblock, 1U << r);
	return ew_queue_repair(a, lblock, r);
}

/* Is there an up-to-date replica of lblock other than (disk, pblock)? */
bool ew_other_replica(struct ew_array *a, u64 lblock, u32 disk,
		      u32 pblock)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], r;
	u8 up = ew_map_uptodate(&a->map, lblock);

	ew_replicas(a, lblock, rep, home);
	for (r = 0; r < a->geom.p.mirrors; r++)
		if ((up & (1U << r)) && !a->pd[rep[r].disk].failed &&
		    (rep[r].disk != disk ||
		     ew_map_pblock(&a->map, lblock, r) != pblock))
			return true;
	return false;
}
