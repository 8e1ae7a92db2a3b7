/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_meta.h - the persistent metadata: on-disk format, encoding,
 * validation and journal replay (Documentation/on-disk-format.rst).
 *
 * The metadata device holds, in 4 KiB blocks:
 *   block 0, 1        superblock slots; generation g lives in slot
 *                     (g + 1) % 2, so a torn superblock write leaves the
 *                     previous generation valid in the other slot;
 *   journal area      journal_slots slots of two blocks, a ring:
 *                     journal block seq lives in slot seq % journal_slots,
 *                     twice (copies 0 and 1, written by one 8 KiB
 *                     write), so that one damaged copy is not mistaken
 *                     for the torn end of the journal;
 *   checkpoint 0, 1   two areas of ckpt_blocks blocks each; a checkpoint
 *                     goes to the area the superblock does not name;
 *   copy slots        only with journal_copy (flag JCOPY): copy_slots
 *                     slots of copy_slot_blocks blocks, a header block
 *                     and a copy of one data block each, the second
 *                     durable copy of a sync 1 write until its delayed
 *                     replica is written (COPY and UNCOPY records).
 * Every block starts with struct ew_meta_hdr (magic, crc32c over the
 * block with the crc field zeroed, type, version, seq, own block number,
 * array UUID).  Each data device carries a member label in its first
 * 4 KiB; the layout's blocks start EW_MEMBER_DATA_OFFSET_SECTORS in.
 *
 * The map is rebuilt from the checkpoint the superblock names plus the
 * journal from journal_seq on.  Journal records are absolute (they set
 * a replica's block and the block's up-to-date mask), so replaying one
 * twice changes nothing and a checkpoint may be taken while the map
 * changes.  Free blocks are not recorded: a block is free iff no map
 * entry points to it (homes aside), so a block freed by a remap must not
 * be reused before the journal block holding that remap is durable.
 *
 * Pure functions over caller-provided 4 KiB buffers: no I/O, no locks,
 * no clock.  Error strings are static (they may become ti->error).
 */
#ifndef EW_META_H
#define EW_META_H

#include "ew_compat.h"
#include "ew_geom.h"
#include "ew_table.h"
#include "ew_map.h"

#define EW_META_MAGIC		0x444d5745U	/* "EWMD" on disk */
#define EW_META_VERSION		2
#define EW_META_BLOCK_SIZE	4096
#define EW_META_BLOCK_SECTORS	(EW_META_BLOCK_SIZE / 512)
#define EW_META_UUID_SIZE	16

/* Layout blocks on each data device start after the member label. */
#define EW_MEMBER_DATA_OFFSET_SECTORS	2048ULL	/* 1 MiB */

/*
 * Superblock flags.  CLEAN: written by a clean shutdown (the target's
 * postsuspend), with nothing to replay and no write in flight; cleared in
 * a new generation before the next write is accepted.  Loading with it
 * clear means the array was not shut down cleanly.
 */
#define EW_META_SB_CLEAN	0x1U
/*
 * FORMATTING: format wrote this superblock before the member labels; a
 * superblock with it set names an array whose format did not finish, and
 * opening it formats again (over labels of this uuid or none).
 */
#define EW_META_SB_FORMATTING	0x2U
#define EW_META_SB_FLAGS	(EW_META_SB_CLEAN | EW_META_SB_FORMATTING)
/*
 * JCOPY: the array has copy slots (copy_slots > 0).  Only on disk: the
 * encoder sets it from copy_slots and the decoder checks and clears it,
 * so struct ew_meta_sb's flags hold CLEAN and FORMATTING alone.  A module
 * that predates it refuses the superblock (an unknown flag), where it
 * would otherwise ignore the copies a recovery needs.
 */
#define EW_META_SB_JCOPY	0x4U

/*
 * MEMBERS: the metadata is kept on the members (the table's "-" for the
 * metadata device): copy c of the image starts
 * EW_MEMBER_META_OFFSET_SECTORS into member ew_meta_members_holders()[c],
 * and every member's layout at ew_meta_members_data_offset().  Only on
 * disk, as JCOPY: in memory sb->on_members says it.
 */
