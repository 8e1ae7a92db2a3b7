// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_meta.c - the persistent metadata format (core/ew_meta.c): round
 * trips of every block type, every single-byte flip detected, torn
 * superblocks, journal replay (torn, stale, future and lost blocks,
 * idempotence), member labels, the map cross-check, the size function,
 * and a randomised crash model: a writer that logs, commits and
 * checkpoints like the target, cut at random, recovered and compared.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ew_meta.h"
#include "ew_test_util.h"

#define BS EW_META_BLOCK_SIZE
#define JS EW_META_JSLOT_SIZE	/* a journal slot: both copies */
#define NONE EW_MAP_NONE

static const u8 uuid_a[16] = { 0xa1, 0xa2, 0xa3, 0xa4, 5, 6, 7, 8,
			       9, 10, 11, 12, 13, 14, 15, 16 };
static const u8 uuid_b[16] = { 0xb1, 0xb2, 0xb3, 0xb4, 5, 6, 7, 8,
			       9, 10, 11, 12, 13, 14, 15, 16 };

/* An array: the table's words parsed, its geometry and superblock. */
struct fix {
	struct ew_table_args t;
	struct ew_geom g;
	struct ew_meta_sb sb;
};

static char *words_buf[64];

/* Parses "<layout> <#args> <args>... meta N d0..." from a string. */
static void parse(const char *line, struct ew_table_args *t)
{
	static char copy[512];
	const char *err = NULL;
	unsigned int argc = 0;
	char *p, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", line);
	for (p = strtok_r(copy, " ", &save); p; p = strtok_r(NULL, " ", &save))
		words_buf[argc++] = p;
	if (ew_table_parse(argc, words_buf, t, &err))
		fail_msg("parse '%s': %s", line, err);
}

/* Members of 8 MiB after the label offset; len 0 means the capacity. */
static void fix_init(struct fix *f, const char *line, u64 len_sectors)
{
	const char *why = NULL;
	u64 disk = 16384;

	parse(line, &f->t);
	if (!len_sectors) {
		struct ew_geom_params p;

		ew_table_geom_params(&f->t, disk, &p);
		len_sectors = ew_geom_capacity_blocks(&p) * p.block_sectors;
	}
	if (ew_table_geom(&f->t, disk, len_sectors, &f->g, &why))
		fail_msg("geom '%s': %s", line, why);
	assert_int_equal(ew_meta_sb_init(&f->sb, &f->t, &f->g, uuid_a, &why), 0);
}

#define EW4 "ew 4 mirrors 2 dilution 2 m 4 a b c d"
#define DDM4 "ddm 2 dilution 2 m 4 a b c d"
#define R10 "raid10 2 mirrors 2 m 4 a b c d"

/* Rewrites the crc of a block after a test edits it on purpose. */
static void reseal(void *blk)
{
	struct ew_meta_hdr *h = blk;
	u32 crc;

	h->crc = 0;
	crc = ew_crc32c(~0U, blk, BS);
	h->crc = cpu_to_le32(crc);
}

static void map_random(struct ew_map *m, const struct ew_geom *g, u64 seed)
{
	u64 s = seed, l;
	u32 r;

	for (l = 0; l < m->nr_blocks; l++) {
		for (r = 0; r < m->mirrors; r++)
			m->pblock[l * m->mirrors + r] = ew_test_below(&s, 4) ?
				(u32)ew_test_below(&s, g->region_blocks) : NONE;
		m->uptodate[l] = (u8)ew_test_below(&s, 1U << m->mirrors);
	}
}

static void assert_maps_equal(const struct ew_map *a, const struct ew_map *b)
{
	assert_int_equal(a->nr_blocks, b->nr_blocks);
	assert_memory_equal(a->pblock, b->pblock,
			    a->nr_blocks * a->mirrors * sizeof(u32));
	assert_memory_equal(a->uptodate, b->uptodate, a->nr_blocks);
}

/* --- superblock --- */

static void test_sb_round_trip(void **state)
{
	struct fix f;
	struct ew_meta_sb d;
	const char *why = NULL;
	u8 blk[BS];

	(void)state;
	fix_init(&f, EW4 " 0", 0);
	f.sb.sync = 1;
	assert_int_equal(ew_meta_sb_encode(&f.sb, blk), 0);	/* gen 1: slot 0 */
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), 0);
	assert_memory_equal(&d, &f.sb, sizeof(d));
	assert_int_equal(d.journal_seq, 1);
	assert_int_equal(d.ckpt_seq, 0);
	assert_int_equal(d.member_gen[3], 1);
	assert_int_equal(d.member_gen[4], 0);
	assert_int_equal(d.flags, EW_META_SB_CLEAN);	/* nothing written yet */
	/* the next generation goes to the other slot */
	ew_meta_sb_commit_ckpt(&f.sb, 0, 2, 17);
	assert_int_equal(ew_meta_sb_encode(&f.sb, blk), 1);
	assert_int_equal(ew_meta_sb_decode(blk, 1, &d, &why), 0);
	assert_int_equal(d.generation, 2);
	assert_int_equal(d.journal_seq, 17);
	assert_int_equal(d.ckpt_seq, 2);
	/* read back from the wrong slot: a misdirected write */
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock read from the wrong block (misdirected write)");
}

