// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-eagerwrite-target.c - the eagerwrite device-mapper target.
 *
 * The module and the target's interface to dm: the constructor and
 * destructor (the array: creation, loading the metadata, sharing between
 * the tables of one mapped device), suspend and resume, status, messages,
 * iterate_devices and io_hints.  The objects and their locking are in
 * dm-eagerwrite.h; the I/O paths in the other dm-eagerwrite-*.c files.
 */

#include "dm-eagerwrite.h"

static LIST_HEAD(ew_arrays);
static DEFINE_MUTEX(ew_arrays_lock);

static unsigned int delay_pages_max = EW_DELAY_PAGES;
module_param(delay_pages_max, uint, 0644);
MODULE_PARM_DESC(delay_pages_max,
		 "Most delayed-write pages of an ew array, read when the array is created (0 to 1048576, default 16384)");

/* ---------------------------------------------------------------- */
/* The array: creation, sharing between tables, destruction. */

/* No background copy and no label probe in flight. */
static bool ew_copies_done(struct ew_array *a)
{
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&a->lock, flags);
	done = !a->copies && !a->probes;
	spin_unlock_irqrestore(&a->lock, flags);
	return done;
}

static void ew_array_free(struct ew_array *a)
{
	u32 i;

	if (a->prop_wq) {
		/* these queue work on the other workqueues: first */
		cancel_delayed_work_sync(&a->backoff_work);
		cancel_delayed_work_sync(&a->rb_work);
		cancel_delayed_work_sync(&a->probe_work);
		/* none after a postsuspend; a resume was undone by then */
		wait_event(a->copy_wait, ew_copies_done(a));
	}
	if (a->commit_wq) {
		cancel_delayed_work_sync(&a->commit_work);
		/* a member failed meanwhile is failed on disk too */
		if (a->md)
			flush_work(&a->state_work);
		destroy_workqueue(a->commit_wq);
	}
	/* no table is live (postsuspend cleared event_ti): nothing to raise */
	cancel_work_sync(&a->event_work);
	if (a->prop_wq)
		destroy_workqueue(a->prop_wq);
	if (a->wq)
		destroy_workqueue(a->wq);
	if (a->kc)
		dm_kcopyd_client_destroy(a->kc);
	if (a->io)
		dm_io_client_destroy(a->io);
	if (a->dpages) {
		u32 q;

		/* entries still queued give their pages back first */
		for (q = 0; a->dpool && q < a->args.delay_queue; q++)
			ew_delayed_unpage(a, &a->dpool[q]);
		if (a->md) {
			spin_lock_irq(&a->lock);
			ew_md_copy_drop_pages(a->md);
			spin_unlock_irq(&a->lock);
		}
		for (q = 0; q < a->dpages_free; q++)
			__free_page(a->dpages[q]);
		kvfree(a->dpages);
	}
	/* last: the workers and the copies' completions use it */
	ew_md_close(a->md);
	bioset_exit(&a->bs);
	if (a->m)
		for (i = 0; i < a->nr; i++)
			if (a->m[i].has_fm)
				ew_freemap_destroy(&a->m[i].fm);
	kvfree(a->m);
	kvfree(a->pd);
	kvfree(a->dpool);
	ew_rebuild_free(a);
	kvfree(a->rb_runs);
	kvfree(a->lost);
	ew_map_destroy(&a->map);
	ew_dfree_destroy(&a->dfree);
	kfree(a);
}

/*
 * The members that hold the metadata copies, with the metadata on the
 * members (ew_meta_members_holders()); how many.
 */
static u32 ew_meta_holders(const struct ew_target *t, u32 *member)
{
	return ew_meta_members_holders(t->args.layout, t->args.nr_disks,
				       t->args.mirrors, member);
}

/* Is every device a metadata copy is written to non-rotational? */
static bool ew_meta_nonrot(const struct ew_target *t)
{
	u32 member[EW_META_MAX_COPIES], n, c;

	if (!t->on_members)
		return bdev_nonrot(t->meta->bdev) &&
		       (!t->meta_mirror || bdev_nonrot(t->meta_mirror->bdev));
	n = ew_meta_holders(t, member);
	for (c = 0; c < n; c++)
		if (t->dev[member[c]] && !bdev_nonrot(t->dev[member[c]]->bdev))
			return false;
	return true;
}

