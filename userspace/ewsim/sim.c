// SPDX-License-Identifier: GPL-2.0-only
/*
 * sim.c - ewsim's engine: N simulated member disks, each with a
 * foreground queue and a delayed-write queue, the paper's array
 * scheduling (FAST 2002, section 3) and the three layouts.
 *
 * The clock is the time of the next event: the next arrival or the
 * earliest completion among the busy disks (ties: arrival first, then the
 * lowest disk number), so a run is a pure function of its configuration
 * and seed.
 *
 * What the engine decides itself (the caller's part of the core's
 * contract): queue order (FCFS, SATF over a window), when delayed work
 * runs (only when the disk's foreground queue is empty), duplicates of a
 * read on busy holders, the logical-to-physical map and its generations.
 * What it asks the core: the replicas of a block (ew_geom_map), which
 * replica a write or read goes to (ew_place_write, ew_place_read), the
 * free block reached first (ew_place_nearest_free), SATF-EW's choice
 * (ew_place_satf_ew), and every service time (ew_disk_predict on the
 * true head, then ew_head_complete).
 *
 * Layouts, per logical block (replicas k = 0..Dm-1):
 *  raid10: every write updates homes in place; `sync` of them in the
 *    foreground, chosen by ew_place_write, the rest delayed.
 *  ew: every replica is eager-written anywhere in its disk's region; the
 *    old copy is freed when the new one is on disk.
 *  ddm: replica 0 has a home on the home disk, replica 1 lives anywhere
 *    on the partner.  Foreground writes are eager (ew_place_write with
 *    eager set: the home disk's copy goes to a free block near its head
 *    as a temporary), and the home is updated in place later by a
 *    delayed write that also frees the temporary: the paper's third
 *    write.
 *
 * A replica is stale while a newer write of its block waits in a delayed
 * queue; reads skip stale replicas.  A newer write supersedes a queued
 * delayed write of the same replica (the buffer holds the newest data).
 */
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "ewsim.h"
#include "workload.h"

#define NO_LOC	0xffffffffu

enum op_kind { OP_READ, OP_EAGER, OP_HOME };

struct lreq;
struct rgroup;

struct op {
	u8 kind;
	bool delayed;
	bool cancelled;		/* superseded / lost the duplicate race */
	bool queued;
	u32 disk;
	u32 rep;
	u32 gen;
	u32 nsect;
	u64 block;		/* physical block (read, home; eager at start) */
	u64 lblock;
	u64 enq_ns, start_ns, end_ns;
	struct lreq *lr;	/* foreground: the request it serves */
	struct rgroup *grp;	/* read duplicated on busy holders */
	struct op *prev, *next;	/* queue links */
};

struct oplist {
	struct op *head, *tail;
	u32 len;
};

struct rgroup {
	u32 refs;
	bool done;
	struct op *ops[EW_MAX_MIRRORS];
	u32 n;
};

struct lreq {
	u64 id;
	u64 arr_ns;
	u64 lblock;
	u32 nblocks;
	u32 remaining;		/* foreground operations not yet done */
	bool write;
	bool measured;
	struct lreq *next;	/* stall list */
};

struct pool {
	void *free;
	size_t size;
};

struct sdisk {
	struct ew_disk model;	/* ground truth */
	struct ew_disk pmodel;	/* what the placement sees */
	struct ew_head head;
	struct ew_freemap fm;
	bool has_fm;
	bool busy;
	struct op *cur;
	struct oplist fg, dl;
	u64 busy_ns;		/* inside the measured window */
	u64 md_head;		/* RP_MD: sector after the last completed op */
};

struct sim {
	const struct sim_config *c;
	struct ew_geom g;
	u32 n, dm, bs;
	struct sdisk *d;
	struct ew_pdisk *pd;
	/* logical block state, index L * dm + k */
	u32 *gen;		/* per L: newest write */
	u32 *loc;		/* ew, ddm: where replica k is (ddm k=0: temp) */
	u32 *loc_gen;		/* generation readable on replica k */
	struct op **pending;	/* queued delayed write of replica k */
	/* pools */
	struct pool ops, grps, lrs;
	void **chunks;
	u32 nr_chunks, cap_chunks;
	/* clock and workload */
	u64 now;
	struct workload wl;
	/*
	 * The phase running: the measured run (pc == c, src == &wl) or,
	 * before it (pre), the sequential populate or a warm-up, whose
	 * requests are neither counted nor measured.
	 */
	const struct sim_config *pc;
	struct workload *src;
	bool pre;
	u64 pre_n;		/* requests of the phases before the run */
	u64 t0;			/* start of the measured phase */
	struct rng noise;
	u64 arrived, completed, outstanding;
	u64 warm_n;
	u64 t_warm;		/* arrival of the first measured request */
	u64 t_end;		/* last measured completion */
	bool warm_known;
	u64 delayed, delayed_done, superseded, stalls;
	u64 dup_reads, dup_wasted;
	struct lreq *stall_head, *stall_tail;
	/*
	 * A request's blocks are being issued: no delayed write starts
	 * until the last one is placed.  The target maps every block of a
	 * bio before its propagation worker runs (ew_kick_prop queues the
	 * worker), so a block's foreground write never finds its disk
	 * just taken by the delayed replica of the block before it.
	 */
	bool hold_delayed;
	/* statistics */
	u64 *rd_ns, *wr_ns;
	u64 nrd, nwr, caprd, capwr;
	double eager_pos, eager_rot;
	u64 eager_n;
	double op_resp, op_svc, op_svc2;
	u64 op_n;
	double dq_area;		/* integral of delayed length over time */
	u64 dq_last_t;
	u64 dq_max;
	u64 sample_ns, next_sample;
	u32 nsamples, capsamples;
	double *st;
	u32 *sl;
	FILE *ops_out;
	int err;
};

/* ------------------------------------------------------------------ */
/* pools */

static void *pool_chunk(struct sim *s, size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		return NULL;
	if (s->nr_chunks == s->cap_chunks) {
		u32 cap = s->cap_chunks ? s->cap_chunks * 2 : 64;
		void **nc = realloc(s->chunks, cap * sizeof(*nc));

		if (!nc) {
			free(p);
			return NULL;
		}
		s->chunks = nc;
		s->cap_chunks = cap;
	}
	s->chunks[s->nr_chunks++] = p;
	return p;
}

#define POOL_BATCH 4096

/*
 * Free lists of fixed-size objects: a free object's first bytes hold the
 * link to the next one (memcpy, so no type is punned).
 */
static void *pool_get(struct sim *s, struct pool *p)
{
	void *o;

	if (!p->free) {
		char *a = pool_chunk(s, POOL_BATCH * p->size);

		if (!a) {
			fprintf(stderr, "ewsim: out of memory\n");
			exit(EWSIM_EXIT_FAIL);
		}
		for (int i = 0; i < POOL_BATCH; i++) {
			memcpy(a + i * p->size, &p->free, sizeof(void *));
			p->free = a + i * p->size;
		}
	}
	o = p->free;
	memcpy(&p->free, o, sizeof(void *));
	memset(o, 0, p->size);
	return o;
}

