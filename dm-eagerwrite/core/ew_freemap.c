// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_freemap.c - the free-block map of one member disk.
 *
 * Owns the used/free state of every block of a disk's region and the
 * summaries that make "nearest free block" cheap: free counts per track
 * (u16), per cylinder and per group of EW_FM_GROUP cylinders.  Every
 * change goes through one place (mark_run()) that keeps the bitmap and
 * the three levels of counts in step.  The search itself (which block
 * the head reaches first) is ew_place.c's; this file answers "which
 * cylinders have free blocks" and "the first free block in a range".
 */
#include "ew_freemap.h"

#define BITS_PER_WORD	64

/* Index of the lowest set bit of a non-zero word (kernel and userspace). */
static inline u32 lowest_bit(u64 word)
{
	return (u32)__builtin_ctzll(word);
}

/* Geometry of a map: how many tracks and cylinders its blocks touch. */
static void map_extent(const struct ew_disk *d, u32 block_sectors,
		       u64 nr_blocks, u32 *tracks, u32 *cyls, u32 *groups)
{
	struct ew_pos pos;

	ew_disk_lba_to_pos(d, ew_disk_block_lba(d, nr_blocks - 1, block_sectors),
			   &pos);
	*tracks = ew_disk_track_of(d, &pos) + 1;
	*cyls = pos.cyl + 1;
	*groups = DIV_ROUND_UP(*cyls, EW_FM_GROUP);
}

static bool map_args_ok(const struct ew_disk *d, u32 block_sectors,
			u64 nr_blocks)
{
	return block_sectors && nr_blocks && d->data_lba < d->nr_sectors &&
	       nr_blocks <= div_u64(d->nr_sectors - d->data_lba,
				    block_sectors);
}

size_t ew_freemap_bytes(const struct ew_disk *d, u32 block_sectors,
			u64 nr_blocks)
{
	u32 tracks, cyls, groups;

	if (!map_args_ok(d, block_sectors, nr_blocks))
		return 0;
	map_extent(d, block_sectors, nr_blocks, &tracks, &cyls, &groups);
	return DIV_ROUND_UP(nr_blocks, BITS_PER_WORD) * sizeof(u64) +
	       (size_t)tracks * sizeof(u16) + (size_t)cyls * sizeof(u32) +
	       (size_t)groups * sizeof(u32);
}

void ew_freemap_destroy(struct ew_freemap *fm)
{
	ew_free(fm->used);
	ew_free(fm->track_free);
	ew_free(fm->cyl_free);
	ew_free(fm->group_free);
	fm->used = NULL;
	fm->track_free = NULL;
	fm->cyl_free = NULL;
	fm->group_free = NULL;
}

u32 ew_freemap_block_track(const struct ew_freemap *fm, u64 block)
{
	struct ew_pos pos;

	ew_disk_lba_to_pos(fm->disk,
			   ew_disk_block_lba(fm->disk, block, fm->block_sectors),
			   &pos);
	return ew_disk_track_of(fm->disk, &pos);
}

u32 ew_freemap_track_blocks(const struct ew_freemap *fm, u32 track,
			    u64 *first)
{
	u32 bs = fm->block_sectors;
	u64 base = fm->disk->data_lba;
	u64 lba = ew_disk_track_first_lba(fm->disk, track);
	u64 end = lba + ew_disk_track_spt(fm->disk, track);

	/* the blocks whose first sector lies in [lba, end) */
	if (end <= base) {
		*first = 0;
		return 0;
	}
	*first = lba > base ? div_u64(lba - base + bs - 1, bs) : 0;
	end = min(div_u64(end - base + bs - 1, bs), fm->nr_blocks);
	return end > *first ? (u32)(end - *first) : 0;
}

