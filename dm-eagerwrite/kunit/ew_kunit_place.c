// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_kunit_place.c - KUnit suite dm_eagerwrite_place: the placement and
 * scheduling decisions of core/ew_place.h.
 *
 * The search for the free block a head reaches first prunes cylinders
 * and tracks; here its answer is compared with a brute force over every
 * free block of small crafted disks (the cost of each block is
 * ew_disk_predict(), whose values the disk suite checks by hand), under
 * random maps, head positions and times.  A few cases are also worked
 * out by hand.  Then: which candidate disk takes a write (idle first,
 * then the shortest queue, then the nearest free block), which replica a
 * read goes to (the one reached first), and SATF-EW's choice between
 * the nearest queued read and an eager write, and the journal slot two
 * holders reach first.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "../core/ew_place.h"
#include "ew_kunit_util.h"

#define US	1000ULL
#define MS	1000000ULL
#define BS	8		/* 4 KiB blocks */
#define NBLK	400		/* the whole small disk */
#define NDISK	4

struct ew_pl {
	struct ew_disk model;
	struct ew_head head[NDISK];
	struct ew_freemap fm[NDISK];
	struct ew_pdisk pd[NDISK];
	u32 nr_maps;		/* maps initialised (for the free) */
};

static int ew_pl_res_init(struct kunit_resource *res, void *context)
{
	struct ew_pl *pl = context;
	struct ew_disk_params p;
	u32 i;
	int ret;

	res->data = pl;
	ew_small_params(&p);
	ret = ew_disk_init(&pl->model, &p, 3200);
	if (ret)
		return ret;
	for (i = 0; i < NDISK; i++) {
		ret = ew_freemap_init(&pl->fm[i], &pl->model, BS, NBLK);
		if (ret) {
			while (i--)
				ew_freemap_destroy(&pl->fm[i]);
			return ret;
		}
		pl->pd[i].model = &pl->model;
		pl->pd[i].head = &pl->head[i];
		pl->pd[i].fm = &pl->fm[i];
	}
	pl->nr_maps = NDISK;
	return 0;
}

static void ew_pl_res_free(struct kunit_resource *res)
{
	struct ew_pl *pl = res->data;
	u32 i;

	for (i = 0; i < pl->nr_maps; i++)
		ew_freemap_destroy(&pl->fm[i]);
}

/* NDISK disks of the small model, every block free, heads at c0 h0. */
static struct ew_pl *ew_pl_setup(struct kunit *test)
{
	struct ew_pl *pl = kunit_kzalloc(test, sizeof(*pl), GFP_KERNEL);
	void *res;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pl);
	res = kunit_alloc_resource(test, ew_pl_res_init, ew_pl_res_free,
				   GFP_KERNEL, pl);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	return pl;
}

/* Leaves exactly the listed blocks of a map free. */
static void ew_only_free(struct kunit *test, struct ew_freemap *fm,
			 const u64 *blocks, u32 n)
{
	u64 b;
	u32 i;

	for (b = 0; b < NBLK; b++)
		if (!ew_freemap_is_free(fm, b))
			KUNIT_ASSERT_EQ(test, ew_freemap_free(fm, b), 0);
	KUNIT_ASSERT_EQ(test, ew_freemap_alloc_range(fm, 0, NBLK), 0);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, ew_freemap_free(fm, blocks[i]), 0);
}

static u64 write_cost(const struct ew_pdisk *pd, u64 block, u64 now)
{
	struct ew_access a;

	ew_disk_predict(pd->model, pd->head, now, block * BS, BS, true, &a);
	return a.end_ns - now;
}

static u64 read_cost(const struct ew_pdisk *pd, u64 lba, u32 nsect, u64 now)
{
	struct ew_access a;

	ew_disk_predict(pd->model, pd->head, now, lba, nsect, false, &a);
	return a.end_ns - now;
}

static u32 block_cyl(const struct ew_pdisk *pd, u64 b)
{
	return ew_freemap_block_track(pd->fm, b) / pd->model->p.heads;
}

/*
 * A cylinder's scarcity (ew_place.h), counted from its blocks: n start
 * there, k are free once one is taken.
 */
static u64 scarcity(const struct ew_pdisk *pd, u32 cyl)
{
	u64 b, n = 0, k = 0;

	for (b = 0; b < pd->fm->nr_blocks; b++) {
		if (block_cyl(pd, b) != cyl)
			continue;
		n++;
		k += ew_freemap_is_free(pd->fm, b);
	}
	k = k ? k - 1 : 0;
	if (!n || k >= n)
		return 0;
	return div64_u64(pd->model->p.rotation_ns * (n - k),
			 EW_PLACE_SCARCITY_DIV * (k + 1) * n);
}

/* What placement compares: the completion plus the scarcity. */
static u64 write_key(const struct ew_pdisk *pd, u64 block, u64 now)
{
	return write_cost(pd, block, now) + scarcity(pd, block_cyl(pd, block));
}

