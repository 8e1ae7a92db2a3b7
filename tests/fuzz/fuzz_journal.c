// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_journal.c - journal blocks as recovery reads them: a slot of two
 * copies applied to the map of a known array (ew_meta_replay_block()),
 * the probe of a slot and the end-of-journal check on the next slot
 * (ew_meta_journal_end()).  Input: a byte of flags (bits 0-1 the array,
 * bits 2-5 reseal the crc of slot copy 0, copy 1, next copy 0, next
 * copy 1), a byte added to the superblock's journal seq, then the two
 * slots, 8 KiB each (zero-filled when short).  A slot refused must leave
 * the map as it was and say why, and name a copy at fault; one applied
 * must leave only blocks inside the region in the map.  The copy slots
 * (the array with journal_copy) are tracked as recovery tracks them
 * (ew_meta_replay_block_copies()): a refused block leaves them as they
 * were, an applied one leaves only logical blocks of the array in them.
 * The same slot is also scanned as JFREE's recovery scans the area
 * (ew_meta_jslot_seq()): a seq within the window, nothing, or a refusal
 * with a reason.
 */
#include "fuzz_util.h"

#define BS EW_META_BLOCK_SIZE
#define JS EW_META_JSLOT_SIZE

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct fuzz_array arr[FUZZ_NR_LINES];
	static struct ew_map map[FUZZ_NR_LINES];
	static u8 slot[2 * JS];
	static u64 cp_lblock[64], cp_seq[64];
	static int ready;
	struct ew_meta_copies cp = { 0, cp_lblock, cp_seq };
	struct ew_meta_jslot_res res;
	struct ew_meta_sb jsb;
	struct fuzz_array *a;
	struct ew_map *m;
	const char *why = NULL;
	unsigned int flags, i;
	u64 seq, lb, jseq;
	u32 rep;
	int ret;

	if (!ready) {
		for (i = 0; i < FUZZ_NR_LINES; i++) {
			fuzz_array_init(&arr[i], i);
			FUZZ_CHECK(!ew_map_init(&map[i], arr[i].sb.len_blocks,
						arr[i].sb.mirrors));
		}
		ready = 1;
	}
	if (size > 2 + 2 * JS)
		return -1;
	flags = (unsigned int)fuzz_take(&data, &size, 1);
	a = &arr[flags & 3];
	m = &map[flags & 3];
	FUZZ_CHECK(a->sb.copy_slots <= 64);
	cp.nr = a->sb.copy_slots;
	for (i = 0; i < cp.nr; i++)
		cp_lblock[i] = EW_META_COPY_NONE;
	seq = a->sb.journal_seq + fuzz_take(&data, &size, 1);
	memset(slot, 0, sizeof(slot));
	memcpy(slot, data, size);
	for (i = 0; i < 4; i++)
		if (flags & (4U << i))
			fuzz_reseal(slot + i * BS);

	/*
	 * JFREE's scan of the first slot, read where the ring would have
	 * it: a live seq within the window, nothing, or a refusal that
	 * says why.
	 */
	jsb = a->sb;
	jsb.jfree = true;
	why = NULL;
	jseq = 0;
	ret = ew_meta_jslot_seq(&jsb, ew_meta_journal_blocknr(&jsb, seq), slot,
				&jseq, &why);
	FUZZ_CHECK(ret == 0 || ret == 1 || (ret == -EINVAL && why));
	FUZZ_CHECK(ret == 1 ? jseq >= jsb.journal_seq &&
		   jseq - jsb.journal_seq < jsb.journal_slots : !jseq);

	for (lb = 0; lb < m->nr_blocks; lb++) {
		m->uptodate[lb] = 0;
		for (rep = 0; rep < m->mirrors; rep++)
			m->pblock[lb * m->mirrors + rep] = EW_MAP_NONE;
	}
	(void)ew_meta_journal_probe(&a->sb, seq, slot);
	ret = ew_meta_replay_block_copies(&a->sb, &a->g, m, seq, slot, &cp,
					  &res, &why);
	FUZZ_CHECK(ret == 0 || ret == 1 || ret == -EINVAL);
	for (i = 0; i < cp.nr; i++)
		FUZZ_CHECK(cp_lblock[i] == EW_META_COPY_NONE ||
			   (ret == 1 && cp_lblock[i] < a->sb.len_blocks &&
			    cp_seq[i] == seq));
	if (ret <= 0) {
		/* nothing of a refused or absent block is applied */
		FUZZ_CHECK(ret == 0 || (why && res.bad_copy < 2));
		for (lb = 0; lb < m->nr_blocks; lb++) {
			FUZZ_CHECK(!m->uptodate[lb]);
			for (rep = 0; rep < m->mirrors; rep++)
				FUZZ_CHECK(m->pblock[lb * m->mirrors + rep] ==
					   EW_MAP_NONE);
		}
		if (ret == 0) {
			why = NULL;
			ret = ew_meta_journal_end(&a->sb, seq, slot + JS, &why);
			FUZZ_CHECK(!ret || (ret == -EINVAL && why));
		}
		return 0;
	}
	FUZZ_CHECK(res.records <= EW_META_JREC_PER_BLOCK && res.damaged < 3);
	for (lb = 0; lb < m->nr_blocks; lb++)
		for (rep = 0; rep < m->mirrors; rep++) {
			u32 p = m->pblock[lb * m->mirrors + rep];

			FUZZ_CHECK(p == EW_MAP_NONE || p < a->g.region_blocks);
		}
	/* the next slot: the next block or the end of the journal */
	ret = ew_meta_replay_block_copies(&a->sb, &a->g, m, seq + 1, slot + JS,
					  &cp, &res, &why);
	FUZZ_CHECK(ret == 0 || ret == 1 || ret == -EINVAL);
	for (i = 0; i < cp.nr; i++)
		FUZZ_CHECK(cp_lblock[i] == EW_META_COPY_NONE ||
			   cp_lblock[i] < a->sb.len_blocks);
	why = NULL;
	if (ew_meta_map_check(&a->g, m, &lb, &rep, &why))
		FUZZ_CHECK(why);
	return 0;
}
