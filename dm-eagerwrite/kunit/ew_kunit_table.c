// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_kunit_table.c - KUnit suite dm_eagerwrite_table: the table line of
 * core/ew_table.h, the words the target's constructor receives after
 * "eagerwrite".
 *
 * Good lines are checked field by field (defaults where a key is not
 * given) and printed back with ew_table_format_layout() and
 * ew_table_format(), which must give the canonical words and parse back
 * to the same arguments.  Bad lines must fail with -EINVAL and the
 * message that names what is wrong with that line (ti->error).
 */
#include <kunit/test.h>

#include "../core/ew_table.h"

#define EW_TEST_MAX_WORDS	(EW_MAX_DISKS + 40)

/* Splits a copy of line at spaces into argv; returns argc. */
static unsigned int ew_split(struct kunit *test, const char *line,
			     char **argv)
{
	char *copy = kunit_kzalloc(test, strlen(line) + 1, GFP_KERNEL);
	unsigned int argc = 0;
	char *w;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, copy);
	strcpy(copy, line);
	while ((w = strsep(&copy, " ")) != NULL) {
		if (!*w)
			continue;
		KUNIT_ASSERT_LT(test, argc, (unsigned int)EW_TEST_MAX_WORDS);
		argv[argc++] = w;
	}
	return argc;
}

/* " d0 d1 ... d<n-1>" */
static const char *ew_devs(struct kunit *test, unsigned int n)
{
	char *s = kunit_kzalloc(test, 8 * n + 1, GFP_KERNEL);
	size_t at = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	for (i = 0; i < n; i++)
		at += scnprintf(s + at, 8 * n + 1 - at, " d%u", i);
	return s;
}

static const char *ew_cat(struct kunit *test, const char *a, const char *b,
			  const char *c)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
	char *s = kunit_kzalloc(test, n, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	scnprintf(s, n, "%s%s%s", a, b, c);
	return s;
}

struct ew_good_line {
	const char *name;
	const char *layout_words;	/* also what format must print */
	const char *printed;		/* NULL: the same as layout_words */
	unsigned int ndevs;
	const char *tail;		/* after the devices */
	enum ew_layout layout;
	u32 mirrors, dilution_x100, sync, chunk_sectors, block_size;
	u32 delay_queue, given;
	u32 journal_copy;		/* 0: not given */
};

#define B(k)	(1U << EW_KEY_##k)

/* Defaults: mirrors 2, dilution 2, sync 2 (every acknowledged write has
 * two durable copies), chunk 128, block 4096, delay_queue 10000.  TABLE
 * prints sync even when it was not given.
 */
