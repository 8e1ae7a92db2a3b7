// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_msg.c - the target's messages (core/ew_msg.c): what is accepted,
 * what is refused and with which word, and disk_param's keys landing in
 * the right field.  MSG("...") lines also seed the message fuzzer
 * (tests/fuzz/gen-table-seeds).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ew_msg.h"

#define MSG(s)	(s)
#define NR	8

static char line[512];
static char *words[64];

/* Splits s into words (a copy), as dm_split_args() does. */
static unsigned int split(const char *s)
{
	unsigned int n = 0;
	char *p;

	snprintf(line, sizeof(line), "%s", s);
	for (p = strtok(line, " "); p && n < 64; p = strtok(NULL, " "))
		words[n++] = p;
	return n;
}

static int parse(const char *s, struct ew_msg *m, const char **why)
{
	*why = NULL;
	return ew_msg_parse(split(s), words, NR, m, why);
}

static void test_accepted(void **state)
{
	struct ew_msg m;
	const char *why;

	(void)state;
	assert_int_equal(parse(MSG("reset_counters"), &m, &why), 0);
	assert_int_equal(m.op, EW_MSG_RESET_COUNTERS);
	assert_int_equal(parse(MSG("checkpoint"), &m, &why), 0);
	assert_int_equal(m.op, EW_MSG_CHECKPOINT);

	assert_int_equal(parse(MSG("disk_param all rotation_ns 6000000"), &m,
			       &why), 0);
	assert_int_equal(m.op, EW_MSG_DISK_PARAM);
	assert_int_equal(m.first, 0);
	assert_int_equal(m.last, NR - 1);
	assert_string_equal(m.key->name, "rotation_ns");
	assert_true(m.value == 6000000);

	assert_int_equal(parse(MSG("disk_param 7 overhead_ns 4294967295"), &m,
			       &why), 0);
	assert_int_equal(m.first, 7);
	assert_int_equal(m.last, 7);
	assert_true(m.value == 4294967295ULL);
	/* a wide key takes any u64 */
	assert_int_equal(parse(MSG("disk_param 0 phase_ns 18446744073709551615"),
			       &m, &why), 0);
	assert_true(m.value == ~0ULL);

	assert_int_equal(parse(MSG("rebuild pause"), &m, &why), 0);
	assert_int_equal(m.op, EW_MSG_REBUILD_PAUSE);
	assert_int_equal(parse(MSG("rebuild resume"), &m, &why), 0);
	assert_int_equal(m.op, EW_MSG_REBUILD_RESUME);
	assert_int_equal(parse(MSG("rebuild_rate 0"), &m, &why), 0);
	assert_int_equal(m.op, EW_MSG_REBUILD_RATE);
	assert_int_equal(m.rate_mib, 0);
	assert_int_equal(parse(MSG("rebuild_rate 100000"), &m, &why), 0);
	assert_int_equal(m.rate_mib, 100000);
}

/* Refused, with a reason, and the word refused (NULL: the word count). */
static void refused(const char *s, const char *word)
{
	struct ew_msg m;
	const char *why;

	assert_int_equal(parse(s, &m, &why), -EINVAL);
	assert_non_null(why);
	assert_true(*why);
	if (word) {
		assert_non_null(m.bad_word);
		assert_string_equal(m.bad_word, word);
	} else {
		assert_null(m.bad_word);
	}
}

static void test_refused(void **state)
{
	struct ew_msg m;
	const char *why = NULL;

	(void)state;
	assert_int_equal(ew_msg_parse(0, words, NR, &m, &why), -EINVAL);
	assert_non_null(why);
	refused(MSG("reset_counters now"), NULL);
	refused(MSG("checkpoint now"), NULL);
	refused(MSG("frobnicate 1"), "frobnicate");
	refused(MSG("disk_param all rotation_ns"), NULL);
	refused(MSG("disk_param 8 rotation_ns 1"), "8");
	refused(MSG("disk_param -1 rotation_ns 1"), "-1");
	refused(MSG("disk_param 1x rotation_ns 1"), "1x");
	refused(MSG("disk_param all heads 4"), "heads");
	refused(MSG("disk_param all overhead_ns 4294967296"), "4294967296");
	refused(MSG("disk_param all phase_ns 18446744073709551616"),
		"18446744073709551616");
	refused(MSG("disk_param all seek_a_ns -5"), "-5");
	refused(MSG("disk_param all seek_a_ns 1 2"), NULL);
	refused(MSG("rebuild"), NULL);
	refused(MSG("rebuild stop"), "stop");
	refused(MSG("rebuild pause now"), NULL);
	refused(MSG("rebuild_rate"), NULL);
	refused(MSG("rebuild_rate 100001"), "100001");
	refused(MSG("rebuild_rate fast"), "fast");
	/* no member to name */
	split("disk_param all overhead_ns 1");
	assert_int_equal(ew_msg_parse(4, words, 0, &m, &why), -EINVAL);
}

static void test_param_set(void **state)
{
	struct ew_disk_params p, q;
	unsigned int i;

	(void)state;
	for (i = 0; i < ew_nr_param_keys; i++) {
		const struct ew_param_key *k = &ew_param_keys[i];

		ew_disk_params_default(&p);
		q = p;
		ew_param_set(&p, k, 0x123456789ULL);
		/* only the key's field changed, to the value (u32: cut) */
		if (k->wide) {
			assert_true(*(u64 *)((u8 *)&p + k->off) == 0x123456789ULL);
			memcpy((u8 *)&p + k->off, (u8 *)&q + k->off, 8);
		} else {
			assert_true(*(u32 *)((u8 *)&p + k->off) == 0x23456789U);
			memcpy((u8 *)&p + k->off, (u8 *)&q + k->off, 4);
		}
		assert_memory_equal(&p, &q, sizeof(p));
	}
	assert_int_equal(ew_nr_param_keys, 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_param_set),
	};

	return cmocka_run_group_tests_name("msg", tests, NULL, NULL);
}
