// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_kunit_freemap.c - KUnit suite dm_eagerwrite_freemap: the free-block
 * map of core/ew_freemap.h.
 *
 * A naive model (one bool per block, counts recomputed by scanning) is
 * driven alongside the map through random allocations and frees; after
 * each step the map's counts, ew_freemap_find_free() and
 * ew_freemap_next_cyl() must agree with the model.  Which track a block
 * belongs to is worked out here from the disk's zone table.  A disk of
 * 300 cylinders makes next_cyl() cross its 64-cylinder summary groups.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "../core/ew_freemap.h"
#include "ew_kunit_util.h"

/* First LBA of a track of the small disk (tracks 0..19: zone 0). */
static u64 small_track_lba(u32 t)
{
	return t < 20 ? 100ULL * t : 2000 + 60ULL * (t - 20);
}

/* One zone of 300 one-surface cylinders of 16 sectors: 2 blocks each. */
static void ew_long_params(struct ew_disk_params *p)
{
	ew_small_params(p);
	p->heads = 1;
	p->nr_zones = 1;
	p->zones[0] = (struct ew_zone){ .cylinders = 300, .spt = 16,
					.track_skew = 1, .cyl_skew = 2 };
}

struct ew_fm_fixture {
	struct ew_disk disk;
	struct ew_freemap fm;
	bool *used;		/* the model */
	u64 nr_blocks;
	u32 bs;
};

/* The map is a test-managed resource: destroyed however the test ends. */
static int ew_fm_res_init(struct kunit_resource *res, void *context)
{
	struct ew_fm_fixture *f = context;

	res->data = f;
	return ew_freemap_init(&f->fm, &f->disk, f->bs, f->nr_blocks);
}

static void ew_fm_res_free(struct kunit_resource *res)
{
	struct ew_fm_fixture *f = res->data;

	ew_freemap_destroy(&f->fm);
}

static struct ew_fm_fixture *ew_fm_setup(struct kunit *test, bool long_disk,
					 u32 bs, u64 nr_blocks)
{
	struct ew_fm_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct ew_disk_params p;
	void *res;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	if (long_disk)
		ew_long_params(&p);
	else
		ew_small_params(&p);
	KUNIT_ASSERT_EQ(test, ew_disk_init(&f->disk, &p,
					   long_disk ? 300 * 16 : 3200), 0);
	f->nr_blocks = nr_blocks;
	f->bs = bs;
	res = kunit_alloc_resource(test, ew_fm_res_init, ew_fm_res_free,
				   GFP_KERNEL, f);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, res);
	f->used = kunit_kcalloc(test, nr_blocks, sizeof(bool), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->used);
	return f;
}

/* Track of a block by its first sector, from the zone table. */
static u32 model_track(const struct ew_fm_fixture *f, u64 b)
{
	u64 lba = b * f->bs;
	u32 t = 0;

	while (t + 1 < ew_disk_nr_tracks(&f->disk) &&
	       ew_disk_track_first_lba(&f->disk, t + 1) <= lba)
		t++;
	return t;
}

static u32 model_cyl(const struct ew_fm_fixture *f, u64 b)
{
	return model_track(f, b) / f->disk.p.heads;
}

/* Compares every count and query of the map with the model. */
static void ew_fm_compare(struct kunit *test, struct ew_fm_fixture *f)
{
	u32 tracks = f->fm.nr_tracks, cyls = f->fm.nr_cyls, t, c;
	u32 *tf = kunit_kcalloc(test, tracks, sizeof(u32), GFP_KERNEL);
	u32 *cf = kunit_kcalloc(test, cyls, sizeof(u32), GFP_KERNEL);
	u64 b, nfree = 0, from;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cf);
	for (b = 0; b < f->nr_blocks; b++) {
		KUNIT_ASSERT_EQ_MSG(test, ew_freemap_is_free(&f->fm, b),
				    !f->used[b], "block %llu", b);
		if (!f->used[b]) {
			nfree++;
			tf[model_track(f, b)]++;
			cf[model_cyl(f, b)]++;
		}
	}
	KUNIT_ASSERT_EQ(test, f->fm.nr_free, nfree);
	for (t = 0; t < tracks; t++)
		KUNIT_ASSERT_EQ_MSG(test, ew_freemap_track_free(&f->fm, t),
				    tf[t], "track %u", t);
	for (c = 0; c < cyls; c++)
		KUNIT_ASSERT_EQ_MSG(test, ew_freemap_cyl_free(&f->fm, c), cf[c],
				    "cylinder %u", c);

	/* next_cyl from every cylinder, both ways. */
	for (c = 0; c < cyls; c++) {
		s64 up = -1, down = -1, k;

		for (k = c; k < cyls; k++)
			if (cf[k]) {
				up = k;
				break;
			}
		for (k = c; k >= 0; k--)
			if (cf[k]) {
				down = k;
				break;
			}
		KUNIT_ASSERT_EQ_MSG(test, ew_freemap_next_cyl(&f->fm, c, 1), up,
				    "up from %u", c);
		KUNIT_ASSERT_EQ_MSG(test, ew_freemap_next_cyl(&f->fm, c, -1),
				    down, "down from %u", c);
	}

	/* find_free over ranges of a few lengths from every block. */
	for (from = 0; from < f->nr_blocks; from++) {
		static const u64 lens[] = { 1, 2, 7, 64, 65, 1000000 };
		u32 i;

		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			u64 to = min(from + lens[i], f->nr_blocks);
			u64 want = EW_NO_BLOCK, got;

			for (b = from; b < to; b++)
				if (!f->used[b]) {
					want = b;
					break;
				}
			got = ew_freemap_find_free(&f->fm, from, to);
			KUNIT_ASSERT_EQ_MSG(test, got, want, "[%llu, %llu)",
					    from, to);
		}
	}
}

