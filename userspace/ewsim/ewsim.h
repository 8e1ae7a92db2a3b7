/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ewsim.h - the discrete-event simulator of an eager-writing disk array.
 *
 * ewsim owns the clock, the queues and the workload; every decision about
 * geometry, head position, free blocks and placement is the portable
 * core's (dm-eagerwrite/core), called unchanged, so that what the
 * simulator shows is what the module decides.  Ground truth for a
 * request's service is the same disk model (ew_disk_predict from the true
 * head state, then ew_head_complete); the placement sees that state
 * (perfect prediction) or a copy whose rotational phase is off by an
 * injected error (--predict-noise).
 *
 * Files: sim.c (engine: disks, queues, array scheduling, layouts),
 * workload.c (synthetic TPC-C-like, SPC trace replay, closed loop),
 * report.c (statistics, JSON, CSV), bound.c (the eager-writing bound
 * experiment), main.c (command line).
 */
#ifndef EWSIM_H
#define EWSIM_H

#include <stdio.h>
#include "ew_compat.h"
#include "ew_disk.h"
#include "ew_freemap.h"
#include "ew_geom.h"
#include "ew_place.h"

#define EWSIM_VERSION	"1"

/* Exit codes. */
#define EWSIM_EXIT_OK		0
#define EWSIM_EXIT_FAIL		1	/* run failed (input, core error) */
#define EWSIM_EXIT_USAGE	2	/* bad command line */
#define EWSIM_EXIT_SELFTEST	3	/* a selftest check did not hold */

enum sim_policy { POL_FCFS, POL_SATF, POL_SATF_EW };
/*
 * Which replica a read goes to: RP_NEAREST, the module's (ew_place_read:
 * the idle holder reached first; every holder busy, a duplicate in each
 * queue); RP_MD, md raid10's read_balance for a near layout on rotating
 * members (the first idle copy in copy order, else the copy nearest the
 * end of its disk's last completed request; one request, no duplicate).
 */
enum sim_read_policy { RP_NEAREST, RP_MD };
enum sim_wl { WL_SYNTH, WL_TRACE, WL_CLOSED };
/*
 * The data set before the run (eager layouts; raid10's replicas are at
 * their homes either way): POP_RANDOM, every write-anywhere replica at a
 * uniformly random free block; POP_SEQUENTIAL, the data set written in
 * logical order through the write path, as make bench's prefill does
 * (1 MiB requests, 8 in flight), delayed replicas drained.
 */
enum sim_populate { POP_RANDOM, POP_SEQUENTIAL };
#define POP_REQ_BYTES	(1u << 20)
#define POP_DEPTH	8
#define SIM_MAX_WARM	16

/* A warm-up phase: the TPC-C-like mix at `rate`, `requests` arrivals. */
struct sim_warm {
	double rate;
	u64 requests;
};

/* Deterministic random numbers: xoshiro256**, seeded by splitmix64. */
struct rng {
	u64 s[4];
};
void rng_seed(struct rng *r, u64 seed, u64 stream);
u64 rng_next(struct rng *r);
double rng_unit(struct rng *r);		/* [0, 1) */
double rng_exp(struct rng *r, double mean);
double rng_normal(struct rng *r);
u64 rng_below(struct rng *r, u64 n);

struct sim_config {
	/* array */
	enum ew_layout layout;
	bool single;		/* one conventional disk, in place (baseline) */
	u32 nr_disks;
	u32 mirrors;
	u32 dilution_x100;
	u32 sync;		/* foreground replicas per write: 1 or 2 */
	u32 block_sectors;
	u32 chunk_sectors;
	u32 delay_queue;	/* delayed replica writes held, array-wide */
	u64 len_blocks;		/* data set; 0: one member's worth */
	u64 disk_sectors;	/* member size; 0: the whole disk model */
	enum sim_policy policy;
	enum sim_read_policy read_policy;
	u32 window;		/* SATF looks at this many queued requests */
	double predict_noise;	/* sd of phase error, fraction of a turn */
	bool dup_cancel_start;	/* duplicates cancelled when one starts */
	struct ew_disk_params disk;
	/* disk i's phase is ewsim_phase(phase_seed, i, rotation) */
	bool phase_seeded;
	u64 phase_seed;