static void pool_put(struct pool *p, void *o)
{
	memcpy(o, &p->free, sizeof(void *));
	p->free = o;
}

static struct op *op_new(struct sim *s)
{
	return pool_get(s, &s->ops);
}

static void op_put(struct sim *s, struct op *o)
{
	pool_put(&s->ops, o);
}

static struct rgroup *grp_new(struct sim *s)
{
	return pool_get(s, &s->grps);
}

static void grp_put(struct sim *s, struct rgroup *g)
{
	if (--g->refs)
		return;
	pool_put(&s->grps, g);
}

static struct lreq *lr_new(struct sim *s)
{
	return pool_get(s, &s->lrs);
}

static void lr_put(struct sim *s, struct lreq *r)
{
	pool_put(&s->lrs, r);
}

/* ------------------------------------------------------------------ */
/* queues */

static void q_push(struct oplist *q, struct op *o)
{
	o->prev = q->tail;
	o->next = NULL;
	if (q->tail)
		q->tail->next = o;
	else
		q->head = o;
	q->tail = o;
	q->len++;
	o->queued = true;
}

static void q_del(struct oplist *q, struct op *o)
{
	if (o->prev)
		o->prev->next = o->next;
	else
		q->head = o->next;
	if (o->next)
		o->next->prev = o->prev;
	else
		q->tail = o->prev;
	q->len--;
	o->queued = false;
	o->prev = o->next = NULL;
}

static void pd_sync(struct sim *s, u32 disk)
{
	struct sdisk *d = &s->d[disk];

	s->pd[disk].queued = d->fg.len + (d->busy && d->cur &&
					  !d->cur->delayed ? 1 : 0);
}

static bool disk_idle(const struct sim *s, u32 disk)
{
	return !s->d[disk].busy && !s->d[disk].fg.len;
}

/* ------------------------------------------------------------------ */
/* delayed-queue length over time */

static void dq_note(struct sim *s)
{
	if (s->pre)
		return;
	if (s->now > s->dq_last_t) {
		if (s->warm_known && s->now > s->t_warm)
			s->dq_area += (double)s->delayed *
				(double)(s->now - max(s->dq_last_t, s->t_warm));
		s->dq_last_t = s->now;
	}
	if (s->delayed > s->dq_max)
		s->dq_max = s->delayed;
	while (s->now >= s->next_sample) {
		if (s->nsamples == s->capsamples) {
			/* Keep at most 1024 points: halve, double the step. */
			u32 j = 0;

			for (u32 i = 0; i < s->nsamples; i += 2, j++) {
				s->st[j] = s->st[i];
				s->sl[j] = s->sl[i];
			}
			s->nsamples = j;
			s->sample_ns *= 2;
			s->next_sample = s->t0 +
				(u64)(s->st[j - 1] * 1e9) + s->sample_ns;
			if (s->now < s->next_sample)
				break;
		}
		s->st[s->nsamples] = (double)(s->next_sample - s->t0) / 1e9;
		s->sl[s->nsamples] = (u32)min_t(u64, s->delayed, 0xffffffffu);
		s->nsamples++;
		s->next_sample += s->sample_ns;
	}
}

/* ------------------------------------------------------------------ */
/* disks */

static u64 op_lba(const struct sim *s, const struct op *o)
{
	return o->block * s->bs;
}

/* Predicted cost (start to completion) of o if started now. */
static u64 op_cost(struct sim *s, u32 disk, const struct op *o,
		   u64 eager_cost)
{
	struct ew_access a;

	if (o->kind == OP_EAGER)
		return eager_cost;
	ew_disk_predict(&s->d[disk].pmodel, &s->d[disk].head, s->now,
			op_lba(s, o), o->nsect, o->kind != OP_READ, &a);
	return a.total_ns;
}

/* SATF over the first `window` entries of q; ties go to the oldest. */
static struct op *pick_satf(struct sim *s, u32 disk, struct oplist *q)
{
	struct op *best = NULL, *o;
	u64 best_cost = ~0ULL, eager_cost = ~0ULL;
	bool have_eager = false;
	u32 seen = 0;

	for (o = q->head; o && seen < s->c->window; o = o->next, seen++) {
		if (o->kind == OP_EAGER && !have_eager) {
			u64 cost;

			have_eager = true;
			if (ew_place_nearest_free(&s->pd[disk], s->bs, s->now,
						  &cost) != EW_NO_BLOCK)
				eager_cost = cost;
		}
	}
	seen = 0;
	for (o = q->head; o && seen < s->c->window; o = o->next, seen++) {
		u64 cost = op_cost(s, disk, o, eager_cost);

		if (cost < best_cost) {
			best_cost = cost;
			best = o;
		}
	}
	return best ? best : q->head;
}

/*
 * SATF-EW (ew_place_satf_ew): the positioned requests in the window (reads
 * and, should any be queued, in-place writes) against one eager write to
 * the free block reached first.
 */
static struct op *pick_satf_ew(struct sim *s, u32 disk, struct oplist *q,
			       u64 *block)
{
	u64 lba[256] = { 0 };
	struct op *pos[256], *eager = NULL, *o;
	u32 n = 0, seen = 0, win = min_t(u32, s->c->window, 256);
	u64 cost;
	int r;

	for (o = q->head; o && seen < win; o = o->next, seen++) {
		if (o->kind == OP_EAGER) {
			if (!eager)
				eager = o;
			continue;
		}
		pos[n] = o;
		lba[n++] = op_lba(s, o);
	}
	r = ew_place_satf_ew(&s->pd[disk], lba, n, s->bs, eager != NULL,
			     s->bs, s->now, block, &cost);
	if (r >= 0 && (u32)r < n)
		return pos[r];
	if (r == -1 && eager)
		return eager;
	*block = EW_NO_BLOCK;
	return eager ? eager : q->head;
}

static void finish_op(struct sim *s, u32 disk, struct op *o);

/* Removes the queued duplicates of o's read (o won the race). */
static void drop_siblings(struct sim *s, struct op *o)
{
	struct rgroup *g = o->grp;

	for (u32 k = 0; k < g->n; k++) {
		struct op *x = g->ops[k];

		if (x == o || !x->queued)
			continue;
		q_del(&s->d[x->disk].fg, x);
		pd_sync(s, x->disk);
		g->ops[k] = o;	/* the slot no longer names a live op */
		grp_put(s, g);
		op_put(s, x);
	}
}

static void sim_fail(struct sim *s, int err, const char *what);

