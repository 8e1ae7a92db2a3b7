// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_table.c - unit tests of ew_table.c: a table of good and bad lines
 * with the exact expected error string, the allow-masks, the strict
 * number parser, printing back (format -> parse -> format is the
 * identity) and the geometry of a parsed table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

#include "ew_table.h"

#define MAX_WORDS 256

struct words {
	unsigned int argc;
	char *argv[MAX_WORDS];
	char store[8192];
};

/*
 * Splits a line on spaces.  A word "@N" expands to "N /dev/d0 ...
 * /dev/d<N-1>" (a count and N distinct data devices).
 */
static void split(struct words *w, const char *line)
{
	char *p = w->store, *tok, *save = NULL;
	char tmp[2048];

	w->argc = 0;
	assert_true(strlen(line) < sizeof(tmp));
	strcpy(tmp, line);
	for (tok = strtok_r(tmp, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		int n = 1, i;

		if (tok[0] == '@')
			n = atoi(tok + 1);
		for (i = 0; i < n + (tok[0] == '@'); i++) {
			int len;

			if (tok[0] != '@')
				len = sprintf(p, "%s", tok);
			else if (i == 0)
				len = sprintf(p, "%d", n);
			else
				len = sprintf(p, "/dev/d%d", i - 1);
			assert_true(w->argc < MAX_WORDS);
			w->argv[w->argc++] = p;
			p += len + 1;
			assert_true(p < w->store + sizeof(w->store) - 64);
		}
	}
}

struct line_case {
	const char *line;
	const char *error;	/* NULL: accepted */
};

static const struct line_case lines[] = {
	/* accepted */
	{ "ew 0 meta @36", NULL },
	{ "ew 6 mirrors 2 dilution 2 sync 2 meta @36 0", NULL },
	{ "raid10 0 meta @2", NULL },
	{ "raid10 2 mirrors 8 meta @64 0", NULL },
	{ "ddm 2 dilution 1.5 meta @64", NULL },
	{ "ddm 4 mirrors 2 sync 2 meta @2 0", NULL },
	{ "ew 12 delay_queue 10000000 block_size 65536 chunk_sectors 128 sync 1 dilution 100 mirrors 4 meta @8",
	  NULL },
	{ "ew 4 block_size 4096 chunk_sectors 8 meta @4", NULL },
	{ "ew 4 mirrors 3 dilution 1.33 meta @9", NULL },
	{ "raid10 2 delay_queue 1 meta @4", NULL },
	{ "ew 2 chunk_sectors 2097152 meta @4", NULL },
	{ "ew 2 mirrors 002 meta @4", NULL },
	{ "ew 4 sync 1 journal_copy 1 meta @4", NULL },
	{ "raid10 4 journal_copy 1048576 sync 1 meta @4", NULL },
	{ "ddm 4 sync 1 journal_copy 64 meta @2", NULL },
	/* layout and layout arguments */
	{ "", "Missing layout" },
	{ "raid5 0 meta @4", "Unknown layout" },
	{ "EW 0 meta @4", "Unknown layout" },
	{ "ew", "Missing number of layout arguments" },
	{ "ew x meta @4", "Invalid number of layout arguments" },
	{ "ew -2 mirrors 2 meta @4", "Invalid number of layout arguments" },
	{ "ew 3 mirrors 2 sync meta @4", "Odd number of layout arguments" },
	{ "ew 1 mirrors", "Odd number of layout arguments" },
	{ "ew 4 mirrors 2", "Not enough layout arguments" },
	{ "ew 99999999999 mirrors 2", "Not enough layout arguments" },
	{ "ew 2 stripes 2 meta @4", "Unknown key" },
	{ "ew 2 Mirrors 2 meta @4", "Unknown key" },
	{ "raid10 2 dilution 2 meta @4",
	  "Key dilution not allowed for layout raid10" },
	{ "ew 4 mirrors 2 mirrors 2 meta @4", "Duplicate key mirrors" },
	{ "ew 4 dilution 2 dilution 3 meta @4", "Duplicate key dilution" },
	{ "ew 4 sync 1 sync 2 meta @4", "Duplicate key sync" },
	{ "ew 4 chunk_sectors 8 chunk_sectors 8 meta @4",
	  "Duplicate key chunk_sectors" },
	{ "ew 4 block_size 4096 block_size 8192 meta @4",
	  "Duplicate key block_size" },
	{ "ew 4 delay_queue 5 delay_queue 5 meta @4",
	  "Duplicate key delay_queue" },
	{ "ew 6 sync 1 journal_copy 5 journal_copy 5 meta @4",
	  "Duplicate key journal_copy" },
	/* values */
	{ "ew 2 mirrors two meta @4", "Invalid mirrors value" },
	{ "ew 2 mirrors +2 meta @4", "Invalid mirrors value" },
	{ "ew 2 mirrors 2x meta @4", "Invalid mirrors value" },
	{ "ew 2 mirrors 1 meta @4", "mirrors out of range (2 to 8)" },
	{ "ew 2 mirrors 9 meta @18", "mirrors out of range (2 to 8)" },
	{ "raid10 2 mirrors 4294967296 meta @4",
	  "mirrors out of range (2 to 8)" },
	{ "ddm 2 mirrors 3 meta @6", "mirrors must be 2 for layout ddm" },
	{ "ddm 2 mirrors 99999999999 meta @6",
	  "mirrors must be 2 for layout ddm" },
	{ "ew 2 dilution 1.333 meta @4", "Invalid dilution value" },
	{ "ew 2 dilution 2. meta @4", "Invalid dilution value" },
	{ "ew 2 dilution .5 meta @4", "Invalid dilution value" },
	{ "ew 2 dilution -1 meta @4", "Invalid dilution value" },
	{ "ew 2 dilution 1e3 meta @4", "Invalid dilution value" },
	{ "ew 2 dilution abc meta @4", "Invalid dilution value" },
	/* journal_copy: a count of slots, and only with sync 1 */
	{ "ew 4 sync 1 journal_copy many meta @4",
	  "Invalid journal_copy value" },
	{ "ew 4 sync 1 journal_copy -1 meta @4",
	  "Invalid journal_copy value" },
	{ "ew 4 sync 1 journal_copy 0 meta @4",
	  "journal_copy out of range (1 to 1048576)" },
	{ "ew 4 sync 1 journal_copy 1048577 meta @4",
	  "journal_copy out of range (1 to 1048576)" },
	{ "ew 4 sync 1 journal_copy 99999999999 meta @4",
	  "journal_copy out of range (1 to 1048576)" },
	{ "ew 2 journal_copy 64 meta @4", "journal_copy needs sync 1" },
	{ "ew 4 journal_copy 64 sync 2 meta @4", "journal_copy needs sync 1" },
	{ "raid10 4 sync 2 journal_copy 64 meta @4",
	  "journal_copy needs sync 1" },
	{ "ew 2 dilution 0.9 meta @4", "dilution out of range (1 to 100)" },
	{ "ew 2 dilution 1 meta @4",
	  "dilution must be above 1 for ddm and ew" },
	{ "ddm 2 dilution 1.00 meta @4",
	  "dilution must be above 1 for ddm and ew" },
	{ "ew 2 dilution 1.01 meta @4", NULL },
	{ "ddm 2 dilution 100.01 meta @4", "dilution out of range (1 to 100)" },
	{ "ew 2 dilution 99999999999999999999 meta @4",
	  "dilution out of range (1 to 100)" },
	{ "ew 2 sync 0 meta @4", "Invalid sync value (1 or 2)" },
	{ "ew 2 sync 3 meta @4", "Invalid sync value (1 or 2)" },
	{ "ew 2 sync one meta @4", "Invalid sync value (1 or 2)" },
	{ "ew 2 chunk_sectors 0x80 meta @4", "Invalid chunk_sectors value" },
	{ "ew 2 chunk_sectors 96 meta @4",
	  "chunk_sectors must be a power of two" },
	{ "ew 2 chunk_sectors 0 meta @4",
	  "chunk_sectors must be a power of two" },
	{ "ew 2 chunk_sectors 4 meta @4", "chunk_sectors smaller than a block" },
	{ "ew 4 chunk_sectors 8 block_size 8192 meta @4",
	  "chunk_sectors smaller than a block" },
	{ "ew 2 chunk_sectors 4194304 meta @4",
	  "chunk_sectors too large (at most 2097152)" },
	{ "ew 2 chunk_sectors 4294967296 meta @4",
	  "chunk_sectors too large (at most 2097152)" },
	{ "ew 2 block_size 4k meta @4", "Invalid block_size value" },
	{ "ew 2 block_size 2048 meta @4",
	  "block_size must be a power of two from 4096 to 65536" },
	{ "ew 2 block_size 131072 meta @4",
	  "block_size must be a power of two from 4096 to 65536" },
	{ "ew 2 block_size 6144 meta @4",
	  "block_size must be a power of two from 4096 to 65536" },
	{ "ew 2 delay_queue 1.5 meta @4", "Invalid delay_queue value" },
	{ "ew 2 delay_queue 0 meta @4",
	  "delay_queue out of range (1 to 10000000)" },
	{ "ew 2 delay_queue 10000001 meta @4",
	  "delay_queue out of range (1 to 10000000)" },
	/* devices */
	{ "ew 0", "Missing metadata device" },
	{ "ew 2 mirrors 2", "Missing metadata device" },
	{ "ew 0 meta", "Missing number of data devices" },
	{ "ew 0 meta four /dev/a /dev/b", "Invalid number of data devices" },
	{ "ew 0 meta 1 /dev/a", "Wrong number of data devices (2 to 64)" },
	{ "ew 0 meta 0", "Wrong number of data devices (2 to 64)" },
	{ "ew 0 meta @66", "Wrong number of data devices (2 to 64)" },
	{ "ew 0 meta 4 /dev/a /dev/b /dev/c", "Not enough data devices" },
	{ "ew 0 meta @9", "Number of data devices not divisible by mirrors" },
	{ "raid10 2 mirrors 4 meta @6",
	  "Number of data devices not divisible by mirrors" },
	{ "ddm 0 meta @5", "Odd number of data devices for layout ddm" },
	{ "ew 0 meta 4 /dev/a /dev/b /dev/c /dev/a", "Duplicate data device" },
	{ "ew 0 /dev/d2 @4", "Metadata device is also a data device" },
	/* "-" members: both replicas of column 0 missing */
	{ "ew 0 meta 4 - /dev/b - /dev/d",
	  "Every replica of some blocks is on a missing data device" },
	{ "raid10 2 mirrors 3 meta 3 - - -",
	  "Every replica of some blocks is on a missing data device" },
	{ "ddm 0 meta 4 /dev/a /dev/b - -",
	  "Every replica of some blocks is on a missing data device" },
	/* features */
	{ "ew 0 meta @4 x", "Invalid number of feature arguments" },
	{ "ew 0 meta @4 1", "Not enough feature arguments" },
	{ "ew 0 meta @4 1 nosync", "Unknown feature" },
	{ "ew 0 meta @4 0 extra", "Too many arguments" },
	{ "ew 0 meta @4 1 nosync extra", "Unknown feature" },
	/* metadata_mirror <dev> */
	{ "ew 0 meta @4 2 metadata_mirror m2", NULL },
	{ "ew 0 meta @4 1 metadata_mirror", "Feature metadata_mirror needs a device" },
	{ "ew 0 meta @4 1 metadata_mirror m2", "Feature metadata_mirror needs a device" },
	{ "ew 0 meta @4 4 metadata_mirror m2 metadata_mirror m3",
	  "Duplicate feature metadata_mirror" },
	{ "ew 0 meta @4 2 metadata_mirror meta",
	  "Metadata mirror is the metadata device" },
	{ "ew 0 meta @4 2 metadata_mirror /dev/d3",
	  "Metadata mirror is also a data device" },
	{ "ew 0 meta @4 2 metadata_mirror m2 x", "Too many arguments" },
	{ "ew 0 meta @4 3 metadata_mirror m2 x", "Unknown feature" },
	/* "-": the metadata on the members; no mirror device then */
	{ "ew 0 - @4 0", NULL },
	{ "ew 0 - @4 2 metadata_mirror m2",
	  "Feature metadata_mirror needs a metadata device, not \"-\"" },
};

static void test_lines(void **state)
{
	struct words w;
	struct ew_table_args t;
	unsigned int i, bad = 0;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		const char *err = NULL;
		int ret;

		split(&w, lines[i].line);
		ret = ew_table_parse(w.argc, w.argv, &t, &err);
		if (!lines[i].error) {
			if (ret) {
				print_error("\"%s\": rejected: %s\n",
					    lines[i].line, err);
				bad++;
			}
		} else if (!ret || !err || strcmp(err, lines[i].error)) {
			print_error("\"%s\": got \"%s\", want \"%s\"\n",
				    lines[i].line, ret ? err : "(accepted)",
				    lines[i].error);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* Every message the table lists is reached by some line above. */
static void test_every_message_tested(void **state)
{
	unsigned int i, j;

	(void)state;
	for (i = 0; ew_table_error(i); i++) {
		const char *m = ew_table_error(i);
		bool found = false;

		assert_true(strlen(m) > 0);
		for (j = 0; j < i; j++)
			assert_string_not_equal(m, ew_table_error(j));
		for (j = 0; j < ARRAY_SIZE(lines); j++)
			if (lines[j].error && !strcmp(lines[j].error, m))
				found = true;
		/* unreachable while sync <= 2 <= mirrors: kept as a guard */
		if (!strcmp(m, "sync exceeds mirrors"))
			found = true;
		if (!found)
			fail_msg("message \"%s\" not tested", m);
	}
	assert_true(i >= 40);
}

static void test_defaults(void **state)
{
	struct words w;
	struct ew_table_args t;
	const char *err;

	(void)state;
	split(&w, "ew 0 meta @36");
	assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
	assert_int_equal(t.layout, EW_LAYOUT_EW);
	assert_int_equal(t.mirrors, EW_DEFAULT_MIRRORS);
	assert_int_equal(t.dilution_x100, EW_DEFAULT_DILUTION_X100);
	assert_int_equal(t.sync, EW_DEFAULT_SYNC);
	/* safe by default: two durable copies of every acknowledged write */
	assert_int_equal(t.sync, 2);
	assert_null(ew_table_risk(&t));
	assert_int_equal(t.chunk_sectors, EW_DEFAULT_CHUNK_SECTORS);
	assert_int_equal(t.block_size, EW_DEFAULT_BLOCK_SIZE);
	assert_int_equal(t.delay_queue, EW_DEFAULT_DELAY_QUEUE);
	assert_int_equal(t.journal_copy, 0);
	assert_int_equal(t.given, 0);
	assert_int_equal(t.nr_disks, 36);
	assert_int_equal(t.nr_features, 0);
	assert_string_equal(t.metadata_dev, "meta");
	assert_string_equal(t.data_devs[0], "/dev/d0");
	assert_string_equal(t.data_devs[35], "/dev/d35");

	split(&w, "raid10 4 sync 2 mirrors 3 m @6");
	assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
	assert_int_equal(t.layout, EW_LAYOUT_RAID10);
	assert_int_equal(t.mirrors, 3);
	assert_int_equal(t.sync, 2);
	assert_int_equal(t.dilution_x100, 100);
	assert_int_equal(t.given, (1U << EW_KEY_MIRRORS) | (1U << EW_KEY_SYNC));
}

/* sync 1 is an explicit choice, and what it risks is said. */
static void test_sync1_risk(void **state)
{
	static const char *const safe[] = {
		"ew 0 meta @4", "ew 2 sync 2 meta @4", "ddm 0 meta @2",
		"raid10 2 mirrors 3 meta @6", "raid10 4 mirrors 3 sync 2 meta @6",
		/* the copy slot is the second durable copy */
		"ew 4 sync 1 journal_copy 64 meta @4",
		"ddm 4 journal_copy 1 sync 1 meta @2",
	};
	static const char *const risky[] = {
		"ew 2 sync 1 meta @4", "ddm 2 sync 1 meta @2",
		"raid10 4 mirrors 3 sync 1 meta @6",
	};
	struct words w;
	struct ew_table_args t;
	const char *err, *r;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(safe); i++) {
		split(&w, safe[i]);
		assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
		assert_null(ew_table_risk(&t));
	}
	for (i = 0; i < ARRAY_SIZE(risky); i++) {
		split(&w, risky[i]);
		assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
		r = ew_table_risk(&t);
		assert_non_null(r);
		assert_non_null(strstr(r, "one durable copy"));
	}
}

static void test_allow_masks(void **state)
{
	unsigned int k, l;
	char line[256];
	struct words w;
	struct ew_table_args t;

	(void)state;
	for (l = 0; l < EW_LAYOUT_NR; l++)
		assert_true(ew_key_allowed(EW_KEY_MIRRORS, l));
	assert_false(ew_key_allowed(EW_KEY_DILUTION, EW_LAYOUT_RAID10));
	assert_true(ew_key_allowed(EW_KEY_DILUTION, EW_LAYOUT_DDM));
	assert_true(ew_key_allowed(EW_KEY_DILUTION, EW_LAYOUT_EW));
	assert_false(ew_key_allowed(EW_KEY_NR, EW_LAYOUT_EW));
	/* every key on every layout: allowed <=> accepted, else "Key ..." */
	for (k = 0; k < EW_KEY_NR; k++) {
		static const char *const val[EW_KEY_NR] = {
			"2", "2", "1", "128", "4096", "10", "8",
		};
		/* journal_copy needs sync 1: given with it */
		const bool jc = k == EW_KEY_JOURNAL_COPY;

		for (l = 0; l < EW_LAYOUT_NR; l++) {
			const char *err = NULL;
			int ret;

			snprintf(line, sizeof(line), "%s %d %s%s %s meta @4",
				 ew_layout_name(l), jc ? 4 : 2,
				 jc ? "sync 1 " : "", ew_key_name(k), val[k]);
			split(&w, line);
			ret = ew_table_parse(w.argc, w.argv, &t, &err);
			if (ew_key_allowed(k, l)) {
				assert_int_equal(ret, 0);
				assert_int_equal(t.given, (1U << k) |
						 (jc ? 1U << EW_KEY_SYNC : 0));
			} else {
				char want[128];

				assert_int_equal(ret, -EINVAL);
				snprintf(want, sizeof(want),
					 "Key %s not allowed for layout %s",
					 ew_key_name(k), ew_layout_name(l));
				assert_string_equal(err, want);
			}
		}
	}
	assert_string_equal(ew_key_name(EW_KEY_CHUNK_SECTORS), "chunk_sectors");
	assert_string_equal(ew_key_name(EW_KEY_DELAY_QUEUE), "delay_queue");
	assert_string_equal(ew_key_name(EW_KEY_JOURNAL_COPY), "journal_copy");
}

static void test_parse_numbers(void **state)
{
	u32 v;
	u64 w;

	(void)state;
	assert_int_equal(ew_parse_u32("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(ew_parse_u32("4294967295", &v), 0);
	assert_int_equal(v, 4294967295U);
	assert_int_equal(ew_parse_u32("4294967296", &v), -ERANGE);
	assert_int_equal(ew_parse_u32("", &v), -EINVAL);
	assert_int_equal(ew_parse_u32("-1", &v), -EINVAL);
	assert_int_equal(ew_parse_u32("+1", &v), -EINVAL);
	assert_int_equal(ew_parse_u32(" 1", &v), -EINVAL);
	assert_int_equal(ew_parse_u32("1 ", &v), -EINVAL);
	assert_int_equal(ew_parse_u32("0x10", &v), -EINVAL);
	assert_int_equal(ew_parse_u32("12a", &v), -EINVAL);
	assert_int_equal(ew_parse_u32("010", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(ew_parse_u64("18446744073709551615", &w), 0);
	assert_true(w == ~0ULL);
	assert_int_equal(ew_parse_u64("18446744073709551616", &w), -ERANGE);
	assert_int_equal(ew_parse_u64("99999999999999999999999", &w),
			 -ERANGE);
	assert_int_equal(ew_parse_u64("123456789012", &w), 0);
	assert_true(w == 123456789012ULL);
}

/* format(parse(line)) reloads to the same arguments and the same text. */
static void test_round_trip(void **state)
{
	static const struct { const char *in, *layout; } cases[] = {
		/* sync is printed even when not given (the default, 2) */
		{ "ew 0 meta @4", "ew 2 sync 2" },
		{ "ew 6 sync 2 dilution 2.00 mirrors 2 meta @36 0",
		  "ew 6 mirrors 2 dilution 2 sync 2" },
		{ "ddm 2 dilution 1.50 meta @2", "ddm 4 dilution 1.5 sync 2" },
		{ "ew 12 delay_queue 7 block_size 8192 chunk_sectors 16 sync 1 dilution 1.33 mirrors 4 meta @8",
		  "ew 12 mirrors 4 dilution 1.33 sync 1 chunk_sectors 16 block_size 8192 delay_queue 7" },
		{ "raid10 2 mirrors 08 meta @16", "raid10 4 mirrors 8 sync 2" },
		{ "raid10 2 sync 1 meta @16", "raid10 2 sync 1" },
		/* journal_copy is printed last, after delay_queue */
		{ "ew 6 journal_copy 256 delay_queue 9 sync 1 meta @4",
		  "ew 6 sync 1 delay_queue 9 journal_copy 256" },
		{ "ddm 4 journal_copy 1 sync 1 meta @2",
		  "ddm 4 sync 1 journal_copy 1" },
		/* missing members reload as "-" */
		{ "ew 0 meta 4 - /dev/b /dev/c -", "ew 2 sync 2" },
		{ "ddm 0 meta 4 - /dev/b /dev/c -", "ddm 2 sync 2" },
		{ "raid10 2 mirrors 3 meta 6 - - /dev/c /dev/d /dev/e /dev/f",
		  "raid10 4 mirrors 3 sync 2" },
		/* the metadata mirror reloads as the feature */
		{ "ew 0 meta @4 2 metadata_mirror m2", "ew 2 sync 2" },
		{ "raid10 0 meta @4 2 metadata_mirror 8:16", "raid10 2 sync 2" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct words w, w2;
		struct ew_table_args t, t2;
		char buf[4096], buf2[4096];
		const char *err;
		int n;

		split(&w, cases[i].in);
		assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
		n = ew_table_format_layout(&t, buf, sizeof(buf));
		assert_int_equal(n, strlen(buf));
		assert_string_equal(buf, cases[i].layout);
		/* the whole line */
		n = ew_table_format(&t, buf, sizeof(buf));
		assert_int_equal(n, strlen(buf));
		split(&w2, buf);
		assert_int_equal(ew_table_parse(w2.argc, w2.argv, &t2, &err),
				 0);
		ew_table_format(&t2, buf2, sizeof(buf2));
		assert_string_equal(buf, buf2);
		if (t.metadata_mirror)
			assert_string_equal(t.metadata_mirror,
					    t2.metadata_mirror);
		else
			assert_null(t2.metadata_mirror);
		assert_int_equal(t.layout, t2.layout);
		assert_int_equal(t.mirrors, t2.mirrors);
		assert_int_equal(t.dilution_x100, t2.dilution_x100);
		assert_int_equal(t.sync, t2.sync);
		assert_int_equal(t.chunk_sectors, t2.chunk_sectors);
		assert_int_equal(t.block_size, t2.block_size);
		assert_int_equal(t.delay_queue, t2.delay_queue);
		assert_int_equal(t.journal_copy, t2.journal_copy);
		/* the reloaded line names sync */
		assert_int_equal(t.given | (1U << EW_KEY_SYNC), t2.given);
		assert_int_equal(t.nr_disks, t2.nr_disks);
	}
}

/* "-" is a missing member: any number of them, never a duplicate. */
static void test_missing_members(void **state)
{
	struct words w;
	struct ew_table_args t;
	const char *err;
	char buf[256];

	(void)state;
	split(&w, "raid10 0 meta 6 /dev/a - - - /dev/e /dev/f");
	assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
	assert_int_equal(t.nr_disks, 6);
	assert_false(ew_table_dev_missing(&t, 0));
	assert_true(ew_table_dev_missing(&t, 1));
	assert_true(ew_table_dev_missing(&t, 2));
	assert_true(ew_table_dev_missing(&t, 3));
	assert_false(ew_table_dev_missing(&t, 4));
	assert_false(ew_table_dev_missing(&t, 6));	/* past the end */
	assert_true(ew_table_missing_ok(&t));
	ew_table_format(&t, buf, sizeof(buf));
	assert_string_equal(buf,
			    "raid10 2 sync 2 meta 6 /dev/a - - - /dev/e /dev/f 0");
	/* ddm: one of each pair may be missing */
	split(&w, "ddm 0 meta 4 - /dev/b /dev/c -");
	assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
	assert_true(ew_table_missing_ok(&t));
	assert_false(ew_table_meta_on_members(&t));
	/* a metadata device of "-": the metadata on the members */
	split(&w, "ew 0 - 2 /dev/a /dev/b");
	assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
	assert_true(ew_table_meta_on_members(&t));
	ew_table_format(&t, buf, sizeof(buf));
	assert_string_equal(buf, "ew 2 sync 2 - 2 /dev/a /dev/b 0");
	/* ... with missing members too */
	split(&w, "raid10 0 - 4 - /dev/b /dev/c /dev/d");
	assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
	assert_true(ew_table_meta_on_members(&t));
	assert_true(ew_table_dev_missing(&t, 0));
}

/* Every dilution prints back to itself through a whole table line. */
static void test_round_trip_dilutions(void **state)
{
	u32 x;

	(void)state;
	for (x = 101; x <= EW_MAX_DILUTION_X100; x += 7) {
		char dil[16], line[128], buf[512];
		struct words w;
		struct ew_table_args t;
		const char *err;

		ew_format_dilution(dil, sizeof(dil), x);
		snprintf(line, sizeof(line), "ddm 2 dilution %s meta @2", dil);
		split(&w, line);
		assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
		assert_int_equal(t.dilution_x100, x);
		ew_table_format_layout(&t, buf, sizeof(buf));
		snprintf(line, sizeof(line), "ddm 4 dilution %s sync 2", dil);
		assert_string_equal(buf, line);
	}
}

static void test_format_truncates(void **state)
{
	struct words w;
	struct ew_table_args t;
	char buf[8];
	const char *err;
	int n;

	(void)state;
	split(&w, "ew 4 mirrors 2 sync 2 meta @4");
	assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
	n = ew_table_format_layout(&t, buf, sizeof(buf));
	assert_int_equal(n, strlen("ew 4 mirrors 2 sync 2"));
	assert_string_equal(buf, "ew 4 mi");
	n = ew_table_format_layout(&t, NULL, 0);
	assert_int_equal(n, strlen("ew 4 mirrors 2 sync 2"));
	n = ew_table_format(&t, buf, 1);
	assert_string_equal(buf, "");
	assert_true(n > 30);
}

static void test_table_geom(void **state)
{
	struct words w;
	struct ew_table_args t;
	struct ew_geom g;
	const char *err;
	u64 disk = 2097152;	/* 1 GiB members */

	(void)state;
	split(&w, "ew 6 mirrors 2 dilution 2 sync 2 meta @36 0");
	assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
	assert_int_equal(ew_table_geom(&t, disk, 2097152, &g, &err), 0);
	assert_int_equal(g.region_blocks, 29152);
	assert_int_equal(g.capacity_blocks, 2359296);
	assert_int_equal(ew_table_geom(&t, disk, 2359296ULL * 8, &g, &err), 0);
	assert_int_equal(ew_table_geom(&t, disk, 2359296ULL * 8 + 8, &g, &err),
			 -EINVAL);
	assert_string_equal(err, "Length exceeds the array's capacity");
	assert_int_equal(ew_table_geom(&t, disk, 4, &g, &err), -EINVAL);
	assert_string_equal(err, "Length not a multiple of block_size");
	assert_int_equal(ew_table_geom(&t, 100, 8, &g, &err), -EINVAL);
	assert_string_equal(err, "Data devices too small for the layout");

	split(&w, "raid10 4 mirrors 4 block_size 65536 meta @8");
	assert_int_equal(ew_table_parse(w.argc, w.argv, &t, &err), 0);
	assert_int_equal(ew_table_geom(&t, disk, 128, &g, &err), 0);
	assert_int_equal(g.p.block_sectors, 128);
	assert_int_equal(g.p.chunk_sectors, 128);
	assert_int_equal(g.width, 2);
	assert_int_equal(g.capacity_blocks, 2 * 16384);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_every_message_tested),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_allow_masks),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_sync1_risk),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_dilutions),
		cmocka_unit_test(test_missing_members),
		cmocka_unit_test(test_format_truncates),
		cmocka_unit_test(test_table_geom),
	};

	return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
