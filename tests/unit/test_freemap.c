// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_freemap.c - the free-block map (ew_freemap.c) against a naive
 * model: a bool per block, counts recomputed from scratch.
 */
#include "ew_test_util.h"
#include "ew_freemap.h"

struct naive {
	u64 n;
	bool *used;
};

static void disk_of(struct ew_disk *d, bool toy, u64 sectors)
{
	struct ew_disk_params p;

	if (toy)
		ew_test_toy_params(&p);
	else
		ew_disk_params_default(&p);
	assert_int_equal(ew_disk_init(d, &p, sectors), 0);
}

static u32 naive_track(const struct ew_freemap *fm, u64 b)
{
	struct ew_pos pos;

	ew_disk_lba_to_pos(fm->disk, b * fm->block_sectors, &pos);
	return ew_disk_track_of(fm->disk, &pos);
}

/* Every count of fm against the naive model, recomputed from scratch. */
static void check_counts(const struct ew_freemap *fm, const struct naive *m)
{
	u32 heads = fm->disk->p.heads;
	u32 *tf = calloc(fm->nr_tracks, sizeof(u32));
	u32 *cf = calloc(fm->nr_cyls, sizeof(u32));
	u32 *gf = calloc(fm->nr_groups, sizeof(u32));
	u64 b, nfree = 0;
	u32 t;

	assert_non_null(tf);
	assert_non_null(cf);
	assert_non_null(gf);
	for (b = 0; b < m->n; b++) {
		assert_int_equal(ew_freemap_is_free(fm, b), !m->used[b]);
		if (m->used[b])
			continue;
		t = naive_track(fm, b);
		assert_true(t < fm->nr_tracks);
		tf[t]++;
		cf[t / heads]++;
		gf[t / heads / EW_FM_GROUP]++;
		nfree++;
	}
	assert_int_equal(fm->nr_free, nfree);
	for (t = 0; t < fm->nr_tracks; t++)
		assert_int_equal(ew_freemap_track_free(fm, t), tf[t]);
	for (t = 0; t < fm->nr_cyls; t++)
		assert_int_equal(ew_freemap_cyl_free(fm, t), cf[t]);
	for (t = 0; t < fm->nr_groups; t++)
		assert_int_equal(fm->group_free[t], gf[t]);
	free(tf);
	free(cf);
	free(gf);
}

static void test_init_track_blocks(void **state)
{
	struct ew_disk d;
	struct ew_freemap fm;
	u64 first, b, seen = 0, expect = 0;
	u32 t, n;

	(void)state;
	disk_of(&d, true, EW_TOY_SECTORS);
	assert_int_equal(ew_freemap_init(&fm, &d, 8, 20), 0);
	assert_int_equal(fm.nr_free, 20);
	/* 12-sector tracks: blocks start at 0, 8 | 16 | 24, 32 | 40 ... */
	assert_int_equal(ew_freemap_track_blocks(&fm, 0, &first), 2);
	assert_int_equal(first, 0);
	assert_int_equal(ew_freemap_track_blocks(&fm, 1, &first), 1);
	assert_int_equal(first, 2);
	assert_int_equal(ew_freemap_track_blocks(&fm, 2, &first), 2);
	assert_int_equal(first, 3);
	/* every block is in exactly one track, the one of its first sector */
	for (t = 0; t < fm.nr_tracks; t++) {
		n = ew_freemap_track_blocks(&fm, t, &first);
		assert_int_equal(first, expect);
		for (b = first; b < first + n; b++)
			assert_int_equal(ew_freemap_block_track(&fm, b), t);
		expect = first + n;
		seen += n;
	}
	assert_int_equal(seen, 20);
	/* block 19: sector 152, zone 1 (8 sectors a track) track 8 + 7 */
	assert_int_equal(fm.nr_tracks, 16);
	assert_int_equal(fm.nr_cyls, 8);
	assert_int_equal(fm.nr_groups, 1);
	ew_freemap_destroy(&fm);
}

