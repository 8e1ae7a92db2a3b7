// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_place.c - placement and scheduling (ew_place.c): the nearest free
 * block against a brute-force scan of every free block, the choice among
 * candidate disks and replicas, SATF-EW, and the analytic bound of Wang
 * et al. (OSDI 1999) for eager writing on one track.
 */
#include <math.h>

#include "ew_test_util.h"
#include "ew_place.h"

/* One member disk as the placement code sees it. */
struct bed {
	struct ew_disk d;
	struct ew_head h;
	struct ew_freemap fm;
	struct ew_pdisk pd;
	u32 bs;
};

/* base: the layout's block 0 starts there (a member's label before it) */
static void bed_init_base(struct bed *b, const struct ew_disk_params *p,
			  u64 sectors, u32 bs, u64 base)
{
	memset(b, 0, sizeof(*b));
	assert_int_equal(ew_disk_init(&b->d, p, sectors), 0);
	b->d.data_lba = base;
	assert_int_equal(ew_freemap_init(&b->fm, &b->d, bs,
					 (sectors - base) / bs), 0);
	b->bs = bs;
	b->pd.model = &b->d;
	b->pd.head = &b->h;
	b->pd.fm = &b->fm;
}

static void bed_init(struct bed *b, const struct ew_disk_params *p,
		     u64 sectors, u32 bs)
{
	bed_init_base(b, p, sectors, bs, 0);
}

static void bed_toy(struct bed *b, u32 bs)
{
	struct ew_disk_params p;

	ew_test_toy_params(&p);
	bed_init(b, &p, EW_TOY_SECTORS, bs);
}

/*
 * 20 cylinders of 2 x 40 sectors (30 us each) with a seek curve that
 * dips: 200 + 50 * sqrt(d) us below 3 cylinders (270.7 us for 2), 20 +
 * 10 * d us from 3 (50 us): a walk that stopped at the first seek
 * costlier than its best would miss cylinder 3.
 */
static void bed_dip(struct bed *b, u32 bs)
{
	struct ew_disk_params p;

	ew_test_toy_params(&p);
	p.nr_zones = 1;
	p.zones[0] = (struct ew_zone){ 20, 40, 3, 4 };
	p.seek_boundary = 3;
	p.seek_c_ns = 20000;
	p.seek_e_ns = 10000;
	bed_init(b, &p, 20 * 2 * 40, bs);
}

static u64 predict_end(const struct bed *b, u64 block, u64 now, u32 bs)
{
	struct ew_access a;

	ew_disk_predict(&b->d, &b->h, now, b->d.data_lba + block * bs, bs,
			true, &a);
	return a.end_ns;
}

/*
 * The scarcity of each cylinder (ew_place.h), counted here from the
 * blocks themselves: n blocks start in the cylinder, k of them are free
 * once one is taken; rotation * (n - k) / ((k + 1) * n) / DIV.
 */
static u64 *brute_scarcity(const struct bed *b)
{
	u32 ncyl = b->d.nr_cylinders, c;
	u64 *n = calloc(ncyl, sizeof(u64)), *f = calloc(ncyl, sizeof(u64));
	struct ew_pos pos;
	u64 blk, k;

	assert_non_null(n);
	assert_non_null(f);
	for (blk = 0; blk < b->fm.nr_blocks; blk++) {
		ew_disk_lba_to_pos(&b->d, b->d.data_lba + blk * b->bs, &pos);
		n[pos.cyl]++;
		f[pos.cyl] += ew_freemap_is_free(&b->fm, blk);
	}
	for (c = 0; c < ncyl; c++) {
		k = f[c] ? f[c] - 1 : 0;
		f[c] = !n[c] || k >= n[c] ? 0 :
		       b->d.p.rotation_ns * (n[c] - k) /
		       (EW_PLACE_SCARCITY_DIV * (k + 1) * n[c]);
	}
	free(n);
	return f;
}

/*
 * Least cost over every free block (dir: only cylinders that way), its
 * cylinder's scarcity counted (*key); *cost: the completion alone.
 */
static u64 brute_nearest(const struct bed *b, u64 now, int dir, u64 *cost,
			 u64 *key)
{
	u64 *scar = brute_scarcity(b);
	struct ew_pos pos;
	u64 blk, best = EW_NO_BLOCK, best_key = ~0ULL, best_end = 0, e;

	for (blk = 0; blk < b->fm.nr_blocks; blk++) {
		if (!ew_freemap_is_free(&b->fm, blk))
			continue;
		ew_disk_lba_to_pos(&b->d, b->d.data_lba + blk * b->bs, &pos);
		if ((dir > 0 && pos.cyl < b->h.cyl) ||
		    (dir < 0 && pos.cyl > b->h.cyl))
			continue;
		e = predict_end(b, blk, now, b->bs);
		if (e + scar[pos.cyl] < best_key) {
			best_key = e + scar[pos.cyl];
			best_end = e;
			best = blk;
		}
	}
	free(scar);
	*cost = best == EW_NO_BLOCK ? 0 : best_end - now;
	*key = best_key;
	return best;
}

