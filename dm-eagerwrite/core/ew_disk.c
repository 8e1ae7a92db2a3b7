// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_disk.c - disk model and head-position predictor.
 *
 * Owns the mapping from LBA to (cylinder, surface, sector), the angle at
 * which each sector passes under the heads (zoned recording plus track
 * and cylinder skew), the seek curve and the access-time prediction that
 * eager writing and read scheduling are built on.  Integer arithmetic
 * only, so the kernel and the userspace tools predict identical times.
 *
 * Layout conventions (see Documentation/core.rst):
 *  - LBAs fill a cylinder surface by surface (head 0 first), cylinders
 *    from the outermost (cylinder 0) inwards, zone after zone.
 *  - Sector s of a track starts at physical slot (s + skew) mod spt, slot
 *    k at angle k * rotation / spt.  The skew of a track is the sum of
 *    the track skews and cylinder skews since the first track of its zone
 *    (the first track of every zone starts at angle 0).
 */
#include "ew_disk.h"

/*
 * Seagate Cheetah 9LP ST39102.  DiskSim's zone table for it was not
 * available to us: this is a reconstruction with the published totals
 * (11 zones, 254 down to 167 sectors per track, 6,962 cylinders, 12
 * surfaces).  The whole tracks hold 17,783,244 sectors, 4 more than the
 * drive's 17,783,240 (17,783,240 is not a multiple of 12 tracks of any
 * size: the drive keeps spares we do not model); a device of the real
 * size leaves the last 4 sectors of the last track unused.  Skews fall
 * linearly across the zones from 97 to 88 (track) and 133 to 80
 * (cylinder) sectors.
 */
static const struct ew_zone cheetah9lp_zones[] = {
	{ 537, 254, 97, 133 },
	{ 500, 247, 96, 128 },
	{ 540, 241, 95, 122 },
	{ 560, 234, 94, 117 },
	{ 600, 227, 93, 112 },
	{ 648, 220, 92, 106 },
	{ 640, 212, 92, 101 },
	{ 660, 203, 91, 96 },
	{ 700, 195, 90, 91 },
	{ 740, 184, 89, 85 },
	{ 837, 167, 88, 80 },
};

void ew_disk_params_default(struct ew_disk_params *p)
{
	u32 i;

	memset(p, 0, sizeof(*p));
	/* 60e9 / 10,045 RPM = 5,973,120.96 ns, rounded */
	p->rotation_ns = 5973121;
	p->phase_ns = 0;
	p->heads = 12;
	p->nr_zones = ARRAY_SIZE(cheetah9lp_zones);
	for (i = 0; i < p->nr_zones; i++)
		p->zones[i] = cheetah9lp_zones[i];
	/*
	 * Fit of the measured curve: 1.07 + 0.097 * sqrt(d) ms below 1,392
	 * cylinders, 3.12 + 0.00108 * d ms from there (full stroke 10.6 ms).
	 */
	p->single_cyl_ns = 831000;
	p->seek_a_ns = 1070000;
	p->seek_b_ns = 97000;
	p->seek_boundary = 1392;
	p->seek_c_ns = 3120000;
	p->seek_e_ns = 1080;
	/*
	 * DiskSim's 0.03 ms is not consistent with skews of 88 to 97
	 * sectors (over 2 ms of rotation); 0.8 ms is within the 0.5-1 ms
	 * usual for the drive's class and below every track skew, so a
	 * sequential transfer crossing a track waits for the skew only.
	 */
	p->head_switch_ns = 800000;
	p->write_settle_ns = 461000;
	p->overhead_ns = 900000;
}

#define EW_DISK_MAX_HEADS	1024
#define EW_DISK_MAX_ROTATION_NS	1000000000ULL	/* 60 RPM */
#define EW_DISK_MAX_TRACKS	0xffffffffULL	/* track numbers are u32 */

int ew_disk_params_check(const struct ew_disk_params *p, const char **why)
{
	u32 i;

	*why = NULL;
	if (!p->rotation_ns || p->rotation_ns > EW_DISK_MAX_ROTATION_NS) {
		*why = "rotation period must be 1 ns to 1 s";
		return -EINVAL;
	}
	if (!p->heads || p->heads > EW_DISK_MAX_HEADS) {
		*why = "heads must be 1 to 1024";
		return -EINVAL;
	}
	if (!p->nr_zones || p->nr_zones > EW_DISK_MAX_ZONES) {
		*why = "number of zones must be 1 to 32";
		return -EINVAL;
	}
	for (i = 0; i < p->nr_zones; i++) {
		const struct ew_zone *z = &p->zones[i];

		if (!z->cylinders) {
			*why = "a zone has no cylinders";
			return -EINVAL;
		}
		/* the free-block map counts a track's blocks in 16 bits */
		if (!z->spt || z->spt > 65535) {
			*why = "sectors per track must be 1 to 65535";
			return -EINVAL;
		}
		if (z->track_skew >= z->spt || z->cyl_skew >= z->spt) {
			*why = "a skew must be smaller than its track";
			return -EINVAL;
		}
	}
	if (!p->single_cyl_ns) {
		*why = "single-cylinder seek time must not be 0";
		return -EINVAL;
	}
	if (p->seek_boundary > 2 && !p->seek_a_ns && !p->seek_b_ns) {
		*why = "short-seek curve must not be 0";
		return -EINVAL;
	}
	if (!p->seek_c_ns && !p->seek_e_ns) {
		*why = "long-seek curve must not be 0";
		return -EINVAL;
	}
	return 0;
}