static const struct ew_good_line ew_good_lines[] = {
	{ "raid10 defaults", "raid10 0", "raid10 2 sync 2", 2, "",
	  EW_LAYOUT_RAID10, 2, 200, 2, 128, 4096, 10000, 0 },
	{ "raid10 defaults, no features", "raid10 0", "raid10 2 sync 2", 2,
	  " 0", EW_LAYOUT_RAID10, 2, 200, 2, 128, 4096, 10000, 0 },
	{ "paper 2x9x2 Sync", "ew 6 mirrors 2 dilution 2 sync 2", NULL, 36,
	  " 0", EW_LAYOUT_EW, 2, 200, 2, 128, 4096, 10000,
	  B(MIRRORS) | B(DILUTION) | B(SYNC) },
	{ "paper 2x9x2 Delay", "ew 6 mirrors 2 dilution 2 sync 1", NULL, 36,
	  " 0", EW_LAYOUT_EW, 2, 200, 1, 128, 4096, 10000,
	  B(MIRRORS) | B(DILUTION) | B(SYNC) },
	{ "ddm dilution 1.5", "ddm 2 dilution 1.5", "ddm 4 dilution 1.5 sync 2",
	  4, "", EW_LAYOUT_DDM, 2, 150, 2, 128, 4096, 10000, B(DILUTION) },
	{ "ddm mirrors 2", "ddm 2 mirrors 2", "ddm 4 mirrors 2 sync 2", 2, "",
	  EW_LAYOUT_DDM, 2, 200, 2, 128, 4096, 10000, B(MIRRORS) },
	{ "ew 3 mirrors 1.33", "ew 6 mirrors 3 dilution 1.33 sync 2", NULL, 6,
	  "", EW_LAYOUT_EW, 3, 133, 2, 128, 4096, 10000,
	  B(MIRRORS) | B(DILUTION) | B(SYNC) },
	{ "raid10 every key it takes",
	  "raid10 10 mirrors 4 sync 2 chunk_sectors 256 block_size 8192 delay_queue 100000",
	  NULL, 8, " 0", EW_LAYOUT_RAID10, 4, 200, 2, 256, 8192, 100000,
	  B(MIRRORS) | B(SYNC) | B(CHUNK_SECTORS) | B(BLOCK_SIZE) |
	  B(DELAY_QUEUE) },
	{ "ew 64K blocks", "ew 2 block_size 65536",
	  "ew 4 sync 2 block_size 65536", 2, "",
	  EW_LAYOUT_EW, 2, 200, 2, 128, 65536, 10000, B(BLOCK_SIZE) },
	{ "ew 8 mirrors", "ew 2 mirrors 8", "ew 4 mirrors 8 sync 2", 64, "",
	  EW_LAYOUT_EW, 8, 200, 2, 128, 4096, 10000, B(MIRRORS) },
	{ "raid10 64 devices", "raid10 0", "raid10 2 sync 2", 64, " 0",
	  EW_LAYOUT_RAID10, 2, 200, 2, 128, 4096, 10000, 0 },
	{ "keys out of order", "ew 4 sync 2 mirrors 2", "ew 4 mirrors 2 sync 2",
	  2, "", EW_LAYOUT_EW, 2, 200, 2, 128, 4096, 10000, B(MIRRORS) | B(SYNC) },
	{ "sync 1 with journal copies", "ew 4 journal_copy 256 sync 1",
	  "ew 4 sync 1 journal_copy 256", 4, " 0", EW_LAYOUT_EW, 2, 200, 1,
	  128, 4096, 10000, B(SYNC) | B(JOURNAL_COPY), 256 },
	{ "dilution 1.50 prints 1.5", "ew 2 dilution 1.50",
	  "ew 4 dilution 1.5 sync 2", 2, "", EW_LAYOUT_EW, 2, 150, 2, 128,
	  4096, 10000, B(DILUTION) },
	{ "defaults given explicitly", "ew 4 mirrors 2 sync 2", NULL, 4, "",
	  EW_LAYOUT_EW, 2, 200, 2, 128, 4096, 10000, B(MIRRORS) | B(SYNC) },
	{ "sync 1 given", "ew 4 mirrors 2 sync 1", NULL, 4, "",
	  EW_LAYOUT_EW, 2, 200, 1, 128, 4096, 10000, B(MIRRORS) | B(SYNC) },
	{ "chunk of one block", "ew 4 chunk_sectors 16 block_size 8192",
	  "ew 6 sync 2 chunk_sectors 16 block_size 8192", 2, "", EW_LAYOUT_EW,
	  2, 200, 2, 16, 8192, 10000, B(CHUNK_SECTORS) | B(BLOCK_SIZE) },
};

static void ew_good_line_desc(const struct ew_good_line *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_good_line, ew_good_lines, ew_good_line_desc);

