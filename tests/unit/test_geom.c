// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_geom.c - unit tests of ew_geom.c: the mapping's properties over
 * many shapes (every layout, 2..64 disks, mirrors, dilutions, block and
 * chunk sizes, lengths up to capacity), capacity and region arithmetic
 * against a naive model, the checks' messages, dilution parsing and
 * printing, and the paper's 2x9x2 reference array.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

#include "ew_geom.h"

#define SZ_1G_SECTORS	(2097152ULL)

static struct ew_geom_params mkp(enum ew_layout l, u32 n, u32 m, u32 d,
				 u32 bs, u32 cs, u64 disk)
{
	struct ew_geom_params p = {
		.layout = l, .nr_disks = n, .mirrors = m, .dilution_x100 = d,
		.block_sectors = bs, .chunk_sectors = cs, .disk_sectors = disk,
	};
	return p;
}

/* ceil(blocks * d / 100) the slow way: smallest x with 100 x >= b d. */
static u64 naive_diluted(u64 blocks, u32 d)
{
	u64 x = blocks * d / 100;

	while (x * 100 < blocks * d)
		x++;
	while (x && (x - 1) * 100 >= blocks * d)
		x--;
	return x;
}

/* Region in blocks for len blocks, straight from the documented rules. */
static u64 naive_region(const struct ew_geom_params *p, u64 len)
{
	u64 cb = p->chunk_sectors / p->block_sectors;
	u64 chunks = (len + cb - 1) / cb, w, rows;

	switch (p->layout) {
	case EW_LAYOUT_RAID10:
		w = p->nr_disks / p->mirrors;
		rows = (chunks + w - 1) / w;
		return rows * cb;
	case EW_LAYOUT_DDM:
		w = p->nr_disks / 2;
		rows = (chunks + w - 1) / w;
		return (rows + 1) / 2 * (cb + naive_diluted(cb, p->dilution_x100));
	default:
		w = p->nr_disks / p->mirrors;
		rows = (chunks + w - 1) / w;
		return naive_diluted(rows * cb, p->dilution_x100);
	}
}

/* The largest len (a whole number of rows) whose naive region fits. */
static u64 naive_capacity(const struct ew_geom_params *p)
{
	u64 cb = p->chunk_sectors / p->block_sectors;
	u64 db = p->disk_sectors / p->block_sectors;
	u64 w = p->layout == EW_LAYOUT_DDM ? p->nr_disks / 2 :
		p->nr_disks / p->mirrors;
	u64 rows = 0;

	while (naive_region(p, (rows + 1) * w * cb) <= db)
		rows++;
	return rows * w * cb;
}

/*
 * ew_geom_home_run() walks exactly the blocks ew_geom_is_home() calls
 * homes on disk k (hs of them), a run at a time, and from inside a run
 * gives the rest of it.
 */
static void check_home_runs(const struct ew_geom *g, u32 k, u64 hs)
{
	u64 at = 0, first, cnt, sum = 0, x;

	for (;;) {
		first = ew_geom_home_run(g, k, at, &cnt);
		assert_true(first >= at);
		for (x = at; x < first && x < g->region_blocks; x++)
			assert_false(ew_geom_is_home(g, k, x));
		if (!cnt) {
			assert_int_equal(first, g->region_blocks);
			break;
		}
		for (x = first; x < first + cnt; x++)
			assert_true(ew_geom_is_home(g, k, x));
		assert_false(ew_geom_is_home(g, k, first + cnt));
		if (cnt > 1) {
			assert_int_equal(ew_geom_home_run(g, k, first + 1, &x),
					 first + 1);
			assert_int_equal(x, cnt - 1);
		}
		sum += cnt;
		at = first + cnt;
	}
	assert_int_equal(sum, hs);
}

/*
 * Every property of one geometry, checked block by block: Dm distinct
 * disks, replica k in replica set k, homes inside the region and never
 * shared, homes never in write-anywhere space, ddm's alternation, and
 * enough write-anywhere space for the dilution.
 */
