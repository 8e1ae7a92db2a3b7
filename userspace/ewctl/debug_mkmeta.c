// SPDX-License-Identifier: GPL-2.0-only
/*
 * debug_mkmeta.c - "ewctl debug-mkmeta", hidden, for tests only: writes
 * the metadata a target would have written after a run of random writes
 * (member labels, superblock, journal, optionally a checkpoint) onto
 * image files, using the portable core's encoders, so that ewctl check
 * and dump can be tested on the host (tests/tools/test-ewctl-meta.sh).
 * --inject writes well-checksummed but wrong metadata.  ewctl never
 * formats a real array: the target does that itself.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ewctl_meta.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl debug-mkmeta [layout options] [--len SIZE] [--seed N]\n"
"         [--writes N] [--commit-every N] [--checkpoint-at N]\n"
"         [--inject dup|range|formatting] [--copies N --copy C [--stale LIST]]\n"
"         <metadata_file> <data_file>...\n"
"\n"
"TEST ONLY: overwrites the files with the metadata and member labels of a\n"
"simulated run of N random writes (default 200; a journal block every\n"
"--commit-every writes, default 5; a checkpoint after write\n"
"--checkpoint-at).  --inject dup maps two replicas to one block of a\n"
"disk, --inject range a block past the region, both well checksummed;\n"
"--inject formatting leaves a new superblock with FORMATTING set (a\n"
"crash while formatting).  --copies writes copy C (0-based) of N copies\n"
"of mirrored metadata (metadata_mirror), --stale the comma-separated\n"
"copies that superblock marks stale; the same --seed on each copy gives\n"
"one array.\n");
	ewctl_layout_help(f);
}

static u64 rnd(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct mk {
	FILE *f;
	struct ew_meta_sb sb;
	struct ew_geom g;
	struct ew_map m;
	struct ew_meta_jbuf jb;
	u8 buf[EW_META_JSLOT_SIZE];
	u64 seq;
	u8 **used;
	int err;
};

static void mk_commit(struct mk *k)
{
	u64 bn;
	u32 c;

	if (ew_meta_jbuf_empty(&k->jb))
		return;
	bn = ew_meta_jbuf_seal(&k->jb, &k->sb, k->seq++);
	for (c = 0; c < EW_META_JOURNAL_COPIES; c++)
		if (ewctl_write_block(k->f, bn + c,
				      k->buf + c * EW_META_BLOCK_SIZE))
			k->err = 1;
	ew_meta_jbuf_init(&k->jb, k->buf);
}

static void mk_log(struct mk *k, u64 l, u8 replicas)
{
	if (ew_meta_jbuf_log_block(&k->jb, &k->m, l, replicas) == -ENOSPC) {
		mk_commit(k);
		ew_meta_jbuf_log_block(&k->jb, &k->m, l, replicas);
	}
}

static void mk_checkpoint(struct mk *k)
{
	u8 blk[EW_META_BLOCK_SIZE];
	u32 area = ew_meta_ckpt_next_area(&k->sb);
	u64 seq = ew_meta_ckpt_next_seq(&k->sb), i, bn;

	mk_commit(k);
	for (i = 0; i < k->sb.ckpt_blocks; i++) {
		bn = ew_meta_ckpt_encode(&k->sb, &k->m, area, seq, i, blk);
		if (ewctl_write_block(k->f, bn, blk))
			k->err = 1;
	}
	ew_meta_sb_commit_ckpt(&k->sb, area, seq, k->seq);
	bn = ew_meta_sb_encode(&k->sb, blk);
	if (ewctl_write_block(k->f, bn, blk))
		k->err = 1;
}

/* One write of lblock l, or a discard: as the target would log it. */
static void mk_write(struct mk *k, u64 *s)
{
	u32 mir = k->g.p.mirrors, r, gen;
	u64 l = rnd(s) % k->g.len_blocks;
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 home[EW_MAX_MIRRORS], newp[EW_MAX_MIRRORS], freed[EW_MAX_MIRRORS];
	u8 fg;

	ew_geom_map(&k->g, l, rep);
	ew_meta_homes(&k->g, l, home);
	if (rnd(s) % 20 == 0) {
		ew_map_discard(&k->m, l, home, freed);
		if (ew_meta_jbuf_log_discard(&k->jb, l, 1) == -ENOSPC) {
			mk_commit(k);
			ew_meta_jbuf_log_discard(&k->jb, l, 1);
		}
	} else {
		gen = ew_map_begin_write(&k->m, l);
		fg = (u8)(1 + rnd(s) % ((1U << mir) - 1));
		for (r = 0; r < mir; r++) {
			u64 b = rnd(s) % k->g.region_blocks;

			newp[r] = home[r];
			if (!(fg & (1U << r)) ||
			    (home[r] != EW_MAP_NONE &&
			     (k->g.p.layout == EW_LAYOUT_RAID10 || rnd(s) % 2)))
				continue;
			while (k->used[rep[r].disk][b])
				b = (b + 1) % k->g.region_blocks;
			k->used[rep[r].disk][b] = 1;
			newp[r] = (u32)b;
		}
		ew_map_commit_write(&k->m, l, gen, fg, newp, home, freed);
		mk_log(k, l, (u8)((1U << mir) - 1));
	}
	for (r = 0; r < mir; r++)
		if (freed[r] != EW_MAP_NONE)
			k->used[rep[r].disk][freed[r]] = 0;
}