static void test_init_errors(void **state)
{
	struct ew_disk d;
	struct ew_freemap fm;

	(void)state;
	disk_of(&d, true, EW_TOY_SECTORS);
	assert_int_equal(ew_freemap_init(&fm, &d, 0, 10), -EINVAL);
	assert_int_equal(ew_freemap_init(&fm, &d, 8, 0), -EINVAL);
	assert_int_equal(ew_freemap_init(&fm, &d, 8, 21), -EINVAL);
	assert_int_equal(ew_freemap_bytes(&d, 8, 21), 0);
	assert_int_equal(ew_freemap_init(&fm, &d, 1, 160), 0);
	assert_int_equal(ew_freemap_alloc(&fm, 160), -ERANGE);
	assert_int_equal(ew_freemap_free(&fm, 160), -ERANGE);
	assert_int_equal(ew_freemap_free(&fm, 5), -EINVAL);
	assert_int_equal(ew_freemap_alloc(&fm, 5), 0);
	assert_int_equal(ew_freemap_alloc(&fm, 5), -EBUSY);
	assert_false(ew_freemap_is_free(&fm, 5));
	assert_false(ew_freemap_is_free(&fm, 1000));
	assert_int_equal(ew_freemap_free(&fm, 5), 0);
	assert_int_equal(fm.nr_free, 160);
	ew_freemap_destroy(&fm);
}

/* Thousands of random operations, every count checked. */
static void random_ops(bool toy, u64 sectors, u32 bs, u64 nr_blocks,
		       u32 ops, u32 check_every, u64 seed)
{
	struct ew_disk d;
	struct ew_freemap fm;
	struct naive m;
	u64 b, c, i, got, expect;
	u32 op;
	int ret;

	disk_of(&d, toy, sectors);
	assert_int_equal(ew_freemap_init(&fm, &d, bs, nr_blocks), 0);
	m.n = nr_blocks;
	m.used = calloc(nr_blocks, sizeof(bool));
	assert_non_null(m.used);
	check_counts(&fm, &m);
	for (op = 0; op < ops; op++) {
		b = ew_test_below(&seed, nr_blocks);
		switch (ew_test_below(&seed, 10)) {
		case 0:	/* a range, all or nothing */
			c = 1 + ew_test_below(&seed, 40);
			ret = ew_freemap_alloc_range(&fm, b, c);
			if (b + c > nr_blocks) {
				assert_int_equal(ret, -ERANGE);
				break;
			}
			expect = 0;
			for (i = b; i < b + c; i++)
				expect |= m.used[i];
			assert_int_equal(ret, expect ? -EBUSY : 0);
			if (!ret)
				for (i = b; i < b + c; i++)
					m.used[i] = true;
			break;
		case 1:
			c = 1 + ew_test_below(&seed, 40);
			ret = ew_freemap_free_range(&fm, b, c);
			if (b + c > nr_blocks) {
				assert_int_equal(ret, -ERANGE);
				break;
			}
			expect = 0;
			for (i = b; i < b + c; i++)
				expect |= !m.used[i];
			assert_int_equal(ret, expect ? -EINVAL : 0);
			if (!ret)
				for (i = b; i < b + c; i++)
					m.used[i] = false;
			break;
		case 2:	/* find_free against a scan */
			c = b + ew_test_below(&seed, 300);
			got = ew_freemap_find_free(&fm, b, c);
			expect = EW_NO_BLOCK;
			for (i = b; i < c && i < nr_blocks; i++) {
				if (!m.used[i]) {
					expect = i;
					break;
				}
			}
			assert_int_equal(got, expect);
			break;
		case 3: case 4: case 5: case 6:
			ret = ew_freemap_alloc(&fm, b);
			assert_int_equal(ret, m.used[b] ? -EBUSY : 0);
			m.used[b] = true;
			break;
		default:
			ret = ew_freemap_free(&fm, b);
			assert_int_equal(ret, m.used[b] ? 0 : -EINVAL);
			m.used[b] = false;
			break;
		}
		if (op % check_every == 0)
			check_counts(&fm, &m);
	}
	check_counts(&fm, &m);
	free(m.used);
	ew_freemap_destroy(&fm);
}

/*
 * A map built in bulk (ew_freemap_mark_used() from a bitmap,
 * ew_freemap_recount(), as the constructor builds it from the loaded
 * map's check) over ranges taken the ordinary way: every count as the
 * naive model's, and searchable after.
 */
