// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_map.c - the logical-to-physical map and the deferred-free list
 * (core/ew_map.c): supersede by generation, free-after-remap, discard,
 * memory figure, and a randomised model check against a shadow map.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ew_map.h"

#define N EW_MAP_NONE

static void test_init_unwritten(void **state)
{
	struct ew_map m;
	u64 l;

	(void)state;
	assert_int_equal(ew_map_init(&m, 100, 3), 0);
	for (l = 0; l < 100; l++) {
		assert_true(ew_map_unwritten(&m, l));
		assert_true(ew_map_empty(&m, l));
		assert_int_equal(ew_map_pblock(&m, l, 2), N);
	}
	assert_int_equal(ew_map_bytes(100, 3), 100 * (12 + 4 + 1));
	ew_map_destroy(&m);
	assert_int_equal(ew_map_init(&m, 0, 2), -EINVAL);
	assert_int_equal(ew_map_init(&m, 1, EW_MAX_MIRRORS + 1), -EINVAL);
}

static void test_write_then_remap_frees_old(void **state)
{
	struct ew_map m;
	u32 home[2] = { N, N }, newp[2], freed[2];
	u32 g;

	(void)state;
	assert_int_equal(ew_map_init(&m, 4, 2), 0);
	g = ew_map_begin_write(&m, 1);
	newp[0] = 10;
	newp[1] = 20;
	assert_int_equal(ew_map_commit_write(&m, 1, g, 0x3, newp, home, freed),
			 0);
	assert_int_equal(ew_map_uptodate(&m, 1), 0x3);
	assert_int_equal(freed[0], N);
	/* second write, only replica 1 in the foreground */
	g = ew_map_begin_write(&m, 1);
	newp[1] = 21;
	assert_int_equal(ew_map_commit_write(&m, 1, g, 0x2, newp, home, freed),
			 2);
	assert_int_equal(freed[0], 10);	/* stale replica gives its block up */
	assert_int_equal(freed[1], 20);	/* remapped replica too */
	assert_int_equal(ew_map_pblock(&m, 1, 0), N);
	assert_int_equal(ew_map_pblock(&m, 1, 1), 21);
	assert_int_equal(ew_map_uptodate(&m, 1), 0x2);
	ew_map_destroy(&m);
}

static void test_homes_never_freed(void **state)
{
	struct ew_map m;
	u32 home[2] = { 7, 9 }, newp[2] = { 7, 9 }, freed[2];
	u32 g;

	(void)state;
	assert_int_equal(ew_map_init(&m, 2, 2), 0);
	g = ew_map_begin_write(&m, 0);
	assert_int_equal(ew_map_commit_write(&m, 0, g, 0x1, newp, home, freed),
			 0);
	assert_int_equal(ew_map_pblock(&m, 0, 0), 7);
	assert_int_equal(ew_map_pblock(&m, 0, 1), 9);	/* stale, at home */
	assert_int_equal(ew_map_uptodate(&m, 0), 0x1);
	/* ddm: replica 0 eager-written away from its home, then moved home */
	g = ew_map_begin_write(&m, 0);
	newp[0] = 100;
	assert_int_equal(ew_map_commit_write(&m, 0, g, 0x1, newp, home, freed),
			 0);
	assert_int_equal(ew_map_pblock(&m, 0, 0), 100);
	assert_int_equal(ew_map_commit_copy(&m, 0, g, 0, 7, 7, &freed[0]), 1);
	assert_int_equal(freed[0], 100);
	assert_int_equal(ew_map_pblock(&m, 0, 0), 7);
	assert_int_equal(ew_map_uptodate(&m, 0), 0x1);
	ew_map_destroy(&m);
}

static void test_supersede(void **state)
{
	struct ew_map m;
	u32 home[2] = { N, N }, newp[2] = { 5, N }, freed[2], f;
	u32 g1, g2;

	(void)state;
	assert_int_equal(ew_map_init(&m, 1, 2), 0);
	g1 = ew_map_begin_write(&m, 0);
	assert_int_equal(ew_map_commit_write(&m, 0, g1, 0x1, newp, home, freed),
			 0);
	/* delayed copy of replica 1 for g1 lands after g2 began: stale */
	g2 = ew_map_begin_write(&m, 0);
	assert_int_equal(ew_map_commit_copy(&m, 0, g1, 1, 33, N, &f), 0);
	assert_int_equal(f, 33);
	assert_int_equal(ew_map_uptodate(&m, 0), 0x1);
	assert_int_equal(ew_map_pblock(&m, 0, 1), N);
	/* a write of an old generation cannot commit either */
	assert_int_equal(ew_map_commit_write(&m, 0, g1, 0x1, newp, home, freed),
			 -ESTALE);
	newp[0] = 6;
	assert_int_equal(ew_map_commit_write(&m, 0, g2, 0x1, newp, home, freed),
			 1);
	assert_int_equal(freed[0], 5);
	/* the current generation's copy becomes current */
	assert_int_equal(ew_map_commit_copy(&m, 0, g2, 1, 34, N, &f), 1);
	assert_int_equal(f, N);
	assert_int_equal(ew_map_uptodate(&m, 0), 0x3);
	/* a stale copy to a home frees nothing (homes are reserved) */
	g1 = ew_map_begin_write(&m, 0);
	assert_int_equal(ew_map_commit_copy(&m, 0, g2, 1, 44, 44, &f), 0);
	assert_int_equal(f, N);
	(void)g1;
	ew_map_destroy(&m);
}