/*
 * The brute force: the least key over every free block (dir > 0:
 * cylinders at or beyond the head's only, dir < 0: at or before).
 */
static u64 brute_nearest(const struct ew_pdisk *pd, int dir, u64 now)
{
	u64 b, best = ~0ULL;

	for (b = 0; b < pd->fm->nr_blocks; b++) {
		u32 cyl = block_cyl(pd, b);

		if (!ew_freemap_is_free(pd->fm, b) ||
		    (dir > 0 && cyl < pd->head->cyl) ||
		    (dir < 0 && cyl > pd->head->cyl))
			continue;
		best = min(best, write_key(pd, b, now));
	}
	return best;
}

/*
 * Hand-worked, head at c0 h0, now 0.  A write positions in 0.1 ms
 * overhead + 0.2 ms settle (+ 0.5 ms head switch or a seek), then waits
 * for its first sector and transfers 8 sectors (0.48 ms in zone 0).
 *  - block 1 (LBA 8, slot 8 = 0.48 ms): 0.3 + 0.18 + 0.48 = 0.96 ms;
 *  - block 0 (slot 0) was just missed at 0.3 ms: 0.3 + 5.7 + 0.48 = 6.48;
 *  - block 13 (LBA 104 = c0 h1 s4, skew 10: slot 14 = 0.84 ms):
 *    0.8 + 0.04 + 0.48 = 1.32 ms;
 *  - block 25 (LBA 200 = c1 h0 s0, slot 30 = 1.8 ms): 0.1 + 1 + 0.2 =
 *    1.3, + 0.5 + 0.48 = 2.28 ms.
 */
static void ew_place_nearest_by_hand(struct kunit *test)
{
	struct ew_pl *pl = ew_pl_setup(test);
	struct ew_pdisk *pd = &pl->pd[0];
	static const u64 set1[] = { 0, 1, 13, 25 };
	static const u64 set2[] = { 0, 13, 25 };
	static const u64 set3[] = { 0, 25 };
	static const u64 set4[] = { 0 };
	u64 cost = 0;

	ew_only_free(test, &pl->fm[0], set1, ARRAY_SIZE(set1));
	KUNIT_EXPECT_EQ(test, ew_place_nearest_free(pd, BS, 0, &cost), 1ULL);
	KUNIT_EXPECT_EQ(test, cost, 960 * US);
	ew_only_free(test, &pl->fm[0], set2, ARRAY_SIZE(set2));
	KUNIT_EXPECT_EQ(test, ew_place_nearest_free(pd, BS, 0, &cost), 13ULL);
	KUNIT_EXPECT_EQ(test, cost, 1320 * US);
	ew_only_free(test, &pl->fm[0], set3, ARRAY_SIZE(set3));
	KUNIT_EXPECT_EQ(test, ew_place_nearest_free(pd, BS, 0, &cost), 25ULL);
	KUNIT_EXPECT_EQ(test, cost, 2280 * US);
	ew_only_free(test, &pl->fm[0], set4, ARRAY_SIZE(set4));
	KUNIT_EXPECT_EQ(test, ew_place_nearest_free(pd, BS, 0, &cost), 0ULL);
	KUNIT_EXPECT_EQ(test, cost, 6480 * US);
	/* Issued at 0.18 ms: positioned at 0.48 ms, slot 0 comes round
	 * at 6 ms, done at 6.48 ms: 6.3 ms after issue.
	 */
	KUNIT_EXPECT_EQ(test, ew_place_nearest_free(pd, BS, 180 * US, &cost),
			0ULL);
	KUNIT_EXPECT_EQ(test, cost, 6300 * US);
	/* Issued at 5.7 ms the head settles at 6.0 ms: angle 0, no wait. */
	KUNIT_EXPECT_EQ(test, ew_place_nearest_free(pd, BS, 5700 * US, &cost),
			0ULL);
	KUNIT_EXPECT_EQ(test, cost, 780 * US);

	/* Nothing free: no block. */
	KUNIT_ASSERT_EQ(test, ew_freemap_alloc(&pl->fm[0], 0), 0);
	KUNIT_EXPECT_EQ(test, ew_place_nearest_free(pd, BS, 0, &cost),
			EW_NO_BLOCK);
}

/*
 * A block priced for a write sent at 0 and sent later (the searches
 * took that long), hand-worked as above: block 1 is positioned for at
 * 0.3 ms and its first sector comes at 0.48 ms, done at 0.96 ms.  Sent
 * at 0.18 ms the arm is ready at 0.48 ms, just in time: reached, the
 * same completion.  Sent at 0.2 ms it is ready at 0.5 ms, the sector has
 * passed: a turn more, not reached.  The lead counts as part of the
 * delay; a non-rotational member is always reached.
 */
