// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_meta.c - the persistent metadata format: encoding, validation,
 * journal replay and the map's cross-check.
 *
 * The format is described byte by byte in Documentation/on-disk-format.rst
 * and summed up in ew_meta.h; the commit order that makes it crash-safe
 * is the target's, and is written down in the same document.  Nothing
 * here does I/O: the caller reads and writes the 4 KiB blocks.
 */
#include "ew_meta.h"

static const char * const ew_meta_errors[] = {
#define E_SB_CRC	ew_meta_errors[0]
	"bad checksum in superblock",
#define E_SB_MAGIC	ew_meta_errors[1]
	"no eagerwrite superblock (bad magic)",
#define E_VERSION	ew_meta_errors[2]
	"unsupported metadata version",
#define E_SB_WHERE	ew_meta_errors[3]
	"superblock read from the wrong block (misdirected write)",
#define E_SB_FIELDS	ew_meta_errors[4]
	"superblock has invalid geometry fields",
#define E_SB_LAYOUT	ew_meta_errors[5]
	"superblock metadata layout is inconsistent",
#define E_NO_SB		ew_meta_errors[6]
	"no valid superblock in either slot",
#define E_LAYOUT	ew_meta_errors[7]
	"metadata belongs to another layout",
#define E_NR_DISKS	ew_meta_errors[8]
	"member count mismatch",
#define E_MIRRORS	ew_meta_errors[9]
	"metadata belongs to an array with another mirror count",
#define E_DILUTION	ew_meta_errors[10]
	"metadata belongs to an array with another dilution",
#define E_CHUNK		ew_meta_errors[11]
	"metadata belongs to an array with another chunk_sectors",
#define E_BSIZE		ew_meta_errors[12]
	"metadata belongs to an array with another block_size",
#define E_LEN		ew_meta_errors[13]
	"metadata belongs to an array of another length",
#define E_SMALLER	ew_meta_errors[14]
	"data devices smaller than when the array was created",
#define E_GEOM		ew_meta_errors[15]
	"metadata belongs to another geometry",
#define E_META_SMALL	ew_meta_errors[16]
	"metadata device too small",
#define E_CK_CRC	ew_meta_errors[17]
	"bad checksum in checkpoint block",
#define E_CK_HDR	ew_meta_errors[18]
	"checkpoint block is not part of the current checkpoint",
#define E_CK_ENTRY	ew_meta_errors[19]
	"checkpoint entry outside the member's region",
#define E_J_FUTURE	ew_meta_errors[20]
	"journal is newer than the superblock (a newer superblock was lost)",
#define E_J_WHERE	ew_meta_errors[21]
	"journal block read from the wrong block (misdirected write)",
#define E_J_REC		ew_meta_errors[22]
	"bad record in journal block",
#define E_J_HOLE	ew_meta_errors[23]
	"journal block lost in the middle of the journal",
#define E_J_TYPE	ew_meta_errors[24]
	"foreign metadata block in the journal area",
#define E_MAP_RANGE	ew_meta_errors[25]
	"map entry outside the member's region",
#define E_MAP_HOME	ew_meta_errors[26]
	"map entry points at another block's home",
#define E_MAP_TWICE	ew_meta_errors[27]
	"physical block referenced twice on one disk",
#define E_MAP_MASK	ew_meta_errors[28]
	"up-to-date replica without a physical block",
#define E_LB_CRC	ew_meta_errors[29]
	"bad checksum in member label",
#define E_LB_MAGIC	ew_meta_errors[30]
	"no eagerwrite member label",
#define E_LB_UUID	ew_meta_errors[31]
	"member belongs to another array",
#define E_LB_INDEX	ew_meta_errors[32]
	"member label names another position (members in another order?)",
#define E_LB_COUNT	ew_meta_errors[33]
	"member label: member count mismatch",
#define E_LB_GEOM	ew_meta_errors[34]
	"member label from another geometry",
#define E_LB_GEN	ew_meta_errors[35]
	"member label generation mismatch (stale member)",
#define E_LB_WHERE	ew_meta_errors[36]
	"member label not in the first block",
#define E_SB_TABLE	ew_meta_errors[37]
	"table arguments do not describe a valid array",
#define E_SB_HALF	ew_meta_errors[38]
	"superblock slot 0 is zeros but slot 1 is valid: zero both to format",
#define E_VERSION_1	ew_meta_errors[39]
	"unsupported metadata version 1 (format v2 keeps two copies of each journal block; re-create the array)",
#define E_JCOPY		ew_meta_errors[40]
	"metadata has another number of journal_copy slots (fixed when the array is created)",
#define E_CP_HDR	ew_meta_errors[41]
	"copy slot header is not the copy the journal names",
#define E_CP_DATA	ew_meta_errors[42]
	"copy slot data does not match its checksum",
#define E_META_WHERE	ew_meta_errors[43]
	"the table and the array disagree on where the metadata is (a metadata device, or \"-\" for the members)",
#define E_J_TWICE	ew_meta_errors[44]
	"journal block in two slots of the journal area",
};

const char *ew_meta_error(unsigned int i)
{
	return i < ARRAY_SIZE(ew_meta_errors) ? ew_meta_errors[i] : NULL;
}

/* --- blocks and headers --- */

bool ew_meta_block_is_zero(const void *blk)
{
	const u64 *p = blk;
	unsigned int i;

	for (i = 0; i < EW_META_BLOCK_SIZE / sizeof(u64); i++)
		if (p[i])
			return false;
	return true;
}

static u32 ew_meta_crc(const void *blk)
{
	const u8 *b = blk;
	static const u8 zero[4];
	u32 crc;

	crc = ew_crc32c(~0U, b, offsetof(struct ew_meta_hdr, crc));
	crc = ew_crc32c(crc, zero, sizeof(zero));
	return ew_crc32c(crc, b + offsetof(struct ew_meta_hdr, crc) + 4,
			 EW_META_BLOCK_SIZE - offsetof(struct ew_meta_hdr, crc) - 4);
}

static void ew_meta_hdr_put(void *blk, enum ew_meta_type type, u32 nr, u64 seq,
			    u64 blocknr, u64 aux, const u8 *uuid)
{
	struct ew_meta_hdr *h = blk;

	h->magic = cpu_to_le32(EW_META_MAGIC);
	h->crc = 0;
	h->type = cpu_to_le16(type);
	h->version = cpu_to_le16(EW_META_VERSION);
	h->nr = cpu_to_le32(nr);
	h->seq = cpu_to_le64(seq);
	h->blocknr = cpu_to_le64(blocknr);
	h->aux = cpu_to_le64(aux);
	h->reserved = 0;
	memcpy(h->uuid, uuid, EW_META_UUID_SIZE);
}

static void ew_meta_seal(void *blk)
{
	struct ew_meta_hdr *h = blk;

	h->crc = cpu_to_le32(ew_meta_crc(blk));
}

bool ew_meta_block_crc_ok(const void *blk)
{
	const struct ew_meta_hdr *h = blk;

	return le32_to_cpu(h->crc) == ew_meta_crc(blk);
}

static bool ew_meta_hdr_is(const void *blk, enum ew_meta_type type)
{
	const struct ew_meta_hdr *h = blk;

	return le32_to_cpu(h->magic) == EW_META_MAGIC &&
	       le16_to_cpu(h->type) == type;
}

/* --- sizes and layout --- */

u32 ew_meta_ckpt_per_block(u32 mirrors)
{
	return (u32)(EW_META_PAYLOAD / (4 * mirrors + 1));
}

/* Journal slots: the area is as large as a checkpoint, within bounds. */
static u64 ew_meta_journal_size(u64 ckpt_blocks)
{
	u64 blocks = min_t(u64, max_t(u64, ckpt_blocks, EW_META_JOURNAL_MIN),
			   EW_META_JOURNAL_MAX);

	return DIV_ROUND_UP(blocks, EW_META_JOURNAL_COPIES);
}

