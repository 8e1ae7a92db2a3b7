// SPDX-License-Identifier: GPL-2.0-only
/*
 * geometry.c - "ewctl geometry": what a layout makes of N members of a
 * given size: capacity, region, stripe width, the paper's Ds and how each
 * member is used.  Everything is computed by the portable core
 * (ew_table_parse, ew_table_geom) exactly as the target computes it.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ewctl.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl geometry --disks N --disk-size SIZE [layout options]\n"
"                      [--len SIZE] [--json]\n"
"\n"
"Prints the capacity (sectors and bytes), the region each member uses,\n"
"the stripe width, the paper's Ds and the per-disk use of an array of N\n"
"members of SIZE each, for a volume of --len (default: the capacity).\n"
"\n"
"  --disks N          number of data devices (2..64)\n"
"  --disk-size SIZE   size of each member: bytes, or with a unit s\n"
"                     (sectors), K, M, G, T, P (powers of 1024); its\n"
"                     first 1 MiB holds the member label\n"
"  --len SIZE         logical length (default: the capacity)\n"
"  --json             one JSON object instead of text\n"
"  -h, --help         this help\n"
"\n");
	ewctl_layout_help(f);
	fprintf(f,
"\n"
"Example: the paper's 2x9x2 EW-Array on 36 disks of 1 GiB, 1 GiB volume:\n"
"  ewctl geometry --layout ew --disks 36 --mirrors 2 --dilution 2 \\\n"
"                 --disk-size 1G --len 1G\n"
"Exit status: 0 ok, 1 refused (message on stderr), 2 usage error.\n");
}

static void pr_size(FILE *f, const char *name, u64 sectors)
{
	fprintf(f, "%-16s %llu sectors (%llu bytes)\n", name,
		(unsigned long long)sectors,
		(unsigned long long)(sectors * 512));
}

void ewctl_print_geometry(FILE *f, const struct ew_table_args *t,
			  const struct ew_geom *g, bool json)
{
	u64 bs = g->p.block_sectors, cb = g->chunk_blocks;
	u64 chunks = DIV_ROUND_UP(g->len_blocks, cb);
	u64 rows = DIV_ROUND_UP(chunks, (u64)g->width);
	u64 data, homes = 0, wa = 0, used_x100;
	char dil[16], ds[32], use[32];
	const char *ln = ew_layout_name(g->p.layout);

	/* most loaded member: replicas (or homes) it carries */
	switch (g->p.layout) {
	case EW_LAYOUT_RAID10:
		data = rows * cb;
		homes = g->region_blocks;
		break;
	case EW_LAYOUT_DDM:
		homes = DIV_ROUND_UP(rows, 2) * cb;
		data = rows * cb;
		wa = g->region_blocks - DIV_ROUND_UP(rows, 2) * cb;
		break;
	default:
		data = rows * cb;
		wa = g->region_blocks;
		break;
	}
	ew_format_dilution(dil, sizeof(dil), g->p.dilution_x100);
	ewctl_fmt_x100(ds, sizeof(ds), ew_geom_stripe_x100(g));
	used_x100 = div64_u64(g->region_blocks * 10000, g->disk_blocks);
	ewctl_fmt_x100(use, sizeof(use), used_x100);
	if (json) {
		fprintf(f, "{\"layout\": ");
		ewctl_json_str(f, ln);
		fprintf(f,
			", \"disks\": %u, \"mirrors\": %u, \"dilution\": \"%s\""
			", \"dilution_x100\": %u, \"sync\": %u"
			", \"block_size\": %u, \"block_sectors\": %u"
			", \"chunk_sectors\": %u, \"chunk_blocks\": %u"
			", \"delay_queue\": %u",
			g->p.nr_disks, g->p.mirrors, dil, g->p.dilution_x100,
			t->sync, t->block_size, g->p.block_sectors,
			g->p.chunk_sectors, g->chunk_blocks, t->delay_queue);
		fprintf(f,
			", \"disk_sectors\": %llu, \"disk_blocks\": %llu"
			", \"data_offset_sectors\": %llu, \"meta_sectors\": %llu"
			", \"capacity_sectors\": %llu, \"capacity_bytes\": %llu"
			", \"capacity_blocks\": %llu"
			", \"len_sectors\": %llu, \"len_bytes\": %llu"
			", \"len_blocks\": %llu",
			(unsigned long long)g->p.disk_sectors,
			(unsigned long long)g->disk_blocks,
			(unsigned long long)EW_MEMBER_DATA_OFFSET_SECTORS,
			(unsigned long long)ew_meta_table_size_sectors(g, t),
			(unsigned long long)(g->capacity_blocks * bs),
			(unsigned long long)(g->capacity_blocks * bs * 512),
			(unsigned long long)g->capacity_blocks,
			(unsigned long long)(g->len_blocks * bs),
			(unsigned long long)(g->len_blocks * bs * 512),
			(unsigned long long)g->len_blocks);
		fprintf(f,
			", \"width\": %u, \"unit_blocks\": %u, \"rows\": %llu"
			", \"region_blocks\": %llu, \"region_sectors\": %llu"
			", \"region_bytes\": %llu, \"region_percent\": \"%s\""
			", \"stripe_x100\": %u, \"ds\": \"%s\""
			", \"data_blocks_per_disk\": %llu"
			", \"home_blocks_per_disk\": %llu"
			", \"write_anywhere_blocks_per_disk\": %llu}\n",
			g->width, g->unit_blocks, (unsigned long long)rows,
			(unsigned long long)g->region_blocks,
			(unsigned long long)(g->region_blocks * bs),
			(unsigned long long)(g->region_blocks * bs * 512),
			use, ew_geom_stripe_x100(g), ds,
			(unsigned long long)data, (unsigned long long)homes,
			(unsigned long long)wa);
		return;
	}
	fprintf(f, "%-16s %s\n", "layout", ln);
	fprintf(f, "%-16s %u (mirrors %u, sync %u)\n", "disks",
		g->p.nr_disks, g->p.mirrors, t->sync);
	if (ew_layout_eager(g->p.layout))
		fprintf(f, "%-16s %s\n", "dilution", dil);
	fprintf(f, "%-16s %u bytes (%u sectors)\n", "block size",
		t->block_size, g->p.block_sectors);
	fprintf(f, "%-16s %u sectors (%u blocks)\n", "chunk",
		g->p.chunk_sectors, g->chunk_blocks);
	fprintf(f, "%-16s %llu sectors (%llu blocks) after the %llu-sector label area\n",
		"member data", (unsigned long long)g->p.disk_sectors,
		(unsigned long long)g->disk_blocks,
		(unsigned long long)EW_MEMBER_DATA_OFFSET_SECTORS);
	pr_size(f, "capacity", g->capacity_blocks * bs);
	pr_size(f, "length", g->len_blocks * bs);
	pr_size(f, "metadata", ew_meta_table_size_sectors(g, t));
	if (g->p.layout == EW_LAYOUT_DDM)
		fprintf(f, "%-16s %u pairs (home and partner each)\n",
			"stripe width", g->width);
	else
		fprintf(f, "%-16s %u disks per replica\n", "stripe width",
			g->width);
	fprintf(f, "%-16s %llu blocks per member (%s%% of it, %llu bytes)\n",
		"region", (unsigned long long)g->region_blocks, use,
		(unsigned long long)(g->region_blocks * bs * 512));
	fprintf(f, "%-16s %s\n", "Ds", ds);
	switch (g->p.layout) {
	case EW_LAYOUT_RAID10:
		fprintf(f, "%-16s %llu home blocks at most, written in place\n",
			"per-disk use", (unsigned long long)homes);
		break;
	case EW_LAYOUT_DDM:
		fprintf(f,
			"%-16s units of %u blocks: %llu home blocks at most, "
			"%llu write-anywhere blocks\n",
			"per-disk use", g->unit_blocks,
			(unsigned long long)homes, (unsigned long long)wa);
		break;
	default:
		fprintf(f,
			"%-16s %llu replica blocks at most in %llu blocks, "
			"%llu free at least\n",
			"per-disk use", (unsigned long long)data,
			(unsigned long long)wa,
			(unsigned long long)(wa - data));
		break;
	}
}

