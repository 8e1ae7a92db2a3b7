// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ewfault: a fault-injecting pass-through target, for tests only.
 *
 *   <start> <len> ewfault <dev> <offset>
 *
 * Maps [start, start + len) to <dev> from <offset>, like dm-linear, and
 * injects the faults dm-flakey, dm-error and dm-dust cannot express,
 * switched at run time by messages ("dmsetup message DEV 0 ..."):
 *
 *   fail_flushes 0|1        empty PREFLUSH bios complete with EIO (the
 *                           device is not asked); writes, FUA writes and
 *                           reads go on
 *   fail_nth_write N        the Nth write from now (1: the next one) fails
 *                           with EIO without reaching the device; 0: off
 *   fail_writes_from S      every write whose range ends past target
 *                           sector S fails with EIO; "off": none
 *   delay_ms MS             every completion is held MS ms (the I/O is
 *                           done on the device first); 0: off
 *   hold 0|1                1: every completion from now on is held (the
 *                           I/O done on the device first) until "hold 0"
 *                           or "clear" releases them all at once, however
 *                           long that takes: a hold that ends on the
 *                           test's state, not on a timer.  A suspend or
 *                           remove waits for held bios: release first.
 *   clear                   all of the above off (held completions
 *                           released), and ignore_flushes 0
 *
 * A volatile write cache (a disk's, lost at a power cut), for the
 * power-cut suites:
 *
 *   wcache N                N > 0: a write that is neither FUA nor larger
 *                           than the cache completes once copied into
 *                           the target's memory (at most N 4 KiB blocks;
 *                           when full, the oldest cached writes are
 *                           written back first, as a disk does); reads
 *                           see the cache; a PREFLUSH writes every cached
 *                           write back, oldest first, before the device
 *                           is flushed; a FUA write, a discard or a
 *                           write-zeroes first writes back the cached
 *                           writes up to the newest one it overlaps,
 *                           then goes to the device.  A failed write-back
 *                           fails the next flush.  N at most
 *                           EWFAULT_MAX_WCACHE_BLOCKS; a smaller N writes
 *                           back the oldest until the rest fits.
 *                           0: write everything back, flush the device,
 *                           pass through again.
 *   ignore_flushes 0|1      1: PREFLUSH and FUA are acknowledged without
 *                           writing anything back (a lying disk)
 *   cut SEED                the power cut: each cached write, oldest
 *                           first, is written back whole, dropped, or
 *                           (a multi-sector one) torn, only a prefix of
 *                           its sectors written, as chosen by a PRNG
 *                           seeded with SEED; then every later bio fails
 *                           and every later message is refused.  Suspend
 *                           the device first (dmsetup suspend --noflush
 *                           --nolockfs) to cut several devices at one
 *                           instant: a suspend neither writes back nor
 *                           drops the cache.
 *
 * The table's destructor writes back what is left in the cache (a device
 * removed, not a power cut); reload a wcache device only after wcache 0,
 * as the new table does not see the old one's cache.
 *
 * A failed bio never reaches the device: what it would have written is
 * not written.  Discards and write-zeroes pass through.  INFO status:
 *   <flushes> <failed_flushes> <writes> <failed_writes> <delayed>
 *   fail_flushes=<0|1> fail_nth_write=<N> fail_writes_from=<S|off>
 *   delay_ms=<MS> wcache=<N> cached=<writes>/<blocks>
 *   written_back=<writes> dropped=<writes> torn=<writes>
 *   ignore_flushes=<0|1> cut=<0|1> hold=<0|1> held=<bios held now>
 * (written_back, dropped, torn: cached writes since the table was made;
 * written back at a flush, eviction or cut; dropped or torn by the cut).
 *
 * Locking: ef->lock (irq-safe) guards the settings, the counters, the
 * held and deferred bio lists and the mode flags (defer, cut, hold).  ef->cache_mutex
 * (process context only: the worker, messages, the destructor) guards
 * the cached writes and serialises every write-back; it is taken before
 * ef->lock, never inside it.  While the cache is on (and until a wcache 0
 * has drained it and the deferred list is empty) .map defers every bio to
 * the worker, which may sleep: .map never allocates or waits.
 */

#include <linux/module.h>
#include <linux/init.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/dm-io.h>
#include <linux/hrtimer.h>
#include <linux/ioprio.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/device-mapper.h>

