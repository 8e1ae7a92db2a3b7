// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_disk.c - the disk model and head predictor (ew_disk.c) against
 * hand-computed geometry, seek and access times.
 */
#include "ew_test_util.h"

static void toy_disk(struct ew_disk *d)
{
	struct ew_disk_params p;

	ew_test_toy_params(&p);
	assert_int_equal(ew_disk_init(d, &p, EW_TOY_SECTORS), 0);
}

static void default_disk(struct ew_disk *d, u64 sectors)
{
	struct ew_disk_params p;

	ew_disk_params_default(&p);
	assert_int_equal(ew_disk_init(d, &p, sectors), 0);
}

static void test_default_params(void **state)
{
	struct ew_disk_params p;
	const char *why;
	u64 sectors = 0;
	u32 z, cyls = 0;

	(void)state;
	ew_disk_params_default(&p);
	assert_int_equal(ew_disk_params_check(&p, &why), 0);
	/* 60e9 / 10045 = 5973120.96 */
	assert_int_equal(p.rotation_ns, 5973121);
	assert_int_equal(p.heads, 12);
	assert_int_equal(p.nr_zones, 11);
	assert_int_equal(p.zones[0].spt, 254);
	assert_int_equal(p.zones[10].spt, 167);
	assert_int_equal(p.zones[0].track_skew, 97);
	assert_int_equal(p.zones[10].track_skew, 88);
	assert_int_equal(p.zones[0].cyl_skew, 133);
	assert_int_equal(p.zones[10].cyl_skew, 80);
	for (z = 0; z < p.nr_zones; z++) {
		cyls += p.zones[z].cylinders;
		sectors += (u64)p.zones[z].cylinders * p.heads *
			   p.zones[z].spt;
		if (z)
			assert_true(p.zones[z].spt < p.zones[z - 1].spt);
	}
	assert_int_equal(cyls, 6962);
	/* whole tracks cover the drive's 17,783,240 sectors, within 1 track */
	assert_true(sectors >= 17783240);
	assert_true(sectors - 17783240 < 167);
}

static void test_params_check(void **state)
{
	struct ew_disk_params p, q;
	struct ew_disk d;
	const char *why;

	(void)state;
	ew_disk_params_default(&p);
	q = p; q.rotation_ns = 0;
	assert_int_equal(ew_disk_params_check(&q, &why), -EINVAL);
	assert_non_null(why);
	q = p; q.heads = 0;
	assert_int_equal(ew_disk_params_check(&q, &why), -EINVAL);
	q = p; q.nr_zones = 0;
	assert_int_equal(ew_disk_params_check(&q, &why), -EINVAL);
	q = p; q.nr_zones = EW_DISK_MAX_ZONES + 1;
	assert_int_equal(ew_disk_params_check(&q, &why), -EINVAL);
	q = p; q.zones[3].spt = 0;
	assert_int_equal(ew_disk_params_check(&q, &why), -EINVAL);
	q = p; q.zones[3].cylinders = 0;
	assert_int_equal(ew_disk_params_check(&q, &why), -EINVAL);
	q = p; q.zones[2].track_skew = q.zones[2].spt;
	assert_int_equal(ew_disk_params_check(&q, &why), -EINVAL);
	q = p; q.single_cyl_ns = 0;
	assert_int_equal(ew_disk_params_check(&q, &why), -EINVAL);
	assert_int_equal(ew_disk_init(&d, &q, 1000), -EINVAL);
	assert_int_equal(ew_disk_init(&d, &p, 0), -EINVAL);
}