static void ew_expect_same_args(struct kunit *test,
				const struct ew_table_args *a,
				const struct ew_table_args *b)
{
	u32 i;

	KUNIT_EXPECT_EQ(test, a->layout, b->layout);
	KUNIT_EXPECT_EQ(test, a->mirrors, b->mirrors);
	KUNIT_EXPECT_EQ(test, a->dilution_x100, b->dilution_x100);
	KUNIT_EXPECT_EQ(test, a->sync, b->sync);
	KUNIT_EXPECT_EQ(test, a->chunk_sectors, b->chunk_sectors);
	KUNIT_EXPECT_EQ(test, a->block_size, b->block_size);
	KUNIT_EXPECT_EQ(test, a->delay_queue, b->delay_queue);
	/* b reloads what TABLE printed for a: sync is named there */
	KUNIT_EXPECT_EQ(test, a->given | B(SYNC), b->given);
	KUNIT_EXPECT_STREQ(test, a->metadata_dev, b->metadata_dev);
	KUNIT_ASSERT_EQ(test, a->nr_disks, b->nr_disks);
	for (i = 0; i < a->nr_disks; i++)
		KUNIT_EXPECT_STREQ(test, a->data_devs[i], b->data_devs[i]);
	KUNIT_EXPECT_EQ(test, a->nr_features, b->nr_features);
}

static void ew_table_good(struct kunit *test)
{
	const struct ew_good_line *c = test->param_value;
	char **argv = kunit_kcalloc(test, EW_TEST_MAX_WORDS, sizeof(char *),
				    GFP_KERNEL);
	struct ew_table_args *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct ew_table_args *back = kunit_kzalloc(test, sizeof(*t),
						   GFP_KERNEL);
	const char *printed = c->printed ? c->printed : c->layout_words;
	const char *error = NULL, *devs, *line;
	struct ew_geom_params gp;
	char *whole;
	char buf[160];
	unsigned int argc, i;
	int n;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, argv);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, back);
	/* "<layout words> /dev/meta <n> d0 ... <tail>" */
	snprintf(buf, sizeof(buf), " /dev/meta %u", c->ndevs);
	devs = ew_cat(test, buf, ew_devs(test, c->ndevs), c->tail);
	line = ew_cat(test, c->layout_words, devs, "");
	argc = ew_split(test, line, argv);

	KUNIT_ASSERT_EQ_MSG(test, ew_table_parse(argc, argv, t, &error), 0,
			    "\"%s\": %s", line, error ? error : "(no error)");
	KUNIT_EXPECT_EQ(test, t->layout, c->layout);
	KUNIT_EXPECT_EQ(test, t->mirrors, c->mirrors);
	/* raid10 takes no dilution: its value is not specified. */
	if (c->layout != EW_LAYOUT_RAID10)
		KUNIT_EXPECT_EQ(test, t->dilution_x100, c->dilution_x100);
	KUNIT_EXPECT_EQ(test, t->sync, c->sync);
	KUNIT_EXPECT_EQ(test, t->chunk_sectors, c->chunk_sectors);
	KUNIT_EXPECT_EQ(test, t->block_size, c->block_size);
	KUNIT_EXPECT_EQ(test, t->delay_queue, c->delay_queue);
	KUNIT_EXPECT_EQ(test, t->journal_copy, c->journal_copy);
	KUNIT_EXPECT_EQ(test, t->given, c->given);
	KUNIT_EXPECT_STREQ(test, t->metadata_dev, "/dev/meta");
	KUNIT_ASSERT_EQ(test, t->nr_disks, c->ndevs);
	for (i = 0; i < c->ndevs; i++) {
		snprintf(buf, sizeof(buf), "d%u", i);
		KUNIT_EXPECT_STREQ(test, t->data_devs[i], buf);
	}
	KUNIT_EXPECT_EQ(test, t->nr_features, 0U);
	/*
	 * only an explicit sync 1 without journal copies risks a write to
	 * one member failure
	 */
	KUNIT_EXPECT_EQ(test, !!ew_table_risk(t),
			c->sync == 1 && !c->journal_copy);

	/* The geometry the target builds from it. */
	ew_table_geom_params(t, 123456, &gp);
	KUNIT_EXPECT_EQ(test, gp.layout, c->layout);
	KUNIT_EXPECT_EQ(test, gp.nr_disks, c->ndevs);
	KUNIT_EXPECT_EQ(test, gp.mirrors, c->mirrors);
	KUNIT_EXPECT_EQ(test, gp.block_sectors, c->block_size / 512);
	KUNIT_EXPECT_EQ(test, gp.chunk_sectors, c->chunk_sectors);
	KUNIT_EXPECT_EQ(test, gp.disk_sectors, 123456ULL);
	if (c->layout != EW_LAYOUT_RAID10)
		KUNIT_EXPECT_EQ(test, gp.dilution_x100, c->dilution_x100);

	/* STATUSTYPE_TABLE: the canonical words, and they reload. */
	n = ew_table_format_layout(t, buf, sizeof(buf));
	KUNIT_EXPECT_EQ(test, n, (int)strlen(printed));
	KUNIT_EXPECT_STREQ(test, buf, printed);
	line = ew_cat(test, buf, devs, "");
	argc = ew_split(test, line, argv);
	error = NULL;
	KUNIT_ASSERT_EQ_MSG(test, ew_table_parse(argc, argv, back, &error), 0,
			    "reload \"%s\": %s", line, error ? error : "");
	ew_expect_same_args(test, t, back);

	/* The whole line: layout words, devices and "0" features. */
	snprintf(buf, sizeof(buf), " /dev/meta %u", c->ndevs);
	line = ew_cat(test, printed, buf,
		      ew_cat(test, ew_devs(test, c->ndevs), " 0", ""));
	n = ew_table_format(t, NULL, 0);
	KUNIT_EXPECT_EQ(test, n, (int)strlen(line));
	whole = kunit_kzalloc(test, n + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, whole);
	KUNIT_EXPECT_EQ(test, ew_table_format(t, whole, n + 1), n);
	KUNIT_EXPECT_STREQ(test, whole, line);
	argc = ew_split(test, whole, argv);
	error = NULL;
	KUNIT_ASSERT_EQ_MSG(test, ew_table_parse(argc, argv, back, &error), 0,
			    "reload \"%s\": %s", whole, error ? error : "");
	ew_expect_same_args(test, t, back);
}

