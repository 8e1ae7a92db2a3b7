// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-hddsim: an emulated rotating disk, for tests and benchmarks only.
 *
 *   <start> <len> hddsim <backing_dev> [<#opt_args> [<key> <value>]...]
 *
 * Data passes through to a fast backing device (brd, null_blk, a loop file
 * on tmpfs); what the target adds is time.  Each read or write is one
 * request to a single-armed disk described by the portable core's disk
 * model (dm-eagerwrite/core/ew_disk.c, the same code the predictor and the
 * simulator run): seek from the arm's cylinder, wait for the first sector
 * to come under the head, transfer, controller overhead.
 *
 * Queue policy: FIFO.  Requests are served one at a time in the order
 * .map sees them, each starting when it arrives or when the previous one
 * ends, whichever is later.  Because the order is fixed at arrival, the
 * model's start and end times of a request are known at once: .map
 * computes them and moves the modelled arm, remaps the bio and submits it
 * at once.  When the backing device completes it, .end_io holds the bio
 * on an hrtimer until the modelled end; a bio whose backing I/O finishes
 * after the modelled end completes at once and counts as late.  So a
 * completion is never earlier than the model says, nor earlier than the
 * data is on the backing device.
 *
 * The modelled disk has no volatile write cache: a write completes when it
 * is on the media.  PREFLUSH and FUA pass through to the backing device
 * (which must honour them for the data to be durable) and take no
 * modelled time; an empty flush is not a request to the disk.  Discards
 * pass through unmodelled.
 *
 * Rotation is global: the angle under the heads at time t (CLOCK_MONOTONIC,
 * ktime_get_ns()) is (t - phase_ns) mod rotation_ns.  Unless phase_ns is
 * given, it is drawn at random at construction, so disks do not turn in
 * lockstep; TABLE always prints it, so a reload keeps the same platter.
 */

#include <linux/module.h>
#include <linux/init.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/device-mapper.h>

#include "../../dm-eagerwrite/core/ew_disk.h"

#define DM_MSG_PREFIX "hddsim"

/* Histogram of modelled service times (message "histogram"). */
#define HDDSIM_HIST_BUCKETS	64
#define HDDSIM_HIST_NS		500000ULL

/*
 * The optional arguments: every scalar of struct ew_disk_params.  One table
 * drives parsing and TABLE status, in this (canonical) order.
 */
struct hddsim_key {
	const char *name;
	size_t offset;
	bool wide;		/* u64, else u32 */
};

#define HDDSIM_KEY(field, is_wide) \
	{ #field, offsetof(struct ew_disk_params, field), is_wide }

static const struct hddsim_key hddsim_keys[] = {
	HDDSIM_KEY(phase_ns, true),
	HDDSIM_KEY(rotation_ns, true),
	HDDSIM_KEY(heads, false),
	HDDSIM_KEY(single_cyl_ns, false),
	HDDSIM_KEY(seek_a_ns, false),
	HDDSIM_KEY(seek_b_ns, false),
	HDDSIM_KEY(seek_boundary, false),
	HDDSIM_KEY(seek_c_ns, false),
	HDDSIM_KEY(seek_e_ns, false),
	HDDSIM_KEY(head_switch_ns, false),
	HDDSIM_KEY(write_settle_ns, false),
	HDDSIM_KEY(overhead_ns, false),
};

#define HDDSIM_NR_KEYS		ARRAY_SIZE(hddsim_keys)
#define HDDSIM_KEY_PHASE	0

/* Counters of modelled requests since construction or "reset". */
struct hddsim_stats {
	u64 requests;
	u64 reads;
	u64 writes;
	u64 service_ns;		/* sum of end - arrival (wait + access) */
	u64 seek_ns;		/* sum of overhead + seek/switch + settle */
	u64 rot_ns;		/* sum of rotational waits */
	u64 xfer_ns;		/* sum of transfers */
	/* the same sums of queue wait and of end - arrival, by kind */
	u64 read_wait_ns, write_wait_ns;
	u64 read_service_ns, write_service_ns;
};

struct hddsim {
	struct dm_dev *dev;
	u32 given;			/* bit i: hddsim_keys[i] in the line */

	spinlock_t lock;		/* protects disk state and stats */
	struct ew_disk disk;
	struct ew_head head;		/* the true arm and when it is free */
	struct hddsim_stats stats;
	u64 hist[HDDSIM_HIST_BUCKETS];	/* service times, last is overflow */

	atomic64_t late;		/* backing device finished after model */
	atomic64_t late_ns;		/* by how much, summed */
};

/* Per-bio data: when the model says this bio completes. */
struct hddsim_io {
	struct hrtimer timer;
	u64 end_ns;			/* 0: not modelled, or already held */
};

static u64 hddsim_param_get(const struct ew_disk_params *p,
			    const struct hddsim_key *k)
{
	const char *base = (const char *)p + k->offset;

	return k->wide ? *(const u64 *)base : *(const u32 *)base;
}

static int hddsim_param_set(struct ew_disk_params *p,
			    const struct hddsim_key *k, u64 v)
{
	char *base = (char *)p + k->offset;

	if (k->wide) {
		*(u64 *)base = v;
		return 0;
	}
	if (v > U32_MAX)
		return -ERANGE;
	*(u32 *)base = v;
	return 0;
}

static int hddsim_parse_opts(struct dm_arg_set *as, struct ew_disk_params *p,
			     u32 *given, char **error)
{
	static const struct dm_arg _args[] = {
		{0, 2 * HDDSIM_NR_KEYS, "Invalid number of hddsim optional arguments"},
	};
	unsigned int argc, i;
	int r;

	if (!as->argc)
		return 0;
	r = dm_read_arg_group(_args, as, &argc, error);
	if (r)
		return r;
	if (argc % 2) {
		*error = "hddsim optional arguments must be <key> <value> pairs";
		return -EINVAL;
	}
	while (argc) {
		const char *key = dm_shift_arg(as);
		const char *val = dm_shift_arg(as);
		u64 v;

		argc -= 2;
		for (i = 0; i < HDDSIM_NR_KEYS; i++)
			if (!strcasecmp(key, hddsim_keys[i].name))
				break;
		if (i == HDDSIM_NR_KEYS) {
			*error = "Unknown hddsim optional argument";
			return -EINVAL;
		}
		if (*given & BIT(i)) {
			*error = "Duplicate hddsim optional argument";
			return -EINVAL;
		}
		if (kstrtou64(val, 10, &v) ||
		    hddsim_param_set(p, &hddsim_keys[i], v)) {
			*error = "Invalid value of hddsim optional argument";
			return -EINVAL;
		}
		*given |= BIT(i);
	}
	return 0;
}

/*
 * Construct: hddsim <backing_dev> [<#opt_args> [<key> <value>]...]
 */
static int hddsim_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	struct ew_disk_params p;
	const char *why;
	struct hddsim *hs;
	int r;

	if (argc < 1) {
		ti->error = "Missing backing device";
		return -EINVAL;
	}

	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs) {
		ti->error = "Cannot allocate hddsim context";
		return -ENOMEM;
	}
	spin_lock_init(&hs->lock);
	atomic64_set(&hs->late, 0);
	atomic64_set(&hs->late_ns, 0);

	ew_disk_params_default(&p);
	dm_consume_args(&as, 1);
	r = hddsim_parse_opts(&as, &p, &hs->given, &ti->error);
	if (r)
		goto bad;
	if (as.argc) {
		ti->error = "Too many hddsim arguments";
		r = -EINVAL;
		goto bad;
	}
	/* A random platter angle, so that disks do not rotate in lockstep. */
	if (!(hs->given & BIT(HDDSIM_KEY_PHASE)) && p.rotation_ns)
		p.phase_ns = get_random_u64() % p.rotation_ns;

	r = ew_disk_params_check(&p, &why);
	if (r) {
		ti->error = (char *)why;
		goto bad;
	}
	r = ew_disk_init(&hs->disk, &p, ti->len);
	if (r) {
		ti->error = "Cannot build the disk model for this length";
		goto bad;
	}

	r = dm_get_device(ti, argv[0], dm_table_get_mode(ti->table), &hs->dev);
	if (r) {
		ti->error = "Backing device lookup failed";
		goto bad;
	}

	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->per_io_data_size = sizeof(struct hddsim_io);
	ti->private = hs;
	return 0;

bad:
	kfree(hs);
	return r;
}