static void bulk_build(bool toy, u64 sectors, u32 bs, u64 nr_blocks,
		       u32 permille, u64 seed)
{
	u64 words = (nr_blocks + 63) / 64;
	struct ew_disk d;
	struct ew_freemap fm;
	struct naive m;
	u64 b, i, *bits;

	disk_of(&d, toy, sectors);
	assert_int_equal(ew_freemap_init(&fm, &d, bs, nr_blocks), 0);
	m.n = nr_blocks;
	m.used = calloc(nr_blocks, sizeof(bool));
	bits = calloc(words + 1, sizeof(u64));
	assert_non_null(m.used);
	assert_non_null(bits);
	/* a range first, its counts kept by alloc_range */
	assert_int_equal(ew_freemap_alloc_range(&fm, 0, nr_blocks / 8), 0);
	for (i = 0; i < nr_blocks / 8; i++)
		m.used[i] = true;
	/* the bitmap overlaps the range: its blocks stay used */
	for (b = 0; b < nr_blocks; b++) {
		if (ew_test_below(&seed, 1000) >= permille)
			continue;
		bits[b / 64] |= 1ULL << (b % 64);
		m.used[b] = true;
	}
	/* a bit past the map: refused, nothing set */
	if (nr_blocks % 64) {
		bits[words - 1] |= 1ULL << (nr_blocks % 64);
		assert_int_equal(ew_freemap_mark_used(&fm, bits), -ERANGE);
		bits[words - 1] &= ~(1ULL << (nr_blocks % 64));
		for (b = nr_blocks / 8; b < nr_blocks; b++)
			assert_true(ew_freemap_is_free(&fm, b));
	}
	assert_int_equal(ew_freemap_mark_used(&fm, bits), 0);
	free(bits);
	ew_freemap_recount(&fm);
	check_counts(&fm, &m);
	/* the ordinary operations go on from the recounted state */
	for (b = 0; b < nr_blocks; b += 7) {
		if (m.used[b])
			assert_int_equal(ew_freemap_free(&fm, b), 0);
		else
			assert_int_equal(ew_freemap_alloc(&fm, b), 0);
		m.used[b] = !m.used[b];
	}
	check_counts(&fm, &m);
	free(m.used);
	ew_freemap_destroy(&fm);
}

static void test_bulk_build(void **state)
{
	(void)state;
	bulk_build(true, EW_TOY_SECTORS, 1, 160, 500, 21);
	bulk_build(true, EW_TOY_SECTORS, 3, 53, 300, 22);
	bulk_build(false, 1 << 21, 8, 8192 * 2, 400, 23);
	bulk_build(false, 131072, 8, 16384, 1000, 24);
}

static void test_random_toy_bs1(void **state)
{
	(void)state;
	random_ops(true, EW_TOY_SECTORS, 1, 160, 5000, 1, 11);
}

static void test_random_toy_bs3(void **state)
{
	(void)state;
	/* blocks straddle tracks: 3 does not divide 12 or 8 */
	random_ops(true, EW_TOY_SECTORS, 3, 53, 5000, 1, 12);
}

static void test_random_cheetah(void **state)
{
	(void)state;
	/* 32 MiB region of a 1 GiB device, 4 KiB blocks, 8 groups */
	random_ops(false, 1 << 21, 8, 8192 * 2, 20000, 500, 13);
}

static void test_random_cheetah_full(void **state)
{
	(void)state;
	/* the whole 64 MiB device: ~2,000 more ops than blocks/8 */
	random_ops(false, 131072, 8, 16384, 8000, 2000, 14);
}