#define DM_MSG_PREFIX "ewfault"
#define EWFAULT_MAX_DELAY_MS	60000
#define EWFAULT_MAX_WCACHE_BLOCKS	65536	/* 256 MiB of cached data */
#define EWFAULT_BLOCK_SECTORS	8		/* wcache counts 4 KiB blocks */

/* One cached write: the data of a completed write not yet on the device. */
struct ewfault_wentry {
	struct list_head list;		/* ef->wentries, oldest first */
	sector_t sector;		/* on the device */
	unsigned int nr;		/* sectors */
	void *data;			/* nr << SECTOR_SHIFT bytes, kvmalloc */
};

struct ewfault {
	struct dm_target *ti;
	struct dm_dev *dev;
	sector_t offset;

	spinlock_t lock;		/* everything below up to cache_mutex */
	bool fail_flushes;
	u64 nth_write;			/* 0: off */
	u64 fail_from;			/* U64_MAX: off */
	u32 delay_ms;
	bool hold;			/* completions wait on held */
	struct list_head held;		/* struct ewfault_io, until hold 0 */
	u64 nr_held;
	u64 flushes, failed_flushes, writes, failed_writes, delayed;
	/* the volatile write cache */
	u32 wcache_blocks;		/* capacity; 0: off */
	bool ignore_flushes;
	bool defer;			/* .map queues every bio for the worker */
	bool cut;			/* power is off: every bio fails */
	struct bio_list deferred;
	u64 cached_writes, cached_sectors;
	u64 written_back, dropped, torn;

	struct mutex cache_mutex;	/* the cached writes, every write-back */
	struct list_head wentries;	/* oldest first */
	bool wb_error;			/* a write-back failed: fail next flush */

	struct workqueue_struct *wq;
	struct work_struct work;
	struct dm_io_client *io_client;
};

struct ewfault_io {
	struct hrtimer timer;
	struct list_head held;		/* on ef->held while "hold 1" */
	bool hold;			/* .end_io holds it once */
};

static void ewfault_remap(struct ewfault *ef, struct bio *bio)
{
	sector_t s = dm_target_offset(ef->ti, bio->bi_iter.bi_sector);

	bio_set_dev(bio, ef->dev->bdev);
	if (bio_sectors(bio) || op_is_zone_mgmt(bio_op(bio)))
		bio->bi_iter.bi_sector = ef->offset + s;
}

/*
 * The volatile write cache.  Everything below runs in process context
 * (the worker, messages, the destructor) under ef->cache_mutex.
 */

/* Takes e out of the cache; @fate (under ef->lock) counts how it left. */
static void ewfault_wentry_free(struct ewfault *ef, struct ewfault_wentry *e,
				u64 *fate)
{
	list_del(&e->list);
	spin_lock_irq(&ef->lock);
	ef->cached_writes--;
	ef->cached_sectors -= e->nr;
	if (fate)
		(*fate)++;
	spin_unlock_irq(&ef->lock);
	kvfree(e->data);
	kfree(e);
}

/* The first @nr sectors of @e to the device, synchronously. */
static int ewfault_dev_write(struct ewfault *ef, struct ewfault_wentry *e,
			     unsigned int nr)
{
	struct dm_io_region where = {
		.bdev = ef->dev->bdev,
		.sector = e->sector,
		.count = nr,
	};
	struct dm_io_request req = {
		.bi_opf = REQ_OP_WRITE | REQ_SYNC,
		.mem.type = is_vmalloc_addr(e->data) ? DM_IO_VMA : DM_IO_KMEM,
		.mem.ptr.addr = e->data,
		.client = ef->io_client,
	};

	return dm_io(&req, 1, &where, NULL, IOPRIO_DEFAULT);
}

/*
 * Writes back the cached writes, oldest first, up to and including @last
 * (NULL: all).  Always a prefix of the cache, so that an older cached
 * write never lands over a newer one it overlaps.  A failed write-back
 * fails the next flush, as a disk reports it.
 */
static void ewfault_writeback_upto(struct ewfault *ef,
				   struct ewfault_wentry *last)
{
	struct ewfault_wentry *e, *n;
	bool end;