static void hddsim_dtr(struct dm_target *ti)
{
	struct hddsim *hs = ti->private;

	dm_put_device(ti, hs->dev);
	kfree(hs);
}

/*
 * The disk takes the request now (FIFO: after everything before it) and
 * the arm moves; returns when it completes.
 */
static u64 hddsim_serve(struct hddsim *hs, u64 lba, u32 nsect, bool write)
{
	struct hddsim_stats *s = &hs->stats;
	struct ew_access a;
	unsigned long flags;
	u64 now, service;
	unsigned int b;

	spin_lock_irqsave(&hs->lock, flags);
	now = ktime_get_ns();
	ew_disk_predict(&hs->disk, &hs->head, now, lba, nsect, write, &a);
	ew_head_complete(&hs->disk, &hs->head, lba, nsect, a.end_ns);

	service = a.end_ns - now;
	s->requests++;
	if (write)
		s->writes++;
	else
		s->reads++;
	s->service_ns += service;
	if (write) {
		s->write_wait_ns += a.start_ns - now;
		s->write_service_ns += service;
	} else {
		s->read_wait_ns += a.start_ns - now;
		s->read_service_ns += service;
	}
	s->seek_ns += a.seek_ns;
	s->rot_ns += a.rot_ns;
	s->xfer_ns += a.xfer_ns;
	b = min_t(u64, div64_u64(service, HDDSIM_HIST_NS),
		  HDDSIM_HIST_BUCKETS - 1);
	hs->hist[b]++;
	spin_unlock_irqrestore(&hs->lock, flags);

	return a.end_ns;
}