/* snprintf semantics: the length it would print, whatever the buffer. */
static void ew_table_format_short_buffer(struct kunit *test)
{
	static const char line[] = "ew 6 mirrors 2 dilution 2 sync 2 meta 2 a b";
	static const char want[] = "ew 6 mirrors 2 dilution 2 sync 2";
	char **argv = kunit_kcalloc(test, EW_TEST_MAX_WORDS, sizeof(char *),
				    GFP_KERNEL);
	struct ew_table_args *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	const char *error;
	char buf[8];
	unsigned int argc;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, argv);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	argc = ew_split(test, line, argv);
	KUNIT_ASSERT_EQ(test, ew_table_parse(argc, argv, t, &error), 0);
	memset(buf, 'x', sizeof(buf));
	KUNIT_EXPECT_EQ(test, ew_table_format_layout(t, buf, sizeof(buf)),
			(int)strlen(want));
	KUNIT_EXPECT_EQ(test, buf[sizeof(buf) - 1], '\0');
	KUNIT_EXPECT_EQ(test, strncmp(buf, want, sizeof(buf) - 1), 0);
}

struct ew_bad_line {
	const char *name;
	const char *line;
	const char *error;	/* the expected ti->error */
	unsigned int gen_devs;	/* append " d0 ... d<gen_devs - 1>" */
};

