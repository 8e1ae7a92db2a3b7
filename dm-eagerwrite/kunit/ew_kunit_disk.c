// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_kunit_disk.c - KUnit suite dm_eagerwrite_disk: the disk model and
 * head-position predictor of core/ew_disk.h.
 *
 * Most cases use a small crafted disk whose numbers are easy to follow by
 * hand: 10,000 RPM (6 ms a turn), 2 surfaces, zone 0 of 10 cylinders x
 * 100 sectors (60 us a sector), zone 1 of 10 cylinders x 60 sectors
 * (100 us a sector).  Every expected value is worked out in the comments
 * from the conventions written in ew_disk.h and ew_disk.c's header (LBAs
 * fill a cylinder surface by surface; sector s of a track sits at slot
 * (s + skew) mod spt, the skew summed from the first track of its zone).
 * The defaults are checked against the Cheetah 9LP figures of
 * REFERENCE.md section 3.
 */
#include <kunit/test.h>

#include "../core/ew_disk.h"
#include "ew_kunit_util.h"

#define US	1000ULL
#define MS	1000000ULL

/* Zone 0: 2 x 100 = 200 sectors a cylinder, 2000 in all; zone 1: 1200. */
#define SMALL_SECTORS	3200

static struct ew_disk *ew_small_disk(struct kunit *test, u64 nr_sectors)
{
	struct ew_disk *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct ew_disk_params p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	ew_small_params(&p);
	KUNIT_ASSERT_EQ(test, ew_disk_init(d, &p, nr_sectors), 0);
	return d;
}

static void ew_disk_small_shape(struct kunit *test)
{
	struct ew_disk *d = ew_small_disk(test, SMALL_SECTORS);
	u32 t;

	KUNIT_EXPECT_EQ(test, d->nr_sectors, (u64)SMALL_SECTORS);
	KUNIT_EXPECT_EQ(test, d->nr_cylinders, 20U);
	KUNIT_EXPECT_EQ(test, d->nr_zones, 2U);
	KUNIT_EXPECT_EQ(test, d->zone_cyl[1], 10U);
	KUNIT_EXPECT_EQ(test, d->zone_lba[1], 2000ULL);
	KUNIT_EXPECT_EQ(test, ew_disk_nr_tracks(d), 40U);
	for (t = 0; t < 40; t++) {
		u64 first = t < 20 ? t * 100 : 2000 + (t - 20) * 60;

		KUNIT_EXPECT_EQ_MSG(test, ew_disk_track_first_lba(d, t), first,
				    "track %u", t);
		KUNIT_EXPECT_EQ_MSG(test, ew_disk_track_spt(d, t),
				    t < 20 ? 100U : 60U, "track %u", t);
	}
}

struct ew_lba_case {
	u64 lba;
	u32 cyl, head, sector, spt, zone;
};

static const struct ew_lba_case ew_lba_cases[] = {
	{ 0, 0, 0, 0, 100, 0 },
	{ 99, 0, 0, 99, 100, 0 },
	{ 100, 0, 1, 0, 100, 0 },
	{ 250, 1, 0, 50, 100, 0 },	/* 200 a cylinder */
	{ 1999, 9, 1, 99, 100, 0 },
	{ 2000, 10, 0, 0, 60, 1 },	/* zone 1: 120 a cylinder */
	{ 2065, 10, 1, 5, 60, 1 },
	{ 2430, 13, 1, 10, 60, 1 },	/* 2000 + 3 * 120 + 60 + 10 */
	{ 3199, 19, 1, 59, 60, 1 },
};

static void ew_lba_case_desc(const struct ew_lba_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "lba %llu", c->lba);
}

KUNIT_ARRAY_PARAM(ew_lba, ew_lba_cases, ew_lba_case_desc);

static void ew_disk_lba_pos(struct kunit *test)
{
	const struct ew_lba_case *c = test->param_value;
	struct ew_disk *d = ew_small_disk(test, SMALL_SECTORS);
	struct ew_pos pos;

	ew_disk_lba_to_pos(d, c->lba, &pos);
	KUNIT_EXPECT_EQ(test, pos.cyl, c->cyl);
	KUNIT_EXPECT_EQ(test, pos.head, c->head);
	KUNIT_EXPECT_EQ(test, pos.sector, c->sector);
	KUNIT_EXPECT_EQ(test, pos.spt, c->spt);
	KUNIT_EXPECT_EQ(test, pos.zone, c->zone);
	KUNIT_EXPECT_EQ(test, ew_disk_track_of(d, &pos), c->cyl * 2 + c->head);
}