void ew_meta_layout(struct ew_meta_sb *sb)
{
	sb->ckpt_per_block = ew_meta_ckpt_per_block(sb->mirrors);
	sb->ckpt_blocks = DIV_ROUND_UP(sb->len_blocks,
				       (u64)sb->ckpt_per_block);
	sb->journal_start = EW_META_JOURNAL_START;
	sb->journal_slots = ew_meta_journal_size(sb->ckpt_blocks);
	sb->ckpt_start[0] = sb->journal_start +
			    sb->journal_slots * EW_META_JOURNAL_COPIES;
	sb->ckpt_start[1] = sb->ckpt_start[0] + sb->ckpt_blocks;
	sb->total_blocks = sb->ckpt_start[1] + sb->ckpt_blocks;
	/* last, so that an array without copies keeps the same layout */
	if (sb->copy_slots) {
		sb->copy_slot_blocks = ew_meta_copy_slot_blocks(sb->block_size);
		sb->copy_start = sb->total_blocks;
		sb->total_blocks += (u64)sb->copy_slots * sb->copy_slot_blocks;
	} else {
		sb->copy_slot_blocks = 0;
		sb->copy_start = 0;
	}
}

u64 ew_meta_members_data_offset(u64 meta_sectors)
{
	u64 mib = 2048;

	return EW_MEMBER_META_OFFSET_SECTORS +
	       DIV_ROUND_UP(meta_sectors, mib) * mib;
}

u32 ew_meta_members_holders(enum ew_layout layout, u32 nr_disks,
			    u32 mirrors, u32 *member)
{
	u32 n = 0, k;

	if (!mirrors || nr_disks < 2 || nr_disks % mirrors)
		return 0;
	if (layout == EW_LAYOUT_DDM) {
		member[n++] = 0;
		member[n++] = 1;
		return n;
	}
	for (k = 0; k < mirrors && n < EW_META_MAX_COPIES; k++)
		member[n++] = k * (nr_disks / mirrors);
	if (n == 1)
		member[n++] = 1;
	return n;
}

u64 ew_meta_size_blocks(u64 len_blocks, u32 mirrors)
{
	struct ew_meta_sb sb = { .len_blocks = len_blocks, .mirrors = mirrors };

	if (!mirrors || mirrors > EW_MAX_MIRRORS)
		return 0;
	ew_meta_layout(&sb);
	return sb.total_blocks;
}

u64 ew_meta_size_sectors(const struct ew_geom *g)
{
	return ew_meta_size_blocks(g->len_blocks, g->p.mirrors) *
	       EW_META_BLOCK_SECTORS;
}

u64 ew_meta_table_size_sectors(const struct ew_geom *g,
			       const struct ew_table_args *t)
{
	u64 blocks = ew_meta_size_blocks(g->len_blocks, g->p.mirrors);

	if (blocks && t->journal_copy)
		blocks += (u64)t->journal_copy *
			  ew_meta_copy_slot_blocks(t->block_size);
	return blocks * EW_META_BLOCK_SECTORS;
}

/* --- superblock --- */

int ew_meta_sb_init(struct ew_meta_sb *sb, const struct ew_table_args *t,
		    const struct ew_geom *g, const u8 *uuid, const char **why)
{
	u32 i;

	memset(sb, 0, sizeof(*sb));
	if (t->layout != g->p.layout || t->nr_disks != g->p.nr_disks ||
	    t->mirrors != g->p.mirrors || !g->len_blocks ||
	    t->block_size != g->p.block_sectors * 512) {
		*why = E_SB_TABLE;
		return -EINVAL;
	}
	memcpy(sb->uuid, uuid, EW_META_UUID_SIZE);
	sb->generation = 1;
	sb->layout = g->p.layout;
	sb->nr_disks = g->p.nr_disks;
	sb->mirrors = g->p.mirrors;
	sb->dilution_x100 = g->p.dilution_x100;
	sb->sync = t->sync;
	sb->chunk_sectors = g->p.chunk_sectors;
	sb->block_size = g->p.block_sectors * 512;
	sb->delay_queue = t->delay_queue;
	sb->len_blocks = g->len_blocks;
	sb->disk_sectors = g->p.disk_sectors;
	sb->region_blocks = g->region_blocks;
	sb->copy_slots = t->journal_copy;
	ew_meta_layout(sb);
	sb->on_members = ew_table_meta_on_members(t);
	/* a journal on rotating members is written near the heads */
	sb->jfree = sb->on_members;
	sb->data_offset_sectors = EW_MEMBER_DATA_OFFSET_SECTORS;
	if (sb->on_members) {
		u32 holders[EW_META_MAX_COPIES];

		sb->data_offset_sectors =
			ew_meta_members_data_offset(sb->total_blocks *
						    EW_META_BLOCK_SECTORS);
		sb->meta_copies = ew_meta_members_holders(sb->layout,
							  sb->nr_disks,
							  sb->mirrors,
							  holders);
	}
	sb->ckpt_area = 0;
	sb->ckpt_seq = 0;
	sb->journal_seq = 1;
	sb->flags = EW_META_SB_CLEAN;
	for (i = 0; i < sb->nr_disks; i++)
		sb->member_gen[i] = 1;
	return 0;
}

u64 ew_meta_sb_encode(const struct ew_meta_sb *sb, void *blk)
{
	struct ew_meta_sb_disk *d = blk;
	u64 blocknr = ew_meta_sb_slot(sb->generation);
	u32 i;

	memset(blk, 0, EW_META_BLOCK_SIZE);
	ew_meta_hdr_put(blk, EW_META_T_SB, 0, sb->generation, blocknr, 0,
			sb->uuid);
	d->layout = cpu_to_le32(sb->layout);
	d->nr_disks = cpu_to_le32(sb->nr_disks);
	d->mirrors = cpu_to_le32(sb->mirrors);
	d->dilution_x100 = cpu_to_le32(sb->dilution_x100);
	d->sync = cpu_to_le32(sb->sync);
	d->chunk_sectors = cpu_to_le32(sb->chunk_sectors);
	d->block_size = cpu_to_le32(sb->block_size);
	d->delay_queue = cpu_to_le32(sb->delay_queue);
	d->len_blocks = cpu_to_le64(sb->len_blocks);
	d->disk_sectors = cpu_to_le64(sb->disk_sectors);
	d->region_blocks = cpu_to_le64(sb->region_blocks);
	d->data_offset_sectors = cpu_to_le64(sb->data_offset_sectors);
	d->meta_block_size = cpu_to_le32(EW_META_BLOCK_SIZE);
	d->ckpt_per_block = cpu_to_le32(sb->ckpt_per_block);
	d->journal_start = cpu_to_le64(sb->journal_start);
	d->journal_slots = cpu_to_le64(sb->journal_slots);
	d->ckpt_start[0] = cpu_to_le64(sb->ckpt_start[0]);
	d->ckpt_start[1] = cpu_to_le64(sb->ckpt_start[1]);
	d->ckpt_blocks = cpu_to_le64(sb->ckpt_blocks);
	d->total_blocks = cpu_to_le64(sb->total_blocks);
	d->ckpt_seq = cpu_to_le64(sb->ckpt_seq);
	d->ckpt_area = cpu_to_le32(sb->ckpt_area);
	d->flags = cpu_to_le32(sb->flags);
	d->journal_seq = cpu_to_le64(sb->journal_seq);
	for (i = 0; i < EW_MAX_DISKS; i++)
		d->member_gen[i] = cpu_to_le64(sb->member_gen[i]);
	d->member_failed = cpu_to_le64(sb->member_failed);
	d->member_rebuilding = cpu_to_le64(sb->member_rebuilding);
	if (sb->copy_slots) {
		d->flags = cpu_to_le32(sb->flags | EW_META_SB_JCOPY);
		d->copy_start = cpu_to_le64(sb->copy_start);
		d->copy_slots = cpu_to_le32(sb->copy_slots);
		d->copy_slot_blocks = cpu_to_le32(sb->copy_slot_blocks);
	}
	d->meta_copies = cpu_to_le32(sb->meta_copies);
	d->meta_copy = cpu_to_le32(sb->meta_copy);
	d->meta_stale = cpu_to_le32(sb->meta_stale);
	if (sb->on_members)
		d->flags |= cpu_to_le32(EW_META_SB_MEMBERS);
	if (sb->jfree)
		d->flags |= cpu_to_le32(EW_META_SB_JFREE);
	ew_meta_seal(blk);
	return blocknr;
}

