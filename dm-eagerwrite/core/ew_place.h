/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_place.h - placement and scheduling decisions (FAST 2002, section 3).
 *
 * Pure functions over a view of the member disks: their models, the
 * predictor's head state, their free-block maps and queue lengths.  The
 * caller (the target, ewsim) owns the state, the locking and the clock;
 * these functions only decide:
 *  - where a write's replica goes: among the candidate disks, the idle one
 *    whose head is closest to a free block, else the one with the shortest
 *    queue; on that disk the free block reached first (eager layouts), or
 *    the fixed home (raid10, ddm's home step);
 *  - which replica a read goes to: the one predicted to be reached first;
 *  - on one disk, SATF-EW: serve the nearest queued read or eager-write to
 *    the nearest free block, whichever is reached first.
 */
#ifndef EW_PLACE_H
#define EW_PLACE_H

#include "ew_compat.h"
#include "ew_disk.h"
#include "ew_freemap.h"
#include "ew_geom.h"

/* The placement view of one member disk. */
struct ew_pdisk {
	const struct ew_disk *model;
	const struct ew_head *head;
	const struct ew_freemap *fm;	/* NULL: no free space on this disk */
	u32 queued;			/* foreground requests queued/in flight */
	bool failed;
	/*
	 * The lead: how long after the caller's now_ns a request sent now
	 * reaches the disk (the caller's path to it).  An eager write's
	 * block must still be ahead of the head then; one that has just
	 * passed costs a whole turn.  0 for a caller that sends at now_ns
	 * (the simulator); the target learns it (ew_place_lead_update).
	 */
	u64 lead_ns;
	/*
	 * A non-rotational member (the caller says so; the target asks the
	 * member's queue): no arm and no platter, so no position to
	 * predict.  An eager write takes the first free block at or after
	 * next_free, cyclically (the caller moves next_free past the blocks
	 * it takes); any request costs the model's fixed costs only
	 * (overhead_ns, plus write_settle_ns for a write), so the choice
	 * between members is the queue, then those costs; head and lead_ns
	 * are not read.
	 */
	bool nonrot;
	u64 next_free;
};

struct ew_choice {
	u32 index;		/* index into the candidates */
	u32 disk;
	u64 block;		/* physical block to write or read */
	u64 cost_ns;		/* predicted completion - now */
};

/*
 * The free block of pd reached first by a write of one block issued at
 * now_ns, its cylinder's scarcity counted (below); EW_NO_BLOCK when the
 * map has none.  *cost_ns: predicted completion - now_ns (the scarcity
 * not included).  Walks cylinders outward from the head, skipping
 * cylinders without free blocks, and stops once the seek alone exceeds
 * the best found.  A non-rotational pd: the first free block at or after
 * pd->next_free (cyclically), found through the cylinder counts.
 *
 * Scarcity.  Greedy placement takes the last free blocks of a cylinder
 * whenever they come under the head a little sooner than a block of an
 * emptier one, and a region packed by a sequential fill (eager writes
 * pack the cylinders near the head) then holds the head: every later
 * write finds only that region's few holes and its own freed blocks
 * near it, and waits most of a turn for them, where one seek out would
 * serve the writes after it at once.  So a candidate is compared by its
 * predicted completion plus what taking it leaves to the next write
 * there: with n blocks in its cylinder and k free after it,
 * rotation_ns * (n - k) / ((k + 1) * n) / EW_PLACE_SCARCITY_DIV.  A
 * cylinder half free or more adds microseconds; the write that fills a
 * cylinder adds half a turn.  In ewsim (36 members, the data set written
 * in order, then the TPC-C-like mix), the EW-Array's writes were 7-11%
 * faster and its reads 0-2% slower; with the data set placed at random
 * (free space even) nothing changed (Documentation/core.rst).
 */
#define EW_PLACE_SCARCITY_DIV	2
u64 ew_place_nearest_free(const struct ew_pdisk *pd, u32 block_sectors,
			  u64 now_ns, u64 *cost_ns);
/*
 * The same, looking only at cylinders >= the head's (dir > 0) or <= it
 * (dir < 0); dir 0 is ew_place_nearest_free().  For schedulers that sweep
 * in one seek direction so as not to exhaust the free space near the head
 * (SATF-EW as the paper describes it).
 */
u64 ew_place_nearest_free_dir(const struct ew_pdisk *pd, u32 block_sectors,
			      u64 now_ns, int dir, u64 *cost_ns);

/*
 * A block chosen for a write sent at some earlier time, its completion
 * predicted at end_ns, is sent at sent_ns instead (the lead added, as
 * the search adds it): is it still reached in the same turn?  False when
 * the head will have passed it and the write would wait about a turn
 * more (its completion later by half a turn or more).  A non-rotational
 * member is always reached.
 */
bool ew_place_reached(const struct ew_pdisk *pd, u64 block, u32 block_sectors,
		      u64 end_ns, u64 sent_ns);

/*
 * What follows a no from ew_place_reached(): block, allocated in fm (the
 * map pd->fm reads) by a search that started at placed_ns for a request
 * sent only at sent_ns, is given back and the member searched again,
 * from sent_ns plus as long again as the searches took (sent_ns -
 * placed_ns: the new search is assumed as long).  Returns the block the
 * request now goes to, allocated, and sets *end_ns to its predicted
 * completion; when no other block can be had the old one is kept
 * (allocated again) and *end_ns is left alone.
 */
u64 ew_place_again(const struct ew_pdisk *pd, struct ew_freemap *fm,
		   u32 block_sectors, u64 block, u64 placed_ns, u64 sent_ns,
		   u64 *end_ns);

/*
 * The journal slot a commit writes when its blocks may go to any free
 * slot (the superblock's JFREE): slot k is slot_sectors sectors at
 * lba0 + k * slot_sectors on each of the npd holders (the same place on
 * each: one write per holder, all in parallel), and is_free(ctx, k)
 * says whether it may be written.  The free slot whose writes all end
 * first (the latest of the holders' predicted completions, each from
 * now_ns plus its lead) wins; only slots within EW_PLACE_JSLOT_WINDOW
 * of the one under the first rotating holder's head are weighed (the
 * area is contiguous: those are the nearest tracks), the rest only when
 * none of those is free.  Holders that are all non-rotational, or none:
 * the first free slot from hint on, cyclically.  Returns the slot, or
 * nslots when none is free; *cost_ns, the predicted completion - now_ns
 * (0 when not predicted).
 */
#define EW_PLACE_JSLOT_WINDOW	128
u32 ew_place_jslot(const struct ew_pdisk *const *pds, u32 npd, u64 lba0,
		   u32 slot_sectors, u32 nslots, u32 hint,
		   bool (*is_free)(void *ctx, u32 slot), void *ctx,
		   u64 now_ns, u64 *cost_ns);

/*
 * Learns the lead from an eager write's completion: predicted the
 * service time pred_ns (now to completion, the lead included), measured
 * measured_ns.  Later by half a turn or more: the block had passed under
 * the head when the request reached the disk, so the lead was too short
 * and grows by half (plus EW_LEAD_STEP_NS, at most a quarter turn);
 * otherwise it shrinks by 1/EW_LEAD_DECAY of itself, so that a lead that
 * is no longer needed does not cost rotation for ever.  Returns the new
 * lead.
 */
#define EW_LEAD_STEP_NS		50000ULL
#define EW_LEAD_DECAY		256
u64 ew_place_lead_update(u64 lead_ns, u64 pred_ns, u64 measured_ns,
			 u64 rotation_ns);

/*
 * Whether an eager write's completion may teach the lead: only one sent
 * to a member whose arm the caller knew (a request had completed there)
 * and that had nothing else to do: no request of its own in flight
 * (inflight) and no request it cannot predict (unseen: a background
 * copy's read, whose arm it learns only when the copy ends; a rebuild
 * run's reads and writes).  Behind those, a late completion measures
 * them, not the path to the disk; learned anyway, they hold the lead at
 * its cap and every write pays it (issue 14: ew1's prefill, its members
 * busy with read-back copies; a rebuild left it at the cap too).
 */
static inline bool ew_place_lead_sample(bool arm_known, u32 inflight,
					u32 unseen)
{
	return arm_known && !inflight && !unseen;
}

/*
 * Chooses where one write replica goes.  cand[0..n-1] are the block's
 * replicas (disk, home); a candidate whose bit is set in skip_mask (the
 * replicas already chosen or up to date) or whose disk failed is not
 * considered.  eager: write to the nearest free block; otherwise to the
 * candidate's home.  Returns 0, or -ENOSPC when no candidate can take it.
 */
int ew_place_write(const struct ew_pdisk *disks, const struct ew_replica *cand,
		   u32 n, u32 skip_mask, bool eager, u32 block_sectors,
		   u64 now_ns, struct ew_choice *out);

/*
 * Chooses which replica a read of nsect sectors goes to: disk[i] holds the
 * data at block[i]; candidates in skip_mask or on failed disks are not
 * considered.  Returns 0, or -ENODATA when no replica is readable.
 */
int ew_place_read(const struct ew_pdisk *disks, const u32 *disk,
		  const u64 *block, u32 n, u32 skip_mask, u32 block_sectors,
		  u32 nsect, u64 now_ns, struct ew_choice *out);

/*
 * SATF-EW for one disk: read_lba[0..nreads-1] are the queued reads (nsect
 * sectors each).  Returns the index of the read to serve next, or -1 when
 * an eager write to *block (the nearest free block) is reached first (only
 * considered when have_write).  -2 when there is nothing to do.
 */
int ew_place_satf_ew(const struct ew_pdisk *pd, const u64 *read_lba,
		     u32 nreads, u32 nsect, bool have_write, u32 block_sectors,
		     u64 now_ns, u64 *block, u64 *cost_ns);

#endif /* EW_PLACE_H */
