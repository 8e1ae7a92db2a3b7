/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_geom.h - array geometry: raid10, ddm and ew (Dd x Ds x Dm).
 *
 * Everything is in blocks of block_sectors.  A logical block L lies in
 * chunk c = L / chunk_blocks at offset o = L % chunk_blocks.
 *
 * raid10: W = N / Dm disks per replica set.  Column col = c % W, row
 *   r = c / W.  Replica k lives on disk k * W + col at its fixed home
 *   r * chunk_blocks + o and is updated in place.
 * ew: W = N / Dm.  Replica k may be written on disk k * W + col,
 *   anywhere in that disk's region [0, region_blocks); it has no home.
 *   Each disk carries a share of ceil(len / (W * chunk)) chunks
 *   (share_blocks = that * chunk_blocks), and the region is
 *   ceil(share_blocks * Dd) blocks, about len * Dm * Dd / N: a shorter
 *   volume means a smaller region and shorter seeks.  The paper's Ds is
 *   disk_blocks / region_blocks; it is N / (Dd * Dm) when len is one
 *   member's size, as in the paper.
 * ddm: N / 2 pairs.  Pair p = c % P (P = N / 2), row r = c / P.  The
 *   home disk is 2p + (r & 1), the other disk of the pair is the
 *   write-anywhere partner.  Each disk is cut into units of unit_blocks =
 *   chunk_blocks + ceil(chunk_blocks * Dd): the first chunk_blocks of unit
 *   u hold the homes of row 2u + (disk & 1), the rest is write-anywhere
 *   space.  Replica 0 is the home replica (home set), replica 1 the
 *   partner's (no home).  Rows in use: ceil(len / (P * chunk)); the
 *   region is ceil(rows / 2) units.
 *
 * Capacity is the largest len whose region fits in disk_blocks: raid10
 * floor(disk / chunk) * chunk * W; ew the largest whole-chunk share with
 * ceil(share * Dd) <= disk, times W; ddm floor(disk / unit) * 2 * chunk
 * * P.  raid10's region is rows * chunk with rows = ceil(len / (W *
 * chunk)).  Blocks past the region are never used.
 */
#ifndef EW_GEOM_H
#define EW_GEOM_H

#include "ew_compat.h"

enum ew_layout {
	EW_LAYOUT_RAID10 = 0,
	EW_LAYOUT_DDM,
	EW_LAYOUT_EW,
	EW_LAYOUT_NR
};

#define EW_MIN_DISKS		2
#define EW_MAX_DISKS		64
#define EW_MAX_MIRRORS		8
#define EW_MAX_DILUTION_X100	10000	/* dilution at most 100 */
#define EW_MIN_BLOCK_SECTORS	8	/* 4096 bytes */
#define EW_MAX_BLOCK_SECTORS	128	/* 65536 bytes */
#define EW_MAX_CHUNK_SECTORS	2097152U	/* 1 GiB: unit_blocks fits u32 */
#define EW_MAX_DISK_SECTORS	0x1000000000000ULL /* 2^48: 128 PiB */

struct ew_geom_params {
	enum ew_layout layout;
	u32 nr_disks;		/* N */
	u32 mirrors;		/* Dm */
	u32 dilution_x100;	/* Dd * 100 (ew, ddm); ignored for raid10 */
	u32 block_sectors;	/* allocation unit, power of two >= 8 */
	u32 chunk_sectors;	/* stripe unit, power of two >= block */
	u64 disk_sectors;	/* usable sectors of the smallest member */
};

struct ew_geom {
	struct ew_geom_params p;
	u32 chunk_blocks;
	u32 width;		/* raid10, ew: disks per replica set; ddm: pairs */
	u32 unit_blocks;	/* ddm: home chunk + write-anywhere blocks */
	u64 disk_blocks;	/* whole blocks on each member */
	u64 capacity_blocks;	/* largest logical length */
	u64 len_blocks;		/* this array's logical length */
	u64 region_blocks;	/* blocks of each member the layout uses */
};

/* One replica of a logical block. */
struct ew_replica {
	u32 disk;
	u64 home;		/* fixed home block, or EW_NO_BLOCK */
};

const char *ew_layout_name(enum ew_layout l);
int ew_layout_parse(const char *s, enum ew_layout *l);
/*
 * "2", "1.5", "1.33": digits, optionally '.' and one or two digits; no
 * sign, exponent or space.  -EINVAL for bad syntax, -ERANGE outside
 * 1..100.
 */
int ew_parse_dilution(const char *s, u32 *x100);
/* Prints a dilution the way ew_parse_dilution reads it back. */
int ew_format_dilution(char *buf, size_t len, u32 x100);
/* raid10 and ew writes have no home / ddm and ew eager-write. */
static inline bool ew_layout_eager(enum ew_layout l)
{
	return l == EW_LAYOUT_DDM || l == EW_LAYOUT_EW;
}

/* Checks params; on error returns -EINVAL and sets *why. */
int ew_geom_check(const struct ew_geom_params *p, const char **why);
/* Largest logical length in blocks (0 if params are invalid). */
u64 ew_geom_capacity_blocks(const struct ew_geom_params *p);
/*
 * A target length in sectors as blocks: non-zero, a multiple of the
 * block and at most the capacity (else -EINVAL and a message in *why).
 */
int ew_geom_len_blocks(const struct ew_geom_params *p, u64 len_sectors,
		       u64 *len_blocks, const char **why);
/* len_blocks must be 1..capacity. */
int ew_geom_init(struct ew_geom *g, const struct ew_geom_params *p,
		 u64 len_blocks, const char **why);
/* Fills r[0..Dm-1] for logical block lblock (< len_blocks); returns Dm. */
u32 ew_geom_map(const struct ew_geom *g, u64 lblock, struct ew_replica *r);
/* Is pblock on disk a fixed home (ddm, raid10)? Never true for ew. */
bool ew_geom_is_home(const struct ew_geom *g, u32 disk, u64 pblock);
/*
 * The first home on disk at or after pblock, and in *count the run of
 * homes that starts there (every block of [result, result + *count) is
 * a home, the block after it is not or is past the region); the region's
 * size and *count 0 when there is none.  Walks a member's homes a run at
 * a time (the constructor marks them used in the free map).
 */
u64 ew_geom_home_run(const struct ew_geom *g, u32 disk, u64 pblock,
		     u64 *count);
/*
 * The paper's Ds * 100 for this length: disk_blocks * 100 / region_blocks
 * (each member uses 1/Ds of its blocks).  For ew it is N / (Dd * Dm)
 * when len is one member's size (the paper's setup) and 1 at capacity;
 * informational (status).
 */
u32 ew_geom_stripe_x100(const struct ew_geom *g);
/* The i-th message ew_geom_check()/_init() can set; NULL past the last. */
const char *ew_geom_error(unsigned int i);

#endif /* EW_GEOM_H */