int ew_freemap_init(struct ew_freemap *fm, const struct ew_disk *d,
		    u32 block_sectors, u64 nr_blocks)
{
	memset(fm, 0, sizeof(*fm));
	if (!map_args_ok(d, block_sectors, nr_blocks))
		return -EINVAL;
	fm->disk = d;
	fm->block_sectors = block_sectors;
	fm->nr_blocks = nr_blocks;
	map_extent(d, block_sectors, nr_blocks, &fm->nr_tracks, &fm->nr_cyls,
		   &fm->nr_groups);
	fm->used = ew_zalloc(DIV_ROUND_UP(nr_blocks, BITS_PER_WORD) *
			     sizeof(u64));
	fm->track_free = ew_zalloc((size_t)fm->nr_tracks * sizeof(u16));
	fm->cyl_free = ew_zalloc((size_t)fm->nr_cyls * sizeof(u32));
	fm->group_free = ew_zalloc((size_t)fm->nr_groups * sizeof(u32));
	if (!fm->used || !fm->track_free || !fm->cyl_free ||
	    !fm->group_free) {
		ew_freemap_destroy(fm);
		return -ENOMEM;
	}
	/* every block free: the counts are the tracks' sizes */
	ew_freemap_recount(fm);
	return 0;
}

bool ew_freemap_is_free(const struct ew_freemap *fm, u64 block)
{
	if (block >= fm->nr_blocks)
		return false;
	return !(fm->used[block / BITS_PER_WORD] &
		 (1ULL << (block % BITS_PER_WORD)));
}

/*
 * The first block in [from, to) whose bit is set (want_used) or clear,
 * or EW_NO_BLOCK; a word at a time.
 */
static u64 find_bit(const struct ew_freemap *fm, u64 from, u64 to,
		    bool want_used)
{
	u64 word, b;

	to = min(to, fm->nr_blocks);
	while (from < to) {
		word = fm->used[from / BITS_PER_WORD];
		if (!want_used)
			word = ~word;
		word &= ~0ULL << (from % BITS_PER_WORD);
		if (word) {
			b = (from & ~(u64)(BITS_PER_WORD - 1)) +
			    lowest_bit(word);
			return b < to ? b : EW_NO_BLOCK;
		}
		from = (from | (BITS_PER_WORD - 1)) + 1;
	}
	return EW_NO_BLOCK;
}

u64 ew_freemap_find_free(const struct ew_freemap *fm, u64 from, u64 to)
{
	return find_bit(fm, from, to, false);
}

/* Sets or clears bits [from, to), a word at a time. */
static void set_bits(u64 *map, u64 from, u64 to, bool used)
{
	u64 mask;
	u32 lo, hi;

	while (from < to) {
		lo = from % BITS_PER_WORD;
		hi = (to - (from - lo) >= BITS_PER_WORD) ? BITS_PER_WORD :
		     (u32)(to - (from - lo));
		mask = ~0ULL << lo;
		if (hi < BITS_PER_WORD)
			mask &= ~(~0ULL << hi);
		if (used)
			map[from / BITS_PER_WORD] |= mask;
		else
			map[from / BITS_PER_WORD] &= ~mask;
		from += hi - lo;
	}
}

/*
 * Marks [first, first + count) used or free, all of it in the opposite
 * state (checked by the caller), track by track so the counts stay exact.
 */
static void mark_run(struct ew_freemap *fm, u64 first, u64 count, bool used)
{
	u64 end = first + count, tfirst, e;
	u32 t, n, cyl, g;

	while (first < end) {
		t = ew_freemap_block_track(fm, first);
		n = ew_freemap_track_blocks(fm, t, &tfirst);
		e = min(tfirst + n, end);
		n = (u32)(e - first);
		cyl = t / fm->disk->p.heads;
		g = cyl / EW_FM_GROUP;
		set_bits(fm->used, first, e, used);
		if (used) {
			fm->track_free[t] -= n;
			fm->cyl_free[cyl] -= n;
			fm->group_free[g] -= n;
			fm->nr_free -= n;
		} else {
			fm->track_free[t] += n;
			fm->cyl_free[cyl] += n;
			fm->group_free[g] += n;
			fm->nr_free += n;
		}
		first = e;
	}
}

