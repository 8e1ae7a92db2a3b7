// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump.c - "ewctl dump": what an eagerwrite metadata device holds: the
 * superblock in use and the state of both slots, where the journal and
 * checkpoints are, the journal's length, and a summary of the map
 * rebuilt from them.  --json prints one object whose field names are an
 * interface (Documentation/on-disk-format.rst).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ewctl_meta.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl dump [--json] <metadata_dev>\n"
"\n"
"Prints the superblock fields of an eagerwrite metadata device, the state\n"
"of both superblock slots, the journal's length and a summary of the map\n"
"(checkpoint plus journal, as recovery rebuilds it).  Never writes.\n"
"\n"
"  --json       one JSON object instead of text\n"
"  -h, --help   this help\n"
"\n"
"Exit status: 0 printed, 1 no valid superblock or unreadable, 2 usage.\n");
}

struct map_summary {
	u64 written;		/* logical blocks with a current replica */
	u64 stale;		/* replicas of written blocks not current */
	u64 mapped;		/* replica entries with a physical block */
};

static void summarise(const struct ew_map *m, struct map_summary *s)
{
	u64 l;
	u32 r;

	memset(s, 0, sizeof(*s));
	for (l = 0; l < m->nr_blocks; l++) {
		u8 up = ew_map_uptodate(m, l);

		if (up)
			s->written++;
		for (r = 0; r < m->mirrors; r++) {
			if (ew_map_pblock(m, l, r) != EW_MAP_NONE)
				s->mapped++;
			if (up && !(up & (1U << r)))
				s->stale++;
		}
	}
}

static const char *slot_state(const struct ewctl_meta *m, u32 i)
{
	if (m->slot_zero[i])
		return "empty";
	if (m->slot_why[i])
		return m->slot_why[i];
	return i == m->cur ? "in use" : "valid (older)";
}

static void dump_json(const struct ewctl_meta *m,
		      const struct ewctl_map_load *ld,
		      const struct map_summary *s)
{
	const struct ew_meta_sb *sb = &m->sb;
	char uuid[40], dil[16];
	u32 i;

	ewctl_uuid_str(sb->uuid, uuid);
	ew_format_dilution(dil, sizeof(dil), sb->dilution_x100);
	printf("{\"metadata_dev\": ");
	ewctl_json_str(stdout, m->path);
	printf(", \"version\": %u, \"slot\": %u, \"generation\": %llu",
	       EW_META_VERSION, m->cur, (unsigned long long)sb->generation);
	printf(", \"slots\": [");
	for (i = 0; i < EW_META_SB_SLOTS; i++) {
		printf("%s", i ? ", " : "");
		ewctl_json_str(stdout, slot_state(m, i));
	}
	printf("], \"uuid\": \"%s\", \"layout\": \"%s\"", uuid,
	       ew_layout_name(sb->layout));
	printf(", \"nr_disks\": %u, \"mirrors\": %u, \"dilution\": \"%s\"",
	       sb->nr_disks, sb->mirrors, dil);
	printf(", \"sync\": %u, \"chunk_sectors\": %u, \"block_size\": %u",
	       sb->sync, sb->chunk_sectors, sb->block_size);
	printf(", \"delay_queue\": %u, \"len_blocks\": %llu", sb->delay_queue,
	       (unsigned long long)sb->len_blocks);
	printf(", \"disk_sectors\": %llu, \"region_blocks\": %llu",
	       (unsigned long long)sb->disk_sectors,
	       (unsigned long long)sb->region_blocks);
	printf(", \"data_offset_sectors\": %llu",
	       (unsigned long long)sb->data_offset_sectors);
	printf(", \"meta_blocks\": %llu, \"journal_start\": %llu, \"journal_slots\": %llu",
	       (unsigned long long)sb->total_blocks,
	       (unsigned long long)sb->journal_start,
	       (unsigned long long)sb->journal_slots);
	printf(", \"ckpt_start\": [%llu, %llu], \"ckpt_blocks\": %llu",
	       (unsigned long long)sb->ckpt_start[0],
	       (unsigned long long)sb->ckpt_start[1],
	       (unsigned long long)sb->ckpt_blocks);
	printf(", \"ckpt_area\": %u, \"ckpt_seq\": %llu, \"journal_seq\": %llu",
	       sb->ckpt_area, (unsigned long long)sb->ckpt_seq,
	       (unsigned long long)sb->journal_seq);
	printf(", \"flags\": %u, \"clean\": %s", sb->flags,
	       sb->flags & EW_META_SB_CLEAN ? "true" : "false");
	printf(", \"on_members\": %s", sb->on_members ? "true" : "false");
	printf(", \"meta_copies\": %u, \"meta_copy\": %u, \"meta_stale\": %u",
	       ewctl_sb_copies(sb), sb->meta_copy,
	       sb->meta_stale);
	printf(", \"member_generations\": [");
	for (i = 0; i < sb->nr_disks; i++)
		printf("%s%llu", i ? ", " : "",
		       (unsigned long long)sb->member_gen[i]);
	printf("]");
	if (ld->ret) {
		printf(", \"map_error\": ");
		ewctl_json_str(stdout, ld->why);
		printf(", \"map_error_at\": ");
		ewctl_json_str(stdout, ld->where);
	} else {
		printf(", \"journal_end_seq\": %llu, \"journal_length\": %llu",
		       (unsigned long long)ld->end_seq,
		       (unsigned long long)(ld->end_seq - sb->journal_seq));
		printf(", \"journal_records\": %llu, \"journal_end_damaged\": %s",
		       (unsigned long long)ld->records,
		       ld->end_damaged ? "true" : "false");
		printf(", \"journal_damaged_copies\": %u", ld->replay.nr_damaged);
		printf(", \"journal_anywhere\": %s, \"journal_blocks\": [",
		       sb->jfree ? "true" : "false");
		for (i = 0; i < ld->end_seq - sb->journal_seq; i++)
			printf("%s%llu", i ? ", " : "",
			       (unsigned long long)ld->jblocks[i]);
		printf("]");
		printf(", \"written_blocks\": %llu, \"stale_replicas\": %llu, \"mapped_replicas\": %llu",
		       (unsigned long long)s->written,
		       (unsigned long long)s->stale,
		       (unsigned long long)s->mapped);
	}
	printf("}\n");
}