static void test_seek_curve(void **state)
{
	struct ew_disk d;
	u64 s;

	(void)state;
	default_disk(&d, 17783240);
	assert_int_equal(ew_disk_seek_ns(&d, 10, 10), 0);
	assert_int_equal(ew_disk_seek_ns(&d, 10, 11), 831000);
	assert_int_equal(ew_disk_seek_ns(&d, 11, 10), 831000);
	/* 1.07 + 0.097 * sqrt(4) ms and sqrt(100) ms, exact */
	assert_int_equal(ew_disk_seek_ns(&d, 0, 4), 1264000);
	assert_int_equal(ew_disk_seek_ns(&d, 100, 0), 2040000);
	/* 1.07 + 0.097 * sqrt(1391) = 4.6877229 ms (to 1 ns) */
	s = ew_disk_seek_ns(&d, 0, 1391);
	assert_in_range(s, 4687722, 4687723);
	/* 3.12 + 0.00108 * d ms from the boundary on */
	assert_int_equal(ew_disk_seek_ns(&d, 0, 1392), 4623360);
	assert_int_equal(ew_disk_seek_ns(&d, 6961, 0), 10637880);
	/* symmetric */
	assert_int_equal(ew_disk_seek_ns(&d, 3000, 500),
			 ew_disk_seek_ns(&d, 500, 3000));
}

static void test_seek_lower_bound(void **state)
{
	struct ew_disk d;
	u32 dist, far;
	u64 lb, best;

	(void)state;
	default_disk(&d, 17783240);
	/* the default curve dips at the boundary: the bound must see it */
	assert_true(ew_disk_seek_ns(&d, 0, 1391) >
		    ew_disk_seek_ns(&d, 0, 1392));
	for (dist = 0; dist < 2000; dist += 7) {
		lb = ew_disk_seek_lower_bound(&d, dist);
		best = ~0ULL;
		for (far = dist; far < 3000; far++)
			best = min(best, ew_disk_seek_ns(&d, 0, far));
		assert_int_equal(lb, best);
	}
}

static void test_lba_to_pos_zone_boundaries(void **state)
{
	struct ew_disk d;
	struct ew_pos pos;
	u64 lba;

	(void)state;
	default_disk(&d, 17783240);
	assert_int_equal(d.nr_cylinders, 6962);
	assert_int_equal(d.nr_zones, 11);
	/* zone 1 starts after 537 cylinders of 12 x 254 sectors */
	lba = 537ULL * 12 * 254;
	assert_int_equal(d.zone_lba[1], lba);
	ew_disk_lba_to_pos(&d, lba, &pos);
	assert_int_equal(pos.cyl, 537);
	assert_int_equal(pos.head, 0);
	assert_int_equal(pos.sector, 0);
	assert_int_equal(pos.spt, 247);
	assert_int_equal(pos.zone, 1);
	ew_disk_lba_to_pos(&d, lba - 1, &pos);
	assert_int_equal(pos.cyl, 536);
	assert_int_equal(pos.head, 11);
	assert_int_equal(pos.sector, 253);
	assert_int_equal(pos.zone, 0);
	/* the last sector of the device */
	ew_disk_lba_to_pos(&d, 17783239, &pos);
	assert_int_equal(pos.cyl, 6961);
	assert_int_equal(pos.head, 11);
	assert_int_equal(pos.zone, 10);
	assert_int_equal(pos.sector, 162);	/* 167 - 4 unused - 1 */
	/* mid-zone: zone 0, cylinder 2, head 3, sector 17 */
	ew_disk_lba_to_pos(&d, (2 * 12 + 3) * 254 + 17, &pos);
	assert_int_equal(pos.cyl, 2);
	assert_int_equal(pos.head, 3);
	assert_int_equal(pos.sector, 17);
}

static void test_track_round_trip(void **state)
{
	struct ew_disk d;
	struct ew_pos pos;
	u64 lba, seed = 1;
	u32 track, i;

	(void)state;
	toy_disk(&d);
	assert_int_equal(ew_disk_nr_tracks(&d), 16);
	for (lba = 0; lba < EW_TOY_SECTORS; lba++) {
		ew_disk_lba_to_pos(&d, lba, &pos);
		track = ew_disk_track_of(&d, &pos);
		assert_int_equal(ew_disk_track_first_lba(&d, track) +
				 pos.sector, lba);
		assert_int_equal(ew_disk_track_spt(&d, track), pos.spt);
		assert_int_equal(pos.spt, lba < 96 ? 12 : 8);
	}
	default_disk(&d, 17783240);
	for (i = 0; i < 10000; i++) {
		lba = ew_test_below(&seed, d.nr_sectors);
		ew_disk_lba_to_pos(&d, lba, &pos);
		track = ew_disk_track_of(&d, &pos);
		assert_int_equal(ew_disk_track_first_lba(&d, track) +
				 pos.sector, lba);
	}
}