/* Starts the next request on an idle disk, if it has one. */
static void disk_kick(struct sim *s, u32 disk)
{
	struct sdisk *d = &s->d[disk];
	struct oplist *q;
	struct op *o;
	u64 block = EW_NO_BLOCK;
	struct ew_access a;

	if (d->busy || s->err)
		return;
	q = d->fg.len ? &d->fg : &d->dl;
	if (!q->len || (q == &d->dl && s->hold_delayed))
		return;
	switch (s->c->policy) {
	case POL_FCFS:
		o = q->head;
		break;
	case POL_SATF_EW:
		if (d->has_fm) {
			o = pick_satf_ew(s, disk, q, &block);
			break;
		}
		fallthrough;
	case POL_SATF:
	default:
		o = pick_satf(s, disk, q);
		break;
	}
	q_del(q, o);
	if (o->grp && s->c->dup_cancel_start)
		drop_siblings(s, o);
	if (o->kind == OP_EAGER) {
		u64 cost;

		if (block == EW_NO_BLOCK || !ew_freemap_is_free(&d->fm, block))
			block = ew_place_nearest_free(&s->pd[disk], s->bs,
						      s->now, &cost);
		if (block == EW_NO_BLOCK) {
			sim_fail(s, -ENOSPC, "a disk has no free block");
			return;
		}
		if (ew_freemap_alloc(&d->fm, block)) {
			sim_fail(s, -EIO, "free map refused a free block");
			return;
		}
		o->block = block;
	}
	if (d->head.free_at_ns > s->now)
		d->head.free_at_ns = s->now;
	ew_disk_predict(&d->model, &d->head, s->now, op_lba(s, o), o->nsect,
			o->kind != OP_READ, &a);
	o->start_ns = s->now;
	o->end_ns = a.end_ns;
	d->head.free_at_ns = a.end_ns;
	d->busy = true;
	d->cur = o;
	if (o->kind == OP_EAGER && s->warm_known && o->start_ns >= s->t_warm) {
		u64 ovh = d->model.p.overhead_ns;
		u64 pos = a.seek_ns + a.rot_ns;

		s->eager_pos += (double)(pos > ovh ? pos - ovh : 0);
		s->eager_rot += (double)a.rot_ns;
		s->eager_n++;
	}
	pd_sync(s, disk);
}

/* A request's blocks are issued: the delayed writes it queued may start. */
static void release_delayed(struct sim *s)
{
	s->hold_delayed = false;
	for (u32 i = 0; i < s->n; i++)
		if (s->d[i].dl.len && !s->d[i].busy)
			disk_kick(s, i);
}

static void sim_fail(struct sim *s, int err, const char *what)
{
	if (!s->err) {
		fprintf(stderr, "ewsim: %s at t=%.6f s\n", what,
			(double)s->now / 1e9);
		s->err = err;
	}
}

static void enqueue(struct sim *s, struct op *o)
{
	struct sdisk *d = &s->d[o->disk];

	o->enq_ns = s->now;
	q_push(o->delayed ? &d->dl : &d->fg, o);
	pd_sync(s, o->disk);
	disk_kick(s, o->disk);
}

/* ------------------------------------------------------------------ */
/* logical requests */

static void record(struct sim *s, struct lreq *r)
{
	u64 resp = s->now - r->arr_ns;
	u64 **arr = r->write ? &s->wr_ns : &s->rd_ns;
	u64 *n = r->write ? &s->nwr : &s->nrd;
	u64 *cap = r->write ? &s->capwr : &s->caprd;

	if (*n == *cap) {
		u64 nc = *cap ? *cap * 2 : 65536;
		u64 *na = realloc(*arr, nc * sizeof(u64));

		if (!na) {
			fprintf(stderr, "ewsim: out of memory\n");
			exit(EWSIM_EXIT_FAIL);
		}
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = resp;
	s->t_end = s->now;
}

static void issue(struct sim *s, struct lreq *r);

static void lreq_done(struct sim *s, struct lreq *r)
{
	if (!s->pre)
		s->completed++;
	s->outstanding--;
	if (r->measured)
		record(s, r);
	lr_put(s, r);
	if (s->pc->wl == WL_CLOSED && s->src->issued < s->pc->requests) {
		struct wl_req w;
		struct lreq *n = lr_new(s);

		wl_closed(s->src, s->now, &w);
		n->id = s->arrived;
		n->arr_ns = w.t_ns;
		n->lblock = w.lblock;
		n->nblocks = w.nblocks;
		n->write = w.write;
		issue(s, n);
	}
}

static void sub_done(struct sim *s, struct lreq *r)
{
	if (!--r->remaining)
		lreq_done(s, r);
}

static u64 replica_block(const struct sim *s, u64 L, u32 k,
			 const struct ew_replica *rep)
{
	u32 l;

	if (s->c->layout == EW_LAYOUT_RAID10)
		return rep[k].home;
	l = s->loc[L * s->dm + k];
	if (l == NO_LOC)
		return rep[k].home;	/* ddm replica 0 at home */
	return l;
}

/* The single-disk baseline: no replicas, no placement, in place. */
static void single_op(struct sim *s, struct lreq *r, u64 L, bool write)
{
	struct op *o = op_new(s);

	o->kind = write ? OP_HOME : OP_READ;
	o->disk = 0;
	o->block = L;
	o->nsect = s->bs;
	o->lr = r;
	o->lblock = L;
	o->gen = write ? ++s->gen[L] : 0;
	r->remaining++;
	enqueue(s, o);
}

/* A read of replica k of L, at block on disk. */
static struct op *read_op(struct sim *s, struct lreq *r, u64 L, u32 disk,
			  u64 block, u32 k)
{
	struct op *o = op_new(s);

	o->kind = OP_READ;
	o->disk = disk;
	o->block = block;
	o->nsect = s->bs;
	o->lr = r;
	o->lblock = L;
	o->rep = k;
	return o;
}

/*
 * md raid10's read_balance (drivers/md/raid10.c) for a near layout on
 * rotating members: an idle copy's distance is 0, so the first idle one
 * in copy order wins; with every copy's disk busy, the copy whose
 * sector is nearest the end of its disk's last completed request (md's
 * head_position, set by reads and writes alike).  One request: md does
 * not duplicate a read.
 */
static void md_read(struct sim *s, struct lreq *r, u64 L, const u32 *disk,
		    const u64 *block, u32 n, u32 stale)
{
	u64 best_dist = ~0ULL;
	u32 k, best = n;

	for (k = 0; k < n; k++) {
		u64 lba, head, dist;

		if ((stale & (1u << k)) || s->pd[disk[k]].failed)
			continue;
		lba = block[k] * s->bs;
		head = s->d[disk[k]].md_head;
		dist = disk_idle(s, disk[k]) ? 0 :
		       lba > head ? lba - head : head - lba;
		if (dist < best_dist) {
			best_dist = dist;
			best = k;
		}
	}
	if (best == n) {
		sim_fail(s, -EIO, "a block has no readable replica");
		return;
	}
	enqueue(s, read_op(s, r, L, disk[best], block[best], best));
}

static void read_block(struct sim *s, struct lreq *r, u64 L)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u32 disk[EW_MAX_MIRRORS];
	u64 block[EW_MAX_MIRRORS];
	u32 n;
	u32 stale = 0, busy = 0, k;
	struct ew_choice ch;

	if (s->c->single) {
		single_op(s, r, L, false);
		return;
	}
	n = ew_geom_map(&s->g, L, rep);
	for (k = 0; k < n; k++) {
		disk[k] = rep[k].disk;
		block[k] = replica_block(s, L, k, rep);
		if (block[k] == EW_NO_BLOCK ||
		    s->loc_gen[L * s->dm + k] != s->gen[L])
			stale |= 1u << k;
		if (!disk_idle(s, disk[k]))
			busy |= 1u << k;
	}
	if (stale == (1u << n) - 1) {
		/* Every copy is being rewritten: read an old one. */
		stale = 0;
		for (k = 0; k < n; k++)
			if (block[k] == EW_NO_BLOCK)
				stale |= 1u << k;
	}
	r->remaining++;
	if (s->c->read_policy == RP_MD) {
		md_read(s, r, L, disk, block, n, stale);
		return;
	}
	if ((stale | busy) != (1u << n) - 1 &&
	    !ew_place_read(s->pd, disk, block, n, stale | busy, s->bs,
			   s->bs, s->now, &ch)) {
		enqueue(s, read_op(s, r, L, ch.disk, block[ch.index],
				   ch.index));
		return;
	}
	/* Every holder busy: a duplicate in each queue, first one wins. */
	struct rgroup *g = grp_new(s);

	if (r->measured)
		s->dup_reads++;

	for (k = 0; k < n; k++) {
		struct op *o;

		if (stale & (1u << k))
			continue;
		o = read_op(s, r, L, disk[k], block[k], k);
		o->grp = g;
		g->ops[g->n++] = o;
		g->refs++;
	}
	if (!g->n) {
		grp_put(s, g);
		sim_fail(s, -EIO, "a block has no readable replica");
		return;
	}
	/* Queue them all before any can start (and so complete). */
	g->refs++;
	for (k = 0; k < g->n; k++) {
		struct op *o = g->ops[k];

		o->enq_ns = s->now;
		q_push(&s->d[o->disk].fg, o);
		pd_sync(s, o->disk);
	}
	for (k = 0; k < g->n && !g->done; k++)
		disk_kick(s, g->ops[k]->disk);
	grp_put(s, g);
}

