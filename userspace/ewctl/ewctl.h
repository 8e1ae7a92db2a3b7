/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ewctl.h - what the subcommands of ewctl share.  Each subcommand lives
 * in a file of its own (geometry.c, table.c, ...) and is listed in
 * main.c's command table; common helpers (sizes, devices, JSON, the
 * layout options every subcommand takes) are in util.c.
 *
 * Exit codes of every subcommand: EWCTL_OK, EWCTL_FAIL (the request was
 * refused or failed: bad geometry, unreadable device), EWCTL_USAGE (bad
 * command line).
 */
#ifndef EWCTL_H
#define EWCTL_H

#include <stdio.h>
#include "ew_compat.h"
#include "ew_geom.h"
#include "ew_table.h"
#include "ew_meta.h"
#include "ewctl_dev.h"

#define EWCTL_OK	0
#define EWCTL_FAIL	1
#define EWCTL_USAGE	2
/* ewctl check only: damage found that recovery repairs */
#define EWCTL_CHECK_DAMAGED	3
/* ewctl check only: a format did not finish (it is done again) */
#define EWCTL_CHECK_FORMATTING	4

/* Subcommands: argv[0] is the subcommand's name. */
int ewctl_geometry(int argc, char **argv);
int ewctl_table(int argc, char **argv);
int ewctl_check(int argc, char **argv);
int ewctl_dump(int argc, char **argv);
int ewctl_calibrate(int argc, char **argv);
int ewctl_examine(int argc, char **argv);
int ewctl_assemble(int argc, char **argv);
int ewctl_status(int argc, char **argv);
int ewctl_monitor(int argc, char **argv);
int ewctl_debug_mkmeta(int argc, char **argv);	/* hidden, tests only */

/*
 * The layout options shared by the subcommands that describe an array:
 * --layout and one option per table key (--mirrors, --dilution, --sync,
 * --chunk-sectors, --block-size, --delay-queue).  Values are kept as the
 * user wrote them and handed to ew_table_parse(), so ewctl accepts
 * exactly what the target accepts, with the same messages.
 */
struct ewctl_layout_opts {
	const char *layout;
	const char *val[EW_KEY_NR];
};

/* getopt_long option values for the layout options. */
enum {
	EWCTL_OPT_LAYOUT = 0x100,
	EWCTL_OPT_KEY0,		/* + enum ew_key */
	EWCTL_OPT_NEXT = EWCTL_OPT_KEY0 + EW_KEY_NR,
};

/* The struct option entries of the layout options (for getopt_long). */
#define EWCTL_LAYOUT_LONGOPTS						\
	{ "layout", required_argument, NULL, EWCTL_OPT_LAYOUT },	\
	{ "mirrors", required_argument, NULL,				\
	  EWCTL_OPT_KEY0 + EW_KEY_MIRRORS },				\
	{ "dilution", required_argument, NULL,				\
	  EWCTL_OPT_KEY0 + EW_KEY_DILUTION },				\
	{ "sync", required_argument, NULL, EWCTL_OPT_KEY0 + EW_KEY_SYNC }, \
	{ "chunk-sectors", required_argument, NULL,			\
	  EWCTL_OPT_KEY0 + EW_KEY_CHUNK_SECTORS },			\
	{ "block-size", required_argument, NULL,			\
	  EWCTL_OPT_KEY0 + EW_KEY_BLOCK_SIZE },				\
	{ "delay-queue", required_argument, NULL,			\
	  EWCTL_OPT_KEY0 + EW_KEY_DELAY_QUEUE },			\
	{ "journal-copy", required_argument, NULL,			\
	  EWCTL_OPT_KEY0 + EW_KEY_JOURNAL_COPY }

/* Handles a layout option; returns false if opt is not one. */
bool ewctl_layout_opt(struct ewctl_layout_opts *o, int opt, const char *arg);
/* The --help lines describing the layout options. */
void ewctl_layout_help(FILE *f);

/* Storage for the words of a table line built from options. */
struct ewctl_words {
	unsigned int argc;
	char *argv[2 + 2 * EW_KEY_NR + 2 + EW_MAX_DISKS + 1];
	char nbuf[2][16];
};

/*
 * Builds the words "<layout> <#args> <key> <value>... <meta> <N> <dev>..."
 * and parses them with ew_table_parse().  With nr_devs > EW_MAX_DISKS
 * only the count is passed on (the parser rejects it).  Prints the
 * parser's message on stderr and returns EWCTL_FAIL on error.
 */
int ewctl_parse_table(const struct ewctl_layout_opts *o, const char *meta,
		      unsigned int nr_devs, char **devs,
		      struct ewctl_words *w, struct ew_table_args *t);

/*
 * Sizes: digits with an optional unit: s (512-byte sectors), K, M, G, T,
 * P (powers of 1024; "KiB", "K", "k" alike), nothing for bytes.  Returns
 * 0 or -1 (bad syntax, overflow).
 */
int ewctl_parse_size(const char *s, u64 *bytes);


/* Writes s as a JSON string (quoted, escaped). */
void ewctl_json_str(FILE *f, const char *s);

/*
 * Prints the geometry g (of table t) as text or as one JSON object; the
 * JSON field names are an interface (Documentation/ewctl.rst).
 */
void ewctl_print_geometry(FILE *f, const struct ew_table_args *t,
			  const struct ew_geom *g, bool json);

/*
 * Sectors of a member of member_bytes the layout may use: the first
 * EW_MEMBER_DATA_OFFSET_SECTORS hold the member label (the target builds
 * its geometry on the same figure).  0 for a member smaller than that.
 */
static inline u64 ewctl_member_data_sectors(u64 member_bytes)
{
	u64 s = member_bytes / 512;

	return s > EW_MEMBER_DATA_OFFSET_SECTORS ?
	       s - EW_MEMBER_DATA_OFFSET_SECTORS : 0;
}

/* Formats x100 as a decimal with two digits ("8.99", "1.00"). */
void ewctl_fmt_x100(char *buf, size_t len, u64 x100);

#endif /* EWCTL_H */
