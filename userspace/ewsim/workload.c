// SPDX-License-Identifier: GPL-2.0-only
/*
 * workload.c - ewsim's request sources and its random numbers.
 *
 * Synthetic TPC-C-like load (always labelled "synthetic"; it is not the
 * paper's trace, which is not public): requests of one page (8 KiB),
 * reads with probability read_frac (0.655, i.e. 1.9 reads per write, as
 * measured for TPC-C data pages), addresses skewed by a hot set: a share
 * hot_access of the requests goes to a share hot_space of the pages, the
 * hot pages scattered over the data set by a fixed permutation, both
 * sets uniform inside.  Arrivals are Poisson at `rate`; with bursts the
 * rate is multiplied by burst_factor for burst_on_ms of every
 * burst_period_ms (the buffer-cache flushes of a real database), drawn
 * by thinning so that the process stays Poisson in each phase.
 *
 * SPC traces (`ASU,LBA,size_bytes,opcode,timestamp_s`, as the UMass OLTP
 * traces): the address is (LBA + ASU * 2^32) sectors, folded into the
 * data set modulo its length; the time is scaled by 1 / trace_speed.
 */
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include "workload.h"

static u64 splitmix64(u64 *x)
{
	u64 z = (*x += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, u64 seed, u64 stream)
{
	u64 x = seed ^ (stream * 0xD1B54A32D192ED03ULL);

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline u64 rotl(u64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

u64 rng_next(struct rng *r)
{
	u64 *s = r->s;
	u64 res = rotl(s[1] * 5, 7) * 9;
	u64 t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

double rng_exp(struct rng *r, double mean)
{
	return -mean * log(1.0 - rng_unit(r));
}

double rng_normal(struct rng *r)
{
	double u = rng_unit(r), v = rng_unit(r);

	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

u64 rng_below(struct rng *r, u64 n)
{
	/* Lemire's multiply-shift: unbiased enough for n << 2^64. */
	return (u64)(((unsigned __int128)rng_next(r) * n) >> 64);
}

static u64 gcd64(u64 a, u64 b)
{
	while (b) {
		u64 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

const char *wl_label(const struct sim_config *c, char *buf, size_t len)
{
	switch (c->wl) {
	case WL_SYNTH:
		snprintf(buf, len, "synthetic");
		break;
	case WL_TRACE:
		snprintf(buf, len, "trace:%s", c->trace);
		break;
	case WL_CLOSED:
		snprintf(buf, len, "closed");
		break;
	}
	return buf;
}

int wl_init(struct workload *w, const struct sim_config *c, u64 len_blocks)
{
	memset(w, 0, sizeof(*w));
	w->c = c;
	w->len_blocks = len_blocks;
	w->block_bytes = c->block_sectors * 512;
	w->page_blocks = DIV_ROUND_UP(c->page_bytes, w->block_bytes);
	if (!w->page_blocks)
		w->page_blocks = 1;
	w->pages = len_blocks / w->page_blocks;
	if (!w->pages) {
		fprintf(stderr, "ewsim: data set smaller than a page\n");
		return -EINVAL;
	}
	w->hot_pages = (u64)(c->hot_space * (double)w->pages);
	if (w->hot_pages < 1)
		w->hot_pages = 1;
	if (w->hot_pages > w->pages)
		w->hot_pages = w->pages;
	/* A multiplier coprime with the page count scatters the hot set. */
	w->perm_a = (w->pages * 5) / 8 + 1;
	while (gcd64(w->perm_a, w->pages) != 1)
		w->perm_a++;
	w->perm_b = w->pages / 3;
	rng_seed(&w->arr, c->seed, 1);
	rng_seed(&w->addr, c->seed, 2);
	if (c->wl == WL_TRACE) {
		w->trace = fopen(c->trace, "r");
		if (!w->trace) {
			fprintf(stderr, "ewsim: %s: %s\n", c->trace,
				strerror(errno));
			return -errno;
		}
	}
	return 0;
}

void wl_destroy(struct workload *w)
{
	if (w->trace)
		fclose(w->trace);
	w->trace = NULL;
}

static void synth_addr(struct workload *w, struct wl_req *r)
{
	u64 i, page;

	if (rng_unit(&w->addr) < w->c->hot_access || w->hot_pages == w->pages)
		i = rng_below(&w->addr, w->hot_pages);
	else
		i = w->hot_pages + rng_below(&w->addr, w->pages - w->hot_pages);
	page = (u64)(((unsigned __int128)w->perm_a * i + w->perm_b) %
		     w->pages);
	r->lblock = page * w->page_blocks;
	r->nblocks = w->page_blocks;
	r->write = rng_unit(&w->addr) >= w->c->read_frac;
}

static double rate_at(const struct sim_config *c, double t_ns)
{
	double ph;

	if (c->burst_factor == 1.0 || c->burst_period_ms <= 0)
		return c->rate;
	ph = fmod(t_ns / 1e6, c->burst_period_ms);
	return ph < c->burst_on_ms ? c->rate * c->burst_factor : c->rate;
}

static int trace_next(struct workload *w, struct wl_req *r)
{
	char line[512];

	while (fgets(line, sizeof(line), w->trace)) {
		unsigned long long asu, lba, size;
		char op;
		double ts;
		u64 sector;

		w->trace_line++;
		if (line[0] == '#' || line[0] == '\n' || line[0] == '\r')
			continue;
		if (sscanf(line, "%llu,%llu,%llu,%c,%lf", &asu, &lba, &size,
			   &op, &ts) != 5 || (op != 'r' && op != 'R' &&
					      op != 'w' && op != 'W') ||
		    ts < 0) {
			fprintf(stderr,
				"ewsim: %s:%llu: not ASU,LBA,size,opcode,timestamp\n",
				w->c->trace, (unsigned long long)w->trace_line);
			return -EINVAL;
		}
		if (!w->trace_started) {
			w->trace_started = true;
			w->trace_t0 = ts;
		}
		if (ts < w->trace_t0)
			ts = w->trace_t0;	/* out of order: now */
		sector = lba + (asu << 32);
		r->lblock = (sector / w->c->block_sectors) % w->len_blocks;
		r->nblocks = size ? DIV_ROUND_UP(size, w->block_bytes) : 1;
		if (r->nblocks > 64)
			r->nblocks = 64;
		r->write = op == 'w' || op == 'W';
		r->t_ns = (u64)((ts - w->trace_t0) * 1e9 / w->c->trace_speed);
		if ((double)r->t_ns < w->t_ns)
			r->t_ns = (u64)w->t_ns;
		w->t_ns = (double)r->t_ns;
		r->t_ns += w->base_ns;
		return 1;
	}
	if (ferror(w->trace)) {
		fprintf(stderr, "ewsim: %s: read error\n", w->c->trace);
		return -EIO;
	}
	return 0;
}

int wl_next(struct workload *w, struct wl_req *r)
{
	const struct sim_config *c = w->c;
	int ret;

	if (w->issued >= c->requests)
		return 0;
	if (c->wl == WL_TRACE) {
		ret = trace_next(w, r);
		if (ret > 0)
			w->issued++;
		return ret;
	}
	/* Poisson at the peak rate, thinned to the rate of the moment. */
	for (;;) {
		double peak = c->rate * (c->burst_factor > 1 ?
					 c->burst_factor : 1.0);

		w->t_ns += rng_exp(&w->arr, 1e9 / peak);
		if (rng_unit(&w->arr) * peak <= rate_at(c, w->t_ns))
			break;
	}
	r->t_ns = (u64)w->t_ns + w->base_ns;
	synth_addr(w, r);
	w->issued++;
	return 1;
}

void wl_closed(struct workload *w, u64 now_ns, struct wl_req *r)
{
	r->t_ns = now_ns;
	if (w->sequential) {
		u64 first = w->issued * w->page_blocks;

		r->lblock = first;
		r->nblocks = (u32)min_t(u64, w->page_blocks,
					w->len_blocks - first);
		r->write = true;
	} else {
		synth_addr(w, r);
	}
	w->issued++;
}