int ew_freemap_alloc(struct ew_freemap *fm, u64 block)
{
	if (block >= fm->nr_blocks)
		return -ERANGE;
	if (!ew_freemap_is_free(fm, block))
		return -EBUSY;
	mark_run(fm, block, 1, true);
	return 0;
}

int ew_freemap_mark_used(struct ew_freemap *fm, const u64 *bits)
{
	u64 words = DIV_ROUND_UP(fm->nr_blocks, BITS_PER_WORD), i;
	u32 tail = fm->nr_blocks % BITS_PER_WORD;

	if (tail && (bits[words - 1] & ~((1ULL << tail) - 1)))
		return -ERANGE;
	for (i = 0; i < words; i++)
		fm->used[i] |= bits[i];
	return 0;
}

/* Used blocks in [from, to), a word at a time. */
static u64 count_used(const struct ew_freemap *fm, u64 from, u64 to)
{
	u64 n = 0, word;
	u32 lo, hi;

	while (from < to) {
		lo = from % BITS_PER_WORD;
		hi = (to - (from - lo) >= BITS_PER_WORD) ? BITS_PER_WORD :
		     (u32)(to - (from - lo));
		word = fm->used[from / BITS_PER_WORD] >> lo;
		if (hi - lo < BITS_PER_WORD)
			word &= ~(~0ULL << (hi - lo));
		n += hweight64(word);
		from += hi - lo;
	}
	return n;
}

void ew_freemap_recount(struct ew_freemap *fm)
{
	u64 first, used;
	u32 t, n, cyl;

	memset(fm->cyl_free, 0, (size_t)fm->nr_cyls * sizeof(u32));
	memset(fm->group_free, 0, (size_t)fm->nr_groups * sizeof(u32));
	fm->nr_free = 0;
	for (t = 0; t < fm->nr_tracks; t++) {
		n = ew_freemap_track_blocks(fm, t, &first);
		used = count_used(fm, first, first + n);
		n -= (u32)used;
		cyl = t / fm->disk->p.heads;
		fm->track_free[t] = (u16)n;
		fm->cyl_free[cyl] += n;
		fm->group_free[cyl / EW_FM_GROUP] += n;
		fm->nr_free += n;
	}
}

int ew_freemap_free(struct ew_freemap *fm, u64 block)
{
	if (block >= fm->nr_blocks)
		return -ERANGE;
	if (ew_freemap_is_free(fm, block))
		return -EINVAL;
	mark_run(fm, block, 1, false);
	return 0;
}

int ew_freemap_alloc_range(struct ew_freemap *fm, u64 first, u64 count)
{
	if (first > fm->nr_blocks || count > fm->nr_blocks - first)
		return -ERANGE;
	if (find_bit(fm, first, first + count, true) != EW_NO_BLOCK)
		return -EBUSY;
	mark_run(fm, first, count, true);
	return 0;
}

int ew_freemap_free_range(struct ew_freemap *fm, u64 first, u64 count)
{
	if (first > fm->nr_blocks || count > fm->nr_blocks - first)
		return -ERANGE;
	if (find_bit(fm, first, first + count, false) != EW_NO_BLOCK)
		return -EINVAL;
	mark_run(fm, first, count, false);
	return 0;
}

s64 ew_freemap_next_cyl(const struct ew_freemap *fm, s64 cyl, int dir)
{
	s64 n = fm->nr_cyls;

	if (dir > 0) {
		if (cyl < 0)
			cyl = 0;
		while (cyl < n) {
			if (!fm->group_free[cyl / EW_FM_GROUP]) {
				cyl = (cyl / EW_FM_GROUP + 1) * EW_FM_GROUP;
				continue;
			}
			if (fm->cyl_free[cyl])
				return cyl;
			cyl++;
		}
		return -1;
	}
	if (cyl >= n)
		cyl = n - 1;
	while (cyl >= 0) {
		if (!fm->group_free[cyl / EW_FM_GROUP]) {
			cyl = (cyl / EW_FM_GROUP) * EW_FM_GROUP - 1;
			continue;
		}
		if (fm->cyl_free[cyl])
			return cyl;
		cyl--;
	}
	return -1;
}