static void test_extend_truncate(void **state)
{
	struct ew_disk d;
	struct ew_pos pos;
	u64 tib = 1ULL << 31, per_cyl_last = 12 * 167;

	(void)state;
	/* 64 MiB: 131072 sectors, 3048 per cylinder in zone 0 -> 44 */
	default_disk(&d, 131072);
	assert_int_equal(d.nr_zones, 1);
	assert_int_equal(d.nr_cylinders, 44);
	assert_int_equal(d.zone_cylinders[0], 44);
	assert_int_equal(d.zone_cylinders[1], 0);
	ew_disk_lba_to_pos(&d, 131071, &pos);
	assert_int_equal(pos.cyl, 43);
	assert_int_equal(pos.zone, 0);
	/* a device ending inside zone 3 */
	default_disk(&d, d.zone_lba[0] + 537ULL * 3048 + 500ULL * 2964 +
		     10);
	assert_int_equal(d.nr_zones, 3);
	assert_int_equal(d.zone_cylinders[2], 1);
	assert_int_equal(d.nr_cylinders, 537 + 500 + 1);
	/* 1 TiB: the last zone grows until it covers the device */
	default_disk(&d, tib);
	assert_int_equal(d.nr_zones, 11);
	assert_true(d.zone_lba[11] >= tib);
	assert_true(d.zone_lba[11] - per_cyl_last < tib);
	assert_int_equal(d.zone_cylinders[10],
			 837 + (tib - 17783244 + per_cyl_last - 1) /
			 per_cyl_last);
	ew_disk_lba_to_pos(&d, tib - 1, &pos);
	assert_int_equal(pos.cyl, d.nr_cylinders - 1);
	assert_int_equal(pos.zone, 10);
	assert_int_equal(ew_disk_nr_tracks(&d), d.nr_cylinders * 12);
	/* too large for u32 track numbers */
	{
		struct ew_disk_params p;

		ew_disk_params_default(&p);
		assert_int_equal(ew_disk_init(&d, &p, 1ULL << 50), -EFBIG);
	}
}

static void test_params_fit(void **state)
{
	struct ew_disk_params p, q;
	struct ew_disk d;
	u64 sizes[] = { 1ULL << 31, 1ULL << 35 }, cap;
	u32 i, z;

	(void)state;
	ew_disk_params_default(&p);
	assert_int_equal(ew_disk_params_sectors(&p), 17783244);
	/* smaller than the model: unchanged, ew_disk_init truncates */
	q = p;
	assert_int_equal(ew_disk_params_fit(&q, 131072), 0);
	assert_memory_equal(&q, &p, sizeof(p));
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		q = p;
		assert_int_equal(ew_disk_params_fit(&q, sizes[i]), 0);
		cap = ew_disk_params_sectors(&q);
		assert_true(cap >= sizes[i]);
		/* each zone rounds up by less than a sector per track */
		assert_true(cap - sizes[i] < 6962ULL * q.heads);
		assert_int_equal(ew_disk_init(&d, &q, sizes[i]), 0);
		assert_int_equal(d.nr_cylinders, 6962);
		assert_int_equal(d.nr_zones, 11);
		for (z = 0; z < q.nr_zones; z++) {
			assert_true(q.zones[z].spt <= 65535);
			assert_int_equal(q.zones[z].cylinders,
					 p.zones[z].cylinders);
			/* the skews keep their time (to a sector) */
			assert_true(q.zones[z].track_skew * 1000ULL /
				    q.zones[z].spt + 1 >=
				    p.zones[z].track_skew * 1000ULL /
				    p.zones[z].spt);
			assert_true(q.zones[z].track_skew <
				    q.zones[z].spt);
		}
		assert_int_equal(ew_disk_seek_ns(&d, 0, 6961), 10637880);
	}
	/* 1 TiB fits 12 surfaces; 32 TiB needs more */
	q = p;
	assert_int_equal(ew_disk_params_fit(&q, 1ULL << 31), 0);
	assert_int_equal(q.heads, 12);
	q = p;
	assert_int_equal(ew_disk_params_fit(&q, 1ULL << 36), 0);
	assert_true(q.heads > 12);
	q = p;
	assert_int_equal(ew_disk_params_fit(&q, 1ULL << 50), -EFBIG);
}