static int ew_array_create(struct ew_target *t, const struct ew_geom *g,
			   u64 disk_sectors, struct ew_array **out)
{
	struct ew_disk_params dp;
	struct ew_array *a;
	u32 i, q;
	u64 b, n;
	int ret;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a) {
		t->ti->error = "Cannot allocate the array";
		return -ENOMEM;
	}
	a->nr = t->nr;
	a->geom = *g;
	a->args = t->args;
	a->block_sectors = g->p.block_sectors;
	a->data_off = t->data_off;
	a->on_members = t->on_members;
	a->meta_dev = t->meta ? t->meta->bdev->bd_dev : 0;
	a->meta_mirror_dev = t->meta_mirror ? t->meta_mirror->bdev->bd_dev : 0;
	/* journal copies only where a copy costs no seek (see ew_ctr) */
	a->jcopy = t->args.journal_copy && ew_meta_nonrot(t);
	a->sync = t->args.journal_copy && !a->jcopy ? 2 : t->args.sync;
	a->need_delayed = g->p.mirrors - a->sync +
		(g->p.layout == EW_LAYOUT_DDM ? 1 : 0);
	spin_lock_init(&a->lock);
	bio_list_init(&a->deferred);
	bio_list_init(&a->retry);
	bio_list_init(&a->read_retry);
	INIT_LIST_HEAD(&a->dfree_entries);
	INIT_LIST_HEAD(&a->rb_idle);
	init_waitqueue_head(&a->throttle_wait);
	init_waitqueue_head(&a->copy_wait);
	INIT_WORK(&a->bio_work, ew_bio_work);
	INIT_WORK(&a->prop_work, ew_prop_work);
	INIT_DELAYED_WORK(&a->commit_work, ew_commit_work);
	bio_list_init(&a->commit_wait);
	INIT_DELAYED_WORK(&a->backoff_work, ew_backoff_work);
	INIT_DELAYED_WORK(&a->rb_work, ew_rebuild_work);
	INIT_WORK(&a->state_work, ew_state_work);
	INIT_DELAYED_WORK(&a->probe_work, ew_probe_work);
	INIT_WORK(&a->event_work, ew_event_work);
	mutex_init(&a->event_lock);
	a->rb_rate_mib = EW_RB_DEFAULT_MIB;
	for (i = 0; i < ARRAY_SIZE(a->cells); i++)
		INIT_HLIST_HEAD(&a->cells[i]);
	for (i = 0; i < EW_C_NR; i++)
		atomic64_set(&a->counters[i], 0);

	ret = -ENOMEM;
	a->m = kvcalloc(a->nr, sizeof(*a->m), GFP_KERNEL);
	a->pd = kvcalloc(a->nr, sizeof(*a->pd), GFP_KERNEL);
	a->dpool = kvcalloc(t->args.delay_queue, sizeof(*a->dpool),
			    GFP_KERNEL);
	a->rb_runs = kvcalloc(EW_RB_RUNS, sizeof(*a->rb_runs), GFP_KERNEL);
	if (!a->m || !a->pd || !a->dpool || !a->rb_runs) {
		t->ti->error = "Cannot allocate the member tables";
		goto bad;
	}
	for (q = 0; q < t->args.delay_queue; q++) {
		a->dpool[q].a = a;
		INIT_HLIST_NODE(&a->dpool[q].cell.node);
		list_add_tail(&a->dpool[q].list, &a->dfree_entries);
	}
	for (q = 0; q < EW_RB_RUNS; q++) {
		struct ew_rb_run *run = &a->rb_runs[q];

		run->a = a;
		for (i = 0; i < EW_RB_RUN_MAX; i++)
			INIT_HLIST_NODE(&run->cell[i].node);
		list_add_tail(&run->list, &a->rb_idle);
	}
	ew_disk_params_default(&dp);
	for (i = 0; i < a->nr; i++) {
		struct ew_member *m = &a->m[i];

		INIT_LIST_HEAD(&m->delayed);
		m->probe.a = a;
		m->probe.disk = i;
		/* "-": a missing member, failed from the start */
		if (t->dev[i]) {
			a->data_dev[i] = t->dev[i]->bdev->bd_dev;
			m->bdev = t->dev[i]->bdev;
		} else {
			a->pd[i].failed = true;
		}
		/*
		 * The model is the whole member, as the disk sees it; the
		 * layout's blocks start after the label (data_lba), so the
		 * predicted tracks and angles are the member's own.
		 */
		ret = ew_disk_init(&m->model, &dp, disk_sectors + t->data_off);
		m->model.data_lba = t->data_off;
		if (ret) {
			t->ti->error = "Cannot build the disk model";
			goto bad;
		}
		a->pd[i].model = &m->model;
		a->pd[i].head = &m->head;
		if (!ew_layout_eager(g->p.layout))
			continue;
		ret = ew_freemap_init(&m->fm, &m->model, g->p.block_sectors,
				      g->region_blocks);
		if (ret) {
			t->ti->error = "Cannot allocate a free-block map";
			goto bad;
		}
		m->has_fm = true;
		a->pd[i].fm = &m->fm;
		/*
		 * fixed homes (ddm) are never free for eager writes: a run
		 * at a time (a block at a time cost ~30 ns a member block,
		 * seconds for a large array, even for ew, which has none)
		 */
		for (b = 0; b < g->region_blocks; b += n) {
			b = ew_geom_home_run(g, i, b, &n);
			if (!n)
				break;
			ew_freemap_alloc_range(&m->fm, b, n);
			cond_resched();
		}
	}
	ret = ew_map_init(&a->map, g->len_blocks, g->p.mirrors);
	a->lost = kvcalloc(BITS_TO_LONGS(g->len_blocks), sizeof(long),
			   GFP_KERNEL);
	if (ret || !a->lost) {
		ret = ret ? ret : -ENOMEM;
		t->ti->error = "Cannot allocate the block map";
		goto bad;
	}
	ret = ew_dfree_init(&a->dfree, ew_layout_eager(g->p.layout) ?
			    (u64)a->nr * g->region_blocks : 1);
	if (ret) {
		t->ti->error = "Cannot allocate the deferred-free list";
		goto bad;
	}
	ret = bioset_init(&a->bs, 256, offsetof(struct ew_clone, bio), 0);
	if (ret) {
		t->ti->error = "Cannot allocate the bio set";
		goto bad;
	}
	a->kc = dm_kcopyd_client_create(NULL);
	if (IS_ERR(a->kc)) {
		ret = PTR_ERR(a->kc);
		a->kc = NULL;
		t->ti->error = "Cannot create the kcopyd client";
		goto bad;
	}
	a->io = dm_io_client_create();
	if (IS_ERR(a->io)) {
		ret = PTR_ERR(a->io);
		a->io = NULL;
		t->ti->error = "Cannot create the dm-io client";
		goto bad;
	}
	/*
	 * The delayed-write pages: one per delay_queue entry, at most
	 * delay_pages_max.  Fewer (or none) when memory is short only cost
	 * reads: not an error (no retry, no OOM kill for them), and the
	 * pool status field says how many.
	 */
	q = min3(t->args.delay_queue, READ_ONCE(delay_pages_max),
		 (u32)EW_DELAY_PAGES_MAX);
	a->dpages = q ? kvcalloc(q, sizeof(*a->dpages), GFP_KERNEL) : NULL;
	while (a->dpages && a->dpages_free < q) {
		struct page *pg = alloc_page(GFP_KERNEL | __GFP_NORETRY |
					     __GFP_NOWARN);

		if (!pg)
			break;
		a->dpages[a->dpages_free++] = pg;
	}
	a->dpages_nr = a->dpages_free;
	ret = -ENOMEM;
	a->wq = alloc_workqueue("ew_bio", WQ_MEM_RECLAIM, 1);
	a->prop_wq = alloc_workqueue("ew_prop", WQ_MEM_RECLAIM, 1);
	a->commit_wq = alloc_ordered_workqueue("ew_commit", WQ_MEM_RECLAIM);
	if (!a->wq || !a->prop_wq || !a->commit_wq) {
		t->ti->error = "Cannot allocate the workqueues";
		goto bad;
	}
	a->refs = 1;
	*out = a;
	return 0;
