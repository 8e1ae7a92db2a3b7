/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_freemap.h - the free-block map of one member disk.
 *
 * Eager writing needs, many times per second per disk, "the free block
 * the head reaches first".  The map keeps a bitmap of blocks plus
 * per-track, per-cylinder and per-cylinder-group free counts, so that a
 * search walks outward from the head's cylinder over cylinders that have
 * free blocks only, and looks inside a track only when it has one.
 *
 * Blocks are block_sectors long and numbered from 0 at LBA 0; the map
 * covers [0, nr_blocks) (the layout's region on this disk).  A block
 * belongs to the track of its first sector.  A new map has every block
 * free.  Memory (ew_freemap_bytes()): one bit per block plus 2 bytes per
 * track, 4 per cylinder and 4 per group of EW_FM_GROUP cylinders: with
 * 4 KiB blocks on the default (Cheetah 9LP) model extended to 1 TiB,
 * about 62 MB per TiB of member disk (Documentation/core.rst).
 */
#ifndef EW_FREEMAP_H
#define EW_FREEMAP_H

#include "ew_compat.h"
#include "ew_disk.h"

#define EW_FM_GROUP	64	/* cylinders per summary group */

struct ew_freemap {
	const struct ew_disk *disk;
	u32 block_sectors;
	u64 nr_blocks;
	u64 nr_free;
	u32 nr_tracks;		/* tracks that hold a block of the map */
	u32 nr_cyls;		/* cylinders that hold a block of the map */
	u32 nr_groups;
	u64 *used;		/* bit set: block in use */
	u16 *track_free;
	u32 *cyl_free;
	u32 *group_free;
};

size_t ew_freemap_bytes(const struct ew_disk *d, u32 block_sectors,
			u64 nr_blocks);
int ew_freemap_init(struct ew_freemap *fm, const struct ew_disk *d,
		    u32 block_sectors, u64 nr_blocks);
void ew_freemap_destroy(struct ew_freemap *fm);

bool ew_freemap_is_free(const struct ew_freemap *fm, u64 block);
/* Mark used; -EBUSY if already used, -ERANGE if outside the map. */
int ew_freemap_alloc(struct ew_freemap *fm, u64 block);
/* Mark free; -EINVAL if already free, -ERANGE if outside the map. */
int ew_freemap_free(struct ew_freemap *fm, u64 block);
/*
 * Mark [first, first + count) used (e.g. ddm's home areas): all or
 * nothing; -EBUSY if any block is used, -ERANGE if outside the map.
 */
int ew_freemap_alloc_range(struct ew_freemap *fm, u64 first, u64 count);
/* Mark [first, first + count) free: all or nothing; -EINVAL, -ERANGE. */
int ew_freemap_free_range(struct ew_freemap *fm, u64 first, u64 count);

/*
 * Building a map from a bitmap of used blocks (the constructor, from the
 * loaded map's check: ew_meta_map_check_used()): ew_freemap_mark_used()
 * sets every block whose bit is set in bits (one bit per block of the
 * map, in u64 words; a block already used stays used), without the
 * per-track lookup that keeps the counts, -ERANGE (and nothing set) if a
 * bit past the map is set; ew_freemap_recount() then derives every count
 * from the bitmap in one pass over the tracks.  Between the two the
 * counts are stale: nothing may search the map.
 */
int ew_freemap_mark_used(struct ew_freemap *fm, const u64 *bits);
void ew_freemap_recount(struct ew_freemap *fm);

/* Track a block belongs to (track of its first sector). */
u32 ew_freemap_block_track(const struct ew_freemap *fm, u64 block);
/* Blocks of a track: [*first, *first + return value). */
u32 ew_freemap_track_blocks(const struct ew_freemap *fm, u32 track,
			    u64 *first);
/* First free block in [from, to), or EW_NO_BLOCK. */
u64 ew_freemap_find_free(const struct ew_freemap *fm, u64 from, u64 to);

static inline u32 ew_freemap_track_free(const struct ew_freemap *fm, u32 t)
{
	return t < fm->nr_tracks ? fm->track_free[t] : 0;
}

static inline u32 ew_freemap_cyl_free(const struct ew_freemap *fm, u32 c)
{
	return c < fm->nr_cyls ? fm->cyl_free[c] : 0;
}

/*
 * The nearest cylinder at or beyond cyl, going up (dir > 0) or down
 * (dir < 0), that has a free block; -1 if none.  Skips empty groups.
 */
s64 ew_freemap_next_cyl(const struct ew_freemap *fm, s64 cyl, int dir);

#endif /* EW_FREEMAP_H */
