/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_map.h - the logical-to-physical map and free-after-remap bookkeeping.
 *
 * Eager writing moves a block on every write, so the map is the array.
 * For every logical block and replica it holds the physical block on the
 * replica's disk (u32; EW_MAP_NONE when the replica has no block) and
 * whether that replica holds the current data (one bit per replica); per
 * logical block a generation, bumped by every write and discard, so that
 * a delayed replica copied for an older generation is recognised as
 * stale and never becomes current.
 *
 * Memory (ew_map_bytes()): per logical block 4 * mirrors bytes of
 * physical blocks, 4 bytes of generation and 1 byte of up-to-date bits:
 * 13 bytes per 4 KiB block at mirrors 2, about capacity / 315.
 *
 * The free-after-remap rule: a physical block that a remap releases is
 * not returned to its free map at once.  It is pushed on the deferred-free
 * list (struct ew_dfree) and given back only at a safe point: when no read
 * that may still be reading it is in flight (the target's read epochs),
 * and, once metadata is persistent, when the metadata change that
 * released it is durable.  The list holds each physical block at most
 * once (a block is in use until it is released), so a list sized to the
 * array's physical blocks never overflows.
 *
 * Everything here is pure bookkeeping: no I/O, no locks, no clock.  The
 * caller serialises access (the target's array lock).
 */
#ifndef EW_MAP_H
#define EW_MAP_H

#include "ew_compat.h"
#include "ew_geom.h"

#define EW_MAP_NONE	((u32)~0U)

struct ew_map {
	u64 nr_blocks;		/* logical blocks */
	u32 mirrors;		/* replicas per block, <= EW_MAX_MIRRORS */
	u32 *pblock;		/* [lblock * mirrors + replica] */
	u32 *gen;		/* [lblock] */
	u8 *uptodate;		/* [lblock]: bit r, replica r is current */
};

size_t ew_map_bytes(u64 nr_blocks, u32 mirrors);
/* Every block unwritten: no replica current, no physical block. */
int ew_map_init(struct ew_map *m, u64 nr_blocks, u32 mirrors);
void ew_map_destroy(struct ew_map *m);

static inline u32 ew_map_pblock(const struct ew_map *m, u64 lblock, u32 r)
{
	return m->pblock[lblock * m->mirrors + r];
}

static inline u8 ew_map_uptodate(const struct ew_map *m, u64 lblock)
{
	return m->uptodate[lblock];
}

static inline u32 ew_map_gen(const struct ew_map *m, u64 lblock)
{
	return m->gen[lblock];
}

/*
 * Neither a current replica nor a physical block: nothing in the map to
 * check or to take from a free map (a fresh array's blocks, most of a
 * young one's).
 */
static inline bool ew_map_empty(const struct ew_map *m, u64 lblock)
{
	const u32 *p = &m->pblock[lblock * m->mirrors];
	u32 r;

	if (m->uptodate[lblock])
		return false;
	for (r = 0; r < m->mirrors; r++)
		if (p[r] != EW_MAP_NONE)
			return false;
	return true;
}

/* Never written or discarded since: reads as zeros. */
static inline bool ew_map_unwritten(const struct ew_map *m, u64 lblock)
{
	return !m->uptodate[lblock];
}

/*
 * A write to lblock begins: returns its generation.  From now on every
 * delayed copy of an older generation is stale.
 */
u32 ew_map_begin_write(struct ew_map *m, u64 lblock);

/*
 * The write of generation gen completed on the replicas in fg_mask, at
 * newp[r].  Those become current; every other replica becomes stale and
 * falls back to home[r] (EW_MAP_NONE where the replica has no home).
 * freed[r] receives the physical block replica r gave up (EW_MAP_NONE if
 * none; never a home).  Returns the number of blocks freed, or -ESTALE
 * when gen is no longer current (nothing changed; the caller frees the
 * blocks it wrote, except homes).
 */
int ew_map_commit_write(struct ew_map *m, u64 lblock, u32 gen, u8 fg_mask,
			const u32 *newp, const u32 *home, u32 *freed);

/*
 * A delayed copy of replica r, made for generation gen, landed at newp
 * (home is the replica's home or EW_MAP_NONE).  Returns 1 when it became
 * current (*freed: the block the replica left, or EW_MAP_NONE), 0 when it
 * was stale (*freed: newp unless newp is the home, whose contents the
 * next copy or write overwrites).
 */
int ew_map_commit_copy(struct ew_map *m, u64 lblock, u32 gen, u32 r,
		       u32 newp, u32 home, u32 *freed);

/*
 * Replica r of lblock no longer holds the current data (a read of it
 * failed, or its member was replaced): it stays mapped to its block,
 * which the next copy or write gives up.  Refuses (returns false, nothing
 * changed) when r is the only current replica: the block would read as
 * never written.
 */
bool ew_map_set_stale(struct ew_map *m, u64 lblock, u32 r);

/*
 * Replica r of lblock is stale and its block holds nothing worth keeping
 * (its member was replaced by a new device): it falls back to home (its
 * home, or EW_MAP_NONE) so that its copy may go to any block.  Returns
 * the block given up (EW_MAP_NONE if none; never a home); a current
 * replica is left alone (EW_MAP_NONE).
 */
u32 ew_map_drop_stale(struct ew_map *m, u64 lblock, u32 r, u32 home);

/*
 * lblock is discarded: a new generation, no replica current (reads give
 * zeros), replicas fall back to home[r]; freed[] as for commit_write.
 * Returns the number of blocks freed.
 */
int ew_map_discard(struct ew_map *m, u64 lblock, const u32 *home, u32 *freed);

/*
 * The deferred-free list: a FIFO of (disk, physical block) with a
 * sequence number per entry.  A safe point is a sequence number: every
 * entry pushed before it may be released.
 */
struct ew_dfree {
	u64 cap;		/* entries the ring holds */
	u64 head;		/* sequence of the oldest entry */
	u64 tail;		/* sequence the next push gets */
	u32 *disk;
	u32 *pblock;
};

size_t ew_dfree_bytes(u64 cap);
int ew_dfree_init(struct ew_dfree *df, u64 cap);
void ew_dfree_destroy(struct ew_dfree *df);
/* Returns the entry's sequence, or -ENOSPC (a caller bug: cap too small). */
s64 ew_dfree_push(struct ew_dfree *df, u32 disk, u32 pblock);
/* Pops the oldest entry if its sequence is below safe; false otherwise. */
bool ew_dfree_pop(struct ew_dfree *df, u64 safe, u32 *disk, u32 *pblock);

static inline u64 ew_dfree_pending(const struct ew_dfree *df)
{
	return df->tail - df->head;
}

#endif /* EW_MAP_H */
