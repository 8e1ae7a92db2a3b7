// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_kunit_msg.c - KUnit suite dm_eagerwrite_msg: the message parser of
 * core/ew_msg.c in the kernel build (the userspace twin is
 * tests/unit/test_msg.c; the fuzzer is tests/fuzz/fuzz_msg.c).
 */
#include <kunit/test.h>

#include "../core/ew_msg.h"

/* Parses a message of up to 4 words for an array of 8 members. */
static int ew_kmsg(const char *w0, const char *w1, const char *w2,
		   const char *w3, struct ew_msg *m, const char **why)
{
	char *argv[4] = { (char *)w0, (char *)w1, (char *)w2, (char *)w3 };
	unsigned int argc = 0;

	while (argc < 4 && argv[argc])
		argc++;
	return ew_msg_parse(argc, argv, 8, m, why);
}

static void ew_msg_accepts(struct kunit *test)
{
	const char *why = NULL;
	struct ew_msg m;

	KUNIT_EXPECT_EQ(test, ew_kmsg("reset_counters", NULL, NULL, NULL, &m,
				      &why), 0);
	KUNIT_EXPECT_EQ(test, m.op, EW_MSG_RESET_COUNTERS);
	KUNIT_EXPECT_EQ(test, ew_kmsg("checkpoint", NULL, NULL, NULL, &m,
				      &why), 0);
	KUNIT_EXPECT_EQ(test, m.op, EW_MSG_CHECKPOINT);
	KUNIT_EXPECT_EQ(test, ew_kmsg("disk_param", "3", "phase_ns",
				      "18446744073709551615", &m, &why), 0);
	KUNIT_EXPECT_EQ(test, m.first, 3U);
	KUNIT_EXPECT_EQ(test, m.last, 3U);
	KUNIT_EXPECT_STREQ(test, m.key->name, "phase_ns");
	KUNIT_EXPECT_EQ(test, m.value, U64_MAX);
	KUNIT_EXPECT_EQ(test, ew_kmsg("disk_param", "all", "overhead_ns",
				      "100", &m, &why), 0);
	KUNIT_EXPECT_EQ(test, m.last, 7U);
	KUNIT_EXPECT_EQ(test, ew_kmsg("rebuild_rate", "100000", NULL, NULL,
				      &m, &why), 0);
	KUNIT_EXPECT_EQ(test, m.rate_mib, 100000U);
	KUNIT_EXPECT_EQ(test, ew_kmsg("rebuild", "pause", NULL, NULL, &m,
				      &why), 0);
	KUNIT_EXPECT_EQ(test, m.op, EW_MSG_REBUILD_PAUSE);
}

static void ew_msg_refuses(struct kunit *test)
{
	const char *why = NULL;
	struct ew_msg m;

	KUNIT_EXPECT_EQ(test, ew_kmsg("disk_param", "8", "phase_ns", "1", &m,
				      &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, m.bad_word, "8");
	KUNIT_EXPECT_EQ(test, ew_kmsg("disk_param", "all", "overhead_ns",
				      "4294967296", &m, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, m.bad_word, "4294967296");
	KUNIT_EXPECT_EQ(test, ew_kmsg("rebuild_rate", "100001", NULL, NULL,
				      &m, &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, ew_kmsg("rebuild", NULL, NULL, NULL, &m, &why),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, m.bad_word);
	KUNIT_EXPECT_EQ(test, ew_kmsg("checkpoint", "now", NULL, NULL, &m,
				      &why), -EINVAL);
	KUNIT_EXPECT_NULL(test, m.bad_word);
	KUNIT_EXPECT_EQ(test, ew_kmsg("frobnicate", NULL, NULL, NULL, &m,
				      &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, why);
}

static struct kunit_case ew_msg_cases[] = {
	KUNIT_CASE(ew_msg_accepts),
	KUNIT_CASE(ew_msg_refuses),
	{}
};

static struct kunit_suite ew_msg_suite = {
	.name = "dm_eagerwrite_msg",
	.test_cases = ew_msg_cases,
};

kunit_test_suite(ew_msg_suite);