bad:
	ew_array_free(a);
	return ret;
}

/*
 * After the map is loaded: the free maps from the load's map check
 * (used: per member, a bit for every block a replica maps; a block is
 * free iff nothing points at it; homes stay allocated), and for raid10
 * and ddm after an unclean shutdown every written block demoted to its
 * lowest up-to-date replica: raid10's other homes may hold an
 * interrupted write, and ddm's home may hold a home copy or a home
 * discard started before the record that made it was durable (the
 * durable map still calls the home and the partner current).
 * Returns the number of blocks demoted.
 */
static u64 ew_array_rebuild(struct ew_array *a, bool demote, const u64 *used)
{
	u64 words = ew_meta_map_used_words(&a->geom), l, demoted = 0;
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], r, i;
	u8 up, live, whole;

	/* the check's bitmaps, whose bits are all inside the region */
	for (i = 0; i < a->nr; i++) {
		if (!a->m[i].has_fm)
			continue;
		WARN_ON(ew_freemap_mark_used(&a->m[i].fm, used + i * words));
		ew_freemap_recount(&a->m[i].fm);
	}
	if (!demote)
		return 0;
	for (l = 0; l < a->map.nr_blocks; l++) {
		if (!(l % 4096))
			cond_resched();
		up = ew_map_uptodate(&a->map, l);
		if (!(up & (up - 1)))	/* one replica or none: as it is */
			continue;
		ew_replicas(a, l, rep, home);
		/*
		 * Never to a replica on a failed member, and to one on a
		 * rebuilding member only when nothing else is left (it would
		 * read as lost after the next load).
		 */
		live = 0;
		whole = 0;
		for (r = 0; r < a->geom.p.mirrors; r++) {
			if (!(up & (1U << r)) || a->pd[rep[r].disk].failed)
				continue;
			live |= 1U << r;
			if (!a->m[rep[r].disk].rebuilding)
				whole |= 1U << r;
		}
		live = whole ? whole : live ? live : up;
		a->map.uptodate[l] = live & -live;
		demoted++;
	}
	return demoted;
}

/* Format or recover the metadata (Documentation/on-disk-format.rst). */
/*
 * After a crash, the journal copies the replay left live (their blocks'
 * delayed replicas were not durable).  Each is read back from its slot
 * into a page of the pool and given a delayed entry for a stale replica
 * on a live member, as at the write: the propagation worker writes it
 * from the page even when every current replica is on a failed or
 * missing member, which restores the second copy, and reads of the
 * block are served from the page meanwhile (ew_read_copy).  A copy with
 * nothing left to restore, no page or entry, or a slot that is not the
 * copy the journal names is ended (UNCOPY).  Process context, before
 * the first resume.
 */
static void ew_array_restore_copies(struct ew_array *a, const char *name)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], r, from = 0, restored = 0, ended = 0;
	struct ew_delayed *d;
	struct page *page;
	u64 lblock;
	bool ok;
	int slot;
	u8 up;

	for (;;) {
		spin_lock_irq(&a->lock);
		slot = ew_md_copy_recovered(a->md, from, &lblock);
		page = NULL;
		if (slot >= 0 && a->dpages_free)
			page = a->dpages[--a->dpages_free];
		spin_unlock_irq(&a->lock);
		if (slot < 0)
			break;
		from = slot + 1;
		ok = page && !ew_md_copy_read(a->md, slot, page_address(page));
		spin_lock_irq(&a->lock);
		up = ew_map_uptodate(&a->map, lblock);
		ew_replicas(a, lblock, rep, home);
		for (r = 0; ok && up && r < a->geom.p.mirrors; r++)
			if (!(up & (1U << r)) && a->m[rep[r].disk].bdev &&
			    !a->pd[rep[r].disk].failed)
				break;
		if (ok && up && r < a->geom.p.mirrors &&
		    a->delay_used < a->args.delay_queue &&
		    ew_md_reserve(a->md, 1)) {
			/* the unit for the copy's UNCOPY, as a write's */
			a->delay_used++;
			d = ew_delayed_queue(a, lblock,
					     ew_map_gen(&a->map, lblock), r,
					     rep[r].disk, home[r] != EW_MAP_NONE);
			if (d) {
				d->page = page;
				d->slot = slot;
				ew_md_copy_adopt(a->md, slot,
						 ew_map_gen(&a->map, lblock),
						 page);
				restored++;
				spin_unlock_irq(&a->lock);
				continue;
			}
			a->delay_used--;
			ew_md_unreserve(a->md, 1);
		}
		if (page)
			a->dpages[a->dpages_free++] = page;
		if (ew_md_reserve(a->md, 1)) {
			ew_md_copy_drop(a->md, slot);
			ended++;
		}
		spin_unlock_irq(&a->lock);
	}
	if (restored || ended)
		DMINFO("%s: journal copies: %u to restore, %u ended", name,
		       restored, ended);
}

/* Half the journal buffers are sealed: their commit starts now. */
static void ew_md_commit_kick(void *ctx)
{
	ew_kick_commit(ctx);
}

/* A metadata copy stopped being written: status says so (ewctl monitor). */
static void ew_md_event(void *ctx)
{
	ew_event(ctx);
}