/* Sectors in the whole tracks of the parameters' zones. */
u64 ew_disk_params_sectors(const struct ew_disk_params *p)
{
	u64 sum = 0;
	u32 z;

	for (z = 0; z < p->nr_zones && z < EW_DISK_MAX_ZONES; z++)
		sum += (u64)p->zones[z].cylinders * p->zones[z].spt;
	return sum * p->heads;
}

/*
 * Denser recording instead of more cylinders: scales every zone's
 * sectors per track (and the skews with them, so that they keep their
 * time) until the disk holds nr_sectors, adding surfaces when a track
 * would exceed 65,535 sectors.  The arm, the seek curve and the rotation
 * stay those of the model: a disk of this size with the same mechanics.
 */
int ew_disk_params_fit(struct ew_disk_params *p, u64 nr_sectors)
{
	const char *why;
	u64 cap, spt, max_spt = 0;
	u32 z, k;
	int ret;

	ret = ew_disk_params_check(p, &why);
	if (ret)
		return ret;
	cap = ew_disk_params_sectors(p);
	if (cap >= nr_sectors)
		return 0;
	/* nr_sectors * 65535 must not overflow */
	if (nr_sectors >> 47)
		return -EFBIG;
	for (z = 0; z < p->nr_zones; z++) {
		spt = div64_u64(nr_sectors * p->zones[z].spt + cap - 1, cap);
		max_spt = max(max_spt, spt);
	}
	k = (u32)div64_u64(max_spt + 65534, 65535);
	if ((u64)p->heads * k > EW_DISK_MAX_HEADS)
		return -EFBIG;
	for (z = 0; z < p->nr_zones; z++) {
		struct ew_zone *zn = &p->zones[z];

		spt = div64_u64(nr_sectors * zn->spt + (u64)cap * k - 1,
				cap * k);
		zn->track_skew = (u32)div64_u64((u64)zn->track_skew * spt,
						zn->spt);
		zn->cyl_skew = (u32)div64_u64((u64)zn->cyl_skew * spt,
					      zn->spt);
		zn->spt = (u32)spt;
	}
	p->heads *= k;
	return 0;
}

int ew_disk_init(struct ew_disk *d, const struct ew_disk_params *p,
		 u64 nr_sectors)
{
	const char *why;
	u64 lba = 0, per_cyl, left, extra;
	u32 z, cyl = 0, cyls;
	int ret;

	ret = ew_disk_params_check(p, &why);
	if (ret)
		return ret;
	if (!nr_sectors)
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->p = *p;
	d->nr_sectors = nr_sectors;
	for (z = 0; z < p->nr_zones; z++) {
		per_cyl = (u64)p->zones[z].spt * p->heads;
		d->zone_cyl[z] = cyl;
		d->zone_lba[z] = lba;
		if (lba >= nr_sectors) {
			/* truncated: the device ends before this zone */
			d->zone_cylinders[z] = 0;
			continue;
		}
		left = nr_sectors - lba;
		cyls = p->zones[z].cylinders;
		if (left <= per_cyl * cyls) {
			/* smaller device: the model ends with it */
			cyls = (u32)div64_u64(left + per_cyl - 1, per_cyl);
		} else if (z == p->nr_zones - 1) {
			/* larger device: the last zone grows inwards */
			extra = div64_u64(left - per_cyl * cyls + per_cyl - 1,
					  per_cyl);
			if (extra > EW_DISK_MAX_TRACKS)
				return -EFBIG;
			cyls += (u32)extra;
		}
		if ((u64)cyl + cyls > EW_DISK_MAX_TRACKS / p->heads)
			return -EFBIG;
		d->zone_cylinders[z] = cyls;
		d->nr_zones = z + 1;
		cyl += cyls;
		lba += per_cyl * cyls;
	}
	d->zone_cyl[p->nr_zones] = cyl;
	d->zone_lba[p->nr_zones] = lba;
	d->nr_cylinders = cyl;
	return 0;
}