#define EW_META_SB_MEMBERS	0x8U
/*
 * JFREE: a journal block may be in any slot of the journal area that
 * holds no live block (a block whose seq is below the superblock's
 * journal_seq, or none), not only in slot seq % journal_slots: the
 * target writes each one where the holders' heads reach first
 * (Documentation/on-disk-format.rst, "The journal written near the
 * heads").  Recovery reads every slot and orders the live blocks by seq.
 * Only on disk, as JCOPY: in memory sb->jfree says it.  Set at format
 * for an array with its metadata on the members.
 */
#define EW_META_SB_JFREE	0x10U
#define EW_MEMBER_META_OFFSET_SECTORS	EW_MEMBER_DATA_OFFSET_SECTORS

/* Copies of the metadata image an array can have (metadata_mirror: 2). */
#define EW_META_MAX_COPIES	8

/* Block numbers of the superblock slots and the first journal block. */
#define EW_META_SB_SLOTS	2
#define EW_META_JOURNAL_START	2
/*
 * Journal size: as many blocks as one checkpoint, within these bounds,
 * in slots of EW_META_JOURNAL_COPIES blocks (one journal block each).
 */
#define EW_META_JOURNAL_MIN	1022
#define EW_META_JOURNAL_MAX	65536
#define EW_META_JOURNAL_COPIES	2
#define EW_META_JSLOT_SIZE	(EW_META_JOURNAL_COPIES * EW_META_BLOCK_SIZE)

enum ew_meta_type {
	EW_META_T_SB = 1,
	EW_META_T_CKPT = 2,
	EW_META_T_JOURNAL = 3,
	EW_META_T_LABEL = 4,
	EW_META_T_COPY = 5,	/* the header block of a copy slot */
};

/*
 * The common header of every metadata block and member label: 64 bytes.
 * seq is the superblock's generation, the checkpoint's seq, the journal
 * block's seq or the member label's generation.  The sizes of the
 * on-disk structures are checked by tests/unit/test_meta.c.
 */
struct ew_meta_hdr {
	__le32 magic;		/* EW_META_MAGIC */
	__le32 crc;		/* crc32c(~0, block with crc = 0, 4096) */
	__le16 type;		/* enum ew_meta_type */
	__le16 version;		/* EW_META_VERSION */
	__le32 nr;		/* entries in this block (ckpt, journal) */
	__le64 seq;		/* generation, ckpt or journal seq */
	__le64 blocknr;		/* own 4 KiB block number on its device */
	__le64 aux;		/* ckpt: first logical block; else 0 */
	__le64 reserved;
	u8 uuid[EW_META_UUID_SIZE];	/* the array's UUID */
};

struct ew_meta_sb_disk {
	struct ew_meta_hdr h;
	__le32 layout;
	__le32 nr_disks;
	__le32 mirrors;
	__le32 dilution_x100;
	__le32 sync;
	__le32 chunk_sectors;
	__le32 block_size;
	__le32 delay_queue;
	__le64 len_blocks;
	__le64 disk_sectors;
	__le64 region_blocks;
	__le64 data_offset_sectors;
	__le32 meta_block_size;
	__le32 ckpt_per_block;
	__le64 journal_start;
	__le64 journal_slots;
	__le64 ckpt_start[2];
	__le64 ckpt_blocks;
	__le64 total_blocks;
	__le64 ckpt_seq;
	__le32 ckpt_area;
	__le32 flags;		/* EW_META_SB_* */
	__le64 journal_seq;
	__le64 member_gen[EW_MAX_DISKS];
	/* member state, bit i for member i (on-disk-format.rst) */
	__le64 member_failed;
	__le64 member_rebuilding;
	/* journal copies (JCOPY); zeros in an array without them */
	__le64 copy_start;
	__le32 copy_slots;
	__le32 copy_slot_blocks;
	/* metadata copies (metadata_mirror); zeros in an array of one */
	__le32 meta_copies;
	__le32 meta_copy;
	__le32 meta_stale;
	__le32 meta_reserved;
};