static int ew_array_load(struct ew_array *a, struct ew_target *t,
			 const struct ew_geom *g)
{
	struct ew_md_config cfg = {
		.meta = { t->meta ? t->meta->bdev : NULL,
			  t->meta_mirror ? t->meta_mirror->bdev : NULL },
		.nmeta = t->meta_mirror ? 2 : 1,
		.event = ew_md_event,
		.event_ctx = a,
		.nr = t->nr,
		.t = &t->args,
		.g = g,
		.lock = &a->lock,
		.map = &a->map,
		.dfree = &a->dfree,
		.page_put = ew_copy_page_put,
		.page_ctx = a,
		.commit = ew_md_commit_kick,
		.commit_ctx = a,
		.jplace = ew_jplace,
		.jdone = ew_jdone,
		.jplace_ctx = a,
	};
	struct ew_md_open_result res;
	const char *error = "Cannot load the metadata";
	const char *name = dm_table_device_name(t->ti->table);
	u64 t0 = ew_now(), demoted;
	/* layouts that write a fixed home in place, see ew_array_rebuild */
	bool homes = g->p.layout == EW_LAYOUT_RAID10 ||
		     g->p.layout == EW_LAYOUT_DDM;
	u32 i;
	int ret;

	for (i = 0; i < t->nr; i++)
		cfg.data[i] = t->dev[i] ? t->dev[i]->bdev : NULL;
	if (t->on_members) {
		/* copy c on member meta_member[c], after its label */
		cfg.on_members = true;
		cfg.nmeta = ew_meta_holders(t, cfg.meta_member);
		for (i = 0; i < cfg.nmeta; i++) {
			struct dm_dev *d = t->dev[cfg.meta_member[i]];

			cfg.meta[i] = d ? d->bdev : NULL;
			cfg.meta_off[i] = EW_MEMBER_META_OFFSET_SECTORS;
		}
	}
	ret = ew_md_open(&cfg, &a->md, &res, &error);
	if (ret) {
		t->ti->error = (char *)error;
		return ret;
	}
	if (res.formatted) {
		a->resync_next = a->map.nr_blocks;	/* nothing to resync */
		DMINFO("%s: new array, metadata formatted", name);
		return 0;
	}
	/*
	 * Unreadable members are failed as a member failed by errors is:
	 * in memory now, in the superblock below, before any write; the
	 * device stays named (TABLE prints it) until it is replaced.
	 */
	for (i = 0; i < t->nr; i++)
		if (res.unreadable & BIT_ULL(i)) {
			a->pd[i].failed = true;
			DMWARN("%s: member %u failed: its label cannot be read",
			       name, i);
		}
	ew_array_member_state(a);
	demoted = ew_array_rebuild(a, homes && !res.clean, res.used);
	kvfree(res.used);
	/* not journalled: only a checkpoint keeps them */
	if (demoted)
		ew_md_map_changed(a->md);
	/*
	 * After a crash, checkpoint at once: the demotions are in no
	 * record, and a second crash must not replay again.  After a clean
	 * shutdown the journal replayed is whole (no write was in flight)
	 * and stays the journal, unless a copy of one of its blocks was
	 * damaged (the checkpoint leaves it behind, rather than keep a
	 * block that one more fault would lose) or the ring is half full.
	 */
	if (demoted || !res.clean || res.damaged ||
	    ew_md_checkpoint_due(a->md)) {
		ret = ew_md_checkpoint(a->md, true);
		if (ret) {
			t->ti->error = "Cannot write the recovered metadata";
			return ret;
		}
	}
	/*
	 * "-", or an unreadable label, where the superblock says the member
	 * was fine: failed now
	 */
	if (!ew_md_failed(a->md)) {
		u64 failed, rebuilding;

		ew_member_masks(a, &failed, &rebuilding);
		ret = ew_md_set_member_state(a->md, failed, rebuilding);
		if (ret) {
			t->ti->error = "Cannot write the member state";
			return ret;
		}
	}
	if (res.copies && !ew_md_failed(a->md))
		ew_array_restore_copies(a, name);
	DMINFO("%s: %s, replayed %llu journal blocks (%llu records), demoted %llu, %llu ms",
	       name, res.clean ? "clean shutdown" : "unclean shutdown",
	       res.replayed, res.records,
	       demoted, div_u64(ew_now() - t0, NSEC_PER_MSEC));
	return 0;
}

/*
 * Is t a table of array a, already in memory: the same metadata device,
 * or with the metadata on the members, a member device in common at the
 * same position.
 */
static bool ew_array_same(const struct ew_array *a, const struct ew_target *t)
{
	u32 i;

	if (!t->on_members)
		return a->meta_dev == t->meta->bdev->bd_dev;
	if (!a->on_members)
		return false;
	for (i = 0; i < t->nr && i < a->nr; i++)
		if (t->dev[i] && a->data_dev[i] == t->dev[i]->bdev->bd_dev)
			return true;
	return false;
}

static bool ew_array_matches(const struct ew_array *a,
			     const struct ew_target *t)
{
	const struct ew_table_args *x = &a->args, *y = &t->args;
	u32 i;

	if (x->layout != y->layout || x->mirrors != y->mirrors ||
	    x->dilution_x100 != y->dilution_x100 || x->sync != y->sync ||
	    x->chunk_sectors != y->chunk_sectors ||
	    x->block_size != y->block_size ||
	    x->delay_queue != y->delay_queue ||
	    x->journal_copy != y->journal_copy || a->nr != t->nr ||
	    a->on_members != t->on_members ||
	    a->meta_mirror_dev != (t->meta_mirror ?
				   t->meta_mirror->bdev->bd_dev : 0) ||
	    a->geom.len_blocks * a->block_sectors != t->ti->len)
		return false;
	/*
	 * Another device (or "-") only where the member failed: it is
	 * replaced (or removed) when this table resumes (ew_preresume).
	 */
	for (i = 0; i < t->nr; i++)
		if (a->data_dev[i] !=
		    (t->dev[i] ? t->dev[i]->bdev->bd_dev : 0) &&
		    !READ_ONCE(a->pd[i].failed))
			return false;
	return true;
}

/* ---------------------------------------------------------------- */
/* Constructor and destructor. */

static void ew_target_free(struct ew_target *t)
{
	u32 i;

	for (i = 0; i < t->nr; i++)
		if (t->dev[i])
			dm_put_device(t->ti, t->dev[i]);
	if (t->meta)
		dm_put_device(t->ti, t->meta);
	if (t->meta_mirror)
		dm_put_device(t->ti, t->meta_mirror);
	kfree(t);
}