/* A block's key as brute_nearest counts it. */
static u64 brute_key(const struct bed *b, u64 blk, u64 now)
{
	u64 *scar = brute_scarcity(b), key;
	struct ew_pos pos;

	ew_disk_lba_to_pos(&b->d, b->d.data_lba + blk * b->bs, &pos);
	key = predict_end(b, blk, now, b->bs) + scar[pos.cyl];
	free(scar);
	return key;
}

static void all_used(struct bed *b)
{
	u64 blk;

	for (blk = 0; blk < b->fm.nr_blocks; blk++)
		if (ew_freemap_is_free(&b->fm, blk))
			assert_int_equal(ew_freemap_alloc(&b->fm, blk), 0);
	assert_int_equal(b->fm.nr_free, 0);
}

static void random_fill(struct bed *b, u64 *seed, u32 used_pct)
{
	u64 blk;

	for (blk = 0; blk < b->fm.nr_blocks; blk++) {
		bool want = ew_test_below(seed, 100) < used_pct;

		if (want && ew_freemap_is_free(&b->fm, blk))
			assert_int_equal(ew_freemap_alloc(&b->fm, blk), 0);
		else if (!want && !ew_freemap_is_free(&b->fm, blk))
			assert_int_equal(ew_freemap_free(&b->fm, blk), 0);
	}
}

static void random_head(struct bed *b, u64 *seed, u64 *now)
{
	struct ew_pos pos;

	/* anywhere, sometimes past the map's cylinders */
	ew_disk_lba_to_pos(&b->d, ew_test_below(seed, b->d.nr_sectors), &pos);
	b->h.cyl = pos.cyl;
	b->h.head = pos.head;
	*now = ew_test_below(seed, 50000000);
	b->h.free_at_ns = ew_test_below(seed, 3) ? 0 :
			  *now + ew_test_below(seed, 5000000);
}

/*
 * ew_place_nearest_free equals the brute force, block for block key
 * (two blocks may tie on the key with different completions).
 */
static void nearest_vs_brute(struct bed *b, u64 seed, u32 trials, int dir)
{
	u64 now, cost, bcost, got, want, key;
	u32 i;

	for (i = 0; i < trials; i++) {
		if (i % 8 == 0)
			random_fill(b, &seed, (u32)ew_test_below(&seed, 100));
		random_head(b, &seed, &now);
		got = ew_place_nearest_free_dir(&b->pd, b->bs, now, dir,
						&cost);
		want = brute_nearest(b, now, dir, &bcost, &key);
		if (want == EW_NO_BLOCK) {
			assert_int_equal(got, EW_NO_BLOCK);
			continue;
		}
		assert_int_not_equal(got, EW_NO_BLOCK);
		assert_true(ew_freemap_is_free(&b->fm, got));
		assert_int_equal(brute_key(b, got, now), key);
		if (got == want)
			assert_int_equal(cost, bcost);
		assert_int_equal(predict_end(b, got, now, b->bs) - now, cost);
	}
}

static void test_nearest_toy_bs1(void **state)
{
	struct bed b;

	(void)state;
	bed_toy(&b, 1);
	nearest_vs_brute(&b, 1, 3000, 0);
	ew_freemap_destroy(&b.fm);
}

static void test_nearest_toy_bs3(void **state)
{
	struct bed b;

	(void)state;
	/* blocks straddle tracks: the next-track penalty must be seen */
	bed_toy(&b, 3);
	nearest_vs_brute(&b, 2, 3000, 0);
	ew_freemap_destroy(&b.fm);
}

/*
 * A layout that starts past the device's first sector (a member's label:
 * EW_MEMBER_DATA_OFFSET_SECTORS in the target): the free map's tracks and
 * the search see block b at data_lba + b * bs, the device's own position.
 * base 37 and 5 cut a track and a block; each block lies on the track the
 * map files it under; the search equals the brute force with the shift.
 */