static void check_shape(const struct ew_geom_params *p, u64 len)
{
	struct ew_geom g;
	struct ew_replica r[EW_MAX_MIRRORS];
	const char *why = NULL;
	u64 db = p->disk_sectors / p->block_sectors;
	u8 *homes;
	u64 *per_disk, *homed;
	u64 l, b;
	u32 n = p->nr_disks, k, j, dm, w;

	assert_int_equal(ew_geom_init(&g, p, len, &why), 0);
	assert_true(g.region_blocks <= db);
	assert_int_equal(g.region_blocks, naive_region(p, len));
	assert_int_equal(g.len_blocks, len);
	homes = calloc(n * g.region_blocks + 1, 1);
	per_disk = calloc(n, sizeof(*per_disk));
	homed = calloc(n, sizeof(*homed));
	assert_non_null(homes);
	assert_non_null(per_disk);
	assert_non_null(homed);
	w = g.width;
	for (l = 0; l < len; l++) {
		dm = ew_geom_map(&g, l, r);
		assert_int_equal(dm, p->mirrors);
		for (k = 0; k < dm; k++) {
			assert_true(r[k].disk < n);
			for (j = 0; j < k; j++)
				assert_int_not_equal(r[k].disk, r[j].disk);
			per_disk[r[k].disk]++;
			if (p->layout == EW_LAYOUT_DDM) {
				/* both replicas in one pair */
				assert_int_equal(r[k].disk / 2,
						 (l / g.chunk_blocks) % w);
			} else {
				/* replica k in replica set k */
				assert_int_equal(r[k].disk / w, k);
			}
			if (r[k].home == EW_NO_BLOCK) {
				assert_true(p->layout == EW_LAYOUT_EW ||
					    (p->layout == EW_LAYOUT_DDM &&
					     k == 1));
				continue;
			}
			assert_true(p->layout == EW_LAYOUT_RAID10 || k == 0);
			assert_true(r[k].home < g.region_blocks);
			assert_true(ew_geom_is_home(&g, r[k].disk, r[k].home));
			b = (u64)r[k].disk * g.region_blocks + r[k].home;
			assert_int_equal(homes[b], 0);
			homes[b] = 1;
			homed[r[k].disk]++;
		}
		if (p->layout == EW_LAYOUT_DDM)
			assert_int_equal(r[0].disk, r[1].disk ^ 1);
	}
	for (k = 0; k < n; k++) {
		u64 wa = 0, hs = 0;

		for (b = 0; b < g.region_blocks; b++) {
			if (ew_geom_is_home(&g, k, b))
				hs++;
			else
				wa++;
		}
		/* never a home past the region or on the wrong layout */
		assert_false(ew_geom_is_home(&g, k, g.region_blocks));
		check_home_runs(&g, k, hs);
		switch (p->layout) {
		case EW_LAYOUT_EW:
			assert_int_equal(hs, 0);
			/* utilisation at most 1 / Dd */
			assert_true(g.region_blocks * 100 >=
				    per_disk[k] * p->dilution_x100);
			break;
		case EW_LAYOUT_RAID10:
			assert_int_equal(wa, 0);
			assert_int_equal(homed[k], per_disk[k]);
			break;
		case EW_LAYOUT_DDM:
			/* partner copies fit the diluted write-anywhere part */
			assert_true(wa * 100 >= (per_disk[k] - homed[k]) *
				    p->dilution_x100);
			/* each disk of a pair is home to about half */
			if (!(k & 1)) {
				u64 a = homed[k], c = homed[k + 1];

				assert_true(a >= c &&
					    a - c <= g.chunk_blocks);
			}
			break;
		default:
			fail();
		}
	}
	free(homes);
	free(per_disk);
	free(homed);
}

/* Deterministic pseudo-random numbers for the shape sweep. */
static u64 rng_state = 0x9e3779b97f4a7c15ULL;
static u32 rnd(u32 n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (u32)(rng_state >> 33) % n;
}

static const u32 dilutions[] = { 100, 101, 133, 150, 199, 200, 250, 333, 1000 };
static const u32 blocks_chunks[][2] = {
	{ 8, 8 }, { 8, 16 }, { 8, 32 }, { 16, 16 }, { 16, 64 }, { 128, 128 },
	{ 64, 256 },
};