static int ew_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct ew_target *t;
	struct ew_array *a;
	struct ew_geom *g;
	const char *why = NULL;
	u64 disk_sectors = U64_MAX, meta_sectors;
	fmode_t mode = dm_table_get_mode(ti->table);
	u32 i, j;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!t || !g) {
		kfree(t);
		kfree(g);
		ti->error = "Cannot allocate the target";
		return -ENOMEM;
	}
	t->ti = ti;
	ret = ew_table_parse(argc, argv, &t->args, &why);
	if (ret) {
		ti->error = (char *)why;
		goto bad;
	}
	/*
	 * sync 1 must be asked for (the default is 2): say once per table
	 * load what it risks, so that the log of a lost block explains it.
	 */
	if (ew_table_risk(&t->args))
		DMWARN("%s: %s; one member failure in that window loses it",
		       dm_table_device_name(ti->table), ew_table_risk(&t->args));
	if (t->args.delay_queue < t->args.mirrors - t->args.sync + 1) {
		ti->error = "delay_queue smaller than the replicas of one write";
		ret = -EINVAL;
		goto bad;
	}
	if (t->args.block_size > PAGE_SIZE) {
		ti->error = "block_size above the page size is not supported";
		ret = -EINVAL;
		goto bad;
	}
	t->on_members = ew_table_meta_on_members(&t->args);
	ret = t->on_members ? 0 :
		dm_get_device(ti, t->args.metadata_dev, mode, &t->meta);
	if (ret) {
		ti->error = "Cannot open the metadata device";
		goto bad;
	}
	if (t->args.metadata_mirror) {
		ret = dm_get_device(ti, t->args.metadata_mirror, mode,
				    &t->meta_mirror);
		if (ret) {
			ti->error = "Cannot open the metadata mirror";
			goto bad;
		}
		if (t->meta_mirror->bdev == t->meta->bdev) {
			ti->error = "Metadata mirror is the metadata device";
			ret = -EINVAL;
			goto bad;
		}
	}
	for (i = 0; i < t->args.nr_disks; i++) {
		t->nr = i + 1;
		if (ew_table_dev_missing(&t->args, i))
			continue;
		ret = dm_get_device(ti, t->args.data_devs[i], mode, &t->dev[i]);
		if (ret) {
			ti->error = "Cannot open a data device";
			goto bad;
		}
		disk_sectors = min_t(u64, disk_sectors,
				     bdev_nr_sectors(t->dev[i]->bdev));
	}
	ret = -EINVAL;
	for (i = 0; i < t->nr; i++) {
		if (!t->dev[i])
			continue;
		if (t->meta && t->dev[i]->bdev == t->meta->bdev) {
			ti->error = "Metadata device is also a data device";
			goto bad;
		}
		if (t->meta_mirror && t->dev[i]->bdev == t->meta_mirror->bdev) {
			ti->error = "Metadata mirror is also a data device";
			goto bad;
		}
		for (j = 0; j < i; j++)
			if (t->dev[j] && t->dev[j]->bdev == t->dev[i]->bdev) {
				ti->error = "Duplicate data device";
				goto bad;
			}
	}
	/* a copy on a rotating device would cost a seek: sync 2 instead */
	if (t->args.journal_copy && !ew_meta_nonrot(t))
		DMWARN("%s: journal_copy: %s",
		       dm_table_device_name(ti->table),
		       "the metadata device is rotational; a write waits for two replicas (sync 2)");
	/*
	 * The layout starts after each member's label and, with the
	 * metadata on the members, after the metadata image, whose size
	 * follows from the table alone (its length and mirrors).
	 */
	t->data_off = EW_MEMBER_DATA_OFFSET_SECTORS;
	if (t->on_members) {
		if (ew_table_geom(&t->args, disk_sectors > t->data_off ?
				  disk_sectors - t->data_off : 0,
				  ti->len, g, &why)) {
			ti->error = (char *)why;
			goto bad;
		}
		meta_sectors = ew_meta_table_size_sectors(g, &t->args);
		t->data_off = ew_meta_members_data_offset(meta_sectors);
	}
	disk_sectors = disk_sectors > t->data_off ?
		disk_sectors - t->data_off : 0;
	/*
	 * the table words stay with dm; keep no pointers into them ("-" is
	 * the core's own string: ew_table_meta_on_members() reads it)
	 */
	t->args.metadata_dev = t->on_members ? EW_MISSING_DEV : NULL;
	t->args.metadata_mirror = NULL;
	memset(t->args.data_devs, 0, sizeof(t->args.data_devs));

	if (ew_table_geom(&t->args, disk_sectors, ti->len, g, &why)) {
		ti->error = (char *)why;
		goto bad;
	}
	if (g->region_blocks >= EW_MAP_NONE) {
		ti->error = "Data devices too large for 32-bit block numbers";
		goto bad;
	}
	if (t->meta && bdev_nr_sectors(t->meta->bdev) <
	    ew_meta_table_size_sectors(g, &t->args)) {
		ti->error = "Metadata device too small";
		goto bad;
	}
	if (t->meta_mirror && bdev_nr_sectors(t->meta_mirror->bdev) <
	    ew_meta_table_size_sectors(g, &t->args)) {
		ti->error = "Metadata mirror too small";
		goto bad;
	}

	mutex_lock(&ew_arrays_lock);
	list_for_each_entry(a, &ew_arrays, list) {
		if (!ew_array_same(a, t))
			continue;
		if (!ew_array_matches(a, t)) {
			mutex_unlock(&ew_arrays_lock);
			ti->error = t->on_members ?
				    "Members in use by an array with another table" :
				    "Metadata device in use by an array with another table";
			goto bad;
		}
		/* two devices writing one map would corrupt each other */
		if (a->owner != dm_table_get_md(ti->table)) {
			mutex_unlock(&ew_arrays_lock);
			ti->error = "Array already in use by another mapped device";
			ret = -EBUSY;
			goto bad;
		}
		/* a replacement must hold the member's region */
		for (i = 0; i < t->nr; i++)
			if (t->dev[i] &&
			    bdev_nr_sectors(t->dev[i]->bdev) <
			    a->data_off +
			    a->geom.region_blocks * a->block_sectors) {
				mutex_unlock(&ew_arrays_lock);
				ti->error = "Replacement data device too small";
				goto bad;
			}
		a->refs++;
		t->a = a;
		break;
	}
	if (!t->a) {
		ret = ew_array_create(t, g, disk_sectors, &t->a);
		if (ret) {
			mutex_unlock(&ew_arrays_lock);
			goto bad;
		}
		/* an array already in memory is never read again */
		ret = ew_array_load(t->a, t, g);
		if (ret) {
			ew_array_free(t->a);
			t->a = NULL;
			mutex_unlock(&ew_arrays_lock);
			goto bad;
		}
		t->a->owner = dm_table_get_md(ti->table);
		list_add(&t->a->list, &ew_arrays);
		queue_delayed_work(t->a->commit_wq, &t->a->commit_work,
				   EW_COMMIT_PERIOD);
	}
	mutex_unlock(&ew_arrays_lock);

	ret = dm_set_target_max_io_len(ti, g->p.block_sectors);
	if (ret) {
		ti->error = "Cannot set the maximum I/O length";
		goto bad_put;
	}
	/* one flush: the commit flushes the members it wrote to */
	ti->num_flush_bios = 1;
	ti->flush_supported = true;
	ti->num_discard_bios = 1;
	ti->discards_supported = true;
	ti->per_io_data_size = sizeof(struct ew_io);
	ti->private = t;
	kfree(g);
	return 0;

