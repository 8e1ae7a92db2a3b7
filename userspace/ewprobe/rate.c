// SPDX-License-Identifier: GPL-2.0-only
/*
 * rate.c - `ewprobe rate`: how many durable writes per second, and could
 * a rotating disk honestly do that many?
 *
 * One thread rewriting one block in place and waiting for it to be
 * durable completes at most one write per revolution: RPM/60 per second
 * (90 at 5,400 RPM, 250 at 15,000).  A faster rate means the write was
 * acknowledged from a volatile cache, from NVRAM, or that the stack does
 * not rewrite in place (eager writing writes each rewrite to the nearest
 * free block instead of waiting a revolution).  The rate alone cannot
 * tell those apart; the verdict says so and points at the power-cut test.
 *
 * Latencies go into a log-linear histogram (1/64 relative precision), so
 * a tmpfs run of millions of syncs needs no sample array.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ew_kerncompat.h"
#include "ewprobe.h"

static const char rate_usage[] =
"usage: ewprobe rate [--seconds S] [--block-size B] [--same-block|--random]\n"
"                    [--method fsync|fdatasync|dsync|direct-fua] [--rpm R]\n"
"                    [--size BYTES] [--json] [--force] PATH\n"
"\n"
"Write and sync PATH (a file or block device) repeatedly for S seconds and\n"
"print ops/s and latency (mean, p50, p99), then a verdict against the\n"
"ceiling of a rotating disk rewriting in place: RPM/60 durable writes/s.\n"
"\n"
"  --seconds S       run time (default 5)\n"
"  --block-size B    bytes per write, multiple of 512 (default 4096)\n"
"  --same-block      rewrite block 0 every time (default; the RPM/60 case)\n"
"  --random          write uniformly random blocks of the first --size bytes\n"
"  --method M        fsync: write then fsync(2); fdatasync (default): write\n"
"                    then fdatasync(2); dsync: open with O_DSYNC;\n"
"                    direct-fua: open with O_DIRECT|O_DSYNC (Linux sends each\n"
"                    such write as FUA to a device with a volatile write cache)\n"
"  --rpm R           the disk's rotational speed; without it the verdict\n"
"                    prints the ceiling for 5400/7200/10000/15000 RPM\n"
"  --size BYTES      region used by --random, and the size of a file rate\n"
"                    creates (default: the device or file size; 16M for a\n"
"                    new file)\n"
"  --json            print one JSON object instead of text\n"
"  --force           write even though PATH holds data (a non-empty file, or\n"
"                    a device whose first MiB is not all zeros)\n"
"\n"
"A file rate creates is removed afterwards and an empty one truncated back.\n"
"Exit: 0 measured (whatever the verdict), 2 usage or refused, 3 I/O error.\n";

enum rate_method { M_FSYNC, M_FDATASYNC, M_DSYNC, M_DIRECT_FUA };
static const char *const method_names[] = {
	"fsync", "fdatasync", "dsync", "direct-fua",
};

static const unsigned int table_rpm[] = { 5400, 7200, 10000, 15000 };

/* ---- latency histogram ---- */
#define H_SUB_BITS	6
#define H_SUB		(1u << H_SUB_BITS)
#define H_BUCKETS	((64 - H_SUB_BITS + 1) * H_SUB)

struct hist {
	uint64_t count[H_BUCKETS];
	uint64_t n, min, max;
	double sum;
};

static unsigned int h_index(uint64_t v)
{
	unsigned int e;

	if (v < H_SUB)
		return (unsigned int)v;
	e = 63 - __builtin_clzll(v);
	return (e - H_SUB_BITS + 1) * H_SUB +
	       (unsigned int)((v >> (e - H_SUB_BITS)) & (H_SUB - 1));
}

/* The middle of bucket @i, in the histogram's unit. */
static double h_value(unsigned int i)
{
	unsigned int e, m;
	double lo, width;

	if (i < H_SUB)
		return i;
	e = i / H_SUB + H_SUB_BITS - 1;
	m = i % H_SUB;
	lo = ldexp(H_SUB + m, (int)e - H_SUB_BITS);
	width = ldexp(1.0, (int)e - H_SUB_BITS);
	return lo + width / 2;
}

static void h_add(struct hist *h, uint64_t v)
{
	h->count[h_index(v)]++;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += (double)v;
}