struct ew_meta_label_disk {
	struct ew_meta_hdr h;
	__le32 member;
	__le32 nr_disks;
	__le32 layout;
	__le32 mirrors;
	__le32 dilution_x100;
	__le32 chunk_sectors;
	__le32 block_size;
	__le32 reserved0;
	__le64 len_blocks;
	__le64 region_blocks;
	__le64 data_offset_sectors;
};

/* Journal record types. */
enum ew_meta_rec_type {
	EW_JREC_REMAP = 1,	/* replica's block := pblock, mask := uptodate */
	EW_JREC_MASK = 2,	/* mask := uptodate (mark stale / up to date) */
	EW_JREC_DISCARD = 3,	/* [lblock, lblock + count) discarded */
	EW_JREC_COPY = 4,	/* copy slot holds lblock's current data */
	EW_JREC_UNCOPY = 5,	/* copy slot released (lblock: its block) */
};

struct ew_meta_jrec_disk {
	u8 type;
	u8 replica;
	u8 uptodate;
	u8 reserved;
	/* REMAP: block or 0xffffffff; DISCARD: count; (UN)COPY: slot */
	__le32 pblock;
	__le64 lblock;
};

#define EW_META_PAYLOAD		(EW_META_BLOCK_SIZE - sizeof(struct ew_meta_hdr))
#define EW_META_JREC_PER_BLOCK	(EW_META_PAYLOAD / sizeof(struct ew_meta_jrec_disk))

/* The superblock, decoded (CPU byte order). */
struct ew_meta_sb {
	u8 uuid[EW_META_UUID_SIZE];
	u64 generation;
	/* geometry and table values */
	enum ew_layout layout;
	u32 nr_disks;
	u32 mirrors;
	u32 dilution_x100;
	u32 sync;		/* informational: the table may change it */
	u32 chunk_sectors;
	u32 block_size;		/* bytes */
	u32 delay_queue;	/* informational: the table may change it */
	u64 len_blocks;
	u64 disk_sectors;	/* member size the geometry was built on */
	u64 region_blocks;
	u64 data_offset_sectors;
	/* where things are on the metadata device, in 4 KiB blocks */
	u32 ckpt_per_block;	/* logical blocks per checkpoint block */
	u64 journal_start;
	u64 journal_slots;
	u64 ckpt_start[2];
	u64 ckpt_blocks;
	u64 total_blocks;
	/* the committed state */
	u32 ckpt_area;		/* area of the current checkpoint */
	u32 flags;		/* EW_META_SB_* */
	u64 ckpt_seq;		/* its seq; 0: none yet, the map is empty */
	u64 journal_seq;	/* first journal block to replay */
	u64 member_gen[EW_MAX_DISKS];	/* generation of each member label */
	/*
	 * Member state, bit i for member i.  failed: never trusted again
	 * (no I/O; a device named at its position is a replacement);
	 * rebuilding: a replacement whose stale replicas the scan is
	 * still copying.  Never both.
	 */
	u64 member_failed;
	u64 member_rebuilding;
	/*
	 * Journal copies (the table's journal_copy; 0: none): copy_slots
	 * slots of copy_slot_blocks blocks from copy_start, after the
	 * checkpoint areas.  Fixed when the array is created.
	 */
	u32 copy_slots;
	u32 copy_slot_blocks;
	u64 copy_start;
	/*
	 * Metadata copies (the table's metadata_mirror; on-disk-format.rst,
	 * "Metadata copies"): how many copies of this metadata image the
	 * array writes (0, in an array formatted before copies existed,
	 * means one), which copy this superblock was written to, and bit
	 * c: copy c is stale (a write to it failed; it is no longer
	 * written, and the next load resynchronises it).
	 */
	u32 meta_copies;
	u32 meta_copy;
	u32 meta_stale;
	/* the image is on the members (flag MEMBERS), not on a device */
	bool on_members;
	/* journal blocks in any free slot (flag JFREE), not a ring */
	bool jfree;
};

