/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * workload.h - where ewsim's requests come from: the synthetic TPC-C-like
 * generator (open loop, Poisson, optional bursts), SPC trace replay and
 * the closed loop (fixed outstanding requests).  Logical addresses are in
 * blocks of the array's block size.
 */
#ifndef EWSIM_WORKLOAD_H
#define EWSIM_WORKLOAD_H

#include "ewsim.h"

struct wl_req {
	u64 t_ns;		/* arrival */
	u64 lblock;
	u32 nblocks;
	bool write;
};

struct workload {
	const struct sim_config *c;
	u64 len_blocks;
	u32 page_blocks;
	u64 pages, hot_pages;
	u64 perm_a, perm_b;	/* page permutation: (a * i + b) mod pages */
	struct rng arr, addr;
	double t_ns;		/* last arrival (open loop) */
	u64 issued;
	FILE *trace;
	double trace_t0;
	bool trace_started;
	u64 trace_line;
	u32 block_bytes;
	u64 base_ns;		/* added to every arrival: the phase's start */
	bool sequential;	/* closed loop: writes in logical order */
};

int wl_init(struct workload *w, const struct sim_config *c, u64 len_blocks);
void wl_destroy(struct workload *w);
/*
 * Open loop (synthetic, trace): the next arrival; 1 if there is one, 0 at
 * the end, -errno on a malformed trace line (message on stderr).
 */
int wl_next(struct workload *w, struct wl_req *r);
/*
 * Closed loop: a new request issued at now_ns (with `sequential`, the
 * next page_bytes of the data set in logical order, written).
 */
void wl_closed(struct workload *w, u64 now_ns, struct wl_req *r);
/* The label every output carries. */
const char *wl_label(const struct sim_config *c, char *buf, size_t len);

#endif /* EWSIM_WORKLOAD_H */
