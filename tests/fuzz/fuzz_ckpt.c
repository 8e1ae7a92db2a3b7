// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_ckpt.c - a checkpoint block as read from disk
 * (ew_meta_ckpt_decode()) into the map of a known array whose superblock
 * names a checkpoint.  Input: a byte of flags (bits 0-1 the array, bit 2
 * the area, bit 3 reseal the crc so that the fuzzer reaches the checks
 * behind it), two bytes of block index, then the 4 KiB block
 * (zero-filled when short).  A block refused must leave the map as it
 * was and say why; one accepted must load only blocks inside the region.
 */
#include "fuzz_util.h"

#define BS EW_META_BLOCK_SIZE

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct fuzz_array arr[FUZZ_NR_LINES];
	static struct ew_map map[FUZZ_NR_LINES], before;
	static u8 blk[BS];
	static int ready;
	struct fuzz_array *a;
	struct ew_map *m;
	struct ew_meta_sb sb;
	const char *why = NULL;
	unsigned int flags, i;
	u64 idx, lb;
	u32 rep;

	if (!ready) {
		for (i = 0; i < FUZZ_NR_LINES; i++) {
			fuzz_array_init(&arr[i], i);
			FUZZ_CHECK(!ew_map_init(&map[i], arr[i].sb.len_blocks,
						arr[i].sb.mirrors));
		}
		FUZZ_CHECK(!ew_map_init(&before, 1, 1));
		ready = 1;
	}
	if (size > 3 + BS)
		return -1;
	flags = (unsigned int)fuzz_take(&data, &size, 1);
	idx = fuzz_take(&data, &size, 2);
	a = &arr[flags & 3];
	m = &map[flags & 3];
	memset(blk, 0, BS);
	memcpy(blk, data, size);
	if (flags & 8)
		fuzz_reseal(blk);
	sb = a->sb;
	ew_meta_sb_commit_ckpt(&sb, (flags >> 2) & 1,
			       ew_meta_ckpt_next_seq(&sb), sb.journal_seq);

	/* an empty map, its copy to compare a refusal against */
	for (lb = 0; lb < m->nr_blocks; lb++) {
		m->uptodate[lb] = 0;
		for (rep = 0; rep < m->mirrors; rep++)
			m->pblock[lb * m->mirrors + rep] = EW_MAP_NONE;
	}
	if (ew_meta_ckpt_decode(&sb, blk, idx, m, &why)) {
		FUZZ_CHECK(why);
		for (lb = 0; lb < m->nr_blocks; lb++) {
			FUZZ_CHECK(!m->uptodate[lb]);
			for (rep = 0; rep < m->mirrors; rep++)
				FUZZ_CHECK(m->pblock[lb * m->mirrors + rep] ==
					   EW_MAP_NONE);
		}
		return 0;
	}
	FUZZ_CHECK(idx < sb.ckpt_blocks);
	for (lb = 0; lb < m->nr_blocks; lb++)
		for (rep = 0; rep < m->mirrors; rep++) {
			u32 p = m->pblock[lb * m->mirrors + rep];

			FUZZ_CHECK(p == EW_MAP_NONE || p < a->g.region_blocks);
		}
	/* the whole-map cross-check the checker runs on what was loaded */
	why = NULL;
	if (ew_meta_map_check(&a->g, m, &lb, &rep, &why))
		FUZZ_CHECK(why);
	return 0;
}