bad_put:
	mutex_lock(&ew_arrays_lock);
	if (!--t->a->refs) {
		list_del(&t->a->list);
		ew_array_free(t->a);
	}
	mutex_unlock(&ew_arrays_lock);
bad:
	kfree(g);
	ew_target_free(t);
	return ret;
}

static void ew_dtr(struct dm_target *ti)
{
	struct ew_target *t = ti->private;
	struct ew_array *a = t->a;

	mutex_lock(&ew_arrays_lock);
	if (!--a->refs) {
		list_del(&a->list);
		ew_array_free(a);
	}
	mutex_unlock(&ew_arrays_lock);
	ew_target_free(t);
}

/* ---------------------------------------------------------------- */
/* Suspend and resume. */

static void ew_postsuspend(struct dm_target *ti)
{
	struct ew_target *t = ti->private;
	struct ew_array *a = t->a;
	unsigned long flags;

	/* dm has waited for every bio: park the delayed queues */
	spin_lock_irqsave(&a->lock, flags);
	a->suspended = true;
	spin_unlock_irqrestore(&a->lock, flags);
	/* this table may be destroyed once suspended: no event through it */
	mutex_lock(&a->event_lock);
	a->event_ti = NULL;
	mutex_unlock(&a->event_lock);
	flush_work(&a->event_work);
	cancel_delayed_work_sync(&a->backoff_work);
	cancel_delayed_work_sync(&a->rb_work);
	/* a->suspended: no probe is armed or sent from now on */
	cancel_delayed_work_sync(&a->probe_work);
	flush_workqueue(a->prop_wq);
	/* background copies and label probes */
	wait_event(a->copy_wait, ew_copies_done(a));
	flush_workqueue(a->prop_wq);
	flush_workqueue(a->wq);
	/*
	 * No commit after the clean checkpoint: a periodic one that came
	 * due would write the journal and, with a checkpoint due, clear
	 * CLEAN again.  dm waited for every bio, so none waits for a
	 * commit; ew_resume arms the period again.
	 */
	cancel_delayed_work_sync(&a->commit_work);
	/*
	 * clean shutdown: the journal committed, the superblock CLEAN (no
	 * write in flight); the member state first (that superblock keeps
	 * it)
	 */
	flush_work(&a->state_work);
	if (!ew_md_failed(a->md))
		ew_md_shutdown(a->md);
}

/* Member i has no device: failed, and nothing of it is used. */
static void ew_member_forget(struct ew_array *a, u32 i, const char *why)
{
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	ew_member_fail(a, i, why);
	a->m[i].bdev = NULL;
	a->data_dev[i] = 0;
	spin_unlock_irqrestore(&a->lock, flags);
	ew_md_forget_member(a->md, i);
}

/*
 * A table naming another device (or "-") at a failed member's position
 * (ew_array_matches allowed it) takes effect here, when dm has suspended
 * the old table: the array has no I/O in flight.  A replacement is
 * labelled and checkpointed before the array resumes (ew_replace_member).
 * When the replacement fails, so does the resume: the member stays failed
 * with no device (the old table's is released with it), the superblock
 * and the metadata's device list as they were; a later table may try
 * again.
 */
static int ew_preresume(struct dm_target *ti)
{
	struct ew_target *t = ti->private;
	struct ew_array *a = t->a;
	struct block_device *bdev;
	u32 i;
	int ret;

	for (i = 0; i < t->nr; i++) {
		bdev = t->dev[i] ? t->dev[i]->bdev : NULL;
		if (bdev == a->m[i].bdev)
			continue;
		if (bdev) {
			ret = ew_replace_member(a, i, bdev);
			if (ret) {
				ew_member_forget(a, i, "replacement failed");
				return ret;
			}
			continue;
		}
		ew_member_forget(a, i, "removed from the table");
	}
	ew_members_nonrot(a);
	/*
	 * Before the first write: a new superblock generation saying the
	 * array is in use.  A failure latches read-only (and says so); the
	 * device still resumes for reads.
	 */
	if (!ew_md_failed(a->md))
		ew_md_set_clean(a->md, false);
	return 0;
}

static void ew_resume(struct dm_target *ti)
{
	struct ew_target *t = ti->private;
	struct ew_array *a = t->a;
	unsigned long flags;
	bool rebuild;
	u32 i;

	spin_lock_irqsave(&a->lock, flags);
	a->suspended = false;
	rebuild = a->rb_active && !a->rb_paused;
	for (i = 0; i < a->nr; i++)
		if (ew_probe_wanted(a, i))
			ew_probe_arm(a);
	spin_unlock_irqrestore(&a->lock, flags);
	mutex_lock(&a->event_lock);
	a->event_ti = ti;
	mutex_unlock(&a->event_lock);
	ew_kick_prop(a);
	ew_kick_bios(a);
	queue_delayed_work(a->commit_wq, &a->commit_work, EW_COMMIT_PERIOD);
	if (rebuild) {
		queue_delayed_work(a->prop_wq, &a->rb_work, 0);
		/* a replacement (preresume) starts one: say so */
		ew_event(a);
	}
}

/* ---------------------------------------------------------------- */
/* Status. */

static void ew_emit_x100(char *buf, size_t len, u32 x100)
{
	if (x100 % 100)
		snprintf(buf, len, "%u.%02u", x100 / 100, x100 % 100);
	else
		snprintf(buf, len, "%u", x100 / 100);
}