static void cancel_pending(struct sim *s, u64 L, u32 k)
{
	struct op *p = s->pending[L * s->dm + k];

	if (!p)
		return;
	s->pending[L * s->dm + k] = NULL;
	if (p->queued) {
		q_del(&s->d[p->disk].dl, p);
		op_put(s, p);
		s->delayed--;
		s->superseded++;
	}
	/* in service: it completes with an old generation, which is ignored */
}

static void delayed_op(struct sim *s, u64 L, u32 k, u32 disk, u8 kind,
		       u64 home, u32 g)
{
	struct op *o = op_new(s);

	o->kind = kind;
	o->delayed = true;
	o->disk = disk;
	o->block = kind == OP_HOME ? home : EW_NO_BLOCK;
	o->nsect = s->bs;
	o->lblock = L;
	o->rep = k;
	o->gen = g;
	s->pending[L * s->dm + k] = o;
	s->delayed++;
	enqueue(s, o);
}

static void write_block(struct sim *s, struct lreq *r, u64 L)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	enum ew_layout lay = s->c->layout;
	bool eager = ew_layout_eager(lay);
	u32 skip = 0, fg = 0, k, i, n, g;
	struct ew_choice ch;

	if (s->c->single) {
		single_op(s, r, L, true);
		return;
	}
	n = ew_geom_map(&s->g, L, rep);
	g = ++s->gen[L];

	for (i = 0; i < s->c->sync && i < n; i++) {
		struct op *o;

		if (ew_place_write(s->pd, rep, n, skip, eager, s->bs, s->now,
				   &ch))
			break;
		skip |= 1u << ch.index;
		fg |= 1u << ch.index;
		cancel_pending(s, L, ch.index);
		o = op_new(s);
		o->kind = eager ? OP_EAGER : OP_HOME;
		o->disk = rep[ch.index].disk;
		o->block = eager ? EW_NO_BLOCK : rep[ch.index].home;
		o->nsect = s->bs;
		o->lr = r;
		o->lblock = L;
		o->rep = ch.index;
		o->gen = g;
		r->remaining++;
		enqueue(s, o);
	}
	if (!fg) {
		sim_fail(s, -ENOSPC, "no replica can take a write");
		return;
	}
	for (k = 0; k < n; k++) {
		bool home = lay == EW_LAYOUT_RAID10 ||
			(lay == EW_LAYOUT_DDM && rep[k].home != EW_NO_BLOCK);

		if ((fg & (1u << k)) && !(lay == EW_LAYOUT_DDM && home))
			continue;
		cancel_pending(s, L, k);
		delayed_op(s, L, k, rep[k].disk, home ? OP_HOME : OP_EAGER,
			   rep[k].home, g);
	}
}

static void issue(struct sim *s, struct lreq *r)
{
	u32 need = r->nblocks * s->dm;

	s->outstanding++;
	if (s->pre)
		s->pre_n++;
	else if (++s->arrived > s->warm_n) {
		r->measured = true;
		if (!s->warm_known) {
			s->warm_known = true;
			s->t_warm = r->arr_ns;
			s->dq_last_t = s->now;
		}
	}
	if (r->write && (s->stall_head ||
			 s->delayed + need > s->c->delay_queue)) {
		/* The delayed buffer is full: the writer waits its turn. */
		r->next = NULL;
		if (s->stall_tail)
			s->stall_tail->next = r;
		else
			s->stall_head = r;
		s->stall_tail = r;
		s->stalls++;
		return;
	}
	r->remaining = 1;	/* held until every block is issued */
	s->hold_delayed = r->write;
	for (u32 b = 0; b < r->nblocks && !s->err; b++) {
		u64 L = (r->lblock + b) % s->g.len_blocks;

		if (r->write)
			write_block(s, r, L);
		else
			read_block(s, r, L);
	}
	if (r->write)
		release_delayed(s);
	sub_done(s, r);
}

static void unstall(struct sim *s)
{
	while (s->stall_head && !s->err) {
		struct lreq *r = s->stall_head;

		if (s->delayed + r->nblocks * s->dm > s->c->delay_queue &&
		    s->delayed)
			return;
		s->stall_head = r->next;
		if (!s->stall_head)
			s->stall_tail = NULL;
		r->remaining = 1;
		s->hold_delayed = true;
		for (u32 b = 0; b < r->nblocks && !s->err; b++) {
			u64 L = (r->lblock + b) % s->g.len_blocks;

			write_block(s, r, L);
		}
		release_delayed(s);
		sub_done(s, r);
	}
}

