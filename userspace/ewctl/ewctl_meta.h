/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ewctl_meta.h - what check, dump and debug-mkmeta share: reading the
 * metadata device (meta.c) into memory and rebuilding the map with the
 * core's functions (core/ew_meta.c), exactly as the target does.
 */
#ifndef EWCTL_META_H
#define EWCTL_META_H

#include <stdio.h>
#include "ewctl.h"
#include "ew_meta.h"

/* A metadata device opened for reading (or writing, for debug-mkmeta). */
struct ewctl_meta {
	const char *path;
	FILE *f;
	u64 bytes;		/* device or file size (from base on) */
	/*
	 * block 0 of the image: 0, or on a member of an array whose
	 * metadata is on the members, EW_MEMBER_META_OFFSET_SECTORS in
	 */
	u64 base;
	u8 slot[2][EW_META_BLOCK_SIZE];
	int pick;		/* ew_meta_sb_pick()'s result */
	const char *pick_why;
	u32 cur;		/* slot of the superblock in use */
	const char *slot_why[2];	/* NULL: slot valid (or all zeros) */
	bool slot_zero[2];
	struct ew_meta_sb sb;
	struct ew_geom g;
};

/*
 * Where the array of member label l keeps its metadata: on a metadata
 * device (EWCTL_COPY_ON_DEVICE), on the members but not on this one
 * (EWCTL_COPY_NONE), or the index of the copy this member holds.
 */
#define EWCTL_COPY_ON_DEVICE	(-2)
#define EWCTL_COPY_NONE		(-1)
int ewctl_label_copy(const struct ew_meta_label *l);

/*
 * Opens path, reads both superblock slots and picks one.  path may be a
 * member that holds a copy of its array's metadata (metadata on the
 * members: the image after its label).  Returns 0, or
 * -1 after printing why it cannot be read at all (I/O).  m->pick says
 * whether a superblock was found.
 */
int ewctl_meta_open(struct ewctl_meta *m, const char *path, bool write);
void ewctl_meta_close(struct ewctl_meta *m);
/*
 * fopen(), the clean pages the device's cache holds dropped first: a
 * live array's metadata and labels are written around that cache.
 */
FILE *ewctl_fopen_fresh(const char *path, const char *mode);
/* Reads or writes one 4 KiB block at block number bn of f. */
int ewctl_read_block(FILE *f, u64 bn, void *blk);
int ewctl_write_block(FILE *f, u64 bn, const void *blk);

/* The result of loading the map: checkpoint and journal. */
struct ewctl_map_load {
	struct ew_map map;
	int ret;		/* 0 loaded; -EINVAL: why, where */
	const char *why;
	char where[96];		/* "checkpoint block 3 (block 1035)", ... */
	u64 end_seq;		/* first journal seq not applied */
	u64 records;		/* journal records applied */
	/* how the journal ended: damaged means our own torn block */
	bool end_damaged;
	/* copies of applied journal blocks found damaged (recoverable) */
	struct ew_meta_replay_res replay;
	/*
	 * where each applied journal block is (copy 0), end_seq -
	 * journal_seq of them; the caller frees it
	 */
	u64 *jblocks;
};

/* Loads the map of m's superblock (m->g must be set). */
int ewctl_meta_load_map(struct ewctl_meta *m, struct ewctl_map_load *ld);

/* Formats a UUID as 8-4-4-4-12 hex digits (buf of 37). */
void ewctl_uuid_str(const u8 *uuid, char *buf);
/* Parses such a UUID (hyphens optional); 0 or -1. */
int ewctl_uuid_parse(const char *s, u8 *uuid);

/*
 * Metadata copies (the table's metadata_mirror), from the fields the
 * core's superblock decoder filled in: how many (1 for an array of one,
 * whose superblock holds zeros), and "copy C of N (metadata_mirror),
 * stale: none" or "... stale: copy 1" (dump and examine print it).
 */
u32 ewctl_sb_copies(const struct ew_meta_sb *sb);
void ewctl_copies_str(const struct ew_meta_sb *sb, char *buf, size_t len);

/* What the first 8 KiB of a device say (examine.c). */
enum ewctl_kind {
	EWCTL_KIND_NONE,	/* neither label nor superblock: zeros, other data */
	EWCTL_KIND_MEMBER,	/* a valid member label */
	EWCTL_KIND_META,	/* a valid metadata superblock */
	EWCTL_KIND_DAMAGED,	/* an eagerwrite header that does not validate */
	EWCTL_KIND_UNREADABLE,	/* open or read failed */
};

struct ewctl_probe {
	const char *path;
	enum ewctl_kind kind;
	const char *why;	/* NONE, DAMAGED, UNREADABLE: the reason */
	int err;		/* UNREADABLE: -errno */
	struct ew_meta_label label;	/* MEMBER */
	/*
	 * MEMBER of an array whose metadata is on the members, one that
	 * holds a copy of it (ew_meta_members_holders()): its superblock
	 * slots, read from EW_MEMBER_META_OFFSET_SECTORS, are in hblk;
	 * hpick is ew_meta_sb_pick()'s result on them (0: sb and sb_slot
	 * are that copy's), hwhy why not.
	 */
	bool holder;
	int hpick;
	const char *hwhy;
	struct ew_meta_sb sb;		/* META, or a holder's copy */
	u32 sb_slot;			/* the slot in use */
	_Alignas(8) u8 blk[EW_META_SB_SLOTS][EW_META_BLOCK_SIZE];
	_Alignas(8) u8 hblk[EW_META_SB_SLOTS][EW_META_BLOCK_SIZE];
};

/* Is p a member holding a valid copy of its array's metadata? */
static inline bool ewctl_probe_holds_sb(const struct ewctl_probe *p)
{
	return p->kind == EWCTL_KIND_MEMBER && p->holder && !p->hpick;
}

/*
 * Reads and classifies path's first two 4 KiB blocks (and a holder's
 * superblock slots); never prints.
 */
void ewctl_probe_dev(const char *path, struct ewctl_probe *p);
const char *ewctl_kind_name(enum ewctl_kind k);

#endif /* EWCTL_META_H */
