// SPDX-License-Identifier: GPL-2.0-only
/*
 * bound.c - `ewsim bound`: the eager-writing positioning cost measured
 * with the core's placement and disk model, against the single-track
 * model of Wang et al. (OSDI 1999): with n blocks on a track and k = pn
 * of them free, the head passes (n-k)/(k+1) ~ (1-p)/(p+1/n) occupied
 * blocks before it reaches a free one.
 *
 * Track experiment (the model's setting): a free map over the n whole
 * blocks of the outermost track, k of them free, uniformly at random.
 * Each write arrives at a random time (so at a random angle), goes to
 * ew_place_nearest_free()'s block, and then the block it overwrites (a
 * random occupied one) is freed, keeping k free.  Measured: the number
 * of blocks whose start passes under the head between the moment the
 * head is ready to write (after overhead and write settle) and the start
 * of the chosen block, which is the model's quantity, and the rotational
 * wait in ms (which adds on average about half a block of alignment).
 *
 * The free set left by eager writing is not uniformly random: a free
 * block behind a long occupied run is taken more often (the head lands
 * in long runs more often), so the survivors cluster and the wait grows.
 * The `fresh` column re-draws the free set before every write, which is
 * the model's assumption, and so checks the measurement itself.
 *
 * Cylinder experiment (informational): the same over the first 16
 * cylinders, where a free block may be on another surface or cylinder;
 * reported as positioning (arm movement, settle excluded, plus rotation).
 *
 * Same-block bound (--same-block): the fastest a closed loop of durable
 * rewrites of one block can go when every rewrite writes at least one
 * member (sync 1 and 2 both do; the next rewrite is sent only once the
 * last is acknowledged).  No placement can make a member write shorter
 * than the disk model's best case: the head already on the track, no
 * rotational wait, the block at the start of a track of the fastest
 * zone.  That best case is found with ew_disk_predict() itself (every
 * zone's first track, every start time over one turn in 1 us steps), so
 * it is whatever the model charges (controller overhead and the write
 * settle on every write, then the transfer), not a formula beside it.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "ewsim.h"

struct bound_row {
	double p;
	u32 n, k;
	double model_blocks, meas_blocks, meas_rot_ms, block_ms;
	double fresh_blocks;	/* free set re-drawn before every write */
	double cyl_pos_ms;
	u64 not_nearest;	/* a free block passed: placement not optimal */
};

static void fill_random(struct ew_freemap *fm, u64 nb, u64 used,
			struct rng *r, u64 *ublocks)
{
	u64 *perm = malloc(nb * sizeof(u64));

	for (u64 i = 0; i < nb; i++)
		perm[i] = i;
	for (u64 i = 0; i < used; i++) {
		u64 j = i + rng_below(r, nb - i), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
		ew_freemap_alloc(fm, perm[i]);
		ublocks[i] = perm[i];
	}
	free(perm);
}