/* A decoded member label. */
struct ew_meta_label {
	u8 uuid[EW_META_UUID_SIZE];
	u64 generation;
	u32 member;
	u32 nr_disks;
	enum ew_layout layout;
	u32 mirrors;
	u32 dilution_x100;
	u32 chunk_sectors;
	u32 block_size;
	u64 len_blocks;
	u64 region_blocks;
	u64 data_offset_sectors;
};

/* A journal record, decoded. */
struct ew_meta_rec {
	enum ew_meta_rec_type type;
	u32 replica;
	u8 uptodate;
	u32 pblock;		/* REMAP: block (EW_MAP_NONE: none) */
	u32 count;		/* DISCARD: logical blocks */
	u32 slot;		/* COPY, UNCOPY: copy slot */
	u64 lblock;
};

/* A journal block being filled, over a caller's 8 KiB slot buffer. */
struct ew_meta_jbuf {
	void *blk;
	u32 nr;
};

/* --- sizes and layout --- */

/* Logical blocks per checkpoint block for mirrors replicas. */
u32 ew_meta_ckpt_per_block(u32 mirrors);
/* Sets the "where things are" fields of sb from len_blocks, mirrors. */
void ew_meta_layout(struct ew_meta_sb *sb);
/* 4 KiB blocks the metadata needs for a map of len_blocks x mirrors. */
u64 ew_meta_size_blocks(u64 len_blocks, u32 mirrors);
/* Metadata device size needed for geometry g, in 512-byte sectors. */
u64 ew_meta_size_sectors(const struct ew_geom *g);
/*
 * The same for table t (its journal_copy slots after the checkpoints):
 * what the target checks the metadata device against at create.
 */
u64 ew_meta_table_size_sectors(const struct ew_geom *g,
			       const struct ew_table_args *t);
/*
 * Metadata on the members: where each member's layout starts when the
 * image takes meta_sectors (the label's 1 MiB, then the image rounded up
 * to whole MiB, so that the data stay aligned as before).
 */
u64 ew_meta_members_data_offset(u64 meta_sectors);
/*
 * ... and which members hold the copies (into member[], at most
 * EW_META_MAX_COPIES; returns how many): every replica of the first
 * column (raid10 and ew members k * N / mirrors, ddm the first pair),
 * so that the map outlives every failure the data outlive; with one
 * mirror, members 0 and 1.
 */
u32 ew_meta_members_holders(enum ew_layout layout, u32 nr_disks,
			    u32 mirrors, u32 *member);
/* 4 KiB blocks of one copy slot: a header and a data block. */
static inline u32 ew_meta_copy_slot_blocks(u32 block_size)
{
	return 1 + block_size / EW_META_BLOCK_SIZE;
}

/* Is the 4 KiB block all zeros (an unformatted device)? */
bool ew_meta_block_is_zero(const void *blk);
/* Does the block's crc field match its contents? */
bool ew_meta_block_crc_ok(const void *blk);

/* --- superblock --- */

/*
 * A new array's superblock: generation 1, no checkpoint (empty map),
 * journal_seq 1, every member generation 1, flags CLEAN (nothing is
 * written yet).  g is the table's geometry built on members of
 * (size - EW_MEMBER_DATA_OFFSET_SECTORS).
 */
int ew_meta_sb_init(struct ew_meta_sb *sb, const struct ew_table_args *t,
		    const struct ew_geom *g, const u8 *uuid, const char **why);
/* Slot (0 or 1) and block number of generation gen. */
static inline u32 ew_meta_sb_slot(u64 generation)
{
	return (u32)((generation + 1) & 1);
}

/* Encodes sb into blk (4 KiB); returns the block number to write it to. */
u64 ew_meta_sb_encode(const struct ew_meta_sb *sb, void *blk);
/* Decodes and validates the block read from block number blocknr. */
int ew_meta_sb_decode(const void *blk, u64 blocknr, struct ew_meta_sb *sb,
		      const char **why);
/*
 * The newest valid superblock of the two slots (blocks 0 and 1).
 * Returns 0, -ENODATA when block 0 is all zeros and slot 1 holds no
 * valid superblock (unformatted: format it), or -EINVAL with *why when
 * neither slot holds a valid superblock, or block 0 is zeros while slot
 * 1 is valid (never formatted over).  *slot gets the slot chosen.
 */
