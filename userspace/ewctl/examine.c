// SPDX-License-Identifier: GPL-2.0-only
/*
 * examine.c - "ewctl examine DEV...": what a device's first blocks say:
 * a member label (array UUID, member index, generation, layout) or a
 * metadata superblock (UUID, generation, layout, member states), decoded
 * and validated by the portable core.  ewctl_probe_dev() is also the
 * scanner of "ewctl assemble".
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ewctl_meta.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl examine [--json] DEV...\n"
"\n"
"Prints what each device's first 8 KiB say: an eagerwrite member label\n"
"(array UUID, member index, label generation, layout; with the metadata\n"
"on the members, a member holding a copy also shows that copy's\n"
"superblock, read from sector 2048) or a metadata\n"
"superblock (array UUID, generation, layout, length, member states,\n"
"clean or not; for a copy of mirrored metadata, which copy of how many\n"
"and which copies it marks stale), or that it carries neither.  Reads only (O_DIRECT for\n"
"block devices), so it is safe on members of a live array.\n"
"\n"
"  --json       one JSON array, an object per device\n"
"  -h, --help   this help\n"
"\n"
"Exit status: 0 every DEV carries a valid label or superblock, 1 some\n"
"do not (neither, damaged, unreadable, or a holder whose metadata copy\n"
"is), 2 usage error.\n");
}

const char *ewctl_kind_name(enum ewctl_kind k)
{
	switch (k) {
	case EWCTL_KIND_MEMBER:
		return "member";
	case EWCTL_KIND_META:
		return "metadata";
	case EWCTL_KIND_DAMAGED:
		return "damaged";
	case EWCTL_KIND_UNREADABLE:
		return "unreadable";
	default:
		return "none";
	}
}

static bool has_magic(const void *blk)
{
	const struct ew_meta_hdr *h = blk;

	return le32_to_cpu(h->magic) == EW_META_MAGIC;
}

/*
 * A member of an array whose metadata is on the members: if it is one of
 * the holders, reads its copy's superblock slots (the image starts at
 * EW_MEMBER_META_OFFSET_SECTORS, after the label's MiB).
 */
static void probe_holder(struct ewctl_probe *p)
{
	const struct ew_meta_label *l = &p->label;
	int ret;

	if (ewctl_label_copy(l) < 0)
		return;
	p->holder = true;
	ret = ewctl_dev_read(p->path, (u64)EW_MEMBER_META_OFFSET_SECTORS * 512,
			     p->hblk, sizeof(p->hblk));
	if (ret) {
		p->hpick = ret;
		p->hwhy = strerror(-ret);
		return;
	}
	p->hpick = ew_meta_sb_pick(p->hblk[0], p->hblk[1], &p->sb,
				   &p->sb_slot, &p->hwhy);
	if (p->hpick == -ENODATA)
		p->hwhy = "superblock slots all zeros";
	else if (!p->hpick && memcmp(p->sb.uuid, l->uuid, EW_META_UUID_SIZE)) {
		p->hpick = -EINVAL;
		p->hwhy = "its metadata copy is another array's";
	}
}

void ewctl_probe_dev(const char *path, struct ewctl_probe *p)
{
	const char *why_label = NULL, *why_sb = NULL;
	int ret;

	memset(p, 0, sizeof(*p));
	p->path = path;
	ret = ewctl_dev_read(path, 0, p->blk, sizeof(p->blk));
	if (ret) {
		p->kind = EWCTL_KIND_UNREADABLE;
		p->err = ret;
		p->why = strerror(-ret);
		return;
	}
	if (!ew_meta_label_decode(p->blk[0], &p->label, &why_label)) {
		p->kind = EWCTL_KIND_MEMBER;
		probe_holder(p);
		return;
	}
	ret = ew_meta_sb_pick(p->blk[0], p->blk[1], &p->sb, &p->sb_slot,
			      &why_sb);
	if (!ret) {
		p->kind = EWCTL_KIND_META;
		return;
	}
	if (ret == -ENODATA) {
		p->kind = EWCTL_KIND_NONE;
		p->why = "first 4 KiB all zeros";
		return;
	}
	/* An eagerwrite magic that does not validate is damage, not data. */
	if (has_magic(p->blk[0]) || has_magic(p->blk[1])) {
		const struct ew_meta_hdr *h = (const void *)p->blk[0];

		p->kind = EWCTL_KIND_DAMAGED;
		p->why = has_magic(h) && le16_to_cpu(h->type) == EW_META_T_LABEL ?
			 why_label : why_sb;
		return;
	}
	p->kind = EWCTL_KIND_NONE;
	p->why = "no eagerwrite label or superblock";
}