/* The CLEAN flag: a new generation, same checkpoint and journal. */
static void test_sb_flags(void **state)
{
	struct fix f;
	struct ew_meta_sb d;
	const char *why = NULL;
	u8 blk[BS];

	(void)state;
	fix_init(&f, EW4 " 0", 0);
	ew_meta_sb_commit_ckpt(&f.sb, 1, 2, 40);
	ew_meta_sb_set_flags(&f.sb, 0);		/* opened for writes */
	assert_int_equal(ew_meta_sb_encode(&f.sb, blk), 0);	/* gen 3 */
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), 0);
	assert_int_equal(d.generation, 3);
	assert_int_equal(d.flags, 0);
	assert_int_equal(d.ckpt_area, 1);
	assert_int_equal(d.ckpt_seq, 2);
	assert_int_equal(d.journal_seq, 40);
	ew_meta_sb_set_flags(&f.sb, EW_META_SB_CLEAN);	/* clean shutdown */
	assert_int_equal(ew_meta_sb_encode(&f.sb, blk), 1);
	assert_int_equal(ew_meta_sb_decode(blk, 1, &d, &why), 0);
	assert_int_equal(d.flags, EW_META_SB_CLEAN);
	/* the flags word is at byte 196; an unknown flag is refused */
	assert_int_equal(offsetof(struct ew_meta_sb_disk, flags), 196);
	f.sb.flags = EW_META_SB_FORMATTING;	/* known: format incomplete */
	ew_meta_sb_encode(&f.sb, blk);
	assert_int_equal(ew_meta_sb_decode(blk, 1, &d, &why), 0);
	assert_int_equal(d.flags, EW_META_SB_FORMATTING);
	f.sb.flags = 0x4;
	ew_meta_sb_encode(&f.sb, blk);
	assert_int_equal(ew_meta_sb_decode(blk, 1, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock has invalid geometry fields");
}

/*
 * Metadata copies (752..763): round trip; zeros (an array formatted
 * before them) read as one copy; a copy index past the count, a stale
 * bit for a copy there is not or for the copy written are refused.
 */
static void test_sb_meta_copies(void **state)
{
	struct fix f;
	struct ew_meta_sb d;
	const char *why = NULL;
	u8 blk[BS];

	(void)state;
	fix_init(&f, EW4 " 0", 0);
	assert_int_equal(f.sb.meta_copies, 0);
	ew_meta_sb_encode(&f.sb, blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), 0);
	assert_int_equal(d.meta_copies, 0);
	f.sb.meta_copies = 2;
	f.sb.meta_copy = 1;
	f.sb.meta_stale = 1;
	ew_meta_sb_encode(&f.sb, blk);
	assert_int_equal(le32_to_cpu(((struct ew_meta_sb_disk *)blk)->meta_stale),
			 1);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), 0);
	assert_memory_equal(&d, &f.sb, sizeof(d));
	f.sb.meta_stale = 2;		/* the copy written is not stale */
	ew_meta_sb_encode(&f.sb, blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock has invalid geometry fields");
	f.sb.meta_stale = 4;		/* no copy 2 */
	f.sb.meta_copy = 0;
	ew_meta_sb_encode(&f.sb, blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	f.sb.meta_stale = 0;
	f.sb.meta_copy = 2;		/* past the count */
	ew_meta_sb_encode(&f.sb, blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	f.sb.meta_copies = EW_META_MAX_COPIES + 1;
	f.sb.meta_copy = 0;
	ew_meta_sb_encode(&f.sb, blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
}

static void test_sb_every_byte_flip(void **state)
{
	struct fix f;
	struct ew_meta_sb d;
	const char *why;
	u8 blk[BS];
	unsigned int i, bit;

	(void)state;
	fix_init(&f, EW4 " 0", 0);
	ew_meta_sb_encode(&f.sb, blk);
	for (i = 0; i < BS; i++) {
		for (bit = 0; bit < 8; bit += 7) {
			why = NULL;
			blk[i] ^= 1 << bit;
			assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
			assert_non_null(why);
			blk[i] ^= 1 << bit;
		}
	}
	/* a flip past the header says checksum */
	blk[200] ^= 0xff;
	ew_meta_sb_decode(blk, 0, &d, &why);
	assert_string_equal(why, "bad checksum in superblock");
}

static void test_sb_torn_falls_back(void **state)
{
	struct fix f;
	struct ew_meta_sb d;
	const char *why = NULL;
	u8 s0[BS], s1[BS], zero[BS] = { 0 };
	u32 slot = 9;

	(void)state;
	fix_init(&f, EW4 " 0", 0);
	ew_meta_sb_encode(&f.sb, s0);			/* gen 1 */
	/* a fresh array: slot 1 still zeros */
	assert_int_equal(ew_meta_sb_pick(s0, zero, &d, &slot, &why), 0);
	assert_int_equal(slot, 0);
	assert_int_equal(d.generation, 1);
	ew_meta_sb_commit_ckpt(&f.sb, 0, 2, 5);
	ew_meta_sb_encode(&f.sb, s1);			/* gen 2 */
	assert_int_equal(ew_meta_sb_pick(s0, s1, &d, &slot, &why), 0);
	assert_int_equal(slot, 1);
	assert_int_equal(d.generation, 2);
	/* gen 2 torn: half of it old, half new */
	memset(s1 + 1024, 0x5a, 2048);
	assert_int_equal(ew_meta_sb_pick(s0, s1, &d, &slot, &why), 0);
	assert_int_equal(slot, 0);
	assert_int_equal(d.generation, 1);
	/* gen 3 (slot 0) torn with gen 2 valid in slot 1 */
	ew_meta_sb_encode(&f.sb, s1);
	ew_meta_sb_commit_ckpt(&f.sb, 1, 3, 9);
	ew_meta_sb_encode(&f.sb, s0);
	s0[3000] ^= 1;
	assert_int_equal(ew_meta_sb_pick(s0, s1, &d, &slot, &why), 0);
	assert_int_equal(d.generation, 2);
	assert_int_equal(d.journal_seq, 5);
	/*
	 * after the fallback, the lost gen 3 named checkpoint seq 3: skip
	 * it, so the next superblock (over the bad slot 0) and checkpoint
	 * carry seqs nothing on disk has
	 */
	ew_meta_sb_skip_lost(&d);
	assert_int_equal(ew_meta_sb_slot(d.generation), slot);
	assert_true(ew_meta_ckpt_next_seq(&d) > 3);
	ew_meta_sb_commit_ckpt(&d, ew_meta_ckpt_next_area(&d),
			       ew_meta_ckpt_next_seq(&d), 9);
	assert_int_equal(ew_meta_sb_slot(d.generation), 0);
	assert_int_equal(d.ckpt_seq, 5);
	/* both bad: refused with slot 0's reason */
	s1[100] ^= 1;
	assert_int_equal(ew_meta_sb_pick(s0, s1, &d, &slot, &why), -EINVAL);
	assert_string_equal(why, "bad checksum in superblock");
	/* block 0 all zeros: unformatted, unless slot 1 is still valid */
	assert_int_equal(ew_meta_sb_pick(zero, s1, &d, &slot, &why), -ENODATA);
	assert_int_equal(ew_meta_sb_pick(zero, zero, &d, &slot, &why), -ENODATA);
	s1[100] ^= 1;
	assert_int_equal(ew_meta_sb_pick(zero, s1, &d, &slot, &why), -EINVAL);
	assert_string_equal(why, "superblock slot 0 is zeros but slot 1 is valid: zero both to format");
	s1[100] ^= 1;
	/* not ours at all */
	memset(s0, 0x11, BS);
	memset(s1, 0x22, BS);
	assert_int_equal(ew_meta_sb_pick(s0, s1, &d, &slot, &why), -EINVAL);
	assert_string_equal(why, "no valid superblock in either slot");
}

static void test_sb_version(void **state)
{
	struct fix f;
	struct ew_meta_sb d;
	struct ew_meta_hdr *h;
	const char *why = NULL;
	u8 blk[BS];

	(void)state;
	fix_init(&f, EW4 " 0", 0);
	ew_meta_sb_encode(&f.sb, blk);
	h = (struct ew_meta_hdr *)blk;
	assert_int_equal(EW_META_VERSION, 2);
	h->version = cpu_to_le16(3);
	reseal(blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	assert_string_equal(why, "unsupported metadata version");
	/* v1 (one copy per journal block) is named */
	h->version = cpu_to_le16(1);
	reseal(blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	assert_true(!strncmp(why, "unsupported metadata version 1", 30));
	/* an inconsistent layout with a good checksum */
	ew_meta_sb_encode(&f.sb, blk);
	((struct ew_meta_sb_disk *)blk)->journal_slots = cpu_to_le64(3);
	reseal(blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock metadata layout is inconsistent");
}

static void expect_table(const struct ew_meta_sb *sb, const char *line,
			 u64 len_sectors, u64 disk, const char *msg)
{
	struct ew_table_args t;
	struct ew_geom g;
	const char *why = NULL;

	parse(line, &t);
	if (ew_table_geom(&t, disk, len_sectors, &g, &why))
		fail_msg("geom '%s': %s", line, why);
	if (!msg) {
		assert_int_equal(ew_meta_sb_check_table(sb, &t, &g, &why), 0);
		return;
	}
	assert_int_equal(ew_meta_sb_check_table(sb, &t, &g, &why), -EINVAL);
	assert_string_equal(why, msg);
}

static void test_sb_check_table(void **state)
{
	struct fix f;
	u64 len;

	(void)state;
	fix_init(&f, EW4 " 0", 8192);
	len = 8192;
	expect_table(&f.sb, EW4 " 0", len, 16384, NULL);
	/* sync and delay_queue do not change where data is */
	expect_table(&f.sb, "ew 8 mirrors 2 dilution 2 sync 2 delay_queue 5 m 4 a b c d 0",
		     len, 16384, NULL);
	/* larger members are fine */
	expect_table(&f.sb, EW4 " 0", len, 32768, NULL);
	expect_table(&f.sb, R10 " 0", len, 16384,
		     "metadata belongs to another layout");
	expect_table(&f.sb, "ew 4 mirrors 2 dilution 2 m 6 a b c d e f 0", len,
		     16384, "member count mismatch");
	expect_table(&f.sb, "ew 4 mirrors 4 dilution 2 m 4 a b c d 0", 8192,
		     16384, "metadata belongs to an array with another mirror count");
	expect_table(&f.sb, "ew 4 mirrors 2 dilution 1.5 m 4 a b c d 0", len,
		     16384, "metadata belongs to an array with another dilution");
	expect_table(&f.sb, "ew 6 mirrors 2 dilution 2 chunk_sectors 64 m 4 a b c d 0",
		     len, 16384,
		     "metadata belongs to an array with another chunk_sectors");
	expect_table(&f.sb, "ew 6 mirrors 2 dilution 2 block_size 8192 m 4 a b c d 0",
		     len, 16384,
		     "metadata belongs to an array with another block_size");
	expect_table(&f.sb, EW4 " 0", len - 8, 16384,
		     "metadata belongs to an array of another length");
	expect_table(&f.sb, EW4 " 0", len, 16000,
		     "data devices smaller than when the array was created");
}

static void test_size(void **state)
{
	struct fix f;
	const char *why = NULL;
	u64 c;

	(void)state;
	/* 448 logical blocks per checkpoint block at mirrors 2 */
	assert_int_equal(ew_meta_ckpt_per_block(2), 448);
	assert_int_equal(ew_meta_ckpt_per_block(8), 122);
	assert_int_equal(ew_meta_ckpt_per_block(1), 806);
	assert_int_equal(EW_META_JREC_PER_BLOCK, 252);
	/* small: 2 superblocks + the minimum journal + 2 checkpoints */
	assert_int_equal(ew_meta_size_blocks(448, 2), 2 + 1022 + 2);
	assert_int_equal(ew_meta_size_blocks(449, 2), 2 + 1022 + 4);
	/*
	 * large: the journal is one checkpoint long, up to its cap, in
	 * slots of two blocks (an odd length rounds up to a whole slot)
	 */
	c = DIV_ROUND_UP(20000000ULL, 448);
	assert_int_equal(c % 2, 1);
	assert_int_equal(ew_meta_size_blocks(20000000, 2), 2 + c + 1 + 2 * c);
	c = DIV_ROUND_UP(20000000ULL - 448, 448);
	assert_int_equal(c % 2, 0);
	assert_int_equal(ew_meta_size_blocks(20000000 - 448, 2), 2 + c + 2 * c);
	c = DIV_ROUND_UP(100000000ULL, 448);
	assert_int_equal(ew_meta_size_blocks(100000000, 2), 2 + 65536 + 2 * c);
	assert_int_equal(ew_meta_size_blocks(10, 0), 0);
	fix_init(&f, EW4 " 0", 0);
	assert_int_equal(ew_meta_size_sectors(&f.g), f.sb.total_blocks * 8);
	assert_int_equal(ew_meta_sb_check_size(&f.sb, f.sb.total_blocks * 8,
					       &why), 0);
	assert_int_equal(ew_meta_sb_check_size(&f.sb, f.sb.total_blocks * 8 - 1,
					       &why), -EINVAL);
	assert_string_equal(why, "metadata device too small");
	/* the reference array: 36 disks of 9 GB, ew 2x9x2 */
	print_message("meta: 20M blocks x 2 mirrors: %llu MiB\n",
		      (unsigned long long)ew_meta_size_blocks(20000000, 2) / 256);
}

/* --- checkpoint --- */

static void ckpt_write_all(const struct ew_meta_sb *sb, const struct ew_map *m,
			   u32 area, u64 seq, u8 *dev)
{
	u64 i, bn;

	for (i = 0; i < sb->ckpt_blocks; i++) {
		u8 blk[BS];

		bn = ew_meta_ckpt_encode(sb, m, area, seq, i, blk);
		assert_int_equal(bn, sb->ckpt_start[area] + i);
		memcpy(dev + bn * BS, blk, BS);
	}
}

static int ckpt_read_all(const struct ew_meta_sb *sb, struct ew_map *m,
			 const u8 *dev, const char **why)
{
	u64 i;

	if (!sb->ckpt_seq)
		return 0;
	for (i = 0; i < sb->ckpt_blocks; i++)
		if (ew_meta_ckpt_decode(sb, dev + (sb->ckpt_start[sb->ckpt_area] +
						   i) * BS, i, m, why))
			return -EINVAL;
	return 0;
}

static void test_ckpt_round_trip(void **state)
{
	const char *lines[] = { EW4 " 0", DDM4 " 0", R10 " 0",
		"ew 4 mirrors 4 dilution 1.5 m 4 a b c d 0" };
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		struct fix f;
		struct ew_map a, b;
		const char *why = NULL;
		u8 *dev;

		fix_init(&f, lines[i], 0);
		dev = calloc(f.sb.total_blocks, BS);
		assert_int_equal(ew_map_init(&a, f.g.len_blocks, f.g.p.mirrors), 0);
		assert_int_equal(ew_map_init(&b, f.g.len_blocks, f.g.p.mirrors), 0);
		map_random(&a, &f.g, i + 1);
		ckpt_write_all(&f.sb, &a, 1, 2, dev);
		ew_meta_sb_commit_ckpt(&f.sb, 1, 2, 1);
		assert_int_equal(ckpt_read_all(&f.sb, &b, dev, &why), 0);
		assert_maps_equal(&a, &b);
		ew_map_destroy(&a);
		ew_map_destroy(&b);
		free(dev);
	}
}

static void test_ckpt_every_byte_flip(void **state)
{
	struct fix f;
	struct ew_map a, b;
	const char *why;
	u8 blk[BS];
	unsigned int i;

	(void)state;
	fix_init(&f, EW4 " 0", 0);
	assert_int_equal(ew_map_init(&a, f.g.len_blocks, 2), 0);
	assert_int_equal(ew_map_init(&b, f.g.len_blocks, 2), 0);
	map_random(&a, &f.g, 7);
	ew_meta_ckpt_encode(&f.sb, &a, 0, 2, 1, blk);
	ew_meta_sb_commit_ckpt(&f.sb, 0, 2, 1);
	assert_int_equal(ew_meta_ckpt_decode(&f.sb, blk, 1, &b, &why), 0);
	assert_true(ew_meta_ckpt_block_ok(&f.sb, blk, 1));
	for (i = 0; i < BS; i++) {
		why = NULL;
		blk[i] ^= 0x10;
		assert_int_equal(ew_meta_ckpt_decode(&f.sb, blk, 1, &b, &why),
				 -EINVAL);
		assert_non_null(why);
		assert_false(ew_meta_ckpt_block_ok(&f.sb, blk, 1));
		blk[i] ^= 0x10;
	}
	/* the right block at the wrong place, or from an older checkpoint */
	assert_int_equal(ew_meta_ckpt_decode(&f.sb, blk, 0, &b, &why), -EINVAL);
	assert_string_equal(why, "checkpoint block is not part of the current checkpoint");
	assert_false(ew_meta_ckpt_block_ok(&f.sb, blk, 0));
	ew_meta_sb_commit_ckpt(&f.sb, 0, 3, 1);
	assert_int_equal(ew_meta_ckpt_decode(&f.sb, blk, 1, &b, &why), -EINVAL);
	assert_string_equal(why, "checkpoint block is not part of the current checkpoint");
	assert_false(ew_meta_ckpt_block_ok(&f.sb, blk, 1));
	ew_map_destroy(&a);
	ew_map_destroy(&b);
}

static void test_ckpt_entry_range(void **state)
{
	struct fix f;
	struct ew_map a;
	const char *why = NULL;
	u8 blk[BS];

	(void)state;
	fix_init(&f, EW4 " 0", 0);
	assert_int_equal(ew_map_init(&a, f.g.len_blocks, 2), 0);
	a.pblock[5] = (u32)f.g.region_blocks;
	ew_meta_ckpt_encode(&f.sb, &a, 0, 2, 0, blk);
	ew_meta_sb_commit_ckpt(&f.sb, 0, 2, 1);
	assert_int_equal(ew_meta_ckpt_decode(&f.sb, blk, 0, &a, &why), -EINVAL);
	assert_string_equal(why, "checkpoint entry outside the member's region");
	ew_map_destroy(&a);
}

/* --- journal --- */

/* A metadata device image and a map, for journal tests. */
struct jfix {
	struct fix f;
	u8 *dev;
	struct ew_map m;	/* the writer's map */
	struct ew_map r;	/* recovered */
	u64 seq;		/* next journal seq */
};

static void jfix_init(struct jfix *j, const char *line)
{
	fix_init(&j->f, line, 0);
	j->dev = calloc(j->f.sb.total_blocks, BS);
	assert_non_null(j->dev);
	assert_int_equal(ew_map_init(&j->m, j->f.g.len_blocks,
				     j->f.g.p.mirrors), 0);
	j->seq = j->f.sb.journal_seq;
	ew_meta_sb_encode(&j->f.sb, j->dev);	/* format: gen 1, slot 0 */
}

static void jfix_destroy(struct jfix *j)
{
	ew_map_destroy(&j->m);
	free(j->dev);
}

/* Copy c of journal block seq in the image. */
static u8 *jcopy(struct jfix *j, u64 seq, u32 c)
{
	return j->dev + (ew_meta_journal_blocknr(&j->f.sb, seq) + c) * BS;
}

/* The slot of journal block seq: both copies. */
static u8 *jblk(struct jfix *j, u64 seq)
{
	return jcopy(j, seq, 0);
}

/* Sets replica r of lblock to p, makes it current, and logs it. */
static void remap(struct ew_meta_jbuf *jb, struct ew_map *m, u64 l, u32 r,
		  u32 p)
{
	m->pblock[l * m->mirrors + r] = p;
	m->uptodate[l] |= 1U << r;
	assert_int_equal(ew_meta_jbuf_log_block(jb, m, l, 1U << r), 0);
}

static void commit(struct jfix *j, struct ew_meta_jbuf *jb)
{
	u64 bn = ew_meta_jbuf_seal(jb, &j->f.sb, j->seq);

	assert_int_equal(bn, ew_meta_journal_blocknr(&j->f.sb, j->seq));
	memcpy(j->dev + bn * BS, jb->blk, JS);
	j->seq++;
}

/* Recovers j->r from the image: checkpoint + journal; res may be NULL. */
static int recover_res(struct jfix *j, struct ew_meta_replay_res *res,
		       const char **why)
{
	struct ew_meta_sb *sb = &j->f.sb;

	ew_map_destroy(&j->r);
	assert_int_equal(ew_map_init(&j->r, sb->len_blocks, sb->mirrors), 0);
	if (ckpt_read_all(sb, &j->r, j->dev, why))
		return -EINVAL;
	return ew_meta_replay(sb, &j->f.g, &j->r,
			      j->dev + sb->journal_start * BS, res, why);
}

static int recover(struct jfix *j, u64 *end, const char **why)
{
	struct ew_meta_replay_res res;
	int ret = recover_res(j, &res, why);

	*end = res.end_seq;
	return ret;
}

static void test_journal_round_trip(void **state)
{
	struct jfix j = { 0 };
	struct ew_meta_jbuf jb;
	struct ew_meta_rec rec;
	const char *why = NULL;
	u8 buf[JS];
	u64 end;

	(void)state;
	jfix_init(&j, EW4 " 0");
	ew_meta_jbuf_init(&jb, buf);
	assert_true(ew_meta_jbuf_empty(&jb));
	remap(&jb, &j.m, 3, 0, 17);
	remap(&jb, &j.m, 3, 1, 40);
	remap(&jb, &j.m, 100, 1, 41);
	j.m.uptodate[100] = 0;
	assert_int_equal(ew_meta_jbuf_log_block(&jb, &j.m, 100, 0), 0);
	assert_int_equal(jb.nr, 4);
	commit(&j, &jb);
	ew_meta_jrec_get(buf, 1, &rec);
	assert_int_equal(rec.type, EW_JREC_REMAP);
	assert_int_equal(rec.replica, 1);
	assert_int_equal(rec.pblock, 40);
	assert_int_equal(rec.uptodate, 3);
	assert_int_equal(rec.lblock, 3);
	ew_meta_jrec_get(buf, 3, &rec);
	assert_int_equal(rec.type, EW_JREC_MASK);
	assert_int_equal(rec.uptodate, 0);
	ew_meta_jbuf_init(&jb, buf);
	remap(&jb, &j.m, 5, 0, NONE);
	j.m.uptodate[5] = 0;
	assert_int_equal(ew_meta_jbuf_log_block(&jb, &j.m, 5, 1), 0);
	commit(&j, &jb);
	assert_int_equal(recover(&j, &end, &why), 0);
	assert_int_equal(end, 3);
	assert_maps_equal(&j.m, &j.r);
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

static void test_journal_full_block(void **state)
{
	struct jfix j = { 0 };
	struct ew_meta_jbuf jb;
	u8 buf[JS];
	u32 i;

	(void)state;
	jfix_init(&j, EW4 " 0");
	ew_meta_jbuf_init(&jb, buf);
	for (i = 0; i < EW_META_JREC_PER_BLOCK - 1; i++)
		assert_int_equal(ew_meta_jbuf_log_discard(&jb, i, 1), 0);
	/* two records do not fit in one slot: nothing is added */
	assert_int_equal(ew_meta_jbuf_log_block(&jb, &j.m, 1, 3), -ENOSPC);
	assert_int_equal(jb.nr, EW_META_JREC_PER_BLOCK - 1);
	assert_int_equal(ew_meta_jbuf_log_block(&jb, &j.m, 1, 1), 0);
	assert_int_equal(ew_meta_jbuf_log_discard(&jb, 0, 1), -ENOSPC);
	assert_true(ew_meta_journal_full(&j.f.sb, j.f.sb.journal_seq +
					 j.f.sb.journal_slots));
	assert_false(ew_meta_journal_full(&j.f.sb, j.f.sb.journal_seq +
					  j.f.sb.journal_slots - 1));
	jfix_destroy(&j);
}

static void test_journal_every_byte_flip(void **state)
{
	struct jfix j = { 0 };
	struct ew_meta_jbuf jb;
	struct ew_meta_jslot_res js;
	const char *why;
	u8 buf[JS], *blk;
	unsigned int i, c;
	int ret;

	(void)state;
	jfix_init(&j, EW4 " 0");
	ew_meta_jbuf_init(&jb, buf);
	remap(&jb, &j.m, 1, 0, 5);
	remap(&jb, &j.m, 2, 1, 6);
	commit(&j, &jb);
	blk = jblk(&j, 1);
	assert_int_equal(ew_map_init(&j.r, j.f.g.len_blocks, 2), 0);
	/* the same byte in both copies: torn, the journal ends here */
	for (i = 0; i < BS; i++) {
		why = NULL;
		blk[i] ^= 0x04;
		blk[BS + i] ^= 0x04;
		ret = ew_meta_replay_block(&j.f.sb, &j.f.g, &j.r, 1, blk, &js,
					   &why);
		/* a torn block ends the journal; nothing of it is applied */
		assert_int_equal(ret, 0);
		blk[i] ^= 0x04;
		blk[BS + i] ^= 0x04;
	}
	assert_int_equal(ew_map_pblock(&j.r, 1, 0), NONE);
	/* which copies of the slot are valid (the load's scrub asks) */
	assert_int_equal(ew_meta_journal_valid(&j.f.sb, 1, blk), 3);
	assert_int_equal(ew_meta_journal_valid(&j.f.sb, 2, blk), 0);
	blk[100] ^= 1;
	assert_int_equal(ew_meta_journal_valid(&j.f.sb, 1, blk), 2);
	blk[BS + 100] ^= 1;
	assert_int_equal(ew_meta_journal_valid(&j.f.sb, 1, blk), 0);
	blk[100] ^= 1;
	assert_int_equal(ew_meta_journal_valid(&j.f.sb, 1, blk), 1);
	blk[BS + 100] ^= 1;
	assert_int_equal(ew_map_uptodate(&j.r, 2), 0);
	/* any byte of one copy: replayed from the other, the copy named */
	for (c = 0; c < EW_META_JOURNAL_COPIES; c++) {
		for (i = 0; i < BS; i += 7) {
			blk[c * BS + i] ^= 0x40;
			assert_int_equal(ew_meta_replay_block(&j.f.sb, &j.f.g,
							      &j.r, 1, blk, &js,
							      &why), 1);
			assert_int_equal(js.damaged, 1U << c);
			assert_int_equal(js.records, 2);
			blk[c * BS + i] ^= 0x40;
		}
	}
	assert_int_equal(ew_meta_replay_block(&j.f.sb, &j.f.g, &j.r, 1, blk,
					      &js, &why), 1);
	assert_int_equal(js.damaged, 0);
	assert_int_equal(ew_map_pblock(&j.r, 1, 0), 5);
	/* each copy names its own block: copies swapped are misdirected */
	memcpy(buf, blk, JS);
	memcpy(blk, buf + BS, BS);
	memcpy(blk + BS, buf, BS);
	assert_int_equal(ew_meta_replay_block(&j.f.sb, &j.f.g, &j.r, 1, blk,
					      &js, &why), -EINVAL);
	assert_string_equal(why, "journal block read from the wrong block (misdirected write)");
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

/* Writes n journal blocks of one remap each: lblock i -> pblock 100 + i. */
static void write_n(struct jfix *j, u32 n)
{
	struct ew_meta_jbuf jb;
	u8 buf[JS];
	u32 i;

	for (i = 0; i < n; i++) {
		ew_meta_jbuf_init(&jb, buf);
		remap(&jb, &j->m, j->seq, 0, (u32)(100 + j->seq));
		commit(j, &jb);
	}
}

/*
 * jfree (journal blocks in any free slot): commit j's open block into a
 * free slot chosen at random; slot_of[seq] keeps where each went.
 */
struct jfree {
	struct jfix j;
	u64 seed;
	u32 slot_of[512];
	u64 slot_seq[512];	/* what a slot holds (0: nothing) */
};

static u32 jfree_commit(struct jfree *x, struct ew_meta_jbuf *jb)
{
	struct ew_meta_sb *sb = &x->j.f.sb;
	u32 slot;
	u64 bn;

	do {
		slot = (u32)ew_test_below(&x->seed, sb->journal_slots);
	} while (x->slot_seq[slot] >= sb->journal_seq);
	bn = ew_meta_jslot_blocknr(sb, slot);
	assert_int_equal(ew_meta_jbuf_seal_at(jb, sb, x->j.seq, bn), bn);
	memcpy(x->j.dev + bn * BS, jb->blk, JS);
	x->slot_seq[slot] = x->j.seq;
	x->slot_of[x->j.seq % 512] = slot;
	return slot;
}

static void jfree_write_n(struct jfree *x, u32 n)
{
	struct ew_meta_jbuf jb;
	u8 buf[JS];
	u32 i;

	for (i = 0; i < n; i++) {
		ew_meta_jbuf_init(&jb, buf);
		remap(&jb, &x->j.m, x->j.seq % 64, i % 2,
		      (u32)(100 + x->j.seq));
		jfree_commit(x, &jb);
		x->j.seq++;
	}
}

static u8 *jfree_copy(struct jfree *x, u64 seq, u32 c)
{
	return x->j.dev + (ew_meta_jslot_blocknr(&x->j.f.sb,
						 x->slot_of[seq % 512]) + c) * BS;
}

/*
 * 60 blocks in random slots, then journal_seq moved past them as by a
 * checkpoint (their slots free again, and the writer's map cleared: a
 * replay that applied them would differ), then 40 more, some over the
 * first ones' slots.  The replay finds them in order; a block whose
 * copies are both lost in the middle refuses, at the end it is the torn
 * end; one copy lost is named at its real block; a block in two slots,
 * or from past the window (a newer superblock lost), refuses.  A ring
 * journal (every block at seq % slots) reads the same.
 */
static void test_jfree_replay(void **state)
{
	struct jfree *x = calloc(1, sizeof(*x));
	struct ew_meta_sb *sb;
	struct ew_meta_replay_res res;
	struct ew_meta_jbuf jb;
	const char *why = NULL;
	u8 buf[JS];
	u64 first, bn, end, *where;
	u32 c;

	(void)state;
	assert_non_null(x);
	jfix_init(&x->j, EW4 " 0");
	sb = &x->j.f.sb;
	sb->jfree = true;
	x->seed = 11;
	assert_true(sb->journal_slots <= 512);
	jfree_write_n(x, 60);
	sb->journal_seq = x->j.seq;
	first = x->j.seq;
	memset(x->j.m.pblock, 0xff, x->j.m.nr_blocks * x->j.m.mirrors * 4);
	memset(x->j.m.uptodate, 0, x->j.m.nr_blocks);
	jfree_write_n(x, 40);
	assert_int_equal(recover_res(&x->j, &res, &why), 0);
	assert_int_equal(res.end_seq, first + 40);
	assert_int_equal(res.nr_damaged, 0);
	assert_maps_equal(&x->j.m, &x->j.r);
	/* where each block was found, for a tool */
	where = calloc(sb->journal_slots, sizeof(*where));
	assert_non_null(where);
	assert_int_equal(ew_meta_replay_where(sb, &x->j.f.g, &x->j.r,
					      x->j.dev + sb->journal_start * BS,
					      where, 39, &res, &why), 0);
	for (c = 0; c < 40; c++)
		assert_int_equal(where[c], c < 39 ?
				 ew_meta_jslot_blocknr(sb, x->slot_of[(first + c) % 512]) : 0);
	free(where);
	/* one copy of block first + 7 lost: named at its slot */
	jfree_copy(x, first + 7, 1)[100] ^= 1;
	assert_int_equal(recover_res(&x->j, &res, &why), 0);
	assert_int_equal(res.nr_damaged, 1);
	assert_int_equal(res.damaged_seq[0], first + 7);
	assert_int_equal(res.damaged_copy[0], 1);
	assert_int_equal(res.damaged_bn[0],
			 ew_meta_jslot_blocknr(sb, x->slot_of[(first + 7) % 512]) + 1);
	assert_maps_equal(&x->j.m, &x->j.r);
	/* both: lost in the middle */
	jfree_copy(x, first + 7, 0)[100] ^= 1;
	assert_int_equal(recover_res(&x->j, &res, &why), -EINVAL);
	assert_string_equal(why, "journal block lost in the middle of the journal");
	assert_int_equal(res.end_seq, first + 7);
	assert_int_equal(res.end_bn, 0);
	jfree_copy(x, first + 7, 0)[100] ^= 1;
	jfree_copy(x, first + 7, 1)[100] ^= 1;
	/* the last one torn: the end, nothing named */
	for (c = 0; c < 2; c++)
		jfree_copy(x, first + 39, c)[200] ^= 1;
	assert_int_equal(recover_res(&x->j, &res, &why), 0);
	assert_int_equal(res.end_seq, first + 39);
	for (c = 0; c < 2; c++)
		jfree_copy(x, first + 39, c)[200] ^= 1;
	/* block first + 3 sealed again into a free slot: in two slots */
	ew_meta_jbuf_init(&jb, buf);
	memcpy(buf, jfree_copy(x, first + 3, 0), BS);
	jb.nr = le32_to_cpu(((struct ew_meta_hdr *)buf)->nr);
	for (c = 0; c < sb->journal_slots && x->slot_seq[c] >= first; c++)
		;
	assert_true(c < sb->journal_slots);
	bn = ew_meta_jslot_blocknr(sb, c);
	ew_meta_jbuf_seal_at(&jb, sb, first + 3, bn);
	memcpy(x->j.dev + bn * BS, buf, JS);
	assert_int_equal(recover_res(&x->j, &res, &why), -EINVAL);
	assert_string_equal(why, "journal block in two slots of the journal area");
	/* ... and as a block from past the window */
	ew_meta_jbuf_seal_at(&jb, sb, first + sb->journal_slots, bn);
	memcpy(x->j.dev + bn * BS, buf, JS);
	assert_int_equal(recover_res(&x->j, &res, &why), -EINVAL);
	assert_string_equal(why, "journal is newer than the superblock (a newer superblock was lost)");
	assert_int_equal(res.end_bn, bn);
	memset(x->j.dev + bn * BS, 0, JS);
	assert_int_equal(recover_res(&x->j, &res, &why), 0);
	assert_int_equal(res.end_seq, first + 40);
	ew_map_destroy(&x->j.r);
	jfix_destroy(&x->j);
	/* a ring's journal, read as jfree */
	memset(x, 0, sizeof(*x));
	jfix_init(&x->j, EW4 " 0");
	write_n(&x->j, 30);
	x->j.f.sb.jfree = true;
	assert_int_equal(recover(&x->j, &end, &why), 0);
	assert_int_equal(end, 31);
	assert_maps_equal(&x->j.m, &x->j.r);
	ew_map_destroy(&x->j.r);
	jfix_destroy(&x->j);
	free(x);
}

/*
 * jfree's scan: every byte of a live block flipped, in one copy, is
 * found damaged and replayed from the other; in both copies at the
 * journal's last block, the end.
 */
static void test_jfree_every_byte_flip(void **state)
{
	struct jfree *x = calloc(1, sizeof(*x));
	struct ew_meta_replay_res res;
	const char *why = NULL;
	u32 i, c;
	u8 *b;

	(void)state;
	assert_non_null(x);
	jfix_init(&x->j, EW4 " 0");
	x->j.f.sb.jfree = true;
	x->seed = 5;
	jfree_write_n(x, 8);
	for (c = 0; c < 2; c++) {
		b = jfree_copy(x, 5, c);
		for (i = 0; i < BS; i++) {
			b[i] ^= 0x80;
			assert_int_equal(recover_res(&x->j, &res, &why), 0);
			assert_int_equal(res.end_seq, 9);
			assert_int_equal(res.nr_damaged, 1);
			assert_int_equal(res.damaged_seq[0], 5);
			assert_int_equal(res.damaged_copy[0], c);
			b[i] ^= 0x80;
		}
	}
	assert_maps_equal(&x->j.m, &x->j.r);
	ew_map_destroy(&x->j.r);
	jfix_destroy(&x->j);
	free(x);
}

static void test_replay_stops_at_torn(void **state)
{
	struct jfix j = { 0 };
	const char *why = NULL;
	u64 end;

	(void)state;
	jfix_init(&j, EW4 " 0");
	write_n(&j, 10);
	/* block 8 of 10 torn (the last one written, 9, never reached disk) */
	memset(jblk(&j, 9), 0, JS);
	memset(jblk(&j, 10), 0, JS);
	memset(jblk(&j, 8) + 2048, 0xee, JS - 2048);
	assert_int_equal(recover(&j, &end, &why), 0);
	assert_int_equal(end, 8);
	/* everything before it applied, nothing after */
	assert_int_equal(ew_map_pblock(&j.r, 7, 0), 107);
	assert_int_equal(ew_map_pblock(&j.r, 8, 0), NONE);
	assert_int_equal(ew_map_uptodate(&j.r, 8), 0);
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

static void test_replay_stops_at_stale_lap(void **state)
{
	struct jfix j = { 0 };
	const char *why = NULL;
	u64 end, J;
	u32 i;

	(void)state;
	jfix_init(&j, EW4 " 0");
	J = j.f.sb.journal_slots;
	/* one lap and a bit, checkpointing at seq J (map as of J - 1) */
	write_n(&j, (u32)(J - 1));
	ckpt_write_all(&j.f.sb, &j.m, 0, 2, j.dev);
	ew_meta_sb_commit_ckpt(&j.f.sb, 0, 2, j.seq);
	for (i = 0; i < 5; i++) {
		struct ew_meta_jbuf jb;
		u8 buf[JS];

		ew_meta_jbuf_init(&jb, buf);
		remap(&jb, &j.m, i, 1, 900 + i);
		commit(&j, &jb);
	}
	/* the ring's next slot holds seq end - J: the previous lap */
	assert_int_equal(recover(&j, &end, &why), 0);
	assert_int_equal(end, J + 5);
	assert_maps_equal(&j.m, &j.r);
	assert_int_equal(ew_map_pblock(&j.r, 4, 1), 904);
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

static void test_replay_idempotent(void **state)
{
	struct jfix j = { 0 };
	struct ew_map once;
	struct ew_meta_jbuf jb;
	const char *why = NULL;
	struct ew_meta_replay_res res;
	u8 buf[JS];
	u64 end, s = 42;
	u32 i, k, home[2], freed[2];

	(void)state;
	jfix_init(&j, DDM4 " 0");
	/* mixed remaps, masks and discards, in several blocks */
	for (i = 0; i < 20; i++) {
		ew_meta_jbuf_init(&jb, buf);
		for (k = 0; k < 30; k++) {
			u64 l = ew_test_below(&s, j.m.nr_blocks);

			if (ew_test_below(&s, 10) == 0) {
				ew_meta_homes(&j.f.g, l, home);
				ew_map_discard(&j.m, l, home, freed);
				assert_int_equal(ew_meta_jbuf_log_discard(&jb, l, 1), 0);
			} else {
				remap(&jb, &j.m, l, (u32)ew_test_below(&s, 2),
				      (u32)ew_test_below(&s, j.f.g.region_blocks));
			}
		}
		commit(&j, &jb);
	}
	assert_int_equal(recover(&j, &end, &why), 0);
	assert_maps_equal(&j.m, &j.r);
	assert_int_equal(ew_map_init(&once, j.m.nr_blocks, 2), 0);
	memcpy(once.pblock, j.r.pblock, j.m.nr_blocks * 2 * sizeof(u32));
	memcpy(once.uptodate, j.r.uptodate, j.m.nr_blocks);
	/* replay again over the recovered map: nothing changes */
	assert_int_equal(ew_meta_replay(&j.f.sb, &j.f.g, &j.r,
					j.dev + j.f.sb.journal_start * BS,
					&res, &why), 0);
	assert_maps_equal(&once, &j.r);
	ew_map_destroy(&once);
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

static void test_replay_discard_to_homes(void **state)
{
	struct jfix j = { 0 };
	struct ew_meta_jbuf jb;
	const char *why = NULL;
	u8 buf[JS];
	u32 home[2];
	u64 end;

	(void)state;
	jfix_init(&j, DDM4 " 0");
	ew_meta_homes(&j.f.g, 9, home);
	assert_true(home[0] != NONE);
	assert_int_equal(home[1], NONE);
	ew_meta_jbuf_init(&jb, buf);
	remap(&jb, &j.m, 9, 0, 3000 % (u32)j.f.g.region_blocks);
	remap(&jb, &j.m, 9, 1, 11);
	assert_int_equal(ew_meta_jbuf_log_discard(&jb, 8, 3), 0);
	commit(&j, &jb);
	assert_int_equal(recover(&j, &end, &why), 0);
	assert_int_equal(ew_map_pblock(&j.r, 9, 0), home[0]);
	assert_int_equal(ew_map_pblock(&j.r, 9, 1), NONE);
	assert_int_equal(ew_map_uptodate(&j.r, 9), 0);
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

static void test_replay_future_and_hole(void **state)
{
	struct jfix j = { 0 };
	const char *why = NULL;
	u64 end;

	(void)state;
	jfix_init(&j, EW4 " 0");
	/* one lap and more: the old superblock's journal was overwritten */
	write_n(&j, (u32)j.f.sb.journal_slots + 3);
	assert_int_equal(recover(&j, &end, &why), -EINVAL);
	assert_string_equal(why, "journal is newer than the superblock (a newer superblock was lost)");
	/* a lost block in the middle: the next one is valid */
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
	memset(&j, 0, sizeof(j));
	jfix_init(&j, EW4 " 0");
	write_n(&j, 6);
	jcopy(&j, 3, 0)[77] ^= 1;
	jcopy(&j, 3, 1)[77] ^= 1;
	assert_int_equal(recover(&j, &end, &why), -EINVAL);
	assert_string_equal(why, "journal block lost in the middle of the journal");
	assert_int_equal(end, 3);
	/* the last block torn (both copies) is the normal end */
	jcopy(&j, 3, 0)[77] ^= 1;
	jcopy(&j, 3, 1)[77] ^= 1;
	jcopy(&j, 6, 0)[77] ^= 1;
	jcopy(&j, 6, 1)[77] ^= 1;
	assert_int_equal(recover(&j, &end, &why), 0);
	assert_int_equal(end, 6);
	/* a block from another array's journal ends it too */
	memcpy(j.f.sb.uuid, uuid_b, 16);
	assert_int_equal(recover(&j, &end, &why), 0);
	assert_int_equal(end, 1);
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

/*
 * The replay rule of the two copies: one damaged copy, at the end or in
 * the middle, is replayed from the other and named; both damaged at the
 * end is the torn end (nothing applied, nothing named).
 */
static void test_replay_one_copy_damaged(void **state)
{
	struct jfix j = { 0 };
	struct ew_meta_replay_res res;
	const char *why = NULL;
	u64 seq;
	u32 c;

	(void)state;
	jfix_init(&j, EW4 " 0");
	write_n(&j, 6);			/* seqs 1..6 */
	for (c = 0; c < EW_META_JOURNAL_COPIES; c++) {
		for (seq = 3; seq <= 6; seq += 3) {	/* middle, last */
			jcopy(&j, seq, c)[200] ^= 0x10;
			assert_int_equal(recover_res(&j, &res, &why), 0);
			assert_int_equal(res.end_seq, 7);
			assert_maps_equal(&j.m, &j.r);
			assert_int_equal(res.nr_damaged, 1);
			assert_int_equal(res.damaged_seq[0], seq);
			assert_int_equal(res.damaged_copy[0], c);
			jcopy(&j, seq, c)[200] ^= 0x10;
		}
	}
	/* one copy of each of two blocks: both named, all replayed */
	jcopy(&j, 2, 1)[4000] ^= 1;
	jcopy(&j, 5, 0)[64] ^= 1;
	assert_int_equal(recover_res(&j, &res, &why), 0);
	assert_int_equal(res.end_seq, 7);
	assert_int_equal(res.nr_damaged, 2);
	assert_int_equal(res.damaged_seq[1], 5);
	assert_maps_equal(&j.m, &j.r);
	jcopy(&j, 2, 1)[4000] ^= 1;
	jcopy(&j, 5, 0)[64] ^= 1;
	/* both copies of the last block: the torn end, seq 6 not applied */
	jcopy(&j, 6, 0)[300] ^= 1;
	jcopy(&j, 6, 1)[900] ^= 1;
	assert_int_equal(recover_res(&j, &res, &why), 0);
	assert_int_equal(res.end_seq, 6);
	assert_int_equal(res.nr_damaged, 0);
	assert_int_equal(ew_map_pblock(&j.r, 5, 0), 105);
	assert_int_equal(ew_map_pblock(&j.r, 6, 0), NONE);
	/* both copies of a middle block: lost, not torn */
	jcopy(&j, 6, 0)[300] ^= 1;
	jcopy(&j, 6, 1)[900] ^= 1;
	jcopy(&j, 4, 0)[300] ^= 1;
	jcopy(&j, 4, 1)[300] ^= 1;
	assert_int_equal(recover_res(&j, &res, &why), -EINVAL);
	assert_string_equal(why, "journal block lost in the middle of the journal");
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

/*
 * A copy holding the previous lap's block is "not this block" in either
 * position: beside a current copy it is damage replayed around, both
 * stale is the end of the journal.
 */
static void test_replay_stale_lap_copy(void **state)
{
	struct jfix j = { 0 };
	struct ew_meta_replay_res res;
	const char *why = NULL;
	u8 old[JS];
	u64 J;
	u32 c;

	(void)state;
	jfix_init(&j, EW4 " 0");
	J = j.f.sb.journal_slots;
	write_n(&j, 3);			/* seqs 1..3 */
	memcpy(old, jblk(&j, 3), JS);	/* the previous lap of slot 3 */
	write_n(&j, (u32)(J - 4));	/* up to seq J - 1 */
	ckpt_write_all(&j.f.sb, &j.m, 0, 2, j.dev);
	ew_meta_sb_commit_ckpt(&j.f.sb, 0, 2, j.seq);
	write_n(&j, 4);			/* seqs J .. J + 3: slot 3 is J + 3 */
	assert_int_equal(recover_res(&j, &res, &why), 0);
	assert_int_equal(res.end_seq, J + 4);
	assert_int_equal(res.nr_damaged, 0);
	for (c = 0; c < EW_META_JOURNAL_COPIES; c++) {
		u8 cur[BS];

		memcpy(cur, jcopy(&j, J + 3, c), BS);
		memcpy(jcopy(&j, J + 3, c), old + c * BS, BS);
		assert_int_equal(recover_res(&j, &res, &why), 0);
		assert_int_equal(res.end_seq, J + 4);
		assert_int_equal(res.nr_damaged, 1);
		assert_int_equal(res.damaged_seq[0], J + 3);
		assert_int_equal(res.damaged_copy[0], c);
		assert_maps_equal(&j.m, &j.r);
		memcpy(jcopy(&j, J + 3, c), cur, BS);
	}
	/* both copies of the last lap: the journal ends before J + 3 */
	memcpy(jblk(&j, J + 3), old, JS);
	assert_int_equal(recover_res(&j, &res, &why), 0);
	assert_int_equal(res.end_seq, J + 3);
	assert_int_equal(res.nr_damaged, 0);
	assert_int_equal(ew_map_pblock(&j.r, J + 2, 0), 100 + J + 2);
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

static void test_replay_bad_record(void **state)
{
	struct jfix j = { 0 };
	struct ew_meta_jbuf jb;
	struct ew_meta_rec rec = { .type = EW_JREC_REMAP, .replica = 1,
				   .pblock = 1, .uptodate = 2 };
	const char *why = NULL;
	u8 buf[JS];
	u64 end;

	(void)state;
	jfix_init(&j, EW4 " 0");
	ew_meta_jbuf_init(&jb, buf);
	remap(&jb, &j.m, 0, 0, 1);
	rec.lblock = j.m.nr_blocks;	/* past the end */
	assert_int_equal(ew_meta_jbuf_add(&jb, &rec), 0);
	commit(&j, &jb);
	assert_int_equal(recover(&j, &end, &why), -EINVAL);
	assert_string_equal(why, "bad record in journal block");
	/* nothing of the block was applied */
	assert_int_equal(ew_map_pblock(&j.r, 0, 0), NONE);
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

/* --- journal copies (journal_copy) --- */

#define EW4JC "ew 8 mirrors 2 dilution 2 sync 1 journal_copy 16 m 4 a b c d"

/*
 * The copy area comes after the checkpoints, so an array without it has
 * the layout it always had; JCOPY is set on disk only, where a module
 * that predates it refuses the superblock.
 */
static void test_jcopy_sb(void **state)
{
	struct fix f, plain;
	struct ew_meta_sb d;
	struct ew_meta_sb_disk *disk;
	const char *why = NULL;
	u8 blk[BS];

	(void)state;
	fix_init(&plain, EW4 " 0", 0);
	assert_int_equal(plain.sb.copy_slots, 0);
	assert_int_equal(plain.sb.copy_start, 0);
	ew_meta_sb_encode(&plain.sb, blk);
	disk = (struct ew_meta_sb_disk *)blk;
	assert_int_equal(le32_to_cpu(disk->flags), EW_META_SB_CLEAN);
	assert_true(le64_to_cpu(disk->copy_start) == 0);

	fix_init(&f, EW4JC " 0", 0);
	assert_int_equal(f.sb.copy_slots, 16);
	assert_int_equal(f.sb.copy_slot_blocks, 2);	/* header + 4 KiB */
	assert_true(f.sb.ckpt_start[1] == plain.sb.ckpt_start[1]);
	assert_true(f.sb.copy_start == plain.sb.total_blocks);
	assert_true(f.sb.total_blocks == plain.sb.total_blocks + 32);
	assert_int_equal(f.sb.flags, EW_META_SB_CLEAN);
	assert_true(ew_meta_table_size_sectors(&f.g, &f.t) ==
		    f.sb.total_blocks * 8);
	assert_true(ew_meta_table_size_sectors(&plain.g, &plain.t) ==
		    ew_meta_size_sectors(&plain.g));
	assert_int_equal(ew_meta_sb_check_size(&f.sb, f.sb.total_blocks * 8,
					       &why), 0);
	assert_int_equal(ew_meta_sb_check_size(&f.sb, plain.sb.total_blocks * 8,
					       &why), -EINVAL);
	assert_string_equal(why, "metadata device too small");

	ew_meta_sb_encode(&f.sb, blk);
	disk = (struct ew_meta_sb_disk *)blk;
	/* the flag an old module's mask (CLEAN | FORMATTING) refuses */
	assert_int_equal(le32_to_cpu(disk->flags),
			 EW_META_SB_CLEAN | EW_META_SB_JCOPY);
	assert_int_equal(le32_to_cpu(disk->flags) &
			 ~(EW_META_SB_CLEAN | EW_META_SB_FORMATTING),
			 EW_META_SB_JCOPY);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), 0);
	assert_memory_equal(&d, &f.sb, sizeof(d));
	/* set_flags keeps the copies: they are not a flag in memory */
	ew_meta_sb_set_flags(&f.sb, 0);
	ew_meta_sb_encode(&f.sb, blk);
	assert_int_equal(le32_to_cpu(disk->flags), EW_META_SB_JCOPY);
	assert_int_equal(ew_meta_sb_decode(blk, 1, &d, &why), 0);
	assert_int_equal(d.copy_slots, 16);
	assert_int_equal(d.flags, 0);

	/* slots without the flag, the flag without slots: refused */
	disk->flags = 0;
	reseal(blk);
	assert_int_equal(ew_meta_sb_decode(blk, 1, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock has invalid geometry fields");
	ew_meta_sb_encode(&plain.sb, blk);
	disk->flags = cpu_to_le32(EW_META_SB_CLEAN | EW_META_SB_JCOPY);
	reseal(blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock has invalid geometry fields");
	/* a copy area elsewhere than the layout puts it */
	ew_meta_sb_encode(&f.sb, blk);
	disk->copy_start = cpu_to_le64(f.sb.copy_start - 1);
	reseal(blk);
	assert_int_equal(ew_meta_sb_decode(blk, 1, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock metadata layout is inconsistent");
	ew_meta_sb_encode(&f.sb, blk);
	disk->copy_slots = cpu_to_le32(17);
	reseal(blk);
	assert_int_equal(ew_meta_sb_decode(blk, 1, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock metadata layout is inconsistent");
	ew_meta_sb_encode(&f.sb, blk);
	disk->copy_slot_blocks = cpu_to_le32(3);
	reseal(blk);
	assert_int_equal(ew_meta_sb_decode(blk, 1, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock metadata layout is inconsistent");
	/* every byte of a JCOPY superblock is covered by its crc */
	ew_meta_sb_encode(&f.sb, blk);
	disk->copy_slots ^= 1;
	assert_int_equal(ew_meta_sb_decode(blk, 1, &d, &why), -EINVAL);
	assert_string_equal(why, "bad checksum in superblock");
}

/* The table's journal_copy must match the area; leaving it out is fine. */
static void test_jcopy_check_table(void **state)
{
	struct fix f, plain;

	(void)state;
	fix_init(&f, EW4JC " 0", 8192);
	fix_init(&plain, EW4 " 0", 8192);
	expect_table(&f.sb, EW4JC " 0", 8192, 16384, NULL);
	/* no new copies; those in the journal are still restored */
	expect_table(&f.sb, "ew 6 mirrors 2 dilution 2 sync 1 m 4 a b c d 0",
		     8192, 16384, NULL);
	expect_table(&f.sb, EW4 " 0", 8192, 16384, NULL);
	expect_table(&f.sb,
		     "ew 8 mirrors 2 dilution 2 sync 1 journal_copy 8 m 4 a b c d 0",
		     8192, 16384,
		     "metadata has another number of journal_copy slots (fixed when the array is created)");
	expect_table(&plain.sb, EW4JC " 0", 8192, 16384,
		     "metadata has another number of journal_copy slots (fixed when the array is created)");
}

static void copy_data(u8 *data, u64 lblock, u64 seq)
{
	u32 i;

	for (i = 0; i < BS; i++)
		data[i] = (u8)(lblock * 31 + seq * 7 + i);
}

/* A copy slot's header names its block, journal seq and data crc. */
static void test_jcopy_slot(void **state)
{
	struct fix f, other;
	const char *why = NULL;
	u8 hdr[BS], data[BS], bad[BS];
	u64 bn;
	u32 i;

	(void)state;
	fix_init(&f, EW4JC " 0", 0);
	copy_data(data, 9, 40);
	bn = ew_meta_copy_encode(&f.sb, 3, 9, 40, data, hdr);
	assert_true(bn == f.sb.copy_start + 3 * 2);
	assert_true(ew_meta_copy_blocknr(&f.sb, 15) + 2 == f.sb.total_blocks);
	assert_int_equal(ew_meta_copy_check(&f.sb, 3, 9, 40, hdr, data, &why),
			 0);
	/* another generation (an older COPY of the slot): never restored */
	assert_int_equal(ew_meta_copy_check(&f.sb, 3, 9, 41, hdr, data, &why),
			 -EINVAL);
	assert_string_equal(why, "copy slot header is not the copy the journal names");
	assert_int_equal(ew_meta_copy_check(&f.sb, 3, 10, 40, hdr, data, &why),
			 -EINVAL);
	assert_int_equal(ew_meta_copy_check(&f.sb, 4, 9, 40, hdr, data, &why),
			 -EINVAL);
	assert_int_equal(ew_meta_copy_check(&f.sb, 16, 9, 40, hdr, data, &why),
			 -EINVAL);
	/*
	 * a copy carried by a checkpoint: written before the journal the
	 * superblock replays, named again by a COPY in it
	 */
	other = f;
	other.sb.journal_seq = 41;
	assert_int_equal(ew_meta_copy_check(&other.sb, 3, 9, 45, hdr, data,
					    &why), 0);
	other.sb.journal_seq = 40;
	assert_int_equal(ew_meta_copy_check(&other.sb, 3, 9, 45, hdr, data,
					    &why), -EINVAL);
	/* another array's slot */
	other = f;
	other.sb.uuid[0] ^= 1;
	assert_int_equal(ew_meta_copy_check(&other.sb, 3, 9, 40, hdr, data,
					    &why), -EINVAL);
	assert_string_equal(why, "copy slot header is not the copy the journal names");
	/* every byte of the header and of the data is checked */
	for (i = 0; i < BS; i++) {
		memcpy(bad, hdr, BS);
		bad[i] ^= 0x10;
		assert_int_equal(ew_meta_copy_check(&f.sb, 3, 9, 40, bad, data,
						    &why), -EINVAL);
		memcpy(bad, data, BS);
		bad[i] ^= 0x10;
		assert_int_equal(ew_meta_copy_check(&f.sb, 3, 9, 40, hdr, bad,
						    &why), -EINVAL);
		assert_string_equal(why, "copy slot data does not match its checksum");
	}
}

static int recover_copies(struct jfix *j, struct ew_meta_copies *c,
			  const char **why)
{
	struct ew_meta_sb *sb = &j->f.sb;
	struct ew_meta_replay_res res;
	u32 s;

	for (s = 0; s < c->nr; s++)
		c->lblock[s] = EW_META_COPY_NONE;
	ew_map_destroy(&j->r);
	assert_int_equal(ew_map_init(&j->r, sb->len_blocks, sb->mirrors), 0);
	if (ckpt_read_all(sb, &j->r, j->dev, why))
		return -EINVAL;
	return ew_meta_replay_copies(sb, &j->f.g, &j->r,
				     j->dev + sb->journal_start * BS, c, &res,
				     why);
}

/* COPY, UNCOPY and DISCARD records over the live copy slots. */
static void test_jcopy_replay(void **state)
{
	struct jfix j = { 0 };
	struct ew_meta_jbuf jb;
	struct ew_meta_rec rec;
	u64 lb[16], sq[16];
	struct ew_meta_copies c = { 16, lb, sq };
	const char *why = NULL;
	u8 buf[JS];

	(void)state;
	jfix_init(&j, EW4JC " 0");
	/* seq 1: block 3 written with one replica, its copy in slot 0 */
	ew_meta_jbuf_init(&jb, buf);
	remap(&jb, &j.m, 3, 0, 17);
	assert_int_equal(ew_meta_jbuf_log_copy(&jb, 3, 0, true), 0);
	remap(&jb, &j.m, 4, 1, 18);
	assert_int_equal(ew_meta_jbuf_log_copy(&jb, 4, 1, true), 0);
	remap(&jb, &j.m, 5, 1, 19);
	assert_int_equal(ew_meta_jbuf_log_copy(&jb, 5, 2, true), 0);
	ew_meta_jrec_get(buf, 1, &rec);
	assert_int_equal(rec.type, EW_JREC_COPY);
	assert_int_equal(rec.slot, 0);
	assert_int_equal(rec.lblock, 3);
	assert_int_equal(rec.pblock, 0);
	commit(&j, &jb);
	assert_int_equal(recover_copies(&j, &c, &why), 0);
	assert_maps_equal(&j.m, &j.r);
	assert_true(lb[0] == 3 && sq[0] == 1);
	assert_true(lb[1] == 4 && lb[2] == 5);
	assert_true(lb[3] == EW_META_COPY_NONE);
	/*
	 * seq 2: block 3's delayed replica landed (slot 0 released); block
	 * 4 overwritten with a new copy in slot 5 (slot 1 released); block
	 * 5 discarded (its slot with it); an UNCOPY naming another block
	 * leaves the slot alone
	 */
	ew_meta_jbuf_init(&jb, buf);
	remap(&jb, &j.m, 3, 1, 20);
	assert_int_equal(ew_meta_jbuf_log_copy(&jb, 3, 0, false), 0);
	remap(&jb, &j.m, 4, 0, 21);
	assert_int_equal(ew_meta_jbuf_log_copy(&jb, 4, 5, true), 0);
	assert_int_equal(ew_meta_jbuf_log_copy(&jb, 4, 1, false), 0);
	assert_int_equal(ew_meta_jbuf_log_copy(&jb, 7, 5, false), 0);
	assert_int_equal(ew_meta_jbuf_log_discard(&jb, 5, 1), 0);
	commit(&j, &jb);
	assert_int_equal(recover_copies(&j, &c, &why), 0);
	assert_true(lb[0] == EW_META_COPY_NONE);
	assert_true(lb[1] == EW_META_COPY_NONE);
	assert_true(lb[2] == EW_META_COPY_NONE);
	assert_true(lb[5] == 4 && sq[5] == 2);
	/* the plain replay ignores copies and gives the same map */
	{
		struct ew_map once;
		u64 end;

		assert_int_equal(ew_map_init(&once, j.m.nr_blocks, 2), 0);
		memcpy(once.pblock, j.r.pblock, j.m.nr_blocks * 2 * sizeof(u32));
		memcpy(once.uptodate, j.r.uptodate, j.m.nr_blocks);
		assert_int_equal(recover(&j, &end, &why), 0);
		assert_int_equal(end, 3);
		assert_maps_equal(&once, &j.r);
		ew_map_destroy(&once);
	}
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
}

/* A COPY record outside the slots, or in an array without them: corrupt. */
static void test_jcopy_bad_record(void **state)
{
	static const char *const lines[] = { EW4 " 0", EW4JC " 0" };
	struct ew_meta_rec rec = { .type = EW_JREC_COPY, .lblock = 1 };
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		struct jfix j = { 0 };
		struct ew_meta_jbuf jb;
		const char *why = NULL;
		u8 buf[JS];
		u64 end;

		jfix_init(&j, lines[i]);
		ew_meta_jbuf_init(&jb, buf);
		remap(&jb, &j.m, 0, 0, 1);
		rec.slot = j.f.sb.copy_slots;	/* one past the last */
		assert_int_equal(ew_meta_jbuf_add(&jb, &rec), 0);
		commit(&j, &jb);
		assert_int_equal(recover(&j, &end, &why), -EINVAL);
		assert_string_equal(why, "bad record in journal block");
		assert_int_equal(ew_map_pblock(&j.r, 0, 0), NONE);
		ew_map_destroy(&j.r);
		jfix_destroy(&j);
	}
	/* a type past UNCOPY is not added */
	{
		struct ew_meta_jbuf jb;
		u8 buf[JS];

		ew_meta_jbuf_init(&jb, buf);
		rec.type = EW_JREC_UNCOPY + 1;
		assert_int_equal(ew_meta_jbuf_add(&jb, &rec), -EINVAL);
	}
}

/* --- member labels --- */

static void test_label(void **state)
{
	struct fix f, other;
	struct ew_meta_label l;
	const char *why = NULL;
	u8 blk[BS];
	unsigned int i;

	(void)state;
	fix_init(&f, EW4 " 0", 0);
	ew_meta_label_encode(&f.sb, 2, blk);
	assert_int_equal(ew_meta_label_decode(blk, &l, &why), 0);
	assert_int_equal(l.member, 2);
	assert_int_equal(l.nr_disks, 4);
	assert_int_equal(l.generation, 1);
	assert_int_equal(l.data_offset_sectors, EW_MEMBER_DATA_OFFSET_SECTORS);
	assert_memory_equal(l.uuid, uuid_a, 16);
	assert_int_equal(ew_meta_label_check(&f.sb, blk, 2, &why), 0);
	/* the members in another order */
	assert_int_equal(ew_meta_label_check(&f.sb, blk, 1, &why), -EINVAL);
	assert_string_equal(why, "member label names another position (members in another order?)");
	/* a member of another array */
	other = f;
	memcpy(other.sb.uuid, uuid_b, 16);
	assert_int_equal(ew_meta_label_check(&other.sb, blk, 2, &why), -EINVAL);
	assert_string_equal(why, "member belongs to another array");
	/* another member count, another geometry, a stale member */
	other = f;
	other.sb.nr_disks = 6;
	assert_int_equal(ew_meta_label_check(&other.sb, blk, 2, &why), -EINVAL);
	assert_string_equal(why, "member label: member count mismatch");
	other = f;
	other.sb.dilution_x100 = 150;
	assert_int_equal(ew_meta_label_check(&other.sb, blk, 2, &why), -EINVAL);
	assert_string_equal(why, "member label from another geometry");
	other = f;
	other.sb.member_gen[2] = 2;
	assert_int_equal(ew_meta_label_check(&other.sb, blk, 2, &why), -EINVAL);
	assert_string_equal(why, "member label generation mismatch (stale member)");
	/* every byte flip */
	for (i = 0; i < BS; i++) {
		why = NULL;
		blk[i] ^= 0x80;
		assert_int_equal(ew_meta_label_check(&f.sb, blk, 2, &why), -EINVAL);
		assert_non_null(why);
		blk[i] ^= 0x80;
	}
	memset(blk, 0, BS);
	assert_int_equal(ew_meta_label_check(&f.sb, blk, 2, &why), -EINVAL);
	assert_string_equal(why, "no eagerwrite member label");
}

/* --- the map cross-check --- */

static void test_map_check(void **state)
{
	struct fix f;
	struct ew_map m;
	struct ew_replica rep[2];
	const char *why = NULL;
	u64 l = 99;
	u32 r = 99, home[2];

	(void)state;
	fix_init(&f, EW4 " 0", 0);
	assert_int_equal(ew_map_init(&m, f.g.len_blocks, 2), 0);
	assert_int_equal(ew_meta_map_check(&f.g, &m, &l, &r, &why), 0);
	/* lblocks 0 and 4 share a disk for replica 0 (W = 2, chunk 16) */
	ew_geom_map(&f.g, 0, rep);
	m.pblock[0] = 7;
	m.uptodate[0] = 1;
	assert_int_equal(ew_meta_map_check(&f.g, &m, &l, &r, &why), 0);
	ew_geom_map(&f.g, 1, rep);
	m.pblock[2] = 7;	/* lblock 1, replica 0: same chunk, same disk */
	m.uptodate[1] = 1;
	assert_int_equal(ew_meta_map_check(&f.g, &m, &l, &r, &why), -EINVAL);
	assert_string_equal(why, "physical block referenced twice on one disk");
	assert_int_equal(l, 1);
	assert_int_equal(r, 0);
	m.pblock[2] = 8;
	m.pblock[3] = 7;	/* replica 1 is on another disk: fine */
	assert_int_equal(ew_meta_map_check(&f.g, &m, &l, &r, &why), 0);
	m.pblock[3] = NONE;
	m.uptodate[1] = 3;
	assert_int_equal(ew_meta_map_check(&f.g, &m, &l, &r, &why), -EINVAL);
	assert_string_equal(why, "up-to-date replica without a physical block");
	m.uptodate[1] = 1;
	m.pblock[3] = (u32)f.g.region_blocks;
	assert_int_equal(ew_meta_map_check(&f.g, &m, &l, &r, &why), -EINVAL);
	assert_string_equal(why, "map entry outside the member's region");
	ew_map_destroy(&m);

	/* ddm: a remapped replica may not sit on another block's home */
	fix_init(&f, DDM4 " 0", 0);
	assert_int_equal(ew_map_init(&m, f.g.len_blocks, 2), 0);
	ew_meta_homes(&f.g, 0, home);
	m.pblock[0] = home[0];
	m.uptodate[0] = 1;
	assert_int_equal(ew_meta_map_check(&f.g, &m, &l, &r, &why), 0);
	m.pblock[0] = home[0] + 1;	/* lblock 1's home */
	assert_int_equal(ew_meta_map_check(&f.g, &m, &l, &r, &why), -EINVAL);
	assert_string_equal(why, "map entry points at another block's home");
	ew_map_destroy(&m);
}

/*
 * ew_meta_map_check_used(): a bit for every block a replica maps, on its
 * disk, and no other (the constructor's free maps come from it); ddm's
 * replicas at home set their home's bit.
 */
static void map_used_one(const char *table, bool at_home)
{
	struct fix f;
	struct ew_map m;
	struct ew_replica rep[2];
	const char *why = NULL;
	u64 words, *used, *want, l = 99, next[4] = { 0 }, b;
	u32 r = 99, home[2], d, set = 0;

	fix_init(&f, table, 0);
	assert_int_equal(ew_map_init(&m, f.g.len_blocks, 2), 0);
	words = ew_meta_map_used_words(&f.g);
	assert_int_equal(words, (f.g.region_blocks + 63) / 64);
	used = calloc(words * f.g.p.nr_disks, sizeof(u64));
	want = calloc(words * f.g.p.nr_disks, sizeof(u64));
	assert_non_null(used);
	assert_non_null(want);
	for (l = 0; l < m.nr_blocks; l += 3) {
		ew_geom_map(&f.g, l, rep);
		ew_meta_homes(&f.g, l, home);
		for (r = 0; r < 2; r++) {
			d = rep[r].disk;
			if (at_home) {
				/* ddm: one replica has a home */
				if (home[r] == NONE)
					continue;
				b = home[r];
			} else {
				/* every other free block, to the region's end */
				b = next[d];
				while (b < f.g.region_blocks &&
				       ew_geom_is_home(&f.g, d, b))
					b++;
				if (b >= f.g.region_blocks)
					continue;
				next[d] = b + 2;
			}
			m.pblock[l * 2 + r] = (u32)b;
			m.uptodate[l] |= 1U << r;
			want[d * words + b / 64] |= 1ULL << (b % 64);
			set++;
		}
	}
	assert_true(set > 0);
	assert_int_equal(ew_meta_map_check_used(&f.g, &m, used, &l, &r, &why),
			 0);
	assert_memory_equal(used, want, words * f.g.p.nr_disks * sizeof(u64));
	/*
	 * a block twice (lblock 0's replica 0 again, by the next block
	 * whose replica 0 is on that disk): refused, as by
	 * ew_meta_map_check()
	 */
	ew_geom_map(&f.g, 0, rep);
	d = rep[0].disk;
	for (l = 3; l < m.nr_blocks; l += 3) {
		ew_geom_map(&f.g, l, rep);
		if (rep[0].disk == d)
			break;
	}
	assert_true(l < m.nr_blocks);
	b = l;
	m.pblock[b * 2] = m.pblock[0];
	memset(used, 0, words * f.g.p.nr_disks * sizeof(u64));
	assert_int_equal(ew_meta_map_check_used(&f.g, &m, used, &l, &r, &why),
			 -EINVAL);
	if (at_home) {	/* another block's home */
		assert_string_equal(why, "map entry points at another block's home");
	} else {
		assert_string_equal(why, "physical block referenced twice on one disk");
	}
	assert_int_equal(l, b);
	assert_int_equal(r, 0);
	free(used);
	free(want);
	ew_map_destroy(&m);
}

static void test_map_check_used(void **state)
{
	(void)state;
	map_used_one(EW4 " 0", false);
	map_used_one(DDM4 " 0", true);
	map_used_one(DDM4 " 0", false);
}

/* --- the crash model --- */

/*
 * A writer that behaves like the target: every write remaps its
 * foreground replicas (ew_map_commit_write) and logs the block; a commit
 * seals and writes the journal block; a checkpoint now and then (fuzzy:
 * the map keeps changing while its blocks are written, the superblock
 * names it only when all are written).  The model keeps the map as of
 * every durable journal block; a crash at a random point must recover
 * exactly the last durable state.
 */
static u32 crash_round(const char *line, u64 seed)
{
	u32 ckpts = 0;
	struct jfix j = { 0 };
	struct ew_meta_jbuf jb;
	struct ew_map durable;
	const char *why = NULL;
	u8 buf[JS];
	u64 s = seed, end, ops, op, ck_idx = 0, ck_seq = 0, ck_journal = 0;
	u32 ck_area = 0, r;
	bool in_ckpt = false;
	u8 **used;

	jfix_init(&j, line);
	assert_int_equal(ew_map_init(&durable, j.m.nr_blocks, j.m.mirrors), 0);
	used = calloc(j.f.g.p.nr_disks, sizeof(*used));
	for (r = 0; r < j.f.g.p.nr_disks; r++)
		used[r] = calloc(j.f.g.region_blocks, 1);
	/* homes are never allocated */
	for (r = 0; r < j.f.g.p.nr_disks; r++) {
		u64 b;

		for (b = 0; b < j.f.g.region_blocks; b++)
			used[r][b] = ew_geom_is_home(&j.f.g, r, b);
	}
	ew_meta_jbuf_init(&jb, buf);
	ops = 200 + ew_test_below(&s, 3000);
	for (op = 0; op < ops; op++) {
		u64 l = ew_test_below(&s, j.m.nr_blocks);
		struct ew_replica rep[EW_MAX_MIRRORS];
		u32 home[EW_MAX_MIRRORS], newp[EW_MAX_MIRRORS];
		u32 freed[EW_MAX_MIRRORS], gen;
		u8 fg = 0;

		ew_geom_map(&j.f.g, l, rep);
		ew_meta_homes(&j.f.g, l, home);
		if (ew_test_below(&s, 20) == 0) {
			ew_map_discard(&j.m, l, home, freed);
			if (ew_meta_jbuf_log_discard(&jb, l, 1) == -ENOSPC) {
				commit(&j, &jb);
				ew_meta_jbuf_init(&jb, buf);
				assert_int_equal(ew_meta_jbuf_log_discard(&jb, l, 1), 0);
			}
		} else {
			gen = ew_map_begin_write(&j.m, l);
			for (r = 0; r < j.m.mirrors; r++) {
				u64 b = ew_test_below(&s, j.f.g.region_blocks);

				newp[r] = home[r];
				if (home[r] != NONE &&
				    (j.f.g.p.layout == EW_LAYOUT_RAID10 ||
				     ew_test_below(&s, 2)))
					continue;	/* in place */
				while (used[rep[r].disk][b])
					b = (b + 1) % j.f.g.region_blocks;
				used[rep[r].disk][b] = 1;
				newp[r] = (u32)b;
			}
			fg = (u8)(1 + ew_test_below(&s, (1U << j.m.mirrors) - 1));
			for (r = 0; r < j.m.mirrors; r++)
				if (!(fg & (1U << r)) && newp[r] != home[r])
					used[rep[r].disk][newp[r]] = 0;
			assert_true(ew_map_commit_write(&j.m, l, gen, fg, newp,
							home, freed) >= 0);
			if (ew_meta_jbuf_log_block(&jb, &j.m, l,
						   (1U << j.m.mirrors) - 1) == -ENOSPC) {
				commit(&j, &jb);
				ew_meta_jbuf_init(&jb, buf);
				assert_int_equal(ew_meta_jbuf_log_block(&jb, &j.m, l,
					(1U << j.m.mirrors) - 1), 0);
			}
		}
		/*
		 * Freed blocks go back at once here: the model only checks
		 * the map, and the images are not data.
		 */
		for (r = 0; r < j.m.mirrors; r++)
			if (freed[r] != NONE)
				used[rep[r].disk][freed[r]] = 0;
		/* a group commit now and then */
		if (ew_test_below(&s, 8) == 0 && !ew_meta_jbuf_empty(&jb)) {
			if (ew_meta_journal_full(&j.f.sb, j.seq))
				fail_msg("journal full: the model checkpoints too rarely");
			commit(&j, &jb);
			ew_meta_jbuf_init(&jb, buf);
			memcpy(durable.pblock, j.m.pblock,
			       j.m.nr_blocks * j.m.mirrors * sizeof(u32));
			memcpy(durable.uptodate, j.m.uptodate, j.m.nr_blocks);
		}
		/* a fuzzy checkpoint, one block per operation */
		if (!in_ckpt && ew_test_below(&s, 100) == 0 &&
		    ew_meta_jbuf_empty(&jb)) {
			in_ckpt = true;
			ck_idx = 0;
			ck_area = ew_meta_ckpt_next_area(&j.f.sb);
			ck_seq = ew_meta_ckpt_next_seq(&j.f.sb);
			ck_journal = j.seq;	/* first block not in it */
		}
		if (in_ckpt) {
			u8 cb[BS];
			u64 bn = ew_meta_ckpt_encode(&j.f.sb, &j.m, ck_area,
						     ck_seq, ck_idx, cb);

			memcpy(j.dev + bn * BS, cb, BS);
			if (++ck_idx == j.f.sb.ckpt_blocks) {
				/* the commit that ends a checkpoint */
				if (!ew_meta_jbuf_empty(&jb)) {
					commit(&j, &jb);
					ew_meta_jbuf_init(&jb, buf);
				}
				memcpy(durable.pblock, j.m.pblock,
				       j.m.nr_blocks * j.m.mirrors * sizeof(u32));
				memcpy(durable.uptodate, j.m.uptodate,
				       j.m.nr_blocks);
				ew_meta_sb_commit_ckpt(&j.f.sb, ck_area, ck_seq,
						       ck_journal);
				ew_meta_sb_encode(&j.f.sb, cb);
				memcpy(j.dev + ew_meta_sb_slot(j.f.sb.generation) * BS,
				       cb, BS);
				in_ckpt = false;
				ckpts++;
			}
		}
	}
	/* power cut: the open journal block never reached the disk */
	{
		struct ew_meta_sb sb;
		u32 slot;

		if (!ew_meta_block_is_zero(j.dev)) {
			assert_int_equal(ew_meta_sb_pick(j.dev, j.dev + BS, &sb,
							 &slot, &why), 0);
			assert_memory_equal(&sb, &j.f.sb, sizeof(sb));
		}
	}
	assert_int_equal(recover(&j, &end, &why), 0);
	assert_int_equal(end, j.seq);
	assert_maps_equal(&durable, &j.r);
	{
		u64 bl;
		u32 br;

		assert_int_equal(ew_meta_map_check(&j.f.g, &j.r, &bl, &br, &why), 0);
	}
	for (r = 0; r < j.f.g.p.nr_disks; r++)
		free(used[r]);
	free(used);
	ew_map_destroy(&durable);
	ew_map_destroy(&j.r);
	jfix_destroy(&j);
	return ckpts;
}

static void test_crash_model(void **state)
{
	u64 seed;
	u32 ckpts = 0;

	(void)state;
	for (seed = 1; seed <= 12; seed++) {
		ckpts += crash_round("ew 4 mirrors 2 dilution 2 m 4 a b c d 0", seed);
		ckpts += crash_round("ddm 2 dilution 2 m 4 a b c d 0", seed + 100);
		ckpts += crash_round("raid10 2 mirrors 2 m 4 a b c d 0", seed + 200);
		ckpts += crash_round("ew 4 mirrors 3 dilution 1.5 m 6 a b c d e f 0",
				     seed + 300);
	}
	/* the cuts fell before, during and after checkpoints */
	print_message("crash model: 48 cuts, %u checkpoints\n", ckpts);
	assert_true(ckpts > 20);
}

/*
 * Metadata on the members ("-"): the superblock says so (flag MEMBERS),
 * the data start after the image, and a table must agree on where the
 * metadata is.
 */
static void test_members_sb(void **state)
{
	struct fix f, plain;
	struct ew_meta_sb d;
	struct ew_meta_sb_disk *disk;
	const char *why = NULL;
	u32 h[EW_META_MAX_COPIES];
	unsigned int i, bit;
	u8 blk[BS];

	(void)state;
	fix_init(&f, "ew 4 mirrors 2 dilution 2 - 4 a b c d 0", 8192);
	fix_init(&plain, EW4 " 0", 8192);
	assert_true(f.sb.on_members);
	assert_false(plain.sb.on_members);
	assert_int_equal(plain.sb.data_offset_sectors, 2048);
	/* the label's MiB, then the image in whole MiB */
	assert_true(f.sb.data_offset_sectors >=
		    2048 + f.sb.total_blocks * EW_META_BLOCK_SECTORS);
	assert_int_equal(f.sb.data_offset_sectors % 2048, 0);
	assert_true(f.sb.data_offset_sectors <
		    4096 + f.sb.total_blocks * EW_META_BLOCK_SECTORS);
	assert_int_equal(f.sb.data_offset_sectors,
			 ew_meta_members_data_offset(f.sb.total_blocks *
						     EW_META_BLOCK_SECTORS));
	/* one copy per replica of the first column: members 0 and 2 */
	f.sb.meta_copies = 2;
	f.sb.meta_copy = 1;
	ew_meta_sb_encode(&f.sb, blk);
	disk = (struct ew_meta_sb_disk *)blk;
	assert_int_equal(le32_to_cpu(disk->flags) & EW_META_SB_MEMBERS,
			 EW_META_SB_MEMBERS);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), 0);
	assert_memory_equal(&d, &f.sb, sizeof(d));
	/* every single-bit flip of a holder's superblock (bits 0 and 7) */
	for (i = 0; i < BS; i++) {
		for (bit = 0; bit < 8; bit += 7) {
			why = NULL;
			blk[i] ^= 1 << bit;
			assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why),
					 -EINVAL);
			assert_non_null(why);
			blk[i] ^= 1 << bit;
		}
	}
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), 0);
	/* another copy count than the holders */
	f.sb.meta_copies = 3;
	ew_meta_sb_encode(&f.sb, blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock has invalid geometry fields");
	f.sb.meta_copies = 2;
	/* the data where the image is, or the flag lost */
	ew_meta_sb_encode(&f.sb, blk);
	disk->data_offset_sectors = cpu_to_le64(2048);
	reseal(blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	assert_string_equal(why, "superblock has invalid geometry fields");
	ew_meta_sb_encode(&f.sb, blk);
	disk->flags = cpu_to_le32(le32_to_cpu(disk->flags) &
				  ~EW_META_SB_MEMBERS);
	reseal(blk);
	assert_int_equal(ew_meta_sb_decode(blk, 0, &d, &why), -EINVAL);
	/* a table names the metadata where the array has it */
	expect_table(&f.sb, "ew 4 mirrors 2 dilution 2 - 4 a b c d 0", 8192,
		     16384, NULL);
	expect_table(&f.sb, EW4 " 0", 8192, 16384,
		     "the table and the array disagree on where the metadata is (a metadata device, or \"-\" for the members)");
	expect_table(&plain.sb, "ew 4 mirrors 2 dilution 2 - 4 a b c d 0",
		     8192, 16384,
		     "the table and the array disagree on where the metadata is (a metadata device, or \"-\" for the members)");
	/* on the members the copy slots set where the data start */
	fix_init(&f, "ew 8 mirrors 2 dilution 2 sync 1 journal_copy 4 - 4 a b c d 0",
		 8192);
	expect_table(&f.sb, "ew 6 mirrors 2 dilution 2 sync 1 - 4 a b c d 0",
		     8192, 16384,
		     "metadata has another number of journal_copy slots (fixed when the array is created)");
	/* the holders */
	assert_int_equal(ew_meta_members_holders(EW_LAYOUT_EW, 6, 3, h), 3);
	assert_int_equal(h[0], 0);
	assert_int_equal(h[1], 2);
	assert_int_equal(h[2], 4);
	assert_int_equal(ew_meta_members_holders(EW_LAYOUT_RAID10, 8, 2, h), 2);
	assert_int_equal(h[1], 4);
	assert_int_equal(ew_meta_members_holders(EW_LAYOUT_DDM, 8, 2, h), 2);
	assert_int_equal(h[0], 0);
	assert_int_equal(h[1], 1);
	assert_int_equal(ew_meta_members_holders(EW_LAYOUT_RAID10, 4, 1, h), 2);
	assert_int_equal(h[0], 0);
	assert_int_equal(h[1], 1);
	assert_int_equal(ew_meta_members_holders(EW_LAYOUT_EW, 5, 2, h), 0);
}

static void test_errors_listed(void **state)
{
	unsigned int i;

	(void)state;
	/* the on-disk structures have the documented sizes and offsets */
	assert_int_equal(sizeof(struct ew_meta_hdr), 64);
	assert_int_equal(sizeof(struct ew_meta_sb_disk), 768);
	assert_int_equal(offsetof(struct ew_meta_sb_disk, meta_copies), 752);
	assert_int_equal(offsetof(struct ew_meta_sb_disk, meta_copy), 756);
	assert_int_equal(offsetof(struct ew_meta_sb_disk, meta_stale), 760);
	assert_int_equal(offsetof(struct ew_meta_sb_disk, member_failed), 720);
	assert_int_equal(offsetof(struct ew_meta_sb_disk, copy_start), 736);
	assert_int_equal(offsetof(struct ew_meta_sb_disk, copy_slots), 744);
	assert_int_equal(offsetof(struct ew_meta_sb_disk, copy_slot_blocks),
			 748);
	assert_int_equal(offsetof(struct ew_meta_sb_disk, journal_seq), 200);
	assert_int_equal(offsetof(struct ew_meta_sb_disk, member_gen), 208);
	assert_int_equal(sizeof(struct ew_meta_label_disk), 120);
	assert_int_equal(sizeof(struct ew_meta_jrec_disk), 16);
	assert_int_equal(offsetof(struct ew_meta_hdr, uuid), 48);
	/* CRC-32C check value without the final inversion (as KUnit's) */
	assert_int_equal(ew_crc32c(~0U, "123456789", 9), 0x1cf96d7c);
	for (i = 0; ew_meta_error(i); i++)
		assert_true(strlen(ew_meta_error(i)) > 10);
	assert_true(i >= 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sb_round_trip),
		cmocka_unit_test(test_sb_flags),
		cmocka_unit_test(test_sb_meta_copies),
		cmocka_unit_test(test_members_sb),
		cmocka_unit_test(test_sb_every_byte_flip),
		cmocka_unit_test(test_sb_torn_falls_back),
		cmocka_unit_test(test_sb_version),
		cmocka_unit_test(test_sb_check_table),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_ckpt_round_trip),
		cmocka_unit_test(test_ckpt_every_byte_flip),
		cmocka_unit_test(test_ckpt_entry_range),
		cmocka_unit_test(test_journal_round_trip),
		cmocka_unit_test(test_journal_full_block),
		cmocka_unit_test(test_journal_every_byte_flip),
		cmocka_unit_test(test_replay_stops_at_torn),
		cmocka_unit_test(test_jfree_replay),
		cmocka_unit_test(test_jfree_every_byte_flip),
		cmocka_unit_test(test_replay_stops_at_stale_lap),
		cmocka_unit_test(test_replay_idempotent),
		cmocka_unit_test(test_replay_discard_to_homes),
		cmocka_unit_test(test_replay_future_and_hole),
		cmocka_unit_test(test_replay_one_copy_damaged),
		cmocka_unit_test(test_replay_stale_lap_copy),
		cmocka_unit_test(test_replay_bad_record),
		cmocka_unit_test(test_jcopy_sb),
		cmocka_unit_test(test_jcopy_check_table),
		cmocka_unit_test(test_jcopy_slot),
		cmocka_unit_test(test_jcopy_replay),
		cmocka_unit_test(test_jcopy_bad_record),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_map_check),
		cmocka_unit_test(test_map_check_used),
		cmocka_unit_test(test_crash_model),
		cmocka_unit_test(test_errors_listed),
	};

	return cmocka_run_group_tests_name("ew_meta", tests, NULL, NULL);
}