/* A write of replica k (generation g) is on disk at o->block. */
static void write_landed(struct sim *s, struct op *o)
{
	u64 i = o->lblock * s->dm + o->rep;
	struct sdisk *d = &s->d[o->disk];

	if (o->kind == OP_EAGER) {
		if (o->gen >= s->loc_gen[i] || s->loc[i] == NO_LOC) {
			u32 old = s->loc[i];

			if (o->gen < s->loc_gen[i]) {
				/* older than the home copy: drop it */
				ew_freemap_free(&d->fm, o->block);
				return;
			}
			s->loc[i] = (u32)o->block;
			s->loc_gen[i] = o->gen;
			if (old != NO_LOC && old != o->block)
				ew_freemap_free(&d->fm, old);
		} else {
			ew_freemap_free(&d->fm, o->block);
		}
		return;
	}
	/* in place */
	if (o->gen < s->loc_gen[i])
		return;
	if (s->c->layout == EW_LAYOUT_DDM && s->loc[i] != NO_LOC) {
		ew_freemap_free(&d->fm, s->loc[i]);
		s->loc[i] = NO_LOC;
	}
	s->loc_gen[i] = o->gen;
}

static void finish_op(struct sim *s, u32 disk, struct op *o)
{
	struct sdisk *d = &s->d[disk];

	ew_head_complete(&d->model, &d->head, op_lba(s, o), o->nsect,
			 o->end_ns);
	d->md_head = op_lba(s, o) + o->nsect;	/* md's update_head_pos */
	if (s->warm_known && o->end_ns > s->t_warm)
		d->busy_ns += o->end_ns - max(o->start_ns, s->t_warm);
	if (s->ops_out)
		fprintf(s->ops_out, "%u,%s,%d,%llu,%u,%llu,%llu,%llu,%llu\n",
			disk, o->kind == OP_READ ? "read" :
			o->kind == OP_EAGER ? "eager" : "home", o->delayed,
			(unsigned long long)op_lba(s, o), o->nsect,
			(unsigned long long)(o->lr ? o->lr->arr_ns : o->enq_ns),
			(unsigned long long)o->enq_ns,
			(unsigned long long)o->start_ns,
			(unsigned long long)o->end_ns);
	if (!o->delayed && !o->grp && o->lr && o->lr->measured) {
		double resp = (double)(o->end_ns - o->enq_ns) / 1e6;
		double svc = (double)(o->end_ns - o->start_ns) / 1e6;

		s->op_resp += resp;
		s->op_svc += svc;
		s->op_svc2 += svc * svc;
		s->op_n++;
	}
	switch (o->kind) {
	case OP_READ:
		if (o->grp) {
			struct rgroup *g = o->grp;

			if (g->done && o->lr->measured)
				s->dup_wasted++;
			if (!g->done) {
				g->done = true;
				for (u32 k = 0; k < g->n; k++) {
					struct op *x = g->ops[k];

					if (x == o)
						continue;
					if (x->queued) {
						q_del(&s->d[x->disk].fg, x);
						pd_sync(s, x->disk);
						grp_put(s, g);
						op_put(s, x);
					} else {
						x->cancelled = true;
					}
				}
				sub_done(s, o->lr);
			}
			grp_put(s, g);
		} else {
			sub_done(s, o->lr);
		}
		break;
	case OP_EAGER:
	case OP_HOME:
		write_landed(s, o);
		if (o->delayed) {
			u64 i = o->lblock * s->dm + o->rep;

			if (s->pending[i] == o)
				s->pending[i] = NULL;
			s->delayed--;
			s->delayed_done++;
		} else {
			sub_done(s, o->lr);
		}
		break;
	}
	op_put(s, o);
}

/* ------------------------------------------------------------------ */
/* set-up, event loop, results */

const char *sim_layout_name(const struct sim_config *c)
{
	return c->single ? "single" : ew_layout_name(c->layout);
}

void sim_config_default(struct sim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->layout = EW_LAYOUT_EW;
	c->nr_disks = 36;
	c->mirrors = 2;
	c->dilution_x100 = 200;
	c->sync = 1;
	c->block_sectors = 16;		/* 8 KiB: one TPC-C page */
	c->chunk_sectors = 128;
	c->delay_queue = 10000;
	c->policy = POL_SATF_EW;
	c->window = 64;
	ew_disk_params_default(&c->disk);
	c->wl = WL_SYNTH;
	c->requests = 100000;
	c->warmup = 0.1;
	c->seed = 1;
	c->rate = 1000;
	c->read_frac = 1.9 / 2.9;
	c->page_bytes = 8192;
	c->hot_access = 0.8;
	c->hot_space = 0.2;
	c->burst_factor = 1.0;
	c->burst_on_ms = 100;
	c->burst_period_ms = 1000;
	c->outstanding = 1;
	c->trace_speed = 1.0;
	c->max_outstanding = 20000;
}

static int populate(struct sim *s, struct rng *r)
{
	struct ew_replica rep[EW_MAX_MIRRORS];
	u64 L;
	u32 k;

	for (L = 0; L < s->g.len_blocks; L++) {
		u32 n = ew_geom_map(&s->g, L, rep);

		for (k = 0; k < n; k++) {
			struct sdisk *d = &s->d[rep[k].disk];
			u64 nb, b;

			if (rep[k].home != EW_NO_BLOCK)
				continue;	/* at home (ddm replica 0) */
			nb = d->fm.nr_blocks;
			b = rng_below(r, nb);
			if (!ew_freemap_is_free(&d->fm, b)) {
				u64 f = ew_freemap_find_free(&d->fm, b, nb);

				if (f == EW_NO_BLOCK)
					f = ew_freemap_find_free(&d->fm, 0, b);
				if (f == EW_NO_BLOCK) {
					fprintf(stderr,
						"ewsim: region too small for the data set\n");
					return -ENOSPC;
				}
				b = f;
			}
			if (ew_freemap_alloc(&d->fm, b))
				return -EIO;
			s->loc[L * s->dm + k] = (u32)b;
		}
	}
	return 0;
}

/* ddm: the home areas are not write-anywhere space; mark them by runs. */
static void alloc_homes(struct sim *s, u32 disk)
{
	u64 b = 0, nb = s->g.region_blocks;

	while (b < nb) {
		u64 e;

		if (!ew_geom_is_home(&s->g, disk, b)) {
			b++;
			continue;
		}
		for (e = b + 1; e < nb && ew_geom_is_home(&s->g, disk, e); e++)
			;
		ew_freemap_alloc_range(&s->d[disk].fm, b, e - b);
		b = e;
	}
}

/* A member's size: --disk-mib, else the whole model. */
static u64 sim_disk_sectors(const struct sim_config *c)
{
	return c->disk_sectors ? c->disk_sectors :
				 ew_disk_params_sectors(&c->disk);
}