static void sweep(enum ew_layout l)
{
	u32 n, m, shapes = 0;

	for (n = 2; n <= 64; n++) {
		for (m = 2; m <= 8; m++) {
			struct ew_geom_params p;
			u32 bs, cs, cb;
			u64 cap, db;
			int i;

			if (l == EW_LAYOUT_DDM && (m != 2 || (n & 1)))
				continue;
			if (n % m)
				continue;
			i = rnd(ARRAY_SIZE(blocks_chunks));
			bs = blocks_chunks[i][0];
			cs = blocks_chunks[i][1];
			cb = cs / bs;
			/* small members so a bitmap covers the whole array */
			db = 12 * cb + rnd(200);
			p = mkp(l, n, m, dilutions[rnd(ARRAY_SIZE(dilutions))],
				bs, cs, db * bs + rnd(bs));
			assert_int_equal(ew_geom_check(&p, NULL), 0);
			cap = ew_geom_capacity_blocks(&p);
			assert_int_equal(cap, naive_capacity(&p));
			check_shape(&p, cap);
			check_shape(&p, 1);
			check_shape(&p, 1 + rnd(cap));
			check_shape(&p, cap / 3 + 1);
			shapes++;
		}
	}
	assert_true(shapes >= 31);
}

static void test_sweep_raid10(void **state)
{
	(void)state;
	sweep(EW_LAYOUT_RAID10);
}

static void test_sweep_ddm(void **state)
{
	(void)state;
	sweep(EW_LAYOUT_DDM);
}

static void test_sweep_ew(void **state)
{
	(void)state;
	sweep(EW_LAYOUT_EW);
}

/* Every dilution and chunk/block pair on a few fixed widths. */
static void test_sweep_params(void **state)
{
	static const u32 widths[] = { 2, 4, 6, 36, 64 };
	unsigned int a, b, c, lay;

	(void)state;
	for (lay = 0; lay < EW_LAYOUT_NR; lay++)
		for (a = 0; a < ARRAY_SIZE(widths); a++)
			for (b = 0; b < ARRAY_SIZE(dilutions); b++)
				for (c = 0; c < ARRAY_SIZE(blocks_chunks);
				     c++) {
					u32 bs = blocks_chunks[c][0];
					u32 cs = blocks_chunks[c][1];
					struct ew_geom_params p =
						mkp(lay, widths[a], 2,
						    dilutions[b], bs, cs,
						    (u64)(cs / bs) * 23 * bs);
					u64 cap = ew_geom_capacity_blocks(&p);

					assert_true(cap > 0);
					assert_int_equal(cap,
							 naive_capacity(&p));
					check_shape(&p, cap);
					check_shape(&p, (cap + 1) / 2);
				}
}

/* The paper's 2 x 9 x 2 EW-Array: 36 disks of 1 GiB, 4 KiB blocks. */
static void test_reference_2x9x2(void **state)
{
	struct ew_geom_params p = mkp(EW_LAYOUT_EW, 36, 2, 200, 8, 128,
				      SZ_1G_SECTORS);
	struct ew_geom g;
	struct ew_replica r[2];
	const char *why;

	(void)state;
	/* disk 262144 blocks; share 131072; 18 columns */
	assert_int_equal(ew_geom_capacity_blocks(&p), 2359296);
	/* a volume of one member's size: 911 rows of 16 blocks */
	assert_int_equal(ew_geom_init(&g, &p, 262144, &why), 0);
	assert_int_equal(g.width, 18);
	assert_int_equal(g.chunk_blocks, 16);
	assert_int_equal(g.disk_blocks, 262144);
	assert_int_equal(g.region_blocks, 29152);
	/* Ds = 262144 / 29152 = 8.99, the paper's 9 */
	assert_int_equal(ew_geom_stripe_x100(&g), 899);
	/* block 5000: chunk 312, column 6, row 17 */
	assert_int_equal(ew_geom_map(&g, 5000, r), 2);
	assert_int_equal(r[0].disk, 6);
	assert_int_equal(r[1].disk, 24);
	assert_true(r[0].home == EW_NO_BLOCK && r[1].home == EW_NO_BLOCK);
	/* at capacity every member is used: Ds 1 */
	assert_int_equal(ew_geom_init(&g, &p, 2359296, &why), 0);
	assert_int_equal(g.region_blocks, 262144);
	assert_int_equal(ew_geom_stripe_x100(&g), 100);
}

