/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_disk.h - disk model and head-position predictor.
 *
 * A zoned rotating disk (cylinders, surfaces, sectors per track per zone,
 * track and cylinder skew), a Ruemmler-Wilkes seek curve, a rotation
 * period and rotational phase, head switch, write settle and controller
 * overhead.  From the arm position left by the last completed request and
 * the time a request starts, it predicts when the request's first sector
 * passes under the head and when the request completes.  All times are
 * nanoseconds; no floating point (the same arithmetic runs in the kernel).
 *
 * Rotation is global: the angle under every head at time t is
 * (t - phase_ns) mod rotation_ns, measured in nanoseconds of rotation.
 * Only the arm (cylinder, surface) depends on the requests served.  This
 * is MimdRAID's software head-position prediction: calibrate the period
 * and phase, then track the arm from completions.
 */
#ifndef EW_DISK_H
#define EW_DISK_H

#include "ew_compat.h"

#define EW_DISK_MAX_ZONES	32

struct ew_zone {
	u32 cylinders;		/* cylinders in this zone */
	u32 spt;		/* sectors (512 bytes) per track */
	u32 track_skew;		/* sectors of skew per head switch */
	u32 cyl_skew;		/* sectors of skew per cylinder switch */
};

/*
 * Every parameter is settable (module message, ewsim options).  The
 * defaults (ew_disk_params_default()) are a Seagate Cheetah 9LP
 * ST39102, a 2001-era 10,000 RPM SCSI disk.
 */
struct ew_disk_params {
	u64 rotation_ns;	/* one revolution (10,045 RPM: 5,973,121 ns) */
	u64 phase_ns;		/* a time at which angle 0 is under the heads */
	u32 heads;		/* recording surfaces */
	u32 nr_zones;
	struct ew_zone zones[EW_DISK_MAX_ZONES];	/* outermost first */
	/*
	 * Seek: 0 for d = 0; single_cyl_ns for d = 1; seek_a_ns +
	 * seek_b_ns * sqrt(d) for d < seek_boundary; seek_c_ns + seek_e_ns * d
	 * beyond.  seek_b_ns is per sqrt(cylinder), seek_e_ns per cylinder.
	 */
	u32 single_cyl_ns;
	u32 seek_a_ns;
	u32 seek_b_ns;
	u32 seek_boundary;
	u32 seek_c_ns;
	u32 seek_e_ns;
	u32 head_switch_ns;	/* same cylinder, other surface */
	u32 write_settle_ns;	/* extra settle before a write */
	u32 overhead_ns;	/* controller overhead per request */
};

/* A disk: parameters plus values derived from them and the device size. */
struct ew_disk {
	struct ew_disk_params p;
	u64 nr_sectors;		/* device size the model covers */
	/*
	 * Where a layout's block 0 lies on the device (the sectors before
	 * it hold a label): block b of block_sectors is at LBA data_lba +
	 * b * block_sectors (ew_disk_block_lba).  0 after ew_disk_init();
	 * the free map and the placement address blocks through it, so the
	 * model's tracks are the device's, not shifted by the label.
	 */
	u64 data_lba;
	u32 nr_cylinders;	/* total, last zone extended to cover the device */
	u32 zone_cyl[EW_DISK_MAX_ZONES + 1];	/* first cylinder of each zone */
	u64 zone_lba[EW_DISK_MAX_ZONES + 1];	/* first LBA of each zone */
	u32 zone_cylinders[EW_DISK_MAX_ZONES];	/* effective (last extended) */
	/* zones the device reaches; those past it have no cylinders */
	u32 nr_zones;
};

/* Where a sector lies. */
struct ew_pos {
	u32 cyl;
	u32 head;
	u32 sector;		/* index within its track */
	u32 spt;		/* sectors on this track */
	u32 zone;
};

/*
 * The predictor's state for one disk: where the arm is and when the disk
 * finishes the work already sent to it.
 */
struct ew_head {
	u32 cyl;
	u32 head;
	u64 free_at_ns;		/* predicted completion of queued work */
	/*
	 * Requests sent with ew_head_issue() and not yet retired.  While
	 * some are, cyl and head are where the last one sent leaves the
	 * arm (the tail of the disk's queue), not where the last completed
	 * one did.
	 */
	u32 inflight;
};

/* A predicted access, broken down. */
struct ew_access {
	u64 start_ns;		/* when the disk starts this request */
	u64 seek_ns;		/* overhead + seek/switch + settle */
	u64 rot_ns;		/* rotational wait */
	u64 xfer_ns;		/* media transfer */
	u64 total_ns;		/* seek + rot + xfer */
	u64 end_ns;		/* start + total */
};