int ew_meta_sb_pick(const void *blk0, const void *blk1, struct ew_meta_sb *sb,
		    u32 *slot, const char **why);
/*
 * Does the superblock describe the array of table t with geometry g?
 * -EINVAL with a precise *why when not ("metadata belongs to another
 * layout", "member count mismatch", ...).
 */
int ew_meta_sb_check_table(const struct ew_meta_sb *sb,
			   const struct ew_table_args *t,
			   const struct ew_geom *g, const char **why);
/* The metadata device (of dev_sectors) is large enough for sb? */
int ew_meta_sb_check_size(const struct ew_meta_sb *sb, u64 dev_sectors,
			  const char **why);
/*
 * The geometry sb describes (for the checker and the dump): the
 * parameters stored in the superblock through ew_geom_init().
 */
int ew_meta_sb_geom(const struct ew_meta_sb *sb, struct ew_geom *g,
		    const char **why);

/*
 * sb was picked over an invalid other slot, which may have held the
 * next generation g + 1, naming a checkpoint of seq g + 1 that is partly
 * on disk.  Skips two generations (the slot stays the same), so that the
 * next superblock and checkpoint use seqs no lost superblock can have
 * named, and overwrite the invalid slot, never the one in use.
 */
void ew_meta_sb_skip_lost(struct ew_meta_sb *sb);

/* --- checkpoint --- */

/* The checkpoint area a new checkpoint goes to (the one not current). */
static inline u32 ew_meta_ckpt_next_area(const struct ew_meta_sb *sb)
{
	return sb->ckpt_seq ? sb->ckpt_area ^ 1 : 0;
}

/* The seq of a new checkpoint: the generation of the superblock naming it. */
static inline u64 ew_meta_ckpt_next_seq(const struct ew_meta_sb *sb)
{
	return sb->generation + 1;
}

/*
 * Encodes checkpoint block idx (0..ckpt_blocks-1) of map m into blk for
 * area and seq; returns the block number to write it to.
 */
u64 ew_meta_ckpt_encode(const struct ew_meta_sb *sb, const struct ew_map *m,
			u32 area, u64 seq, u64 idx, void *blk);
/*
 * Validates checkpoint block idx of the current checkpoint (sb's area
 * and seq) and loads its entries into m (generations are left alone).
 */
int ew_meta_ckpt_decode(const struct ew_meta_sb *sb, const void *blk, u64 idx,
			struct ew_map *m, const char **why);
/* The same validation alone: is blk checkpoint block idx of sb? */
bool ew_meta_ckpt_block_ok(const struct ew_meta_sb *sb, const void *blk,
			   u64 idx);
/*
 * The superblock of the next generation, naming the checkpoint written
 * to area with seq and the journal from journal_seq on.
 */
void ew_meta_sb_commit_ckpt(struct ew_meta_sb *sb, u32 area, u64 seq,
			    u64 journal_seq);
/*
 * The superblock of the next generation with new flags, naming the same
 * checkpoint and journal (clearing CLEAN before the first write).
 */
void ew_meta_sb_set_flags(struct ew_meta_sb *sb, u32 flags);

/* --- journal --- */

/*
 * Block number of copy 0 of journal block seq in the ring (not jfree);
 * copy c is at + c.
 */
u64 ew_meta_journal_blocknr(const struct ew_meta_sb *sb, u64 seq);
/* Block number of copy 0 of the journal area's slot number slot. */
u64 ew_meta_jslot_blocknr(const struct ew_meta_sb *sb, u64 slot);
/* Would writing journal block seq overwrite one the superblock needs? */
static inline bool ew_meta_journal_full(const struct ew_meta_sb *sb, u64 seq)
{
	return seq - sb->journal_seq >= sb->journal_slots;
}

/* slot: EW_META_JSLOT_SIZE bytes, both copies (one write). */
void ew_meta_jbuf_init(struct ew_meta_jbuf *j, void *slot);
static inline bool ew_meta_jbuf_empty(const struct ew_meta_jbuf *j)
{
	return !j->nr;
}