static int sim_setup(struct sim *s, const struct sim_config *c)
{
	struct ew_geom_params gp;
	const char *why = NULL;
	u64 dsec = sim_disk_sectors(c), cap, len = 0;
	struct rng r;
	int ret;

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->ops.size = sizeof(struct op);
	s->grps.size = sizeof(struct rgroup);
	s->lrs.size = sizeof(struct lreq);
	s->n = c->nr_disks;
	s->dm = c->mirrors;
	s->bs = c->block_sectors;
	if (ew_disk_params_check(&c->disk, &why)) {
		fprintf(stderr, "ewsim: disk parameters: %s\n", why);
		return -EINVAL;
	}
	memset(&gp, 0, sizeof(gp));
	gp.layout = c->layout;
	gp.nr_disks = c->nr_disks;
	gp.mirrors = c->mirrors;
	gp.dilution_x100 = c->dilution_x100;
	gp.block_sectors = c->block_sectors;
	gp.chunk_sectors = c->chunk_sectors;
	gp.disk_sectors = dsec;
	if (c->single) {
		/* baseline: one disk, the data set at its start, in place */
		s->n = 1;
		s->dm = 1;
		len = c->len_blocks ? c->len_blocks : dsec / c->block_sectors;
		if (len > dsec / c->block_sectors) {
			fprintf(stderr, "ewsim: data set larger than the disk\n");
			return -EINVAL;
		}
		s->g.p = gp;
		s->g.len_blocks = len;
		s->g.region_blocks = len;
		s->g.disk_blocks = dsec / c->block_sectors;
		goto alloc;
	}
	if (ew_geom_check(&gp, &why)) {
		fprintf(stderr, "ewsim: geometry: %s\n", why);
		return -EINVAL;
	}
	cap = ew_geom_capacity_blocks(&gp);
	len = c->len_blocks ? c->len_blocks : dsec / c->block_sectors;
	if (len > cap) {
		if (c->len_blocks) {
			fprintf(stderr,
				"ewsim: data set of %llu blocks exceeds the capacity (%llu)\n",
				(unsigned long long)len,
				(unsigned long long)cap);
			return -EINVAL;
		}
		len = cap;
	}
	if (ew_geom_init(&s->g, &gp, len, &why)) {
		fprintf(stderr, "ewsim: geometry: %s\n", why);
		return -EINVAL;
	}
alloc:
	if (s->g.region_blocks >= NO_LOC) {
		fprintf(stderr, "ewsim: region too large\n");
		return -EINVAL;
	}
	s->d = calloc(s->n, sizeof(*s->d));
	s->pd = calloc(s->n, sizeof(*s->pd));
	s->gen = calloc(len, sizeof(u32));
	s->loc_gen = calloc(len * s->dm, sizeof(u32));
	s->pending = calloc(len * s->dm, sizeof(struct op *));
	s->loc = malloc(len * s->dm * sizeof(u32));
	if (!s->d || !s->pd || !s->gen || !s->loc_gen || !s->pending ||
	    !s->loc) {
		fprintf(stderr, "ewsim: out of memory\n");
		return -ENOMEM;
	}
	memset(s->loc, 0xff, len * s->dm * sizeof(u32));
	for (u32 i = 0; i < s->n; i++) {
		struct sdisk *d = &s->d[i];
		struct ew_disk_params dp = c->disk;

		if (c->phase_seeded)
			dp.phase_ns = ewsim_phase(c->phase_seed, i,
						  dp.rotation_ns);
		ret = ew_disk_init(&d->model, &dp, dsec);
		if (ret) {
			fprintf(stderr, "ewsim: disk model: error %d\n", ret);
			return ret;
		}
		d->pmodel = d->model;
		if (ew_layout_eager(c->layout) && !c->single) {
			ret = ew_freemap_init(&d->fm, &d->model, s->bs,
					      s->g.region_blocks);
			if (ret) {
				fprintf(stderr, "ewsim: free map: error %d\n",
					ret);
				return ret;
			}
			d->has_fm = true;
			if (c->layout == EW_LAYOUT_DDM)
				alloc_homes(s, i);
		}
		s->pd[i].model = &d->pmodel;
		s->pd[i].head = &d->head;
		s->pd[i].fm = d->has_fm ? &d->fm : NULL;
	}
	rng_seed(&r, c->seed, 3);
	if (ew_layout_eager(c->layout) && !c->single &&
	    c->populate == POP_RANDOM) {
		ret = populate(s, &r);
		if (ret)
			return ret;
	}
	rng_seed(&s->noise, c->seed, 4);
	ret = wl_init(&s->wl, c, len);
	if (ret)
		return ret;
	s->pc = c;
	s->src = &s->wl;
	s->warm_n = (u64)(c->warmup * (double)c->requests);
	s->capsamples = 1024;
	s->st = calloc(s->capsamples, sizeof(double));
	s->sl = calloc(s->capsamples, sizeof(u32));
	if (!s->st || !s->sl)
		return -ENOMEM;
	s->sample_ns = 1000000;	/* 1 ms; doubles as the run grows */
	if (c->wl == WL_SYNTH && c->rate > 0)
		s->sample_ns = max_t(u64, 1000,
				     (u64)((double)c->requests / c->rate *
					   1e9 / 512));
	s->next_sample = 0;
	return 0;
}

static int sim_loop(struct sim *s, bool *collapsed);

/* One phase before the run, from its own request source. */
static int sim_phase(struct sim *s, const struct sim_config *pc, bool seq)
{
	struct workload w;
	bool collapsed = false;
	int ret;

	ret = wl_init(&w, pc, s->g.len_blocks);
	if (ret)
		return ret;
	w.sequential = seq;
	w.base_ns = s->now;
	s->pc = pc;
	s->src = &w;
	ret = sim_loop(s, &collapsed);
	s->pc = s->c;
	s->src = &s->wl;
	wl_destroy(&w);
	return ret;
}

/* A warm-up phase: uniform over the data set, no bursts, no cap. */
static struct sim_config warm_phase(const struct sim_config *c,
				    enum sim_wl wl, u64 requests,
				    u32 page_bytes, double read_frac)
{
	struct sim_config pc = *c;

	pc.wl = wl;
	pc.requests = requests;
	pc.page_bytes = page_bytes;
	pc.read_frac = read_frac;
	pc.hot_access = 1;
	pc.hot_space = 1;
	pc.burst_factor = 1;
	pc.max_outstanding = ~0ULL;
	return pc;
}

/*
 * What runs before the measured requests, none of it counted: the
 * sequential populate (make bench's prefill: the data set in logical
 * order, POP_REQ_BYTES a request, POP_DEPTH in flight, through the same
 * write path and eager placement as every write), then each warm-up
 * phase (the TPC-C-like mix of make bench's fio job: 8 KiB pages, 1.9
 * reads per write, uniform over the data set, Poisson at its rate), then
 * the syncwrite phase (one-block writes, one outstanding), each drained.
 * The measured run starts where they left the heads, the free maps and
 * the clock.
 */
