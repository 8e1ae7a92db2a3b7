// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_kunit_geom.c - KUnit suite dm_eagerwrite_geom: the array geometry of
 * core/ew_geom.h for raid10, ddm and ew, in the kernel build.
 *
 * Expected values are worked out here from the mapping written in
 * ew_geom.h (capacity, region, homes, replica disks), never taken from
 * the implementation's output: every shape is mapped block by block and
 * checked for distinct replica disks, unique homes inside the region and
 * the per-disk balance, and a few blocks per layout are checked against
 * hand-computed places.  The paper's 2x9x2 EW-Array on 36 disks has a
 * case of its own.
 */
#include <kunit/test.h>

#include "../core/ew_geom.h"

#define S_R10	EW_LAYOUT_RAID10
#define S_DDM	EW_LAYOUT_DDM
#define S_EW	EW_LAYOUT_EW

struct ew_shape {
	const char *name;
	struct ew_geom_params p;
};

#define SHAPE(n, l, nd, m, dd, bs, cs, ds)				\
	{ .name = n, .p = { .layout = l, .nr_disks = nd, .mirrors = m,	\
	  .dilution_x100 = dd, .block_sectors = bs, .chunk_sectors = cs,\
	  .disk_sectors = ds } }

/* Small members, so that every block of every shape can be mapped. */
static const struct ew_shape ew_shapes[] = {
	SHAPE("raid10 2x2 1-block chunk", S_R10, 2, 2, 0, 8, 8, 8 * 1000),
	SHAPE("raid10 4x2", S_R10, 4, 2, 0, 8, 128, 8 * 1000),
	SHAPE("raid10 6x3 odd sectors", S_R10, 6, 3, 0, 8, 64, 8 * 777 + 5),
	SHAPE("raid10 8x4 8K blocks", S_R10, 8, 4, 0, 16, 32, 16 * 900),
	SHAPE("raid10 64x8", S_R10, 64, 8, 0, 8, 128, 8 * 160),
	SHAPE("ddm 2 Dd2", S_DDM, 2, 2, 200, 8, 128, 8 * 1000),
	SHAPE("ddm 6 Dd1.5", S_DDM, 6, 2, 150, 8, 64, 8 * 999),
	SHAPE("ddm 4 Dd1.33", S_DDM, 4, 2, 133, 8, 128, 8 * 1234),
	SHAPE("ddm 64 Dd3 1-block chunk", S_DDM, 64, 2, 300, 16, 16, 16 * 100),
	SHAPE("ew 2x2 Dd2", S_EW, 2, 2, 200, 8, 128, 8 * 1000),
	SHAPE("ew 36x2 Dd2", S_EW, 36, 2, 200, 8, 128, 8 * 2000),
	SHAPE("ew 6x3 Dd1.5", S_EW, 6, 3, 150, 8, 64, 8 * 1001),
	SHAPE("ew 8x2 Dd1.33 8K blocks", S_EW, 8, 2, 133, 16, 256, 16 * 1500),
	SHAPE("ew 64x8 Dd4 1-block chunk", S_EW, 64, 8, 400, 8, 8, 8 * 500),
	SHAPE("ew 4x2 Dd1", S_EW, 4, 2, 100, 8, 128, 8 * 640),
};