/* Member state bits only for members there are, never failed and rebuilding. */
static bool ew_meta_sb_members_sane(const struct ew_meta_sb *sb)
{
	u64 all = sb->nr_disks >= 64 ? ~0ULL : (1ULL << sb->nr_disks) - 1;

	return !((sb->member_failed | sb->member_rebuilding) & ~all) &&
	       !(sb->member_failed & sb->member_rebuilding);
}

/*
 * Metadata copies: at most EW_META_MAX_COPIES, this one among them, stale
 * bits only for copies there are and never for the copy written.
 */
static bool ew_meta_sb_copies_sane(const struct ew_meta_sb *sb)
{
	u32 n = sb->meta_copies ? sb->meta_copies : 1;

	return n <= EW_META_MAX_COPIES && sb->meta_copy < n &&
	       !(sb->meta_stale & ~((1U << n) - 1)) &&
	       !(sb->meta_stale & (1U << sb->meta_copy));
}

/* Checks what a superblock says about itself. */
static int ew_meta_sb_sane(const struct ew_meta_sb *sb, const char **why)
{
	struct ew_meta_sb lay = *sb;
	u32 holders[EW_META_MAX_COPIES];

	if (sb->layout >= EW_LAYOUT_NR || sb->nr_disks < EW_MIN_DISKS ||
	    sb->nr_disks > EW_MAX_DISKS || !sb->mirrors ||
	    sb->mirrors > EW_MAX_MIRRORS || sb->mirrors > sb->nr_disks ||
	    sb->block_size < EW_META_BLOCK_SIZE || !sb->len_blocks ||
	    !sb->region_blocks || sb->region_blocks >= EW_MAP_NONE ||
	    !sb->generation || (sb->flags & ~EW_META_SB_FLAGS) ||
	    !ew_meta_sb_members_sane(sb) || !ew_meta_sb_copies_sane(sb)) {
		*why = E_SB_FIELDS;
		return -EINVAL;
	}
	ew_meta_layout(&lay);
	if (lay.ckpt_per_block != sb->ckpt_per_block ||
	    lay.ckpt_blocks != sb->ckpt_blocks ||
	    lay.journal_start != sb->journal_start ||
	    lay.journal_slots != sb->journal_slots ||
	    lay.ckpt_start[0] != sb->ckpt_start[0] ||
	    lay.ckpt_start[1] != sb->ckpt_start[1] ||
	    lay.total_blocks != sb->total_blocks ||
	    lay.copy_start != sb->copy_start ||
	    lay.copy_slot_blocks != sb->copy_slot_blocks ||
	    sb->copy_slots > EW_MAX_JOURNAL_COPY || sb->ckpt_area > 1 ||
	    !sb->journal_seq || sb->ckpt_seq > sb->generation) {
		*why = E_SB_LAYOUT;
		return -EINVAL;
	}
	/* on the members: the data after the image, a copy on each holder */
	if (sb->on_members ?
	    sb->data_offset_sectors !=
	    ew_meta_members_data_offset(sb->total_blocks *
					EW_META_BLOCK_SECTORS) ||
	    sb->meta_copies != ew_meta_members_holders(sb->layout,
						       sb->nr_disks,
						       sb->mirrors, holders) :
	    sb->data_offset_sectors != EW_MEMBER_DATA_OFFSET_SECTORS) {
		*why = E_SB_FIELDS;
		return -EINVAL;
	}
	return 0;
}

int ew_meta_sb_decode(const void *blk, u64 blocknr, struct ew_meta_sb *sb,
		      const char **why)
{
	const struct ew_meta_sb_disk *d = blk;
	u32 i;

	memset(sb, 0, sizeof(*sb));
	if (!ew_meta_hdr_is(blk, EW_META_T_SB)) {
		*why = E_SB_MAGIC;
		return -EINVAL;
	}
	if (!ew_meta_block_crc_ok(blk)) {
		*why = E_SB_CRC;
		return -EINVAL;
	}
	if (le16_to_cpu(d->h.version) != EW_META_VERSION) {
		*why = le16_to_cpu(d->h.version) == 1 ? E_VERSION_1 : E_VERSION;
		return -EINVAL;
	}
	if (le64_to_cpu(d->h.blocknr) != blocknr ||
	    le32_to_cpu(d->meta_block_size) != EW_META_BLOCK_SIZE) {
		*why = E_SB_WHERE;
		return -EINVAL;
	}
	memcpy(sb->uuid, d->h.uuid, EW_META_UUID_SIZE);
	sb->generation = le64_to_cpu(d->h.seq);
	sb->layout = le32_to_cpu(d->layout);
	sb->nr_disks = le32_to_cpu(d->nr_disks);
	sb->mirrors = le32_to_cpu(d->mirrors);
	sb->dilution_x100 = le32_to_cpu(d->dilution_x100);
	sb->sync = le32_to_cpu(d->sync);
	sb->chunk_sectors = le32_to_cpu(d->chunk_sectors);
	sb->block_size = le32_to_cpu(d->block_size);
	sb->delay_queue = le32_to_cpu(d->delay_queue);
	sb->len_blocks = le64_to_cpu(d->len_blocks);
	sb->disk_sectors = le64_to_cpu(d->disk_sectors);
	sb->region_blocks = le64_to_cpu(d->region_blocks);
	sb->data_offset_sectors = le64_to_cpu(d->data_offset_sectors);
	sb->ckpt_per_block = le32_to_cpu(d->ckpt_per_block);
	sb->journal_start = le64_to_cpu(d->journal_start);
	sb->journal_slots = le64_to_cpu(d->journal_slots);
	sb->ckpt_start[0] = le64_to_cpu(d->ckpt_start[0]);
	sb->ckpt_start[1] = le64_to_cpu(d->ckpt_start[1]);
	sb->ckpt_blocks = le64_to_cpu(d->ckpt_blocks);
	sb->total_blocks = le64_to_cpu(d->total_blocks);
	sb->ckpt_seq = le64_to_cpu(d->ckpt_seq);
	sb->ckpt_area = le32_to_cpu(d->ckpt_area);
	sb->flags = le32_to_cpu(d->flags);
	sb->journal_seq = le64_to_cpu(d->journal_seq);
	for (i = 0; i < EW_MAX_DISKS; i++)
		sb->member_gen[i] = le64_to_cpu(d->member_gen[i]);
	sb->member_failed = le64_to_cpu(d->member_failed);
	sb->member_rebuilding = le64_to_cpu(d->member_rebuilding);
	sb->copy_start = le64_to_cpu(d->copy_start);
	sb->copy_slots = le32_to_cpu(d->copy_slots);
	sb->copy_slot_blocks = le32_to_cpu(d->copy_slot_blocks);
	sb->meta_copies = le32_to_cpu(d->meta_copies);
	sb->meta_copy = le32_to_cpu(d->meta_copy);
	sb->meta_stale = le32_to_cpu(d->meta_stale);
	/* JCOPY is set iff there are copy slots; in memory, copy_slots says it */
	if (!(sb->flags & EW_META_SB_JCOPY) != !sb->copy_slots) {
		*why = E_SB_FIELDS;
		return -EINVAL;
	}
	sb->flags &= ~EW_META_SB_JCOPY;
	sb->on_members = sb->flags & EW_META_SB_MEMBERS;
	sb->flags &= ~EW_META_SB_MEMBERS;
	sb->jfree = sb->flags & EW_META_SB_JFREE;
	sb->flags &= ~EW_META_SB_JFREE;
	if (ew_meta_sb_slot(sb->generation) != blocknr) {
		*why = E_SB_WHERE;
		return -EINVAL;
	}
	return ew_meta_sb_sane(sb, why);
}