	list_for_each_entry_safe(e, n, &ef->wentries, list) {
		end = e == last;
		if (ewfault_dev_write(ef, e, e->nr)) {
			ef->wb_error = true;
			DMERR_LIMIT("write-back of %u sectors at %llu failed",
				    e->nr, (unsigned long long)e->sector);
		}
		ewfault_wentry_free(ef, e, &ef->written_back);
		if (end)
			break;
	}
}

/* The newest cached write overlapping [s, s + nr), or NULL. */
static struct ewfault_wentry *ewfault_newest_overlap(struct ewfault *ef,
						     sector_t s,
						     unsigned int nr)
{
	struct ewfault_wentry *e;

	list_for_each_entry_reverse(e, &ef->wentries, list)
		if (e->sector < s + nr && s < e->sector + e->nr)
			return e;
	return NULL;
}

/* Evicts the oldest cached writes until @more sectors fit. */
static void ewfault_make_room(struct ewfault *ef, u64 more)
{
	u64 cap = (u64)ef->wcache_blocks * EWFAULT_BLOCK_SECTORS;
	struct ewfault_wentry *oldest;

	while (!list_empty(&ef->wentries) && ef->cached_sectors + more > cap) {
		oldest = list_first_entry(&ef->wentries, struct ewfault_wentry,
					  list);
		ewfault_writeback_upto(ef, oldest);
	}
}

/*
 * Keeps the data of write @bio (at device sector @s) in the cache and
 * returns true; false when it does not fit or memory is short (the
 * caller writes it through).
 */
static bool ewfault_cache_write(struct ewfault *ef, struct bio *bio,
				sector_t s)
{
	unsigned int nr = bio_sectors(bio), noio;
	struct ewfault_wentry *e, *old, *n;
	struct bvec_iter iter;
	struct bio_vec bv;
	char *p;

	if (nr > (u64)ef->wcache_blocks * EWFAULT_BLOCK_SECTORS)
		return false;
	e = kmalloc(sizeof(*e), GFP_NOIO);
	if (!e)
		return false;
	noio = memalloc_noio_save();
	e->data = kvmalloc((size_t)nr << SECTOR_SHIFT, GFP_KERNEL);
	memalloc_noio_restore(noio);
	if (!e->data) {
		kfree(e);
		return false;
	}
	e->sector = s;
	e->nr = nr;
	p = e->data;
	bio_for_each_segment(bv, bio, iter) {
		memcpy_from_bvec(p, &bv);
		p += bv.bv_len;
	}
	/* older cached writes this one covers whole are superseded */
	list_for_each_entry_safe(old, n, &ef->wentries, list)
		if (old->sector >= s && old->sector + old->nr <= s + nr)
			ewfault_wentry_free(ef, old, NULL);
	ewfault_make_room(ef, nr);
	list_add_tail(&e->list, &ef->wentries);
	spin_lock_irq(&ef->lock);
	ef->cached_writes++;
	ef->cached_sectors += nr;
	spin_unlock_irq(&ef->lock);
	return true;
}

/* A cached write's data over the part of read @bio (at @s) it covers. */
static void ewfault_overlay(struct ewfault_wentry *e, struct bio *bio,
			    sector_t s)
{
	u64 pos = (u64)s << SECTOR_SHIFT;
	u64 e_lo = (u64)e->sector << SECTOR_SHIFT;
	u64 e_hi = e_lo + ((u64)e->nr << SECTOR_SHIFT);
	struct bvec_iter iter;
	struct bio_vec bv;
	u64 lo, hi;
	char *dst;

	bio_for_each_segment(bv, bio, iter) {
		lo = max(pos, e_lo);
		hi = min(pos + bv.bv_len, e_hi);
		if (lo < hi) {
			dst = bvec_kmap_local(&bv);
			memcpy(dst + (lo - pos), e->data + (lo - e_lo), hi - lo);
			kunmap_local(dst);
		}
		pos += bv.bv_len;
	}
}

/* A read that overlaps cached writes: the device, then the cache. */
static void ewfault_read_cached(struct ewfault *ef, struct bio *bio,
				sector_t s)
{
	struct dm_io_region where = {
		.bdev = ef->dev->bdev,
		.sector = s,
		.count = bio_sectors(bio),
	};
	struct dm_io_request req = {
		.bi_opf = REQ_OP_READ,
		.mem.type = DM_IO_BIO,
		.mem.ptr.bio = bio,
		.client = ef->io_client,
	};
	struct ewfault_wentry *e;

	if (dm_io(&req, 1, &where, NULL, IOPRIO_DEFAULT)) {
		bio_io_error(bio);
		return;
	}
	list_for_each_entry(e, &ef->wentries, list)
		ewfault_overlay(e, bio, s);
	bio_endio(bio);
}