static void ew_place_reached_by_hand(struct kunit *test)
{
	struct ew_pl *pl = ew_pl_setup(test);
	struct ew_pdisk *pd = &pl->pd[0];

	KUNIT_EXPECT_EQ(test, write_cost(pd, 1, 0), 960 * US);
	KUNIT_EXPECT_TRUE(test, ew_place_reached(pd, 1, BS, 960 * US, 0));
	KUNIT_EXPECT_TRUE(test, ew_place_reached(pd, 1, BS, 960 * US,
						 180 * US));
	KUNIT_EXPECT_EQ(test, write_cost(pd, 1, 200 * US) + 200 * US,
			(6000 + 960) * US);
	KUNIT_EXPECT_FALSE(test, ew_place_reached(pd, 1, BS, 960 * US,
						  200 * US));
	pd->lead_ns = 20 * US;
	KUNIT_EXPECT_FALSE(test, ew_place_reached(pd, 1, BS, 960 * US,
						  180 * US));
	pd->nonrot = true;
	KUNIT_EXPECT_TRUE(test, ew_place_reached(pd, 1, BS, 960 * US,
						 200 * US));
}

struct ew_nf_case {
	const char *name;
	u32 free_pct_x10;	/* free blocks, per mille */
	u64 seed;
};

static const struct ew_nf_case ew_nf_cases[] = {
	{ "all free", 1000, 1 },
	{ "half free", 500, 2 },
	{ "20% free", 200, 3 },
	{ "5% free", 50, 4 },
	{ "1% free", 10, 5 },
	{ "0.3% free", 3, 6 },
};

static void ew_nf_case_desc(const struct ew_nf_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_nf, ew_nf_cases, ew_nf_case_desc);

/* Randomly fills a map to about free_pct_x10 per mille free. */
static void ew_random_map(struct kunit *test, struct ew_freemap *fm,
			  struct rnd_state *rnd, u32 free_pct_x10)
{
	u64 b;

	for (b = 0; b < NBLK; b++) {
		bool want_free = prandom_u32_state(rnd) % 1000 < free_pct_x10;

		if (want_free && !ew_freemap_is_free(fm, b))
			KUNIT_ASSERT_EQ(test, ew_freemap_free(fm, b), 0);
		else if (!want_free && ew_freemap_is_free(fm, b))
			KUNIT_ASSERT_EQ(test, ew_freemap_alloc(fm, b), 0);
	}
}

static void ew_random_head(struct ew_head *h, struct rnd_state *rnd,
			   u64 *now)
{
	h->cyl = prandom_u32_state(rnd) % 20;
	h->head = prandom_u32_state(rnd) % 2;
	*now = prandom_u32_state(rnd) % (12 * MS);
	/* Sometimes still busy with earlier work. */
	h->free_at_ns = prandom_u32_state(rnd) % 3 ? 0 :
			*now + prandom_u32_state(rnd) % (8 * MS);
}

static void ew_place_nearest_brute(struct kunit *test)
{
	const struct ew_nf_case *c = test->param_value;
	struct ew_pl *pl = ew_pl_setup(test);
	struct ew_pdisk *pd = &pl->pd[0];
	struct rnd_state rnd;
	u32 round;
	int dir;

	prandom_seed_state(&rnd, c->seed);
	for (round = 0; round < 60; round++) {
		u64 now, cost, b, want;

		if (round % 10 == 0)
			ew_random_map(test, &pl->fm[0], &rnd, c->free_pct_x10);
		ew_random_head(&pl->head[0], &rnd, &now);
		for (dir = -1; dir <= 1; dir++) {
			want = brute_nearest(pd, dir, now);
			cost = 0;
			b = dir ? ew_place_nearest_free_dir(pd, BS, now, dir,
							    &cost) :
				  ew_place_nearest_free(pd, BS, now, &cost);
			if (want == ~0ULL) {
				KUNIT_ASSERT_EQ_MSG(test, b, EW_NO_BLOCK,
						    "round %u dir %d", round,
						    dir);
				continue;
			}
			KUNIT_ASSERT_NE_MSG(test, b, EW_NO_BLOCK,
					    "round %u dir %d", round, dir);
			KUNIT_ASSERT_TRUE_MSG(test,
					      ew_freemap_is_free(&pl->fm[0], b),
					      "round %u: block %llu is used",
					      round, b);
			KUNIT_ASSERT_EQ_MSG(test, write_key(pd, b, now), want,
					    "round %u dir %d: c%u h%u now %llu free_at %llu: block %llu",
					    round, dir, pl->head[0].cyl,
					    pl->head[0].head, now,
					    pl->head[0].free_at_ns, b);
			KUNIT_ASSERT_EQ_MSG(test, write_cost(pd, b, now), cost,
					    "round %u dir %d block %llu",
					    round, dir, b);
		}
	}
}