static void test_nearest_based(void **state)
{
	static const struct { u32 bs; u64 base; } c[] = {
		{ 1, 37 }, { 3, 5 }, { 4, 80 },
	};
	struct ew_disk_params p;
	struct ew_pos pos;
	struct bed b;
	u64 blk, first;
	u32 i, t, n;

	(void)state;
	ew_test_toy_params(&p);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		bed_init_base(&b, &p, EW_TOY_SECTORS, c[i].bs, c[i].base);
		for (blk = 0; blk < b.fm.nr_blocks; blk++) {
			ew_disk_lba_to_pos(&b.d, c[i].base + blk * c[i].bs,
					   &pos);
			t = ew_freemap_block_track(&b.fm, blk);
			assert_int_equal(t, ew_disk_track_of(&b.d, &pos));
			n = ew_freemap_track_blocks(&b.fm, t, &first);
			assert_true(blk >= first && blk < first + n);
		}
		/* the tracks before the base hold no block */
		ew_disk_lba_to_pos(&b.d, c[i].base, &pos);
		for (t = 0; t < ew_disk_track_of(&b.d, &pos); t++)
			assert_int_equal(ew_freemap_track_blocks(&b.fm, t,
								 &first), 0);
		nearest_vs_brute(&b, 10 + i, 1500, 0);
		ew_freemap_destroy(&b.fm);
	}
}

static void test_nearest_dip(void **state)
{
	struct bed b;
	u64 cost, blk, first;

	(void)state;
	bed_dip(&b, 1);
	nearest_vs_brute(&b, 3, 1500, 0);
	/*
	 * Crafted: head on (0,0) at time 0 (arrival 15 us); free: sector 8
	 * of (0,0) (slot 8: ends at 270 us), all of cylinder 2 (arrival
	 * 285.7 us) and cylinder 3 (arrival 65 us: slot 3 passes at 90 us,
	 * done at 120 us).  Cylinder 3 is reached first.
	 */
	all_used(&b);
	assert_int_equal(ew_freemap_free(&b.fm, 8), 0);
	ew_freemap_track_blocks(&b.fm, 2 * 2, &first);
	assert_int_equal(ew_freemap_free_range(&b.fm, first, 160), 0);
	b.h.cyl = 0;
	b.h.head = 0;
	b.h.free_at_ns = 0;
	blk = ew_place_nearest_free(&b.pd, 1, 0, &cost);
	assert_int_equal(cost, 120000);
	assert_true(blk >= first + 80 && blk < first + 160);
	ew_freemap_destroy(&b.fm);
}

static void test_nearest_cheetah(void **state)
{
	struct bed b;
	struct ew_disk_params p;

	(void)state;
	ew_disk_params_default(&p);
	/* 16 MiB with 4 KiB blocks, 11 cylinders */
	bed_init(&b, &p, 32768, 8);
	nearest_vs_brute(&b, 4, 400, 0);
	ew_freemap_destroy(&b.fm);
}

static void test_nearest_direction(void **state)
{
	struct bed b;

	(void)state;
	bed_dip(&b, 2);
	nearest_vs_brute(&b, 5, 1000, 1);
	nearest_vs_brute(&b, 6, 1000, -1);
	ew_freemap_destroy(&b.fm);
}

/* Hand-computed: the toy disk with three free blocks. */
static void test_nearest_crafted(void **state)
{
	struct bed b;
	u64 cost, blk;

	(void)state;
	bed_toy(&b, 1);
	assert_int_equal(ew_freemap_alloc_range(&b.fm, 0, 160), 0);
	assert_int_equal(ew_freemap_free(&b.fm, 0), 0);
	assert_int_equal(ew_freemap_free(&b.fm, 15), 0);
	assert_int_equal(ew_freemap_free(&b.fm, 25), 0);
	/*
	 * Head on (0,0) at time 0.  lba 0: overhead 5 + settle 10 us, then
	 * a revolution less 15 us for slot 0: ends at 1300 us.  lba 15
	 * ((0,1) sector 3, slot 5): 65 us, wait 435, transfer 100: 600 us.
	 * lba 25 ((1,0) sector 1, slot 6): 115 us, wait 485: 700 us.
	 */
	blk = ew_place_nearest_free(&b.pd, 1, 0, &cost);
	assert_int_equal(blk, 15);
	assert_int_equal(cost, 600000);
	assert_int_equal(ew_freemap_alloc(&b.fm, 15), 0);
	blk = ew_place_nearest_free(&b.pd, 1, 0, &cost);
	assert_int_equal(blk, 25);
	assert_int_equal(cost, 700000);
	assert_int_equal(ew_freemap_alloc(&b.fm, 25), 0);
	blk = ew_place_nearest_free(&b.pd, 1, 0, &cost);
	assert_int_equal(blk, 0);
	assert_int_equal(cost, 1300000);
	assert_int_equal(ew_freemap_alloc(&b.fm, 0), 0);
	blk = ew_place_nearest_free(&b.pd, 1, 0, &cost);
	assert_int_equal(blk, EW_NO_BLOCK);
	b.pd.fm = NULL;
	assert_int_equal(ew_place_nearest_free(&b.pd, 1, 0, &cost),
			 EW_NO_BLOCK);
	ew_freemap_destroy(&b.fm);
}