/* One deferred bio, in the order .map saw them. */
static void ewfault_process(struct ewfault *ef, struct bio *bio)
{
	sector_t s = ef->offset +
		     dm_target_offset(ef->ti, bio->bi_iter.bi_sector);
	unsigned int nr = bio_sectors(bio);
	struct ewfault_wentry *last;
	bool ignore, cut;

	spin_lock_irq(&ef->lock);
	ignore = ef->ignore_flushes;
	cut = ef->cut;
	spin_unlock_irq(&ef->lock);
	if (cut) {
		bio_io_error(bio);
		return;
	}
	if (bio_op(bio) == REQ_OP_READ) {
		if (nr && ewfault_newest_overlap(ef, s, nr)) {
			ewfault_read_cached(ef, bio, s);
			return;
		}
		goto pass;
	}
	if (bio_op(bio) != REQ_OP_WRITE)
		goto through;	/* discard, write-zeroes: not cached */
	if (ignore)
		bio->bi_opf &= ~(REQ_PREFLUSH | REQ_FUA);
	if (bio->bi_opf & REQ_PREFLUSH) {
		ewfault_writeback_upto(ef, NULL);
		if (ef->wb_error) {
			ef->wb_error = false;
			bio_io_error(bio);
			return;
		}
		if (!nr)
			goto pass;	/* and the device's own flush */
		if (blkdev_issue_flush(ef->dev->bdev)) {
			bio_io_error(bio);
			return;
		}
		bio->bi_opf &= ~REQ_PREFLUSH;
	}
	if (!nr) {
		bio_endio(bio);		/* a flush ignored */
		return;
	}
	if (!(bio->bi_opf & REQ_FUA) && ewfault_cache_write(ef, bio, s)) {
		bio_endio(bio);
		return;
	}
through:
	last = nr ? ewfault_newest_overlap(ef, s, nr) : NULL;
	if (last)
		ewfault_writeback_upto(ef, last);
pass:
	ewfault_remap(ef, bio);
	submit_bio_noacct(bio);
}

/* Cache off and empty, nothing deferred: .map passes bios through again. */
static void ewfault_maybe_pass(struct ewfault *ef)
{
	spin_lock_irq(&ef->lock);
	if (!ef->wcache_blocks && list_empty(&ef->wentries) &&
	    bio_list_empty(&ef->deferred))
		ef->defer = false;
	spin_unlock_irq(&ef->lock);
}

static void ewfault_work(struct work_struct *work)
{
	struct ewfault *ef = container_of(work, struct ewfault, work);
	struct bio_list bios;
	struct bio *bio;

	mutex_lock(&ef->cache_mutex);
	spin_lock_irq(&ef->lock);
	bios = ef->deferred;
	bio_list_init(&ef->deferred);
	spin_unlock_irq(&ef->lock);
	while ((bio = bio_list_pop(&bios)))
		ewfault_process(ef, bio);
	ewfault_maybe_pass(ef);
	mutex_unlock(&ef->cache_mutex);
}

/* wcache N: the new capacity; 0 drains the cache and flushes the device. */
static int ewfault_set_wcache(struct ewfault *ef, u32 blocks)
{
	int r = 0;

	mutex_lock(&ef->cache_mutex);
	spin_lock_irq(&ef->lock);
	ef->wcache_blocks = blocks;
	if (blocks)
		ef->defer = true;
	spin_unlock_irq(&ef->lock);
	ewfault_make_room(ef, 0);
	if (!blocks) {
		r = blkdev_issue_flush(ef->dev->bdev);
		ewfault_maybe_pass(ef);
	}
	mutex_unlock(&ef->cache_mutex);
	return r;
}

/*
 * cut SEED: each cached write, oldest first, written back whole (1 in 2),
 * torn (1 in 4 when it has more than one sector: a prefix of 1 to nr - 1
 * sectors written) or dropped; then every bio fails.
 */