static int hddsim_map(struct dm_target *ti, struct bio *bio)
{
	struct hddsim *hs = ti->private;
	struct hddsim_io *io = dm_per_bio_data(bio, sizeof(*io));
	u32 nsect = bio_sectors(bio);

	io->end_ns = 0;
	bio_set_dev(bio, hs->dev->bdev);
	if (!nsect)
		return DM_MAPIO_REMAPPED;	/* empty flush */

	bio->bi_iter.bi_sector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		io->end_ns = hddsim_serve(hs, bio->bi_iter.bi_sector, nsect,
					  op_is_write(bio_op(bio)));
		break;
	default:
		break;
	}
	return DM_MAPIO_REMAPPED;
}

static enum hrtimer_restart hddsim_release(struct hrtimer *timer)
{
	struct hddsim_io *io = container_of(timer, struct hddsim_io, timer);

	/* The second pass through .end_io sees end_ns == 0 and lets go. */
	bio_endio(dm_bio_from_per_bio_data(io, sizeof(*io)));
	return HRTIMER_NORESTART;
}

static int hddsim_end_io(struct dm_target *ti, struct bio *bio,
			 blk_status_t *error)
{
	struct hddsim *hs = ti->private;
	struct hddsim_io *io = dm_per_bio_data(bio, sizeof(*io));
	u64 end = io->end_ns, now;

	if (!end || *error)
		return DM_ENDIO_DONE;
	io->end_ns = 0;
	now = ktime_get_ns();
	if (now >= end) {
		atomic64_inc(&hs->late);
		atomic64_add(now - end, &hs->late_ns);
		return DM_ENDIO_DONE;
	}
	hrtimer_init(&io->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	io->timer.function = hddsim_release;
	hrtimer_start(&io->timer, ns_to_ktime(end), HRTIMER_MODE_ABS_SOFT);
	return DM_ENDIO_INCOMPLETE;
}

static u64 hddsim_mean(u64 sum, u64 n)
{
	return n ? div64_u64(sum, n) : 0;
}

static void hddsim_status(struct dm_target *ti, status_type_t type,
			  unsigned int status_flags, char *result,
			  unsigned int maxlen)
{
	struct hddsim *hs = ti->private;
	const struct ew_disk_params *p = &hs->disk.p;
	struct hddsim_stats s;
	struct ew_head h;
	unsigned long flags;
	unsigned int sz = 0, i, n;

	switch (type) {
	case STATUSTYPE_INFO:
		spin_lock_irqsave(&hs->lock, flags);
		h = hs->head;
		s = hs->stats;
		spin_unlock_irqrestore(&hs->lock, flags);
		DMEMIT("%u %u %llu %llu %llu %llu %llu %llu %llu %llu %lld %lld",
		       h.cyl, h.head, h.free_at_ns, s.requests,
		       hddsim_mean(s.service_ns, s.requests), s.reads, s.writes,
		       hddsim_mean(s.seek_ns, s.requests),
		       hddsim_mean(s.rot_ns, s.requests),
		       hddsim_mean(s.xfer_ns, s.requests),
		       (s64)atomic64_read(&hs->late),
		       (s64)atomic64_read(&hs->late_ns));
		DMEMIT(" %llu %llu %llu %llu",
		       hddsim_mean(s.read_wait_ns, s.reads),
		       hddsim_mean(s.write_wait_ns, s.writes),
		       hddsim_mean(s.read_service_ns, s.reads),
		       hddsim_mean(s.write_service_ns, s.writes));
		break;
	case STATUSTYPE_TABLE:
		/* phase_ns always: a reload keeps the platter's angle. */
		n = 0;
		for (i = 0; i < HDDSIM_NR_KEYS; i++)
			if (i == HDDSIM_KEY_PHASE || (hs->given & BIT(i)))
				n++;
		DMEMIT("%s %u", hs->dev->name, 2 * n);
		for (i = 0; i < HDDSIM_NR_KEYS; i++)
			if (i == HDDSIM_KEY_PHASE || (hs->given & BIT(i)))
				DMEMIT(" %s %llu", hddsim_keys[i].name,
				       hddsim_param_get(p, &hddsim_keys[i]));
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",backing_dev=%s,rotation_ns=%llu,phase_ns=%llu;",
		       hs->dev->name, p->rotation_ns, p->phase_ns);
		break;
	}
}

