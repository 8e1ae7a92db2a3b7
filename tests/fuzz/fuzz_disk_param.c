// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_disk_param.c - the disk model a "disk_param <member|all> <key>
 * <value>" message rebuilds.  The message's words are parsed by the
 * core's message parser (fuzz_msg.c); what the fuzzer drives here is
 * what the target does with the value: ew_disk_params_check() and
 * ew_disk_init() from the default model with the keys the message accepts changed, then
 * the predictions the map path makes on the model accepted.  Input: the
 * member size (8 bytes), then (key, value) pairs of 1 + 8 bytes, then
 * the requests predicted (lba 8 bytes, sectors 2 bytes).
 */
#include <stddef.h>

#include "ew_disk.h"
#include "ew_msg.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct ew_disk d;
	struct ew_disk_params p;
	struct ew_head h = { 0 };
	struct ew_access acc;
	struct ew_pos pos;
	const char *why = NULL;
	u64 sectors, now = 0;
	unsigned int i, nkeys;

	/* a member of 1 MiB to 64 TiB, as the constructor may see */
	sectors = fuzz_take(&data, &size, 8) % (1ULL << 37) + 2048;
	nkeys = (unsigned int)fuzz_take(&data, &size, 1) % 4;
	ew_disk_params_default(&p);
	for (i = 0; i < nkeys; i++) {
		unsigned int k = (unsigned int)fuzz_take(&data, &size, 1) %
				 ew_nr_param_keys;
		const struct ew_param_key *key = &ew_param_keys[k];
		u64 v = fuzz_take(&data, &size, 8);

		/* the parser refuses a narrow key's value > U32_MAX */
		ew_param_set(&p, key, key->wide ? v : (u32)v);
	}
	if (ew_disk_params_check(&p, &why)) {
		FUZZ_CHECK(why);
		return 0;
	}
	if (ew_disk_init(&d, &p, sectors))
		return 0;
	FUZZ_CHECK(d.nr_sectors == sectors && d.nr_cylinders);
	/* the predictions the placement makes on every write and read */
	for (i = 0; i < 8 && size; i++) {
		u64 lba = fuzz_take(&data, &size, 8) % sectors;
		u32 n = (u32)fuzz_take(&data, &size, 2) % 1024 + 1;

		if (lba + n > sectors)
			n = (u32)(sectors - lba);
		ew_disk_lba_to_pos(&d, lba, &pos);
		FUZZ_CHECK(pos.cyl < d.nr_cylinders && pos.head < d.p.heads &&
			   pos.sector < pos.spt);
		FUZZ_CHECK(ew_disk_angle_at(&d, now) < d.p.rotation_ns);
		ew_disk_predict(&d, &h, now, lba, n, i & 1, &acc);
		FUZZ_CHECK(acc.end_ns >= acc.start_ns);
		ew_head_complete(&d, &h, lba, n, acc.end_ns);
		now = acc.start_ns + (acc.total_ns >> 1);
	}
	return 0;
}