static const struct ew_bad_line ew_bad_lines[] = {
	{ "no words", "", "Missing layout" },
	{ "unknown layout", "raid5 0 meta 2 a b", "Unknown layout" },
	{ "layout only", "ew", "Missing number of layout arguments" },
	{ "odd number of layout args", "ew 1 mirrors meta 2 a b",
	  "Odd number of layout arguments" },
	{ "layout arg count not a number", "ew x meta 2 a b",
	  "Invalid number of layout arguments" },
	{ "layout arg count past the end", "ew 8 mirrors 2 meta 2 a b",
	  "Not enough layout arguments" },
	{ "unknown key", "ew 2 colour red meta 2 a b", "Unknown key" },
	{ "mirrors 1", "ew 2 mirrors 1 meta 2 a b",
	  "mirrors out of range (2 to 8)" },
	{ "mirrors 9", "raid10 2 mirrors 9 meta 18",
	  "mirrors out of range (2 to 8)", 18 },
	{ "mirrors not a number", "ew 2 mirrors 2x meta 2 a b",
	  "Invalid mirrors value" },
	{ "mirrors negative", "ew 2 mirrors -2 meta 2 a b",
	  "Invalid mirrors value" },
	{ "mirrors overflows u32", "ew 2 mirrors 4294967298 meta 2 a b",
	  "mirrors out of range (2 to 8)" },
	{ "ddm mirrors 3", "ddm 2 mirrors 3 meta 6 a b c d e f",
	  "mirrors must be 2 for layout ddm" },
	{ "mirrors twice", "ew 4 mirrors 2 mirrors 2 meta 2 a b",
	  "Duplicate key mirrors" },
	{ "sync twice", "ew 4 sync 1 sync 2 meta 2 a b", "Duplicate key sync" },
	{ "dilution twice", "ddm 4 dilution 2 dilution 2 meta 2 a b",
	  "Duplicate key dilution" },
	{ "chunk_sectors twice",
	  "raid10 4 chunk_sectors 8 chunk_sectors 16 meta 2 a b",
	  "Duplicate key chunk_sectors" },
	{ "block_size twice", "ew 4 block_size 4096 block_size 4096 meta 2 a b",
	  "Duplicate key block_size" },
	{ "delay_queue twice", "ew 4 delay_queue 1 delay_queue 2 meta 2 a b",
	  "Duplicate key delay_queue" },
	{ "raid10 dilution", "raid10 2 dilution 2 meta 2 a b",
	  "Key dilution not allowed for layout raid10" },
	{ "dilution below 1", "ew 2 dilution 0.5 meta 2 a b",
	  "dilution out of range (1 to 100)" },
	{ "dilution 101", "ew 2 dilution 101 meta 2 a b",
	  "dilution out of range (1 to 100)" },
	{ "dilution 1 (ew)", "ew 2 dilution 1 meta 2 a b",
	  "dilution must be above 1 for ddm and ew" },
	{ "dilution 1.00 (ddm)", "ddm 2 dilution 1.00 meta 2 a b",
	  "dilution must be above 1 for ddm and ew" },
	{ "dilution 3 decimals", "ddm 2 dilution 1.333 meta 2 a b",
	  "Invalid dilution value" },
	{ "dilution not a number", "ew 2 dilution two meta 2 a b",
	  "Invalid dilution value" },
	{ "sync 0", "ew 2 sync 0 meta 2 a b", "Invalid sync value (1 or 2)" },
	{ "sync 3", "ew 2 sync 3 meta 2 a b", "Invalid sync value (1 or 2)" },
	{ "sync 3 of 3 mirrors", "ew 4 mirrors 3 sync 3 meta 6 a b c d e f",
	  "Invalid sync value (1 or 2)" },
	{ "chunk not a power of two", "ew 2 chunk_sectors 100 meta 2 a b",
	  "chunk_sectors must be a power of two" },
	{ "chunk below a block", "ew 2 chunk_sectors 4 meta 2 a b",
	  "chunk_sectors smaller than a block" },
	{ "chunk below an 8K block",
	  "ew 4 chunk_sectors 8 block_size 8192 meta 2 a b",
	  "chunk_sectors smaller than a block" },
	{ "chunk of 2 GiB", "ew 2 chunk_sectors 4194304 meta 2 a b",
	  "chunk_sectors too large (at most 2097152)" },
	{ "chunk not a number", "ew 2 chunk_sectors 0x80 meta 2 a b",
	  "Invalid chunk_sectors value" },
	{ "block 2048", "ew 2 block_size 2048 meta 2 a b",
	  "block_size must be a power of two from 4096 to 65536" },
	{ "block 131072", "ew 2 block_size 131072 meta 2 a b",
	  "block_size must be a power of two from 4096 to 65536" },
	{ "block 12288", "ew 2 block_size 12288 meta 2 a b",
	  "block_size must be a power of two from 4096 to 65536" },
	{ "block not a number", "ew 2 block_size 4k meta 2 a b",
	  "Invalid block_size value" },
	{ "delay_queue not a number", "ew 2 delay_queue lots meta 2 a b",
	  "Invalid delay_queue value" },
	{ "delay_queue 0", "ew 2 delay_queue 0 meta 2 a b",
	  "delay_queue out of range (1 to 10000000)" },
	{ "journal_copy twice",
	  "ew 6 sync 1 journal_copy 8 journal_copy 8 meta 2 a b",
	  "Duplicate key journal_copy" },
	{ "journal_copy not a number", "ew 4 sync 1 journal_copy all meta 2 a b",
	  "Invalid journal_copy value" },
	{ "journal_copy 0", "ew 4 sync 1 journal_copy 0 meta 2 a b",
	  "journal_copy out of range (1 to 1048576)" },
	{ "journal_copy too many", "ew 4 sync 1 journal_copy 1048577 meta 2 a b",
	  "journal_copy out of range (1 to 1048576)" },
	{ "journal_copy at the default sync 2", "ew 2 journal_copy 8 meta 2 a b",
	  "journal_copy needs sync 1" },
	{ "journal_copy with sync 2", "ew 4 sync 2 journal_copy 8 meta 2 a b",
	  "journal_copy needs sync 1" },
	{ "no metadata device", "ew 0", "Missing metadata device" },
	{ "no device count", "ew 0 meta", "Missing number of data devices" },
	{ "device count not a number", "ew 0 meta two a b",
	  "Invalid number of data devices" },
	{ "one data device", "ew 0 meta 1 a",
	  "Wrong number of data devices (2 to 64)" },
	{ "no data devices", "ew 0 meta 0",
	  "Wrong number of data devices (2 to 64)" },
	{ "65 data devices", "raid10 0 meta 65",
	  "Wrong number of data devices (2 to 64)", 65 },
	{ "fewer devices than counted", "ew 0 meta 4 a b c",
	  "Not enough data devices" },
	{ "devices not divisible by mirrors", "ew 0 meta 3 a b c",
	  "Number of data devices not divisible by mirrors" },
	{ "raid10 devices not divisible", "raid10 2 mirrors 3 meta 4 a b c d",
	  "Number of data devices not divisible by mirrors" },
	{ "ddm odd devices", "ddm 0 meta 3 a b c",
	  "Odd number of data devices for layout ddm" },
	{ "the same device twice", "ew 0 meta 2 a a", "Duplicate data device" },
	{ "metadata device as data", "ew 0 a 2 a b",
	  "Metadata device is also a data device" },
	{ "ew column 0 missing on both replicas", "ew 0 meta 4 - b - d",
	  "Every replica of some blocks is on a missing data device" },
	{ "ddm pair missing", "ddm 0 meta 4 a b - -",
	  "Every replica of some blocks is on a missing data device" },
	{ "raid10 all missing", "raid10 0 meta 2 - -",
	  "Every replica of some blocks is on a missing data device" },
	{ "unknown feature", "ew 0 meta 2 a b 1 frobnicate", "Unknown feature" },
	{ "feature count past the end", "ew 0 meta 2 a b 1",
	  "Not enough feature arguments" },
	{ "feature count not a number", "ew 0 meta 2 a b x",
	  "Invalid number of feature arguments" },
	{ "words after the features", "ew 0 meta 2 a b 0 extra",
	  "Too many arguments" },
	{ "metadata_mirror without a device", "ew 0 meta 2 a b 1 metadata_mirror",
	  "Feature metadata_mirror needs a device" },
	{ "metadata_mirror twice", "ew 0 meta 2 a b 4 metadata_mirror m metadata_mirror n",
	  "Duplicate feature metadata_mirror" },
	{ "metadata_mirror on the metadata device",
	  "ew 0 meta 2 a b 2 metadata_mirror meta",
	  "Metadata mirror is the metadata device" },
	{ "metadata_mirror on a data device", "ew 0 meta 2 a b 2 metadata_mirror b",
	  "Metadata mirror is also a data device" },
	{ "metadata_mirror with the metadata on the members",
	  "ew 0 - 2 a b 2 metadata_mirror m2",
	  "Feature metadata_mirror needs a metadata device, not \"-\"" },
};

