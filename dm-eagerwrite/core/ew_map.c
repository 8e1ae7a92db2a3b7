// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_map.c - the logical-to-physical map and the deferred-free list.
 *
 * See ew_map.h for the rules; this file only keeps the books.
 */
#include "ew_map.h"

size_t ew_map_bytes(u64 nr_blocks, u32 mirrors)
{
	return nr_blocks * (mirrors * sizeof(u32) + sizeof(u32) + sizeof(u8));
}

int ew_map_init(struct ew_map *m, u64 nr_blocks, u32 mirrors)
{
	u64 i;

	memset(m, 0, sizeof(*m));
	if (!nr_blocks || !mirrors || mirrors > EW_MAX_MIRRORS)
		return -EINVAL;
	m->nr_blocks = nr_blocks;
	m->mirrors = mirrors;
	m->pblock = ew_zalloc(nr_blocks * mirrors * sizeof(u32));
	m->gen = ew_zalloc(nr_blocks * sizeof(u32));
	m->uptodate = ew_zalloc(nr_blocks);
	if (!m->pblock || !m->gen || !m->uptodate) {
		ew_map_destroy(m);
		return -ENOMEM;
	}
	for (i = 0; i < nr_blocks * mirrors; i++)
		m->pblock[i] = EW_MAP_NONE;
	return 0;
}

void ew_map_destroy(struct ew_map *m)
{
	ew_free(m->pblock);
	ew_free(m->gen);
	ew_free(m->uptodate);
	m->pblock = NULL;
	m->gen = NULL;
	m->uptodate = NULL;
	m->nr_blocks = 0;
}

u32 ew_map_begin_write(struct ew_map *m, u64 lblock)
{
	return ++m->gen[lblock];
}

/* Replica r moves from its block to p: what it gives up, if anything. */
static u32 ew_map_move(struct ew_map *m, u64 lblock, u32 r, u32 p, u32 home)
{
	u32 *slot = &m->pblock[lblock * m->mirrors + r];
	u32 old = *slot;

	*slot = p;
	if (old == EW_MAP_NONE || old == p || old == home)
		return EW_MAP_NONE;
	return old;
}

int ew_map_commit_write(struct ew_map *m, u64 lblock, u32 gen, u8 fg_mask,
			const u32 *newp, const u32 *home, u32 *freed)
{
	int nr = 0;
	u32 r;

	if (m->gen[lblock] != gen)
		return -ESTALE;
	for (r = 0; r < m->mirrors; r++) {
		u32 p = (fg_mask & (1U << r)) ? newp[r] : home[r];

		freed[r] = ew_map_move(m, lblock, r, p, home[r]);
		if (freed[r] != EW_MAP_NONE)
			nr++;
	}
	m->uptodate[lblock] = fg_mask;
	return nr;
}

int ew_map_commit_copy(struct ew_map *m, u64 lblock, u32 gen, u32 r,
		       u32 newp, u32 home, u32 *freed)
{
	if (m->gen[lblock] != gen || !m->uptodate[lblock]) {
		*freed = newp == home ? EW_MAP_NONE : newp;
		return 0;
	}
	*freed = ew_map_move(m, lblock, r, newp, home);
	m->uptodate[lblock] |= 1U << r;
	return 1;
}

bool ew_map_set_stale(struct ew_map *m, u64 lblock, u32 r)
{
	u8 bit = (u8)(1U << r);

	if (!(m->uptodate[lblock] & bit) || m->uptodate[lblock] == bit)
		return false;
	m->uptodate[lblock] &= (u8)~bit;
	return true;
}

u32 ew_map_drop_stale(struct ew_map *m, u64 lblock, u32 r, u32 home)
{
	if (m->uptodate[lblock] & (1U << r))
		return EW_MAP_NONE;
	return ew_map_move(m, lblock, r, home, home);
}

int ew_map_discard(struct ew_map *m, u64 lblock, const u32 *home, u32 *freed)
{
	int nr = 0;
	u32 r;

	m->gen[lblock]++;
	for (r = 0; r < m->mirrors; r++) {
		freed[r] = ew_map_move(m, lblock, r, home[r], home[r]);
		if (freed[r] != EW_MAP_NONE)
			nr++;
	}
	m->uptodate[lblock] = 0;
	return nr;
}

size_t ew_dfree_bytes(u64 cap)
{
	return cap * 2 * sizeof(u32);
}

int ew_dfree_init(struct ew_dfree *df, u64 cap)
{
	memset(df, 0, sizeof(*df));
	if (!cap)
		return -EINVAL;
	df->cap = cap;
	df->disk = ew_zalloc(cap * sizeof(u32));
	df->pblock = ew_zalloc(cap * sizeof(u32));
	if (!df->disk || !df->pblock) {
		ew_dfree_destroy(df);
		return -ENOMEM;
	}
	return 0;
}

void ew_dfree_destroy(struct ew_dfree *df)
{
	ew_free(df->disk);
	ew_free(df->pblock);
	df->disk = NULL;
	df->pblock = NULL;
	df->cap = 0;
}

s64 ew_dfree_push(struct ew_dfree *df, u32 disk, u32 pblock)
{
	u64 seq = df->tail;
	u64 slot;

	if (df->tail - df->head >= df->cap)
		return -ENOSPC;
	div64_u64_rem(seq, df->cap, &slot);
	df->disk[slot] = disk;
	df->pblock[slot] = pblock;
	df->tail++;
	return (s64)seq;
}

bool ew_dfree_pop(struct ew_dfree *df, u64 safe, u32 *disk, u32 *pblock)
{
	u64 slot;

	if (df->head == df->tail || df->head >= safe)
		return false;
	div64_u64_rem(df->head, df->cap, &slot);
	*disk = df->disk[slot];
	*pblock = df->pblock[slot];
	df->head++;
	return true;
}
