// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_kunit_map.c - KUnit suite dm_eagerwrite_map: the map bookkeeping of
 * core/ew_map.c in the kernel build: supersede by generation, the blocks
 * a remap gives up (never a home), discard, and the deferred-free list's
 * safe point.
 */
#include <kunit/test.h>

#include "../core/ew_map.h"

#define N EW_MAP_NONE

static void ew_map_supersede(struct kunit *test)
{
	u32 home[2] = { N, N }, newp[2] = { 5, N }, freed[2], f;
	struct ew_map m;
	u32 g1, g2;

	KUNIT_ASSERT_EQ(test, ew_map_init(&m, 4, 2), 0);
	KUNIT_EXPECT_TRUE(test, ew_map_unwritten(&m, 3));
	KUNIT_EXPECT_TRUE(test, ew_map_empty(&m, 3));
	g1 = ew_map_begin_write(&m, 3);
	KUNIT_EXPECT_EQ(test, ew_map_commit_write(&m, 3, g1, 0x1, newp, home,
						  freed), 0);
	KUNIT_EXPECT_FALSE(test, ew_map_empty(&m, 3));
	KUNIT_EXPECT_TRUE(test, ew_map_empty(&m, 2));
	g2 = ew_map_begin_write(&m, 3);
	/* the delayed copy of g1 lands after g2 began: stale, freed */
	KUNIT_EXPECT_EQ(test, ew_map_commit_copy(&m, 3, g1, 1, 40, N, &f), 0);
	KUNIT_EXPECT_EQ(test, f, 40U);
	KUNIT_EXPECT_EQ(test, ew_map_uptodate(&m, 3), 0x1);
	newp[0] = 6;
	KUNIT_EXPECT_EQ(test, ew_map_commit_write(&m, 3, g2, 0x1, newp, home,
						  freed), 1);
	KUNIT_EXPECT_EQ(test, freed[0], 5U);
	KUNIT_EXPECT_EQ(test, ew_map_commit_copy(&m, 3, g2, 1, 41, N, &f), 1);
	KUNIT_EXPECT_EQ(test, f, N);
	KUNIT_EXPECT_EQ(test, ew_map_uptodate(&m, 3), 0x3);
	KUNIT_EXPECT_EQ(test, ew_map_pblock(&m, 3, 1), 41U);
	ew_map_destroy(&m);
}

static void ew_map_homes(struct kunit *test)
{
	u32 home[2] = { 7, N }, newp[2] = { 100, 200 }, freed[2], f;
	struct ew_map m;
	u32 g;

	KUNIT_ASSERT_EQ(test, ew_map_init(&m, 1, 2), 0);
	g = ew_map_begin_write(&m, 0);
	KUNIT_EXPECT_EQ(test, ew_map_commit_write(&m, 0, g, 0x3, newp, home,
						  freed), 0);
	/* ddm's home step: replica 0 moves home, its eager block is freed */
	KUNIT_EXPECT_EQ(test, ew_map_commit_copy(&m, 0, g, 0, 7, 7, &f), 1);
	KUNIT_EXPECT_EQ(test, f, 100U);
	/* discard: the partner's block is freed, the home never */
	KUNIT_EXPECT_EQ(test, ew_map_discard(&m, 0, home, freed), 1);
	KUNIT_EXPECT_EQ(test, freed[0], N);
	KUNIT_EXPECT_EQ(test, freed[1], 200U);
	KUNIT_EXPECT_TRUE(test, ew_map_unwritten(&m, 0));
	/* the home stays mapped: unwritten, not empty */
	KUNIT_EXPECT_FALSE(test, ew_map_empty(&m, 0));
	ew_map_destroy(&m);
}

static void ew_map_dfree(struct kunit *test)
{
	struct ew_dfree df;
	u32 d, p;

	KUNIT_ASSERT_EQ(test, ew_dfree_init(&df, 2), 0);
	KUNIT_EXPECT_EQ(test, ew_dfree_push(&df, 1, 10), 0);
	KUNIT_EXPECT_EQ(test, ew_dfree_push(&df, 2, 20), 1);
	KUNIT_EXPECT_EQ(test, ew_dfree_push(&df, 3, 30), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, ew_dfree_pop(&df, 0, &d, &p));
	KUNIT_EXPECT_TRUE(test, ew_dfree_pop(&df, 1, &d, &p));
	KUNIT_EXPECT_EQ(test, d, 1U);
	KUNIT_EXPECT_EQ(test, p, 10U);
	KUNIT_EXPECT_FALSE(test, ew_dfree_pop(&df, 1, &d, &p));
	KUNIT_EXPECT_EQ(test, ew_dfree_pending(&df), 1ULL);
	ew_dfree_destroy(&df);
}

static struct kunit_case ew_map_cases[] = {
	KUNIT_CASE(ew_map_supersede),
	KUNIT_CASE(ew_map_homes),
	KUNIT_CASE(ew_map_dfree),
	{}
};

static struct kunit_suite ew_map_suite = {
	.name = "dm_eagerwrite_map",
	.test_cases = ew_map_cases,
};

kunit_test_suite(ew_map_suite);