/* Appends one record; -ENOSPC when the block is full, -EINVAL if bad. */
int ew_meta_jbuf_add(struct ew_meta_jbuf *j, const struct ew_meta_rec *r);
/*
 * Records the current state of lblock in m: a REMAP record (block and
 * up-to-date mask) for each replica in replicas, or one MASK record when
 * replicas is 0.  All or nothing: -ENOSPC leaves the block unchanged.
 */
int ew_meta_jbuf_log_block(struct ew_meta_jbuf *j, const struct ew_map *m,
			   u64 lblock, u8 replicas);
/* Records a discard of [lblock, lblock + count). */
int ew_meta_jbuf_log_discard(struct ew_meta_jbuf *j, u64 lblock, u32 count);
/*
 * Records that copy slot holds lblock's current data (COPY: its header
 * and data are durable before this record is written) or no longer
 * does (UNCOPY).  -ENOSPC when the block is full.
 */
int ew_meta_jbuf_log_copy(struct ew_meta_jbuf *j, u64 lblock, u32 slot,
			  bool copy);
/*
 * Seals the block as journal block seq, both copies; returns the block
 * number of copy 0 (write EW_META_JOURNAL_COPIES blocks there).
 */
u64 ew_meta_jbuf_seal(struct ew_meta_jbuf *j, const struct ew_meta_sb *sb,
		      u64 seq);
/* The same, for the slot at block number bn (jfree). */
u64 ew_meta_jbuf_seal_at(struct ew_meta_jbuf *j, const struct ew_meta_sb *sb,
			 u64 seq, u64 bn);
/* Decodes record i (< nr) of a journal block (no validation). */
void ew_meta_jrec_get(const void *blk, u32 i, struct ew_meta_rec *r);

/* How a journal slot was read (ew_meta_replay_block()). */
struct ew_meta_jslot_res {
	u32 damaged;	/* applied: bit c, copy c invalid (the other used) */
	u32 bad_copy;	/* -EINVAL: the copy at fault */
	u32 records;	/* applied: records in the block */
};

/*
 * Applies journal block seq, the slot of both copies read from
 * ew_meta_journal_blocknr(seq) (EW_META_JSLOT_SIZE bytes), to m.  Each
 * copy is valid (our uuid, crc, seq, block number), not this block (torn,
 * never written, another array's, the previous lap of the ring) or
 * corrupt.  Returns 1 when applied: both copies valid, or one (the other,
 * not this block, is in res->damaged: recoverable damage to report);
 * 0 at the end of the journal (neither copy valid: nothing applied);
 * -EINVAL with *why and res->bad_copy when a copy is corrupt (a valid
 * block from the future, a misdirected block, a bad record).  A block's
 * records are checked before any is applied.
 */
int ew_meta_replay_block(const struct ew_meta_sb *sb, const struct ew_geom *g,
			 struct ew_map *m, u64 seq, const void *slot,
			 struct ew_meta_jslot_res *res, const char **why);
/* Bit c: copy c of the slot is a valid copy of journal block seq. */
u32 ew_meta_journal_valid(const struct ew_meta_sb *sb, u64 seq,
			  const void *slot);
/* The same for the slot at block number bn (jfree: any slot). */
u32 ew_meta_journal_valid_at(const struct ew_meta_sb *sb, u64 seq, u64 bn,
			     const void *slot);
/*
 * jfree: the live journal block the slot at block number bn holds, by
 * either copy: 1 and *seq when a copy is a valid block of this array
 * with journal_seq <= seq < journal_seq + journal_slots (an older block
 * is a freed slot's), 0 when neither is, -EINVAL with *why when a copy
 * is corrupt (ours, but not a journal block of this place or version),
 * from the future (a seq past the window: the superblock in use is
 * older than the one the journal was written after) or when the two
 * copies are valid blocks of two live seqs.
 */
int ew_meta_jslot_seq(const struct ew_meta_sb *sb, u64 bn, const void *slot,
		      u64 *seq, const char **why);