static void test_discard(void **state)
{
	struct ew_map m;
	u32 home[2] = { 3, N }, newp[2] = { 3, 50 }, freed[2], f;
	u32 g;

	(void)state;
	assert_int_equal(ew_map_init(&m, 1, 2), 0);
	g = ew_map_begin_write(&m, 0);
	assert_int_equal(ew_map_commit_write(&m, 0, g, 0x3, newp, home, freed),
			 0);
	assert_false(ew_map_empty(&m, 0));
	assert_int_equal(ew_map_discard(&m, 0, home, freed), 1);
	assert_int_equal(freed[0], N);
	assert_int_equal(freed[1], 50);
	assert_true(ew_map_unwritten(&m, 0));
	/* the home stays mapped: unwritten, not empty */
	assert_false(ew_map_empty(&m, 0));
	/* a copy of the discarded generation never resurrects it */
	assert_int_equal(ew_map_commit_copy(&m, 0, g, 1, 60, N, &f), 0);
	assert_int_equal(f, 60);
	assert_true(ew_map_unwritten(&m, 0));
	ew_map_destroy(&m);
}

/* A failed read makes a replica stale, never the last current one. */
static void test_set_stale(void **state)
{
	struct ew_map m;
	u32 home[2] = { N, N }, newp[2] = { 10, 20 }, freed[2];
	u32 g;

	(void)state;
	assert_int_equal(ew_map_init(&m, 4, 2), 0);
	assert_false(ew_map_set_stale(&m, 0, 0));	/* unwritten */
	g = ew_map_begin_write(&m, 0);
	assert_int_equal(ew_map_commit_write(&m, 0, g, 0x3, newp, home, freed),
			 0);
	assert_true(ew_map_set_stale(&m, 0, 1));
	assert_int_equal(ew_map_uptodate(&m, 0), 0x1);
	/* its block stays mapped until a copy or a write gives it up */
	assert_int_equal(ew_map_pblock(&m, 0, 1), 20);
	assert_int_equal(ew_map_gen(&m, 0), g);
	assert_false(ew_map_set_stale(&m, 0, 1));	/* already stale */
	assert_false(ew_map_set_stale(&m, 0, 0));	/* the last one */
	assert_int_equal(ew_map_uptodate(&m, 0), 0x1);
	/* the repair copy makes it current again and frees the old block */
	assert_int_equal(ew_map_commit_copy(&m, 0, g, 1, 21, N, &freed[0]), 1);
	assert_int_equal(freed[0], 20);
	assert_int_equal(ew_map_uptodate(&m, 0), 0x3);
	ew_map_destroy(&m);
}

/* A replaced member's stale replica gives its block up; a current one not. */
static void test_drop_stale(void **state)
{
	struct ew_map m;
	u32 home[2] = { N, 7 }, newp[2] = { 10, 7 }, freed[2];
	u32 g;

	(void)state;
	assert_int_equal(ew_map_init(&m, 4, 2), 0);
	assert_int_equal(ew_map_drop_stale(&m, 0, 0, N), N);	/* unwritten */
	g = ew_map_begin_write(&m, 0);
	assert_int_equal(ew_map_commit_write(&m, 0, g, 0x3, newp, home, freed),
			 0);
	assert_int_equal(ew_map_drop_stale(&m, 0, 0, N), N);	/* current */
	assert_int_equal(ew_map_pblock(&m, 0, 0), 10);
	assert_true(ew_map_set_stale(&m, 0, 0));
	assert_int_equal(ew_map_drop_stale(&m, 0, 0, N), 10);
	assert_int_equal(ew_map_pblock(&m, 0, 0), N);
	assert_int_equal(ew_map_drop_stale(&m, 0, 0, N), N);	/* once */
	assert_int_equal(ew_map_gen(&m, 0), g);
	/* a home is never given up: block 1's replica 1, stale at home */
	g = ew_map_begin_write(&m, 1);
	assert_int_equal(ew_map_commit_write(&m, 1, g, 0x1, newp, home, freed),
			 0);
	assert_int_equal(ew_map_uptodate(&m, 1), 0x1);
	assert_int_equal(ew_map_drop_stale(&m, 1, 1, 7), N);
	assert_int_equal(ew_map_pblock(&m, 1, 1), 7);
	ew_map_destroy(&m);
}