static int bound_track(const struct ew_disk *d, u32 bs, double p, u64 writes,
		       u64 seed, bool fresh, struct bound_row *row)
{
	struct ew_freemap fm;
	struct ew_head h = { 0 };
	struct ew_pdisk pd;
	struct rng r;
	u32 n = ew_disk_track_spt(d, 0) / bs, k;
	u64 *ub, t = 0;
	double passed = 0, rot = 0;
	u64 angle[256];
	u64 rotns = d->p.rotation_ns;

	if (n < 2 || n > 256)
		return -EINVAL;
	k = (u32)(p * n + 0.5);
	if (k < 1)
		k = 1;
	if (ew_freemap_init(&fm, d, bs, n))
		return -ENOMEM;
	ub = malloc(n * sizeof(u64));
	rng_seed(&r, seed, 10);
	fill_random(&fm, n, n - k, &r, ub);
	for (u32 j = 0; j < n; j++) {
		struct ew_pos pos;

		ew_disk_lba_to_pos(d, (u64)j * bs, &pos);
		angle[j] = ew_disk_sector_angle(d, &pos);
	}
	memset(&pd, 0, sizeof(pd));
	pd.model = d;
	pd.head = &h;
	pd.fm = &fm;
	row->not_nearest = 0;
	for (u64 w = 0; w < writes; w++) {
		struct ew_access a;
		u64 cost, b, ready, dc;
		u64 victim_i;
		u32 cnt = 0;

		t += (u64)rng_exp(&r, 20e6) + 1;
		if (fresh) {
			/* the model's assumption: free blocks uniformly random */
			ew_freemap_destroy(&fm);
			if (ew_freemap_init(&fm, d, bs, n))
				break;
			fill_random(&fm, n, n - k, &r, ub);
		}
		b = ew_place_nearest_free(&pd, bs, t, &cost);
		if (b == EW_NO_BLOCK || b >= n)
			break;
		ew_disk_predict(d, &h, t, b * bs, bs, true, &a);
		ready = ew_disk_angle_at(d, a.start_ns + a.seek_ns);
		dc = (angle[b] + rotns - ready) % rotns;
		for (u32 j = 0; j < n; j++) {
			u64 dj = (angle[j] + rotns - ready) % rotns;

			if (dj < dc) {
				cnt++;
				if (ew_freemap_is_free(&fm, j))
					row->not_nearest++;
			}
		}
		passed += cnt;
		rot += (double)a.rot_ns;
		ew_freemap_alloc(&fm, b);
		ew_head_complete(d, &h, b * bs, bs, a.end_ns);
		t = a.end_ns;
		/* The overwritten block's old copy is freed once written. */
		victim_i = rng_below(&r, n - k);
		ew_freemap_free(&fm, ub[victim_i]);
		ub[victim_i] = b;
	}
	row->p = p;
	row->n = n;
	row->k = k;
	row->model_blocks = (double)(n - k) / (k + 1);
	row->meas_blocks = passed / (double)writes;
	row->meas_rot_ms = rot / (double)writes / 1e6;
	row->block_ms = (double)rotns / n / 1e6;
	free(ub);
	ew_freemap_destroy(&fm);
	return 0;
}

static int bound_cyl(const struct ew_disk *d, u32 bs, double p, u64 writes,
		     u64 seed, struct bound_row *row)
{
	struct ew_freemap fm;
	struct ew_head h = { 0 };
	struct ew_pdisk pd;
	struct rng r;
	u64 nb = 0, used, *ub, t = 0;
	double pos = 0;
	u32 tracks = 16 * d->p.heads;

	/* whole blocks of the first 16 cylinders */
	nb = (ew_disk_track_first_lba(d, tracks)) / bs;
	if (ew_freemap_init(&fm, d, bs, nb))
		return -ENOMEM;
	used = nb - (u64)(p * (double)nb + 0.5);
	ub = malloc(used * sizeof(u64));
	rng_seed(&r, seed, 11);
	fill_random(&fm, nb, used, &r, ub);
	memset(&pd, 0, sizeof(pd));
	pd.model = d;
	pd.head = &h;
	pd.fm = &fm;
	for (u64 w = 0; w < writes; w++) {
		struct ew_access a;
		u64 cost, b, vi;

		t += (u64)rng_exp(&r, 20e6) + 1;
		b = ew_place_nearest_free(&pd, bs, t, &cost);
		if (b == EW_NO_BLOCK)
			break;
		ew_disk_predict(d, &h, t, b * bs, bs, true, &a);
		pos += (double)(a.seek_ns - d->p.overhead_ns -
				d->p.write_settle_ns + a.rot_ns);
		ew_freemap_alloc(&fm, b);
		ew_head_complete(d, &h, b * bs, bs, a.end_ns);
		t = a.end_ns;
		vi = rng_below(&r, used);
		ew_freemap_free(&fm, ub[vi]);
		ub[vi] = b;
	}
	row->cyl_pos_ms = pos / (double)writes / 1e6;
	free(ub);
	ew_freemap_destroy(&fm);
	return 0;
}

/*
 * The shortest service of one write of bs sectors on model d (see the
 * head comment), its parts in *a; -EINVAL if no track holds bs sectors.
 */