static void ew_freemap_new(struct kunit *test)
{
	struct ew_fm_fixture *f = ew_fm_setup(test, false, 8, 400);
	u64 first;
	u32 t, n;

	KUNIT_EXPECT_EQ(test, f->fm.nr_blocks, 400ULL);
	KUNIT_EXPECT_EQ(test, f->fm.nr_free, 400ULL);
	KUNIT_EXPECT_EQ(test, f->fm.nr_tracks, 40U);
	KUNIT_EXPECT_EQ(test, f->fm.nr_cyls, 20U);
	/* Track 0 holds blocks 0..12 (block 12 starts at LBA 96 and runs
	 * into track 1, whose first whole block is 13 at LBA 104).
	 */
	KUNIT_EXPECT_EQ(test, ew_freemap_block_track(&f->fm, 12), 0U);
	KUNIT_EXPECT_EQ(test, ew_freemap_block_track(&f->fm, 13), 1U);
	KUNIT_EXPECT_EQ(test, ew_freemap_block_track(&f->fm, 250), 20U);
	KUNIT_EXPECT_EQ(test, ew_freemap_block_track(&f->fm, 399), 39U);
	for (t = 0; t < 40; t++) {
		/* blocks b with lba(t) <= 8b < lba(t + 1) */
		u64 lo = DIV_ROUND_UP(small_track_lba(t), 8);
		u64 hi = DIV_ROUND_UP(small_track_lba(t + 1), 8);

		n = ew_freemap_track_blocks(&f->fm, t, &first);
		KUNIT_EXPECT_EQ_MSG(test, first, lo, "track %u", t);
		KUNIT_EXPECT_EQ_MSG(test, (u64)n, hi - lo, "track %u", t);
	}
	ew_fm_compare(test, f);
}

