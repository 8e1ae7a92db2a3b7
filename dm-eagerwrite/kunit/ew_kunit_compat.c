// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_kunit_compat.c - KUnit suite dm_eagerwrite_compat: the helpers of
 * core/ew_compat.h that the rest of the core builds on (the integer
 * square root behind the seek curve), checked in the kernel build.
 */
#include <kunit/test.h>

#include "../core/ew_compat.h"

struct ew_isqrt_case {
	u64 x;
	u64 root;
	const char *name;
};

/* Roots worked out by hand: perfect squares and their neighbours. */
static const struct ew_isqrt_case ew_isqrt_cases[] = {
	{ 0, 0, "0" },
	{ 1, 1, "1" },
	{ 2, 1, "2" },
	{ 3, 1, "3" },
	{ 4, 2, "4" },
	{ 15, 3, "15" },
	{ 16, 4, "16" },
	{ 17, 4, "17" },
	{ 1391, 37, "1391" },		/* 37^2 = 1369, 38^2 = 1444 */
	{ 6961, 83, "6961" },		/* 83^2 = 6889, 84^2 = 7056 */
	{ 999999, 999, "10^6-1" },
	{ 1000000, 1000, "10^6" },
	{ 1ULL << 62, 1ULL << 31, "2^62" },
	{ 18446744065119617025ULL, 4294967295ULL, "(2^32-1)^2" },
	{ 18446744065119617024ULL, 4294967294ULL, "(2^32-1)^2-1" },
	{ ~0ULL, 4294967295ULL, "2^64-1" },
};

static void ew_isqrt_case_desc(const struct ew_isqrt_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_isqrt, ew_isqrt_cases, ew_isqrt_case_desc);

static void ew_isqrt_table(struct kunit *test)
{
	const struct ew_isqrt_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ew_isqrt64(c->x), c->root);
}

/* floor(sqrt(x)): r^2 <= x < (r + 1)^2 over a spread of values. */
static void ew_isqrt_bracket(struct kunit *test)
{
	u64 x = 0, step;

	/* A walk over the whole u64 range: dense at first, then sparse. */
	for (;;) {
		u64 r = ew_isqrt64(x);

		KUNIT_ASSERT_LE_MSG(test, r * r, x, "x=%llu", x);
		if (r < 4294967295ULL)
			KUNIT_ASSERT_GT_MSG(test, (r + 1) * (r + 1), x,
					    "x=%llu", x);
		step = 1 + x / 32;
		if (step > U64_MAX - x)
			break;
		x += step;
	}
}

static struct kunit_case ew_compat_cases[] = {
	KUNIT_CASE_PARAM(ew_isqrt_table, ew_isqrt_gen_params),
	KUNIT_CASE(ew_isqrt_bracket),
	{}
};

static struct kunit_suite ew_compat_suite = {
	.name = "dm_eagerwrite_compat",
	.test_cases = ew_compat_cases,
};

kunit_test_suite(ew_compat_suite);