static void print_bits(FILE *f, u64 bits, u32 n, bool json)
{
	bool first = true;
	u32 i;

	if (json)
		fputc('[', f);
	for (i = 0; i < n && i < 64; i++) {
		if (!(bits & (1ULL << i)))
			continue;
		fprintf(f, "%s%u", first ? "" : (json ? ", " : " "), i);
		first = false;
	}
	if (json)
		fputc(']', f);
	else if (first)
		fputc('-', f);
}

static void print_layout(FILE *f, enum ew_layout layout, u32 mirrors,
			 u32 dil_x100, u32 chunk, u32 bsize, bool json)
{
	char dil[16];

	ewctl_fmt_x100(dil, sizeof(dil), dil_x100);
	if (json) {
		fprintf(f, ", \"layout\": \"%s\", \"mirrors\": %u, \"dilution\": %s"
			", \"chunk_sectors\": %u, \"block_size\": %u",
			ew_layout_name(layout), mirrors, dil, chunk, bsize);
		return;
	}
	fprintf(f, "  layout:        %s, mirrors %u, dilution %s, chunk_sectors %u, block_size %u\n",
		ew_layout_name(layout), mirrors, dil, chunk, bsize);
}

/*
 * The superblock p->sb: of a metadata device, or the copy a holder
 * carries (JSON: the fields, without braces).
 */
static void print_sb(FILE *f, const struct ewctl_probe *p, bool json)
{
	const struct ew_meta_sb *sb = &p->sb;
	const char *state = sb->flags & EW_META_SB_FORMATTING ?
			    "formatting" :
			    sb->flags & EW_META_SB_CLEAN ? "clean" : "active";
	char uuid[40];

	ewctl_uuid_str(sb->uuid, uuid);
	if (json) {
		fprintf(f, ", \"uuid\": \"%s\", \"members\": %u, \"generation\": %llu"
			", \"state\": \"%s\", \"sync\": %u, \"delay_queue\": %u",
			uuid, sb->nr_disks, (unsigned long long)sb->generation,
			state, sb->sync, sb->delay_queue);
		print_layout(f, sb->layout, sb->mirrors, sb->dilution_x100,
			     sb->chunk_sectors, sb->block_size, true);
		fprintf(f, ", \"len_blocks\": %llu, \"checkpoint_seq\": %llu"
			", \"journal_seq\": %llu, \"failed\": ",
			(unsigned long long)sb->len_blocks,
			(unsigned long long)sb->ckpt_seq,
			(unsigned long long)sb->journal_seq);
		print_bits(f, sb->member_failed, sb->nr_disks, true);
		fprintf(f, ", \"rebuilding\": ");
		print_bits(f, sb->member_rebuilding, sb->nr_disks, true);
		fprintf(f, ", \"copies\": %u, \"copy\": %u, \"stale\": ",
			ewctl_sb_copies(sb), sb->meta_copy);
		print_bits(f, sb->meta_stale, ewctl_sb_copies(sb), true);
		fprintf(f, ", \"on_members\": %s", sb->on_members ? "true" : "false");
		return;
	}
	if (p->kind == EWCTL_KIND_META)
		fprintf(f, "  array uuid:    %s\n", uuid);
	fprintf(f, "  generation:    %llu (superblock slot %u)\n",
		(unsigned long long)sb->generation, p->sb_slot);
	if (ewctl_sb_copies(sb) > 1) {
		char cs[160];

		ewctl_copies_str(sb, cs, sizeof(cs));
		fprintf(f, "  metadata copy: %s\n", cs);
	}
	if (p->kind == EWCTL_KIND_META)
		print_layout(f, sb->layout, sb->mirrors, sb->dilution_x100,
			     sb->chunk_sectors, sb->block_size, false);
	fprintf(f, "  table:         sync %u, delay_queue %u (as last loaded)\n",
		sb->sync, sb->delay_queue);
	if (p->kind == EWCTL_KIND_META)
		fprintf(f, "  length:        %llu blocks\n",
			(unsigned long long)sb->len_blocks);
	fprintf(f, "  state:         %s (checkpoint seq %llu, journal seq %llu)\n",
		state, (unsigned long long)sb->ckpt_seq,
		(unsigned long long)sb->journal_seq);
	fprintf(f, "  failed:        ");
	print_bits(f, sb->member_failed, sb->nr_disks, false);
	fprintf(f, "\n  rebuilding:    ");
	print_bits(f, sb->member_rebuilding, sb->nr_disks, false);
	fputc('\n', f);
}