void ew_disk_params_default(struct ew_disk_params *p);
/* Checks the parameters; returns 0 or -EINVAL and a static reason. */
int ew_disk_params_check(const struct ew_disk_params *p, const char **why);
/* Sectors in the whole tracks of the zones. */
u64 ew_disk_params_sectors(const struct ew_disk_params *p);
/*
 * Optional, before ew_disk_init() for a device larger than the model:
 * raise the sectors per track (and surfaces, past 65,535 a track) so the
 * model's cylinders hold nr_sectors, instead of ew_disk_init() extending
 * the last zone inwards (which on a 1 TiB device makes a million
 * cylinders and second-long full-stroke seeks).  0, or -EINVAL/-EFBIG.
 */
int ew_disk_params_fit(struct ew_disk_params *p, u64 nr_sectors);
/* Builds the model for a device of nr_sectors (zones extended/truncated). */
int ew_disk_init(struct ew_disk *d, const struct ew_disk_params *p,
		 u64 nr_sectors);

u32 ew_disk_nr_tracks(const struct ew_disk *d);

/* The device LBA of a layout block (see data_lba). */
static inline u64 ew_disk_block_lba(const struct ew_disk *d, u64 block,
				    u32 block_sectors)
{
	return d->data_lba + block * block_sectors;
}

void ew_disk_lba_to_pos(const struct ew_disk *d, u64 lba, struct ew_pos *pos);
u64 ew_disk_track_first_lba(const struct ew_disk *d, u32 track);
u32 ew_disk_track_spt(const struct ew_disk *d, u32 track);
static inline u32 ew_disk_track_of(const struct ew_disk *d,
				   const struct ew_pos *pos)
{
	return pos->cyl * d->p.heads + pos->head;
}

/* Rotation, in ns of rotation within [0, rotation_ns). */
u64 ew_disk_angle_at(const struct ew_disk *d, u64 t_ns);
u64 ew_disk_sector_angle(const struct ew_disk *d, const struct ew_pos *pos);
u64 ew_disk_seek_ns(const struct ew_disk *d, u32 from_cyl, u32 to_cyl);
/* Least seek time over all distances >= dist (the curve may dip). */
u64 ew_disk_seek_lower_bound(const struct ew_disk *d, u32 dist);
/*
 * The first sector of pos's track (pos->sector ignored) whose start
 * passes under the head at or after the given angle.
 */
u32 ew_disk_first_sector_after(const struct ew_disk *d,
			       const struct ew_pos *pos, u64 angle);

/*
 * Predicted service of [lba, lba + nsect) from head h, the disk starting
 * at max(now_ns, h->free_at_ns).  Pure: h is not changed.  Positioning is
 * overhead + seek (other cylinder) or head switch (other surface), plus
 * the write settle for every write; then the rotational wait for the
 * first sector; a transfer running off a track adds the switch to the
 * next track and the wait for its sector 0 (the skew).
 */
void ew_disk_predict(const struct ew_disk *d, const struct ew_head *h,
		     u64 now_ns, u64 lba, u32 nsect, bool write,
		     struct ew_access *a);
/*
 * A request completed at end_ns: the arm is where its last sector was,
 * and the disk is busy until at least end_ns (free_at_ns never goes back:
 * work queued behind the request may end later).
 */
void ew_head_complete(const struct ew_disk *d, struct ew_head *h,
		      u64 lba, u32 nsect, u64 end_ns);

/*
 * For a caller that sends a request to the disk at once, while earlier
 * ones may still be queued there (the target: members serve what they
 * are sent in order), instead of holding it until the disk is idle (the
 * simulator).  The request predicted to end at end_ns was sent: the
 * next request starts behind it, from where it leaves the arm, so the
 * arm moves now, not at the completion.  Every issued request is retired
 * once, with its completion time.
 */
void ew_head_issue(const struct ew_disk *d, struct ew_head *h,
		   u64 lba, u32 nsect, u64 end_ns);
/*
 * An issued request completed at end_ns.  Others still in flight: the
 * disk is busy until at least end_ns and the arm stays at the queue's
 * tail.  None: the disk is idle from end_ns with the arm where this
 * request left it, whatever the prediction said (a request predicted to
 * end later than it did does not hold the next one back).
 */
void ew_head_retire(const struct ew_disk *d, struct ew_head *h,
		    u64 lba, u32 nsect, u64 end_ns);

#endif /* EW_DISK_H */
