// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_place.c - placement and scheduling decisions (FAST 2002, section 3).
 *
 * Owns the choices eager writing makes: the free block a disk's head
 * reaches first, which candidate disk takes a write replica, which
 * replica serves a read, and SATF-EW's choice between the nearest queued
 * read and an eager write.  Every cost is an exact ew_disk_predict(); an
 * eager write's block is chosen by that cost plus its cylinder's scarcity
 * (ew_place.h).  The free-block map prunes: whole cylinders without free
 * blocks are skipped, a direction of the cylinder walk stops once the
 * seek alone costs more than the best found, and inside a track the first
 * free block after the head is found with one or two bitmap scans.
 */
#include "ew_place.h"

struct nf_search {
	const struct ew_pdisk *pd;
	const struct ew_freemap *fm;
	u32 bs;
	u64 now_ns;
	u64 start_ns;		/* max(now, free_at): when the disk starts */
	u64 best_end;		/* predicted completion of the best block */
	u64 best_key;		/* ... plus its cylinder's scarcity */
	u64 best;		/* the best block, or EW_NO_BLOCK */
	u64 scarcity;		/* the cylinder being searched: nf_scarcity */
};

static void nf_try(struct nf_search *s, u64 block)
{
	struct ew_access a;

	ew_disk_predict(s->pd->model, s->pd->head, s->now_ns,
			ew_disk_block_lba(s->pd->model, block, s->bs), s->bs,
			true, &a);
	if (a.end_ns + s->scarcity < s->best_key) {
		s->best_end = a.end_ns;
		s->best_key = a.end_ns + s->scarcity;
		s->best = block;
	}
}

/* The first free block in cyclic order [from, end) then [first, from). */
static u64 nf_cyclic(const struct ew_freemap *fm, u64 first, u64 end,
		     u64 from)
{
	u64 b = ew_freemap_find_free(fm, from, end);

	if (b == EW_NO_BLOCK && from > first)
		b = ew_freemap_find_free(fm, first, from);
	return b;
}

/*
 * One track with free blocks.  Rotational waits grow in the cyclic order
 * of the blocks starting from the first sector under the head at
 * arrival, and every block that stays on the track transfers in the same
 * time, so the first free block in that order is the best on the track;
 * only the track's last block may run onto the next track and cost more,
 * in which case the next free block is a candidate too.
 */
static void nf_track(struct nf_search *s, u32 track, u64 arm_ns)
{
	const struct ew_disk *d = s->pd->model;
	struct ew_pos pos;
	u64 first, end, lba, from, b, next;
	u32 n, sector;

	n = ew_freemap_track_blocks(s->fm, track, &first);
	if (!n)
		return;
	end = first + n;
	lba = ew_disk_track_first_lba(d, track);
	ew_disk_lba_to_pos(d, lba, &pos);
	sector = ew_disk_first_sector_after(d, &pos,
					    ew_disk_angle_at(d, s->start_ns +
							     arm_ns));
	/* the first block starting at or after that sector; end: wrap */
	from = lba + sector >= d->data_lba ?
		div_u64(lba + sector - d->data_lba + s->bs - 1, s->bs) : first;
	if (from < first || from >= end)
		from = first;
	b = nf_cyclic(s->fm, first, end, from);
	if (b == EW_NO_BLOCK)
		return;
	nf_try(s, b);
	if (ew_disk_block_lba(d, b + 1, s->bs) <= lba + pos.spt)
		return;
	/* b runs onto the next track: the next free block may be better */
	if (b >= from) {
		next = ew_freemap_find_free(s->fm, b + 1, end);
		if (next == EW_NO_BLOCK)
			next = ew_freemap_find_free(s->fm, first, from);
	} else {
		next = ew_freemap_find_free(s->fm, b + 1, from);
	}
	if (next != EW_NO_BLOCK)
		nf_try(s, next);
}

/* The blocks whose first sector lies in cylinder cyl: [*first, end). */
static u64 nr_cyl_blocks(const struct ew_freemap *fm, u32 cyl, u64 *first)
{
	u32 heads = fm->disk->p.heads;
	u64 end;

	ew_freemap_track_blocks(fm, cyl * heads, first);
	if (cyl + 1 >= fm->nr_cyls)
		return fm->nr_blocks;
	ew_freemap_track_blocks(fm, (cyl + 1) * heads, &end);
	return end;
}

/*
 * What taking a block of cylinder cyl leaves to the writes after it (see
 * "Scarcity" in ew_place.h): with n blocks in the cylinder and k free
 * once this one is taken, (n - k) / (k + 1) blocks of a turn of n (the
 * virtual log's estimate of the blocks passed before a free one, Wang et
 * al.), over EW_PLACE_SCARCITY_DIV.
 */