int ew_meta_sb_pick(const void *blk0, const void *blk1, struct ew_meta_sb *sb,
		    u32 *slot, const char **why)
{
	struct ew_meta_sb s1;
	const char *why0 = NULL, *why1 = NULL;
	int r0, r1;

	r1 = ew_meta_sb_decode(blk1, 1, &s1, &why1);
	if (ew_meta_block_is_zero(blk0)) {
		memset(sb, 0, sizeof(*sb));
		/* never format over a superblock that is still there */
		if (!r1) {
			*why = E_SB_HALF;
			return -EINVAL;
		}
		return -ENODATA;
	}
	r0 = ew_meta_sb_decode(blk0, 0, sb, &why0);
	/* both valid: the newer generation wins */
	if (!r1 && (r0 || s1.generation > sb->generation)) {
		*sb = s1;
		*slot = 1;
		return 0;
	}
	if (!r0) {
		*slot = 0;
		return 0;
	}
	/*
	 * Slot 0 is written first (format), so its fault is the one to
	 * report, unless it is not ours at all and slot 1 says more.
	 */
	if (why0 == E_SB_MAGIC && why1 == E_SB_MAGIC)
		*why = E_NO_SB;
	else if (why0 == E_SB_MAGIC && !ew_meta_block_is_zero(blk1))
		*why = why1;
	else
		*why = why0;
	return -EINVAL;
}

int ew_meta_sb_check_table(const struct ew_meta_sb *sb,
			   const struct ew_table_args *t,
			   const struct ew_geom *g, const char **why)
{
	if (t->layout != sb->layout)
		*why = E_LAYOUT;
	else if (t->nr_disks != sb->nr_disks)
		*why = E_NR_DISKS;
	else if (t->mirrors != sb->mirrors)
		*why = E_MIRRORS;
	else if (ew_layout_eager(sb->layout) &&
		 t->dilution_x100 != sb->dilution_x100)
		*why = E_DILUTION;
	else if (ew_table_meta_on_members(t) != sb->on_members)
		*why = E_META_WHERE;
	else if (t->chunk_sectors != sb->chunk_sectors)
		*why = E_CHUNK;
	else if (t->block_size != sb->block_size)
		*why = E_BSIZE;
	else if (g->len_blocks != sb->len_blocks)
		*why = E_LEN;
	else if (g->p.disk_sectors < sb->disk_sectors)
		*why = E_SMALLER;
	/* the area is sized at create; a table without the key writes none */
	else if (t->journal_copy && t->journal_copy != sb->copy_slots)
		*why = E_JCOPY;
	/* ... and on the members it places the data after it */
	else if (sb->on_members && t->journal_copy != sb->copy_slots)
		*why = E_JCOPY;
	else if (g->region_blocks != sb->region_blocks ||
		 g->p.layout != sb->layout || g->p.nr_disks != sb->nr_disks ||
		 g->p.mirrors != sb->mirrors)
		*why = E_GEOM;
	else
		return 0;
	return -EINVAL;
}

int ew_meta_sb_check_size(const struct ew_meta_sb *sb, u64 dev_sectors,
			  const char **why)
{
	if (dev_sectors / EW_META_BLOCK_SECTORS < sb->total_blocks) {
		*why = E_META_SMALL;
		return -EINVAL;
	}
	return 0;
}

int ew_meta_sb_geom(const struct ew_meta_sb *sb, struct ew_geom *g,
		    const char **why)
{
	struct ew_geom_params p = {
		.layout = sb->layout,
		.nr_disks = sb->nr_disks,
		.mirrors = sb->mirrors,
		.dilution_x100 = sb->dilution_x100,
		.block_sectors = sb->block_size / 512,
		.chunk_sectors = sb->chunk_sectors,
		.disk_sectors = sb->disk_sectors,
	};

	if (ew_geom_init(g, &p, sb->len_blocks, why))
		return -EINVAL;
	if (g->region_blocks != sb->region_blocks) {
		*why = E_GEOM;
		return -EINVAL;
	}
	return 0;
}

void ew_meta_sb_commit_ckpt(struct ew_meta_sb *sb, u32 area, u64 seq,
			    u64 journal_seq)
{
	sb->generation++;
	sb->ckpt_area = area;
	sb->ckpt_seq = seq;
	sb->journal_seq = journal_seq;
}

void ew_meta_sb_skip_lost(struct ew_meta_sb *sb)
{
	sb->generation += EW_META_SB_SLOTS;
}

void ew_meta_sb_set_flags(struct ew_meta_sb *sb, u32 flags)
{
	sb->generation++;
	sb->flags = flags;
}

/* --- checkpoint --- */

/* Where the up-to-date masks start in a checkpoint block. */
static size_t ew_meta_ckpt_mask_off(const struct ew_meta_sb *sb)
{
	return sizeof(struct ew_meta_hdr) +
	       (size_t)sb->ckpt_per_block * sb->mirrors * sizeof(__le32);
}

u64 ew_meta_ckpt_encode(const struct ew_meta_sb *sb, const struct ew_map *m,
			u32 area, u64 seq, u64 idx, void *blk)
{
	u64 first = idx * sb->ckpt_per_block;
	u64 blocknr = sb->ckpt_start[area & 1] + idx;
	__le32 *pb = (__le32 *)((u8 *)blk + sizeof(struct ew_meta_hdr));
	u8 *mask = (u8 *)blk + ew_meta_ckpt_mask_off(sb);
	u32 n = 0, r;

	memset(blk, 0, EW_META_BLOCK_SIZE);
	if (first < m->nr_blocks)
		n = (u32)min_t(u64, sb->ckpt_per_block, m->nr_blocks - first);
	for (r = 0; r < n * sb->mirrors; r++)
		pb[r] = cpu_to_le32(m->pblock[first * sb->mirrors + r]);
	for (r = 0; r < n; r++)
		mask[r] = m->uptodate[first + r];
	ew_meta_hdr_put(blk, EW_META_T_CKPT, n, seq, blocknr, first, sb->uuid);
	ew_meta_seal(blk);
	return blocknr;
}

/* Checkpoint block idx of sb, all but its effect on a map. */
static int ew_meta_ckpt_check(const struct ew_meta_sb *sb, const void *blk,
			      u64 idx, const char **why)
{
	const struct ew_meta_hdr *h = blk;
	const __le32 *pb = (const __le32 *)((const u8 *)blk + sizeof(*h));
	const u8 *mask = (const u8 *)blk + ew_meta_ckpt_mask_off(sb);
	u64 first = idx * sb->ckpt_per_block;
	u32 n, i, full = (1U << sb->mirrors) - 1;

	if (!ew_meta_block_crc_ok(blk)) {
		*why = E_CK_CRC;
		return -EINVAL;
	}
	n = le32_to_cpu(h->nr);
	if (!ew_meta_hdr_is(blk, EW_META_T_CKPT) ||
	    memcmp(h->uuid, sb->uuid, EW_META_UUID_SIZE) ||
	    le64_to_cpu(h->seq) != sb->ckpt_seq ||
	    le64_to_cpu(h->blocknr) != sb->ckpt_start[sb->ckpt_area] + idx ||
	    le64_to_cpu(h->aux) != first || first >= sb->len_blocks ||
	    n != min_t(u64, sb->ckpt_per_block, sb->len_blocks - first)) {
		*why = E_CK_HDR;
		return -EINVAL;
	}
	if (le16_to_cpu(h->version) != EW_META_VERSION) {
		*why = E_VERSION;
		return -EINVAL;
	}
	for (i = 0; i < n * sb->mirrors; i++) {
		u32 p = le32_to_cpu(pb[i]);

		if (p != EW_MAP_NONE && p >= sb->region_blocks) {
			*why = E_CK_ENTRY;
			return -EINVAL;
		}
	}
	for (i = 0; i < n; i++)
		if (mask[i] & ~full) {
			*why = E_CK_ENTRY;
			return -EINVAL;
		}
	return 0;
}

bool ew_meta_ckpt_block_ok(const struct ew_meta_sb *sb, const void *blk,
			   u64 idx)
{
	const char *why;

	return !ew_meta_ckpt_check(sb, blk, idx, &why);
}

