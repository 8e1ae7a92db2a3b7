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
 *   clear                   all of the above off
 *
 * A failed bio never reaches the device: what it would have written is
 * not written.  Discards and write-zeroes pass through.  INFO status:
 *   <flushes> <failed_flushes> <writes> <failed_writes> <delayed>
 *   fail_flushes=<0|1> fail_nth_write=<N> fail_writes_from=<S|off>
 *   delay_ms=<MS>
 * Locking: ef->lock (irq-safe) guards the settings and the counters.
 */

#include <linux/module.h>
#include <linux/init.h>
#include <linux/bio.h>
#include <linux/hrtimer.h>
#include <linux/kstrtox.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/device-mapper.h>

#define DM_MSG_PREFIX "ewfault"
#define EWFAULT_MAX_DELAY_MS	60000

struct ewfault {
	struct dm_dev *dev;
	sector_t offset;

	spinlock_t lock;		/* everything below */
	bool fail_flushes;
	u64 nth_write;			/* 0: off */
	u64 fail_from;			/* U64_MAX: off */
	u32 delay_ms;
	u64 flushes, failed_flushes, writes, failed_writes, delayed;
};

struct ewfault_io {
	struct hrtimer timer;
	bool hold;			/* .end_io holds it once */
};

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
	ef->offset = off;
	ef->fail_from = U64_MAX;
	r = dm_get_device(ti, argv[0], dm_table_get_mode(ti->table), &ef->dev);
	if (r) {
		ti->error = "Device lookup failed";
		kfree(ef);
		return r;
	}
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct ewfault_io);
	ti->private = ef;
	return 0;
}

static void ewfault_dtr(struct dm_target *ti)
{
	struct ewfault *ef = ti->private;

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
	bool fail;

	spin_lock_irqsave(&ef->lock, flags);
	fail = ewfault_fails(ef, bio, s);
	io->hold = ef->delay_ms != 0;
	spin_unlock_irqrestore(&ef->lock, flags);
	if (fail)
		return DM_MAPIO_KILL;

	bio_set_dev(bio, ef->dev->bdev);
	if (bio_sectors(bio) || op_is_zone_mgmt(bio_op(bio)))
		bio->bi_iter.bi_sector = ef->offset + s;
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
		DMEMIT(" delay_ms=%u", c.delay_ms);
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

static int ewfault_message(struct dm_target *ti, unsigned int argc,
			   char **argv, char *result, unsigned int maxlen)
{
	struct ewfault *ef = ti->private;
	unsigned long flags;
	u64 v = 0;

	if (argc == 1 && !strcasecmp(argv[0], "clear")) {
		spin_lock_irqsave(&ef->lock, flags);
		ef->fail_flushes = false;
		ef->nth_write = 0;
		ef->fail_from = U64_MAX;
		ef->delay_ms = 0;
		spin_unlock_irqrestore(&ef->lock, flags);
		return 0;
	}
	if (argc != 2)
		goto bad;
	if (!strcasecmp(argv[0], "fail_writes_from") &&
	    !strcasecmp(argv[1], "off"))
		v = U64_MAX;
	else if (kstrtoull(argv[1], 10, &v))
		goto bad;
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
	} else {
		spin_unlock_irqrestore(&ef->lock, flags);
		goto bad;
	}
	spin_unlock_irqrestore(&ef->lock, flags);
	return 0;
bad:
	DMWARN("invalid message: see the top of dm-ewfault.c (delay_ms at most %u)",
	       EWFAULT_MAX_DELAY_MS);
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
	.version = {1, 0, 0},
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