static void ew_bad_line_desc(const struct ew_bad_line *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_bad_line, ew_bad_lines, ew_bad_line_desc);

static void ew_table_bad(struct kunit *test)
{
	const struct ew_bad_line *c = test->param_value;
	char **argv = kunit_kcalloc(test, EW_TEST_MAX_WORDS, sizeof(char *),
				    GFP_KERNEL);
	struct ew_table_args *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	const char *error = NULL;
	unsigned int argc;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, argv);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	argc = ew_split(test, ew_cat(test, c->line, ew_devs(test, c->gen_devs),
				     ""), argv);

	KUNIT_EXPECT_EQ_MSG(test, ew_table_parse(argc, argv, t, &error),
			    -EINVAL, "\"%s\"", c->line);
	KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, error, "\"%s\"", c->line);
	KUNIT_EXPECT_STREQ_MSG(test, error, c->error, "\"%s\"", c->line);
}

/*
 * Every message the parser can set is expected by some bad line above,
 * but one: sync is 1 or 2 and mirrors at least 2, so no line can have
 * sync > mirrors (a defensive check).
 */
static void ew_table_every_error_tested(struct kunit *test)
{
	const char *msg;
	unsigned int i, j;

	for (i = 0; (msg = ew_table_error(i)) != NULL; i++) {
		bool found = !strcmp(msg, "sync exceeds mirrors");

		for (j = 0; j < ARRAY_SIZE(ew_bad_lines) && !found; j++)
			found = !strcmp(ew_bad_lines[j].error, msg);
		KUNIT_EXPECT_TRUE_MSG(test, found,
				      "no bad line expects \"%s\"", msg);
	}
	KUNIT_EXPECT_GT(test, i, 30U);
}