/* Worked examples of Documentation/geometry.rst for raid10 and ddm. */
static void test_worked_raid10_ddm(void **state)
{
	struct ew_geom_params p = mkp(EW_LAYOUT_RAID10, 6, 2, 100, 8, 32,
				      8000);
	struct ew_geom g;
	struct ew_replica r[2];
	const char *why;

	(void)state;
	/* raid10 on 6 disks of 1000 blocks, chunk 4: 250 rows x 3 x 4 */
	assert_int_equal(ew_geom_capacity_blocks(&p), 3000);
	assert_int_equal(ew_geom_init(&g, &p, 100, &why), 0);
	assert_int_equal(g.region_blocks, 36);	/* 9 rows of 4 */
	/* block 29: chunk 7, column 1, row 2, offset 1 */
	assert_int_equal(ew_geom_map(&g, 29, r), 2);
	assert_int_equal(r[0].disk, 1);
	assert_int_equal(r[1].disk, 4);
	assert_int_equal(r[0].home, 9);
	assert_int_equal(r[1].home, 9);

	/* ddm on 4 disks of 1000 blocks, chunk 4, Dd 1.5: unit 10 */
	p = mkp(EW_LAYOUT_DDM, 4, 2, 150, 8, 32, 8000);
	assert_int_equal(ew_geom_capacity_blocks(&p), 1600);
	assert_int_equal(ew_geom_init(&g, &p, 100, &why), 0);
	assert_int_equal(g.unit_blocks, 10);
	assert_int_equal(g.region_blocks, 70);	/* 13 rows -> 7 units */
	/* block 29: chunk 7, pair 1, row 3: home disk 3, unit 1 */
	assert_int_equal(ew_geom_map(&g, 29, r), 2);
	assert_int_equal(r[0].disk, 3);
	assert_int_equal(r[0].home, 11);
	assert_int_equal(r[1].disk, 2);
	assert_true(r[1].home == EW_NO_BLOCK);
	/* block 5: chunk 1, pair 1, row 0: home disk 2, unit 0 */
	ew_geom_map(&g, 5, r);
	assert_int_equal(r[0].disk, 2);
	assert_int_equal(r[0].home, 1);
	assert_int_equal(r[1].disk, 3);
	assert_true(ew_geom_is_home(&g, 3, 11));
	assert_false(ew_geom_is_home(&g, 3, 14));
	assert_true(ew_geom_is_home(&g, 3, 20));
}

static void test_capacity_edge(void **state)
{
	unsigned int lay;

	(void)state;
	for (lay = 0; lay < EW_LAYOUT_NR; lay++) {
		struct ew_geom_params p = mkp(lay, 8, 2, 133, 8, 64,
					      SZ_1G_SECTORS + 7);
		struct ew_geom g;
		const char *why = NULL;
		u64 cap = ew_geom_capacity_blocks(&p), lb;

		assert_int_equal(cap, naive_capacity(&p));
		assert_int_equal(ew_geom_init(&g, &p, cap, &why), 0);
		assert_true(g.region_blocks <= g.disk_blocks);
		assert_int_equal(ew_geom_init(&g, &p, cap + 1, &why), -EINVAL);
		assert_string_equal(why, "Length exceeds the array's capacity");
		assert_int_equal(ew_geom_init(&g, &p, 0, &why), -EINVAL);
		assert_string_equal(why, "Length is zero");
		/* the same in sectors */
		assert_int_equal(ew_geom_len_blocks(&p, cap * 8, &lb, &why), 0);
		assert_int_equal(lb, cap);
		assert_int_equal(ew_geom_len_blocks(&p, cap * 8 + 8, &lb, &why),
				 -EINVAL);
		assert_string_equal(why, "Length exceeds the array's capacity");
		assert_int_equal(ew_geom_len_blocks(&p, 12, &lb, &why),
				 -EINVAL);
		assert_string_equal(why, "Length not a multiple of block_size");
		assert_int_equal(ew_geom_len_blocks(&p, 0, &lb, &why), -EINVAL);
		assert_string_equal(why, "Length is zero");
	}
}