static double h_quantile(const struct hist *h, double q)
{
	uint64_t want = (uint64_t)ceil(q * (double)h->n), seen = 0;

	if (!h->n)
		return 0;
	if (want < 1)
		want = 1;
	for (unsigned int i = 0; i < H_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= want) {
			double v = h_value(i);

			/* Never report outside what was seen. */
			if (v < (double)h->min)
				v = (double)h->min;
			if (v > (double)h->max)
				v = (double)h->max;
			return v;
		}
	}
	return (double)h->max;
}

/* ---- the measurement ---- */
struct rate_opts {
	double seconds;
	uint64_t block_size, size;
	bool random, json, force, size_set;
	enum rate_method method;
	unsigned int rpm;
};

struct rate_result {
	struct hist h;
	double elapsed;
	uint64_t blocks;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int measure(struct ewp_target *t, const struct rate_opts *o,
		   struct rate_result *res)
{
	unsigned char *buf = ewp_alloc_aligned(o->block_size);
	uint64_t rng = ewp_random_seed(), start, end, seq = 0;
	int ret = EWP_OK;

	if (!buf)
		return EWP_FAIL;
	res->blocks = o->random ? t->size / o->block_size : 1;
	memset(buf, 0xa5, o->block_size);
	start = now_ns();
	end = start + (uint64_t)(o->seconds * 1e9);
	for (uint64_t now = start; now < end;) {
		uint64_t blk = 0, t0 = now;
		size_t done = 0;

		if (o->random) {
			rng = ewp_mix64(rng);
			blk = rng % res->blocks;
		}
		/* Different bytes every time: nothing below may skip the write
		 * as unchanged. */
		seq++;
		memcpy(buf, &seq, sizeof(seq));
		memcpy(buf + o->block_size - sizeof(seq), &seq, sizeof(seq));
		while (done < o->block_size) {
			ssize_t w = pwrite(t->fd, buf + done, o->block_size - done,
					   blk * o->block_size + done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				ewp_err("%s: write: %s", t->path,
					w < 0 ? strerror(errno) : "no progress");
				ret = EWP_FAIL;
				goto out;
			}
			done += w;
		}
		if ((o->method == M_FSYNC && fsync(t->fd) < 0) ||
		    (o->method == M_FDATASYNC && fdatasync(t->fd) < 0)) {
			ewp_err("%s: %s: %s", t->path, method_names[o->method], strerror(errno));
			ret = EWP_FAIL;
			goto out;
		}
		now = now_ns();
		h_add(&res->h, now - t0);
	}
	res->elapsed = (now_ns() - start) / 1e9;
out:
	free(buf);
	return ret;
}

/* ---- the verdict ---- */
static double ceiling(unsigned int rpm)
{
	return rpm / 60.0;
}

static const char *verdict(double rate, unsigned int rpm)
{
	double top = ceiling(table_rpm[ARRAY_SIZE(table_rpm) - 1]);

	if (rate > top && (!rpm || rate > ceiling(rpm)))
		return "faster-than-any-rotating-disk";
	if (rpm)
		return rate > ceiling(rpm) ? "faster-than-rpm-ceiling" : "within-rpm-ceiling";
	return rate > ceiling(table_rpm[0]) ? "depends-on-rpm" : "within-every-ceiling";
}

static const char explain_fast[] =
"No rotating disk rewriting a block in place can make it durable more often\n"
"than once per revolution, so these writes were not each made durable on a\n"
"rotating platter by the time the sync returned.  Either:\n"
"  - a volatile write cache acknowledged them: NOT durable, a power cut\n"
"    loses acknowledged writes;\n"
"  - non-volatile cache (battery-backed NVRAM, an SSD with power-loss\n"
"    protection) or flash did: durable;\n"
"  - a write strategy that does not rewrite in place (eager writing,\n"
"    log-structured) did: durable if it is honest.\n"
"The rate cannot tell these apart; only a power-cut test can\n"
"(ewprobe write, then verify after the cut).\n";

static void print_text(const struct ewp_target *t, const struct rate_opts *o,
		       const struct rate_result *r, double rate)
{
	const struct hist *h = &r->h;
	double mean = h->n ? h->sum / h->n / 1e3 : 0;
	const char *v = verdict(rate, o->rpm);

	printf("ewprobe rate: %s, %s, %s, %llu-byte writes, %.1f s\n", t->path,
	       method_names[o->method], o->random ? "random blocks" : "same block",
	       (unsigned long long)o->block_size, r->elapsed);
	if (t->tmpfs)
		printf("note: %s is on tmpfs (memory): nothing written there survives a power cut\n",
		       t->path);
	printf("        %-24s %12.1f ops/sec %9.0f usecs/op\n",
	       method_names[o->method], rate, rate > 0 ? 1e6 / rate : 0);
	printf("latency: mean %.1f us, p50 %.1f us, p99 %.1f us (min %.1f, max %.1f; %llu ops)\n",
	       mean, h_quantile(h, 0.50) / 1e3, h_quantile(h, 0.99) / 1e3,
	       h->min / 1e3, h->max / 1e3, (unsigned long long)h->n);
	printf("\nceiling for one block rewritten in place on a rotating disk (RPM/60):\n");
	if (o->rpm)
		printf("  %5u rpm: %6.0f/s  %s\n", o->rpm, ceiling(o->rpm),
		       rate > ceiling(o->rpm) ? "EXCEEDED" : "within");
	else
		for (size_t i = 0; i < ARRAY_SIZE(table_rpm); i++)
			printf("  %5u rpm: %6.0f/s  %s\n", table_rpm[i],
			       ceiling(table_rpm[i]),
			       rate > ceiling(table_rpm[i]) ? "EXCEEDED" : "within");
	printf("verdict: %s\n", v);
	if (!strcmp(v, "faster-than-any-rotating-disk") ||
	    !strcmp(v, "faster-than-rpm-ceiling")) {
		printf("%.0f durable writes/s is faster than %s.\n", rate,
		       o->rpm ? "a disk at that RPM can honestly write in place"
			      : "any rotating disk can honestly write in place");
		fputs(explain_fast, stdout);
	} else if (!strcmp(v, "depends-on-rpm")) {
		printf("%.0f/s is above the ceiling of slower disks: give --rpm to judge.\n", rate);
	} else {
		printf("%.0f/s is consistent with writes made durable on a rotating disk.\n", rate);
	}
	if (o->random)
		printf("(random writes also seek, so a rotating disk usually stays well below this ceiling)\n");
}

static void print_json(const struct ewp_target *t, const struct rate_opts *o,
		       const struct rate_result *r, double rate)
{
	const struct hist *h = &r->h;
	double top = ceiling(table_rpm[ARRAY_SIZE(table_rpm) - 1]);

	printf("{\"command\":\"rate\",\"path\":");
	ewp_json_string(stdout, t->path);
	printf(",\"blockdev\":%s,\"tmpfs\":%s,\"method\":\"%s\",\"pattern\":\"%s\","
	       "\"block_size\":%llu,\"blocks\":%llu,\"seconds\":%.3f,\"ops\":%llu,"
	       "\"ops_per_sec\":%.1f,",
	       t->blockdev ? "true" : "false", t->tmpfs ? "true" : "false",
	       method_names[o->method], o->random ? "random" : "same-block",
	       (unsigned long long)o->block_size, (unsigned long long)r->blocks,
	       r->elapsed, (unsigned long long)h->n, rate);
	printf("\"latency_us\":{\"mean\":%.3f,\"p50\":%.3f,\"p99\":%.3f,\"min\":%.3f,\"max\":%.3f},",
	       h->n ? h->sum / h->n / 1e3 : 0, h_quantile(h, 0.5) / 1e3,
	       h_quantile(h, 0.99) / 1e3, h->min / 1e3, h->max / 1e3);
	if (o->rpm)
		printf("\"rpm\":%u,\"ceiling_per_sec\":%.1f,\"exceeds_ceiling\":%s,",
		       o->rpm, ceiling(o->rpm), rate > ceiling(o->rpm) ? "true" : "false");
	else
		printf("\"rpm\":null,\"ceiling_per_sec\":null,\"exceeds_ceiling\":null,");
	printf("\"ceilings\":[");
	for (size_t i = 0; i < ARRAY_SIZE(table_rpm); i++)
		printf("%s{\"rpm\":%u,\"per_sec\":%.1f,\"exceeded\":%s}", i ? "," : "",
		       table_rpm[i], ceiling(table_rpm[i]),
		       rate > ceiling(table_rpm[i]) ? "true" : "false");
	printf("],\"faster_than_any_rotating_disk\":%s,\"verdict\":\"%s\"}\n",
	       rate > top ? "true" : "false", verdict(rate, o->rpm));
}

int ewp_cmd_rate(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "block-size", required_argument, NULL, 'b' },
		{ "same-block", no_argument, NULL, 'S' },
		{ "random", no_argument, NULL, 'R' },
		{ "method", required_argument, NULL, 'm' },
		{ "rpm", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 'z' },
		{ "json", no_argument, NULL, 'j' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct rate_opts o = {
		.seconds = 5, .block_size = 4096, .method = M_FDATASYNC,
	};
	struct ewp_target t;
	struct rate_result *res;
	uint64_t v, want;
	int c, ret, flags = 0;
	double rate;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (ewp_parse_seconds(optarg, &o.seconds)) {
				ewp_err("rate: bad --seconds '%s'", optarg);
				return EWP_USAGE;
			}
			break;
		case 'b':
			if (ewp_parse_size(optarg, &o.block_size) || !o.block_size ||
			    o.block_size % EWP_SECTOR || o.block_size > (64u << 20)) {
				ewp_err("rate: --block-size must be a multiple of 512 up to 64M");
				return EWP_USAGE;
			}
			break;
		case 'S': o.random = false; break;
		case 'R': o.random = true; break;
		case 'm':
			for (o.method = 0; o.method <= M_DIRECT_FUA; o.method++)
				if (!strcmp(optarg, method_names[o.method]))
					break;
			if (o.method > M_DIRECT_FUA) {
				ewp_err("rate: unknown --method '%s' (fsync, fdatasync, dsync, direct-fua)",
					optarg);
				return EWP_USAGE;
			}
			break;
		case 'r':
			if (ewp_parse_u64(optarg, &v) || v < 60 || v > 1000000) {
				ewp_err("rate: bad --rpm '%s'", optarg);
				return EWP_USAGE;
			}
			o.rpm = (unsigned int)v;
			break;
		case 'z':
			if (ewp_parse_size(optarg, &o.size) || !o.size) {
				ewp_err("rate: bad --size '%s'", optarg);
				return EWP_USAGE;
			}
			o.size_set = true;
			break;
		case 'j': o.json = true; break;
		case 'f': o.force = true; break;
		case 'h':
			fputs(rate_usage, stdout);
			return EWP_OK;
		default:
			fputs(rate_usage, stderr);
			return EWP_USAGE;
		}
	}
	if (optind != argc - 1) {
		ewp_err("rate: exactly one PATH is needed");
		fputs(rate_usage, stderr);
		return EWP_USAGE;
	}
	if (o.size_set && o.size < o.block_size) {
		ewp_err("rate: --size is smaller than one block");
		return EWP_USAGE;
	}

	ret = ewp_target_prepare(&t, argv[optind], o.force);
	if (ret)
		return ret;
	if (o.method == M_DSYNC)
		flags = O_DSYNC;
	else if (o.method == M_DIRECT_FUA)
		flags = O_DIRECT | O_DSYNC;
	ret = ewp_target_open(&t, flags);
	if (ret)
		goto out;
	if (o.block_size % t.lbs) {
		ewp_err("rate: --block-size %llu is not a multiple of %s's logical block size %u",
			(unsigned long long)o.block_size, t.path, t.lbs);
		ret = EWP_USAGE;
		goto out;
	}
	if (t.blockdev) {
		if (o.size_set && o.size < t.size)
			t.size = o.size;
		if (t.size < o.block_size) {
			ewp_err("rate: %s is smaller than one block", t.path);
			ret = EWP_USAGE;
			goto out;
		}
	} else {
		if (o.size_set)
			want = o.size;
		else if (t.size >= o.block_size)
			want = t.size;
		else
			want = o.random ? 16u << 20 : o.block_size;
		ret = ewp_target_extend(&t, want, true);
		if (ret)
			goto out;
		if (o.size_set)
			t.size = o.size;
	}

	res = calloc(1, sizeof(*res));
	if (!res) {
		ret = EWP_FAIL;
		goto out;
	}
	ret = measure(&t, &o, res);
	if (!ret) {
		rate = res->elapsed > 0 ? res->h.n / res->elapsed : 0;
		if (o.json)
			print_json(&t, &o, res, rate);
		else
			print_text(&t, &o, res, rate);
	}
	free(res);
out:
	ewp_target_close(&t, true);
	return ret;
}