int ew_meta_ckpt_decode(const struct ew_meta_sb *sb, const void *blk, u64 idx,
			struct ew_map *m, const char **why)
{
	const struct ew_meta_hdr *h = blk;
	const __le32 *pb = (const __le32 *)((const u8 *)blk + sizeof(*h));
	const u8 *mask = (const u8 *)blk + ew_meta_ckpt_mask_off(sb);
	u64 first = idx * sb->ckpt_per_block;
	u32 n, i;
	int ret;

	ret = ew_meta_ckpt_check(sb, blk, idx, why);
	if (ret)
		return ret;
	if (m->nr_blocks != sb->len_blocks || m->mirrors != sb->mirrors) {
		*why = E_CK_HDR;
		return -EINVAL;
	}
	n = le32_to_cpu(h->nr);
	for (i = 0; i < n * sb->mirrors; i++)
		m->pblock[first * sb->mirrors + i] = le32_to_cpu(pb[i]);
	memcpy(m->uptodate + first, mask, n);
	return 0;
}

/* --- journal --- */

u64 ew_meta_jslot_blocknr(const struct ew_meta_sb *sb, u64 slot)
{
	return sb->journal_start + slot * EW_META_JOURNAL_COPIES;
}

u64 ew_meta_journal_blocknr(const struct ew_meta_sb *sb, u64 seq)
{
	u64 off;

	div64_u64_rem(seq, sb->journal_slots, &off);
	return sb->journal_start + off * EW_META_JOURNAL_COPIES;
}

void ew_meta_jbuf_init(struct ew_meta_jbuf *j, void *slot)
{
	j->blk = slot;
	j->nr = 0;
	memset(slot, 0, EW_META_JSLOT_SIZE);
}

static struct ew_meta_jrec_disk *ew_meta_jrec(const void *blk, u32 i)
{
	return (struct ew_meta_jrec_disk *)((u8 *)blk +
		sizeof(struct ew_meta_hdr)) + i;
}

int ew_meta_jbuf_add(struct ew_meta_jbuf *j, const struct ew_meta_rec *r)
{
	struct ew_meta_jrec_disk *d;

	if (r->type < EW_JREC_REMAP || r->type > EW_JREC_UNCOPY ||
	    r->replica >= EW_MAX_MIRRORS)
		return -EINVAL;
	if (j->nr >= EW_META_JREC_PER_BLOCK)
		return -ENOSPC;
	d = ew_meta_jrec(j->blk, j->nr++);
	d->type = r->type;
	d->replica = r->type == EW_JREC_REMAP ? (u8)r->replica : 0;
	d->uptodate = r->type == EW_JREC_DISCARD ? 0 : r->uptodate;
	d->reserved = 0;
	switch (r->type) {
	case EW_JREC_DISCARD:
		d->pblock = cpu_to_le32(r->count);
		break;
	case EW_JREC_REMAP:
		d->pblock = cpu_to_le32(r->pblock);
		break;
	case EW_JREC_COPY:
	case EW_JREC_UNCOPY:
		d->uptodate = 0;
		d->pblock = cpu_to_le32(r->slot);
		break;
	default:
		d->pblock = 0;
		break;
	}
	d->lblock = cpu_to_le64(r->lblock);
	return 0;
}

int ew_meta_jbuf_log_block(struct ew_meta_jbuf *j, const struct ew_map *m,
			   u64 lblock, u8 replicas)
{
	struct ew_meta_rec rec = {
		.lblock = lblock,
		.uptodate = ew_map_uptodate(m, lblock),
	};
	u32 r, need = 0;

	for (r = 0; r < m->mirrors; r++)
		if (replicas & (1U << r))
			need++;
	if (j->nr + max_t(u32, need, 1) > EW_META_JREC_PER_BLOCK)
		return -ENOSPC;
	if (!need) {
		rec.type = EW_JREC_MASK;
		return ew_meta_jbuf_add(j, &rec);
	}
	rec.type = EW_JREC_REMAP;
	for (r = 0; r < m->mirrors; r++) {
		if (!(replicas & (1U << r)))
			continue;
		rec.replica = r;
		rec.pblock = ew_map_pblock(m, lblock, r);
		ew_meta_jbuf_add(j, &rec);
	}
	return 0;
}

int ew_meta_jbuf_log_discard(struct ew_meta_jbuf *j, u64 lblock, u32 count)
{
	struct ew_meta_rec rec = {
		.type = EW_JREC_DISCARD,
		.lblock = lblock,
		.count = count,
	};

	return ew_meta_jbuf_add(j, &rec);
}

int ew_meta_jbuf_log_copy(struct ew_meta_jbuf *j, u64 lblock, u32 slot,
			  bool copy)
{
	struct ew_meta_rec rec = {
		.type = copy ? EW_JREC_COPY : EW_JREC_UNCOPY,
		.lblock = lblock,
		.slot = slot,
	};

	return ew_meta_jbuf_add(j, &rec);
}

u64 ew_meta_jbuf_seal(struct ew_meta_jbuf *j, const struct ew_meta_sb *sb,
		      u64 seq)
{
	return ew_meta_jbuf_seal_at(j, sb, seq,
				    ew_meta_journal_blocknr(sb, seq));
}

u64 ew_meta_jbuf_seal_at(struct ew_meta_jbuf *j, const struct ew_meta_sb *sb,
			 u64 seq, u64 blocknr)
{
	u8 *copy = j->blk;
	u32 c;

	for (c = 0; c < EW_META_JOURNAL_COPIES; c++) {
		if (c)
			memcpy(copy + c * EW_META_BLOCK_SIZE, copy,
			       EW_META_BLOCK_SIZE);
		/* each copy names its own block: a misplaced one is caught */
		ew_meta_hdr_put(copy + c * EW_META_BLOCK_SIZE,
				EW_META_T_JOURNAL, j->nr, seq, blocknr + c, 0,
				sb->uuid);
		ew_meta_seal(copy + c * EW_META_BLOCK_SIZE);
	}
	return blocknr;
}

void ew_meta_jrec_get(const void *blk, u32 i, struct ew_meta_rec *r)
{
	const struct ew_meta_jrec_disk *d = ew_meta_jrec(blk, i);

	memset(r, 0, sizeof(*r));
	r->type = d->type;
	r->replica = d->replica;
	r->uptodate = d->uptodate;
	r->lblock = le64_to_cpu(d->lblock);
	if (d->type == EW_JREC_DISCARD)
		r->count = le32_to_cpu(d->pblock);
	else if (d->type == EW_JREC_COPY || d->type == EW_JREC_UNCOPY)
		r->slot = le32_to_cpu(d->pblock);
	else
		r->pblock = le32_to_cpu(d->pblock);
}

/* Is the record valid for this array? */
static bool ew_meta_rec_ok(const struct ew_meta_sb *sb,
			   const struct ew_meta_rec *r)
{
	u32 full = (1U << sb->mirrors) - 1;

	switch (r->type) {
	case EW_JREC_REMAP:
		if (r->replica >= sb->mirrors || (r->pblock != EW_MAP_NONE &&
						  r->pblock >= sb->region_blocks))
			return false;
		fallthrough;
	case EW_JREC_MASK:
		return r->lblock < sb->len_blocks && !(r->uptodate & ~full);
	case EW_JREC_DISCARD:
		return r->count && r->lblock < sb->len_blocks &&
		       r->count <= sb->len_blocks - r->lblock;
	case EW_JREC_COPY:
	case EW_JREC_UNCOPY:
		/* only in an array with copy slots */
		return r->slot < sb->copy_slots && r->lblock < sb->len_blocks &&
		       !r->replica && !r->uptodate;
	default:
		return false;
	}
}

/*
 * Classifies copy c of journal block seq: 1 valid, 0 not this block
 * (torn, never written, another array's or the previous lap of the ring,
 * the same in either copy), -EINVAL corrupt.
 */