/* Four toy disks; disk i's head on cylinder 2 * i. */
static void beds4(struct bed *b, struct ew_pdisk *pd)
{
	u32 i;

	for (i = 0; i < 4; i++) {
		bed_toy(&b[i], 1);
		b[i].h.cyl = 2 * i;
		pd[i] = b[i].pd;
	}
}

static void beds4_free(struct bed *b)
{
	u32 i;

	for (i = 0; i < 4; i++)
		ew_freemap_destroy(&b[i].fm);
}

static void only_free(struct bed *b, u64 blk)
{
	all_used(b);
	assert_int_equal(ew_freemap_free(&b->fm, blk), 0);
}

static void test_write_idle_first(void **state)
{
	struct bed b[4];
	struct ew_pdisk pd[4];
	struct ew_replica cand[2] = { { 1, EW_NO_BLOCK }, { 3, EW_NO_BLOCK } };
	struct ew_choice c;
	u64 cost;

	(void)state;
	beds4(b, pd);
	/* disk 1: a free block far away; disk 3: one under its head */
	only_free(&b[1], 150);
	b[3].h.cyl = 0;
	only_free(&b[3], 3);
	/* both idle: the least cost, disk 3 */
	assert_int_equal(ew_place_write(pd, cand, 2, 0, true, 1, 0, &c), 0);
	assert_int_equal(c.disk, 3);
	assert_int_equal(c.index, 1);
	assert_int_equal(c.block, 3);
	ew_place_nearest_free(&pd[3], 1, 0, &cost);
	assert_int_equal(c.cost_ns, cost);
	/* disk 3 busy: the idle disk 1 even though it is farther */
	pd[3].queued = 1;
	assert_int_equal(ew_place_write(pd, cand, 2, 0, true, 1, 0, &c), 0);
	assert_int_equal(c.disk, 1);
	assert_int_equal(c.block, 150);
	assert_true(c.cost_ns > cost);
	/* both busy: the shorter queue, whatever the cost */
	pd[1].queued = 2;
	assert_int_equal(ew_place_write(pd, cand, 2, 0, true, 1, 0, &c), 0);
	assert_int_equal(c.disk, 3);
	pd[3].queued = 3;
	assert_int_equal(ew_place_write(pd, cand, 2, 0, true, 1, 0, &c), 0);
	assert_int_equal(c.disk, 1);
	/* equal queues: the cost decides */
	pd[1].queued = 3;
	assert_int_equal(ew_place_write(pd, cand, 2, 0, true, 1, 0, &c), 0);
	assert_int_equal(c.disk, 3);
	beds4_free(b);
}

static void test_write_skip_failed_full(void **state)
{
	struct bed b[4];
	struct ew_pdisk pd[4];
	struct ew_replica cand[3] = {
		{ 0, EW_NO_BLOCK }, { 2, EW_NO_BLOCK }, { 3, EW_NO_BLOCK }
	};
	struct ew_choice c;

	(void)state;
	beds4(b, pd);
	/* the second foreground replica: skip the one already chosen */
	assert_int_equal(ew_place_write(pd, cand, 3, 0, true, 1, 0, &c), 0);
	assert_int_equal(ew_place_write(pd, cand, 3, 1U << c.index, true, 1,
					0, &c), 0);
	assert_int_equal(ew_place_write(pd, cand, 3, 0x3, true, 1, 0, &c),
			 0);
	assert_int_equal(c.index, 2);
	assert_int_equal(c.disk, 3);
	/* a failed disk is never chosen */
	pd[3].failed = true;
	assert_int_equal(ew_place_write(pd, cand, 3, 0x3, true, 1, 0, &c),
			 -ENOSPC);
	assert_int_equal(ew_place_write(pd, cand, 3, 0x1, true, 1, 0, &c),
			 0);
	assert_int_equal(c.disk, 2);
	/* a disk without free blocks cannot take an eager write */
	assert_int_equal(ew_freemap_alloc_range(&b[2].fm, 0, 160), 0);
	assert_int_equal(ew_place_write(pd, cand, 3, 0x1, true, 1, 0, &c),
			 -ENOSPC);
	assert_int_equal(ew_place_write(pd, cand, 3, 0, true, 1, 0, &c), 0);
	assert_int_equal(c.disk, 0);
	assert_int_equal(ew_place_write(pd, cand, 3, 0x7, true, 1, 0, &c),
			 -ENOSPC);
	beds4_free(b);
}

static void test_write_home(void **state)
{
	struct bed b[4];
	struct ew_pdisk pd[4];
	struct ew_replica cand[2] = { { 0, 100 }, { 1, EW_NO_BLOCK } };
	struct ew_choice c;
	struct ew_access a;

	(void)state;
	beds4(b, pd);
	/* update in place: the home, whatever is free; no home, no write */
	assert_int_equal(ew_place_write(pd, cand, 2, 0, false, 1, 7, &c), 0);
	assert_int_equal(c.disk, 0);
	assert_int_equal(c.block, 100);
	ew_disk_predict(&b[0].d, &b[0].h, 7, 100, 1, true, &a);
	assert_int_equal(c.cost_ns, a.end_ns - 7);
	assert_int_equal(ew_place_write(pd, cand, 2, 1, false, 1, 7, &c),
			 -ENOSPC);
	beds4_free(b);
}