static void dump_text(const struct ewctl_meta *m,
		      const struct ewctl_map_load *ld,
		      const struct map_summary *s)
{
	const struct ew_meta_sb *sb = &m->sb;
	char uuid[40], dil[16];
	u32 i;

	ewctl_uuid_str(sb->uuid, uuid);
	ew_format_dilution(dil, sizeof(dil), sb->dilution_x100);
	printf("metadata device  %s\n", m->path);
	printf("format version   %u\n", EW_META_VERSION);
	for (i = 0; i < EW_META_SB_SLOTS; i++)
		printf("superblock %u     %s\n", i, slot_state(m, i));
	printf("generation       %llu\n", (unsigned long long)sb->generation);
	printf("uuid             %s\n", uuid);
	printf("layout           %s\n", ew_layout_name(sb->layout));
	printf("disks            %u\n", sb->nr_disks);
	printf("mirrors          %u\n", sb->mirrors);
	printf("dilution         %s\n", dil);
	printf("sync             %u\n", sb->sync);
	printf("chunk_sectors    %u\n", sb->chunk_sectors);
	printf("block_size       %u\n", sb->block_size);
	printf("delay_queue      %u\n", sb->delay_queue);
	printf("length           %llu blocks\n",
	       (unsigned long long)sb->len_blocks);
	printf("member size      %llu sectors (after the %llu-sector label area)\n",
	       (unsigned long long)sb->disk_sectors,
	       (unsigned long long)sb->data_offset_sectors);
	printf("region           %llu blocks per member\n",
	       (unsigned long long)sb->region_blocks);
	printf("metadata size    %llu blocks of 4 KiB\n",
	       (unsigned long long)sb->total_blocks);
	if (sb->on_members)
		printf("metadata on      the members, from sector %llu of each holder\n",
		       (unsigned long long)EW_MEMBER_META_OFFSET_SECTORS);
	printf("journal area     blocks %llu..%llu, %llu slots of %u copies\n",
	       (unsigned long long)sb->journal_start,
	       (unsigned long long)(sb->journal_start +
				    sb->journal_slots * EW_META_JOURNAL_COPIES - 1),
	       (unsigned long long)sb->journal_slots, EW_META_JOURNAL_COPIES);
	printf("checkpoint areas blocks %llu.. and %llu.., %llu blocks each\n",
	       (unsigned long long)sb->ckpt_start[0],
	       (unsigned long long)sb->ckpt_start[1],
	       (unsigned long long)sb->ckpt_blocks);
	if (sb->ckpt_seq)
		printf("checkpoint       area %u, seq %llu\n", sb->ckpt_area,
		       (unsigned long long)sb->ckpt_seq);
	else
		printf("checkpoint       none (empty map)\n");
	printf("journal from     seq %llu\n", (unsigned long long)sb->journal_seq);
	if (ewctl_sb_copies(sb) > 1) {
		char cs[160];

		ewctl_copies_str(sb, cs, sizeof(cs));
		printf("metadata copies  %s\n", cs);
	}
	printf("shutdown         %s\n", sb->flags & EW_META_SB_CLEAN ?
	       "clean" : "not clean (in use, or a crash)");
	if (ld->ret) {
		printf("map              cannot be rebuilt: %s: %s\n", ld->where,
		       ld->why);
		return;
	}
	printf("journal length   %llu blocks, %llu records (ends at seq %llu%s)\n",
	       (unsigned long long)(ld->end_seq - sb->journal_seq),
	       (unsigned long long)ld->records,
	       (unsigned long long)ld->end_seq,
	       ld->end_damaged ? ", a damaged block" : "");
	if (ld->replay.nr_damaged)
		printf("damaged copies   %u (each block replayed from its other copy)\n",
		       ld->replay.nr_damaged);
	printf("written blocks   %llu\n", (unsigned long long)s->written);
	printf("stale replicas   %llu\n", (unsigned long long)s->stale);
}

int ewctl_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ewctl_meta m;
	struct ewctl_map_load ld;
	struct map_summary s = { 0 };
	bool json = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return EWCTL_OK;
		default:
			usage(stderr);
			return EWCTL_USAGE;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return EWCTL_USAGE;
	}
	if (ewctl_meta_open(&m, argv[optind], false))
		return EWCTL_FAIL;
	if (m.pick) {
		fprintf(stderr, "%s: %s: %s\n", ewctl_prog, argv[optind],
			m.pick == -ENODATA ?
			"not formatted (first block all zeros)" : m.pick_why);
		ewctl_meta_close(&m);
		return EWCTL_FAIL;
	}
	if (ewctl_meta_load_map(&m, &ld)) {
		ewctl_meta_close(&m);
		return EWCTL_FAIL;
	}
	if (!ld.ret)
		summarise(&ld.map, &s);
	if (json)
		dump_json(&m, &ld, &s);
	else
		dump_text(&m, &ld, &s);
	ew_map_destroy(&ld.map);
	free(ld.jblocks);
	ewctl_meta_close(&m);
	return EWCTL_OK;
}