static void ew_status(struct dm_target *ti, status_type_t type,
		      unsigned int status_flags, char *result,
		      unsigned int maxlen)
{
	struct ew_target *t = ti->private;
	struct ew_array *a = t->a;
	char dd[16], ds[16], states[EW_MAX_DISKS + 1];
	u64 c[EW_C_NR], mae, pending, resync;
	u64 rerr = 0, werr = 0, owed = 0, repairs, lost, rb_done, rb_total;
	u64 fallbacks;
	u32 pages_used, pages_nr, copy_used, copy_nr, mc_nr, mc_live;
	char mstates[EW_META_MAX_COPIES + 1];
	u64 mc_repairs, jwaits, lead;
	const char *rb_state;
	struct ew_md_stats st;
	unsigned long flags;
	unsigned int sz = 0;
	u32 i;

	switch (type) {
	case STATUSTYPE_INFO:
	case STATUSTYPE_IMA:
		spin_lock_irqsave(&a->lock, flags);
		for (i = 0; i < a->nr; i++) {
			states[i] = a->pd[i].failed ? 'D' :
				a->m[i].rebuilding ? 'R' : 'A';
			rerr += a->m[i].read_errors;
			werr += a->m[i].write_errors;
			owed += a->m[i].owed;
		}
		states[a->nr] = '\0';
		repairs = a->repairs;
		lost = a->nr_lost;
		rb_done = a->rb_active ? ew_resync_done(a) : 0;
		rb_total = a->rb_active ? a->map.nr_blocks : 0;
		rb_state = !a->rb_active ? "idle" :
			a->rb_paused ? "paused" : "running";
		pending = a->pending + a->rb_blocks;
		pages_nr = a->dpages_nr;
		pages_used = a->dpages_nr - a->dpages_free;
		fallbacks = a->delay_fallbacks;
		ew_md_copy_stats(a->md, &copy_used, &copy_nr);
		ew_md_mcopies(a->md, &mc_nr, &mc_live, &mc_repairs);
		mae = a->err_count ? div64_u64(a->err_sum_ns, a->err_count) : 0;
		ew_md_stats(a->md, &st);
		resync = ew_resync_done(a);
		jwaits = a->journal_waits;
		lead = a->lead_ns;
		spin_unlock_irqrestore(&a->lock, flags);
		/* metadata copies: A written, D stale (no longer written) */
		for (i = 0; i < mc_nr && i < EW_META_MAX_COPIES; i++)
			mstates[i] = mc_live & BIT(i) ? 'A' : 'D';
		mstates[i] = '\0';
		for (i = 0; i < EW_C_NR; i++)
			c[i] = atomic64_read(&a->counters[i]);
		/* Dd as the table writes it (raid10 has none: 1) */
		ew_format_dilution(dd, sizeof(dd),
				   a->geom.p.layout == EW_LAYOUT_RAID10 ? 100 :
				   a->geom.p.dilution_x100);
		ew_emit_x100(ds, sizeof(ds), ew_geom_stripe_x100(&a->geom));
		if (type == STATUSTYPE_INFO) {
			DMEMIT("%s %u %u %s %s %llu %s %llu",
			       ew_layout_name(a->geom.p.layout), a->nr,
			       a->geom.p.mirrors, dd, ds,
			       a->geom.region_blocks, states, pending);
			DMEMIT(" %llu %llu %llu %llu %llu %llu %llu",
			       c[EW_C_READS], c[EW_C_WRITES], c[EW_C_FG_WRITES],
			       c[EW_C_BG_WRITES], c[EW_C_EAGER_WRITES],
			       c[EW_C_FLUSHES], mae);
			DMEMIT(" %s %llu %llu %llu %llu/%llu",
			       st.failed ? "read_only" : "ok", st.journal_seq,
			       st.commits, st.checkpoints, resync,
			       a->map.nr_blocks);
			DMEMIT(" %llu %llu %llu %llu %llu %llu/%llu %s %u",
			       rerr, werr, repairs, owed, lost, rb_done,
			       rb_total, rb_state, a->rb_rate_mib);
			DMEMIT(" %u/%u %llu", pages_used, pages_nr, fallbacks);
			DMEMIT(" %u/%u", copy_used, copy_nr);
			DMEMIT(" %s %llu", mstates, mc_repairs);
			DMEMIT(" %llu", jwaits);
			DMEMIT(" %llu/%llu", st.ckpt_done, st.ckpt_total);
			DMEMIT(" %llu", lead);
		} else {
			DMEMIT_TARGET_NAME_VERSION(ti->type);
			DMEMIT(",layout=%s,disks=%u,mirrors=%u,dilution=%s,sync=%u",
			       ew_layout_name(a->geom.p.layout), a->nr,
			       a->geom.p.mirrors, dd, a->args.sync);
			DMEMIT(",block_size=%u,chunk_sectors=%u,delay_queue=%u",
			       a->args.block_size, a->args.chunk_sectors,
			       a->args.delay_queue);
			DMEMIT(",member_states=%s,pending=%llu", states,
			       pending);
			DMEMIT(",metadata=%s", st.failed ? "read_only" : "ok");
			DMEMIT(",metadata_copies=%s", mstates);
			DMEMIT(",read_errors=%llu,write_errors=%llu,lost=%llu;",
			       rerr, werr, lost);
		}
		break;
	case STATUSTYPE_TABLE:
		if (sz < maxlen)
			sz += ew_table_format_layout(&t->args, result + sz,
						     maxlen - sz);
		DMEMIT(" %s %u", t->meta ? t->meta->name : EW_MISSING_DEV,
		       t->nr);
		for (i = 0; i < t->nr; i++)
			DMEMIT(" %s", t->dev[i] ? t->dev[i]->name :
			       EW_MISSING_DEV);
		if (t->meta_mirror)
			DMEMIT(" 2 metadata_mirror %s", t->meta_mirror->name);
		else
			DMEMIT(" 0");
		break;
	}
}

/* ---------------------------------------------------------------- */
/* Messages. */

/*
 * disk_param: the model of members [m->first, m->last] with one key
 * changed, each checked and rebuilt before it replaces the old one.
 */
