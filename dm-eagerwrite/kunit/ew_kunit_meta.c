// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_kunit_meta.c - KUnit suite dm_eagerwrite_meta: the persistent
 * metadata format of core/ew_meta.c in the kernel build (the kernel's
 * crc32c, its le helpers): superblock round trip and every byte flip,
 * torn-superblock fallback, checkpoint round trip, journal replay up to a
 * torn block and its idempotence, the replay rule of the two copies of
 * a journal block, member label mismatches, the map check's bitmaps,
 * a journal in any free slots (JFREE) replayed in order.
 * The full matrix is in tests/unit/test_meta.c.
 */
#include <kunit/test.h>

#include "../core/ew_meta.h"

#define BS EW_META_BLOCK_SIZE

struct ew_meta_fix {
	struct ew_table_args t;
	struct ew_geom g;
	struct ew_meta_sb sb;
};

/* ew, 4 members of 8 MiB after the data offset, 2 mirrors, capacity. */
static void ew_meta_fix_init(struct kunit *test, struct ew_meta_fix *f)
{
	static const u8 uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
				     13, 14, 15, 16 };
	struct ew_geom_params p = {
		.layout = EW_LAYOUT_EW, .nr_disks = 4, .mirrors = 2,
		.dilution_x100 = 200, .block_sectors = 8, .chunk_sectors = 128,
		.disk_sectors = 16384,
	};
	const char *why = NULL;

	memset(f, 0, sizeof(*f));
	f->t.layout = EW_LAYOUT_EW;
	f->t.nr_disks = 4;
	f->t.mirrors = 2;
	f->t.dilution_x100 = 200;
	f->t.sync = 1;
	f->t.chunk_sectors = 128;
	f->t.block_size = 4096;
	f->t.delay_queue = 10000;
	KUNIT_ASSERT_EQ(test, ew_geom_init(&f->g, &p,
					   ew_geom_capacity_blocks(&p), &why), 0);
	KUNIT_ASSERT_EQ(test, ew_meta_sb_init(&f->sb, &f->t, &f->g, uuid,
					      &why), 0);
}

static void ew_meta_sb_flips(struct kunit *test)
{
	struct ew_meta_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct ew_meta_sb *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	u8 *s0 = kunit_kzalloc(test, BS, GFP_KERNEL);
	u8 *s1 = kunit_kzalloc(test, BS, GFP_KERNEL);
	const char *why = NULL;
	u32 slot, i;

	KUNIT_ASSERT_NOT_NULL(test, s1);
	ew_meta_fix_init(test, f);
	KUNIT_EXPECT_EQ(test, ew_meta_sb_encode(&f->sb, s0), 0ULL);
	KUNIT_EXPECT_EQ(test, ew_meta_sb_decode(s0, 0, d, &why), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d, &f->sb, sizeof(*d)), 0);
	for (i = 0; i < BS; i++) {
		s0[i] ^= 0x21;
		KUNIT_EXPECT_EQ(test, ew_meta_sb_decode(s0, 0, d, &why),
				-EINVAL);
		s0[i] ^= 0x21;
	}
	/* generation 2 in slot 1, torn: generation 1 is used */
	ew_meta_sb_commit_ckpt(&f->sb, 0, 2, 7);
	KUNIT_EXPECT_EQ(test, ew_meta_sb_encode(&f->sb, s1), 1ULL);
	KUNIT_EXPECT_EQ(test, ew_meta_sb_pick(s0, s1, d, &slot, &why), 0);
	KUNIT_EXPECT_EQ(test, d->generation, 2ULL);
	s1[2000] ^= 1;
	KUNIT_EXPECT_EQ(test, ew_meta_sb_pick(s0, s1, d, &slot, &why), 0);
	KUNIT_EXPECT_EQ(test, d->generation, 1ULL);
	KUNIT_EXPECT_EQ(test, slot, 0U);
	memset(s0, 0, BS);
	KUNIT_EXPECT_EQ(test, ew_meta_sb_pick(s0, s1, d, &slot, &why),
			-ENODATA);
	/* CLEAN cleared in a new generation, then set again */
	KUNIT_EXPECT_EQ(test, f->sb.flags, EW_META_SB_CLEAN);
	ew_meta_sb_set_flags(&f->sb, 0);
	KUNIT_EXPECT_EQ(test, ew_meta_sb_encode(&f->sb, s0), 0ULL);
	KUNIT_EXPECT_EQ(test, ew_meta_sb_decode(s0, 0, d, &why), 0);
	KUNIT_EXPECT_EQ(test, d->generation, 3ULL);
	KUNIT_EXPECT_EQ(test, d->flags, 0U);
	KUNIT_EXPECT_EQ(test, d->journal_seq, 7ULL);
	f->sb.flags = 0x80;	/* unknown: refused */
	ew_meta_sb_encode(&f->sb, s0);
	KUNIT_EXPECT_EQ(test, ew_meta_sb_decode(s0, 0, d, &why), -EINVAL);
}