static void test_angle(void **state)
{
	struct ew_disk d;

	(void)state;
	toy_disk(&d);
	assert_int_equal(ew_disk_angle_at(&d, 0), 0);
	assert_int_equal(ew_disk_angle_at(&d, 3 * 1200000 + 5), 5);
	d.p.phase_ns = 1000;
	/* (300 - 1000) mod 1.2 ms */
	assert_int_equal(ew_disk_angle_at(&d, 300), 1199300);
	assert_int_equal(ew_disk_angle_at(&d, 1000), 0);
	d.p.phase_ns = 2 * 1200000 + 100;
	assert_int_equal(ew_disk_angle_at(&d, 1200000 + 350), 250);
}

static void test_sector_angle_skew(void **state)
{
	struct ew_disk d;
	struct ew_pos pos;

	(void)state;
	toy_disk(&d);
	/* cylinder 0, head 0, sector 3: slot 3 of 12 */
	ew_disk_lba_to_pos(&d, 3, &pos);
	assert_int_equal(ew_disk_sector_angle(&d, &pos), 300000);
	/* cylinder 0, head 1, sector 3: one track skew (2) -> slot 5 */
	ew_disk_lba_to_pos(&d, 12 + 3, &pos);
	assert_int_equal(ew_disk_sector_angle(&d, &pos), 500000);
	/* cylinder 1, head 0, sector 8: track skew + cyl skew = 5 -> 13 */
	ew_disk_lba_to_pos(&d, 24 + 8, &pos);
	assert_int_equal(ew_disk_sector_angle(&d, &pos), 100000);
	/* zone 1 starts at angle 0 */
	ew_disk_lba_to_pos(&d, 96, &pos);
	assert_int_equal(ew_disk_sector_angle(&d, &pos), 0);
	/* zone 1, cylinder 5, head 1, sector 6: 1 + 2 + 1 = 4 -> 10 mod 8 */
	ew_disk_lba_to_pos(&d, 96 + 3 * 8 + 6, &pos);
	assert_int_equal(pos.cyl, 5);
	assert_int_equal(pos.head, 1);
	assert_int_equal(ew_disk_sector_angle(&d, &pos), 300000);
}

static void test_first_sector_after(void **state)
{
	struct ew_disk d;
	struct ew_pos pos;
	u64 seed = 7, angle, wait, best, w;
	u32 i, s, got, track;

	(void)state;
	default_disk(&d, 17783240);
	for (i = 0; i < 300; i++) {
		ew_disk_lba_to_pos(&d, ew_test_below(&seed, d.nr_sectors),
				   &pos);
		track = ew_disk_track_of(&d, &pos);
		angle = i < 10 ? i : ew_test_below(&seed, d.p.rotation_ns);
		if (i >= 10 && i < 20) {
			/* exactly on a sector's start */
			pos.sector = i;
			angle = ew_disk_sector_angle(&d, &pos);
		}
		got = ew_disk_first_sector_after(&d, &pos, angle);
		/* brute force: least wait from angle to a sector start */
		best = ~0ULL;
		for (s = 0; s < pos.spt; s++) {
			pos.sector = s;
			w = ew_disk_sector_angle(&d, &pos);
			wait = w >= angle ? w - angle :
			       w + d.p.rotation_ns - angle;
			best = min(best, wait);
		}
		pos.sector = got;
		w = ew_disk_sector_angle(&d, &pos);
		wait = w >= angle ? w - angle : w + d.p.rotation_ns - angle;
		assert_int_equal(wait, best);
		assert_int_equal(ew_disk_track_of(&d, &pos), track);
	}
}