/* Every LBA, in order, against a walk of the zone table. */
static void ew_disk_lba_walk(struct kunit *test)
{
	struct ew_disk *d = ew_small_disk(test, SMALL_SECTORS);
	u32 cyl = 0, head = 0, sector = 0;
	struct ew_pos pos;
	u64 lba;

	for (lba = 0; lba < SMALL_SECTORS; lba++) {
		u32 spt = cyl < 10 ? 100 : 60;

		ew_disk_lba_to_pos(d, lba, &pos);
		KUNIT_ASSERT_EQ_MSG(test, pos.cyl, cyl, "lba %llu", lba);
		KUNIT_ASSERT_EQ_MSG(test, pos.head, head, "lba %llu", lba);
		KUNIT_ASSERT_EQ_MSG(test, pos.sector, sector, "lba %llu", lba);
		KUNIT_ASSERT_EQ_MSG(test, pos.spt, spt, "lba %llu", lba);
		if (++sector == spt) {
			sector = 0;
			if (++head == 2) {
				head = 0;
				cyl++;
			}
		}
	}
}

/*
 * Skew: zone 0 adds (2 - 1) * 10 + 20 = 30 slots a cylinder and 10 a
 * head; zone 1 adds 5 + 7 = 12 a cylinder and 5 a head, from 0 again at
 * its first track.  Slot k is at k * 60 us (zone 0), k * 100 us (zone 1).
 */
struct ew_angle_case {
	u64 lba;
	u64 angle;
};

static const struct ew_angle_case ew_angle_cases[] = {
	{ 5, 300 * US },		/* c0 h0 s5: slot 5 */
	{ 195, 300 * US },		/* c0 h1 s95: slot 105 % 100 */
	{ 200, 1800 * US },		/* c1 h0 s0: slot 30 */
	{ 307, 2820 * US },		/* c1 h1 s7: slot 30+10+7 = 47 */
	{ 707, 420 * US },		/* c3 h1 s7: slot 3*30+10+7 = 107 */
	{ 2059, 5900 * US },		/* c10 h0 s59: zone 1 slot 59 */
	{ 2340, 900 * US },		/* c12 h1 s40: 24+5+40 = 69 % 60 */
};

static void ew_angle_case_desc(const struct ew_angle_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "lba %llu", c->lba);
}

KUNIT_ARRAY_PARAM(ew_angle, ew_angle_cases, ew_angle_case_desc);

static void ew_disk_sector_angles(struct kunit *test)
{
	const struct ew_angle_case *c = test->param_value;
	struct ew_disk *d = ew_small_disk(test, SMALL_SECTORS);
	struct ew_pos pos;

	ew_disk_lba_to_pos(d, c->lba, &pos);
	KUNIT_EXPECT_EQ(test, ew_disk_sector_angle(d, &pos), c->angle);
}