static void ew_meta_ckpt_and_replay(struct kunit *test)
{
	struct ew_meta_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u8 *blk = kunit_kzalloc(test, EW_META_JSLOT_SIZE, GFP_KERNEL);
	struct ew_meta_replay_res res;
	u8 *jarea;
	struct ew_meta_jbuf jb;
	struct ew_map a, b;
	const char *why = NULL;
	u64 i;
	u32 once;

	KUNIT_ASSERT_NOT_NULL(test, blk);
	ew_meta_fix_init(test, f);
	jarea = ew_zalloc(f->sb.journal_slots * EW_META_JSLOT_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, jarea);
	KUNIT_ASSERT_EQ(test, ew_map_init(&a, f->g.len_blocks, 2), 0);
	KUNIT_ASSERT_EQ(test, ew_map_init(&b, f->g.len_blocks, 2), 0);
	for (i = 0; i < a.nr_blocks; i += 3) {
		a.pblock[i * 2] = (u32)(i % f->g.region_blocks);
		a.uptodate[i] = 1;
	}
	/* checkpoint: every block round-trips */
	ew_meta_sb_commit_ckpt(&f->sb, 1, 2, 1);
	for (i = 0; i < f->sb.ckpt_blocks; i++) {
		KUNIT_EXPECT_EQ(test, ew_meta_ckpt_encode(&f->sb, &a, 1, 2, i,
							  blk),
				f->sb.ckpt_start[1] + i);
		KUNIT_EXPECT_EQ(test, ew_meta_ckpt_decode(&f->sb, blk, i, &b,
							  &why), 0);
	}
	KUNIT_EXPECT_EQ(test, memcmp(a.pblock, b.pblock,
				     a.nr_blocks * 2 * sizeof(u32)), 0);
	blk[100] ^= 4;
	KUNIT_EXPECT_EQ(test, ew_meta_ckpt_decode(&f->sb, blk, i - 1, &b, &why),
			-EINVAL);

	/* journal: three blocks, the third torn */
	for (i = 1; i <= 3; i++) {
		u64 bn;

		ew_meta_jbuf_init(&jb, blk);
		a.pblock[i * 2 + 1] = (u32)(50 + i);
		a.uptodate[i] = 2;
		KUNIT_EXPECT_EQ(test, ew_meta_jbuf_log_block(&jb, &a, i, 2), 0);
		bn = ew_meta_jbuf_seal(&jb, &f->sb, i);
		memcpy(jarea + (bn - f->sb.journal_start) * BS, blk,
		       EW_META_JSLOT_SIZE);
	}
	/* torn: both copies */
	jarea[(ew_meta_journal_blocknr(&f->sb, 3) - f->sb.journal_start) * BS +
	      3000] ^= 0x40;
	jarea[(ew_meta_journal_blocknr(&f->sb, 3) - f->sb.journal_start) * BS +
	      BS + 10] ^= 0x40;
	KUNIT_EXPECT_EQ(test, ew_meta_replay(&f->sb, &f->g, &b, jarea, &res,
					     &why), 0);
	KUNIT_EXPECT_EQ(test, res.end_seq, 3ULL);
	KUNIT_EXPECT_EQ(test, res.nr_damaged, 0U);
	KUNIT_EXPECT_EQ(test, ew_map_pblock(&b, 2, 1), 52U);
	KUNIT_EXPECT_EQ(test, ew_map_pblock(&b, 3, 1), EW_MAP_NONE);
	once = ew_map_pblock(&b, 1, 1);
	/* idempotent */
	KUNIT_EXPECT_EQ(test, ew_meta_replay(&f->sb, &f->g, &b, jarea, &res,
					     &why), 0);
	KUNIT_EXPECT_EQ(test, ew_map_pblock(&b, 1, 1), once);
	KUNIT_EXPECT_EQ(test, ew_map_uptodate(&b, 2), 2);
	ew_map_destroy(&a);
	ew_map_destroy(&b);
	ew_free(jarea);
}