/* Two replicas on one disk pointing at the same block. */
static int mk_inject_dup(struct mk *k)
{
	struct ew_replica a[EW_MAX_MIRRORS], b[EW_MAX_MIRRORS];
	u64 l1, l2;
	u32 r1, r2, p;

	for (l1 = 0; l1 < k->m.nr_blocks; l1++)
		for (r1 = 0; r1 < k->m.mirrors; r1++) {
			p = ew_map_pblock(&k->m, l1, r1);
			if (p == EW_MAP_NONE)
				continue;
			ew_geom_map(&k->g, l1, a);
			for (l2 = 0; l2 < k->m.nr_blocks; l2++) {
				if (l2 == l1)
					continue;
				ew_geom_map(&k->g, l2, b);
				for (r2 = 0; r2 < k->m.mirrors; r2++) {
					if (b[r2].disk != a[r1].disk)
						continue;
					k->m.pblock[l2 * k->m.mirrors + r2] = p;
					k->m.uptodate[l2] |= 1U << r2;
					mk_log(k, l2, (u8)(1U << r2));
					return 0;
				}
			}
		}
	return -1;
}

int ewctl_debug_mkmeta(int argc, char **argv)
{
	static const struct option opts[] = {
		EWCTL_LAYOUT_LONGOPTS,
		{ "len", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 's' },
		{ "writes", required_argument, NULL, 'w' },
		{ "commit-every", required_argument, NULL, 'c' },
		{ "checkpoint-at", required_argument, NULL, 'k' },
		{ "inject", required_argument, NULL, 'i' },
		{ "copies", required_argument, NULL, 'N' },
		{ "copy", required_argument, NULL, 'C' },
		{ "stale", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ewctl_layout_opts lo = { 0 };
	struct ewctl_words w;
	struct ew_table_args t;
	struct ew_geom_params p;
	struct mk k;
	const char *why = NULL, *inject = NULL;
	u64 len = 0, seed = 1, writes = 200, every = 5, ckpt_at = ~0ULL;
	u64 bytes, disk = ~0ULL, i, s;
	u32 copies = 0, copy = 0, stale = 0, c;
	char *tok, *save;
	u8 uuid[EW_META_UUID_SIZE], blk[EW_META_BLOCK_SIZE];
	int opt, n, ret = EWCTL_FAIL;
	u32 d;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ewctl_layout_opt(&lo, opt, optarg))
			continue;
		switch (opt) {
		case 'l':
			if (ewctl_parse_size(optarg, &len) || len % 512)
				goto usage;
			len /= 512;
			break;
		case 's':
			if (ew_parse_u64(optarg, &seed))
				goto usage;
			break;
		case 'w':
			if (ew_parse_u64(optarg, &writes))
				goto usage;
			break;
		case 'c':
			if (ew_parse_u64(optarg, &every) || !every)
				goto usage;
			break;
		case 'k':
			if (ew_parse_u64(optarg, &ckpt_at))
				goto usage;
			break;
		case 'i':
			inject = optarg;
			if (strcmp(inject, "dup") && strcmp(inject, "range") &&
			    strcmp(inject, "formatting"))
				goto usage;
			break;
		case 'N':
			if (ew_parse_u32(optarg, &copies) || copies < 2 ||
			    copies > EW_META_MAX_COPIES)
				goto usage;
			break;
		case 'C':
			if (ew_parse_u32(optarg, &copy))
				goto usage;
			break;
		case 'S':
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (ew_parse_u32(tok, &c) || c >= EW_META_MAX_COPIES)
					goto usage;
				stale |= 1U << c;
			}
			break;
		case 'h':
			usage(stdout);
			return EWCTL_OK;
		default:
			goto usage;
		}
	}
	/* what the core's decoder accepts: this copy among them, never stale */
	if (copies ? copy >= copies || (stale >> copies) || (stale & (1U << copy)) :
		     copy || stale) {
		fprintf(stderr, "%s: --copy below --copies, --stale other copies among them\n",
			ewctl_prog);
		return EWCTL_USAGE;
	}
	n = argc - optind - 1;
	if (n < 1)
		goto usage;
	for (i = 0; i < (u64)n && i < EW_MAX_DISKS; i++) {
		if (ewctl_dev_bytes(argv[optind + 1 + i], &bytes))
			return EWCTL_FAIL;
		disk = min(disk, bytes / 512);
	}
	if (ewctl_parse_table(&lo, argv[optind], (unsigned int)n,
			      argv + optind + 1, &w, &t))
		return EWCTL_FAIL;
	if (disk <= EW_MEMBER_DATA_OFFSET_SECTORS) {
		fprintf(stderr, "%s: data devices too small\n", ewctl_prog);
		return EWCTL_FAIL;
	}
	disk -= EW_MEMBER_DATA_OFFSET_SECTORS;
	if (!len) {
		ew_table_geom_params(&t, disk, &p);
		len = ew_geom_capacity_blocks(&p) * p.block_sectors;
	}
	memset(&k, 0, sizeof(k));
	if (ew_table_geom(&t, disk, len, &k.g, &why)) {
		fprintf(stderr, "%s: %s\n", ewctl_prog, why);
		return EWCTL_FAIL;
	}
	s = seed;
	for (i = 0; i < EW_META_UUID_SIZE; i += 8) {
		u64 v = rnd(&s);

		memcpy(uuid + i, &v, 8);
	}
	ew_meta_sb_init(&k.sb, &t, &k.g, uuid, &why);
	k.sb.meta_copies = copies;
	k.sb.meta_copy = copy;
	k.sb.meta_stale = stale;
	if (ewctl_dev_bytes(argv[optind], &bytes))
		return EWCTL_FAIL;
	if (ew_meta_sb_check_size(&k.sb, bytes / 512, &why)) {
		fprintf(stderr, "%s: %s (%llu sectors needed)\n", ewctl_prog,
			why,
			(unsigned long long)ew_meta_table_size_sectors(&k.g, &t));
		return EWCTL_FAIL;
	}
	/* the format, as the target does it: labels, slot 1 cleared, slot 0 */
	for (i = 0; i < (u64)n; i++) {
		FILE *f = fopen(argv[optind + 1 + i], "r+b");

		ew_meta_label_encode(&k.sb, (u32)i, blk);
		if (!f || ewctl_write_block(f, 0, blk)) {
			fprintf(stderr, "%s: %s: cannot write\n", ewctl_prog,
				argv[optind + 1 + i]);
			if (f)
				fclose(f);
			return EWCTL_FAIL;
		}
		fclose(f);
	}
	k.f = fopen(argv[optind], "r+b");
	if (!k.f) {
		fprintf(stderr, "%s: %s: cannot open\n", ewctl_prog, argv[optind]);
		return EWCTL_FAIL;
	}
	memset(blk, 0, sizeof(blk));
	for (i = 0; i < k.sb.total_blocks; i++)
		ewctl_write_block(k.f, i, blk);
	ew_meta_sb_encode(&k.sb, blk);
	ewctl_write_block(k.f, 0, blk);
	k.seq = k.sb.journal_seq;

	if (ew_map_init(&k.m, k.g.len_blocks, k.g.p.mirrors))
		goto out;
	k.used = calloc(k.g.p.nr_disks, sizeof(*k.used));
	for (d = 0; k.used && d < k.g.p.nr_disks; d++) {
		k.used[d] = calloc(k.g.region_blocks, 1);
		if (!k.used[d])
			goto out;
		for (i = 0; i < k.g.region_blocks; i++)
			k.used[d][i] = ew_geom_is_home(&k.g, d, i);
	}
	if (!k.used)
		goto out;
	ew_meta_jbuf_init(&k.jb, k.buf);
	s = seed;
	for (i = 0; i < writes; i++) {
		mk_write(&k, &s);
		if ((i + 1) % every == 0)
			mk_commit(&k);
		if (i == ckpt_at)
			mk_checkpoint(&k);
	}
	if (inject && !strcmp(inject, "dup") && mk_inject_dup(&k)) {
		fprintf(stderr, "%s: nothing to duplicate\n", ewctl_prog);
		goto out;
	}
	if (inject && !strcmp(inject, "range")) {
		struct ew_meta_rec rec = {
			.type = EW_JREC_REMAP,
			.pblock = (u32)k.g.region_blocks,
			.uptodate = 1,
		};

		mk_commit(&k);
		ew_meta_jbuf_add(&k.jb, &rec);
	}
	mk_commit(&k);
	if (inject && !strcmp(inject, "formatting")) {
		ew_meta_sb_set_flags(&k.sb, EW_META_SB_FORMATTING);
		ewctl_write_block(k.f, ew_meta_sb_encode(&k.sb, blk), blk);
	}
	if (k.err || fflush(k.f)) {
		fprintf(stderr, "%s: %s: write error\n", ewctl_prog, argv[optind]);
		goto out;
	}
	printf("mkmeta: %llu writes, journal seq %llu..%llu, generation %llu\n",
	       (unsigned long long)writes, (unsigned long long)k.sb.journal_seq,
	       (unsigned long long)k.seq, (unsigned long long)k.sb.generation);
	ret = EWCTL_OK;
out:
	for (d = 0; k.used && d < k.g.p.nr_disks; d++)
		free(k.used[d]);
	free(k.used);
	ew_map_destroy(&k.m);
	fclose(k.f);
	return ret;
usage:
	usage(stderr);
	return EWCTL_USAGE;
}