static int ew_meta_journal_classify(const struct ew_meta_sb *sb, u64 seq,
				    u64 bn, u32 c, const void *blk,
				    const char **why)
{
	const struct ew_meta_hdr *h = blk;
	u64 bseq;

	/* torn, never written, or another array's: not this block */
	if (!ew_meta_block_crc_ok(blk) || le32_to_cpu(h->magic) != EW_META_MAGIC ||
	    memcmp(h->uuid, sb->uuid, EW_META_UUID_SIZE))
		return 0;
	if (le16_to_cpu(h->type) != EW_META_T_JOURNAL) {
		*why = E_J_TYPE;
		return -EINVAL;
	}
	if (le16_to_cpu(h->version) != EW_META_VERSION) {
		*why = le16_to_cpu(h->version) == 1 ? E_VERSION_1 : E_VERSION;
		return -EINVAL;
	}
	bseq = le64_to_cpu(h->seq);
	/* in a ring, a seq has one slot; with jfree, any slot */
	if (le64_to_cpu(h->blocknr) != bn + c ||
	    (!sb->jfree && ew_meta_journal_blocknr(sb, bseq) != bn)) {
		*why = E_J_WHERE;
		return -EINVAL;
	}
	if (bseq < seq)
		return 0;	/* a previous lap of the ring, a freed slot */
	if (bseq > seq) {
		*why = E_J_FUTURE;
		return -EINVAL;
	}
	if (le32_to_cpu(h->nr) > EW_META_JREC_PER_BLOCK) {
		*why = E_J_REC;
		return -EINVAL;
	}
	return 1;
}

/*
 * The copy of journal block seq to use: 0 or 1; -1 when neither is
 * valid (the end of the journal); -EINVAL when copy *bad is corrupt.
 * *damaged: the copy that is not valid beside one that is.
 */
static int ew_meta_journal_pick(const struct ew_meta_sb *sb, u64 seq,
				u64 bn, const void *slot, u32 *damaged,
				u32 *bad, const char **why)
{
	const u8 *b = slot;
	int v[EW_META_JOURNAL_COPIES], use = -1;
	u32 c;

	*damaged = 0;
	for (c = 0; c < EW_META_JOURNAL_COPIES; c++) {
		v[c] = ew_meta_journal_classify(sb, seq, bn, c,
						b + c * EW_META_BLOCK_SIZE, why);
		if (v[c] < 0) {
			*bad = c;
			return v[c];
		}
		if (v[c] == 1 && use < 0)
			use = (int)c;
	}
	if (use < 0)
		return -1;
	for (c = 0; c < EW_META_JOURNAL_COPIES; c++)
		if (!v[c])
			*damaged |= 1U << c;
	return use;
}

bool ew_meta_journal_probe(const struct ew_meta_sb *sb, u64 seq,
			   const void *slot)
{
	const char *why;
	u32 damaged, bad;

	return ew_meta_journal_pick(sb, seq, ew_meta_journal_blocknr(sb, seq),
				    slot, &damaged, &bad, &why) >= 0;
}

u32 ew_meta_journal_valid(const struct ew_meta_sb *sb, u64 seq,
			  const void *slot)
{
	return ew_meta_journal_valid_at(sb, seq,
					ew_meta_journal_blocknr(sb, seq),
					slot);
}

u32 ew_meta_journal_valid_at(const struct ew_meta_sb *sb, u64 seq, u64 bn,
			     const void *slot)
{
	const u8 *b = slot;
	const char *why;
	u32 c, mask = 0;

	for (c = 0; c < EW_META_JOURNAL_COPIES; c++)
		if (ew_meta_journal_classify(sb, seq, bn, c,
					     b + c * EW_META_BLOCK_SIZE,
					     &why) == 1)
			mask |= 1U << c;
	return mask;
}

int ew_meta_jslot_seq(const struct ew_meta_sb *sb, u64 bn, const void *slot,
		      u64 *seq, const char **why)
{
	const struct ew_meta_hdr *h;
	const u8 *b = slot;
	u64 s, found = 0;
	u32 c;
	int ret;

	for (c = 0; c < EW_META_JOURNAL_COPIES; c++) {
		h = (const void *)(b + c * EW_META_BLOCK_SIZE);
		s = le64_to_cpu(h->seq);
		/* older than the journal: a freed slot */
		if (s < sb->journal_seq)
			continue;
		ret = ew_meta_journal_classify(sb, s, bn, c, h, why);
		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		/* written after a superblock newer than this one */
		if (s - sb->journal_seq >= sb->journal_slots) {
			*why = E_J_FUTURE;
			return -EINVAL;
		}
		if (found && found != s) {
			*why = E_J_TWICE;
			return -EINVAL;
		}
		found = s;
	}
	*seq = found;
	return found ? 1 : 0;
}

int ew_meta_jindex_add(struct ew_meta_jindex *x, u64 seq, u32 slot,
		       const char **why)
{
	u32 *e;

	if (seq < x->base || seq - x->base >= x->n)
		return 0;
	e = &x->slot[seq - x->base];
	if (*e && *e != slot + 1) {
		*why = E_J_TWICE;
		return -EINVAL;
	}
	*e = slot + 1;
	return 0;
}

int ew_meta_jindex_end(const struct ew_meta_jindex *x, u64 *end,
		       const char **why)
{
	u64 i = 0, j;

	while (i < x->n && x->slot[i])
		i++;
	*end = x->base + i;
	for (j = i; j < x->n; j++) {
		if (x->slot[j]) {
			*why = E_J_HOLE;
			return -EINVAL;
		}
	}
	return 0;
}

/* A record's effect on the live copy slots (see struct ew_meta_copies). */
static void ew_meta_apply_copy(struct ew_meta_copies *c, u64 seq,
			       const struct ew_meta_rec *r)
{
	u32 s;

	switch (r->type) {
	case EW_JREC_COPY:
		c->lblock[r->slot] = r->lblock;
		c->seq[r->slot] = seq;
		break;
	case EW_JREC_UNCOPY:
		if (c->lblock[r->slot] == r->lblock)
			c->lblock[r->slot] = EW_META_COPY_NONE;
		break;
	case EW_JREC_DISCARD:
		for (s = 0; s < c->nr; s++)
			if (c->lblock[s] != EW_META_COPY_NONE &&
			    c->lblock[s] >= r->lblock &&
			    c->lblock[s] - r->lblock < r->count)
				c->lblock[s] = EW_META_COPY_NONE;
		break;
	default:
		break;
	}
}

static void ew_meta_apply(const struct ew_geom *g, struct ew_map *m,
			  const struct ew_meta_rec *r)
{
	u32 home[EW_MAX_MIRRORS], freed[EW_MAX_MIRRORS];
	u64 b;

	switch (r->type) {
	case EW_JREC_REMAP:
		m->pblock[r->lblock * m->mirrors + r->replica] = r->pblock;
		m->uptodate[r->lblock] = r->uptodate;
		break;
	case EW_JREC_MASK:
		m->uptodate[r->lblock] = r->uptodate;
		break;
	case EW_JREC_DISCARD:
		for (b = r->lblock; b < r->lblock + r->count; b++) {
			ew_meta_homes(g, b, home);
			ew_map_discard(m, b, home, freed);
		}
		break;
	case EW_JREC_COPY:
	case EW_JREC_UNCOPY:
		break;	/* the copy slots, not the map (ew_meta_apply_copy()) */
	}
}

int ew_meta_replay_block(const struct ew_meta_sb *sb, const struct ew_geom *g,
			 struct ew_map *m, u64 seq, const void *slot,
			 struct ew_meta_jslot_res *res, const char **why)
{
	return ew_meta_replay_block_copies(sb, g, m, seq, slot, NULL, res,
					   why);
}

int ew_meta_replay_block_copies(const struct ew_meta_sb *sb,
				const struct ew_geom *g, struct ew_map *m,
				u64 seq, const void *slot,
				struct ew_meta_copies *c,
				struct ew_meta_jslot_res *res,
				const char **why)
{
	return ew_meta_replay_block_at(sb, g, m, seq,
				       ew_meta_journal_blocknr(sb, seq), slot,
				       c, res, why);
}