static void test_read_first_reached(void **state)
{
	struct bed b[4];
	struct ew_pdisk pd[4];
	u32 disk[3] = { 0, 1, 3 };
	u64 blk[3] = { 120, 40, 3 }, best = ~0ULL;
	struct ew_choice c;
	struct ew_access a;
	u32 i, want = 0;

	(void)state;
	beds4(b, pd);
	for (i = 0; i < 3; i++) {
		ew_disk_predict(&b[disk[i]].d, &b[disk[i]].h, 0, blk[i], 4,
				false, &a);
		if (a.end_ns < best) {
			best = a.end_ns;
			want = i;
		}
	}
	assert_int_equal(ew_place_read(pd, disk, blk, 3, 0, 1, 4, 0, &c), 0);
	assert_int_equal(c.index, want);
	assert_int_equal(c.cost_ns, best);
	/* the same block on two disks: the head already there wins */
	/* (2,0) sector 3, slot 1: disk 0's two-cylinder seek misses it */
	blk[0] = blk[1] = 51;
	b[1].h.cyl = 2;
	assert_int_equal(ew_place_read(pd, disk, blk, 2, 0, 1, 1, 0, &c), 0);
	assert_int_equal(c.disk, 1);
	/* ... unless that disk is busy for a while */
	b[1].h.free_at_ns = 20000000;
	assert_int_equal(ew_place_read(pd, disk, blk, 2, 0, 1, 1, 0, &c), 0);
	assert_int_equal(c.disk, 0);
	/* skip mask, failed disks, unmapped replicas */
	assert_int_equal(ew_place_read(pd, disk, blk, 2, 1, 1, 1, 0, &c), 0);
	assert_int_equal(c.disk, 1);
	pd[1].failed = true;
	assert_int_equal(ew_place_read(pd, disk, blk, 2, 1, 1, 1, 0, &c),
			 -ENODATA);
	blk[0] = EW_NO_BLOCK;
	assert_int_equal(ew_place_read(pd, disk, blk, 2, 0, 1, 1, 0, &c),
			 -ENODATA);
	beds4_free(b);
}

/*
 * A non-rotational member: next fit from pd.next_free, cyclically, at the
 * model's fixed costs, wherever the head is; reads and writes to a home
 * at the fixed costs too, so the queue decides between such members.
 */
static void test_nonrot(void **state)
{
	struct bed b[4];
	struct ew_pdisk pd[4];
	struct ew_replica cand[2] = { { 1, 7 }, { 3, 9 } };
	u32 disk[2] = { 1, 3 };
	u64 blk[2] = { 7, 9 }, cost, i;
	struct ew_choice c;

	(void)state;
	beds4(b, pd);
	for (i = 0; i < 4; i++)
		pd[i].nonrot = true;
	/* head on the last cylinder: the model would pick a block there */
	b[1].h.cyl = 7;
	assert_int_equal(ew_place_nearest_free(&pd[1], 1, 0, &cost), 0);
	assert_int_equal(cost, 5000 + 10000);
	pd[1].next_free = 30;
	assert_int_equal(ew_place_nearest_free(&pd[1], 1, 0, &cost), 30);
	/* a run of used blocks over two cylinder boundaries (24, 48) */
	for (i = 20; i < 60; i++)
		assert_int_equal(ew_freemap_alloc(&b[1].fm, i), 0);
	assert_int_equal(ew_place_nearest_free(&pd[1], 1, 0, &cost), 60);
	/* only a block behind the cursor: wrap; then in its cylinder */
	only_free(&b[1], 26);
	assert_int_equal(ew_place_nearest_free(&pd[1], 1, 0, &cost), 26);
	pd[1].next_free = 27;
	assert_int_equal(ew_place_nearest_free(&pd[1], 1, 0, &cost), 26);
	pd[1].next_free = 1000;		/* past the map: from block 0 */
	assert_int_equal(ew_place_nearest_free(&pd[1], 1, 0, &cost), 26);
	assert_int_equal(ew_freemap_alloc(&b[1].fm, 26), 0);
	assert_int_equal(ew_place_nearest_free(&pd[1], 1, 0, &cost),
			 EW_NO_BLOCK);
	/* eager write: disk 1 is full, disk 3 takes its cursor's block */
	pd[3].next_free = 100;
	assert_int_equal(ew_place_write(pd, cand, 2, 0, true, 1, 0, &c), 0);
	assert_int_equal(c.disk, 3);
	assert_int_equal(c.block, 100);
	assert_int_equal(c.cost_ns, 15000);
	/* homes and reads: fixed costs, then the queue */
	assert_int_equal(ew_place_write(pd, cand, 2, 0, false, 1, 0, &c), 0);
	assert_int_equal(c.disk, 1);
	assert_int_equal(c.cost_ns, 15000);
	pd[1].queued = 1;
	assert_int_equal(ew_place_write(pd, cand, 2, 0, false, 1, 0, &c), 0);
	assert_int_equal(c.disk, 3);
	assert_int_equal(ew_place_read(pd, disk, blk, 2, 0, 1, 1, 0, &c), 0);
	assert_int_equal(c.disk, 3);
	assert_int_equal(c.cost_ns, 5000);
	pd[1].queued = 0;
	assert_int_equal(ew_place_read(pd, disk, blk, 2, 0, 1, 1, 0, &c), 0);
	assert_int_equal(c.disk, 1);
	beds4_free(b);
}