static u64 nf_scarcity(const struct ew_freemap *fm, u32 cyl)
{
	u64 first, n = nr_cyl_blocks(fm, cyl, &first) - first;
	u64 k = fm->cyl_free[cyl] ? fm->cyl_free[cyl] - 1 : 0;

	if (!n || k >= n)
		return 0;
	return div64_u64(fm->disk->p.rotation_ns * (n - k),
			 EW_PLACE_SCARCITY_DIV * (k + 1) * n);
}

static void nf_cylinder(struct nf_search *s, u32 cyl)
{
	const struct ew_disk *d = s->pd->model;
	const struct ew_head *h = s->pd->head;
	u32 heads = d->p.heads, hd, track;
	u64 arm, fixed = d->p.overhead_ns + d->p.write_settle_ns;

	s->scarcity = nf_scarcity(s->fm, cyl);
	for (hd = 0; hd < heads; hd++) {
		track = cyl * heads + hd;
		if (!ew_freemap_track_free(s->fm, track))
			continue;
		if (cyl != h->cyl)
			arm = ew_disk_seek_ns(d, h->cyl, cyl);
		else
			arm = hd != h->head ? d->p.head_switch_ns : 0;
		nf_track(s, track, fixed + arm);
	}
}

/* Can a cylinder at this distance, or farther, still beat the best? */
static bool nf_worth(const struct nf_search *s, u64 dist)
{
	const struct ew_disk *d = s->pd->model;
	u64 lb = s->start_ns + d->p.overhead_ns + d->p.write_settle_ns;

	lb += ew_disk_seek_lower_bound(d, (u32)min_t(u64, dist, ~0U));
	return lb < s->best_key;
}

/*
 * Non-rotational members.  What a request costs does not depend on where
 * it goes, only on the member's fixed costs; an eager write takes the
 * next free block in block order from a cursor (next fit), so the search
 * is a walk over the cylinder counts (whole groups of full cylinders
 * skipped) and one bitmap scan inside one cylinder: a few hundred
 * instructions where the rotational search costs tens of thousands.
 */
static u64 nr_cost(const struct ew_pdisk *pd, bool write)
{
	const struct ew_disk *d = pd->model;

	return d->p.overhead_ns + (write ? d->p.write_settle_ns : 0);
}

static u64 nr_next_free(const struct ew_pdisk *pd)
{
	const struct ew_freemap *fm = pd->fm;
	u64 from = pd->next_free < fm->nr_blocks ? pd->next_free : 0;
	u64 first, end, b;
	s64 cyl, c;

	cyl = ew_freemap_block_track(fm, from) / fm->disk->p.heads;
	c = ew_freemap_next_cyl(fm, cyl, 1);
	if (c == cyl) {
		end = nr_cyl_blocks(fm, (u32)c, &first);
		b = ew_freemap_find_free(fm, max(from, first), end);
		if (b != EW_NO_BLOCK)
			return b;
		c = ew_freemap_next_cyl(fm, c + 1, 1);
	}
	/* past the last cylinder with a free block: wrap */
	if (c < 0)
		c = ew_freemap_next_cyl(fm, 0, 1);
	if (c < 0)
		return EW_NO_BLOCK;
	end = nr_cyl_blocks(fm, (u32)c, &first);
	return ew_freemap_find_free(fm, first, end);
}

u64 ew_place_nearest_free_dir(const struct ew_pdisk *pd, u32 block_sectors,
			      u64 now_ns, int dir, u64 *cost_ns)
{
	struct nf_search s = {
		.pd = pd,
		.fm = pd->fm,
		.bs = block_sectors,
		.now_ns = now_ns,
		.best_end = ~0ULL,
		.best_key = ~0ULL,
		.best = EW_NO_BLOCK,
	};
	s64 hc = pd->head->cyl, c;

	*cost_ns = 0;
	if (!s.fm || !s.fm->nr_free)
		return EW_NO_BLOCK;
	if (pd->nonrot) {
		s.best = nr_next_free(pd);
		if (s.best != EW_NO_BLOCK)
			*cost_ns = nr_cost(pd, true);
		return s.best;
	}
	/* the disk sees the request lead_ns from now, not before */
	s.now_ns = now_ns + pd->lead_ns;
	s.start_ns = max(s.now_ns, pd->head->free_at_ns);
	if (dir >= 0) {
		for (c = ew_freemap_next_cyl(s.fm, hc, 1);
		     c >= 0 && nf_worth(&s, c - hc);
		     c = ew_freemap_next_cyl(s.fm, c + 1, 1))
			nf_cylinder(&s, (u32)c);
	}
	if (dir <= 0) {
		for (c = ew_freemap_next_cyl(s.fm, dir ? hc : hc - 1, -1);
		     c >= 0 && nf_worth(&s, hc - c);
		     c = ew_freemap_next_cyl(s.fm, c - 1, -1))
			nf_cylinder(&s, (u32)c);
	}
	if (s.best != EW_NO_BLOCK)
		*cost_ns = s.best_end - now_ns;
	return s.best;
}