int ew_meta_replay_block_at(const struct ew_meta_sb *sb,
			    const struct ew_geom *g, struct ew_map *m,
			    u64 seq, u64 bn, const void *slot,
			    struct ew_meta_copies *c,
			    struct ew_meta_jslot_res *res, const char **why)
{
	const u8 *blk;
	struct ew_meta_rec r;
	u32 i, n;
	int use;

	memset(res, 0, sizeof(*res));
	use = ew_meta_journal_pick(sb, seq, bn, slot, &res->damaged,
				   &res->bad_copy, why);
	if (use == -1)
		return 0;
	if (use < 0)
		return use;
	blk = (const u8 *)slot + use * EW_META_BLOCK_SIZE;
	n = le32_to_cpu(((const struct ew_meta_hdr *)blk)->nr);
	for (i = 0; i < n; i++) {
		ew_meta_jrec_get(blk, i, &r);
		if (!ew_meta_rec_ok(sb, &r)) {
			res->bad_copy = use;
			*why = E_J_REC;
			return -EINVAL;
		}
	}
	for (i = 0; i < n; i++) {
		ew_meta_jrec_get(blk, i, &r);
		ew_meta_apply(g, m, &r);
		if (c && c->nr == sb->copy_slots)
			ew_meta_apply_copy(c, seq, &r);
	}
	res->records = n;
	return 1;
}

static const void *ew_meta_jslot(const struct ew_meta_sb *sb,
				 const void *area, u64 seq)
{
	return (const u8 *)area + (ew_meta_journal_blocknr(sb, seq) -
				   sb->journal_start) * EW_META_BLOCK_SIZE;
}

static int ew_meta_replay_all(const struct ew_meta_sb *sb,
			      const struct ew_geom *g, struct ew_map *m,
			      const void *area, struct ew_meta_copies *copies,
			      struct ew_meta_replay_res *res, const char **why);

int ew_meta_replay(const struct ew_meta_sb *sb, const struct ew_geom *g,
		   struct ew_map *m, const void *area,
		   struct ew_meta_replay_res *res, const char **why)
{
	return ew_meta_replay_copies(sb, g, m, area, NULL, res, why);
}

/* Block seq applied, from its slot at bn (first: the journal's seq). */
static void ew_meta_replay_damaged(struct ew_meta_replay_res *res, u64 first,
				   u64 seq, u64 bn, u32 damaged)
{
	u32 c;

	if (seq - first < res->nblocks)
		res->blocks[seq - first] = bn;

	for (c = 0; c < EW_META_JOURNAL_COPIES; c++) {
		if (!(damaged & (1U << c)))
			continue;
		if (res->nr_damaged < EW_META_REPLAY_DAMAGE_MAX) {
			res->damaged_seq[res->nr_damaged] = seq;
			res->damaged_copy[res->nr_damaged] = c;
			res->damaged_bn[res->nr_damaged] = bn + c;
		}
		res->nr_damaged++;
	}
}

/*
 * jfree: every slot of the area read for the live journal block it
 * holds (ew_meta_jslot_seq()), then the blocks applied in seq order; a
 * live block past the first missing seq means that one was lost.
 */
static int ew_meta_replay_jfree(const struct ew_meta_sb *sb,
				const struct ew_geom *g, struct ew_map *m,
				const void *area, struct ew_meta_copies *copies,
				struct ew_meta_replay_res *res,
				const char **why)
{
	struct ew_meta_jindex x = { .base = sb->journal_seq,
				    .n = sb->journal_slots };
	struct ew_meta_jslot_res js;
	const u8 *a = area;
	u64 slot, seq, bn, end;
	int ret = 0;

	x.slot = ew_zalloc(x.n * sizeof(*x.slot));
	if (!x.slot)
		return -ENOMEM;
	res->bad_copy = EW_META_JOURNAL_COPIES;
	res->end_seq = sb->journal_seq;
	for (slot = 0; slot < sb->journal_slots; slot++) {
		bn = ew_meta_jslot_blocknr(sb, slot);
		ret = ew_meta_jslot_seq(sb, bn, a + slot * EW_META_JSLOT_SIZE,
					&seq, why);
		if (!ret)
			continue;
		if (ret > 0) {
			ret = ew_meta_jindex_add(&x, seq, slot, why);
			res->end_seq = seq;
		}
		if (ret < 0) {
			res->end_bn = bn;
			goto out;
		}
	}
	for (seq = x.base; seq - x.base < x.n && x.slot[seq - x.base]; seq++) {
		slot = x.slot[seq - x.base] - 1;
		bn = ew_meta_jslot_blocknr(sb, slot);
		ret = ew_meta_replay_block_at(sb, g, m, seq, bn,
					      a + slot * EW_META_JSLOT_SIZE,
					      copies, &js, why);
		res->end_seq = seq;
		res->end_bn = bn;
		if (ret < 0) {
			res->bad_copy = js.bad_copy;
			goto out;
		}
		res->records += js.records;
		ew_meta_replay_damaged(res, sb->journal_seq, seq, bn,
				       js.damaged);
	}
	res->end_seq = seq;
	res->end_bn = 0;
	ret = ew_meta_jindex_end(&x, &end, why);
out:
	ew_free(x.slot);
	return ret;
}

int ew_meta_replay_copies(const struct ew_meta_sb *sb,
			  const struct ew_geom *g, struct ew_map *m,
			  const void *area, struct ew_meta_copies *copies,
			  struct ew_meta_replay_res *res, const char **why)
{
	memset(res, 0, sizeof(*res));
	return ew_meta_replay_all(sb, g, m, area, copies, res, why);
}

int ew_meta_replay_where(const struct ew_meta_sb *sb, const struct ew_geom *g,
			 struct ew_map *m, const void *area, u64 *blocks,
			 u64 nblocks, struct ew_meta_replay_res *res,
			 const char **why)
{
	memset(res, 0, sizeof(*res));
	res->blocks = blocks;
	res->nblocks = blocks ? nblocks : 0;
	return ew_meta_replay_all(sb, g, m, area, NULL, res, why);
}

/* res zeroed but for blocks and nblocks */
static int ew_meta_replay_all(const struct ew_meta_sb *sb,
			      const struct ew_geom *g, struct ew_map *m,
			      const void *area, struct ew_meta_copies *copies,
			      struct ew_meta_replay_res *res, const char **why)
{
	struct ew_meta_jslot_res js;
	u64 seq = sb->journal_seq, n;
	int ret = 0;

	if (sb->jfree)
		return ew_meta_replay_jfree(sb, g, m, area, copies, res, why);
	for (n = 0; n < sb->journal_slots; n++, seq++) {
		ret = ew_meta_replay_block_copies(sb, g, m, seq,
						  ew_meta_jslot(sb, area, seq),
						  copies, &js, why);
		if (ret <= 0)
			break;
		res->records += js.records;
		ew_meta_replay_damaged(res, sb->journal_seq, seq,
				       ew_meta_journal_blocknr(sb, seq),
				       js.damaged);
	}
	res->end_seq = seq;
	res->end_bn = ew_meta_journal_blocknr(sb, seq);
	if (ret < 0) {
		res->bad_copy = js.bad_copy;
		return ret;
	}
	res->bad_copy = EW_META_JOURNAL_COPIES;
	if (n + 1 < sb->journal_slots)
		return ew_meta_journal_end(sb, seq,
					   ew_meta_jslot(sb, area, seq + 1),
					   why);
	return 0;
}

int ew_meta_journal_end(const struct ew_meta_sb *sb, u64 seq,
			const void *next, const char **why)
{
	if (ew_meta_journal_probe(sb, seq + 1, next)) {
		*why = E_J_HOLE;
		return -EINVAL;
	}
	return 0;
}

/* --- copy slots --- */

u64 ew_meta_copy_blocknr(const struct ew_meta_sb *sb, u32 slot)
{
	return sb->copy_start + (u64)slot * sb->copy_slot_blocks;
}

/*
 * The header: nr = block size, seq = the journal block of the COPY
 * record, aux = the logical block, reserved = crc32c of the data.
 */