static int bound_min_write(const struct ew_disk *d, u32 bs,
			   struct ew_access *best)
{
	u64 rot = d->p.rotation_ns, step = rot > 1000000 ? 1000 : 1;
	bool found = false;

	for (u32 z = 0; z < d->nr_zones; z++) {
		u32 track = d->zone_cyl[z] * d->p.heads;
		u64 lba = ew_disk_track_first_lba(d, track);
		struct ew_head h = { 0 };
		struct ew_pos pos;

		if (ew_disk_track_spt(d, track) < bs ||
		    lba + bs > d->nr_sectors)
			continue;
		ew_disk_lba_to_pos(d, lba, &pos);
		h.cyl = pos.cyl;
		h.head = pos.head;
		for (u64 t = rot; t < 2 * rot; t += step) {
			struct ew_access a;

			ew_disk_predict(d, &h, t, lba, bs, true, &a);
			if (!found || a.total_ns < best->total_ns) {
				*best = a;
				found = true;
			}
		}
	}
	return found ? 0 : -EINVAL;
}

static int bound_same_block(const struct ew_disk_params *dp, u32 bytes)
{
	struct ew_disk d;
	struct ew_access a;
	double svc, ceil;

	if (bytes < 512 || bytes % 512) {
		fprintf(stderr, "ewsim: bound: block size must be a multiple of 512\n");
		return EWSIM_EXIT_USAGE;
	}
	if (ew_disk_init(&d, dp, ew_disk_params_sectors(dp)) ||
	    bound_min_write(&d, bytes / 512, &a)) {
		fprintf(stderr, "ewsim: bound: no track of the model holds a %u-byte block\n",
			bytes);
		return EWSIM_EXIT_FAIL;
	}
	svc = (double)a.total_ns / 1e6;
	ceil = 1e9 / (double)dp->rotation_ns;	/* RPM/60 */
	printf("{\n  \"block_bytes\": %u,\n  \"rotation_ms\": %.6f,\n"
	       "  \"ceiling_per_s\": %.3f,\n  \"overhead_ms\": %.6f,\n"
	       "  \"write_settle_ms\": %.6f,\n  \"positioning_ms\": %.6f,\n"
	       "  \"rotation_wait_ms\": %.6f,\n  \"transfer_ms\": %.6f,\n"
	       "  \"min_write_ms\": %.6f,\n  \"bound_per_s\": %.3f,\n"
	       "  \"bound_x_ceiling\": %.4f\n}\n",
	       bytes, (double)dp->rotation_ns / 1e6, ceil,
	       (double)dp->overhead_ns / 1e6, (double)dp->write_settle_ns / 1e6,
	       (double)a.seek_ns / 1e6, (double)a.rot_ns / 1e6,
	       (double)a.xfer_ns / 1e6, svc, 1e3 / svc, 1e3 / svc / ceil);
	return EWSIM_EXIT_OK;
}