static void ewfault_cut(struct ewfault *ef, u64 seed)
{
	struct ewfault_wentry *e, *n;
	struct rnd_state rs;
	struct bio_list bios;
	struct bio *bio;
	u32 r;

	prandom_seed_state(&rs, seed);
	mutex_lock(&ef->cache_mutex);
	spin_lock_irq(&ef->lock);
	ef->cut = true;
	bios = ef->deferred;
	bio_list_init(&ef->deferred);
	spin_unlock_irq(&ef->lock);
	list_for_each_entry_safe(e, n, &ef->wentries, list) {
		r = prandom_u32_state(&rs);
		if (r % 4 < 2) {
			ewfault_dev_write(ef, e, e->nr);
			ewfault_wentry_free(ef, e, &ef->written_back);
		} else if (r % 4 == 2 && e->nr > 1) {
			ewfault_dev_write(ef, e, 1 + (r >> 2) % (e->nr - 1));
			ewfault_wentry_free(ef, e, &ef->torn);
		} else {
			ewfault_wentry_free(ef, e, &ef->dropped);
		}
	}
	mutex_unlock(&ef->cache_mutex);
	while ((bio = bio_list_pop(&bios)))
		bio_io_error(bio);
}

static int ewfault_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct ewfault *ef;
	unsigned long long off;
	int r;

	if (argc != 2) {
		ti->error = "Expected <dev> <offset>";
		return -EINVAL;
	}
	if (kstrtoull(argv[1], 10, &off)) {
		ti->error = "Invalid offset";
		return -EINVAL;
	}
	ef = kzalloc(sizeof(*ef), GFP_KERNEL);
	if (!ef) {
		ti->error = "Cannot allocate ewfault context";
		return -ENOMEM;
	}
	spin_lock_init(&ef->lock);
	mutex_init(&ef->cache_mutex);
	INIT_LIST_HEAD(&ef->wentries);
	INIT_LIST_HEAD(&ef->held);
	bio_list_init(&ef->deferred);
	INIT_WORK(&ef->work, ewfault_work);
	ef->ti = ti;
	ef->offset = off;
	ef->fail_from = U64_MAX;
	r = dm_get_device(ti, argv[0], dm_table_get_mode(ti->table), &ef->dev);
	if (r) {
		ti->error = "Device lookup failed";
		kfree(ef);
		return r;
	}
	ef->wq = alloc_workqueue("ewfault", WQ_MEM_RECLAIM, 1);
	if (!ef->wq) {
		ti->error = "Cannot allocate workqueue";
		r = -ENOMEM;
		goto bad;
	}
	ef->io_client = dm_io_client_create();
	if (IS_ERR(ef->io_client)) {
		ti->error = "Cannot create dm-io client";
		r = PTR_ERR(ef->io_client);
		destroy_workqueue(ef->wq);
		goto bad;
	}
	/*
	 * Flushes and FUA always reach .map, even over a device without a
	 * write cache: the cache here is this target's own.
	 */
	ti->flush_supported = true;
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct ewfault_io);
	ti->private = ef;
	return 0;
bad:
	dm_put_device(ti, ef->dev);
	kfree(ef);
	return r;
}

static void ewfault_dtr(struct dm_target *ti)
{
	struct ewfault *ef = ti->private;

	/* the table is suspended: nothing is deferred any more */
	flush_workqueue(ef->wq);
	mutex_lock(&ef->cache_mutex);
	ewfault_writeback_upto(ef, NULL);
	mutex_unlock(&ef->cache_mutex);
	destroy_workqueue(ef->wq);
	dm_io_client_destroy(ef->io_client);
	dm_put_device(ti, ef->dev);
	kfree(ef);
}

/* Under ef->lock: does this bio fail? */
static bool ewfault_fails(struct ewfault *ef, struct bio *bio, sector_t s)
{
	if (bio_op(bio) != REQ_OP_WRITE)
		return false;
	if (!bio_sectors(bio)) {
		ef->flushes++;
		if (!ef->fail_flushes)
			return false;
		ef->failed_flushes++;
		return true;
	}
	ef->writes++;
	if (ef->nth_write && !--ef->nth_write)
		goto fail;
	if (s + bio_sectors(bio) > ef->fail_from)
		goto fail;
	return false;
fail:
	ef->failed_writes++;
	return true;
}