/*
 * jfree: which slot holds each live seq, built by a scan of the area:
 * slot[i] is 1 + the slot of journal block base + i, 0 when none was
 * found (n entries, the caller's).
 */
struct ew_meta_jindex {
	u64 base;
	u64 n;
	u32 *slot;
};

/* seq found in slot: -EINVAL with *why when another slot holds it. */
int ew_meta_jindex_add(struct ew_meta_jindex *x, u64 seq, u32 slot,
		       const char **why);
/*
 * *end: the first seq from base that no slot holds (where the replay
 * stops).  Journal block s + 1 is never written before s is durable, so
 * a live block after *end means *end was lost, not torn: -EINVAL.
 */
int ew_meta_jindex_end(const struct ew_meta_jindex *x, u64 *end,
		       const char **why);
bool ew_meta_journal_probe(const struct ew_meta_sb *sb, u64 seq,
			   const void *slot);
/*
 * The journal ended at seq (not applied); next is the slot of journal
 * block seq + 1.  Journal block seq + 1 is never written before seq is
 * durable, so a valid copy of the next block means seq was lost, not
 * torn: -EINVAL with *why.
 */
int ew_meta_journal_end(const struct ew_meta_sb *sb, u64 seq,
			const void *next, const char **why);

/*
 * The copy slots a replay leaves live: lblock[slot] is the logical block
 * slot holds (EW_META_COPY_NONE: free), seq[slot] the journal block whose
 * COPY record named it (the seq its header must carry).  Arrays of nr
 * (the superblock's copy_slots) entries, owned by the caller, set to
 * EW_META_COPY_NONE before the replay: a checkpoint ends every copy, so
 * the journal from journal_seq on names every live one.
 *
 * COPY sets the slot (a block in two slots: the later COPY wins, and the
 * target logs an UNCOPY of the older); UNCOPY frees it when it still
 * holds that block; DISCARD frees the slots of the blocks it discards.
 * REMAP and MASK leave copies alone: the target logs UNCOPY when a write
 * without a copy supersedes one.
 */
#define EW_META_COPY_NONE	(~0ULL)
struct ew_meta_copies {
	u32 nr;
	u64 *lblock;
	u64 *seq;
};

/* The same as ew_meta_replay_block(), tracking copy slots in c (or NULL). */
int ew_meta_replay_block_copies(const struct ew_meta_sb *sb,
				const struct ew_geom *g, struct ew_map *m,
				u64 seq, const void *slot,
				struct ew_meta_copies *c,
				struct ew_meta_jslot_res *res,
				const char **why);
/* The same, the slot read from block number bn (jfree: any slot). */
int ew_meta_replay_block_at(const struct ew_meta_sb *sb,
			    const struct ew_geom *g, struct ew_map *m,
			    u64 seq, u64 bn, const void *slot,
			    struct ew_meta_copies *c,
			    struct ew_meta_jslot_res *res, const char **why);

/* --- copy slots --- */

/* Block number of the header of copy slot; its data follows it. */
u64 ew_meta_copy_blocknr(const struct ew_meta_sb *sb, u32 slot);
/*
 * Encodes the header block of copy slot for lblock's data (block_size
 * bytes), named by the COPY record in journal block seq; returns the
 * block number to write the header and the data to (one write).
 */
u64 ew_meta_copy_encode(const struct ew_meta_sb *sb, u32 slot, u64 lblock,
			u64 seq, const void *data, void *hdr);
/*
 * Is hdr (and data) the copy slot the journal says, for lblock, written
 * for journal block seq, with the data it was written with?  -EINVAL
 * with *why (a stale or torn slot is never restored).  A header written
 * before the journal the superblock replays (seq < sb->journal_seq) is
 * a copy a checkpoint carried: the checkpoint logged its COPY again at
 * or after journal_seq without rewriting the slot (a slot is rewritten
 * only after an UNCOPY of it is durable, and then under a later COPY,
 * whose header carries that COPY's seq: the replay keeps the last one).
 */
int ew_meta_copy_check(const struct ew_meta_sb *sb, u32 slot, u64 lblock,
		       u64 seq, const void *hdr, const void *data,
		       const char **why);