/* Which layout takes which key: dilution is for the eager layouts only. */
static void ew_table_allow_masks(struct kunit *test)
{
	enum ew_layout l;
	enum ew_key k;

	for (l = 0; l < EW_LAYOUT_NR; l++) {
		for (k = 0; k < EW_KEY_NR; k++) {
			bool want = !(k == EW_KEY_DILUTION &&
				      l == EW_LAYOUT_RAID10);

			KUNIT_EXPECT_EQ_MSG(test, ew_key_allowed(k, l), want,
					    "key %s layout %s",
					    ew_key_name(k), ew_layout_name(l));
		}
	}
}

/* The geometry of a table line: the target's length is checked. */
static void ew_table_geometry(struct kunit *test)
{
	static const char line[] = "ew 4 mirrors 2 dilution 2 meta 4 a b c d";
	char **argv = kunit_kcalloc(test, EW_TEST_MAX_WORDS, sizeof(char *),
				    GFP_KERNEL);
	struct ew_table_args *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct ew_geom *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	const char *error = NULL;
	unsigned int argc;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, argv);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	argc = ew_split(test, line, argv);
	KUNIT_ASSERT_EQ(test, ew_table_parse(argc, argv, t, &error), 0);
	/*
	 * Members of 8000 sectors = 1000 blocks; W = 2, chunk 16 blocks,
	 * Dd 2: 31 chunks a member (31 * 32 <= 1000), 992 blocks in all,
	 * 7936 sectors.
	 */
	KUNIT_EXPECT_EQ(test, ew_table_geom(t, 8000, 7936, g, &error), 0);
	KUNIT_EXPECT_EQ(test, g->len_blocks, 992ULL);
	KUNIT_EXPECT_EQ(test, g->p.nr_disks, 4U);
	error = NULL;
	KUNIT_EXPECT_EQ(test, ew_table_geom(t, 8000, 7944, g, &error),
			-EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, error);
	error = NULL;
	/* Not a whole number of 4 KiB blocks. */
	KUNIT_EXPECT_EQ(test, ew_table_geom(t, 8000, 7935, g, &error),
			-EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, error);
	error = NULL;
	KUNIT_EXPECT_EQ(test, ew_table_geom(t, 8000, 0, g, &error), -EINVAL);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, error);
}

