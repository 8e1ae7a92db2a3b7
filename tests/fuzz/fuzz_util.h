/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_util.h - helpers shared by the libFuzzer targets of the portable
 * core: fuzzer bytes as a table line's words, a metadata block resealed
 * so that the fuzzer gets past the crc, the arrays the metadata targets
 * decode against, and a check that aborts (a crash to libFuzzer) when an
 * invariant of the core does not hold.
 */
#ifndef EW_FUZZ_UTIL_H
#define EW_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ew_meta.h"

/* An invariant of the core broken: a finding, like a sanitizer report. */
#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: invariant broken: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

/* Words of a line: at most this many (dm splits the whole line). */
#define FUZZ_MAX_WORDS	256

/*
 * Splits buf (NUL-terminated, modified) at blanks as dm_split_args()
 * does; returns the number of words.
 */
static inline unsigned int fuzz_split(char *buf, char **argv)
{
	unsigned int argc = 0;
	char *p = buf;

	while (argc < FUZZ_MAX_WORDS) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		if (!*p)
			break;
		*p++ = '\0';
	}
	return argc;
}

/* Rewrites a metadata block's crc (the encoders' own rule). */
static inline void fuzz_reseal(void *blk)
{
	struct ew_meta_hdr *h = blk;

	h->crc = 0;
	h->crc = cpu_to_le32(ew_crc32c(~0U, blk, EW_META_BLOCK_SIZE));
}

/* The arrays the metadata targets decode against (small maps). */
static const char *const fuzz_lines[] = {
	"ew 4 mirrors 2 dilution 2 m 4 a b c d 0",
	"ddm 2 dilution 2 m 4 a b c d 0",
	/* with copy slots (journal_copy): COPY and UNCOPY records */
	"raid10 6 mirrors 2 sync 1 journal_copy 8 m 4 a b c d 0",
	/* the metadata on the members ("-"): flag MEMBERS, 3 copies */
	"ew 4 mirrors 3 sync 2 - 6 a b c d e f 0",
};
#define FUZZ_NR_LINES	(sizeof(fuzz_lines) / sizeof(fuzz_lines[0]))

static const u8 fuzz_uuid[EW_META_UUID_SIZE] = {
	0xa1, 0xa2, 0xa3, 0xa4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

struct fuzz_array {
	char line[128];
	char *argv[FUZZ_MAX_WORDS];
	struct ew_table_args t;
	struct ew_geom g;
	struct ew_meta_sb sb;
};

/*
 * Array i of fuzz_lines on members of 8 MiB, at its whole capacity, as
 * the target formats it.  Aborts if the core refuses its own table.
 */
static inline void fuzz_array_init(struct fuzz_array *a, unsigned int i)
{
	const u64 disk = 16384;
	struct ew_geom_params p;
	const char *why = NULL;
	unsigned int argc;

	snprintf(a->line, sizeof(a->line), "%s", fuzz_lines[i % FUZZ_NR_LINES]);
	argc = fuzz_split(a->line, a->argv);
	FUZZ_CHECK(!ew_table_parse(argc, a->argv, &a->t, &why));
	ew_table_geom_params(&a->t, disk, &p);
	FUZZ_CHECK(!ew_table_geom(&a->t, disk,
				  ew_geom_capacity_blocks(&p) * p.block_sectors,
				  &a->g, &why));
	FUZZ_CHECK(!ew_meta_sb_init(&a->sb, &a->t, &a->g, fuzz_uuid, &why));
}

/* Little-endian reads of the fuzzer's bytes, 0 past the end. */
static inline u64 fuzz_take(const u8 **data, size_t *size, unsigned int n)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < n && *size; i++, (*data)++, (*size)--)
		v |= (u64)**data << (8 * i);
	return v;
}

#endif /* EW_FUZZ_UTIL_H */
