// SPDX-License-Identifier: GPL-2.0-only
/*
 * table.c - "ewctl table": the dmsetup table line for a metadata device
 * and data devices, "0 <len> eagerwrite <args>", with len the array's
 * capacity unless given.  The words go through ew_table_parse() and the
 * geometry through ew_table_geom(), the same code the target's
 * constructor runs, so a line ewctl prints is one the target accepts and
 * a combination it refuses is refused here with the target's message.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ewctl.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl table [layout options] [--len SIZE] [--disk-size SIZE]\n"
"                   [--json] --metadata DEV [--metadata-mirror DEV] DEV...\n"
"       ewctl table --list-errors\n"
"\n"
"Prints a dmsetup table line \"0 <len> eagerwrite ...\" for the data\n"
"devices DEV... (2..64, distinct) and the metadata device.  Only the\n"
"layout options given, and sync, appear in the line.  With --sync 1 a\n"
"warning on stderr says what it risks.  <len> is the capacity unless\n"
"--len is given.  Member sizes are read from the devices (BLKGETSIZE64\n"
"for block devices, the size of regular files); the smallest counts,\n"
"less the first 1 MiB of each member, which holds its label.  With\n"
"--metadata - the metadata is kept on the members (after the label of\n"
"the members holding its copies, and the data after it on every member),\n"
"and the capacity is what is left.\n"
"\n"
"  --metadata DEV     the metadata device (required); \"-\": on the members\n"
"  --metadata-mirror DEV\n"
"                     a second metadata device holding a copy of the\n"
"                     metadata (feature metadata_mirror)\n"
"  --len SIZE         logical length (default: the capacity); sizes are\n"
"                     bytes or have a unit s (sectors), K, M, G, T, P\n"
"  --disk-size SIZE   member size to assume instead of reading devices\n"
"  --json             {\"table\": ..., \"len_sectors\": ..., ...}\n"
"  --list-errors      every message the constructor's parser can give\n"
"  -h, --help         this help\n"
"\n");
	ewctl_layout_help(f);
	fprintf(f,
"\n"
"Example: dmsetup create ew0 --table \"$(ewctl table \\\n"
"             --metadata /dev/vdz /dev/vd[a-h])\"\n"
"Exit status: 0 ok, 1 refused (the target's message on stderr) or a\n"
"device unreadable, 2 usage error.\n");
}

/* The parser's messages, then the geometry's that the parser lacks. */
static void list_errors(void)
{
	const char *m, *n;
	unsigned int i, j;

	for (i = 0; (m = ew_table_error(i)); i++)
		printf("%s\n", m);
	for (i = 0; (m = ew_geom_error(i)); i++) {
		for (j = 0; (n = ew_table_error(j)); j++)
			if (!strcmp(m, n))
				break;
		if (!n)
			printf("%s\n", m);
	}
}

/* *len: the capacity, in bytes, on members of data sectors each. */
static int capacity(const struct ew_table_args *t, u64 data, u64 *len)
{
	struct ew_geom_params p;
	const char *err;

	ew_table_geom_params(t, data, &p);
	if (ew_geom_check(&p, &err)) {
		fprintf(stderr, "%s: %s\n", ewctl_prog, err);
		return -1;
	}
	*len = ew_geom_capacity_blocks(&p) * p.block_sectors * 512;
	return 0;
}