int bound_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "free", required_argument, NULL, 'f' },
		{ "writes", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ "csv", required_argument, NULL, 'c' },
		{ "same-block", no_argument, NULL, 'S' },
		{ "disk", required_argument, NULL, 'd' },
		{ "block-size", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	double fr[64] = { 0.05, 0.1, 0.2, 0.3, 0.4, 0.5 };
	u32 nfr = 6;
	u64 writes = 20000, seed = 1;
	const char *csv = "-";
	struct ew_disk_params dp;
	struct ew_disk d;
	u32 bs = 8;		/* 4 KiB, as the model's worked values */
	u32 sb_bytes = 4096;
	bool same_block = false, trial_opts = false, model_opts = false;
	const char *why = NULL;
	FILE *f;
	int ch;

	ew_disk_params_default(&dp);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (ch) {
		case 'f': {
			char buf[1024], *tk, *sv = NULL;

			trial_opts = true;
			snprintf(buf, sizeof(buf), "%s", optarg);
			nfr = 0;
			for (tk = strtok_r(buf, ",", &sv); tk && nfr < 64;
			     tk = strtok_r(NULL, ",", &sv)) {
				char *e;

				fr[nfr] = strtod(tk, &e);
				if (*e || fr[nfr] <= 0 || fr[nfr] >= 1) {
					fprintf(stderr,
						"ewsim: bad free fraction '%s'\n",
						tk);
					return EWSIM_EXIT_USAGE;
				}
				nfr++;
			}
			break;
		}
		case 'w':
			trial_opts = true;
			writes = strtoull(optarg, NULL, 0);
			if (!writes)
				return EWSIM_EXIT_USAGE;
			break;
		case 's':
			trial_opts = true;
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			trial_opts = true;
			csv = optarg;
			break;
		case 'S':
			same_block = true;
			break;
		case 'd':
			if (ewsim_parse_disk(&dp, optarg) ||
			    ew_disk_params_check(&dp, &why)) {
				fprintf(stderr, "ewsim: bad --disk '%s'%s%s\n",
					optarg, why ? ": " : "", why ? why : "");
				return EWSIM_EXIT_USAGE;
			}
			model_opts = true;
			break;
		case 'b': {
			char *e;
			unsigned long v = strtoul(optarg, &e, 0);

			if (*e || !v || v > (1UL << 20)) {
				fprintf(stderr, "ewsim: bad --block-size '%s'\n",
					optarg);
				return EWSIM_EXIT_USAGE;
			}
			sb_bytes = v;
			model_opts = true;
			break;
		}
		case 'h':
			printf("usage: ewsim bound [--free P,..] [--writes N] [--seed N] [--csv FILE]\n"
			       "       ewsim bound --same-block [--disk KEY=VAL,..] [--block-size B]\n"
			       "\n"
			       "--same-block prints (JSON) the shortest write the disk model allows\n"
			       "(overhead, write settle, no rotational wait, the fastest zone's\n"
			       "transfer) and so the highest rate of durable rewrites of one block\n"
			       "that write one member each, against the RPM/60 ceiling.\n");
			return EWSIM_EXIT_OK;
		default:
			return EWSIM_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return EWSIM_EXIT_USAGE;
	if (same_block && trial_opts) {
		fprintf(stderr, "ewsim: bound: --same-block takes --disk and --block-size only\n");
		return EWSIM_EXIT_USAGE;
	}
	if (same_block)
		return bound_same_block(&dp, sb_bytes);
	if (model_opts) {
		fprintf(stderr, "ewsim: bound: --disk and --block-size need --same-block\n");
		return EWSIM_EXIT_USAGE;
	}
	if (ew_disk_init(&d, &dp, ew_disk_params_sectors(&dp)))
		return EWSIM_EXIT_FAIL;
	f = strcmp(csv, "-") ? fopen(csv, "w") : stdout;
	if (!f)
		return EWSIM_EXIT_FAIL;
	fprintf(f,
		"free_frac,n,k,model_blocks,measured_blocks,ratio,fresh_blocks,fresh_ratio,block_ms,model_ms,measured_ms,measured_rot_ms,cylinder_pos_ms,not_nearest\n");
	for (u32 i = 0; i < nfr; i++) {
		struct bound_row row;

		memset(&row, 0, sizeof(row));
		if (bound_track(&d, bs, fr[i], writes, seed, true, &row))
			return EWSIM_EXIT_FAIL;
		row.fresh_blocks = row.meas_blocks;
		if (bound_track(&d, bs, fr[i], writes, seed, false, &row) ||
		    bound_cyl(&d, bs, fr[i], writes, seed, &row)) {
			fprintf(stderr, "ewsim: bound: set-up failed\n");
			return EWSIM_EXIT_FAIL;
		}
		fprintf(f,
			"%.3f,%u,%u,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%llu\n",
			row.p, row.n, row.k, row.model_blocks,
			row.meas_blocks, row.meas_blocks / row.model_blocks,
			row.fresh_blocks, row.fresh_blocks / row.model_blocks,
			row.block_ms, row.model_blocks * row.block_ms,
			row.meas_blocks * row.block_ms, row.meas_rot_ms,
			row.cyl_pos_ms, (unsigned long long)row.not_nearest);
	}
	if (f != stdout)
		fclose(f);
	return EWSIM_EXIT_OK;
}