static void ew_shape_desc(const struct ew_shape *s, char *desc)
{
	strscpy(desc, s->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_shape, ew_shapes, ew_shape_desc);

/* The model of ew_geom.h, computed independently of ew_geom.c. */

static u64 div_up(u64 a, u64 b)
{
	return div64_u64(a + b - 1, b);
}

static u64 m_chunk_blocks(const struct ew_geom_params *p)
{
	return p->chunk_sectors / p->block_sectors;
}

static u64 m_disk_blocks(const struct ew_geom_params *p)
{
	return div64_u64(p->disk_sectors, p->block_sectors);
}

static u64 m_width(const struct ew_geom_params *p)
{
	return p->layout == S_DDM ? p->nr_disks / 2 : p->nr_disks / p->mirrors;
}

static u64 m_unit(const struct ew_geom_params *p)
{
	u64 c = m_chunk_blocks(p);

	return c + div_up(c * p->dilution_x100, 100);
}

static u64 m_capacity(const struct ew_geom_params *p)
{
	u64 c = m_chunk_blocks(p), disk = m_disk_blocks(p), w = m_width(p);

	switch (p->layout) {
	case S_R10:
		return div64_u64(disk, c) * c * w;
	case S_DDM:
		return div64_u64(disk, m_unit(p)) * 2 * c * w;
	default:
		/* ceil(k * c * Dd / 100) <= disk  <=>  k * c * Dd <= 100 * disk */
		return div64_u64(disk * 100, c * p->dilution_x100) * c * w;
	}
}

static u64 m_region(const struct ew_geom_params *p, u64 len)
{
	u64 c = m_chunk_blocks(p), w = m_width(p);
	u64 rows = div_up(len, w * c);

	switch (p->layout) {
	case S_R10:
		return rows * c;
	case S_DDM:
		return div_up(rows, 2) * m_unit(p);
	default:
		return div_up(rows * c * p->dilution_x100, 100);
	}
}

static void ew_geom_capacity_case(struct kunit *test)
{
	const struct ew_shape *s = test->param_value;
	const char *why = NULL;
	struct ew_geom g;
	u64 cap = m_capacity(&s->p);

	KUNIT_ASSERT_EQ_MSG(test, ew_geom_check(&s->p, &why), 0, "%s",
			    why ? why : "");
	KUNIT_ASSERT_GT(test, cap, 0ULL);
	KUNIT_EXPECT_EQ(test, ew_geom_capacity_blocks(&s->p), cap);

	KUNIT_ASSERT_EQ(test, ew_geom_init(&g, &s->p, cap, &why), 0);
	KUNIT_EXPECT_EQ(test, g.capacity_blocks, cap);
	KUNIT_EXPECT_EQ(test, g.len_blocks, cap);
	KUNIT_EXPECT_EQ(test, g.disk_blocks, m_disk_blocks(&s->p));
	KUNIT_EXPECT_EQ(test, (u64)g.chunk_blocks, m_chunk_blocks(&s->p));
	KUNIT_EXPECT_EQ(test, (u64)g.width, m_width(&s->p));
	KUNIT_EXPECT_EQ(test, g.region_blocks, m_region(&s->p, cap));
	KUNIT_EXPECT_LE(test, g.region_blocks, g.disk_blocks);
	if (s->p.layout == S_DDM)
		KUNIT_EXPECT_EQ(test, (u64)g.unit_blocks, m_unit(&s->p));

	/* One block more than the capacity, or none, is refused. */
	why = NULL;
	KUNIT_EXPECT_EQ(test, ew_geom_init(&g, &s->p, cap + 1, &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
	why = NULL;
	KUNIT_EXPECT_EQ(test, ew_geom_init(&g, &s->p, 0, &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
}

/*
 * ew_geom_home_run() walks exactly the blocks ew_geom_is_home() calls
 * homes on disk k, a run at a time.
 */
static void ew_geom_check_home_runs(struct kunit *test,
				    const struct ew_geom *g, u32 k)
{
	u64 at = 0, first, cnt, x;

	for (;;) {
		first = ew_geom_home_run(g, k, at, &cnt);
		KUNIT_ASSERT_GE(test, first, at);
		for (x = at; x < first && x < g->region_blocks; x++)
			KUNIT_ASSERT_FALSE_MSG(test, ew_geom_is_home(g, k, x),
					       "disk %u block %llu", k, x);
		if (!cnt) {
			KUNIT_ASSERT_EQ(test, first, g->region_blocks);
			return;
		}
		for (x = first; x < first + cnt; x++)
			KUNIT_ASSERT_TRUE_MSG(test, ew_geom_is_home(g, k, x),
					      "disk %u block %llu", k, x);
		KUNIT_ASSERT_FALSE(test, ew_geom_is_home(g, k, first + cnt));
		at = first + cnt;
	}
}

/*
 * Maps every block of a volume of len blocks and checks the layout's
 * invariants; homes[] is a bitmap of region_blocks bits per disk.
 */
static void ew_geom_check_map(struct kunit *test, const struct ew_shape *s,
			      u64 len)
{
	const struct ew_geom_params *p = &s->p;
	struct ew_replica r[EW_MAX_MIRRORS + 1];
	u64 c = m_chunk_blocks(p), w = m_width(p);
	u64 *homes_per_disk;
	unsigned long *homes;
	const char *why = NULL;
	struct ew_geom g;
	u64 region, l;
	u32 k, j, n;

	KUNIT_ASSERT_EQ(test, ew_geom_init(&g, p, len, &why), 0);
	region = m_region(p, len);
	KUNIT_ASSERT_EQ(test, g.region_blocks, region);

	homes = kunit_kcalloc(test, BITS_TO_LONGS(region * p->nr_disks),
			      sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, homes);
	homes_per_disk = kunit_kcalloc(test, p->nr_disks, sizeof(u64),
				       GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, homes_per_disk);

	for (l = 0; l < len; l++) {
		u64 off, col, row;

		row = div64_u64_rem(div64_u64_rem(l, c, &off), w, &col);

		memset(r, 0xa5, sizeof(r));
		n = ew_geom_map(&g, l, r);
		KUNIT_ASSERT_EQ_MSG(test, n, p->mirrors, "block %llu", l);

		for (k = 0; k < n; k++) {
			KUNIT_ASSERT_LT_MSG(test, r[k].disk, p->nr_disks,
					    "block %llu replica %u", l, k);
			for (j = 0; j < k; j++)
				KUNIT_ASSERT_NE_MSG(test, r[k].disk, r[j].disk,
						    "block %llu replicas %u %u",
						    l, j, k);
		}

		switch (p->layout) {
		case S_R10:
			for (k = 0; k < n; k++) {
				KUNIT_ASSERT_EQ_MSG(test, (u64)r[k].disk,
						    k * w + col, "block %llu", l);
				KUNIT_ASSERT_EQ_MSG(test, r[k].home,
						    row * c + off, "block %llu", l);
			}
			break;
		case S_DDM: {
			u64 home_disk = 2 * col + (row & 1);

			KUNIT_ASSERT_EQ_MSG(test, (u64)r[0].disk, home_disk,
					    "block %llu", l);
			KUNIT_ASSERT_EQ_MSG(test, (u64)r[1].disk, home_disk ^ 1,
					    "block %llu", l);
			KUNIT_ASSERT_EQ_MSG(test, r[0].home,
					    (row >> 1) * m_unit(p) + off,
					    "block %llu", l);
			KUNIT_ASSERT_EQ_MSG(test, r[1].home, EW_NO_BLOCK,
					    "block %llu", l);
			n = 1;		/* only replica 0 has a home */
			break;
		}
		default:
			for (k = 0; k < n; k++) {
				KUNIT_ASSERT_EQ_MSG(test, (u64)r[k].disk,
						    k * w + col, "block %llu", l);
				KUNIT_ASSERT_EQ_MSG(test, r[k].home, EW_NO_BLOCK,
						    "block %llu", l);
			}
			n = 0;
			break;
		}

		/* Homes: inside the region, marked as homes, never shared. */
		for (k = 0; k < n; k++) {
			u64 bit = r[k].disk * region + r[k].home;
			bool home;

			KUNIT_ASSERT_LT_MSG(test, r[k].home, region,
					    "block %llu", l);
			home = ew_geom_is_home(&g, r[k].disk, r[k].home);
			KUNIT_ASSERT_TRUE_MSG(test, home,
					      "block %llu replica %u", l, k);
			KUNIT_ASSERT_FALSE_MSG(test, test_bit(bit, homes),
					       "home of block %llu shared", l);
			__set_bit(bit, homes);
			homes_per_disk[r[k].disk]++;
		}
	}

	/* Balance: raid10 puts len / W on each disk, ddm len / N. */
	for (k = 0; k < p->nr_disks && len == g.capacity_blocks; k++) {
		if (p->layout == S_R10)
			KUNIT_EXPECT_EQ_MSG(test, homes_per_disk[k],
					    div64_u64(len, w), "disk %u", k);
		else if (p->layout == S_DDM)
			KUNIT_EXPECT_EQ_MSG(test, homes_per_disk[k],
					    div64_u64(len, p->nr_disks),
					    "disk %u", k);
	}

	/*
	 * ew has no homes anywhere.  At capacity every raid10 block of the
	 * region is a home, and ddm's homes are exactly the first chunk of
	 * each unit: the rest of the unit is write-anywhere space.
	 */
	for (k = 0; k < p->nr_disks; k++) {
		u64 b;

		for (b = 0; b < g.disk_blocks; b++) {
			bool expect, marked;

			if (p->layout == S_EW)
				expect = false;
			else if (len != g.capacity_blocks || b >= region)
				continue;
			else if (p->layout == S_R10)
				expect = true;
			else
				expect = b % m_unit(p) < c;
			KUNIT_ASSERT_EQ_MSG(test, ew_geom_is_home(&g, k, b),
					    expect, "disk %u block %llu", k, b);
			if (p->layout == S_EW)
				continue;
			marked = test_bit(k * region + b, homes);
			KUNIT_ASSERT_EQ_MSG(test, marked, expect,
					    "disk %u block %llu", k, b);
		}
		ew_geom_check_home_runs(test, &g, k);
	}
}

static void ew_geom_map_full(struct kunit *test)
{
	const struct ew_shape *s = test->param_value;

	ew_geom_check_map(test, s, m_capacity(&s->p));
}

/* A target length in sectors: whole blocks, 1 block to the capacity. */
static void ew_geom_len_sectors(struct kunit *test)
{
	const struct ew_shape *s = test->param_value;
	u64 cap = m_capacity(&s->p), bs = s->p.block_sectors, len;
	const char *why;

	len = 12345;
	KUNIT_EXPECT_EQ(test, ew_geom_len_blocks(&s->p, cap * bs, &len, &why),
			0);
	KUNIT_EXPECT_EQ(test, len, cap);
	KUNIT_EXPECT_EQ(test, ew_geom_len_blocks(&s->p, bs, &len, &why), 0);
	KUNIT_EXPECT_EQ(test, len, 1ULL);
	why = NULL;
	KUNIT_EXPECT_EQ(test, ew_geom_len_blocks(&s->p, (cap + 1) * bs, &len,
						 &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
	why = NULL;
	KUNIT_EXPECT_EQ(test, ew_geom_len_blocks(&s->p, 0, &len, &why),
			-EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
	why = NULL;
	KUNIT_EXPECT_EQ(test, ew_geom_len_blocks(&s->p, cap * bs - 1, &len,
						 &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
}

/* A shorter volume: a smaller region, the same invariants. */
static void ew_geom_map_short(struct kunit *test)
{
	const struct ew_shape *s = test->param_value;
	u64 cap = m_capacity(&s->p);

	ew_geom_check_map(test, s, div64_u64(cap, 3) + 1);
	ew_geom_check_map(test, s, 1);
}

static void ew_geom_stripe(struct kunit *test)
{
	const struct ew_shape *s = test->param_value;
	u64 cap = m_capacity(&s->p), len, want;
	const char *why;
	struct ew_geom g;

	for (len = 1; len <= cap; len += 1 + len / 3) {
		KUNIT_ASSERT_EQ(test, ew_geom_init(&g, &s->p, len, &why), 0);
		want = div64_u64(m_disk_blocks(&s->p) * 100,
				 m_region(&s->p, len));
		KUNIT_EXPECT_EQ_MSG(test, (u64)ew_geom_stripe_x100(&g), want,
				    "len %llu", len);
	}
}

/* Places worked out by hand from the mapping in ew_geom.h. */
struct ew_place_case {
	const char *name;
	struct ew_geom_params p;
	u64 lblock;
	u32 disk[2];
	u64 home[2];
};

#define NOB EW_NO_BLOCK
#define R10_4 { S_R10, 4, 2, 0, 8, 128, 8 * 1000 }
#define DDM_4 { S_DDM, 4, 2, 200, 8, 128, 8 * 1000 }
#define EW_4 { S_EW, 4, 2, 200, 8, 128, 8 * 1000 }

static const struct ew_place_case ew_place_cases[] = {
	/* raid10, W = 2, chunk 16 blocks */
	{ "raid10 L0", R10_4, 0, { 0, 2 }, { 0, 0 } },
	{ "raid10 L17", R10_4, 17, { 1, 3 }, { 1, 1 } },
	{ "raid10 L35", R10_4, 35, { 0, 2 }, { 19, 19 } },
	{ "raid10 L63", R10_4, 63, { 1, 3 }, { 31, 31 } },
	/* ddm, P = 2, unit = 16 + 32 = 48 */
	{ "ddm L0", DDM_4, 0, { 0, 1 }, { 0, NOB } },
	{ "ddm L16", DDM_4, 16, { 2, 3 }, { 0, NOB } },
	{ "ddm L37", DDM_4, 37, { 1, 0 }, { 5, NOB } },
	{ "ddm L71", DDM_4, 71, { 0, 1 }, { 55, NOB } },
	{ "ddm L127", DDM_4, 127, { 3, 2 }, { 63, NOB } },
	/* ew, W = 2: disks only, anywhere in the region */
	{ "ew L0", EW_4, 0, { 0, 2 }, { NOB, NOB } },
	{ "ew L17", EW_4, 17, { 1, 3 }, { NOB, NOB } },
	{ "ew L40", EW_4, 40, { 0, 2 }, { NOB, NOB } },
};

static void ew_place_case_desc(const struct ew_place_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_place, ew_place_cases, ew_place_case_desc);

static void ew_geom_hand_places(struct kunit *test)
{
	const struct ew_place_case *c = test->param_value;
	struct ew_replica r[EW_MAX_MIRRORS];
	const char *why;
	struct ew_geom g;

	KUNIT_ASSERT_EQ(test, ew_geom_init(&g, &c->p,
					   ew_geom_capacity_blocks(&c->p),
					   &why), 0);
	KUNIT_ASSERT_EQ(test, ew_geom_map(&g, c->lblock, r), 2U);
	KUNIT_EXPECT_EQ(test, r[0].disk, c->disk[0]);
	KUNIT_EXPECT_EQ(test, r[0].home, c->home[0]);
	KUNIT_EXPECT_EQ(test, r[1].disk, c->disk[1]);
	KUNIT_EXPECT_EQ(test, r[1].home, c->home[1]);
}

/*
 * The paper's reference: a 2x9x2 EW-Array on 36 disks (Dd = 2, Dm = 2,
 * W = 18), chunk 128 sectors (16 blocks).  Members of 2,223,072 blocks
 * (= 18 * 16 * 7,719), so a volume of one member's size is an exact
 * number of stripe rows.
 */
static void ew_geom_reference_2x9x2(struct kunit *test)
{
	struct ew_geom_params p = {
		.layout = S_EW, .nr_disks = 36, .mirrors = 2,
		.dilution_x100 = 200, .block_sectors = 8,
		.chunk_sectors = 128, .disk_sectors = 2223072ULL * 8,
	};
	struct ew_replica r[2];
	const char *why;
	struct ew_geom g;

	/* Share of 69,471 chunks: 2 * 69,471 * 16 = 2,223,072 = the disk. */
	KUNIT_EXPECT_EQ(test, ew_geom_capacity_blocks(&p),
			18ULL * 69471 * 16);

	/* len = one member: share 7,719 chunks = 123,504 blocks, region
	 * 247,008 blocks, 1/9 of the disk: Ds = 9.
	 */
	KUNIT_ASSERT_EQ(test, ew_geom_init(&g, &p, 2223072, &why), 0);
	KUNIT_EXPECT_EQ(test, g.width, 18U);
	KUNIT_EXPECT_EQ(test, g.region_blocks, 247008ULL);
	KUNIT_EXPECT_EQ(test, ew_geom_stripe_x100(&g), 900U);
	/* Block 16 * 18 * 5 + 16 * 7 + 3: row 5, column 7. */
	KUNIT_ASSERT_EQ(test, ew_geom_map(&g, 16 * 18 * 5 + 16 * 7 + 3, r), 2U);
	KUNIT_EXPECT_EQ(test, r[0].disk, 7U);
	KUNIT_EXPECT_EQ(test, r[1].disk, 25U);

	/* At capacity every block of every member is in the region: Ds 1. */
	KUNIT_ASSERT_EQ(test, ew_geom_init(&g, &p, 18ULL * 69471 * 16, &why),
			0);
	KUNIT_EXPECT_EQ(test, g.region_blocks, 2223072ULL);
	KUNIT_EXPECT_EQ(test, ew_geom_stripe_x100(&g), 100U);

	/* A real Cheetah 9LP: 17,783,240 sectors = 2,222,905 blocks. */
	p.disk_sectors = 17783240;
	/* 100 * 2,222,905 / (16 * 200) = 69,465 chunks per member */
	KUNIT_EXPECT_EQ(test, ew_geom_capacity_blocks(&p), 20005920ULL);
	p.layout = S_R10;	/* 138,931 rows of 16 blocks, W = 18 */
	KUNIT_EXPECT_EQ(test, ew_geom_capacity_blocks(&p), 40012128ULL);
	p.layout = S_DDM;	/* units of 48: 46,310 * 2 * 16 * 18 */
	KUNIT_EXPECT_EQ(test, ew_geom_capacity_blocks(&p), 26674560ULL);
}

/* Parameters ew_geom_check() must refuse. */
static const struct ew_shape ew_bad_shapes[] = {
	SHAPE("raid10 3 disks 2 mirrors", S_R10, 3, 2, 0, 8, 128, 8 * 1000),
	SHAPE("raid10 1 mirror", S_R10, 4, 1, 0, 8, 128, 8 * 1000),
	SHAPE("raid10 9 mirrors", S_R10, 18, 9, 0, 8, 128, 8 * 1000),
	SHAPE("ew 1 disk", S_EW, 1, 1, 200, 8, 128, 8 * 1000),
	SHAPE("ew 66 disks", S_EW, 66, 2, 200, 8, 128, 8 * 1000),
	SHAPE("ew 5 disks 2 mirrors", S_EW, 5, 2, 200, 8, 128, 8 * 1000),
	SHAPE("ew dilution 0.99", S_EW, 4, 2, 99, 8, 128, 8 * 1000),
	SHAPE("ew dilution 100.01", S_EW, 4, 2, 10001, 8, 128, 8 * 1000),
	SHAPE("ddm 3 mirrors", S_DDM, 6, 3, 200, 8, 128, 8 * 1000),
	SHAPE("ddm 5 disks", S_DDM, 5, 2, 200, 8, 128, 8 * 1000),
	SHAPE("ddm dilution 0.5", S_DDM, 4, 2, 50, 8, 128, 8 * 1000),
	SHAPE("block 12 sectors", S_R10, 4, 2, 0, 12, 128, 8 * 1000),
	SHAPE("block 2 KiB", S_R10, 4, 2, 0, 4, 128, 8 * 1000),
	SHAPE("block 128 KiB", S_R10, 4, 2, 0, 256, 256, 8 * 1000),
	SHAPE("chunk below block", S_R10, 4, 2, 0, 16, 8, 8 * 1000),
	SHAPE("chunk 96", S_R10, 4, 2, 0, 8, 96, 8 * 1000),
	SHAPE("layout out of range", EW_LAYOUT_NR, 4, 2, 200, 8, 128,
	      8 * 1000),
};

KUNIT_ARRAY_PARAM(ew_bad_shape, ew_bad_shapes, ew_shape_desc);

static void ew_geom_bad_params(struct kunit *test)
{
	const struct ew_shape *s = test->param_value;
	const char *why = NULL;
	struct ew_geom g;

	KUNIT_EXPECT_EQ(test, ew_geom_check(&s->p, &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
	KUNIT_EXPECT_EQ(test, ew_geom_capacity_blocks(&s->p), 0ULL);
	why = NULL;
	KUNIT_EXPECT_EQ(test, ew_geom_init(&g, &s->p, 1, &why), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, why);
}

static void ew_geom_layout_names(struct kunit *test)
{
	static const char *const names[EW_LAYOUT_NR] = {
		[EW_LAYOUT_RAID10] = "raid10",
		[EW_LAYOUT_DDM] = "ddm",
		[EW_LAYOUT_EW] = "ew",
	};
	enum ew_layout l, got;

	for (l = 0; l < EW_LAYOUT_NR; l++) {
		KUNIT_EXPECT_STREQ(test, ew_layout_name(l), names[l]);
		got = EW_LAYOUT_NR;
		KUNIT_EXPECT_EQ(test, ew_layout_parse(names[l], &got), 0);
		KUNIT_EXPECT_EQ(test, got, l);
	}
	KUNIT_EXPECT_NE(test, ew_layout_parse("raid5", &got), 0);
	KUNIT_EXPECT_NE(test, ew_layout_parse("", &got), 0);
	KUNIT_EXPECT_NE(test, ew_layout_parse("ew ", &got), 0);
	KUNIT_EXPECT_NE(test, ew_layout_parse("raid1", &got), 0);
	KUNIT_EXPECT_TRUE(test, ew_layout_eager(EW_LAYOUT_EW));
	KUNIT_EXPECT_TRUE(test, ew_layout_eager(EW_LAYOUT_DDM));
	KUNIT_EXPECT_FALSE(test, ew_layout_eager(EW_LAYOUT_RAID10));
}

/* The header leaves the error code open: any negative errno refuses. */
struct ew_dil_case {
	const char *s;
	int err;
	u32 x100;
};

static const struct ew_dil_case ew_dil_cases[] = {
	{ "2", 0, 200 },
	{ "1", 0, 100 },
	{ "1.5", 0, 150 },
	{ "1.33", 0, 133 },
	{ "1.05", 0, 105 },
	{ "1.50", 0, 150 },
	{ "100", 0, 10000 },
	{ "0.99", -EINVAL, 0 },
	{ "0", -EINVAL, 0 },
	{ "1.333", -EINVAL, 0 },
	{ "100.01", -EINVAL, 0 },
	{ "101", -EINVAL, 0 },
	{ "-2", -EINVAL, 0 },
	{ "2x", -EINVAL, 0 },
	{ "x", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
	{ "1.2.3", -EINVAL, 0 },
	{ "99999999999999999999", -EINVAL, 0 },
};

static void ew_dil_case_desc(const struct ew_dil_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->s);
}

KUNIT_ARRAY_PARAM(ew_dil, ew_dil_cases, ew_dil_case_desc);

static void ew_geom_dilution_parse(struct kunit *test)
{
	const struct ew_dil_case *c = test->param_value;
	u32 x100 = 12345;

	int ret = ew_parse_dilution(c->s, &x100);

	if (c->err) {
		KUNIT_EXPECT_LT(test, ret, 0);
	} else {
		KUNIT_EXPECT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, x100, c->x100);
	}
}

/* Every dilution prints in a form that parses back to itself. */
static void ew_geom_dilution_round_trip(struct kunit *test)
{
	char buf[16];
	u32 x, back;

	for (x = 100; x <= EW_MAX_DILUTION_X100; x++) {
		int n = ew_format_dilution(buf, sizeof(buf), x);

		KUNIT_ASSERT_GT_MSG(test, n, 0, "x100 %u", x);
		KUNIT_ASSERT_LT_MSG(test, n, (int)sizeof(buf), "x100 %u", x);
		KUNIT_ASSERT_EQ_MSG(test, ew_parse_dilution(buf, &back), 0,
				    "x100 %u printed \"%s\"", x, buf);
		KUNIT_ASSERT_EQ_MSG(test, back, x, "printed \"%s\"", buf);
	}
	/* A whole dilution prints the way a table line writes it. */
	ew_format_dilution(buf, sizeof(buf), 200);
	KUNIT_EXPECT_STREQ(test, buf, "2");
}

static struct kunit_case ew_geom_cases[] = {
	KUNIT_CASE_PARAM(ew_geom_capacity_case, ew_shape_gen_params),
	KUNIT_CASE_PARAM(ew_geom_map_full, ew_shape_gen_params),
	KUNIT_CASE_PARAM(ew_geom_map_short, ew_shape_gen_params),
	KUNIT_CASE_PARAM(ew_geom_stripe, ew_shape_gen_params),
	KUNIT_CASE_PARAM(ew_geom_len_sectors, ew_shape_gen_params),
	KUNIT_CASE_PARAM(ew_geom_hand_places, ew_place_gen_params),
	KUNIT_CASE(ew_geom_reference_2x9x2),
	KUNIT_CASE_PARAM(ew_geom_bad_params, ew_bad_shape_gen_params),
	KUNIT_CASE(ew_geom_layout_names),
	KUNIT_CASE_PARAM(ew_geom_dilution_parse, ew_dil_gen_params),
	KUNIT_CASE(ew_geom_dilution_round_trip),
	{}
};

static struct kunit_suite ew_geom_suite = {
	.name = "dm_eagerwrite_geom",
	.test_cases = ew_geom_cases,
};

kunit_test_suite(ew_geom_suite);
