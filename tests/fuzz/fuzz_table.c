// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_table.c - the table line (core/ew_table.c), the constructor's
 * untrusted input.  The fuzzer's bytes are the words after "eagerwrite".
 * A refused line must come with an error message; an accepted one must
 * print back (STATUSTYPE_TABLE) into a line that parses to the same
 * table, and its geometry, superblock and metadata size must build or be
 * refused cleanly on a few member sizes.
 */
#include "fuzz_util.h"

#define MAX_LINE 8192

static void check_geometry(const struct ew_table_args *t, u64 disk)
{
	struct ew_geom_params p;
	struct ew_meta_sb sb, back;
	struct ew_geom g;
	const char *why = NULL;
	static u8 blk[EW_META_BLOCK_SIZE];
	u64 cap;

	ew_table_geom_params(t, disk, &p);
	cap = ew_geom_capacity_blocks(&p);
	if (!cap || cap > (1ULL << 20))	/* keep the maps small */
		return;
	if (ew_table_geom(t, disk, cap * p.block_sectors, &g, &why)) {
		FUZZ_CHECK(why);
		return;
	}
	why = NULL;
	if (ew_meta_sb_init(&sb, t, &g, fuzz_uuid, &why)) {
		FUZZ_CHECK(why);
		return;
	}
	FUZZ_CHECK(!ew_meta_sb_check_table(&sb, t, &g, &why));
	/* the size the target checks the metadata device against */
	FUZZ_CHECK(!ew_meta_sb_check_size(&sb,
					  ew_meta_table_size_sectors(&g, t),
					  &why));
	FUZZ_CHECK(sb.copy_slots == t->journal_copy);
	/* the superblock of any accepted table decodes as it was written */
	FUZZ_CHECK(!ew_meta_sb_decode(blk, ew_meta_sb_encode(&sb, blk),
				      &back, &why));
	FUZZ_CHECK(back.len_blocks == sb.len_blocks &&
		   back.nr_disks == sb.nr_disks &&
		   back.total_blocks == sb.total_blocks &&
		   back.copy_slots == sb.copy_slots);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static char buf[MAX_LINE + 1], out[MAX_LINE * 2], out2[MAX_LINE * 2];
	/* t2's words point into out2: print it back elsewhere */
	static char out3[MAX_LINE * 2];
	static char *argv[FUZZ_MAX_WORDS], *argv2[FUZZ_MAX_WORDS];
	struct ew_table_args t, t2;
	const char *err = NULL;
	unsigned int argc;
	int n, n2;

	if (size > MAX_LINE)
		return -1;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argc = fuzz_split(buf, argv);
	if (ew_table_parse(argc, argv, &t, &err)) {
		FUZZ_CHECK(err && *err);
		return 0;
	}
	/* printed back, it parses to the same table and prints the same */
	n = ew_table_format(&t, out, sizeof(out));
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof(out));
	memcpy(out2, out, (size_t)n + 1);
	argc = fuzz_split(out2, argv2);
	err = NULL;
	if (ew_table_parse(argc, argv2, &t2, &err)) {
		fprintf(stderr, "printed back '%s' refused: %s\n", out, err);
		FUZZ_CHECK(0);
	}
	FUZZ_CHECK(t2.layout == t.layout && t2.mirrors == t.mirrors &&
		   t2.dilution_x100 == t.dilution_x100 && t2.sync == t.sync &&
		   t2.chunk_sectors == t.chunk_sectors &&
		   t2.block_size == t.block_size &&
		   t2.delay_queue == t.delay_queue &&
		   t2.journal_copy == t.journal_copy &&
		   t2.nr_disks == t.nr_disks);
	n2 = ew_table_format(&t2, out3, sizeof(out3));
	FUZZ_CHECK(n2 == n && !memcmp(out, out3, (size_t)n));
	/* the snprintf contract on a short buffer */
	FUZZ_CHECK(ew_table_format(&t, out3, 7) == n && strlen(out3) <= 6);

	check_geometry(&t, 16384);
	check_geometry(&t, 2048 + 64);
	return 0;
}