static void test_satf_ew(void **state)
{
	struct bed b;
	u64 reads[3] = { 130, 60, 88 }, blk, cost, best = ~0ULL, wcost;
	struct ew_access a;
	int want = -2, got;
	u32 i;

	(void)state;
	bed_toy(&b, 1);
	for (i = 0; i < 3; i++) {
		ew_disk_predict(&b.d, &b.h, 0, reads[i], 1, false, &a);
		if (a.end_ns < best) {
			best = a.end_ns;
			want = (int)i;
		}
	}
	/* no write pending: the nearest read */
	got = ew_place_satf_ew(&b.pd, reads, 3, 1, false, 1, 0, &blk, &cost);
	assert_int_equal(got, want);
	assert_int_equal(cost, best);
	assert_int_equal(blk, EW_NO_BLOCK);
	/* a free block under the head beats every read */
	got = ew_place_satf_ew(&b.pd, reads, 3, 1, true, 1, 0, &blk, &cost);
	assert_int_equal(got, -1);
	assert_int_equal(blk, ew_place_nearest_free(&b.pd, 1, 0, &wcost));
	assert_int_equal(cost, wcost);
	assert_true(cost < best);
	/* only a far free block: the read goes first */
	only_free(&b, 159);
	got = ew_place_satf_ew(&b.pd, reads, 3, 1, true, 1, 0, &blk, &cost);
	assert_int_equal(got, want);
	/* no reads: the write, even far */
	got = ew_place_satf_ew(&b.pd, reads, 0, 1, true, 1, 0, &blk, &cost);
	assert_int_equal(got, -1);
	assert_int_equal(blk, 159);
	/* nothing to do */
	got = ew_place_satf_ew(&b.pd, reads, 0, 1, false, 1, 0, &blk, &cost);
	assert_int_equal(got, -2);
	assert_int_equal(ew_freemap_alloc(&b.fm, 159), 0);
	got = ew_place_satf_ew(&b.pd, reads, 0, 1, true, 1, 0, &blk, &cost);
	assert_int_equal(got, -2);
	ew_freemap_destroy(&b.fm);
}

/*
 * Wang et al.: on one track of n blocks with k = pn free, the head at a
 * block boundary, eager writing passes (n - k) / (k + 1) = (1 - p) /
 * (p + 1/n) occupied blocks on average before the free block it picks.
 */
static void test_wang_bound(void **state)
{
	static const u32 free_blocks[] = { 2, 4, 8, 12, 20, 30 };
	const u32 n = 40, trials = 20000;
	struct ew_disk_params p;
	struct bed b;
	u64 seed = 2002, now, cost, blk, passed;
	u32 i, t, k, head_blk, j;
	double mean, expect;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.rotation_ns = n * 1000;
	p.heads = 1;
	p.nr_zones = 1;
	p.zones[0] = (struct ew_zone){ 1, n, 0, 0 };
	p.single_cyl_ns = 1;
	p.seek_c_ns = 1;
	bed_init(&b, &p, n, 1);
	for (i = 0; i < ARRAY_SIZE(free_blocks); i++) {
		k = free_blocks[i];
		passed = 0;
		for (t = 0; t < trials; t++) {
			/* a random set of exactly k free blocks */
			for (j = 0; j < n; j++)
				if (!ew_freemap_is_free(&b.fm, j))
					ew_freemap_free(&b.fm, j);
			assert_int_equal(ew_freemap_alloc_range(&b.fm, 0, n),
					 0);
			for (j = 0; j < k; ) {
				blk = ew_test_below(&seed, n);
				if (!ew_freemap_is_free(&b.fm, blk)) {
					ew_freemap_free(&b.fm, blk);
					j++;
				}
			}
			/* the head on a block boundary */
			head_blk = (u32)ew_test_below(&seed, n);
			now = 1000000ULL * n + head_blk * 1000ULL;
			blk = ew_place_nearest_free(&b.pd, 1, now, &cost);
			assert_int_not_equal(blk, EW_NO_BLOCK);
			/* every block between head and choice is occupied */
			for (j = head_blk; j != blk; j = (j + 1) % n)
				assert_false(ew_freemap_is_free(&b.fm, j));
			passed += (blk + n - head_blk) % n;
			assert_int_equal(cost, ((blk + n - head_blk) % n + 1) *
					 1000);
		}
		mean = (double)passed / trials;
		expect = (1.0 - (double)k / n) / ((double)k / n + 1.0 / n);
		print_message("wang: p=%.2f mean %.3f expected %.3f\n",
			      (double)k / n, mean, expect);
		assert_true(fabs(mean - expect) < 0.03 * expect + 0.02);
	}
	ew_freemap_destroy(&b.fm);
}