static void print_probe(FILE *f, const struct ewctl_probe *p, bool json)
{
	char uuid[40];

	if (json) {
		fprintf(f, "{\"device\": ");
		ewctl_json_str(f, p->path);
		fprintf(f, ", \"kind\": \"%s\"", ewctl_kind_name(p->kind));
	}
	switch (p->kind) {
	case EWCTL_KIND_MEMBER: {
		const struct ew_meta_label *l = &p->label;

		ewctl_uuid_str(l->uuid, uuid);
		if (json) {
			fprintf(f, ", \"uuid\": \"%s\", \"member\": %u, \"members\": %u"
				", \"generation\": %llu", uuid, l->member, l->nr_disks,
				(unsigned long long)l->generation);
			print_layout(f, l->layout, l->mirrors, l->dilution_x100,
				     l->chunk_sectors, l->block_size, true);
			fprintf(f, ", \"len_blocks\": %llu, \"region_blocks\": %llu"
				", \"data_offset_sectors\": %llu, \"metadata\": ",
				(unsigned long long)l->len_blocks,
				(unsigned long long)l->region_blocks,
				(unsigned long long)l->data_offset_sectors);
			if (ewctl_probe_holds_sb(p)) {
				fprintf(f, "{\"kind\": \"metadata\"");
				print_sb(f, p, true);
				fprintf(f, "}}");
			} else if (p->holder) {
				fprintf(f, "{\"kind\": \"damaged\", \"why\": ");
				ewctl_json_str(f, p->hwhy ? p->hwhy : "");
				fprintf(f, "}}");
			} else {
				fprintf(f, "null}");
			}
			break;
		}
		fprintf(f, "%s: eagerwrite member %u of %u\n", p->path,
			l->member, l->nr_disks);
		fprintf(f, "  array uuid:    %s\n", uuid);
		fprintf(f, "  generation:    %llu (label)\n",
			(unsigned long long)l->generation);
		print_layout(f, l->layout, l->mirrors, l->dilution_x100,
			     l->chunk_sectors, l->block_size, false);
		fprintf(f, "  length:        %llu blocks, region %llu blocks per member\n",
			(unsigned long long)l->len_blocks,
			(unsigned long long)l->region_blocks);
		if (l->data_offset_sectors == EW_MEMBER_DATA_OFFSET_SECTORS) {
			fprintf(f, "  metadata:      on a metadata device\n");
			break;
		}
		if (!p->holder) {
			fprintf(f, "  metadata:      on the members; this one holds no copy\n");
			break;
		}
		if (p->hpick) {
			fprintf(f, "  metadata:      on the members; this one's copy (sector %llu) is damaged: %s\n",
				(unsigned long long)EW_MEMBER_META_OFFSET_SECTORS,
				p->hwhy ? p->hwhy : "");
			break;
		}
		fprintf(f, "  metadata:      on the members; a copy from sector %llu:\n",
			(unsigned long long)EW_MEMBER_META_OFFSET_SECTORS);
		print_sb(f, p, false);
		break;
	}
	case EWCTL_KIND_META:
		if (json) {
			print_sb(f, p, true);
			fputc('}', f);
			break;
		}
		fprintf(f, "%s: eagerwrite metadata of %u members\n", p->path,
			p->sb.nr_disks);
		print_sb(f, p, false);
		break;
	default:
		if (json) {
			fprintf(f, ", \"why\": ");
			ewctl_json_str(f, p->why ? p->why : "");
			fputc('}', f);
			break;
		}
		fprintf(f, "%s: %s: %s\n", p->path,
			p->kind == EWCTL_KIND_NONE ? "not eagerwrite" :
			ewctl_kind_name(p->kind), p->why ? p->why : "");
		break;
	}
}

int ewctl_examine(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct ewctl_probe p;
	bool json = false;
	int c, i, rc = EWCTL_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
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
	if (optind >= argc) {
		fprintf(stderr, "%s: examine needs at least one device\n",
			ewctl_prog);
		return EWCTL_USAGE;
	}
	if (json)
		printf("[");
	for (i = optind; i < argc; i++) {
		ewctl_probe_dev(argv[i], &p);
		if ((p.kind != EWCTL_KIND_MEMBER && p.kind != EWCTL_KIND_META) ||
		    (p.holder && p.hpick))
			rc = EWCTL_FAIL;
		if (json && i > optind)
			printf(",\n ");
		print_probe(stdout, &p, json);
	}
	if (json)
		printf("]\n");
	return rc;
}