/*
 * The replay rule of the two copies of a journal block.  Blocks
 * J + 1 .. J + 3 are written (one remap each: lblock k -> 50 + k); then
 * the copies in mask of block J + at are damaged (a flipped byte) or
 * replaced by the previous lap's block (seq at, same slot).
 */
struct ew_meta_copy_case {
	const char *desc;
	u32 at;			/* block J + at */
	u32 copies;		/* bit c: copy c */
	bool stale;		/* previous lap instead of a flip */
	u32 end;		/* replay ends at J + end */
	u32 damaged;		/* copies reported */
};

static const struct ew_meta_copy_case ew_meta_copy_cases[] = {
	{ "copy 0 of the last block damaged", 3, 1, false, 4, 1 },
	{ "copy 1 of the last block damaged", 3, 2, false, 4, 1 },
	{ "copy 1 of a middle block damaged", 2, 2, false, 4, 1 },
	{ "copy 0 of a middle block damaged", 1, 1, false, 4, 1 },
	{ "both copies of the last block damaged: the end", 3, 3, false, 3, 0 },
	{ "copy 0 of the last block from the previous lap", 3, 1, true, 4, 1 },
	{ "copy 1 of the last block from the previous lap", 3, 2, true, 4, 1 },
	{ "both copies of the last block from the previous lap", 3, 3, true, 3, 0 },
};

static void ew_meta_copy_case_desc(const struct ew_meta_copy_case *c,
				   char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ew_meta_copy, ew_meta_copy_cases, ew_meta_copy_case_desc);

static void ew_meta_replay_journal_copies(struct kunit *test)
{
	const struct ew_meta_copy_case *c = test->param_value;
	struct ew_meta_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u8 *blk = kunit_kzalloc(test, EW_META_JSLOT_SIZE, GFP_KERNEL);
	struct ew_meta_replay_res res;
	struct ew_meta_jbuf jb;
	struct ew_map a, b;
	const char *why = NULL;
	u8 *jarea, *slot;
	u64 J, i, bn;
	u32 cp;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, blk);
	ew_meta_fix_init(test, f);
	J = f->sb.journal_slots;
	f->sb.journal_seq = J + 1;
	jarea = ew_zalloc(J * EW_META_JSLOT_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, jarea);
	KUNIT_ASSERT_EQ(test, ew_map_init(&a, f->g.len_blocks, 2), 0);
	KUNIT_ASSERT_EQ(test, ew_map_init(&b, f->g.len_blocks, 2), 0);
	for (i = 1; i <= 3; i++) {
		ew_meta_jbuf_init(&jb, blk);
		a.pblock[i * 2] = (u32)(50 + i);
		a.uptodate[i] = 1;
		KUNIT_EXPECT_EQ(test, ew_meta_jbuf_log_block(&jb, &a, i, 1), 0);
		bn = ew_meta_jbuf_seal(&jb, &f->sb, J + i);
		memcpy(jarea + (bn - f->sb.journal_start) * BS, blk,
		       EW_META_JSLOT_SIZE);
	}
	/* the previous lap of block J + at: seq at, same slot */
	ew_meta_jbuf_init(&jb, blk);
	KUNIT_EXPECT_EQ(test, ew_meta_jbuf_log_block(&jb, &a, 0, 1), 0);
	bn = ew_meta_jbuf_seal(&jb, &f->sb, c->at);
	KUNIT_EXPECT_EQ(test, bn, ew_meta_journal_blocknr(&f->sb, J + c->at));
	slot = jarea + (bn - f->sb.journal_start) * BS;
	for (cp = 0; cp < EW_META_JOURNAL_COPIES; cp++) {
		if (!(c->copies & (1U << cp)))
			continue;
		if (c->stale)
			memcpy(slot + cp * BS, blk + cp * BS, BS);
		else
			slot[cp * BS + 1000] ^= 0x08;
	}
	KUNIT_EXPECT_EQ(test, ew_meta_replay(&f->sb, &f->g, &b, jarea, &res,
					     &why), 0);
	KUNIT_EXPECT_EQ(test, res.end_seq, J + c->end);
	KUNIT_EXPECT_EQ(test, res.nr_damaged, c->damaged);
	if (c->damaged) {
		KUNIT_EXPECT_EQ(test, res.damaged_seq[0], J + c->at);
		KUNIT_EXPECT_EQ(test, 1U << res.damaged_copy[0], c->copies);
	}
	for (i = 1; i <= 3; i++)
		KUNIT_EXPECT_EQ(test, ew_map_pblock(&b, i, 0),
				i < c->end ? (u32)(50 + i) : EW_MAP_NONE);
	ew_map_destroy(&a);
	ew_map_destroy(&b);
	ew_free(jarea);
}

