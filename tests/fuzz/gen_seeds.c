// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_seeds.c - writes the seed corpus of the metadata fuzzers: valid
 * blocks made by the core's own encoders for the arrays the fuzzers
 * decode against (fuzz_util.h), in each fuzzer's input format, so that
 * fuzzing starts from what the target writes.  Usage: gen_seeds DIR
 * (makes DIR/fuzz_super, DIR/fuzz_ckpt, DIR/fuzz_journal).  The table
 * fuzzer's seeds come from the unit tests' lines (gen-table-seeds).
 */
#include <sys/stat.h>

#include "fuzz_util.h"

#define BS EW_META_BLOCK_SIZE
#define JS EW_META_JSLOT_SIZE

static const char *dir;

static void put(const char *target, const char *name, const u8 *head,
		size_t nhead, const u8 *body, size_t nbody)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(head, 1, nhead, f) != nhead ||
	    fwrite(body, 1, nbody, f) != nbody || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* A map with a few blocks written: replica r of lblock l at its home. */
static void map_some(const struct fuzz_array *a, struct ew_map *m)
{
	u32 home[EW_MAX_MIRRORS];
	u64 l;
	u32 r;

	for (l = 0; l < m->nr_blocks; l += 3) {
		ew_meta_homes(&a->g, l, home);
		for (r = 0; r < m->mirrors; r++)
			if (home[r] != EW_MAP_NONE)
				m->pblock[l * m->mirrors + r] = home[r];
		m->uptodate[l] = (u8)((1U << m->mirrors) - 1);
	}
}

int main(int argc, char **argv)
{
	static u8 blk[3 * BS], slot[2 * JS];
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	dir = argv[1];
	mkdir(dir, 0755);
	for (i = 0; i < FUZZ_NR_LINES; i++) {
		struct fuzz_array a;
		struct ew_meta_sb sb;
		struct ew_meta_jbuf jb;
		struct ew_map m;
		char name[64];
		u8 head[3];
		u64 idx, k;

		fuzz_array_init(&a, i);
		/* superblock: a new array (slot 0), then gen 2 in slot 1 */
		memset(blk, 0, sizeof(blk));
		sb = a.sb;
		ew_meta_sb_encode(&sb, blk);
		ew_meta_label_encode(&sb, 1, blk + 2 * BS);
		/* flags: reseal all three blocks, so that a mutation of a
		 * field is not only a crc error; the label is member 1's */
		head[0] = (u8)(i << 6 | 1 << 3 | 7);
		snprintf(name, sizeof(name), "sb-new-%u", i);
		put("fuzz_super", name, head, 1, blk, sizeof(blk));
		ew_meta_sb_set_flags(&sb, 0);
		ew_meta_sb_encode(&sb, blk + BS);
		snprintf(name, sizeof(name), "sb-gen2-%u", i);
		put("fuzz_super", name, head, 1, blk, sizeof(blk));

		/* checkpoint: the blocks fuzz_ckpt's superblock names */
		if (ew_map_init(&m, a.sb.len_blocks, a.sb.mirrors))
			return 1;
		map_some(&a, &m);
		sb = a.sb;
		ew_meta_sb_commit_ckpt(&sb, 1, ew_meta_ckpt_next_seq(&sb),
				       sb.journal_seq);
		for (idx = 0; idx < sb.ckpt_blocks && idx < 2; idx++) {
			head[0] = (u8)(i | 1 << 2 | 1 << 3);	/* area 1, reseal */
			head[1] = (u8)idx;
			head[2] = (u8)(idx >> 8);
			ew_meta_ckpt_encode(&sb, &m, 1, sb.ckpt_seq, idx, blk);
			snprintf(name, sizeof(name), "ckpt-%u-%llu", i,
				 (unsigned long long)idx);
			put("fuzz_ckpt", name, head, 3, blk, BS);
		}

		/* journal: two consecutive blocks of remaps and a discard */
		memset(slot, 0, sizeof(slot));
		for (k = 0; k < 2; k++) {
			ew_meta_jbuf_init(&jb, slot + k * JS);
			ew_meta_jbuf_log_block(&jb, &m, 3 * k, 1);
			ew_meta_jbuf_log_block(&jb, &m, 3 * k + 3,
					       (u8)((1U << m.mirrors) - 1));
			ew_meta_jbuf_log_block(&jb, &m, 1, 0);
			ew_meta_jbuf_log_discard(&jb, 6, 2);
			/* a copy of block 3k in slot k, then slot 0 freed */
			if (a.sb.copy_slots) {
				ew_meta_jbuf_log_copy(&jb, 3 * k, (u32)k, true);
				if (k)
					ew_meta_jbuf_log_copy(&jb, 0, 0, false);
			}
			ew_meta_jbuf_seal(&jb, &a.sb, a.sb.journal_seq + k);
		}
		head[0] = (u8)(i | 0xf << 2);	/* reseal every copy */
		head[1] = 0;
		snprintf(name, sizeof(name), "journal-%u", i);
		put("fuzz_journal", name, head, 2, slot, sizeof(slot));
		ew_map_destroy(&m);
	}
	return 0;
}
