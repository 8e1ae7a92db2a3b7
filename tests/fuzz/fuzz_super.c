// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_super.c - the superblock (both slots, ew_meta_sb_pick()) and the
 * member label (ew_meta_label_decode()/_check()) as read from disk.
 * Input: a byte of flags, then the blocks (slot 0, slot 1, a label),
 * 4 KiB each, zero-filled when short.  Flag bits 0-2 reseal the crc of
 * each block, so that the fuzzer reaches the checks behind the crc.  A
 * superblock accepted must build its geometry or be refused with a
 * reason, fit the metadata size it computes, and encode back into a
 * block that decodes to the same superblock.
 */
#include "fuzz_util.h"

#define BS EW_META_BLOCK_SIZE

static void check_label(const struct ew_meta_sb *sb, const u8 *blk, u32 member)
{
	struct ew_meta_label l;
	const char *why = NULL;

	if (ew_meta_label_decode(blk, &l, &why))
		FUZZ_CHECK(why);
	why = NULL;
	if (ew_meta_label_check(sb, blk, member, &why))
		FUZZ_CHECK(why);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static u8 blk[3][BS], enc[BS];
	static struct fuzz_array arr[FUZZ_NR_LINES];
	static int ready;
	struct ew_meta_sb sb, back;
	struct ew_geom g;
	const char *why = NULL;
	unsigned int flags, i;
	u32 slot = 9;
	int ret;

	if (!ready) {
		for (i = 0; i < FUZZ_NR_LINES; i++)
			fuzz_array_init(&arr[i], i);
		ready = 1;
	}
	if (size > 1 + 3 * BS)
		return -1;
	flags = (unsigned int)fuzz_take(&data, &size, 1);
	memset(blk, 0, sizeof(blk));
	memcpy(blk, data, size);
	for (i = 0; i < 3; i++)
		if (flags & (1U << i))
			fuzz_reseal(blk[i]);

	/* a label against a known array, as every member is at assembly */
	check_label(&arr[flags >> 6].sb, blk[2], (flags >> 3) & 7);

	ret = ew_meta_sb_pick(blk[0], blk[1], &sb, &slot, &why);
	if (ret) {
		FUZZ_CHECK(ret == -ENODATA || (ret == -EINVAL && why));
		return 0;
	}
	FUZZ_CHECK(slot < 2);
	check_label(&sb, blk[2], (flags >> 3) & 7);
	why = NULL;
	if (ew_meta_sb_geom(&sb, &g, &why)) {
		FUZZ_CHECK(why);
		return 0;
	}
	why = NULL;
	if (ew_meta_sb_check_size(&sb, ew_meta_size_sectors(&g), &why))
		FUZZ_CHECK(why);
	/* what the target writes back decodes to what it read */
	why = NULL;
	ret = ew_meta_sb_decode(enc, ew_meta_sb_encode(&sb, enc), &back, &why);
	if (ret) {
		fprintf(stderr, "re-encoded superblock refused: %s\n", why);
		FUZZ_CHECK(0);
	}
	{
		static u8 enc2[BS];

		ew_meta_sb_encode(&back, enc2);
		FUZZ_CHECK(!memcmp(enc, enc2, BS));
	}
	/* and the next generations, as the target commits them */
	ew_meta_sb_set_flags(&back, back.flags & ~EW_META_SB_CLEAN);
	ew_meta_sb_commit_ckpt(&back, ew_meta_ckpt_next_area(&back),
			       ew_meta_ckpt_next_seq(&back), back.journal_seq);
	FUZZ_CHECK(!ew_meta_sb_decode(enc, ew_meta_sb_encode(&back, enc),
				      &sb, &why));
	return 0;
}