static int sim_pre(struct sim *s, struct sim_result *res)
{
	const struct sim_config *c = s->c;
	struct sim_config pc;
	u64 tracks = 0, full = 0, empty = 0;
	int ret;

	s->pre = true;
	if (c->populate == POP_SEQUENTIAL && s->d[0].has_fm) {
		u32 bb = s->bs * 512;
		u64 pb = DIV_ROUND_UP(POP_REQ_BYTES, bb);

		pc = *c;
		if (pb > s->g.len_blocks)
			pb = s->g.len_blocks;
		pc.wl = WL_CLOSED;
		pc.outstanding = POP_DEPTH;
		pc.page_bytes = (u32)(pb * bb);
		pc.requests = DIV_ROUND_UP(s->g.len_blocks, pb);
		pc.read_frac = 0;
		pc.max_outstanding = ~0ULL;
		ret = sim_phase(s, &pc, true);
		if (ret)
			return ret;
	}
	for (u32 i = 0; i < c->nr_warm; i++) {
		pc = warm_phase(c, WL_SYNTH, c->warm[i].requests, 8192,
				1.9 / 2.9);
		pc.rate = c->warm[i].rate;
		ret = sim_phase(s, &pc, false);
		if (ret)
			return ret;
	}
	if (c->warm_sync) {
		pc = warm_phase(c, WL_CLOSED, c->warm_sync, s->bs * 512, 0);
		pc.outstanding = 1;
		ret = sim_phase(s, &pc, false);
		if (ret)
			return ret;
	}
	s->pre = false;
	/* The measured phase's clock and counters start here. */
	s->t0 = s->now;
	s->wl.base_ns = s->now;
	s->next_sample = s->now;
	s->dq_last_t = s->now;
	s->dq_max = 0;
	s->delayed_done = s->superseded = s->stalls = 0;
	res->pre_s = (double)s->now / 1e9;
	res->pre_requests = s->pre_n;
	for (u32 i = 0; i < s->n; i++) {
		const struct ew_freemap *fm = &s->d[i].fm;

		if (!s->d[i].has_fm)
			continue;
		res->has_fm = true;
		for (u32 t = 0; t < fm->nr_tracks; t++) {
			u32 f = ew_freemap_track_free(fm, t);
			u64 first;
			u32 nb = ew_freemap_track_blocks(fm, t, &first);

			if (!nb)
				continue;
			tracks++;
			full += !f;
			empty += f == nb;
		}
	}
	res->full_tracks = tracks ? (double)full / (double)tracks : 0;
	res->empty_tracks = tracks ? (double)empty / (double)tracks : 0;
	return 0;
}

static void sim_destroy(struct sim *s)
{
	wl_destroy(&s->wl);
	if (s->d)
		for (u32 i = 0; i < s->n; i++)
			if (s->d[i].has_fm)
				ew_freemap_destroy(&s->d[i].fm);
	for (u32 i = 0; i < s->nr_chunks; i++)
		free(s->chunks[i]);
	free(s->chunks);
	free(s->d);
	free(s->pd);
	free(s->gen);
	free(s->loc);
	free(s->loc_gen);
	free(s->pending);
	free(s->rd_ns);
	free(s->wr_ns);
	free(s->st);
	free(s->sl);
}

u64 ewsim_phase(u64 seed, u32 i, u64 rotation_ns)
{
	u64 z = (seed << 20) + i + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (z & 0x7fffffffffffffffULL) % rotation_ns;
}

static void redraw_noise(struct sim *s, struct sdisk *d)
{
	u64 rot = d->model.p.rotation_ns;
	double off;
	s64 o;

	if (s->c->predict_noise <= 0)
		return;
	off = rng_normal(&s->noise) * s->c->predict_noise * (double)rot;
	o = (s64)off % (s64)rot;
	if (o < 0)
		o += (s64)rot;
	d->pmodel.p.phase_ns = (d->model.p.phase_ns + (u64)o) % rot;
}

static void new_arrival(struct sim *s, const struct wl_req *w)
{
	struct lreq *r = lr_new(s);

	r->id = s->arrived;
	r->arr_ns = w->t_ns;
	r->lblock = w->lblock;
	r->nblocks = w->nblocks;
	r->write = w->write;
	issue(s, r);
}

/*
 * Runs the phase s->pc from s->src to its end: the measured run stops
 * once its last request is done; a phase before it (s->pre) also waits
 * for every delayed replica write, as the guest drains between jobs.
 */
static int sim_loop(struct sim *s, bool *collapsed)
{
	const struct sim_config *c = s->pc;
	struct wl_req next;
	int have = 0;

	if (c->wl == WL_CLOSED) {
		for (u32 i = 0; i < c->outstanding &&
		     s->src->issued < c->requests; i++) {
			wl_closed(s->src, s->now, &next);
			new_arrival(s, &next);
		}
	} else {
		have = wl_next(s->src, &next);
		if (have < 0)
			return have;
	}
	while (!s->err) {
		u64 tmin = ~0ULL;
		int dmin = -1;

		for (u32 i = 0; i < s->n; i++)
			if (s->d[i].busy && s->d[i].cur->end_ns < tmin) {
				tmin = s->d[i].cur->end_ns;
				dmin = (int)i;
			}
		if (have > 0 && (dmin < 0 || next.t_ns <= tmin)) {
			s->now = max(s->now, next.t_ns);
			dq_note(s);
			new_arrival(s, &next);
			have = wl_next(s->src, &next);
			if (have < 0)
				return have;
			if (s->outstanding > c->max_outstanding) {
				*collapsed = true;
				break;
			}
			continue;
		}
		if (dmin < 0)
			break;
		if (!have && !s->outstanding && !s->pre &&
		    (c->wl != WL_CLOSED || s->src->issued >= c->requests))
			break;
		{
			struct sdisk *d = &s->d[dmin];
			struct op *o = d->cur;

			s->now = tmin;
			dq_note(s);
			d->busy = false;
			d->cur = NULL;
			finish_op(s, (u32)dmin, o);
			redraw_noise(s, d);
			pd_sync(s, (u32)dmin);
			unstall(s);
			disk_kick(s, (u32)dmin);
		}
	}
	return s->err;
}