static void ew_freemap_alloc_free(struct kunit *test)
{
	struct ew_fm_fixture *f = ew_fm_setup(test, false, 8, 400);

	KUNIT_EXPECT_EQ(test, ew_freemap_alloc(&f->fm, 5), 0);
	f->used[5] = true;
	KUNIT_EXPECT_FALSE(test, ew_freemap_is_free(&f->fm, 5));
	KUNIT_EXPECT_EQ(test, f->fm.nr_free, 399ULL);
	KUNIT_EXPECT_EQ(test, ew_freemap_track_free(&f->fm, 0), 12U);
	KUNIT_EXPECT_EQ(test, ew_freemap_cyl_free(&f->fm, 0), 24U);
	KUNIT_EXPECT_EQ(test, ew_freemap_alloc(&f->fm, 5), -EBUSY);
	KUNIT_EXPECT_EQ(test, ew_freemap_alloc(&f->fm, 400), -ERANGE);
	KUNIT_EXPECT_EQ(test, ew_freemap_free(&f->fm, 400), -ERANGE);
	KUNIT_EXPECT_EQ(test, ew_freemap_free(&f->fm, 6), -EINVAL);
	KUNIT_EXPECT_EQ(test, ew_freemap_find_free(&f->fm, 5, 6), EW_NO_BLOCK);
	KUNIT_EXPECT_EQ(test, ew_freemap_find_free(&f->fm, 5, 7), 6ULL);
	ew_fm_compare(test, f);

	KUNIT_EXPECT_EQ(test, ew_freemap_free(&f->fm, 5), 0);
	f->used[5] = false;
	KUNIT_EXPECT_EQ(test, ew_freemap_free(&f->fm, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, f->fm.nr_free, 400ULL);
	ew_fm_compare(test, f);
}

static void ew_freemap_ranges(struct kunit *test)
{
	struct ew_fm_fixture *f = ew_fm_setup(test, false, 8, 400);
	u64 b;

	KUNIT_EXPECT_EQ(test, ew_freemap_alloc_range(&f->fm, 10, 5), 0);
	for (b = 10; b < 15; b++)
		f->used[b] = true;
	/* Overlaps 10..14: nothing of 15..16 may be taken. */
	KUNIT_EXPECT_EQ(test, ew_freemap_alloc_range(&f->fm, 12, 5), -EBUSY);
	KUNIT_EXPECT_EQ(test, ew_freemap_alloc_range(&f->fm, 398, 3), -ERANGE);
	ew_fm_compare(test, f);
	/* 8 and 9 are free: nothing of 10..12 may be freed. */
	KUNIT_EXPECT_EQ(test, ew_freemap_free_range(&f->fm, 8, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, ew_freemap_free_range(&f->fm, 398, 3), -ERANGE);
	ew_fm_compare(test, f);
	/* Across a track boundary (block 13 starts track 1). */
	KUNIT_EXPECT_EQ(test, ew_freemap_free_range(&f->fm, 10, 5), 0);
	for (b = 10; b < 15; b++)
		f->used[b] = false;
	KUNIT_EXPECT_EQ(test, ew_freemap_alloc_range(&f->fm, 0, 400), 0);
	for (b = 0; b < 400; b++)
		f->used[b] = true;
	KUNIT_EXPECT_EQ(test, f->fm.nr_free, 0ULL);
	KUNIT_EXPECT_EQ(test, ew_freemap_next_cyl(&f->fm, 0, 1), -1LL);
	KUNIT_EXPECT_EQ(test, ew_freemap_next_cyl(&f->fm, 19, -1), -1LL);
	ew_fm_compare(test, f);
}

/*
 * Built in bulk (ew_freemap_mark_used() from a bitmap, then
 * ew_freemap_recount(), the constructor's way) over a range taken the
 * ordinary way: the model's counts, and the ordinary operations go on
 * from there.
 */
static void ew_freemap_bulk(struct kunit *test)
{
	struct ew_fm_fixture *f = ew_fm_setup(test, false, 8, 400);
	u64 bits[7] = { 0 };	/* 400 blocks: 6 words and 16 bits */
	u64 b;

	KUNIT_ASSERT_EQ(test, ew_freemap_alloc_range(&f->fm, 10, 30), 0);
	for (b = 10; b < 40; b++)
		f->used[b] = true;
	for (b = 0; b < 400; b += 3) {
		bits[b / 64] |= 1ULL << (b % 64);
		f->used[b] = true;
	}
	/* a bit past the map: refused, nothing set */
	bits[6] |= 1ULL << 16;
	KUNIT_EXPECT_EQ(test, ew_freemap_mark_used(&f->fm, bits), -ERANGE);
	KUNIT_EXPECT_TRUE(test, ew_freemap_is_free(&f->fm, 3));
	bits[6] &= ~(1ULL << 16);
	KUNIT_EXPECT_EQ(test, ew_freemap_mark_used(&f->fm, bits), 0);
	ew_freemap_recount(&f->fm);
	ew_fm_compare(test, f);
	KUNIT_EXPECT_EQ(test, ew_freemap_free(&f->fm, 3), 0);
	f->used[3] = false;
	KUNIT_EXPECT_EQ(test, ew_freemap_alloc(&f->fm, 4), 0);
	f->used[4] = true;
	ew_fm_compare(test, f);
}

static void ew_freemap_next_cyl_groups(struct kunit *test)
{
	struct ew_fm_fixture *f = ew_fm_setup(test, true, 8, 600);
	u64 b;

	KUNIT_EXPECT_EQ(test, f->fm.nr_cyls, 300U);
	KUNIT_EXPECT_EQ(test, f->fm.nr_groups, 5U);
	KUNIT_EXPECT_EQ(test, ew_freemap_next_cyl(&f->fm, 3, 1), 3LL);
	KUNIT_EXPECT_EQ(test, ew_freemap_next_cyl(&f->fm, 3, -1), 3LL);
	/* Everything used but cylinder 250 (blocks 500, 501). */
	for (b = 0; b < 600; b++) {
		if (b == 500 || b == 501)
			continue;
		KUNIT_ASSERT_EQ(test, ew_freemap_alloc(&f->fm, b), 0);
		f->used[b] = true;
	}
	KUNIT_EXPECT_EQ(test, ew_freemap_next_cyl(&f->fm, 0, 1), 250LL);
	KUNIT_EXPECT_EQ(test, ew_freemap_next_cyl(&f->fm, 299, -1), 250LL);
	KUNIT_EXPECT_EQ(test, ew_freemap_next_cyl(&f->fm, 251, 1), -1LL);
	KUNIT_EXPECT_EQ(test, ew_freemap_next_cyl(&f->fm, 249, -1), -1LL);
	KUNIT_EXPECT_EQ(test, ew_freemap_find_free(&f->fm, 0, 600), 500ULL);
	KUNIT_EXPECT_EQ(test, ew_freemap_find_free(&f->fm, 501, 600), 501ULL);
	KUNIT_EXPECT_EQ(test, ew_freemap_find_free(&f->fm, 502, 600),
			EW_NO_BLOCK);
	ew_fm_compare(test, f);
}

struct ew_fm_random_case {
	const char *name;
	bool long_disk;
	u32 bs;
	u64 nr_blocks;
	u64 seed;
};

static const struct ew_fm_random_case ew_fm_random_cases[] = {
	{ "small disk, 4K blocks", false, 8, 400, 1 },
	{ "small disk, 8K blocks, part", false, 16, 150, 2 },
	{ "small disk, 512-byte blocks", false, 1, 3200, 3 },
	{ "300 cylinders", true, 8, 600, 4 },
	{ "300 cylinders, part", true, 8, 333, 5 },
};

static void ew_fm_random_desc(const struct ew_fm_random_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_fm_random, ew_fm_random_cases, ew_fm_random_desc);

/* Random allocations and frees against the model, filling and emptying. */
static void ew_freemap_random(struct kunit *test)
{
	const struct ew_fm_random_case *c = test->param_value;
	struct ew_fm_fixture *f = ew_fm_setup(test, c->long_disk, c->bs,
					      c->nr_blocks);
	struct rnd_state rnd;
	u32 round, i;

	prandom_seed_state(&rnd, c->seed);
	/* Mostly allocations, then mostly frees, then balanced. */
	for (round = 0; round < 6; round++) {
		u32 alloc_pct = round < 2 ? 80 : round < 4 ? 20 : 50;

		for (i = 0; i < 2 * c->nr_blocks; i++) {
			u64 b = prandom_u32_state(&rnd) % c->nr_blocks;
			bool alloc = prandom_u32_state(&rnd) % 100 < alloc_pct;
			int want, got;

			if (alloc) {
				want = f->used[b] ? -EBUSY : 0;
				got = ew_freemap_alloc(&f->fm, b);
			} else {
				want = f->used[b] ? 0 : -EINVAL;
				got = ew_freemap_free(&f->fm, b);
			}
			KUNIT_ASSERT_EQ_MSG(test, got, want, "%s %llu",
					    alloc ? "alloc" : "free", b);
			if (!want)
				f->used[b] = alloc;
		}
		ew_fm_compare(test, f);
	}
}

/*
 * Memory: one bit a block, 2 bytes a track, 4 a cylinder and 4 a group.
 * On the default model extended to 1 TiB with 4 KiB blocks it must stay
 * small enough that 36 such members fit an ordinary server (< 64 MiB
 * each, 2.25 GiB for the paper's 36-disk array).
 */
static void ew_freemap_memory(struct kunit *test)
{
	struct ew_disk *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct ew_disk_params p;
	u64 sectors = 1ULL << 31, blocks = sectors / 8, min;
	struct ew_pos last;
	u32 tracks, cyls;
	size_t bytes;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	ew_disk_params_default(&p);
	KUNIT_ASSERT_EQ(test, ew_disk_init(d, &p, sectors), 0);
	/* The tracks and cylinders up to the one of the last block. */
	ew_disk_lba_to_pos(d, (blocks - 1) * 8, &last);
	tracks = ew_disk_track_of(d, &last) + 1;
	cyls = last.cyl + 1;
	min = blocks / 8 + 2ULL * tracks + 4ULL * cyls +
	      4ULL * DIV_ROUND_UP(cyls, EW_FM_GROUP);
	bytes = ew_freemap_bytes(d, 8, blocks);
	kunit_info(test, "1 TiB member: %zu bytes of free map\n", bytes);
	KUNIT_EXPECT_GE(test, (u64)bytes, min);
	KUNIT_EXPECT_LE(test, (u64)bytes, min + 4096);
	KUNIT_EXPECT_LT(test, (u64)bytes, 64ULL << 20);
}

static struct kunit_case ew_freemap_cases[] = {
	KUNIT_CASE(ew_freemap_new),
	KUNIT_CASE(ew_freemap_alloc_free),
	KUNIT_CASE(ew_freemap_ranges),
	KUNIT_CASE(ew_freemap_bulk),
	KUNIT_CASE(ew_freemap_next_cyl_groups),
	KUNIT_CASE_PARAM(ew_freemap_random, ew_fm_random_gen_params),
	KUNIT_CASE(ew_freemap_memory),
	{}
};

static struct kunit_suite ew_freemap_suite = {
	.name = "dm_eagerwrite_freemap",
	.test_cases = ew_freemap_cases,
};

kunit_test_suite(ew_freemap_suite);