/*
 * Scarcity (ew_place.h): one block rewritten at QD1 on a member whose
 * first quarter a sequential fill packed, leaving 2% of it free at
 * random, the arm inside it at cylinder 5.  Each rewrite frees the
 * block's previous copy one write later (the target frees it once the
 * remap is durable).  Without the scarcity the writes of one of the
 * three fills stayed in the packed region, taking its holes and their
 * own freed blocks: 2.41 ms a rewrite on the Cheetah 9LP; with it all
 * three leave it at once and cost 1.72 ms, as on an empty member.
 */
static void test_nearest_packed(void **state)
{
	struct ew_disk_params p;
	struct bed b;
	u64 seed, blk, t, nb, prev, pend, cost, sum;
	struct ew_access a;
	u32 w, round;

	(void)state;
	ew_disk_params_default(&p);
	assert_int_equal(ew_disk_params_fit(&p, 128 * 2048), 0);
	for (round = 0; round < 3; round++) {
		bed_init(&b, &p, 128 * 2048, 8);
		nb = b.fm.nr_blocks;
		seed = 1 + round;
		for (blk = 0; blk < nb / 4; blk++)
			if (ew_test_below(&seed, 1000) >= 20)
				assert_int_equal(ew_freemap_alloc(&b.fm, blk), 0);
		b.h.cyl = 5;
		t = 0;
		sum = 0;
		prev = pend = EW_NO_BLOCK;
		for (w = 0; w < 2000; w++) {
			blk = ew_place_nearest_free(&b.pd, 8, t, &cost);
			assert_int_not_equal(blk, EW_NO_BLOCK);
			ew_disk_predict(&b.d, &b.h, t, blk * 8, 8, true, &a);
			assert_int_equal(a.end_ns - t, cost);
			assert_int_equal(ew_freemap_alloc(&b.fm, blk), 0);
			ew_head_complete(&b.d, &b.h, blk * 8, 8, a.end_ns);
			if (w >= 500)
				sum += cost;
			/* the software between two rewrites: 150 us */
			t = a.end_ns + 150000;
			if (pend != EW_NO_BLOCK)
				assert_int_equal(ew_freemap_free(&b.fm, pend), 0);
			pend = prev;
			prev = blk;
		}
		print_message("packed, seed %llu: %.3f ms a rewrite\n",
			      (unsigned long long)(1 + round), sum / 1500 / 1e6);
		assert_true(sum / 1500 < 1800000);
		ew_freemap_destroy(&b.fm);
	}
}

/* The journal slots of test_jslot: slot k is free when bit k is clear. */
struct jslots {
	u64 used[8];
};

static bool jslot_is_free(void *ctx, u32 slot)
{
	const struct jslots *j = ctx;

	return !(j->used[slot / 64] & (1ULL << (slot % 64)));
}

/*
 * Brute force: the free slot in [lo, hi] whose writes on all holders end
 * first.
 */
static u32 jslot_brute(const struct ew_pdisk *const *pds, u32 npd, u64 lba0,
		       u32 lo, u32 hi, struct jslots *j, u64 now,
		       u64 *best_end)
{
	struct ew_access a;
	u32 k, i, best = ~0U;
	u64 end;

	*best_end = ~0ULL;
	for (k = lo; k <= hi; k++) {
		if (!jslot_is_free(j, k))
			continue;
		end = 0;
		for (i = 0; i < npd; i++) {
			ew_disk_predict(pds[i]->model, pds[i]->head,
					now + pds[i]->lead_ns, lba0 + k * 16ULL,
					16, true, &a);
			end = max(end, a.end_ns);
		}
		if (end < *best_end) {
			*best_end = end;
			best = k;
		}
	}
	return best;
}