int sim_run(const struct sim_config *c, struct sim_result *res)
{
	struct sim s;
	struct timespec t0, t1;
	bool collapsed = false;
	int ret;
	u64 *all;
	double span;

	memset(res, 0, sizeof(*res));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = sim_setup(&s, c);
	if (!ret && c->ops_out) {
		s.ops_out = fopen(c->ops_out, "w");
		if (!s.ops_out) {
			fprintf(stderr, "ewsim: %s: %s\n", c->ops_out,
				strerror(errno));
			ret = -errno;
		} else {
			fprintf(s.ops_out,
				"disk,kind,delayed,lba,nsect,arrival_ns,enqueue_ns,start_ns,end_ns\n");
		}
	}
	if (!ret)
		ret = sim_pre(&s, res);
	if (!ret)
		ret = sim_loop(&s, &collapsed);
	if (s.ops_out)
		fclose(s.ops_out);
	if (ret) {
		sim_destroy(&s);
		return ret;
	}
	res->collapsed = collapsed;
	res->arrivals = s.arrived;
	res->completions = s.completed;
	res->reads = s.nrd;
	res->writes = s.nwr;
	res->measured = s.nrd + s.nwr;
	res->offered_rate = c->wl == WL_SYNTH ? c->rate : 0;
	span = s.warm_known && s.t_end > s.t_warm ?
		(double)(s.t_end - s.t_warm) / 1e9 : 0;
	res->span_s = span;
	res->throughput = span > 0 ? (double)res->measured / span : 0;
	all = malloc((res->measured + 1) * sizeof(u64));
	if (!all) {
		sim_destroy(&s);
		return -ENOMEM;
	}
	if (s.nrd)
		memcpy(all, s.rd_ns, s.nrd * sizeof(u64));
	if (s.nwr)
		memcpy(all + s.nrd, s.wr_ns, s.nwr * sizeof(u64));
	lat_from(&res->all, all, res->measured);
	free(all);
	lat_from(&res->rd, s.rd_ns, s.nrd);
	lat_from(&res->wr, s.wr_ns, s.nwr);
	res->util_mean = res->util_max = 0;
	for (u32 i = 0; i < s.n; i++) {
		double u = span > 0 ? (double)s.d[i].busy_ns / 1e9 / span : 0;

		res->util[i] = u > 1 ? 1 : u;
		res->util_mean += res->util[i] / s.n;
		if (res->util[i] > res->util_max)
			res->util_max = res->util[i];
	}
	res->eager_n = s.eager_n;
	res->eager_pos_ms = s.eager_n ? s.eager_pos / s.eager_n / 1e6 : 0;
	res->eager_rot_ms = s.eager_n ? s.eager_rot / s.eager_n / 1e6 : 0;
	res->op_n = s.op_n;
	res->op_resp_ms = s.op_n ? s.op_resp / s.op_n : 0;
	res->op_svc_ms = s.op_n ? s.op_svc / s.op_n : 0;
	res->op_svc_m2 = s.op_n ? s.op_svc2 / s.op_n : 0;
	res->delayq_mean = span > 0 ? s.dq_area / (span * 1e9) : 0;
	res->delayq_max = (double)s.dq_max;
	res->delayed_done = s.delayed_done;
	res->delayed_superseded = s.superseded;
	res->stalls = s.stalls;
	res->dup_reads = s.dup_reads;
	res->dup_wasted = s.dup_wasted;
	res->nr_samples = s.nsamples;
	res->sample_t_s = s.st;
	res->sample_len = s.sl;
	s.st = NULL;
	s.sl = NULL;
	res->len_blocks = s.g.len_blocks;
	res->region_blocks = s.g.region_blocks;
	res->stripe_x100 = c->single ? 100 : ew_geom_stripe_x100(&s.g);
	sim_destroy(&s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->wall_s = (double)(t1.tv_sec - t0.tv_sec) +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return 0;
}

void sim_result_free(struct sim_result *res)
{
	free(res->sample_t_s);
	free(res->sample_len);
	res->sample_t_s = NULL;
	res->sample_len = NULL;
}

/* ------------------------------------------------------------------ */
/* selftest: zero load and bookkeeping */

/*
 * Replays the per-operation log of a run against a fresh head per disk:
 * every operation must end when the model says it ends given where the
 * previous one on its disk left the arm, and at zero load a foreground
 * operation starts when its request arrives, so its response is exactly
 * the model's service time.
 */
static int selftest_one(struct sim_config *c, bool verbose)
{
	char path[] = "/tmp/ewsim-selftest-XXXXXX";
	struct ew_head h[EW_MAX_DISKS];
	struct ew_disk model;
	struct sim_result r, r2;
	u64 dsec = sim_disk_sectors(c);
	u64 nops = 0, nfg = 0, nzero = 0;
	int fd, bad = 0;
	char line[512];
	FILE *f;

	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	close(fd);
	c->ops_out = path;
	if (sim_run(c, &r)) {
		unlink(path);
		return -EIO;
	}
	c->ops_out = NULL;
	if (ew_disk_init(&model, &c->disk, dsec)) {
		unlink(path);
		sim_result_free(&r);
		return -EIO;
	}
	memset(h, 0, sizeof(h));
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f))
		bad++;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned int disk, nsect;
		int delayed;
		char kind[16];
		unsigned long long lba, arr, enq, start, end;
		struct ew_access a;

		if (sscanf(line, "%u,%15[a-z],%d,%llu,%u,%llu,%llu,%llu,%llu",
			   &disk, kind, &delayed, &lba, &nsect, &arr, &enq,
			   &start, &end) != 9 || disk >= c->nr_disks) {
			bad++;
			break;
		}
		nops++;
		ew_disk_predict(&model, &h[disk], start, lba, nsect,
				strcmp(kind, "read") != 0, &a);
		if (a.end_ns != end || a.start_ns != start) {
			if (verbose || bad < 3)
				fprintf(stderr,
					"selftest: op on disk %u at %llu: model ends %llu, run %llu\n",
					disk, start,
					(unsigned long long)a.end_ns, end);
			bad++;
		}
		ew_head_complete(&model, &h[disk], lba, nsect, end);
		if (!delayed) {
			nfg++;
			if (start == arr) {
				nzero++;
				if (end - arr != a.total_ns)
					bad++;
			}
		}
	}
	if (f)
		fclose(f);
	unlink(path);
	/* Zero load: almost every foreground operation waits for nothing. */
	if (!nfg || nzero * 100 < nfg * 95) {
		fprintf(stderr, "selftest: %llu of %llu operations waited\n",
			(unsigned long long)(nfg - nzero),
			(unsigned long long)nfg);
		bad++;
	}
	if (r.completions != r.arrivals || r.arrivals != c->requests) {
		fprintf(stderr, "selftest: %llu arrivals, %llu completions\n",
			(unsigned long long)r.arrivals,
			(unsigned long long)r.completions);
		bad++;
	}
	/* Same seed, same run. */
	if (sim_run(c, &r2))
		bad++;
	else if (r2.all.mean_ms != r.all.mean_ms ||
		 r2.all.p99_ms != r.all.p99_ms ||
		 r2.eager_pos_ms != r.eager_pos_ms)
		bad++;
	sim_result_free(&r2);
	if (verbose)
		fprintf(stderr,
			"selftest: %s sync %u: %llu ops, %llu foreground, %llu unqueued, mean %.3f ms: %s\n",
			sim_layout_name(c), c->sync,
			(unsigned long long)nops, (unsigned long long)nfg,
			(unsigned long long)nzero, r.all.mean_ms,
			bad ? "FAIL" : "ok");
	sim_result_free(&r);
	return bad ? -EINVAL : 0;
}

int sim_selftest(bool verbose)
{
	static const enum ew_layout lays[] = {
		EW_LAYOUT_RAID10, EW_LAYOUT_DDM, EW_LAYOUT_EW
	};
	int fails = 0;

	for (u32 i = 0; i < ARRAY_SIZE(lays); i++) {
		for (u32 sync = 1; sync <= 2; sync++) {
			struct sim_config c;

			sim_config_default(&c);
			c.layout = lays[i];
			c.nr_disks = 4;
			c.sync = sync;
			c.requests = 400;
			c.rate = 0.5;	/* 2 s apart: nothing ever queues */
			c.len_blocks = 20000;
			c.warmup = 0;
			if (selftest_one(&c, verbose)) {
				fprintf(stderr, "selftest: %s sync %u failed\n",
					sim_layout_name(&c), sync);
				fails++;
			}
		}
	}
	if (verbose || fails)
		fprintf(stderr, "selftest: %d failed\n", fails);
	return fails ? -EINVAL : 0;
}