static void test_find_free_edges(void **state)
{
	struct ew_disk d;
	struct ew_freemap fm;
	u64 b;

	(void)state;
	disk_of(&d, true, EW_TOY_SECTORS);
	assert_int_equal(ew_freemap_init(&fm, &d, 1, 160), 0);
	assert_int_equal(ew_freemap_find_free(&fm, 0, 160), 0);
	assert_int_equal(ew_freemap_find_free(&fm, 5, 5), EW_NO_BLOCK);
	assert_int_equal(ew_freemap_find_free(&fm, 9, 3), EW_NO_BLOCK);
	assert_int_equal(ew_freemap_find_free(&fm, 159, 1000), 159);
	assert_int_equal(ew_freemap_find_free(&fm, 160, 1000), EW_NO_BLOCK);
	/* used through word boundaries: 0..127 used, 128 free */
	assert_int_equal(ew_freemap_alloc_range(&fm, 0, 128), 0);
	assert_int_equal(ew_freemap_find_free(&fm, 0, 160), 128);
	assert_int_equal(ew_freemap_find_free(&fm, 63, 129), 128);
	assert_int_equal(ew_freemap_find_free(&fm, 63, 128), EW_NO_BLOCK);
	assert_int_equal(ew_freemap_free(&fm, 64), 0);
	assert_int_equal(ew_freemap_find_free(&fm, 0, 160), 64);
	assert_int_equal(ew_freemap_find_free(&fm, 64, 65), 64);
	assert_int_equal(ew_freemap_find_free(&fm, 65, 160), 128);
	assert_int_equal(ew_freemap_free(&fm, 63), 0);
	assert_int_equal(ew_freemap_find_free(&fm, 0, 160), 63);
	/* everything used */
	assert_int_equal(ew_freemap_alloc_range(&fm, 128, 32), 0);
	assert_int_equal(ew_freemap_alloc(&fm, 63), 0);
	assert_int_equal(ew_freemap_alloc(&fm, 64), 0);
	assert_int_equal(fm.nr_free, 0);
	assert_int_equal(ew_freemap_find_free(&fm, 0, 160), EW_NO_BLOCK);
	assert_int_equal(ew_freemap_next_cyl(&fm, 0, 1), -1);
	assert_int_equal(ew_freemap_next_cyl(&fm, 7, -1), -1);
	/* the last block alone */
	assert_int_equal(ew_freemap_free(&fm, 159), 0);
	b = ew_freemap_find_free(&fm, 0, 160);
	assert_int_equal(b, 159);
	assert_int_equal(ew_freemap_next_cyl(&fm, 0, 1), 7);
	assert_int_equal(ew_freemap_next_cyl(&fm, 100, -1), 7);
	ew_freemap_destroy(&fm);
}

static void test_range_all_or_nothing(void **state)
{
	struct ew_disk d;
	struct ew_freemap fm;

	(void)state;
	disk_of(&d, false, 131072);
	assert_int_equal(ew_freemap_init(&fm, &d, 8, 16384), 0);
	assert_int_equal(ew_freemap_alloc(&fm, 5000), 0);
	assert_int_equal(ew_freemap_alloc_range(&fm, 4000, 2000), -EBUSY);
	assert_int_equal(fm.nr_free, 16383);
	assert_true(ew_freemap_is_free(&fm, 4000));
	assert_int_equal(ew_freemap_alloc_range(&fm, 16000, 385), -ERANGE);
	assert_int_equal(ew_freemap_alloc_range(&fm, ~0ULL, 2), -ERANGE);
	assert_int_equal(ew_freemap_alloc_range(&fm, 16000, 384), 0);
	assert_int_equal(fm.nr_free, 16383 - 384);
	assert_int_equal(ew_freemap_alloc_range(&fm, 0, 0), 0);
	assert_int_equal(ew_freemap_free_range(&fm, 15999, 2), -EINVAL);
	assert_int_equal(ew_freemap_free_range(&fm, 16000, 384), 0);
	assert_int_equal(fm.nr_free, 16383);
	ew_freemap_destroy(&fm);
}