static void test_dfree_fifo_and_safe_point(void **state)
{
	struct ew_dfree df;
	u32 d, p;
	int i;

	(void)state;
	assert_int_equal(ew_dfree_init(&df, 4), 0);
	assert_int_equal(ew_dfree_bytes(4), 32);
	for (i = 0; i < 4; i++)
		assert_int_equal(ew_dfree_push(&df, i, 100 + i), i);
	assert_int_equal(ew_dfree_push(&df, 9, 9), -ENOSPC);
	assert_int_equal(ew_dfree_pending(&df), 4);
	/* nothing at or beyond the safe point is released */
	assert_false(ew_dfree_pop(&df, 0, &d, &p));
	assert_true(ew_dfree_pop(&df, 2, &d, &p));
	assert_int_equal(d, 0);
	assert_int_equal(p, 100);
	assert_true(ew_dfree_pop(&df, 2, &d, &p));
	assert_int_equal(p, 101);
	assert_false(ew_dfree_pop(&df, 2, &d, &p));
	/* wraps around */
	assert_int_equal(ew_dfree_push(&df, 4, 104), 4);
	assert_int_equal(ew_dfree_push(&df, 5, 105), 5);
	for (i = 2; i < 6; i++) {
		assert_true(ew_dfree_pop(&df, 100, &d, &p));
		assert_int_equal(p, 100 + i);
	}
	assert_false(ew_dfree_pop(&df, 100, &d, &p));
	ew_dfree_destroy(&df);
}

/*
 * Random writes, delayed copies (some stale) and discards on a small map,
 * with a per-disk "in use" shadow: a physical block is never in use twice,
 * every freed block was in use, and every current replica's block is in
 * use.  Replica r lives on disk r; no homes.
 */
#define RB 16
#define RM 3
#define RP 256
static void test_random_model(void **state)
{
	static u8 used[RM][RP];
	struct ew_map m;
	u32 home[RM] = { N, N, N }, newp[RM], freed[RM];
	u32 pend_gen[64], pend_l[64], pend_r[64], pend_p[64];
	unsigned int npend = 0, seed = 12345, step;
	u32 r, p, f;
	u64 l;

	(void)state;
	memset(used, 0, sizeof(used));
	assert_int_equal(ew_map_init(&m, RB, RM), 0);
	for (step = 0; step < 20000; step++) {
		unsigned int op;

		seed = seed * 1103515245 + 12345;
		op = (seed >> 16) % 10;
		l = (seed >> 8) % RB;
		if (op < 5) {
			u32 g = ew_map_begin_write(&m, l);
			u8 mask = 1U << ((seed >> 4) % RM);

			for (r = 0; r < RM; r++) {
				if (!(mask & (1U << r)))
					continue;
				for (p = 0; used[r][p]; p++)
					;
				used[r][p] = 1;
				newp[r] = p;
			}
			assert_true(ew_map_commit_write(&m, l, g, mask, newp,
							home, freed) >= 0);
			for (r = 0; r < RM; r++) {
				if (freed[r] == N)
					continue;
				assert_int_equal(used[r][freed[r]], 1);
				used[r][freed[r]] = 0;
			}
			for (r = 0; r < RM && npend < 64; r++) {
				if (mask & (1U << r))
					continue;
				pend_gen[npend] = g;
				pend_l[npend] = l;
				pend_r[npend] = r;
				for (p = 0; used[r][p]; p++)
					;
				used[r][p] = 1;	/* the copy's destination */
				pend_p[npend++] = p;
			}
		} else if (op < 9 && npend) {
			unsigned int i = (seed >> 3) % npend;

			r = pend_r[i];
			ew_map_commit_copy(&m, pend_l[i], pend_gen[i], r,
					   pend_p[i], N, &f);
			if (f != N) {
				assert_int_equal(used[r][f], 1);
				used[r][f] = 0;
			}
			npend--;
			pend_gen[i] = pend_gen[npend];
			pend_l[i] = pend_l[npend];
			pend_r[i] = pend_r[npend];
			pend_p[i] = pend_p[npend];
		} else {
			ew_map_discard(&m, l, home, freed);
			for (r = 0; r < RM; r++)
				if (freed[r] != N) {
					assert_int_equal(used[r][freed[r]], 1);
					used[r][freed[r]] = 0;
				}
		}
		/* every current replica holds a block in use */
		for (l = 0; l < RB; l++)
			for (r = 0; r < RM; r++)
				if (ew_map_uptodate(&m, l) & (1U << r))
					assert_int_equal(
						used[r][ew_map_pblock(&m, l, r)], 1);
	}
	ew_map_destroy(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_unwritten),
		cmocka_unit_test(test_write_then_remap_frees_old),
		cmocka_unit_test(test_homes_never_freed),
		cmocka_unit_test(test_supersede),
		cmocka_unit_test(test_discard),
		cmocka_unit_test(test_set_stale),
		cmocka_unit_test(test_drop_stale),
		cmocka_unit_test(test_dfree_fifo_and_safe_point),
		cmocka_unit_test(test_random_model),
	};

	return cmocka_run_group_tests_name("map", tests, NULL, NULL);
}