static int ew_disk_param(struct ew_array *a, const struct ew_msg *m)
{
	struct ew_disk *tmp;
	const char *why;
	unsigned long flags;
	u32 i;
	int ret;

	tmp = kmalloc(sizeof(*tmp), GFP_KERNEL);
	if (!tmp)
		return -ENOMEM;
	for (i = m->first; i <= m->last; i++) {
		struct ew_disk_params p;

		spin_lock_irqsave(&a->lock, flags);
		p = a->m[i].model.p;
		spin_unlock_irqrestore(&a->lock, flags);
		ew_param_set(&p, m->key, m->value);
		why = "the disk model cannot be built";
		ret = ew_disk_params_check(&p, &why);
		if (!ret)
			ret = ew_disk_init(tmp, &p, a->m[i].model.nr_sectors);
		tmp->data_lba = a->m[i].model.data_lba;
		if (ret) {
			DMWARN("disk_param: %s %llu rejected: %s", m->key->name,
			       m->value, why);
			kfree(tmp);
			return -EINVAL;
		}
		spin_lock_irqsave(&a->lock, flags);
		a->m[i].model = *tmp;
		spin_unlock_irqrestore(&a->lock, flags);
	}
	kfree(tmp);
	return 0;
}

static void ew_rebuild_rate(struct ew_array *a, u32 rate)
{
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	a->rb_rate_mib = rate;
	/* the new rate from now on, not what the old one saved up */
	a->scan_tokens = 0;
	a->scan_refill_ns = ew_now();
	spin_unlock_irqrestore(&a->lock, flags);
	ew_kick_prop(a);
}

static void ew_rebuild_pause(struct ew_array *a, bool pause)
{
	unsigned long flags;
	bool kick;

	spin_lock_irqsave(&a->lock, flags);
	a->rb_paused = pause;
	kick = !a->rb_paused && !a->suspended;
	spin_unlock_irqrestore(&a->lock, flags);
	/* the scan is one: pausing it pauses a resync after a crash too */
	if (kick) {
		mod_delayed_work(a->prop_wq, &a->rb_work, 0);
		ew_kick_prop(a);
	}
	ew_event(a);
}

/*
 * "checkpoint": the whole map now, so that the next load replays
 * nothing (before copying the metadata device away, say).  Commits wait
 * for it; the bios they would complete do so right after.
 */
static int ew_checkpoint_msg(struct dm_target *ti, struct ew_array *a)
{
	const char *name = dm_device_name(dm_table_get_md(ti->table));
	unsigned long flags;
	int ret;

	ret = ew_md_checkpoint_now(a->md);
	/* no commit while suspended (postsuspend cancels the worker) */
	spin_lock_irqsave(&a->lock, flags);
	if (!a->suspended)
		ew_kick_commit(a);
	spin_unlock_irqrestore(&a->lock, flags);
	if (ret == -EAGAIN) {
		DMWARN("%s: checkpoint: live journal copies do not fit, try again",
		       name);
		return -EBUSY;
	}
	if (ret)
		DMWARN("%s: checkpoint failed: the metadata is read-only", name);
	return ret ? -EIO : 0;
}

/* The words are parsed by the core (core/ew_msg.c, fuzzed). */
static int ew_message(struct dm_target *ti, unsigned int argc, char **argv,
		      char *result, unsigned int maxlen)
{
	struct ew_target *t = ti->private;
	struct ew_array *a = t->a;
	unsigned long flags;
	struct ew_msg m;
	const char *why;
	u32 i;

	if (ew_msg_parse(argc, argv, a->nr, &m, &why)) {
		if (m.bad_word)
			DMWARN("message: %s: '%s'", why, m.bad_word);
		else
			DMWARN("message: %s", why);
		return -EINVAL;
	}
	switch (m.op) {
	case EW_MSG_RESET_COUNTERS:
		for (i = 0; i < EW_C_NR; i++)
			atomic64_set(&a->counters[i], 0);
		spin_lock_irqsave(&a->lock, flags);
		a->err_sum_ns = 0;
		a->err_count = 0;
		spin_unlock_irqrestore(&a->lock, flags);
		return 0;
	case EW_MSG_DISK_PARAM:
		return ew_disk_param(a, &m);
	case EW_MSG_REBUILD_RATE:
		ew_rebuild_rate(a, m.rate_mib);
		return 0;
	case EW_MSG_REBUILD_PAUSE:
	case EW_MSG_REBUILD_RESUME:
		ew_rebuild_pause(a, m.op == EW_MSG_REBUILD_PAUSE);
		return 0;
	case EW_MSG_CHECKPOINT:
		return ew_checkpoint_msg(ti, a);
	}
	return -EINVAL;
}

/* ---------------------------------------------------------------- */

static int ew_iterate_devices(struct dm_target *ti,
			      iterate_devices_callout_fn fn, void *data)
{
	struct ew_target *t = ti->private;
	sector_t len = (sector_t)t->a->geom.region_blocks *
		t->a->block_sectors;
	int ret = 0;
	u32 i;

	for (i = 0; !ret && i < t->nr; i++)
		if (t->dev[i])	/* "-": missing */
			ret = fn(ti, t->dev[i], t->a->data_off, len, data);
	return ret;
}

static void ew_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct ew_target *t = ti->private;
	u32 bs = t->args.block_size;

	limits->logical_block_size = bs;
	limits->physical_block_size = bs;
	blk_limits_io_min(limits, bs);
	limits->discard_granularity = bs;
	limits->max_discard_sectors = EW_MAX_DISCARD_BLOCKS * (bs >> 9);
	limits->max_hw_discard_sectors = limits->max_discard_sectors;
}

static struct target_type ew_target_type = {
	.name = "eagerwrite",
	.version = {1, 0, 0},
	.module = THIS_MODULE,
	.ctr = ew_ctr,
	.dtr = ew_dtr,
	.map = ew_map,
	.end_io = ew_end_io,
	.postsuspend = ew_postsuspend,
	.preresume = ew_preresume,
	.resume = ew_resume,
	.status = ew_status,
	.message = ew_message,
	.iterate_devices = ew_iterate_devices,
	.io_hints = ew_io_hints,
};

static int __init dm_eagerwrite_init(void)
{
	int r = dm_register_target(&ew_target_type);

	if (r < 0)
		DMERR("register failed %d", r);
	return r;
}

static void __exit dm_eagerwrite_exit(void)
{
	dm_unregister_target(&ew_target_type);
}

module_init(dm_eagerwrite_init);
module_exit(dm_eagerwrite_exit);

MODULE_DESCRIPTION(DM_NAME " eager-writing mirrored disk array target");
MODULE_LICENSE("GPL");