/* The region never grows when len shrinks, and is much smaller at 1/4. */
static void test_region_shrinks(void **state)
{
	unsigned int lay;

	(void)state;
	for (lay = 0; lay < EW_LAYOUT_NR; lay++) {
		struct ew_geom_params p = mkp(lay, 36, 2, 200, 8, 128,
					      SZ_1G_SECTORS);
		struct ew_geom g;
		u64 cap = ew_geom_capacity_blocks(&p), len, prev = ~0ULL;
		u64 full;

		ew_geom_init(&g, &p, cap, NULL);
		full = g.region_blocks;
		for (len = cap; len > 0; len = len * 7 / 8) {
			assert_int_equal(ew_geom_init(&g, &p, len, NULL), 0);
			assert_true(g.region_blocks <= prev);
			prev = g.region_blocks;
		}
		ew_geom_init(&g, &p, cap / 4, NULL);
		assert_true(g.region_blocks * 3 < full);
		assert_true(ew_geom_stripe_x100(&g) >= 390);
	}
}

/* Large members: the arithmetic does not overflow at the limits. */
static void test_large_members(void **state)
{
	unsigned int lay;

	(void)state;
	for (lay = 0; lay < EW_LAYOUT_NR; lay++) {
		struct ew_geom_params p = mkp(lay, 64, 2, 10000, 8, 8,
					      EW_MAX_DISK_SECTORS);
		struct ew_geom g;
		struct ew_replica r[2];
		u64 cap = ew_geom_capacity_blocks(&p), last;
		const char *why;

		assert_true(cap > 0);
		assert_int_equal(ew_geom_init(&g, &p, cap, &why), 0);
		assert_true(g.region_blocks <= g.disk_blocks);
		last = cap - 1;
		ew_geom_map(&g, last, r);
		if (r[0].home != EW_NO_BLOCK)
			assert_true(r[0].home < g.region_blocks);
		p.disk_sectors++;
		assert_int_equal(ew_geom_check(&p, &why), -EINVAL);
		assert_string_equal(why,
				    "Data devices too large (at most 2^48 sectors)");
	}
	/* 1 GiB chunks and Dd 100 on ddm: unit_blocks fits u32 */
	{
		struct ew_geom_params p = mkp(EW_LAYOUT_DDM, 2, 2, 10000, 8,
					      EW_MAX_CHUNK_SECTORS,
					      EW_MAX_DISK_SECTORS);
		struct ew_geom g;

		assert_int_equal(ew_geom_init(&g, &p, 1, NULL), 0);
		assert_int_equal(g.unit_blocks, 101u << 18);
	}
}

struct bad_case {
	struct ew_geom_params p;
	const char *why;
};