int ewctl_table(int argc, char **argv)
{
	static const struct option opts[] = {
		EWCTL_LAYOUT_LONGOPTS,
		{ "metadata", required_argument, NULL, 'm' },
		{ "metadata-mirror", required_argument, NULL, 'M' },
		{ "len", required_argument, NULL, 'l' },
		{ "disk-size", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "list-errors", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ewctl_layout_opts lo = { 0 };
	struct ewctl_words w;
	struct ew_table_args t;
	struct ew_geom g;
	const char *meta = NULL, *mirror = NULL, *err;
	char line[8192];
	u64 disk = 0, len = 0, sz, data;
	bool json = false, have_len = false, have_disk = false;
	unsigned int nr, i;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ewctl_layout_opt(&lo, c, optarg))
			continue;
		switch (c) {
		case 'm':
			meta = optarg;
			break;
		case 'M':
			mirror = optarg;
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
		case 's':
			if (ewctl_parse_size(optarg, &disk)) {
				fprintf(stderr, "%s: bad --disk-size '%s'\n",
					ewctl_prog, optarg);
				return EWCTL_USAGE;
			}
			have_disk = true;
			break;
		case 'j':
			json = true;
			break;
		case 'E':
			list_errors();
			return EWCTL_OK;
		case 'h':
			usage(stdout);
			return EWCTL_OK;
		default:
			fprintf(stderr, "Try '%s --help'.\n", argv[0]);
			return EWCTL_USAGE;
		}
	}
	nr = (unsigned int)(argc - optind);
	if (!meta || !nr) {
		fprintf(stderr,
			"%s: table needs --metadata DEV and data devices\n",
			ewctl_prog);
		return EWCTL_USAGE;
	}
	if (ewctl_parse_table(&lo, meta, nr, argv + optind, &w, &t))
		return EWCTL_FAIL;
	/* the target's checks, with its messages (ew_parse_features()) */
	if (mirror && ew_table_meta_on_members(&t)) {
		fprintf(stderr, "%s: %s\n", ewctl_prog,
			"Feature metadata_mirror needs a metadata device, not \"-\"");
		return EWCTL_FAIL;
	}
	if (mirror) {
		bool data = false;

		for (i = 0; i < t.nr_disks; i++)
			data |= !strcmp(mirror, t.data_devs[i]);
		if (!strcmp(mirror, meta) || data) {
			fprintf(stderr, "%s: %s\n", ewctl_prog, data ?
				"Metadata mirror is also a data device" :
				"Metadata mirror is the metadata device");
			return EWCTL_FAIL;
		}
		t.metadata_mirror = mirror;
	}
	if (!have_disk) {
		for (i = 0; i < t.nr_disks; i++) {
			if (ewctl_dev_bytes(t.data_devs[i], &sz))
				return EWCTL_FAIL;
			if (!i || sz < disk)
				disk = sz;
		}
	}
	data = ewctl_member_data_sectors(disk);
	if (!have_len && capacity(&t, data, &len))
		return EWCTL_FAIL;
	if (ew_table_meta_on_members(&t)) {
		/*
		 * the layout starts after the metadata image, sized by the
		 * length (the target's ew_ctr()): a capacity without it,
		 * then the capacity after it, whose image is no larger
		 */
		u64 off;

		if (ew_table_geom(&t, data, len / 512, &g, &err)) {
			fprintf(stderr, "%s: %s\n", ewctl_prog, err);
			return EWCTL_FAIL;
		}
		off = ew_meta_members_data_offset(ew_meta_table_size_sectors(&g,
									     &t));
		data = disk / 512 > off ? disk / 512 - off : 0;
		if (!have_len && capacity(&t, data, &len))
			return EWCTL_FAIL;
	}
	if (ew_table_geom(&t, data, len / 512, &g, &err)) {
		fprintf(stderr, "%s: %s\n", ewctl_prog, err);
		return EWCTL_FAIL;
	}
	if (ew_table_risk(&t))
		fprintf(stderr,
			"%s: warning: %s; one member failure in that window loses acknowledged data (the default, sync 2, keeps two copies)\n",
			ewctl_prog, ew_table_risk(&t));
	if (ew_table_format(&t, line, sizeof(line)) >= (int)sizeof(line)) {
		fprintf(stderr, "%s: table line too long\n", ewctl_prog);
		return EWCTL_FAIL;
	}
	if (!json) {
		printf("0 %llu eagerwrite %s\n", (unsigned long long)(len / 512),
		       line);
		return EWCTL_OK;
	}
	{
		char full[8300];

		snprintf(full, sizeof(full), "0 %llu eagerwrite %s",
			 (unsigned long long)(len / 512), line);
		printf("{\"table\": ");
		ewctl_json_str(stdout, full);
		printf(", \"start\": 0, \"len_sectors\": %llu"
		       ", \"capacity_sectors\": %llu, \"disk_sectors\": %llu"
		       ", \"region_blocks\": %llu, \"block_sectors\": %u}\n",
		       (unsigned long long)(len / 512),
		       (unsigned long long)(g.capacity_blocks *
					    g.p.block_sectors),
		       (unsigned long long)data,
		       (unsigned long long)g.region_blocks, g.p.block_sectors);
	}
	return EWCTL_OK;
}
