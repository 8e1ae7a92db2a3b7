/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_test_util.h - helpers shared by the core's cmocka tests: a seeded,
 * deterministic PRNG (splitmix64, so a failure reproduces exactly) and a
 * toy disk small enough to compute access times by hand.
 */
#ifndef EW_TEST_UTIL_H
#define EW_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ew_disk.h"

static inline u64 ew_test_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (the modulo bias is negligible for tests). */
static inline u64 ew_test_below(u64 *state, u64 n)
{
	return ew_test_rand(state) % n;
}

/*
 * The toy disk: 1.2 ms per revolution, 2 surfaces, zone 0 of 4 cylinders
 * with 12 sectors per track (100 us per sector, skews 2 and 3), zone 1 of
 * 4 cylinders with 8 (150 us per sector, skews 1 and 2).  Seek 100 us for
 * one cylinder, 200 + 50 * sqrt(d) us below 5 cylinders, 300 + 20 * d us
 * from 5; head switch 50 us, write settle 10 us, overhead 5 us.
 */
static inline void ew_test_toy_params(struct ew_disk_params *p)
{
	memset(p, 0, sizeof(*p));
	p->rotation_ns = 1200000;
	p->heads = 2;
	p->nr_zones = 2;
	p->zones[0] = (struct ew_zone){ 4, 12, 2, 3 };
	p->zones[1] = (struct ew_zone){ 4, 8, 1, 2 };
	p->single_cyl_ns = 100000;
	p->seek_a_ns = 200000;
	p->seek_b_ns = 50000;
	p->seek_boundary = 5;
	p->seek_c_ns = 300000;
	p->seek_e_ns = 20000;
	p->head_switch_ns = 50000;
	p->write_settle_ns = 10000;
	p->overhead_ns = 5000;
}

/* Sectors of the toy disk: 4 * 2 * 12 + 4 * 2 * 8. */
#define EW_TOY_SECTORS	160

#endif /* EW_TEST_UTIL_H */