static void test_check_messages(void **state)
{
	static const struct bad_case bad[] = {
		{ { EW_LAYOUT_NR, 4, 2, 200, 8, 128, 1 << 20 },
		  "Unknown layout" },
		{ { EW_LAYOUT_EW, 1, 2, 200, 8, 128, 1 << 20 },
		  "Wrong number of data devices (2 to 64)" },
		{ { EW_LAYOUT_RAID10, 66, 2, 200, 8, 128, 1 << 20 },
		  "Wrong number of data devices (2 to 64)" },
		{ { EW_LAYOUT_RAID10, 4, 1, 200, 8, 128, 1 << 20 },
		  "mirrors out of range (2 to 8)" },
		{ { EW_LAYOUT_EW, 36, 9, 200, 8, 128, 1 << 20 },
		  "mirrors out of range (2 to 8)" },
		{ { EW_LAYOUT_DDM, 6, 3, 200, 8, 128, 1 << 20 },
		  "mirrors must be 2 for layout ddm" },
		{ { EW_LAYOUT_DDM, 5, 2, 200, 8, 128, 1 << 20 },
		  "Odd number of data devices for layout ddm" },
		{ { EW_LAYOUT_EW, 9, 2, 200, 8, 128, 1 << 20 },
		  "Number of data devices not divisible by mirrors" },
		{ { EW_LAYOUT_RAID10, 8, 3, 200, 8, 128, 1 << 20 },
		  "Number of data devices not divisible by mirrors" },
		{ { EW_LAYOUT_EW, 4, 2, 200, 4, 128, 1 << 20 },
		  "block_size must be a power of two from 4096 to 65536" },
		{ { EW_LAYOUT_EW, 4, 2, 200, 256, 256, 1 << 20 },
		  "block_size must be a power of two from 4096 to 65536" },
		{ { EW_LAYOUT_EW, 4, 2, 200, 24, 128, 1 << 20 },
		  "block_size must be a power of two from 4096 to 65536" },
		{ { EW_LAYOUT_EW, 4, 2, 200, 8, 96, 1 << 20 },
		  "chunk_sectors must be a power of two" },
		{ { EW_LAYOUT_EW, 4, 2, 200, 8, 0, 1 << 20 },
		  "chunk_sectors must be a power of two" },
		{ { EW_LAYOUT_EW, 4, 2, 200, 16, 8, 1 << 20 },
		  "chunk_sectors smaller than a block" },
		{ { EW_LAYOUT_EW, 4, 2, 200, 8, 1 << 22, 1ULL << 40 },
		  "chunk_sectors too large (at most 2097152)" },
		{ { EW_LAYOUT_EW, 4, 2, 99, 8, 128, 1 << 20 },
		  "dilution out of range (1 to 100)" },
		{ { EW_LAYOUT_DDM, 4, 2, 10001, 8, 128, 1 << 20 },
		  "dilution out of range (1 to 100)" },
		{ { EW_LAYOUT_RAID10, 4, 2, 200, 8, 128, 127 },
		  "Data devices too small for the layout" },
		{ { EW_LAYOUT_EW, 4, 2, 200, 8, 128, 255 },
		  "Data devices too small for the layout" },
		{ { EW_LAYOUT_DDM, 4, 2, 200, 8, 128, 128 * 3 - 1 },
		  "Data devices too small for the layout" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *why = NULL;

		assert_int_equal(ew_geom_check(&bad[i].p, &why), -EINVAL);
		assert_non_null(why);
		if (strcmp(why, bad[i].why))
			fail_msg("case %u: got \"%s\", want \"%s\"", i, why,
				 bad[i].why);
		assert_int_equal(ew_geom_capacity_blocks(&bad[i].p), 0);
	}
	/* raid10 ignores dilution; the smallest members that work */
	{
		struct ew_geom_params p = mkp(EW_LAYOUT_RAID10, 4, 2, 0, 8,
					      128, 128);

		assert_int_equal(ew_geom_check(&p, NULL), 0);
		assert_int_equal(ew_geom_capacity_blocks(&p), 32);
		p = mkp(EW_LAYOUT_EW, 4, 2, 200, 8, 128, 256);
		assert_int_equal(ew_geom_capacity_blocks(&p), 32);
		p = mkp(EW_LAYOUT_DDM, 4, 2, 200, 8, 128, 128 * 3);
		assert_int_equal(ew_geom_capacity_blocks(&p), 64);
	}
	/* every message is listed, non-empty and distinct */
	for (i = 0; ew_geom_error(i); i++) {
		unsigned int j;

		assert_true(strlen(ew_geom_error(i)) > 0);
		for (j = 0; j < i; j++)
			assert_string_not_equal(ew_geom_error(i),
						ew_geom_error(j));
	}
	assert_int_equal(i, 16);
}

static void test_is_home(void **state)
{
	struct ew_geom g;
	struct ew_geom_params p = mkp(EW_LAYOUT_EW, 4, 2, 200, 8, 8, 8000);
	u64 b;

	(void)state;
	assert_int_equal(ew_geom_init(&g, &p, 100, NULL), 0);
	for (b = 0; b < g.disk_blocks; b++)
		assert_false(ew_geom_is_home(&g, 0, b));
	p.layout = EW_LAYOUT_RAID10;
	assert_int_equal(ew_geom_init(&g, &p, 100, NULL), 0);
	assert_int_equal(g.region_blocks, 50);
	assert_true(ew_geom_is_home(&g, 3, 49));
	assert_false(ew_geom_is_home(&g, 3, 50));
	assert_false(ew_geom_is_home(&g, 4, 0));
}

static void test_layout_names(void **state)
{
	enum ew_layout l;
	unsigned int i;

	(void)state;
	for (i = 0; i < EW_LAYOUT_NR; i++) {
		assert_int_equal(ew_layout_parse(ew_layout_name(i), &l), 0);
		assert_int_equal(l, i);
	}
	assert_string_equal(ew_layout_name(EW_LAYOUT_RAID10), "raid10");
	assert_string_equal(ew_layout_name(EW_LAYOUT_DDM), "ddm");
	assert_string_equal(ew_layout_name(EW_LAYOUT_EW), "ew");
	assert_int_equal(ew_layout_parse("RAID10", &l), -EINVAL);
	assert_int_equal(ew_layout_parse("", &l), -EINVAL);
	assert_int_equal(ew_layout_parse("ew ", &l), -EINVAL);
}

static void test_parse_dilution(void **state)
{
	static const struct { const char *s; u32 v; } good[] = {
		{ "2", 200 }, { "1.5", 150 }, { "1.33", 133 }, { "2.00", 200 },
		{ "1", 100 }, { "1.0", 100 }, { "100", 10000 }, { "100.00", 10000 },
		{ "99.99", 9999 }, { "1.01", 101 }, { "02", 200 },
	};
	static const char *const bad[] = {
		"0.9", "1.333", "", "abc", "2.", ".5", "-1", "1e3", "+2",
		" 2", "2 ", "0", "0.99", "100.01", "101", "1..5", "1.5.", "1,5",
		"99999999999999999999999", "4294967296", "18446744073709551617",
	};
	unsigned int i;
	u32 v;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		v = 0;
		if (ew_parse_dilution(good[i].s, &v))
			fail_msg("\"%s\" rejected", good[i].s);
		assert_int_equal(v, good[i].v);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		v = 12345;
		if (!ew_parse_dilution(bad[i], &v))
			fail_msg("\"%s\" accepted", bad[i]);
		assert_int_equal(v, 12345);
	}
	assert_int_equal(ew_parse_dilution("0.5", &v), -ERANGE);
	assert_int_equal(ew_parse_dilution("1.333", &v), -EINVAL);
}