static void ew_disk_rotation(struct kunit *test)
{
	struct ew_disk *d = ew_small_disk(test, SMALL_SECTORS);
	struct ew_pos pos;

	KUNIT_EXPECT_EQ(test, ew_disk_angle_at(d, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, ew_disk_angle_at(d, 7500 * US), 1500 * US);
	KUNIT_EXPECT_EQ(test, ew_disk_angle_at(d, 6 * MS * 1000 + 1), 1ULL);
	/* Angle 0 at 1 ms: before it the platter is 5 ms into the turn. */
	d->p.phase_ns = 1 * MS;
	KUNIT_EXPECT_EQ(test, ew_disk_angle_at(d, 1 * MS), 0ULL);
	KUNIT_EXPECT_EQ(test, ew_disk_angle_at(d, 0), 5 * MS);
	KUNIT_EXPECT_EQ(test, ew_disk_angle_at(d, 7500 * US), 500 * US);
	d->p.phase_ns = 0;

	/* First sector at or after an angle: c0 h0, no skew, 60 us slots. */
	ew_disk_lba_to_pos(d, 0, &pos);
	KUNIT_EXPECT_EQ(test, ew_disk_first_sector_after(d, &pos, 300 * US), 5U);
	KUNIT_EXPECT_EQ(test, ew_disk_first_sector_after(d, &pos, 300 * US + 1),
			6U);
	KUNIT_EXPECT_EQ(test, ew_disk_first_sector_after(d, &pos, 0), 0U);
	/* Past slot 99 (5.94 ms) the next start is slot 0 of the next turn. */
	KUNIT_EXPECT_EQ(test, ew_disk_first_sector_after(d, &pos, 5990 * US),
			0U);
	/* c1 h0: skew 30, so slot 0 holds sector 70. */
	ew_disk_lba_to_pos(d, 200, &pos);
	KUNIT_EXPECT_EQ(test, ew_disk_first_sector_after(d, &pos, 0), 70U);
	KUNIT_EXPECT_EQ(test, ew_disk_first_sector_after(d, &pos, 1800 * US),
			0U);
}

/* floor(b * sqrt(d)) without the implementation's help. */
static u64 ew_b_sqrt(u64 b, u64 dist)
{
	return ew_isqrt64(b * b * dist);
}

static void ew_disk_seek_curve(struct kunit *test)
{
	struct ew_disk *d = ew_small_disk(test, SMALL_SECTORS);
	u32 dist;

	KUNIT_EXPECT_EQ(test, ew_disk_seek_ns(d, 7, 7), 0ULL);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_ns(d, 0, 1), 1 * MS);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_ns(d, 1, 0), 1 * MS);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_ns(d, 0, 4), 1700 * US);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_ns(d, 12, 8), 1700 * US);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_ns(d, 0, 9), 2450 * US);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_ns(d, 0, 16), 2800 * US);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_ns(d, 19, 0), 2950 * US);
	/*
	 * Between perfect squares: a + b * sqrt(d) within 16 ns (integer
	 * square roots; b * floor(sqrt(d)) would be 41 us off at d = 2).
	 */
	for (dist = 2; dist < 9; dist++) {
		u64 want = 1500 * US + ew_b_sqrt(100 * US, dist);
		u64 got = ew_disk_seek_ns(d, 3, 3 + dist);

		KUNIT_EXPECT_LE_MSG(test, got, want + 16, "d=%u", dist);
		KUNIT_EXPECT_GE_MSG(test, got, want - 16, "d=%u", dist);
	}
	/* This curve only rises: the bound is the seek itself. */
	KUNIT_EXPECT_EQ(test, ew_disk_seek_lower_bound(d, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_lower_bound(d, 1), 1 * MS);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_lower_bound(d, 9), 2450 * US);
}

/*
 * A curve that dips at the boundary: 1.5 ms + 0.1 ms * sqrt(d) below 9
 * cylinders (1.7828 ms at 8), 1 ms + 0.05 ms * d from 9 (1.45 ms at 9).
 */
static void ew_disk_seek_dip(struct kunit *test)
{
	struct ew_disk *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct ew_disk_params p;
	u32 dist;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	ew_small_params(&p);
	p.seek_c_ns = 1 * MS;
	KUNIT_ASSERT_EQ(test, ew_disk_init(d, &p, SMALL_SECTORS), 0);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_ns(d, 0, 9), 1450 * US);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_lower_bound(d, 1), 1 * MS);
	for (dist = 2; dist <= 9; dist++)
		KUNIT_EXPECT_EQ_MSG(test, ew_disk_seek_lower_bound(d, dist),
				    1450 * US, "d=%u", dist);
	KUNIT_EXPECT_EQ(test, ew_disk_seek_lower_bound(d, 10), 1500 * US);
	/* Never above the seek at that distance, for any distance. */
	for (dist = 0; dist < 20; dist++)
		KUNIT_EXPECT_LE_MSG(test, ew_disk_seek_lower_bound(d, dist),
				    ew_disk_seek_ns(d, 0, dist), "d=%u", dist);
}

struct ew_predict_case {
	const char *name;
	u32 cyl, head;		/* arm */
	u64 free_at, now, phase;
	u64 lba;
	u32 nsect;
	bool write;
	u64 start, seek, rot, total;	/* rot = ~0: not checked */
};

#define ANY	(~0ULL)