bool ew_place_reached(const struct ew_pdisk *pd, u64 block, u32 block_sectors,
		      u64 end_ns, u64 sent_ns)
{
	struct ew_access a;

	if (pd->nonrot)
		return true;
	ew_disk_predict(pd->model, pd->head, sent_ns + pd->lead_ns,
			ew_disk_block_lba(pd->model, block, block_sectors),
			block_sectors, true, &a);
	return a.end_ns < end_ns + pd->model->p.rotation_ns / 2;
}

u64 ew_place_again(const struct ew_pdisk *pd, struct ew_freemap *fm,
		   u32 block_sectors, u64 block, u64 placed_ns, u64 sent_ns,
		   u64 *end_ns)
{
	u64 from = sent_ns + (sent_ns - placed_ns), cost, b;

	ew_freemap_free(fm, block);
	b = ew_place_nearest_free(pd, block_sectors, from, &cost);
	if (b == EW_NO_BLOCK || ew_freemap_alloc(fm, b)) {
		/* it was just given back: free, so this cannot fail */
		ew_freemap_alloc(fm, block);
		return block;
	}
	*end_ns = from + cost;
	return b;
}

/* The slot's predicted end: the latest over the rotating holders. */
static u64 jslot_end(const struct ew_pdisk *const *pds, u32 npd, u64 lba,
		     u32 sectors, u64 now_ns)
{
	struct ew_access a;
	u64 end = 0;
	u32 i;

	for (i = 0; i < npd; i++) {
		if (pds[i]->nonrot)
			continue;
		ew_disk_predict(pds[i]->model, pds[i]->head,
				now_ns + pds[i]->lead_ns, lba, sectors, true,
				&a);
		end = max(end, a.end_ns);
	}
	return end;
}

u32 ew_place_jslot(const struct ew_pdisk *const *pds, u32 npd, u64 lba0,
		   u32 slot_sectors, u32 nslots, u32 hint,
		   bool (*is_free)(void *ctx, u32 slot), void *ctx,
		   u64 now_ns, u64 *cost_ns)
{
	const struct ew_pdisk *rot = NULL;
	u64 best_end = ~0ULL, end, first;
	u32 i, k, lo, hi, best = nslots, center = 0;

	*cost_ns = 0;
	if (!nslots)
		return nslots;
	for (i = 0; i < npd && !rot; i++)
		if (!pds[i]->nonrot)
			rot = pds[i];
	if (rot) {
		/* the slot that starts the track under the head, clamped */
		first = ew_disk_track_first_lba(rot->model,
						rot->head->cyl *
						rot->model->p.heads +
						rot->head->head);
		if (first > lba0)
			center = min_t(u64, div_u64(first - lba0, slot_sectors),
				       nslots - 1);
		lo = center > EW_PLACE_JSLOT_WINDOW ?
		     center - EW_PLACE_JSLOT_WINDOW : 0;
		hi = min(center + EW_PLACE_JSLOT_WINDOW, nslots - 1);
		for (k = lo; k <= hi; k++) {
			if (!is_free(ctx, k))
				continue;
			end = jslot_end(pds, npd, lba0 + (u64)k * slot_sectors,
					slot_sectors, now_ns);
			if (end < best_end) {
				best_end = end;
				best = k;
			}
		}
		if (best < nslots) {
			*cost_ns = best_end > now_ns ? best_end - now_ns : 0;
			return best;
		}
	}
	/* no arm to aim for, or nothing free near it */
	for (i = 0, k = hint < nslots ? hint : 0; i < nslots; i++) {
		if (is_free(ctx, k))
			return k;
		k = k + 1 < nslots ? k + 1 : 0;
	}
	return nslots;
}

u64 ew_place_lead_update(u64 lead_ns, u64 pred_ns, u64 measured_ns,
			 u64 rotation_ns)
{
	if (measured_ns >= pred_ns + rotation_ns / 2)
		return min(lead_ns + lead_ns / 2 + EW_LEAD_STEP_NS,
			   rotation_ns / 4);
	return lead_ns - div_u64(lead_ns, EW_LEAD_DECAY);
}