static void test_format_dilution(void **state)
{
	char buf[16];
	u32 x, back;

	(void)state;
	assert_int_equal(ew_format_dilution(buf, sizeof(buf), 200), 1);
	assert_string_equal(buf, "2");
	ew_format_dilution(buf, sizeof(buf), 150);
	assert_string_equal(buf, "1.5");
	ew_format_dilution(buf, sizeof(buf), 133);
	assert_string_equal(buf, "1.33");
	ew_format_dilution(buf, sizeof(buf), 105);
	assert_string_equal(buf, "1.05");
	ew_format_dilution(buf, sizeof(buf), 10000);
	assert_string_equal(buf, "100");
	/* reload-exact over the whole range */
	for (x = 100; x <= EW_MAX_DILUTION_X100; x++) {
		int n = ew_format_dilution(buf, sizeof(buf), x);

		assert_true(n > 0 && n < (int)sizeof(buf));
		assert_int_equal(ew_parse_dilution(buf, &back), 0);
		assert_int_equal(back, x);
	}
	/* snprintf semantics when the buffer is short */
	assert_int_equal(ew_format_dilution(buf, 2, 133), 4);
	assert_string_equal(buf, "1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_raid10),
		cmocka_unit_test(test_sweep_ddm),
		cmocka_unit_test(test_sweep_ew),
		cmocka_unit_test(test_sweep_params),
		cmocka_unit_test(test_reference_2x9x2),
		cmocka_unit_test(test_worked_raid10_ddm),
		cmocka_unit_test(test_capacity_edge),
		cmocka_unit_test(test_region_shrinks),
		cmocka_unit_test(test_large_members),
		cmocka_unit_test(test_check_messages),
		cmocka_unit_test(test_is_home),
		cmocka_unit_test(test_layout_names),
		cmocka_unit_test(test_parse_dilution),
		cmocka_unit_test(test_format_dilution),
	};

	return cmocka_run_group_tests_name("geom", tests, NULL, NULL);
}