int ewctl_geometry(int argc, char **argv)
{
	static const struct option opts[] = {
		EWCTL_LAYOUT_LONGOPTS,
		{ "disks", required_argument, NULL, 'n' },
		{ "disk-size", required_argument, NULL, 's' },
		{ "len", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ewctl_layout_opts lo = { 0 };
	struct ewctl_words w;
	struct ew_table_args t;
	struct ew_geom g;
	char *devs[EW_MAX_DISKS];
	char names[EW_MAX_DISKS][8];
	const char *err;
	u64 disk = 0, len = 0;
	u32 n = 0;
	bool json = false, have_len = false, have_disk = false;
	int c, i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ewctl_layout_opt(&lo, c, optarg))
			continue;
		switch (c) {
		case 'n':
			if (ew_parse_u32(optarg, &n)) {
				fprintf(stderr, "%s: bad --disks '%s'\n",
					ewctl_prog, optarg);
				return EWCTL_USAGE;
			}
			break;
		case 's':
			if (ewctl_parse_size(optarg, &disk)) {
				fprintf(stderr, "%s: bad --disk-size '%s'\n",
					ewctl_prog, optarg);
				return EWCTL_USAGE;
			}
			have_disk = true;
			break;
		case 'l':
			if (ewctl_parse_size(optarg, &len) || len % 512) {
				fprintf(stderr,
					"%s: bad --len '%s' (whole sectors)\n",
					ewctl_prog, optarg);
				return EWCTL_USAGE;
			}
			have_len = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return EWCTL_OK;
		default:
			fprintf(stderr, "Try '%s --help'.\n", argv[0]);
			return EWCTL_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: geometry: unexpected argument '%s'\n",
			ewctl_prog, argv[optind]);
		return EWCTL_USAGE;
	}
	if (!n || !have_disk) {
		fprintf(stderr, "%s: geometry needs --disks and --disk-size\n",
			ewctl_prog);
		return EWCTL_USAGE;
	}
	for (i = 0; i < EW_MAX_DISKS; i++) {
		snprintf(names[i], sizeof(names[i]), "d%d", i);
		devs[i] = names[i];
	}
	if (ewctl_parse_table(&lo, "meta", n, devs, &w, &t))
		return EWCTL_FAIL;
	if (!have_len) {
		struct ew_geom_params p;
		u64 cap;

		ew_table_geom_params(&t, ewctl_member_data_sectors(disk), &p);
		if (ew_geom_check(&p, &err)) {
			fprintf(stderr, "%s: %s\n", ewctl_prog, err);
			return EWCTL_FAIL;
		}
		cap = ew_geom_capacity_blocks(&p);
		len = cap * p.block_sectors * 512;
	}
	if (ew_table_geom(&t, ewctl_member_data_sectors(disk), len / 512, &g,
			  &err)) {
		fprintf(stderr, "%s: %s\n", ewctl_prog, err);
		return EWCTL_FAIL;
	}
	ewctl_print_geometry(stdout, &t, &g, json);
	return EWCTL_OK;
}