/*
 * ew_place_jslot(): a journal area of 8 KiB slots at the start of two
 * Cheetah members, their heads on random tracks of the first cylinders
 * (in the area and past it), half the slots taken at random.  With 120
 * slots (all within the window) the slot chosen is the brute-force best
 * of the area, its cost what the model predicts; with 500, the best of
 * the window: the slots of the track under the first holder's head,
 * EW_PLACE_JSLOT_WINDOW either side.  Non-rotational holders take the
 * first free slot from the hint; none free: nslots.
 */
static void test_jslot(void **state)
{
	struct ew_disk_params p;
	struct bed b[2];
	const struct ew_pdisk *pds[2] = { &b[0].pd, &b[1].pd };
	struct jslots j;
	u64 seed = 7, cost, best_end, now, lba0 = 2064, first;
	u32 round, slot, k, n, lo, hi, center;
	double sum = 0;

	(void)state;
	ew_disk_params_default(&p);
	bed_init(&b[0], &p, 48 * 2048, 8);
	bed_init(&b[1], &p, 48 * 2048, 8);
	for (round = 0; round < 400; round++) {
		n = round < 200 ? 120 : 500;
		memset(&j, 0, sizeof(j));
		for (k = 0; k < n; k++)
			if (ew_test_below(&seed, 2))
				j.used[k / 64] |= 1ULL << (k % 64);
		b[0].h.cyl = ew_test_below(&seed, 8);
		b[0].h.head = ew_test_below(&seed, p.heads);
		b[1].h.cyl = ew_test_below(&seed, 8);
		b[1].h.head = ew_test_below(&seed, p.heads);
		now = ew_test_below(&seed, 100000000);
		slot = ew_place_jslot(pds, 2, lba0, 16, n, 0, jslot_is_free,
				      &j, now, &cost);
		lo = 0;
		hi = n - 1;
		if (n > EW_PLACE_JSLOT_WINDOW) {
			first = ew_disk_track_first_lba(&b[0].d,
							b[0].h.cyl * p.heads +
							b[0].h.head);
			center = first > lba0 ?
				 (u32)min_t(u64, (first - lba0) / 16, n - 1) : 0;
			lo = center > EW_PLACE_JSLOT_WINDOW ?
			     center - EW_PLACE_JSLOT_WINDOW : 0;
			hi = min(center + EW_PLACE_JSLOT_WINDOW, n - 1);
		}
		assert_int_equal(slot, jslot_brute(pds, 2, lba0, lo, hi, &j,
						   now, &best_end));
		assert_int_equal(cost, best_end - now);
		sum += cost;
	}
	/* the model's positioning (overhead, settle, seek) and a little */
	print_message("jslot: mean cost %.3f ms\n", sum / 400 / 1e6);
	assert_true(sum / 400 < 3500000);
	/* one holder */
	slot = ew_place_jslot(pds, 1, lba0, 16, 120, 0, jslot_is_free, &j, now,
			      &cost);
	assert_int_equal(slot, jslot_brute(pds, 1, lba0, 0, 119, &j, now,
					   &best_end));
	/* non-rotational: the first free from the hint, cyclically */
	b[0].pd.nonrot = true;
	b[1].pd.nonrot = true;
	memset(&j, 0xff, sizeof(j));
	j.used[0] &= ~(1ULL << 3);
	j.used[7] &= ~(1ULL << 1);	/* slot 449 */
	assert_int_equal(ew_place_jslot(pds, 2, lba0, 16, 500, 10,
					jslot_is_free, &j, now, &cost), 449);
	assert_int_equal(cost, 0);
	assert_int_equal(ew_place_jslot(pds, 2, lba0, 16, 500, 450,
					jslot_is_free, &j, now, &cost), 3);
	memset(&j, 0xff, sizeof(j));
	assert_int_equal(ew_place_jslot(pds, 2, lba0, 16, 500, 0,
					jslot_is_free, &j, now, &cost), 500);
	ew_freemap_destroy(&b[0].fm);
	ew_freemap_destroy(&b[1].fm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nearest_toy_bs1),
		cmocka_unit_test(test_nearest_toy_bs3),
		cmocka_unit_test(test_nearest_based),
		cmocka_unit_test(test_nearest_dip),
		cmocka_unit_test(test_nearest_cheetah),
		cmocka_unit_test(test_nearest_direction),
		cmocka_unit_test(test_nearest_crafted),
		cmocka_unit_test(test_nearest_packed),
		cmocka_unit_test(test_write_idle_first),
		cmocka_unit_test(test_write_skip_failed_full),
		cmocka_unit_test(test_write_home),
		cmocka_unit_test(test_read_first_reached),
		cmocka_unit_test(test_nonrot),
		cmocka_unit_test(test_satf_ew),
		cmocka_unit_test(test_wang_bound),
		cmocka_unit_test(test_jslot),
	};

	return cmocka_run_group_tests_name("ew_place", tests, NULL, NULL);
}
