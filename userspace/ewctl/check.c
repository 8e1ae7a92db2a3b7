// SPDX-License-Identifier: GPL-2.0-only
/*
 * check.c - "ewctl check": an offline checker of an eagerwrite array's
 * metadata in the spirit of thin_check.  It validates the superblock
 * slots, the current checkpoint, the journal chain, the rebuilt map
 * (every block inside its member's region, no block referenced twice on
 * one disk, homes only where they belong) and, given the data devices in
 * table order, their member labels and sizes.  Every step is the
 * portable core's, the same code the target runs at table load.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ewctl_meta.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl check [--quiet] [--metadata-mirror DEV] <metadata_dev>\n"
"                   [<data_dev>...]\n"
"\n"
"Checks the metadata of an eagerwrite array offline: both superblock\n"
"slots, the current checkpoint, the journal, the map rebuilt from them,\n"
"and, when the data devices are given (all of them, in table order),\n"
"their member labels and sizes.  Never writes.\n"
"\n"
"  -q, --quiet   print problems only\n"
"  --metadata-mirror DEV\n"
"                the table's metadata_mirror: both copies are checked,\n"
"                and a copy that is blank, damaged, older or marked\n"
"                stale (the target repairs it from the other at load)\n"
"                is named on a \"copy N ...: stale\" line, exit 3\n"
"  -h, --help    this help\n"
"\n"
"Exit status: 0 consistent (warnings about torn blocks that recovery\n"
"skips may be printed), 1 inconsistent (each problem on one line),\n"
"2 usage error, 3 damage found that recovery repairs (one copy of a\n"
"journal block: the array loads, replaying the other copy), 4 format\n"
"incomplete (a crash while formatting: the next load formats again).\n"
"See Documentation/on-disk-format.rst.\n");
}

struct check_state {
	const char *meta;
	unsigned int problems;
	unsigned int damaged;	/* recoverable damage found */
	bool quiet;
};

static void problem(struct check_state *c, const char *fmt, const char *what,
		    const char *why)
{
	printf("%s: ", c->meta);
	printf(fmt, what);
	printf(": %s\n", why);
	c->problems++;
}