static void test_predict_same_track(void **state)
{
	struct ew_disk d;
	struct ew_head h = { 0 };
	struct ew_access a;

	(void)state;
	toy_disk(&d);
	/* read of sector 3 (angle 300 us): overhead 5, wait 295, xfer 100 */
	ew_disk_predict(&d, &h, 0, 3, 1, false, &a);
	assert_int_equal(a.start_ns, 0);
	assert_int_equal(a.seek_ns, 5000);
	assert_int_equal(a.rot_ns, 295000);
	assert_int_equal(a.xfer_ns, 100000);
	assert_int_equal(a.total_ns, 400000);
	assert_int_equal(a.end_ns, 400000);
	/* a write settles 10 us longer and waits 10 us less */
	ew_disk_predict(&d, &h, 0, 3, 1, true, &a);
	assert_int_equal(a.seek_ns, 15000);
	assert_int_equal(a.rot_ns, 285000);
	assert_int_equal(a.end_ns, 400000);
	/* sector 0 has just passed: almost a whole revolution */
	ew_disk_predict(&d, &h, 0, 0, 1, false, &a);
	assert_int_equal(a.rot_ns, 1195000);
	/* the disk is busy until 2 ms: angle at arrival 805 us */
	h.free_at_ns = 2000000;
	ew_disk_predict(&d, &h, 0, 3, 1, false, &a);
	assert_int_equal(a.start_ns, 2000000);
	assert_int_equal(a.rot_ns, 695000);
	assert_int_equal(a.end_ns, 2000000 + 5000 + 695000 + 100000);
	/* now after free_at: starts now */
	ew_disk_predict(&d, &h, 2500000, 3, 1, false, &a);
	assert_int_equal(a.start_ns, 2500000);
}

static void test_predict_seek_and_switch(void **state)
{
	struct ew_disk d;
	struct ew_head h = { 0 };
	struct ew_access a;

	(void)state;
	toy_disk(&d);
	/*
	 * Cylinder 3, head 1, sector 4 (lba 88): seek 3 cylinders =
	 * 200 + 50 * sqrt(3) = 286.602 us; skew 3 * 5 + 2 = 17 -> slot 9,
	 * angle 900 us; arrival at 291.602 us.
	 */
	ew_disk_predict(&d, &h, 0, 88, 1, false, &a);
	assert_int_equal(a.seek_ns, 5000 + 286602);
	assert_int_equal(a.rot_ns, 900000 - 291602);
	assert_int_equal(a.end_ns, 1000000);
	/* head switch only: cylinder 0 head 1 sector 3 (angle 500 us) */
	ew_disk_predict(&d, &h, 0, 15, 1, false, &a);
	assert_int_equal(a.seek_ns, 5000 + 50000);
	assert_int_equal(a.rot_ns, 500000 - 55000);
	/* long seek on the toy: 7 cylinders = 300 + 20 * 7 us */
	ew_disk_predict(&d, &h, 0, 96 + 3 * 16, 1, true, &a);
	assert_int_equal(a.seek_ns, 5000 + 440000 + 10000);
}