u64 ew_place_nearest_free(const struct ew_pdisk *pd, u32 block_sectors,
			  u64 now_ns, u64 *cost_ns)
{
	return ew_place_nearest_free_dir(pd, block_sectors, now_ns, 0,
					 cost_ns);
}

static bool skipped(u32 skip_mask, u32 i)
{
	return i < 32 && (skip_mask & (1U << i));
}

/* Is (queued, cost) a better write target than the choice so far? */
static bool write_better(u32 queued, u64 cost, u32 best_queued,
			 u64 best_cost)
{
	/* an idle disk first, then the shortest queue, then the cost */
	if (queued != best_queued)
		return queued < best_queued;
	return cost < best_cost;
}

int ew_place_write(const struct ew_pdisk *disks, const struct ew_replica *cand,
		   u32 n, u32 skip_mask, bool eager, u32 block_sectors,
		   u64 now_ns, struct ew_choice *out)
{
	const struct ew_pdisk *pd;
	struct ew_access a;
	u32 i, best_queued = ~0U;
	u64 block, cost;
	bool found = false;

	for (i = 0; i < n; i++) {
		if (skipped(skip_mask, i))
			continue;
		pd = &disks[cand[i].disk];
		if (pd->failed)
			continue;
		if (eager) {
			block = ew_place_nearest_free(pd, block_sectors, now_ns,
						      &cost);
		} else {
			block = cand[i].home;
			if (block != EW_NO_BLOCK && pd->nonrot) {
				cost = nr_cost(pd, true);
			} else if (block != EW_NO_BLOCK) {
				ew_disk_predict(pd->model, pd->head, now_ns,
						ew_disk_block_lba(pd->model,
								  block,
								  block_sectors),
						block_sectors, true, &a);
				cost = a.end_ns - now_ns;
			}
		}
		if (block == EW_NO_BLOCK)
			continue;
		if (found && !write_better(pd->queued, cost, best_queued,
					   out->cost_ns))
			continue;
		found = true;
		best_queued = pd->queued;
		out->index = i;
		out->disk = cand[i].disk;
		out->block = block;
		out->cost_ns = cost;
	}
	return found ? 0 : -ENOSPC;
}

int ew_place_read(const struct ew_pdisk *disks, const u32 *disk,
		  const u64 *block, u32 n, u32 skip_mask, u32 block_sectors,
		  u32 nsect, u64 now_ns, struct ew_choice *out)
{
	const struct ew_pdisk *pd;
	struct ew_access a;
	u32 i, best_queued = 0;
	bool found = false;
	u64 cost;

	for (i = 0; i < n; i++) {
		if (skipped(skip_mask, i) || block[i] == EW_NO_BLOCK)
			continue;
		pd = &disks[disk[i]];
		if (pd->failed)
			continue;
		if (pd->nonrot) {
			cost = nr_cost(pd, false);
		} else {
			ew_disk_predict(pd->model, pd->head, now_ns,
					ew_disk_block_lba(pd->model, block[i],
							  block_sectors),
					nsect, false, &a);
			cost = a.end_ns - now_ns;
		}
		/* the replica reached first; equal: the shorter queue */
		if (found && (cost > out->cost_ns ||
			      (cost == out->cost_ns &&
			       pd->queued >= best_queued)))
			continue;
		found = true;
		best_queued = pd->queued;
		out->index = i;
		out->disk = disk[i];
		out->block = block[i];
		out->cost_ns = cost;
	}
	return found ? 0 : -ENODATA;
}

int ew_place_satf_ew(const struct ew_pdisk *pd, const u64 *read_lba,
		     u32 nreads, u32 nsect, bool have_write, u32 block_sectors,
		     u64 now_ns, u64 *block, u64 *cost_ns)
{
	struct ew_access a;
	u64 best_cost = ~0ULL, wblock, wcost;
	int best = -2;
	u32 i;

	*block = EW_NO_BLOCK;
	*cost_ns = 0;
	for (i = 0; i < nreads; i++) {
		ew_disk_predict(pd->model, pd->head, now_ns, read_lba[i],
				nsect, false, &a);
		if (a.end_ns - now_ns < best_cost) {
			best_cost = a.end_ns - now_ns;
			best = (int)i;
		}
	}
	if (have_write) {
		wblock = ew_place_nearest_free(pd, block_sectors, now_ns,
					       &wcost);
		/* a tie goes to the read: its requester is waiting */
		if (wblock != EW_NO_BLOCK && wcost < best_cost) {
			*block = wblock;
			*cost_ns = wcost;
			return -1;
		}
	}
	if (best >= 0)
		*cost_ns = best_cost;
	return best;
}