static const struct ew_predict_case ew_predict_cases[] = {
	/* Overhead 0.1 ms: angle 0.1 ms; sector 5 at 0.3 ms; 60 us. */
	{ "read same track", 0, 0, 0, 0, 0, 5, 1, false,
	  0, 100 * US, 200 * US, 360 * US },
	/* + settle 0.2 ms: angle 0.3 ms, exactly at sector 5. */
	{ "write same track", 0, 0, 0, 0, 0, 5, 1, true,
	  0, 300 * US, 0, 360 * US },
	/* Sector 4 (0.24 ms) just missed: a whole turn less 60 us. */
	{ "write just missed", 0, 0, 0, 0, 0, 4, 1, true,
	  0, 300 * US, 5940 * US, 6300 * US },
	/* c1 h0 s50: slot 80 (4.8 ms); 0.1 + 1 ms seek. */
	{ "one cylinder", 0, 0, 0, 0, 0, 250, 1, false,
	  0, 1100 * US, 3700 * US, 4860 * US },
	/* c0 h1 s50: slot 60 (3.6 ms); 0.1 + 0.5 ms head switch. */
	{ "head switch", 0, 0, 0, 0, 0, 150, 1, false,
	  0, 600 * US, 3000 * US, 3660 * US },
	/* c13 h1 s10: slot 3*12+5+10 = 51 (5.1 ms); seek 13 = 2.65 ms. */
	{ "long seek into zone 1", 0, 0, 0, 0, 0, 2430, 1, false,
	  0, 2750 * US, 2350 * US, 5200 * US },
	/* The disk is busy until 2.5 ms: positioned at 2.6 ms. */
	{ "queued behind work", 0, 0, 2500 * US, 1 * MS, 0, 5, 1, false,
	  2500 * US, 100 * US, 3700 * US, 3860 * US },
	/* Idle, issued at 7 ms: positioned at 7.1 ms = angle 1.1 ms. */
	{ "issued later", 0, 0, 2500 * US, 7 * MS, 0, 5, 1, false,
	  7 * MS, 100 * US, 5200 * US, 5360 * US },
	/* Phase 1 ms: at 0.1 ms the angle is 5.1 ms. */
	{ "rotational phase", 0, 0, 0, 0, 1 * MS, 5, 1, false,
	  0, 100 * US, 1200 * US, 1360 * US },
	{ "ten sectors", 0, 0, 0, 0, 0, 5, 10, false,
	  0, 100 * US, 200 * US, 900 * US },
	/*
	 * Sectors 95..99 of c0 h0 (slot 95, 5.7 ms) then 0..4 of c0 h1:
	 * at 6 ms the switch starts, its sector 0 is slot 10 (0.6 ms):
	 * 6 + 0.6 + 0.3 ms.
	 */
	{ "crossing a track", 0, 0, 0, 0, 0, 95, 10, false,
	  0, 100 * US, ANY, 6900 * US },
};

static void ew_predict_case_desc(const struct ew_predict_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_predict, ew_predict_cases, ew_predict_case_desc);

static void ew_disk_predictions(struct kunit *test)
{
	const struct ew_predict_case *c = test->param_value;
	struct ew_disk *d = ew_small_disk(test, SMALL_SECTORS);
	struct ew_head h = { .cyl = c->cyl, .head = c->head,
			     .free_at_ns = c->free_at };
	struct ew_head before = h;
	struct ew_access a;

	d->p.phase_ns = c->phase;
	memset(&a, 0xa5, sizeof(a));
	ew_disk_predict(d, &h, c->now, c->lba, c->nsect, c->write, &a);
	KUNIT_EXPECT_EQ(test, a.start_ns, c->start);
	KUNIT_EXPECT_EQ(test, a.seek_ns, c->seek);
	if (c->rot != ANY)
		KUNIT_EXPECT_EQ(test, a.rot_ns, c->rot);
	KUNIT_EXPECT_EQ(test, a.total_ns, c->total);
	KUNIT_EXPECT_EQ(test, a.seek_ns + a.rot_ns + a.xfer_ns, a.total_ns);
	KUNIT_EXPECT_EQ(test, a.end_ns, c->start + c->total);
	/* Pure: the head state is not touched. */
	KUNIT_EXPECT_EQ(test, h.cyl, before.cyl);
	KUNIT_EXPECT_EQ(test, h.head, before.head);
	KUNIT_EXPECT_EQ(test, h.free_at_ns, before.free_at_ns);
}