/*
 * Write placement.  Disk 0 has only block 0 free (6.48 ms from c0 h0 at
 * time 0), disk 1 only block 1 (0.96 ms): see ew_place_nearest_by_hand.
 */
static void ew_place_write_choice(struct kunit *test)
{
	struct ew_pl *pl = ew_pl_setup(test);
	static const u64 only0[] = { 0 }, only1[] = { 1 };
	struct ew_replica cand[2] = { { 0, EW_NO_BLOCK }, { 1, EW_NO_BLOCK } };
	struct ew_replica swapped[2] = { { 3, EW_NO_BLOCK },
					 { 2, EW_NO_BLOCK } };
	struct ew_choice out;

	ew_only_free(test, &pl->fm[0], only0, 1);
	ew_only_free(test, &pl->fm[1], only1, 1);
	ew_only_free(test, &pl->fm[2], only0, 1);
	ew_only_free(test, &pl->fm[3], only1, 1);

	/* Both idle: the head closest to a free block. */
	KUNIT_ASSERT_EQ(test, ew_place_write(pl->pd, cand, 2, 0, true, BS, 0,
					     &out), 0);
	KUNIT_EXPECT_EQ(test, out.index, 1U);
	KUNIT_EXPECT_EQ(test, out.disk, 1U);
	KUNIT_EXPECT_EQ(test, out.block, 1ULL);
	KUNIT_EXPECT_EQ(test, out.cost_ns, 960 * US);

	/* Index and disk are different things. */
	KUNIT_ASSERT_EQ(test, ew_place_write(pl->pd, swapped, 2, 0, true, BS,
					     0, &out), 0);
	KUNIT_EXPECT_EQ(test, out.index, 0U);
	KUNIT_EXPECT_EQ(test, out.disk, 3U);
	KUNIT_EXPECT_EQ(test, out.block, 1ULL);

	/* The close disk is busy: the idle one, however far. */
	pl->pd[1].queued = 1;
	KUNIT_ASSERT_EQ(test, ew_place_write(pl->pd, cand, 2, 0, true, BS, 0,
					     &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 0U);
	KUNIT_EXPECT_EQ(test, out.block, 0ULL);
	KUNIT_EXPECT_EQ(test, out.cost_ns, 6480 * US);

	/* Both busy: the shorter queue. */
	pl->pd[0].queued = 3;
	KUNIT_ASSERT_EQ(test, ew_place_write(pl->pd, cand, 2, 0, true, BS, 0,
					     &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 1U);
	pl->pd[1].queued = 5;
	KUNIT_ASSERT_EQ(test, ew_place_write(pl->pd, cand, 2, 0, true, BS, 0,
					     &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 0U);
	pl->pd[0].queued = 0;
	pl->pd[1].queued = 0;

	/* Skipped (already chosen), failed, or without a map: the other. */
	KUNIT_ASSERT_EQ(test, ew_place_write(pl->pd, cand, 2, 1U << 1, true, BS,
					     0, &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 0U);
	pl->pd[1].failed = true;
	KUNIT_ASSERT_EQ(test, ew_place_write(pl->pd, cand, 2, 0, true, BS, 0,
					     &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 0U);
	pl->pd[1].failed = false;
	pl->pd[1].fm = NULL;
	KUNIT_ASSERT_EQ(test, ew_place_write(pl->pd, cand, 2, 0, true, BS, 0,
					     &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 0U);
	pl->pd[1].fm = &pl->fm[1];

	/* Nobody can take it. */
	KUNIT_EXPECT_EQ(test, ew_place_write(pl->pd, cand, 2, 3, true, BS, 0,
					     &out), -ENOSPC);
	KUNIT_ASSERT_EQ(test, ew_freemap_alloc(&pl->fm[0], 0), 0);
	KUNIT_ASSERT_EQ(test, ew_freemap_alloc(&pl->fm[1], 1), 0);
	KUNIT_EXPECT_EQ(test, ew_place_write(pl->pd, cand, 2, 0, true, BS, 0,
					     &out), -ENOSPC);
}

/* Not eager (raid10, ddm's home step): the candidate's home, in place. */
static void ew_place_write_home(struct kunit *test)
{
	struct ew_pl *pl = ew_pl_setup(test);
	struct ew_replica cand[2] = { { 0, 0 }, { 1, 1 } };
	struct ew_choice out;

	KUNIT_ASSERT_EQ(test, ew_place_write(pl->pd, cand, 2, 0, false, BS, 0,
					     &out), 0);
	KUNIT_EXPECT_EQ(test, out.index, 1U);
	KUNIT_EXPECT_EQ(test, out.disk, 1U);
	KUNIT_EXPECT_EQ(test, out.block, 1ULL);
	KUNIT_EXPECT_EQ(test, out.cost_ns, 960 * US);
	pl->pd[1].queued = 2;
	KUNIT_ASSERT_EQ(test, ew_place_write(pl->pd, cand, 2, 0, false, BS, 0,
					     &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 0U);
	KUNIT_EXPECT_EQ(test, out.block, 0ULL);
	KUNIT_EXPECT_EQ(test, out.cost_ns, 6480 * US);
}

/* Random candidates: the idle disk with the least brute-force cost. */
static void ew_place_write_brute(struct kunit *test)
{
	struct ew_pl *pl = ew_pl_setup(test);
	struct ew_replica cand[NDISK];
	struct rnd_state rnd;
	u32 round, i;

	prandom_seed_state(&rnd, 42);
	for (i = 0; i < NDISK; i++)
		cand[i] = (struct ew_replica){ NDISK - 1 - i, EW_NO_BLOCK };
	for (round = 0; round < 40; round++) {
		u64 now = prandom_u32_state(&rnd) % (12 * MS), best = ~0ULL;
		struct ew_choice out;
		int ret;

		for (i = 0; i < NDISK; i++) {
			u64 t;

			if (round % 8 == 0)
				ew_random_map(test, &pl->fm[i], &rnd, 30);
			ew_random_head(&pl->head[i], &rnd, &t);
			pl->pd[i].queued = 0;
			/* each disk's own choice: ew_place_nearest_brute */
			if (ew_place_nearest_free(&pl->pd[i], BS, now, &t) !=
			    EW_NO_BLOCK)
				best = min(best, t);
		}
		ret = ew_place_write(pl->pd, cand, NDISK, 0, true, BS, now,
				     &out);
		if (best == ~0ULL) {
			KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
			continue;
		}
		KUNIT_ASSERT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ_MSG(test, out.cost_ns, best, "round %u", round);
		KUNIT_ASSERT_LT(test, out.index, (u32)NDISK);
		KUNIT_EXPECT_EQ(test, out.disk, cand[out.index].disk);
		KUNIT_EXPECT_TRUE(test, ew_freemap_is_free(&pl->fm[out.disk],
							   out.block));
		KUNIT_EXPECT_EQ_MSG(test, write_cost(&pl->pd[out.disk],
						     out.block, now),
				    best, "round %u", round);
	}
}

/*
 * Reads of block 1 (LBA 8: slot 8, 0.48 ms), 8 sectors, at time 0:
 * from c0 h0, 0.1 ms overhead then 0.38 ms wait and 0.48 ms transfer:
 * 0.96 ms.  From cylinder 5: 0.1 + 1.5 + 0.1 * sqrt(5) = 1.8236 ms, the
 * slot is missed: 6.48 + 0.48 = 6.96 ms.
 */
static void ew_place_read_choice(struct kunit *test)
{
	struct ew_pl *pl = ew_pl_setup(test);
	u32 disk[2] = { 1, 0 };
	u64 block[2] = { 1, 1 };
	struct ew_choice out;

	pl->head[1].cyl = 5;
	KUNIT_ASSERT_EQ(test, ew_place_read(pl->pd, disk, block, 2, 0, BS, BS,
					    0, &out), 0);
	KUNIT_EXPECT_EQ(test, out.index, 1U);
	KUNIT_EXPECT_EQ(test, out.disk, 0U);
	KUNIT_EXPECT_EQ(test, out.block, 1ULL);
	KUNIT_EXPECT_EQ(test, out.cost_ns, 960 * US);

	/* Disk 0 is busy until 10 ms: disk 1 is reached first. */
	pl->head[0].free_at_ns = 10 * MS;
	KUNIT_ASSERT_EQ(test, ew_place_read(pl->pd, disk, block, 2, 0, BS, BS,
					    0, &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 1U);
	KUNIT_EXPECT_EQ(test, out.cost_ns, 6960 * US);
	pl->head[0].free_at_ns = 0;

	/*
	 * Replicas at different places: disk 1's copy at block 251 (LBA
	 * 2008 = c10 h0 s8 in zone 1, slot 8 = 0.8 ms), its head on
	 * cylinder 10: 0.1 + 0.7 + 0.8 (8 sectors of 0.1 ms) = 1.6 ms,
	 * later than disk 0's 0.96 ms.
	 */
	block[0] = 251;
	pl->head[1].cyl = 10;
	KUNIT_ASSERT_EQ(test, ew_place_read(pl->pd, disk, block, 2, 0, BS, BS,
					    0, &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 0U);
	/* Disk 0's copy at block 0 was just missed (6.48 ms): disk 1. */
	block[1] = 0;
	KUNIT_ASSERT_EQ(test, ew_place_read(pl->pd, disk, block, 2, 0, BS, BS,
					    0, &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 1U);
	KUNIT_EXPECT_EQ(test, out.block, 251ULL);
	KUNIT_EXPECT_EQ(test, out.cost_ns, 1600 * US);

	/* Skipped or failed replicas are not read; none left: -ENODATA. */
	KUNIT_ASSERT_EQ(test, ew_place_read(pl->pd, disk, block, 2, 1, BS, BS,
					    0, &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 0U);
	pl->pd[0].failed = true;
	KUNIT_ASSERT_EQ(test, ew_place_read(pl->pd, disk, block, 2, 0, BS, BS,
					    0, &out), 0);
	KUNIT_EXPECT_EQ(test, out.disk, 1U);
	KUNIT_EXPECT_EQ(test, ew_place_read(pl->pd, disk, block, 2, 1, BS, BS,
					    0, &out), -ENODATA);
	KUNIT_EXPECT_EQ(test, ew_place_read(pl->pd, disk, block, 2, 3, BS, BS,
					    0, &out), -ENODATA);
}

/* Random replicas: the one with the least brute-force read cost. */
static void ew_place_read_brute(struct kunit *test)
{
	struct ew_pl *pl = ew_pl_setup(test);
	struct rnd_state rnd;
	u32 round, i;

	prandom_seed_state(&rnd, 7);
	for (round = 0; round < 200; round++) {
		u64 now = prandom_u32_state(&rnd) % (12 * MS), best = ~0ULL;
		u32 disk[NDISK], n = 2 + round % (NDISK - 1);
		u32 nsect = BS * (1 + round % 2);
		u64 block[NDISK];
		struct ew_choice out;

		for (i = 0; i < n; i++) {
			u64 t;

			disk[i] = (i + round) % NDISK;
			block[i] = prandom_u32_state(&rnd) % (NBLK - 1);
			ew_random_head(&pl->head[disk[i]], &rnd, &t);
		}
		for (i = 0; i < n; i++)
			best = min(best, read_cost(&pl->pd[disk[i]],
						   block[i] * BS, nsect, now));
		KUNIT_ASSERT_EQ(test, ew_place_read(pl->pd, disk, block, n, 0,
						    BS, nsect, now, &out), 0);
		KUNIT_EXPECT_EQ_MSG(test, out.cost_ns, best, "round %u", round);
		KUNIT_ASSERT_LT(test, out.index, n);
		KUNIT_EXPECT_EQ(test, out.disk, disk[out.index]);
		KUNIT_EXPECT_EQ(test, out.block, block[out.index]);
		KUNIT_EXPECT_EQ(test, read_cost(&pl->pd[out.disk],
						out.block * BS, nsect, now),
				best);
	}
}

/*
 * SATF-EW on one disk, head at c0 h0, time 0: a read of LBA 8 costs
 * 0.96 ms, of LBA 104 (c0 h1 s4, slot 14) 0.1 + 0.5 + 0.24 + 0.48 =
 * 1.32 ms; an eager write to block 1 costs 0.96 ms, to block 13 1.32 ms.
 */
static void ew_place_satf(struct kunit *test)
{
	struct ew_pl *pl = ew_pl_setup(test);
	struct ew_pdisk *pd = &pl->pd[0];
	static const u64 only1[] = { 1 }, only13[] = { 13 };
	u64 reads[2] = { 104, 8 }, block, cost;

	KUNIT_EXPECT_EQ(test, ew_place_satf_ew(pd, reads, 0, BS, false, BS, 0,
					       &block, &cost), -2);
	/* Reads only: the one reached first. */
	KUNIT_EXPECT_EQ(test, ew_place_satf_ew(pd, reads, 2, BS, false, BS, 0,
					       &block, &cost), 1);
	KUNIT_EXPECT_EQ(test, cost, 960 * US);
	/* A write to block 13 (1.32 ms) loses to the read of LBA 8. */
	ew_only_free(test, &pl->fm[0], only13, 1);
	KUNIT_EXPECT_EQ(test, ew_place_satf_ew(pd, reads, 2, BS, true, BS, 0,
					       &block, &cost), 1);
	KUNIT_EXPECT_EQ(test, cost, 960 * US);
	/* With no read queued the write goes. */
	KUNIT_EXPECT_EQ(test, ew_place_satf_ew(pd, reads, 0, BS, true, BS, 0,
					       &block, &cost), -1);
	KUNIT_EXPECT_EQ(test, block, 13ULL);
	KUNIT_EXPECT_EQ(test, cost, 1320 * US);
	/* A write to block 1 (0.96 ms) beats the read of LBA 104. */
	ew_only_free(test, &pl->fm[0], only1, 1);
	KUNIT_EXPECT_EQ(test, ew_place_satf_ew(pd, reads, 1, BS, true, BS, 0,
					       &block, &cost), -1);
	KUNIT_EXPECT_EQ(test, block, 1ULL);
	KUNIT_EXPECT_EQ(test, cost, 960 * US);
	/* No free block: the write cannot be chosen. */
	KUNIT_ASSERT_EQ(test, ew_freemap_alloc(&pl->fm[0], 1), 0);
	KUNIT_EXPECT_EQ(test, ew_place_satf_ew(pd, reads, 1, BS, true, BS, 0,
					       &block, &cost), 0);
	KUNIT_EXPECT_EQ(test, ew_place_satf_ew(pd, reads, 0, BS, true, BS, 0,
					       &block, &cost), -2);
}

/* Random queues: SATF-EW against the brute force (ties not asserted). */
static void ew_place_satf_brute(struct kunit *test)
{
	struct ew_pl *pl = ew_pl_setup(test);
	struct ew_pdisk *pd = &pl->pd[0];
	struct rnd_state rnd;
	u32 round, i;

	prandom_seed_state(&rnd, 99);
	for (round = 0; round < 200; round++) {
		u64 reads[6], now, rbest = ~0ULL, wbest, block, cost;
		u32 n = round % ARRAY_SIZE(reads);
		bool have_write = round % 3 != 0;
		int got;

		if (round % 20 == 0)
			ew_random_map(test, &pl->fm[0], &rnd, 20);
		ew_random_head(&pl->head[0], &rnd, &now);
		for (i = 0; i < n; i++) {
			reads[i] = prandom_u32_state(&rnd) % (3200 - BS);
			rbest = min(rbest, read_cost(pd, reads[i], BS, now));
		}
		/* the write's block: ew_place_nearest_brute checks it */
		if (!have_write ||
		    ew_place_nearest_free(pd, BS, now, &wbest) == EW_NO_BLOCK)
			wbest = ~0ULL;
		got = ew_place_satf_ew(pd, reads, n, BS, have_write, BS, now,
				       &block, &cost);
		if (rbest == ~0ULL && wbest == ~0ULL) {
			KUNIT_EXPECT_EQ_MSG(test, got, -2, "round %u", round);
			continue;
		}
		if (wbest < rbest) {
			KUNIT_EXPECT_EQ_MSG(test, got, -1, "round %u", round);
			KUNIT_EXPECT_EQ(test, cost, wbest);
			KUNIT_EXPECT_TRUE(test, ew_freemap_is_free(&pl->fm[0],
								   block));
			KUNIT_EXPECT_EQ(test, write_cost(pd, block, now), wbest);
		} else if (rbest < wbest) {
			KUNIT_ASSERT_GE_MSG(test, got, 0, "round %u", round);
			KUNIT_ASSERT_LT(test, got, (int)n);
			KUNIT_EXPECT_EQ(test, read_cost(pd, reads[got], BS, now),
					rbest);
		}
	}
}

/*
 * Wang et al. (OSDI 1999): on one track of n blocks with k = p * n of
 * them free at random, the head passes (n - k) / (k + 1) occupied blocks
 * on average before the first free one, (1 - p) / (p + 1/n).  One track
 * of 30 blocks (240 sectors, 6 ms a turn: 0.2 ms a block), no overhead or
 * settle, the head arriving at a random block boundary: the chosen
 * block's distance from the head, averaged over 4000 random maps, must
 * come within 0.25 blocks of the bound (a few standard errors).
 */
static void ew_place_wang_bound(struct kunit *test)
{
	static const u32 ks[] = { 15, 9, 6, 3, 1 };
	struct ew_disk *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct ew_freemap *fm = kunit_kzalloc(test, sizeof(*fm), GFP_KERNEL);
	struct ew_head h = { 0 };
	struct ew_pdisk pd = { .model = d, .head = &h, .fm = fm };
	struct ew_disk_params p;
	struct rnd_state rnd;
	const u32 n = 30;
	u32 i, trial, j;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fm);
	ew_small_params(&p);
	p.heads = 1;
	p.nr_zones = 1;
	p.zones[0] = (struct ew_zone){ .cylinders = 1, .spt = 240 };
	p.overhead_ns = 0;
	p.write_settle_ns = 0;
	KUNIT_ASSERT_EQ(test, ew_disk_init(d, &p, 240), 0);
	KUNIT_ASSERT_EQ(test, ew_freemap_init(fm, d, BS, n), 0);
	prandom_seed_state(&rnd, 2002);

	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		u32 k = ks[i];
		u64 gaps = 0, want_x1000, got_x1000, cost;

		for (trial = 0; trial < 4000; trial++) {
			u64 start = prandom_u32_state(&rnd) % n, b;
			u32 nfree = 0;

			/* k free blocks, chosen uniformly */
			for (j = 0; j < n; j++)
				if (!ew_freemap_is_free(fm, j))
					ew_freemap_free(fm, j);
			ew_freemap_alloc_range(fm, 0, n);
			while (nfree < k) {
				b = prandom_u32_state(&rnd) % n;
				if (!ew_freemap_is_free(fm, b)) {
					ew_freemap_free(fm, b);
					nfree++;
				}
			}
			b = ew_place_nearest_free(&pd, BS, start * 200 * US,
						  &cost);
			KUNIT_ASSERT_NE(test, b, EW_NO_BLOCK);
			gaps += (b + n - start) % n;
			/* wait for the gap, then one block's transfer */
			KUNIT_ASSERT_EQ(test, cost,
					((b + n - start) % n + 1) * 200 * US);
		}
		want_x1000 = div64_u64((n - k) * 1000ULL, k + 1);
		got_x1000 = div64_u64(gaps * 1000, 4000);
		kunit_info(test, "k=%u of %u free: mean gap %llu.%03llu blocks, bound %llu.%03llu\n",
			   k, n, got_x1000 / 1000, got_x1000 % 1000,
			   want_x1000 / 1000, want_x1000 % 1000);
		KUNIT_EXPECT_LE(test, got_x1000, want_x1000 + 250);
		KUNIT_EXPECT_GE(test, got_x1000 + 250, want_x1000);
	}
	ew_freemap_destroy(fm);
}

/* ew_place_jslot(): slots of 8 sectors from lba 100, free when bit clear. */
static bool ew_jslot_free(void *ctx, u32 slot)
{
	const u64 *used = ctx;

	return !(used[slot / 64] & BIT_ULL(slot % 64));
}

/*
 * The journal slot two holders reach first: with 120 slots (no more than
 * EW_PLACE_JSLOT_WINDOW + 1: all within the window of any head) the
 * brute-force best of every free slot, for random heads, times and
 * taken slots; non-rotational holders take the first free slot from
 * the hint; none free gives nslots.
 */
static void ew_place_jslot_brute(struct kunit *test)
{
	struct ew_pl *pl = ew_pl_setup(test);
	const struct ew_pdisk *pds[2] = { &pl->pd[0], &pl->pd[1] };
	struct rnd_state rnd;
	struct ew_access a;
	u64 used[4], now, cost, end, best_end;
	u32 round, k, slot, best, i;

	prandom_seed_state(&rnd, 42);
	for (round = 0; round < 100; round++) {
		for (i = 0; i < 4; i++)
			used[i] = ((u64)prandom_u32_state(&rnd) << 32) |
				  prandom_u32_state(&rnd);
		for (i = 0; i < 2; i++) {
			pl->head[i].cyl = prandom_u32_state(&rnd) % 20;
			pl->head[i].head = prandom_u32_state(&rnd) % 2;
		}
		now = prandom_u32_state(&rnd) % (12 * MS);
		slot = ew_place_jslot(pds, 2, 100, 8, 120, 0, ew_jslot_free,
				      used, now, &cost);
		best = 120;
		best_end = ~0ULL;
		for (k = 0; k < 120; k++) {
			if (!ew_jslot_free(used, k))
				continue;
			end = 0;
			for (i = 0; i < 2; i++) {
				ew_disk_predict(&pl->model, &pl->head[i], now,
						100 + k * 8, 8, true, &a);
				end = max(end, a.end_ns);
			}
			if (end < best_end) {
				best_end = end;
				best = k;
			}
		}
		KUNIT_EXPECT_EQ(test, slot, best);
		KUNIT_EXPECT_EQ(test, cost, best_end - now);
	}
	pl->pd[0].nonrot = true;
	pl->pd[1].nonrot = true;
	memset(used, 0xff, sizeof(used));
	used[0] &= ~BIT_ULL(5);
	used[2] &= ~BIT_ULL(0);		/* slot 128 */
	KUNIT_EXPECT_EQ(test, ew_place_jslot(pds, 2, 100, 8, 200, 6,
					     ew_jslot_free, used, now, &cost),
			128U);
	KUNIT_EXPECT_EQ(test, ew_place_jslot(pds, 2, 100, 8, 200, 129,
					     ew_jslot_free, used, now, &cost),
			5U);
	memset(used, 0xff, sizeof(used));
	KUNIT_EXPECT_EQ(test, ew_place_jslot(pds, 2, 100, 8, 200, 0,
					     ew_jslot_free, used, now, &cost),
			200U);
}

static struct kunit_case ew_place_cases[] = {
	KUNIT_CASE(ew_place_nearest_by_hand),
	KUNIT_CASE(ew_place_reached_by_hand),
	KUNIT_CASE_PARAM(ew_place_nearest_brute, ew_nf_gen_params),
	KUNIT_CASE(ew_place_write_choice),
	KUNIT_CASE(ew_place_write_home),
	KUNIT_CASE(ew_place_write_brute),
	KUNIT_CASE(ew_place_read_choice),
	KUNIT_CASE(ew_place_read_brute),
	KUNIT_CASE(ew_place_satf),
	KUNIT_CASE(ew_place_satf_brute),
	KUNIT_CASE(ew_place_jslot_brute),
	KUNIT_CASE(ew_place_wang_bound),
	{}
};

static struct kunit_suite ew_place_suite = {
	.name = "dm_eagerwrite_place",
	.test_cases = ew_place_cases,
};

kunit_test_suite(ew_place_suite);