/* Damaged copies ew_meta_replay() lists; more are only counted. */
#define EW_META_REPLAY_DAMAGE_MAX	8

/* What ew_meta_replay() found. */
struct ew_meta_replay_res {
	u64 end_seq;		/* first seq not applied (or the corrupt one) */
	u64 records;		/* records applied */
	/* -EINVAL: the copy of end_seq at fault; 2: lost in the middle */
	u32 bad_copy;
	u32 nr_damaged;		/* damaged copies of applied blocks */
	u64 damaged_seq[EW_META_REPLAY_DAMAGE_MAX];
	u32 damaged_copy[EW_META_REPLAY_DAMAGE_MAX];
	u64 damaged_bn[EW_META_REPLAY_DAMAGE_MAX];	/* their blocks */
	/*
	 * copy 0 of end_seq's slot; jfree: the slot at fault, 0 when the
	 * journal simply ends (its next block is in no slot)
	 */
	u64 end_bn;
	/* ew_meta_replay_where(): its blocks, nblocks entries (or NULL) */
	u64 *blocks;
	u64 nblocks;
};

/*
 * The whole replay over the journal area held in memory (2 *
 * journal_slots blocks from journal_start): from sb->journal_seq until
 * the end.  A valid block right after the end means a block in the
 * middle was lost: -EINVAL.
 */
int ew_meta_replay(const struct ew_meta_sb *sb, const struct ew_geom *g,
		   struct ew_map *m, const void *area,
		   struct ew_meta_replay_res *res, const char **why);
/*
 * The same, saying where each block applied is: blocks[i] = copy 0 of
 * journal block journal_seq + i, for the first nblocks (with JFREE,
 * anywhere in the area; for a tool).
 */
int ew_meta_replay_where(const struct ew_meta_sb *sb, const struct ew_geom *g,
			 struct ew_map *m, const void *area, u64 *blocks,
			 u64 nblocks, struct ew_meta_replay_res *res,
			 const char **why);
/* The same, tracking copy slots in c (or NULL). */
int ew_meta_replay_copies(const struct ew_meta_sb *sb,
			  const struct ew_geom *g, struct ew_map *m,
			  const void *area, struct ew_meta_copies *c,
			  struct ew_meta_replay_res *res, const char **why);

/* --- the map --- */

/* Replica homes of lblock as map entries (EW_MAP_NONE: no home). */
void ew_meta_homes(const struct ew_geom *g, u64 lblock, u32 *home);
/*
 * Cross-checks a whole map against its geometry: every block inside the
 * region, a home only where it is the replica's own, no block used twice
 * on one disk.  -EINVAL with *why, *lblock and *replica of the first bad
 * entry; -ENOMEM.
 */
int ew_meta_map_check(const struct ew_geom *g, const struct ew_map *m,
		      u64 *lblock, u32 *replica, const char **why);
/* Words of one disk's bitmap of ew_meta_map_check_used(). */
u64 ew_meta_map_used_words(const struct ew_geom *g);
/*
 * ew_meta_map_check() into the caller's used: nr_disks bitmaps of
 * ew_meta_map_used_words() words each, one disk after another, zeroed.
 * On success a bit is set for every block a replica maps, its home
 * included: the blocks a free map holds used besides the homes (the
 * constructor takes them from here instead of from a second pass over
 * the map).  On -EINVAL the bitmaps are partial.
 */
int ew_meta_map_check_used(const struct ew_geom *g, const struct ew_map *m,
			   u64 *used, u64 *lblock, u32 *replica,
			   const char **why);

/* --- member labels --- */

void ew_meta_label_encode(const struct ew_meta_sb *sb, u32 member, void *blk);
int ew_meta_label_decode(const void *blk, struct ew_meta_label *l,
			 const char **why);
/* Is blk the label of member (its position in the table) of sb's array? */
int ew_meta_label_check(const struct ew_meta_sb *sb, const void *blk,
			u32 member, const char **why);

/* The i-th message this file can set; NULL past the last. */
const char *ew_meta_error(unsigned int i);

#endif /* EW_META_H */