static void ew_disk_head_complete(struct kunit *test)
{
	struct ew_disk *d = ew_small_disk(test, SMALL_SECTORS);
	struct ew_head h = { .cyl = 0, .head = 0, .free_at_ns = 0 };
	struct ew_access a;

	/* 95..104 ends on c0 h1: the arm stays there. */
	ew_head_complete(d, &h, 95, 10, 6900 * US);
	KUNIT_EXPECT_EQ(test, h.cyl, 0U);
	KUNIT_EXPECT_EQ(test, h.head, 1U);
	KUNIT_EXPECT_GE(test, h.free_at_ns, 6900 * US);

	/* From there, c0 h1 s0 (slot 10, 0.6 ms) is a same-track read. */
	ew_disk_predict(d, &h, 12 * MS, 100, 1, false, &a);
	KUNIT_EXPECT_EQ(test, a.seek_ns, 100 * US);
	KUNIT_EXPECT_EQ(test, a.rot_ns, 500 * US);

	/* Work queued behind it keeps the disk busy: free_at never goes back. */
	h.free_at_ns = 20 * MS;
	ew_head_complete(d, &h, 2430, 1, 15 * MS);
	KUNIT_EXPECT_EQ(test, h.cyl, 13U);
	KUNIT_EXPECT_EQ(test, h.head, 1U);
	KUNIT_EXPECT_EQ(test, h.free_at_ns, 20 * MS);
}

/* A device shorter or longer than the zone table. */
static void ew_disk_sizes(struct kunit *test)
{
	struct ew_disk *d;
	struct ew_pos pos;

	/* 1000 sectors: 5 cylinders of zone 0 only. */
	d = ew_small_disk(test, 1000);
	KUNIT_EXPECT_EQ(test, d->nr_cylinders, 5U);
	KUNIT_EXPECT_EQ(test, d->nr_zones, 1U);

	/* 2100 sectors: 100 into zone 1, ending on cylinder 10 head 1. */
	d = ew_small_disk(test, 2100);
	KUNIT_EXPECT_EQ(test, d->nr_cylinders, 11U);
	KUNIT_EXPECT_EQ(test, d->nr_zones, 2U);
	ew_disk_lba_to_pos(d, 2099, &pos);
	KUNIT_EXPECT_EQ(test, pos.cyl, 10U);
	KUNIT_EXPECT_EQ(test, pos.head, 1U);
	KUNIT_EXPECT_EQ(test, pos.sector, 39U);

	/* 3440 sectors: zone 1 extended by two cylinders. */
	d = ew_small_disk(test, 3440);
	KUNIT_EXPECT_EQ(test, d->nr_cylinders, 22U);
	KUNIT_EXPECT_EQ(test, d->zone_cylinders[1], 12U);
	ew_disk_lba_to_pos(d, 3439, &pos);
	KUNIT_EXPECT_EQ(test, pos.cyl, 21U);
	KUNIT_EXPECT_EQ(test, pos.head, 1U);
	KUNIT_EXPECT_EQ(test, pos.sector, 59U);
	KUNIT_EXPECT_EQ(test, pos.spt, 60U);
}

struct ew_bad_disk {
	const char *name;
	void (*spoil)(struct ew_disk_params *p);
};

static void spoil_rotation(struct ew_disk_params *p)
{
	p->rotation_ns = 0;
}

static void spoil_heads(struct ew_disk_params *p)
{
	p->heads = 0;
}

static void spoil_zones0(struct ew_disk_params *p)
{
	p->nr_zones = 0;
}

static void spoil_zones33(struct ew_disk_params *p)
{
	p->nr_zones = EW_DISK_MAX_ZONES + 1;
}

static void spoil_spt(struct ew_disk_params *p)
{
	p->zones[1].spt = 0;
}

static void spoil_cyls(struct ew_disk_params *p)
{
	p->zones[0].cylinders = 0;
}

static void spoil_skew(struct ew_disk_params *p)
{
	p->zones[1].track_skew = 60;
}

static const struct ew_bad_disk ew_bad_disks[] = {
	{ "rotation 0", spoil_rotation },
	{ "no heads", spoil_heads },
	{ "no zones", spoil_zones0 },
	{ "33 zones", spoil_zones33 },
	{ "zone without sectors", spoil_spt },
	{ "zone without cylinders", spoil_cyls },
	{ "skew of a whole track", spoil_skew },
};

static void ew_bad_disk_desc(const struct ew_bad_disk *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_bad_disk, ew_bad_disks, ew_bad_disk_desc);