u32 ew_disk_nr_tracks(const struct ew_disk *d)
{
	return d->nr_cylinders * d->p.heads;
}

/* The zone of an LBA; LBAs past the model fall in the last zone used. */
static u32 zone_of_lba(const struct ew_disk *d, u64 lba)
{
	u32 z = d->nr_zones - 1;

	while (z && lba < d->zone_lba[z])
		z--;
	return z;
}

static u32 zone_of_cyl(const struct ew_disk *d, u32 cyl)
{
	u32 z = d->nr_zones - 1;

	while (z && cyl < d->zone_cyl[z])
		z--;
	return z;
}

void ew_disk_lba_to_pos(const struct ew_disk *d, u64 lba, struct ew_pos *pos)
{
	u32 z = zone_of_lba(d, lba);
	u32 spt = d->p.zones[z].spt;
	u64 track;

	track = div_u64_rem(lba - d->zone_lba[z], spt, &pos->sector);
	pos->spt = spt;
	pos->zone = z;
	pos->cyl = d->zone_cyl[z] + (u32)div_u64_rem(track, d->p.heads,
						     &pos->head);
}

u64 ew_disk_track_first_lba(const struct ew_disk *d, u32 track)
{
	u32 head, cyl = (u32)div_u64_rem(track, d->p.heads, &head);
	u32 z = zone_of_cyl(d, cyl);
	u64 t = (u64)(cyl - d->zone_cyl[z]) * d->p.heads + head;

	return d->zone_lba[z] + t * d->p.zones[z].spt;
}

u32 ew_disk_track_spt(const struct ew_disk *d, u32 track)
{
	return d->p.zones[zone_of_cyl(d, track / d->p.heads)].spt;
}

u64 ew_disk_angle_at(const struct ew_disk *d, u64 t_ns)
{
	u64 rot = d->p.rotation_ns, a, ph;

	div64_u64_rem(t_ns, rot, &a);
	div64_u64_rem(d->p.phase_ns, rot, &ph);
	return a >= ph ? a - ph : a + rot - ph;
}

/* Physical slot of sector 0 of the track at pos: the accumulated skew. */
static u32 track_skew_slot(const struct ew_disk *d, const struct ew_pos *pos)
{
	const struct ew_zone *z = &d->p.zones[pos->zone];
	u64 per_cyl = (u64)(d->p.heads - 1) * z->track_skew + z->cyl_skew;
	u32 rel = pos->cyl - d->zone_cyl[pos->zone], r;

	div_u64_rem(per_cyl, z->spt, &r);
	per_cyl = (u64)rel * r + (u64)pos->head * z->track_skew;
	div_u64_rem(per_cyl, z->spt, &r);
	return r;
}

static u64 slot_angle(const struct ew_disk *d, u32 slot, u32 spt)
{
	return mul_u64_u32_div(d->p.rotation_ns, slot, spt);
}

u64 ew_disk_sector_angle(const struct ew_disk *d, const struct ew_pos *pos)
{
	u32 slot = track_skew_slot(d, pos) + pos->sector;

	if (slot >= pos->spt)
		slot -= pos->spt;
	return slot_angle(d, slot, pos->spt);
}

/*
 * The first sector of the track at pos whose start passes under the head
 * at or after angle: the sector the head can begin with on arrival.
 */
u32 ew_disk_first_sector_after(const struct ew_disk *d,
			       const struct ew_pos *pos, u64 angle)
{
	u32 spt = pos->spt;
	u32 slot = (u32)mul_u64_u32_div(angle, spt, d->p.rotation_ns);
	u32 skew = track_skew_slot(d, pos);

	if (slot_angle(d, slot, spt) < angle)
		slot++;
	if (slot >= spt)
		slot -= spt;
	return slot >= skew ? slot - skew : slot + spt - skew;
}

u64 ew_disk_seek_ns(const struct ew_disk *d, u32 from_cyl, u32 to_cyl)
{
	const struct ew_disk_params *p = &d->p;
	u32 dist = from_cyl > to_cyl ? from_cyl - to_cyl : to_cyl - from_cyl;
	u64 root;

	if (!dist)
		return 0;
	if (dist == 1)
		return p->single_cyl_ns;
	if (dist < p->seek_boundary) {
		/* sqrt(dist) in 16.16 fixed point: dist << 32 fits in u64 */
		root = ew_isqrt64((u64)dist << 32);
		return p->seek_a_ns + mul_u64_u32_div(root, p->seek_b_ns,
						      1U << 16);
	}
	return p->seek_c_ns + (u64)p->seek_e_ns * dist;
}

/*
 * A lower bound of the seek time over every distance >= dist.  The fit's
 * two pieces need not meet (the default curve drops by 0.06 ms at the
 * boundary), so the seek time alone is not monotonic.
 */