static void ew_meta_labels(struct kunit *test)
{
	struct ew_meta_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u8 *blk = kunit_kzalloc(test, BS, GFP_KERNEL);
	const char *why = NULL;

	KUNIT_ASSERT_NOT_NULL(test, blk);
	ew_meta_fix_init(test, f);
	ew_meta_label_encode(&f->sb, 2, blk);
	KUNIT_EXPECT_EQ(test, ew_meta_label_check(&f->sb, blk, 2, &why), 0);
	KUNIT_EXPECT_EQ(test, ew_meta_label_check(&f->sb, blk, 3, &why),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, why,
			   "member label names another position (members in another order?)");
	f->sb.uuid[0] ^= 1;
	KUNIT_EXPECT_EQ(test, ew_meta_label_check(&f->sb, blk, 2, &why),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "member belongs to another array");
	blk[64] ^= 1;
	KUNIT_EXPECT_EQ(test, ew_meta_label_check(&f->sb, blk, 2, &why),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "bad checksum in member label");
}

/*
 * The load's map check into bitmaps (ew_meta_map_check_used()): a bit
 * for every block a replica maps, on its disk, and no other; a block
 * mapped twice on one disk refused at the second block.
 */
static void ew_meta_map_used(struct kunit *test)
{
	struct ew_meta_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct ew_replica rep[2];
	const char *why = NULL;
	u64 words, *used, *want, l, twice = 0, next[4] = { 0 };
	u32 r, d, first_disk;
	struct ew_map m;

	KUNIT_ASSERT_NOT_NULL(test, f);
	ew_meta_fix_init(test, f);
	words = ew_meta_map_used_words(&f->g);
	used = kunit_kcalloc(test, words * 4, sizeof(u64), GFP_KERNEL);
	want = kunit_kcalloc(test, words * 4, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, used);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_EQ(test, ew_map_init(&m, f->g.len_blocks, 2), 0);
	for (l = 0; l < m.nr_blocks; l += 5) {
		ew_geom_map(&f->g, l, rep);
		for (r = 0; r < 2; r++) {
			d = rep[r].disk;
			if (next[d] >= f->g.region_blocks)
				continue;
			m.pblock[l * 2 + r] = (u32)next[d];
			m.uptodate[l] |= 1U << r;
			want[d * words + next[d] / 64] |= 1ULL << (next[d] % 64);
			next[d] += 3;
		}
	}
	KUNIT_EXPECT_EQ(test, ew_meta_map_check_used(&f->g, &m, used, &l, &r,
						     &why), 0);
	KUNIT_EXPECT_EQ(test, memcmp(used, want, words * 4 * sizeof(u64)), 0);
	/* lblock 0's replica 0 again, by the next block on its disk */
	ew_geom_map(&f->g, 0, rep);
	first_disk = rep[0].disk;
	for (l = 5; l < m.nr_blocks && !twice; l += 5) {
		ew_geom_map(&f->g, l, rep);
		if (rep[0].disk == first_disk)
			twice = l;
	}
	KUNIT_ASSERT_NE(test, twice, 0ULL);
	m.pblock[twice * 2] = m.pblock[0];
	memset(used, 0, words * 4 * sizeof(u64));
	KUNIT_EXPECT_EQ(test, ew_meta_map_check_used(&f->g, &m, used, &l, &r,
						     &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, l, twice);
	KUNIT_EXPECT_EQ(test, r, 0U);
	ew_map_destroy(&m);
}

/*
 * The metadata on the members ("-"): the flag round trip, the data after
 * the image, one copy per holder.
 */
static void ew_meta_members(struct kunit *test)
{
	static const u8 uuid[16] = { 16, 15, 14, 13 };
	struct ew_meta_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct ew_meta_sb *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	u8 *blk = kunit_kzalloc(test, BS, GFP_KERNEL);
	u32 h[EW_META_MAX_COPIES];
	const char *why = NULL;

	KUNIT_ASSERT_NOT_NULL(test, blk);
	ew_meta_fix_init(test, f);
	KUNIT_EXPECT_FALSE(test, f->sb.on_members);
	KUNIT_EXPECT_EQ(test, f->sb.data_offset_sectors, 2048ULL);
	f->t.metadata_dev = "-";
	KUNIT_ASSERT_EQ(test, ew_meta_sb_init(&f->sb, &f->t, &f->g, uuid,
					      &why), 0);
	KUNIT_EXPECT_TRUE(test, f->sb.on_members);
	KUNIT_EXPECT_TRUE(test, f->sb.jfree);
	KUNIT_EXPECT_EQ(test, f->sb.data_offset_sectors,
			ew_meta_members_data_offset(f->sb.total_blocks *
						    EW_META_BLOCK_SECTORS));
	KUNIT_EXPECT_GE(test, f->sb.data_offset_sectors,
			2048ULL + f->sb.total_blocks * EW_META_BLOCK_SECTORS);
	KUNIT_EXPECT_EQ(test, ew_meta_members_holders(EW_LAYOUT_EW, 4, 2, h),
			2U);
	KUNIT_EXPECT_EQ(test, h[0], 0U);
	KUNIT_EXPECT_EQ(test, h[1], 2U);
	f->sb.meta_copies = 2;
	ew_meta_sb_encode(&f->sb, blk);
	KUNIT_EXPECT_EQ(test, ew_meta_sb_decode(blk, 0, d, &why), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d, &f->sb, sizeof(*d)), 0);
	/* one copy where the holders are two */
	f->sb.meta_copies = 0;
	ew_meta_sb_encode(&f->sb, blk);
	KUNIT_EXPECT_EQ(test, ew_meta_sb_decode(blk, 0, d, &why), -EINVAL);
}