static void ew_disk_bad_params(struct kunit *test)
{
	const struct ew_bad_disk *c = test->param_value;
	struct ew_disk *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct ew_disk_params p;
	const char *why = NULL;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	ew_small_params(&p);
	KUNIT_ASSERT_EQ(test, ew_disk_params_check(&p, &why), 0);
	c->spoil(&p);
	KUNIT_EXPECT_EQ(test, ew_disk_params_check(&p, &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
	KUNIT_EXPECT_EQ(test, ew_disk_init(d, &p, SMALL_SECTORS), -EINVAL);
}

/*
 * The defaults: a Cheetah 9LP ST39102 (REFERENCE.md section 3): 10,045
 * RPM, 12 surfaces, 6,962 cylinders in 11 zones of 254 down to 167
 * sectors a track, single-cylinder seek 0.831 ms, full stroke 10.627 ms
 * (the fit is within 0.34 ms), mean seek over random pairs about 5.5 ms.
 */
static void ew_disk_cheetah_defaults(struct kunit *test)
{
	struct ew_disk *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct ew_disk_params p;
	const char *why = NULL;
	u64 sectors = 0, sum = 0, full, n, dist;
	u32 i, cyls = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	ew_disk_params_default(&p);
	KUNIT_EXPECT_EQ(test, ew_disk_params_check(&p, &why), 0);
	/* 60e9 / 10,045 = 5,973,120.96 ns */
	KUNIT_EXPECT_GE(test, p.rotation_ns, 5973120ULL);
	KUNIT_EXPECT_LE(test, p.rotation_ns, 5973121ULL);
	KUNIT_EXPECT_EQ(test, p.heads, 12U);
	KUNIT_ASSERT_EQ(test, p.nr_zones, 11U);
	KUNIT_EXPECT_EQ(test, p.zones[0].spt, 254U);
	KUNIT_EXPECT_EQ(test, p.zones[10].spt, 167U);
	for (i = 0; i < p.nr_zones; i++) {
		cyls += p.zones[i].cylinders;
		sectors += (u64)p.zones[i].cylinders * 12 * p.zones[i].spt;
		if (i)
			KUNIT_EXPECT_LT(test, p.zones[i].spt,
					p.zones[i - 1].spt);
	}
	KUNIT_EXPECT_EQ(test, cyls, 6962U);
	/* The drive's 17,783,240 sectors fit in the zone table. */
	KUNIT_EXPECT_GE(test, sectors, 17783240ULL);

	KUNIT_ASSERT_EQ(test, ew_disk_init(d, &p, 17783240), 0);
	KUNIT_EXPECT_EQ(test, d->nr_cylinders, 6962U);
	KUNIT_EXPECT_EQ(test, d->nr_zones, 11U);

	dist = ew_disk_seek_ns(d, 0, 1);
	KUNIT_EXPECT_GE(test, dist, 800 * US);
	KUNIT_EXPECT_LE(test, dist, 870 * US);
	full = ew_disk_seek_ns(d, 0, 6961);
	KUNIT_EXPECT_GE(test, full, 10627 * US - 340 * US);
	KUNIT_EXPECT_LE(test, full, 10627 * US + 340 * US);

	/* Mean over random pairs: distance d has weight 2 (N - d) / N^2. */
	n = 6962;
	for (dist = 1; dist < n; dist++)
		sum += 2 * (n - dist) * ew_disk_seek_ns(d, 0, dist);
	sum = div64_u64(sum, n * n);
	KUNIT_EXPECT_GE(test, sum, 5 * MS);
	KUNIT_EXPECT_LE(test, sum, 6 * MS);
}

static struct kunit_case ew_disk_cases[] = {
	KUNIT_CASE(ew_disk_small_shape),
	KUNIT_CASE_PARAM(ew_disk_lba_pos, ew_lba_gen_params),
	KUNIT_CASE(ew_disk_lba_walk),
	KUNIT_CASE_PARAM(ew_disk_sector_angles, ew_angle_gen_params),
	KUNIT_CASE(ew_disk_rotation),
	KUNIT_CASE(ew_disk_seek_curve),
	KUNIT_CASE(ew_disk_seek_dip),
	KUNIT_CASE_PARAM(ew_disk_predictions, ew_predict_gen_params),
	KUNIT_CASE(ew_disk_head_complete),
	KUNIT_CASE(ew_disk_sizes),
	KUNIT_CASE_PARAM(ew_disk_bad_params, ew_bad_disk_gen_params),
	KUNIT_CASE(ew_disk_cheetah_defaults),
	{}
};

static struct kunit_suite ew_disk_suite = {
	.name = "dm_eagerwrite_disk",
	.test_cases = ew_disk_cases,
};

kunit_test_suite(ew_disk_suite);