	/* workload */
	enum sim_wl wl;
	u64 requests;		/* arrivals to simulate */
	double warmup;		/* fraction of requests not measured */
	u64 seed;
	double rate;		/* synthetic: arrivals per second */
	double read_frac;	/* synthetic, closed: fraction of reads */
	u32 page_bytes;		/* synthetic, closed: request size */
	double hot_access;	/* share of accesses to the hot set */
	double hot_space;	/* share of the data set that is hot */
	double burst_factor;	/* rate multiplier while bursting (1: none) */
	double burst_on_ms, burst_period_ms;
	u32 outstanding;	/* closed loop: requests kept in flight */
	const char *trace;	/* SPC file */
	double trace_speed;	/* time scale: 2 replays twice as fast */
	u64 max_outstanding;	/* open loop: beyond this, collapsed */
	/* before the run, not measured */
	enum sim_populate populate;
	u32 nr_warm;		/* TPC-C-like phases, in order, each drained */
	struct sim_warm warm[SIM_MAX_WARM];
	u64 warm_sync;		/* then QD1 one-block writes (syncwrite) */

	/* outputs */
	const char *ops_out;	/* per-operation trace (CSV) */
};

void sim_config_default(struct sim_config *c);
const char *sim_layout_name(const struct sim_config *c);

/* One statistics set (response times of completed requests, ns). */
struct sim_lat {
	u64 n;
	double mean_ms, p50_ms, p95_ms, p99_ms, max_ms;
};

struct sim_result {
	const char *label;	/* "synthetic", "trace:<file>", "closed" */
	bool collapsed;
	u64 arrivals, completions, measured;
	u64 reads, writes;	/* completed, measured */
	struct sim_lat rd, wr, all;
	double span_s;		/* measured window */
	double throughput;	/* measured completions per second */
	double offered_rate;
	double util[EW_MAX_DISKS];
	double util_mean, util_max;
	/* eager writes (foreground and delayed), measured */
	u64 eager_n;
	double eager_pos_ms;	/* positioning: seek/switch + rotation */
	double eager_rot_ms;	/* rotational part */
	/* per foreground operation (queue wait + service), measured */
	u64 op_n;
	double op_resp_ms, op_svc_ms, op_svc_m2;	/* m2: E[S^2], ms^2 */
	/* delayed replica writes */
	double delayq_mean, delayq_max;
	u64 delayed_done, delayed_superseded;
	u64 stalls;		/* writes that waited for the delayed buffer */
	u64 dup_reads;		/* reads duplicated on busy holders */
	u64 dup_wasted;		/* duplicates served after the winner: waste */
	u32 nr_samples;
	double *sample_t_s;	/* delayed-queue length over time */
	u32 *sample_len;
	/* the state the measured phase started from */
	double full_tracks;	/* share of free-map tracks with no free block */
	double empty_tracks;	/* share with no used block */
	bool has_fm;		/* false: no free map (raid10, single) */
	double pre_s;		/* simulated time of populate and warm-up */
	u64 pre_requests;	/* their requests (not in arrivals) */
	/* configuration echo */
	u64 len_blocks, region_blocks;
	u32 stripe_x100;
	double wall_s;
};

/* Runs one simulation; 0, or -errno with a message on stderr. */
int sim_run(const struct sim_config *c, struct sim_result *res);
void sim_result_free(struct sim_result *res);

/* report.c */
void report_json(FILE *f, const struct sim_config *c,
		 const struct sim_result *r, bool samples);
void report_csv_header(FILE *f);
void report_csv_row(FILE *f, const struct sim_config *c,
		    const struct sim_result *r);
const char *policy_name(enum sim_policy p);
const char *read_policy_name(enum sim_read_policy p);
void lat_from(struct sim_lat *l, u64 *ns, u64 n);

/* bound.c: eager-writing positioning against (1-p)/(p+1/n). */
int bound_main(int argc, char **argv);
/*
 * Disk i's phase for seed: splitmix64 of (seed << 20) + i, modulo the
 * period: the function of tests/vm/hddsim-lib.sh (hddsim_phase), so a
 * simulation given make bench's seed turns its disks as hddsim does.
 */
u64 ewsim_phase(u64 seed, u32 i, u64 rotation_ns);
/* main.c: --disk KEY=VAL,.. into p; -EINVAL on a bad key or value */
int ewsim_parse_disk(struct ew_disk_params *p, const char *arg);
/* selftest in sim.c */
int sim_selftest(bool verbose);

#endif /* EWSIM_H */