/*
 * JFREE: journal blocks 1..4 in the last slots of the area, in reverse
 * order (block k in slot J - k), are replayed in seq order; block 2's
 * copies both damaged is a block lost in the middle; block 4's, the
 * torn end; block 3 sealed again into slot 0 is a block in two slots.
 */
static void ew_meta_jfree_replay(struct kunit *test)
{
	struct ew_meta_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u8 *blk = kunit_kzalloc(test, EW_META_JSLOT_SIZE, GFP_KERNEL);
	struct ew_meta_replay_res res;
	struct ew_meta_jbuf jb;
	struct ew_map a, b;
	const char *why = NULL;
	u8 *jarea, *slot2;
	u64 i, bn;

	KUNIT_ASSERT_NOT_NULL(test, blk);
	ew_meta_fix_init(test, f);
	f->sb.jfree = true;
	jarea = ew_zalloc(f->sb.journal_slots * EW_META_JSLOT_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, jarea);
	KUNIT_ASSERT_EQ(test, ew_map_init(&a, f->g.len_blocks, 2), 0);
	KUNIT_ASSERT_EQ(test, ew_map_init(&b, f->g.len_blocks, 2), 0);
	for (i = 1; i <= 4; i++) {
		ew_meta_jbuf_init(&jb, blk);
		/* the same block each time: only the order gives 54 */
		a.pblock[1] = (u32)(50 + i);
		a.uptodate[0] = 2;
		KUNIT_EXPECT_EQ(test, ew_meta_jbuf_log_block(&jb, &a, 0, 2), 0);
		bn = ew_meta_jslot_blocknr(&f->sb, f->sb.journal_slots - i);
		KUNIT_EXPECT_EQ(test, ew_meta_jbuf_seal_at(&jb, &f->sb, i, bn),
				bn);
		memcpy(jarea + (bn - f->sb.journal_start) * BS, blk,
		       EW_META_JSLOT_SIZE);
	}
	KUNIT_EXPECT_EQ(test, ew_meta_replay(&f->sb, &f->g, &b, jarea, &res,
					     &why), 0);
	KUNIT_EXPECT_EQ(test, res.end_seq, 5ULL);
	KUNIT_EXPECT_EQ(test, ew_map_pblock(&b, 0, 1), 54U);
	slot2 = jarea + (f->sb.journal_slots - 2) * EW_META_JSLOT_SIZE;
	slot2[10] ^= 1;
	slot2[BS + 10] ^= 1;
	KUNIT_EXPECT_EQ(test, ew_meta_replay(&f->sb, &f->g, &b, jarea, &res,
					     &why), -EINVAL);
	KUNIT_EXPECT_EQ(test, res.end_seq, 2ULL);
	slot2[10] ^= 1;
	slot2[BS + 10] ^= 1;
	memset(jarea + (f->sb.journal_slots - 4) * EW_META_JSLOT_SIZE, 0,
	       EW_META_JSLOT_SIZE);
	KUNIT_EXPECT_EQ(test, ew_meta_replay(&f->sb, &f->g, &b, jarea, &res,
					     &why), 0);
	KUNIT_EXPECT_EQ(test, res.end_seq, 4ULL);
	memcpy(blk, jarea + (f->sb.journal_slots - 3) * EW_META_JSLOT_SIZE,
	       EW_META_JSLOT_SIZE);
	jb.blk = blk;
	jb.nr = 1;
	ew_meta_jbuf_seal_at(&jb, &f->sb, 3, f->sb.journal_start);
	memcpy(jarea, blk, EW_META_JSLOT_SIZE);
	KUNIT_EXPECT_EQ(test, ew_meta_replay(&f->sb, &f->g, &b, jarea, &res,
					     &why), -EINVAL);
	ew_map_destroy(&a);
	ew_map_destroy(&b);
	ew_free(jarea);
}

/*
 * The CRC-32C check value: "123456789" gives 0xe3069283 with the final
 * inversion, so 0x1cf96d7c without it.  The same value is asserted for
 * the userspace ew_crc32c() in tests/unit/test_meta.c: the module and
 * the tools compute the same checksums.
 */
static void ew_meta_crc_known_answer(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ew_crc32c(~0U, "123456789", 9), 0x1cf96d7cU);
}

static struct kunit_case ew_meta_cases[] = {
	KUNIT_CASE(ew_meta_crc_known_answer),
	KUNIT_CASE(ew_meta_sb_flips),
	KUNIT_CASE(ew_meta_ckpt_and_replay),
	KUNIT_CASE_PARAM(ew_meta_replay_journal_copies, ew_meta_copy_gen_params),
	KUNIT_CASE(ew_meta_labels),
	KUNIT_CASE(ew_meta_map_used),
	KUNIT_CASE(ew_meta_members),
	KUNIT_CASE(ew_meta_jfree_replay),
	{}
};

static struct kunit_suite ew_meta_suite = {
	.name = "dm_eagerwrite_meta",
	.test_cases = ew_meta_cases,
};

kunit_test_suite(ew_meta_suite);