/* "-" members: parsed, printed back as "-", never duplicates. */
static void ew_table_missing_members(struct kunit *test)
{
	static const char line[] = "raid10 0 meta 6 a - - - e f";
	char **argv = kunit_kcalloc(test, EW_TEST_MAX_WORDS, sizeof(char *),
				    GFP_KERNEL);
	struct ew_table_args *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	const char *error = NULL;
	char buf[64];
	unsigned int argc;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, argv);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	argc = ew_split(test, line, argv);
	KUNIT_ASSERT_EQ_MSG(test, ew_table_parse(argc, argv, t, &error), 0,
			    "%s", error ? error : "");
	KUNIT_EXPECT_FALSE(test, ew_table_dev_missing(t, 0));
	KUNIT_EXPECT_TRUE(test, ew_table_dev_missing(t, 1));
	KUNIT_EXPECT_TRUE(test, ew_table_dev_missing(t, 2));
	KUNIT_EXPECT_TRUE(test, ew_table_dev_missing(t, 3));
	KUNIT_EXPECT_FALSE(test, ew_table_dev_missing(t, 4));
	KUNIT_EXPECT_FALSE(test, ew_table_dev_missing(t, 6));
	KUNIT_EXPECT_TRUE(test, ew_table_missing_ok(t));
	ew_table_format(t, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "raid10 2 sync 2 meta 6 a - - - e f 0");
}

static void ew_table_key_names(struct kunit *test)
{
	static const char *const names[EW_KEY_NR] = {
		[EW_KEY_MIRRORS] = "mirrors",
		[EW_KEY_DILUTION] = "dilution",
		[EW_KEY_SYNC] = "sync",
		[EW_KEY_CHUNK_SECTORS] = "chunk_sectors",
		[EW_KEY_BLOCK_SIZE] = "block_size",
		[EW_KEY_DELAY_QUEUE] = "delay_queue",
		[EW_KEY_JOURNAL_COPY] = "journal_copy",
	};
	enum ew_key k;

	for (k = 0; k < EW_KEY_NR; k++) {
		/* a key added without its name here fails, not crashes */
		KUNIT_ASSERT_NOT_NULL(test, names[k]);
		KUNIT_EXPECT_STREQ(test, ew_key_name(k), names[k]);
	}
}

static struct kunit_case ew_table_cases[] = {
	KUNIT_CASE_PARAM(ew_table_good, ew_good_line_gen_params),
	KUNIT_CASE(ew_table_format_short_buffer),
	KUNIT_CASE_PARAM(ew_table_bad, ew_bad_line_gen_params),
	KUNIT_CASE(ew_table_key_names),
	KUNIT_CASE(ew_table_missing_members),
	KUNIT_CASE(ew_table_allow_masks),
	KUNIT_CASE(ew_table_every_error_tested),
	KUNIT_CASE(ew_table_geometry),
	{}
};

static struct kunit_suite ew_table_suite = {
	.name = "dm_eagerwrite_table",
	.test_cases = ew_table_cases,
};

kunit_test_suite(ew_table_suite);