u64 ew_meta_copy_encode(const struct ew_meta_sb *sb, u32 slot, u64 lblock,
			u64 seq, const void *data, void *hdr)
{
	u64 blocknr = ew_meta_copy_blocknr(sb, slot);
	struct ew_meta_hdr *h = hdr;

	memset(hdr, 0, EW_META_BLOCK_SIZE);
	ew_meta_hdr_put(hdr, EW_META_T_COPY, sb->block_size, seq, blocknr,
			lblock, sb->uuid);
	h->reserved = cpu_to_le64(ew_crc32c(~0U, data, sb->block_size));
	ew_meta_seal(hdr);
	return blocknr;
}

int ew_meta_copy_check(const struct ew_meta_sb *sb, u32 slot, u64 lblock,
		       u64 seq, const void *hdr, const void *data,
		       const char **why)
{
	const struct ew_meta_hdr *h = hdr;

	if (slot >= sb->copy_slots || !ew_meta_hdr_is(hdr, EW_META_T_COPY) ||
	    !ew_meta_block_crc_ok(hdr) ||
	    le16_to_cpu(h->version) != EW_META_VERSION ||
	    memcmp(h->uuid, sb->uuid, EW_META_UUID_SIZE) ||
	    le64_to_cpu(h->blocknr) != ew_meta_copy_blocknr(sb, slot) ||
	    le32_to_cpu(h->nr) != sb->block_size ||
	    (le64_to_cpu(h->seq) != seq &&
	     le64_to_cpu(h->seq) >= sb->journal_seq) ||
	    le64_to_cpu(h->aux) != lblock) {
		*why = E_CP_HDR;
		return -EINVAL;
	}
	if (le64_to_cpu(h->reserved) !=
	    ew_crc32c(~0U, data, sb->block_size)) {
		*why = E_CP_DATA;
		return -EINVAL;
	}
	return 0;
}

/* --- the map --- */

void ew_meta_homes(const struct ew_geom *g, u64 lblock, u32 *home)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 r;

	ew_geom_map(g, lblock, rep);
	for (r = 0; r < g->p.mirrors; r++)
		home[r] = rep[r].home == EW_NO_BLOCK ? EW_MAP_NONE :
			  (u32)rep[r].home;
}

u64 ew_meta_map_used_words(const struct ew_geom *g)
{
	return DIV_ROUND_UP(g->region_blocks, 64);
}

int ew_meta_map_check(const struct ew_geom *g, const struct ew_map *m,
		      u64 *lblock, u32 *replica, const char **why)
{
	u64 *used;
	int ret;

	used = ew_zalloc(ew_meta_map_used_words(g) * g->p.nr_disks *
			 sizeof(u64));
	if (!used)
		return -ENOMEM;
	ret = ew_meta_map_check_used(g, m, used, lblock, replica, why);
	ew_free(used);
	return ret;
}

int ew_meta_map_check_used(const struct ew_geom *g, const struct ew_map *m,
			   u64 *used, u64 *lblock, u32 *replica,
			   const char **why)
{
	u64 words = ew_meta_map_used_words(g);
	struct ew_replica rep[EW_MAX_MIRRORS];
	u64 l;
	u32 r;
	int ret = 0;

	for (l = 0; l < m->nr_blocks && !ret; l++) {
		if (ew_map_empty(m, l))
			continue;
		ew_geom_map(g, l, rep);
		for (r = 0; r < m->mirrors; r++) {
			u32 p = ew_map_pblock(m, l, r);
			u64 *w, bit;

			if (p == EW_MAP_NONE) {
				if (ew_map_uptodate(m, l) & (1U << r)) {
					*why = E_MAP_MASK;
					ret = -EINVAL;
					break;
				}
				continue;
			}
			if (p >= g->region_blocks) {
				*why = E_MAP_RANGE;
				ret = -EINVAL;
				break;
			}
			if (p != rep[r].home &&
			    ew_geom_is_home(g, rep[r].disk, p)) {
				*why = E_MAP_HOME;
				ret = -EINVAL;
				break;
			}
			w = &used[rep[r].disk * words + p / 64];
			bit = 1ULL << (p % 64);
			if (*w & bit) {
				*why = E_MAP_TWICE;
				ret = -EINVAL;
				break;
			}
			*w |= bit;
		}
		if (ret) {
			*lblock = l;
			*replica = r;
		}
	}
	return ret;
}

/* --- member labels --- */

void ew_meta_label_encode(const struct ew_meta_sb *sb, u32 member, void *blk)
{
	struct ew_meta_label_disk *d = blk;

	memset(blk, 0, EW_META_BLOCK_SIZE);
	ew_meta_hdr_put(blk, EW_META_T_LABEL, 0, sb->member_gen[member], 0, 0,
			sb->uuid);
	d->member = cpu_to_le32(member);
	d->nr_disks = cpu_to_le32(sb->nr_disks);
	d->layout = cpu_to_le32(sb->layout);
	d->mirrors = cpu_to_le32(sb->mirrors);
	d->dilution_x100 = cpu_to_le32(sb->dilution_x100);
	d->chunk_sectors = cpu_to_le32(sb->chunk_sectors);
	d->block_size = cpu_to_le32(sb->block_size);
	d->len_blocks = cpu_to_le64(sb->len_blocks);
	d->region_blocks = cpu_to_le64(sb->region_blocks);
	d->data_offset_sectors = cpu_to_le64(sb->data_offset_sectors);
	ew_meta_seal(blk);
}

int ew_meta_label_decode(const void *blk, struct ew_meta_label *l,
			 const char **why)
{
	const struct ew_meta_label_disk *d = blk;

	memset(l, 0, sizeof(*l));
	if (!ew_meta_hdr_is(blk, EW_META_T_LABEL)) {
		*why = E_LB_MAGIC;
		return -EINVAL;
	}
	if (!ew_meta_block_crc_ok(blk)) {
		*why = E_LB_CRC;
		return -EINVAL;
	}
	if (le16_to_cpu(d->h.version) != EW_META_VERSION) {
		*why = E_VERSION;
		return -EINVAL;
	}
	if (le64_to_cpu(d->h.blocknr)) {
		*why = E_LB_WHERE;
		return -EINVAL;
	}
	memcpy(l->uuid, d->h.uuid, EW_META_UUID_SIZE);
	l->generation = le64_to_cpu(d->h.seq);
	l->member = le32_to_cpu(d->member);
	l->nr_disks = le32_to_cpu(d->nr_disks);
	l->layout = le32_to_cpu(d->layout);
	l->mirrors = le32_to_cpu(d->mirrors);
	l->dilution_x100 = le32_to_cpu(d->dilution_x100);
	l->chunk_sectors = le32_to_cpu(d->chunk_sectors);
	l->block_size = le32_to_cpu(d->block_size);
	l->len_blocks = le64_to_cpu(d->len_blocks);
	l->region_blocks = le64_to_cpu(d->region_blocks);
	l->data_offset_sectors = le64_to_cpu(d->data_offset_sectors);
	return 0;
}

int ew_meta_label_check(const struct ew_meta_sb *sb, const void *blk,
			u32 member, const char **why)
{
	struct ew_meta_label l;

	if (ew_meta_label_decode(blk, &l, why))
		return -EINVAL;
	if (memcmp(l.uuid, sb->uuid, EW_META_UUID_SIZE))
		*why = E_LB_UUID;
	else if (l.nr_disks != sb->nr_disks)
		*why = E_LB_COUNT;
	else if (l.member != member)
		*why = E_LB_INDEX;
	else if (l.layout != sb->layout || l.mirrors != sb->mirrors ||
		 l.dilution_x100 != sb->dilution_x100 ||
		 l.chunk_sectors != sb->chunk_sectors ||
		 l.block_size != sb->block_size ||
		 l.len_blocks != sb->len_blocks ||
		 l.region_blocks != sb->region_blocks ||
		 l.data_offset_sectors != sb->data_offset_sectors)
		*why = E_LB_GEOM;
	else if (member >= EW_MAX_DISKS || l.generation != sb->member_gen[member])
		*why = E_LB_GEN;
	else
		return 0;
	return -EINVAL;
}