static void test_next_cyl(void **state)
{
	struct ew_disk d;
	struct ew_freemap fm;
	u64 first, last, seed = 99;
	s64 c, expect, i;
	u32 round, k, cyls;
	int dir;

	(void)state;
	/* 1 GiB: ~690 cylinders, 11 groups */
	disk_of(&d, false, 1 << 21);
	assert_int_equal(ew_freemap_init(&fm, &d, 8, (1 << 21) / 8), 0);
	cyls = fm.nr_cyls;
	assert_true(fm.nr_groups >= 10);
	assert_int_equal(ew_freemap_next_cyl(&fm, -5, 1), 0);
	assert_int_equal(ew_freemap_next_cyl(&fm, cyls + 10, -1), cyls - 1);
	assert_int_equal(ew_freemap_next_cyl(&fm, cyls, 1), -1);
	assert_int_equal(ew_freemap_next_cyl(&fm, -1, -1), -1);
	assert_int_equal(ew_freemap_next_cyl(&fm, 17, 1), 17);
	assert_int_equal(ew_freemap_next_cyl(&fm, 17, -1), 17);
	/* fill cylinders 10..300 except one block on cylinder 200 */
	ew_freemap_track_blocks(&fm, 10 * 12, &first);
	ew_freemap_track_blocks(&fm, 301 * 12, &last);
	assert_int_equal(ew_freemap_alloc_range(&fm, first, last - first), 0);
	ew_freemap_track_blocks(&fm, 200 * 12 + 5, &first);
	assert_int_equal(ew_freemap_free(&fm, first + 1), 0);
	assert_int_equal(ew_freemap_next_cyl(&fm, 10, 1), 200);
	assert_int_equal(ew_freemap_next_cyl(&fm, 300, -1), 200);
	assert_int_equal(ew_freemap_next_cyl(&fm, 201, 1), 301);
	assert_int_equal(ew_freemap_next_cyl(&fm, 199, -1), 9);
	assert_int_equal(ew_freemap_cyl_free(&fm, 200), 1);
	assert_int_equal(ew_freemap_track_free(&fm, 200 * 12 + 5), 1);
	assert_int_equal(ew_freemap_cyl_free(&fm, cyls + 5), 0);
	/* random sparse states against a brute-force scan */
	for (round = 0; round < 20; round++) {
		for (k = 0; k < 3000; k++)
			ew_freemap_alloc(&fm, ew_test_below(&seed,
							    fm.nr_blocks));
		for (k = 0; k < 200; k++) {
			c = (s64)ew_test_below(&seed, cyls + 20) - 10;
			dir = ew_test_below(&seed, 2) ? 1 : -1;
			expect = -1;
			if (dir > 0) {
				for (i = max(c, (s64)0); i < cyls; i++)
					if (fm.cyl_free[i]) {
						expect = i;
						break;
					}
			} else {
				for (i = min(c, (s64)cyls - 1); i >= 0; i--)
					if (fm.cyl_free[i]) {
						expect = i;
						break;
					}
			}
			assert_int_equal(ew_freemap_next_cyl(&fm, c, dir),
					 expect);
		}
	}
	ew_freemap_destroy(&fm);
}

static void test_memory_size(void **state)
{
	struct ew_disk d;
	u64 tib = 1ULL << 31, blocks = tib / 8;
	struct ew_pos pos;
	size_t bytes;
	u32 cyls, tracks;

	(void)state;
	disk_of(&d, false, tib);
	/* the map ends with the track of its last block */
	ew_disk_lba_to_pos(&d, tib - 8, &pos);
	cyls = d.nr_cylinders;
	assert_int_equal(pos.cyl, cyls - 1);
	tracks = ew_disk_track_of(&d, &pos) + 1;
	bytes = ew_freemap_bytes(&d, 8, blocks);
	/* 1 bit per block + 2 bytes a track + 4 a cylinder + 4 a group */
	assert_int_equal(bytes, blocks / 8 + tracks * 2ULL + cyls * 4ULL +
			 ((cyls + 63) / 64) * 4ULL);
	/* about 62 MB per TiB: a 36 x 1 TiB array needs < 2.3 GB */
	assert_true(bytes < 64ULL << 20);
	assert_true(36ULL * bytes < 2300ULL * 1000 * 1000);
	print_message("freemap: %zu bytes per TiB (4 KiB blocks), 36 TiB: %llu\n",
		      bytes, 36ULL * bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_track_blocks),
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_random_toy_bs1),
		cmocka_unit_test(test_random_toy_bs3),
		cmocka_unit_test(test_random_cheetah),
		cmocka_unit_test(test_random_cheetah_full),
		cmocka_unit_test(test_bulk_build),
		cmocka_unit_test(test_find_free_edges),
		cmocka_unit_test(test_range_all_or_nothing),
		cmocka_unit_test(test_next_cyl),
		cmocka_unit_test(test_memory_size),
	};

	return cmocka_run_group_tests_name("ew_freemap", tests, NULL, NULL);
}