static void info(struct check_state *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void info(struct check_state *c, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet)
		return;
	va_start(ap, fmt);
	printf("%s: ", c->meta);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

static void check_labels(struct check_state *c, const struct ewctl_meta *m,
			 int n, char **devs)
{
	u8 blk[EW_META_BLOCK_SIZE];
	const struct ew_meta_sb *sb = &m->sb;
	u64 need = (sb->data_offset_sectors +
		    sb->region_blocks * (sb->block_size / 512)) * 512;
	char what[320];
	int i;

	if ((u32)n != sb->nr_disks) {
		printf("%s: %d data devices given, the array has %u: member count mismatch\n",
		       c->meta, n, sb->nr_disks);
		c->problems++;
		return;
	}
	for (i = 0; i < n; i++) {
		const char *why = NULL;
		struct ew_meta_label l;
		FILE *f;
		u64 bytes;

		snprintf(what, sizeof(what), "data device %d (%s)", i, devs[i]);
		if (ewctl_dev_bytes(devs[i], &bytes)) {
			problem(c, "%s", what, "cannot read its size");
			continue;
		}
		f = ewctl_fopen_fresh(devs[i], "rb");
		if (!f || ewctl_read_block(f, 0, blk)) {
			problem(c, "%s", what, "cannot read its member label");
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		if (ew_meta_label_check(sb, blk, (u32)i, &why)) {
			const char *w2;
			char buf[400];

			/* say where the member belongs */
			if (!ew_meta_label_decode(blk, &l, &w2) &&
			    !memcmp(l.uuid, sb->uuid, EW_META_UUID_SIZE) &&
			    l.nr_disks == sb->nr_disks && l.member != (u32)i) {
				snprintf(buf, sizeof(buf),
					 "%s (its label says member %u)", why,
					 l.member);
				why = buf;
			}
			problem(c, "%s", what, why);
			continue;
		}
		if (bytes < need) {
			problem(c, "%s", what,
				"data device smaller than the array's region");
			continue;
		}
		info(c, "%s: member %d of %u, generation %llu: ok", what, i,
		     sb->nr_disks, (unsigned long long)sb->member_gen[i]);
	}
}

/* What one metadata copy's check found (the superblock's own fields). */
struct copy_info {
	bool valid;		/* a superblock, not formatting */
	bool blank;
	u64 gen;
	u32 stale;		/* its meta_stale */
	u32 copy;		/* its meta_copy */
	u8 uuid[EW_META_UUID_SIZE];
};

/* The whole check of one metadata copy; returns its exit status. */
static int check_one(struct check_state *c, int ndata, char **data,
		     struct copy_info *ci)
{
	struct ewctl_meta m;
	struct ewctl_map_load ld;
	const char *why = NULL;
	char uuid[40];
	u64 bl = 0;
	u32 br = 0, i;

	if (ewctl_meta_open(&m, c->meta, false))
		return EWCTL_FAIL;
	if (m.pick == -ENODATA) {
		ci->blank = true;
		printf("%s: not formatted (first block all zeros)\n", c->meta);
		ewctl_meta_close(&m);
		return EWCTL_FAIL;
	}
	if (m.pick) {
		printf("%s: superblock: %s\n", c->meta, m.pick_why);
		ewctl_meta_close(&m);
		return EWCTL_FAIL;
	}
	if (m.sb.flags & EW_META_SB_FORMATTING) {
		printf("%s: format incomplete (generation %llu in slot %u has FORMATTING set: the next table load formats the array again)\n",
		       c->meta, (unsigned long long)m.sb.generation, m.cur);
		ewctl_meta_close(&m);
		return EWCTL_CHECK_FORMATTING;
	}
	ci->valid = true;
	ci->gen = m.sb.generation;
	ci->stale = m.sb.meta_stale;
	ci->copy = m.sb.meta_copy;
	memcpy(ci->uuid, m.sb.uuid, EW_META_UUID_SIZE);
	ewctl_uuid_str(m.sb.uuid, uuid);
	info(c, "superblock slot %u, generation %llu, version %u, uuid %s, %s, %u disks",
	     m.cur, (unsigned long long)m.sb.generation, EW_META_VERSION, uuid,
	     ew_layout_name(m.sb.layout), m.sb.nr_disks);
	for (i = 0; i < EW_META_SB_SLOTS; i++)
		if (i != m.cur && m.slot_why[i])
			printf("%s: warning: superblock slot %u: %s (generation %llu in slot %u is used)\n",
			       c->meta, i, m.slot_why[i],
			       (unsigned long long)m.sb.generation, m.cur);
	if (ew_meta_sb_check_size(&m.sb, m.bytes / 512, &why))
		problem(c, "%s", "metadata device", why);
	if (ewctl_meta_load_map(&m, &ld)) {
		ewctl_meta_close(&m);
		return EWCTL_FAIL;
	}
	if (ld.ret) {
		problem(c, "%s", ld.where, ld.why);
	} else {
		if (!m.sb.ckpt_seq)
			info(c, "checkpoint: none yet (empty map)");
		else
			info(c, "checkpoint area %u, seq %llu, %llu blocks: ok",
			     m.sb.ckpt_area, (unsigned long long)m.sb.ckpt_seq,
			     (unsigned long long)m.sb.ckpt_blocks);
		info(c, "journal: seq %llu..%llu, %llu blocks, %llu records: ok",
		     (unsigned long long)m.sb.journal_seq,
		     (unsigned long long)ld.end_seq,
		     (unsigned long long)(ld.end_seq - m.sb.journal_seq),
		     (unsigned long long)ld.records);
		info(c, "shutdown: %s", m.sb.flags & EW_META_SB_CLEAN ?
		     "clean" : "not clean (in use, or a crash)");
		for (i = 0; i < ld.replay.nr_damaged &&
			    i < EW_META_REPLAY_DAMAGE_MAX; i++) {
			u64 seq = ld.replay.damaged_seq[i];
			u32 cp = ld.replay.damaged_copy[i];

			printf("%s: damaged: journal seq %llu copy %u (block %llu): invalid copy, seq %llu replayed from copy %u\n",
			       c->meta, (unsigned long long)seq, cp,
			       (unsigned long long)ld.replay.damaged_bn[i],
			       (unsigned long long)seq, cp ^ 1);
		}
		if (ld.replay.nr_damaged > EW_META_REPLAY_DAMAGE_MAX)
			printf("%s: damaged: %u more damaged journal copies\n",
			       c->meta, ld.replay.nr_damaged - EW_META_REPLAY_DAMAGE_MAX);
		c->damaged += ld.replay.nr_damaged;
		if (ld.end_damaged)
			printf("%s: warning: journal ends at seq %llu with a damaged block (a torn last write: its records were never acknowledged)\n",
			       c->meta, (unsigned long long)ld.end_seq);
		if (ew_meta_map_check(&m.g, &ld.map, &bl, &br, &why) == -ENOMEM) {
			fprintf(stderr, "%s: out of memory\n", ewctl_prog);
			c->problems++;
		} else if (why) {
			struct ew_replica rep[EW_MAX_MIRRORS];
			char where[128];

			ew_geom_map(&m.g, bl, rep);
			snprintf(where, sizeof(where),
				 "map: logical block %llu replica %u (disk %u, block %u)",
				 (unsigned long long)bl, br, rep[br].disk,
				 ew_map_pblock(&ld.map, bl, br));
			problem(c, "%s", where, why);
		} else {
			info(c, "map: %llu logical blocks x %u replicas: ok",
			     (unsigned long long)ld.map.nr_blocks, ld.map.mirrors);
		}
	}
	if (ndata)
		check_labels(c, &m, ndata, data);
	ew_map_destroy(&ld.map);
	free(ld.jblocks);
	ewctl_meta_close(&m);
	if (c->problems) {
		printf("%s: inconsistent: %u problem%s\n", c->meta, c->problems,
		       c->problems == 1 ? "" : "s");
		return EWCTL_FAIL;
	}
	if (c->damaged) {
		printf("%s: damaged: %u journal cop%s invalid, recoverable (the array loads; its next checkpoint retires them)\n",
		       c->meta, c->damaged, c->damaged == 1 ? "y" : "ies");
		return EWCTL_CHECK_DAMAGED;
	}
	printf("%s: consistent\n", c->meta);
	return EWCTL_OK;
}

int ewctl_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "metadata-mirror", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct check_state c = { 0 };
	struct copy_info ci[2] = { 0 };
	const char *path[2] = { NULL, NULL };
	int opt, ret[2], ndata, good, bad;

	while ((opt = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			c.quiet = true;
			break;
		case 'M':
			path[1] = optarg;
			break;
		case 'h':
			usage(stdout);
			return EWCTL_OK;
		default:
			usage(stderr);
			return EWCTL_USAGE;
		}
	}
	if (optind >= argc || argc - optind - 1 > EW_MAX_DISKS) {
		usage(stderr);
		return EWCTL_USAGE;
	}
	path[0] = argv[optind];
	ndata = argc - optind - 1;
	c.meta = path[0];
	ret[0] = check_one(&c, ndata, argv + optind + 1, &ci[0]);
	if (!path[1])
		return ret[0];
	/*
	 * Two copies: the target's choice at load (dm-eagerwrite-metadata.c,
	 * ew_md_mchoose()): the newest valid one is the source, a copy that
	 * is blank, invalid, older or marked stale by it is repaired from it.
	 */
	c.meta = path[1];
	c.problems = 0;
	c.damaged = 0;
	ret[1] = check_one(&c, ndata, argv + optind + 1, &ci[1]);
	if (ci[0].valid && ci[1].valid &&
	    memcmp(ci[0].uuid, ci[1].uuid, EW_META_UUID_SIZE)) {
		printf("copies: %s and %s belong to different arrays (the target refuses them)\n",
		       path[0], path[1]);
		return EWCTL_FAIL;
	}
	if (!ci[0].valid && !ci[1].valid) {
		if (ci[0].blank && ci[1].blank)
			return EWCTL_FAIL;	/* not formatted, said above */
		printf("copies: no valid copy (the target refuses the table)\n");
		return EWCTL_FAIL;
	}
	good = !ci[0].valid || (ci[1].valid && ci[1].gen > ci[0].gen);
	bad = good ^ 1;
	if (ci[bad].valid && ci[bad].gen == ci[good].gen &&
	    !(ci[good].stale & (1U << bad))) {
		printf("copies: in sync (generation %llu)\n",
		       (unsigned long long)ci[good].gen);
		/* the worse of the two, a failed one first */
		if (ret[0] == EWCTL_FAIL && ret[1] == EWCTL_FAIL)
			return EWCTL_FAIL;
		if (ret[0] == EWCTL_FAIL || ret[1] == EWCTL_FAIL) {
			printf("copies: a copy that does not check is read from the other at load\n");
			return EWCTL_CHECK_DAMAGED;
		}
		return ret[0] != EWCTL_OK ? ret[0] : ret[1];
	}
	if (ret[good] == EWCTL_FAIL) {
		printf("copies: copy %d (%s), the newest, is inconsistent\n",
		       good, path[good]);
		return EWCTL_FAIL;
	}
	printf("copy %d (%s): stale: %s; the target repairs it from copy %d (%s) at the next load\n",
	       bad, path[bad],
	       ci[bad].blank ? "blank" : !ci[bad].valid ? "no valid superblock" :
	       ci[good].stale & (1U << bad) ? "marked stale by the other copy" :
	       "older generation",
	       good, path[good]);
	return EWCTL_CHECK_DAMAGED;
}