static int hddsim_message(struct dm_target *ti, unsigned int argc,
			  char **argv, char *result, unsigned int maxlen)
{
	struct hddsim *hs = ti->private;
	unsigned long flags;
	unsigned int sz = 0, i;
	u64 *hist;

	if (argc != 1)
		goto bad;
	if (!strcasecmp(argv[0], "reset")) {
		spin_lock_irqsave(&hs->lock, flags);
		memset(&hs->stats, 0, sizeof(hs->stats));
		memset(hs->hist, 0, sizeof(hs->hist));
		spin_unlock_irqrestore(&hs->lock, flags);
		atomic64_set(&hs->late, 0);
		atomic64_set(&hs->late_ns, 0);
		return 0;
	}
	if (!strcasecmp(argv[0], "histogram")) {
		hist = kmalloc_array(HDDSIM_HIST_BUCKETS, sizeof(*hist),
				     GFP_KERNEL);
		if (!hist)
			return -ENOMEM;
		spin_lock_irqsave(&hs->lock, flags);
		memcpy(hist, hs->hist, sizeof(hs->hist));
		spin_unlock_irqrestore(&hs->lock, flags);
		DMEMIT("%llu %u", HDDSIM_HIST_NS, HDDSIM_HIST_BUCKETS);
		for (i = 0; i < HDDSIM_HIST_BUCKETS; i++)
			DMEMIT(" %llu", hist[i]);
		kfree(hist);
		return 1;	/* the result holds output */
	}
bad:
	DMWARN("unrecognised message (expected \"reset\" or \"histogram\")");
	return -EINVAL;
}

static int hddsim_iterate_devices(struct dm_target *ti,
				  iterate_devices_callout_fn fn, void *data)
{
	struct hddsim *hs = ti->private;

	return fn(ti, hs->dev, 0, ti->len, data);
}

/*
 * A rotating disk says so: dm makes a device non-rotational when all the
 * devices under it are (brd, null_blk, loop on tmpfs are), and placement
 * in dm-eagerwrite skips the disk model on a non-rotational member.  dm
 * sets the flag when it binds the table, before the targets resume.
 */
static void hddsim_resume(struct dm_target *ti)
{
	blk_queue_flag_clear(QUEUE_FLAG_NONROT,
			     dm_disk(dm_table_get_md(ti->table))->queue);
}

static struct target_type hddsim_target = {
	.name = "hddsim",
	.version = {1, 1, 0},
	.module = THIS_MODULE,
	.ctr = hddsim_ctr,
	.dtr = hddsim_dtr,
	.map = hddsim_map,
	.end_io = hddsim_end_io,
	.status = hddsim_status,
	.message = hddsim_message,
	.iterate_devices = hddsim_iterate_devices,
	.resume = hddsim_resume,
};

static int __init dm_hddsim_init(void)
{
	return dm_register_target(&hddsim_target);
}

static void __exit dm_hddsim_exit(void)
{
	dm_unregister_target(&hddsim_target);
}

module_init(dm_hddsim_init);
module_exit(dm_hddsim_exit);

MODULE_DESCRIPTION(DM_NAME " emulated rotating disk (tests only)");
MODULE_LICENSE("GPL");