static int ewfault_map(struct dm_target *ti, struct bio *bio)
{
	struct ewfault *ef = ti->private;
	struct ewfault_io *io = dm_per_bio_data(bio, sizeof(*io));
	sector_t s = dm_target_offset(ti, bio->bi_iter.bi_sector);
	unsigned long flags;
	bool fail, defer;

	spin_lock_irqsave(&ef->lock, flags);
	fail = ef->cut || ewfault_fails(ef, bio, s);
	io->hold = ef->delay_ms != 0 || ef->hold;
	defer = !fail && ef->defer;
	if (defer)
		bio_list_add(&ef->deferred, bio);
	spin_unlock_irqrestore(&ef->lock, flags);
	if (fail)
		return DM_MAPIO_KILL;
	if (defer) {
		queue_work(ef->wq, &ef->work);
		return DM_MAPIO_SUBMITTED;
	}
	ewfault_remap(ef, bio);
	return DM_MAPIO_REMAPPED;
}

static enum hrtimer_restart ewfault_release(struct hrtimer *timer)
{
	struct ewfault_io *io = container_of(timer, struct ewfault_io, timer);

	/* the second pass through .end_io sees hold == false */
	bio_endio(dm_bio_from_per_bio_data(io, sizeof(*io)));
	return HRTIMER_NORESTART;
}

static int ewfault_end_io(struct dm_target *ti, struct bio *bio,
			  blk_status_t *error)
{
	struct ewfault *ef = ti->private;
	struct ewfault_io *io = dm_per_bio_data(bio, sizeof(*io));
	unsigned long flags;
	u32 ms;

	if (!io->hold)
		return DM_ENDIO_DONE;
	io->hold = false;
	spin_lock_irqsave(&ef->lock, flags);
	if (ef->hold) {
		/* the second pass through .end_io sees hold == false */
		list_add_tail(&io->held, &ef->held);
		ef->nr_held++;
		ef->delayed++;
		spin_unlock_irqrestore(&ef->lock, flags);
		return DM_ENDIO_INCOMPLETE;
	}
	ms = ef->delay_ms;
	if (ms)
		ef->delayed++;
	spin_unlock_irqrestore(&ef->lock, flags);
	if (!ms)
		return DM_ENDIO_DONE;
	hrtimer_init(&io->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	io->timer.function = ewfault_release;
	hrtimer_start(&io->timer, ms_to_ktime(ms), HRTIMER_MODE_REL_SOFT);
	return DM_ENDIO_INCOMPLETE;
}

static void ewfault_status(struct dm_target *ti, status_type_t type,
			   unsigned int status_flags, char *result,
			   unsigned int maxlen)
{
	struct ewfault *ef = ti->private;
	struct ewfault c;
	unsigned long flags;
	unsigned int sz = 0;

	switch (type) {
	case STATUSTYPE_INFO:
		spin_lock_irqsave(&ef->lock, flags);
		c = *ef;
		spin_unlock_irqrestore(&ef->lock, flags);
		DMEMIT("%llu %llu %llu %llu %llu fail_flushes=%d fail_nth_write=%llu",
		       c.flushes, c.failed_flushes, c.writes, c.failed_writes,
		       c.delayed, c.fail_flushes, c.nth_write);
		if (c.fail_from == U64_MAX)
			DMEMIT(" fail_writes_from=off");
		else
			DMEMIT(" fail_writes_from=%llu", c.fail_from);
		DMEMIT(" delay_ms=%u wcache=%u cached=%llu/%llu", c.delay_ms,
		       c.wcache_blocks, c.cached_writes,
		       DIV_ROUND_UP(c.cached_sectors, EWFAULT_BLOCK_SECTORS));
		DMEMIT(" written_back=%llu dropped=%llu torn=%llu ignore_flushes=%d cut=%d",
		       c.written_back, c.dropped, c.torn, c.ignore_flushes,
		       c.cut);
		DMEMIT(" hold=%d held=%llu", c.hold, c.nr_held);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %llu", ef->dev->name, (unsigned long long)ef->offset);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",device_name=%s,start=%llu;", ef->dev->name,
		       (unsigned long long)ef->offset);
		break;
	}
}

/* "hold 0", "clear": every held completion, now.  Process context. */
static void ewfault_release_held(struct ewfault *ef)
{
	struct ewfault_io *io, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&ef->lock, flags);
	ef->hold = false;
	list_splice_init(&ef->held, &list);
	ef->nr_held = 0;
	spin_unlock_irqrestore(&ef->lock, flags);
	list_for_each_entry_safe(io, tmp, &list, held) {
		list_del_init(&io->held);
		bio_endio(dm_bio_from_per_bio_data(io, sizeof(*io)));
	}
}

