// SPDX-License-Identifier: GPL-2.0-only
/*
 * meta.c - reading a metadata device for ewctl check and dump: the two
 * superblock slots, the checkpoint and the journal, decoded and replayed
 * by the portable core (core/ew_meta.c) so that the tools and the target
 * can never disagree about what the metadata says.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "ewctl_meta.h"

FILE *ewctl_fopen_fresh(const char *path, const char *mode)
{
	FILE *f = fopen(path, mode);

	/*
	 * A device in use by a live table is written by the target with
	 * bios that the block device's page cache never sees: what an
	 * earlier read cached (another ewctl run) would be read back as
	 * the device's contents.  Dropping the clean cached pages first
	 * makes every run read the device.
	 */
	if (f)
		posix_fadvise(fileno(f), 0, 0, POSIX_FADV_DONTNEED);
	return f;
}

int ewctl_read_block(FILE *f, u64 bn, void *blk)
{
	if (fseeko(f, (off_t)(bn * EW_META_BLOCK_SIZE), SEEK_SET))
		return -1;
	if (fread(blk, EW_META_BLOCK_SIZE, 1, f) != 1) {
		/* past the end of a short file reads as zeros */
		if (feof(f)) {
			clearerr(f);
			memset(blk, 0, EW_META_BLOCK_SIZE);
			return 0;
		}
		return -1;
	}
	return 0;
}

int ewctl_write_block(FILE *f, u64 bn, const void *blk)
{
	if (fseeko(f, (off_t)(bn * EW_META_BLOCK_SIZE), SEEK_SET) ||
	    fwrite(blk, EW_META_BLOCK_SIZE, 1, f) != 1)
		return -1;
	return 0;
}