static void test_predict_track_crossing(void **state)
{
	struct ew_disk d;
	struct ew_head h = { 0 };
	struct ew_access a;

	(void)state;
	toy_disk(&d);
	/*
	 * Sectors 10, 11 of (0,0) then sector 0 of (0,1): wait 995 us for
	 * slot 10, 200 us of transfer (angle 0), head switch 50 us, wait
	 * 150 us for slot 2, 100 us.
	 */
	ew_disk_predict(&d, &h, 0, 10, 3, false, &a);
	assert_int_equal(a.rot_ns, 995000);
	assert_int_equal(a.xfer_ns, 200000 + 50000 + 150000 + 100000);
	assert_int_equal(a.end_ns, 1500000);
	/*
	 * Across a cylinder: sectors 10, 11 of (0,1) (slots 0, 1) then
	 * (1,0) sector 0 at slot 5: one-cylinder seek 100 us, wait 200 us.
	 */
	h.head = 1;
	ew_disk_predict(&d, &h, 0, 22, 3, false, &a);
	assert_int_equal(a.rot_ns, 1195000);
	assert_int_equal(a.xfer_ns, 200000 + 100000 + 200000 + 100000);
	assert_int_equal(a.end_ns, 1800000);
	/* a full track after the first sector costs a revolution or more */
	ew_disk_predict(&d, &h, 0, 24, 24, false, &a);
	assert_true(a.xfer_ns >= 2 * 1200000);
}

static void test_head_complete(void **state)
{
	struct ew_disk d;
	struct ew_head h = { 0 };

	(void)state;
	toy_disk(&d);
	ew_head_complete(&d, &h, 22, 3, 1800000);
	assert_int_equal(h.cyl, 1);
	assert_int_equal(h.head, 0);
	assert_int_equal(h.free_at_ns, 1800000);
	/* queued work ending later is not forgotten */
	h.free_at_ns = 5000000;
	ew_head_complete(&d, &h, 96 + 3 * 8 + 6, 1, 2000000);
	assert_int_equal(h.cyl, 5);
	assert_int_equal(h.head, 1);
	assert_int_equal(h.free_at_ns, 5000000);
	/* predict from the new arm position: no seek, no switch */
	{
		struct ew_access a;

		h.free_at_ns = 0;
		ew_disk_predict(&d, &h, 0, 96 + 3 * 8, 1, false, &a);
		assert_int_equal(a.seek_ns, 5000);
	}
}

/* A random 4 KiB update in place costs about 9.5 ms on the Cheetah. */
static void test_random_write_mean(void **state)
{
	struct ew_disk d;
	struct ew_head h;
	struct ew_access a;
	struct ew_pos pos;
	u64 seed = 42, sum = 0, seeks = 0, t = 0;
	u32 i, n = 20000;

	(void)state;
	default_disk(&d, 17783240);
	for (i = 0; i < n; i++) {
		ew_disk_lba_to_pos(&d, ew_test_below(&seed, d.nr_sectors),
				   &pos);
		h.cyl = pos.cyl;
		h.head = pos.head;
		h.free_at_ns = 0;
		t += ew_test_below(&seed, 10000000);
		ew_disk_predict(&d, &h, t,
				ew_test_below(&seed, d.nr_sectors - 8), 8,
				true, &a);
		sum += a.total_ns;
		seeks += a.seek_ns;
	}
	/* seek 5.5 + overhead 0.9 + settle 0.46 ms; rotation 3 ms */
	assert_in_range(seeks / n, 6500000, 7300000);
	assert_in_range(sum / n, 9500000, 10600000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_params),
		cmocka_unit_test(test_params_check),
		cmocka_unit_test(test_seek_curve),
		cmocka_unit_test(test_seek_lower_bound),
		cmocka_unit_test(test_lba_to_pos_zone_boundaries),
		cmocka_unit_test(test_track_round_trip),
		cmocka_unit_test(test_extend_truncate),
		cmocka_unit_test(test_params_fit),
		cmocka_unit_test(test_angle),
		cmocka_unit_test(test_sector_angle_skew),
		cmocka_unit_test(test_first_sector_after),
		cmocka_unit_test(test_predict_same_track),
		cmocka_unit_test(test_predict_seek_and_switch),
		cmocka_unit_test(test_predict_track_crossing),
		cmocka_unit_test(test_head_complete),
		cmocka_unit_test(test_random_write_mean),
	};

	return cmocka_run_group_tests_name("ew_disk", tests, NULL, NULL);
}