static int ewfault_message(struct dm_target *ti, unsigned int argc,
			   char **argv, char *result, unsigned int maxlen)
{
	struct ewfault *ef = ti->private;
	unsigned long flags;
	u64 v = 0;
	bool cut;

	spin_lock_irqsave(&ef->lock, flags);
	cut = ef->cut;
	spin_unlock_irqrestore(&ef->lock, flags);
	if (cut) {
		DMWARN("message refused: the power was cut (remove the device)");
		return -EIO;
	}
	if (argc == 1 && !strcasecmp(argv[0], "clear")) {
		spin_lock_irqsave(&ef->lock, flags);
		ef->fail_flushes = false;
		ef->nth_write = 0;
		ef->fail_from = U64_MAX;
		ef->delay_ms = 0;
		ef->ignore_flushes = false;
		spin_unlock_irqrestore(&ef->lock, flags);
		ewfault_release_held(ef);
		return 0;
	}
	if (argc != 2)
		goto bad;
	if (!strcasecmp(argv[0], "fail_writes_from") &&
	    !strcasecmp(argv[1], "off"))
		v = U64_MAX;
	else if (kstrtoull(argv[1], 10, &v))
		goto bad;
	/* the cache's messages sleep (write-back): not under ef->lock */
	if (!strcasecmp(argv[0], "wcache")) {
		if (v > EWFAULT_MAX_WCACHE_BLOCKS)
			goto bad;
		return ewfault_set_wcache(ef, v);
	}
	if (!strcasecmp(argv[0], "cut")) {
		ewfault_cut(ef, v);
		return 0;
	}
	if (!strcasecmp(argv[0], "hold") && v <= 1) {
		if (v) {
			spin_lock_irqsave(&ef->lock, flags);
			ef->hold = true;
			spin_unlock_irqrestore(&ef->lock, flags);
		} else {
			ewfault_release_held(ef);
		}
		return 0;
	}
	spin_lock_irqsave(&ef->lock, flags);
	if (!strcasecmp(argv[0], "fail_flushes") && v <= 1) {
		ef->fail_flushes = v;
	} else if (!strcasecmp(argv[0], "fail_nth_write")) {
		ef->nth_write = v;
	} else if (!strcasecmp(argv[0], "fail_writes_from")) {
		ef->fail_from = v;
	} else if (!strcasecmp(argv[0], "delay_ms") &&
		   v <= EWFAULT_MAX_DELAY_MS) {
		ef->delay_ms = v;
	} else if (!strcasecmp(argv[0], "ignore_flushes") && v <= 1) {
		ef->ignore_flushes = v;
	} else {
		spin_unlock_irqrestore(&ef->lock, flags);
		goto bad;
	}
	spin_unlock_irqrestore(&ef->lock, flags);
	return 0;
bad:
	DMWARN("invalid message: see the top of dm-ewfault.c");
	DMWARN("delay_ms at most %u, wcache at most %u blocks",
	       EWFAULT_MAX_DELAY_MS, EWFAULT_MAX_WCACHE_BLOCKS);
	return -EINVAL;
}

static int ewfault_iterate_devices(struct dm_target *ti,
				   iterate_devices_callout_fn fn, void *data)
{
	struct ewfault *ef = ti->private;

	return fn(ti, ef->dev, ef->offset, ti->len, data);
}

static struct target_type ewfault_target = {
	.name = "ewfault",
	.version = {1, 1, 0},
	.module = THIS_MODULE,
	.ctr = ewfault_ctr,
	.dtr = ewfault_dtr,
	.map = ewfault_map,
	.end_io = ewfault_end_io,
	.status = ewfault_status,
	.message = ewfault_message,
	.iterate_devices = ewfault_iterate_devices,
};

static int __init dm_ewfault_init(void)
{
	return dm_register_target(&ewfault_target);
}

static void __exit dm_ewfault_exit(void)
{
	dm_unregister_target(&ewfault_target);
}

module_init(dm_ewfault_init);
module_exit(dm_ewfault_exit);

MODULE_DESCRIPTION("dm-ewfault: fault injection for eagerwrite's tests");
MODULE_LICENSE("GPL");