void ewctl_uuid_str(const u8 *u, char *buf)
{
	unsigned int i;
	char *p = buf;

	for (i = 0; i < EW_META_UUID_SIZE; i++) {
		p += sprintf(p, "%02x", u[i]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			*p++ = '-';
	}
	*p = '\0';
}

u32 ewctl_sb_copies(const struct ew_meta_sb *sb)
{
	return sb->meta_copies ? sb->meta_copies : 1;
}

void ewctl_copies_str(const struct ew_meta_sb *sb, char *buf, size_t len)
{
	u32 c, n = ewctl_sb_copies(sb);
	int k;

	k = snprintf(buf, len, "copy %u of %u (%s), stale:",
		     sb->meta_copy, n, sb->on_members ?
		     "on the members" : "metadata_mirror");
	if (!sb->meta_stale && k >= 0 && (size_t)k < len)
		k += snprintf(buf + k, len - k, " none");
	for (c = 0; c < n && k >= 0 && (size_t)k < len; c++)
		if (sb->meta_stale & (1U << c))
			k += snprintf(buf + k, len - k, " copy %u", c);
}

int ewctl_uuid_parse(const char *s, u8 *uuid)
{
	unsigned int i = 0, hi;
	int d;

	for (; *s && i < 2 * EW_META_UUID_SIZE; s++) {
		if (*s == '-')
			continue;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -1;
		hi = i / 2;
		if (i % 2)
			uuid[hi] = (u8)(uuid[hi] | d);
		else
			uuid[hi] = (u8)(d << 4);
		i++;
	}
	return *s || i != 2 * EW_META_UUID_SIZE ? -1 : 0;
}

int ewctl_label_copy(const struct ew_meta_label *l)
{
	u32 h[EW_META_MAX_COPIES], n, c;

	if (l->data_offset_sectors == EW_MEMBER_DATA_OFFSET_SECTORS)
		return EWCTL_COPY_ON_DEVICE;
	n = ew_meta_members_holders(l->layout, l->nr_disks, l->mirrors, h);
	for (c = 0; c < n; c++)
		if (h[c] == l->member)
			return (int)c;
	return EWCTL_COPY_NONE;
}

int ewctl_meta_open(struct ewctl_meta *m, const char *path, bool write)
{
	struct ew_meta_label l;
	struct ew_meta_sb s;
	u32 i;

	memset(m, 0, sizeof(*m));
	m->path = path;
	if (ewctl_dev_bytes(path, &m->bytes))
		return -1;
	m->f = ewctl_fopen_fresh(path, write ? "r+b" : "rb");
	if (!m->f) {
		fprintf(stderr, "%s: %s: cannot open\n", ewctl_prog, path);
		return -1;
	}
	/*
	 * A member label in the first block: with the metadata on the
	 * members, a holder's copy starts after it; otherwise this is a
	 * data device, not metadata
	 */
	if (!ewctl_read_block(m->f, 0, m->slot[0]) &&
	    !ew_meta_label_decode(m->slot[0], &l, &m->pick_why)) {
		int c = ewctl_label_copy(&l);

		if (c == EWCTL_COPY_ON_DEVICE) {
			m->pick = -EINVAL;
			m->pick_why = "a data device of an array whose metadata is on a metadata device";
			return 0;
		}
		if (c == EWCTL_COPY_NONE) {
			m->pick = -EINVAL;
			m->pick_why = "a member that holds no copy of its array's metadata";
			return 0;
		}
		m->base = EW_MEMBER_META_OFFSET_SECTORS /
			  EW_META_BLOCK_SECTORS;
		m->bytes = m->bytes > m->base * EW_META_BLOCK_SIZE ?
			   m->bytes - m->base * EW_META_BLOCK_SIZE : 0;
	}
	m->pick_why = NULL;
	for (i = 0; i < EW_META_SB_SLOTS; i++) {
		if (ewctl_read_block(m->f, m->base + i, m->slot[i])) {
			fprintf(stderr, "%s: %s: read error\n", ewctl_prog, path);
			ewctl_meta_close(m);
			return -1;
		}
		m->slot_zero[i] = ew_meta_block_is_zero(m->slot[i]);
		if (!m->slot_zero[i])
			ew_meta_sb_decode(m->slot[i], i, &s, &m->slot_why[i]);
	}
	m->pick = ew_meta_sb_pick(m->slot[0], m->slot[1], &m->sb, &m->cur,
				  &m->pick_why);
	if (!m->pick && ew_meta_sb_geom(&m->sb, &m->g, &m->pick_why))
		m->pick = -EINVAL;
	return 0;
}

void ewctl_meta_close(struct ewctl_meta *m)
{
	if (m->f)
		fclose(m->f);
	m->f = NULL;
}

int ewctl_meta_load_map(struct ewctl_meta *m, struct ewctl_map_load *ld)
{
	const struct ew_meta_sb *sb = &m->sb;
	u8 blk[EW_META_BLOCK_SIZE];
	u8 *area;
	u64 i;

	memset(ld, 0, sizeof(*ld));
	if (ew_map_init(&ld->map, sb->len_blocks, sb->mirrors)) {
		fprintf(stderr, "%s: out of memory\n", ewctl_prog);
		return -1;
	}
	for (i = 0; sb->ckpt_seq && i < sb->ckpt_blocks; i++) {
		u64 bn = sb->ckpt_start[sb->ckpt_area] + i;

		if (ewctl_read_block(m->f, m->base + bn, blk))
			goto io;
		if (ew_meta_ckpt_decode(sb, blk, i, &ld->map, &ld->why)) {
			ld->ret = -EINVAL;
			snprintf(ld->where, sizeof(ld->where),
				 "checkpoint %u block %llu (block %llu)",
				 sb->ckpt_area, (unsigned long long)i,
				 (unsigned long long)bn);
			return 0;
		}
	}
	area = malloc(sb->journal_slots * EW_META_JSLOT_SIZE);
	if (!area) {
		fprintf(stderr, "%s: out of memory\n", ewctl_prog);
		return -1;
	}
	for (i = 0; i < sb->journal_slots * EW_META_JOURNAL_COPIES; i++)
		if (ewctl_read_block(m->f, m->base + sb->journal_start + i,
				     area + i * EW_META_BLOCK_SIZE)) {
			free(area);
			goto io;
		}
	ld->jblocks = calloc(sb->journal_slots, sizeof(u64));
	if (!ld->jblocks) {
		free(area);
		fprintf(stderr, "%s: out of memory\n", ewctl_prog);
		return -1;
	}
	ld->ret = ew_meta_replay_where(sb, &m->g, &ld->map, area, ld->jblocks,
				       sb->journal_slots, &ld->replay,
				       &ld->why);
	ld->end_seq = ld->replay.end_seq;
	ld->records = ld->replay.records;
	if (ld->ret && !ld->replay.end_bn)
		snprintf(ld->where, sizeof(ld->where),
			 "journal seq %llu (in no slot)",
			 (unsigned long long)ld->end_seq);
	else if (ld->ret && ld->replay.bad_copy >= EW_META_JOURNAL_COPIES)
		snprintf(ld->where, sizeof(ld->where),
			 "journal seq %llu (blocks %llu and %llu)",
			 (unsigned long long)ld->end_seq,
			 (unsigned long long)ld->replay.end_bn,
			 (unsigned long long)ld->replay.end_bn + 1);
	else if (ld->ret)
		snprintf(ld->where, sizeof(ld->where),
			 "journal seq %llu copy %u (block %llu)",
			 (unsigned long long)ld->end_seq, ld->replay.bad_copy,
			 (unsigned long long)(ld->replay.end_bn +
					      ld->replay.bad_copy));
	/* a ring's end is a known slot; jfree's may be any */
	if (!ld->ret && !sb->jfree &&
	    ld->end_seq - sb->journal_seq < sb->journal_slots) {
		const u8 *slot = area + (ew_meta_journal_blocknr(sb, ld->end_seq) -
					 sb->journal_start) * EW_META_BLOCK_SIZE;
		u32 c;

		/* not all zeros and a bad checksum: torn or damaged */
		for (c = 0; c < EW_META_JOURNAL_COPIES; c++) {
			const u8 *h = slot + c * EW_META_BLOCK_SIZE;

			if (!ew_meta_block_is_zero(h) && !ew_meta_block_crc_ok(h))
				ld->end_damaged = true;
		}
	}
	free(area);
	return 0;
io:
	fprintf(stderr, "%s: %s: read error\n", ewctl_prog, m->path);
	return -1;
}