u64 ew_disk_seek_lower_bound(const struct ew_disk *d, u32 dist)
{
	u64 v, w;

	if (!dist)
		return 0;
	v = ew_disk_seek_ns(d, 0, dist);
	if (dist < 2) {
		w = ew_disk_seek_ns(d, 0, 2);
		v = min(v, w);
	}
	if (dist < d->p.seek_boundary) {
		w = ew_disk_seek_ns(d, 0, d->p.seek_boundary);
		v = min(v, w);
	}
	return v;
}

/* Arm movement from h to pos: seek, head switch or nothing. */
static u64 arm_move_ns(const struct ew_disk *d, u32 cyl, u32 head,
		       const struct ew_pos *pos)
{
	if (cyl != pos->cyl)
		return ew_disk_seek_ns(d, cyl, pos->cyl);
	return head != pos->head ? d->p.head_switch_ns : 0;
}

static u64 rot_wait(const struct ew_disk *d, u64 at_ns, u64 angle)
{
	u64 now = ew_disk_angle_at(d, at_ns);

	return angle >= now ? angle - now : angle + d->p.rotation_ns - now;
}

/*
 * Transfer of nsect sectors from pos, the head being over pos's first
 * sector at t_ns.  A transfer that runs off the end of a track switches
 * to the next track (a head switch, or a single-cylinder seek from the
 * last surface) and then waits for that track's sector 0: with the
 * skews the drive was formatted with, that wait is the skew.
 */
static u64 transfer_ns(const struct ew_disk *d, struct ew_pos pos,
		       u32 nsect, u64 t_ns)
{
	u64 xfer = 0, sw;
	u32 n;

	for (;;) {
		n = min(nsect, pos.spt - pos.sector);
		xfer += mul_u64_u32_div(d->p.rotation_ns, n, pos.spt);
		nsect -= n;
		if (!nsect)
			return xfer;
		if (pos.head + 1 < d->p.heads) {
			pos.head++;
			sw = d->p.head_switch_ns;
		} else {
			pos.head = 0;
			pos.cyl++;
			sw = d->p.single_cyl_ns;
			if (pos.zone + 1 < d->nr_zones &&
			    pos.cyl >= d->zone_cyl[pos.zone + 1]) {
				pos.zone++;
				pos.spt = d->p.zones[pos.zone].spt;
			}
		}
		pos.sector = 0;
		xfer += sw;
		xfer += rot_wait(d, t_ns + xfer, ew_disk_sector_angle(d, &pos));
	}
}

void ew_disk_predict(const struct ew_disk *d, const struct ew_head *h,
		     u64 now_ns, u64 lba, u32 nsect, bool write,
		     struct ew_access *a)
{
	struct ew_pos pos;

	ew_disk_lba_to_pos(d, lba, &pos);
	a->start_ns = max(now_ns, h->free_at_ns);
	a->seek_ns = d->p.overhead_ns + arm_move_ns(d, h->cyl, h->head, &pos);
	if (write)
		a->seek_ns += d->p.write_settle_ns;
	a->rot_ns = rot_wait(d, a->start_ns + a->seek_ns,
			     ew_disk_sector_angle(d, &pos));
	a->xfer_ns = nsect ? transfer_ns(d, pos, nsect, a->start_ns +
					 a->seek_ns + a->rot_ns) : 0;
	a->total_ns = a->seek_ns + a->rot_ns + a->xfer_ns;
	a->end_ns = a->start_ns + a->total_ns;
}

/* The arm after [lba, lba + nsect): over its last sector. */
static void head_arm_to(const struct ew_disk *d, struct ew_head *h,
			u64 lba, u32 nsect)
{
	struct ew_pos pos;

	ew_disk_lba_to_pos(d, nsect ? lba + nsect - 1 : lba, &pos);
	h->cyl = pos.cyl;
	h->head = pos.head;
}

void ew_head_complete(const struct ew_disk *d, struct ew_head *h,
		      u64 lba, u32 nsect, u64 end_ns)
{
	head_arm_to(d, h, lba, nsect);
	/* work queued behind this request may end later still */
	h->free_at_ns = max(h->free_at_ns, end_ns);
}

void ew_head_issue(const struct ew_disk *d, struct ew_head *h,
		   u64 lba, u32 nsect, u64 end_ns)
{
	head_arm_to(d, h, lba, nsect);
	h->free_at_ns = max(h->free_at_ns, end_ns);
	h->inflight++;
}

void ew_head_retire(const struct ew_disk *d, struct ew_head *h,
		    u64 lba, u32 nsect, u64 end_ns)
{
	if (h->inflight)
		h->inflight--;
	if (h->inflight) {
		h->free_at_ns = max(h->free_at_ns, end_ns);
		return;
	}
	head_arm_to(d, h, lba, nsect);
	h->free_at_ns = end_ns;
}
