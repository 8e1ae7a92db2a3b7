/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ewctl_status.h - an array's "dmsetup status" line split into its
 * positional INFO fields (Documentation/eagerwrite.rst, Status) and its
 * table parsed by the core: what ewctl status prints and ewctl monitor
 * compares (status.c).
 */
#ifndef EWCTL_STATUS_H
#define EWCTL_STATUS_H

#include "ewctl.h"

#define EWCTL_STATUS_MAX_FIELDS	64

/* INFO field indexes (field 1 is 0). */
enum { F_LAYOUT, F_MEMBERS, F_MIRRORS, F_DILUTION, F_STRIPING, F_REGION,
       F_STATES, F_PENDING, F_READS, F_WRITES, F_FGW, F_BGW, F_EAGER,
       F_FLUSHES, F_PRED, F_META, F_JSEQ, F_COMMITS, F_CKPTS, F_RESYNC,
       F_RERR, F_WERR, F_REPAIRS, F_OWED, F_LOST, F_REBUILD, F_RSTATE,
       F_RRATE, F_DPAGES, F_DFALLBACK, F_COPIES, F_MCOPIES, F_MREPAIRS,
       F_JWAITS, F_CKPT, F_LEAD };

struct ewctl_status {
	char name[128];
	char *f[EWCTL_STATUS_MAX_FIELDS];
	unsigned int nf;
	char line[8192];
	/* from "dmsetup table", when read */
	bool have_table;
	char tline[8192];
	char *twords[EW_MAX_DISKS + 32];
	struct ew_table_args t;
	/* measured rebuild rate, blocks per second; < 0: not measured */
	double rebuild_bps;
};

/*
 * Splits "NAME: 0 LEN eagerwrite f1 f2 ..." (name NULL) or
 * "0 LEN eagerwrite ..." (name given); -1 if not an eagerwrite line with
 * at least the first 20 fields.
 */
int ewctl_status_parse(struct ewctl_status *a, const char *name,
		       const char *line);
/* dmsetup status / table of name into a; -1 (status: with a message). */
int ewctl_status_read(struct ewctl_status *a, const char *name);
int ewctl_status_read_table(struct ewctl_status *a);
/* Field i, NULL when the line has fewer fields. */
const char *ewctl_status_field(const struct ewctl_status *a, unsigned int i);
unsigned long long ewctl_status_num(const struct ewctl_status *a,
				    unsigned int i);
/* "done/total" fields. */
bool ewctl_status_frac(const struct ewctl_status *a, unsigned int i,
		       unsigned long long *done, unsigned long long *total);
/* The names of every loaded eagerwrite array (malloc'ed). */
int ewctl_status_list(char ***names, unsigned int *nr);

#endif /* EWCTL_STATUS_H */
