// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.c - ewsim's statistics and output formats.
 *
 * JSON (one object per run; `ewsim sweep --json` prints an array) and CSV
 * (one row per run, header first).  Field names are stable: scripts and
 * tests read them.  Times are in milliseconds, rates per second.
 */
#include <stdlib.h>
#include <string.h>
#include "ewsim.h"
#include "workload.h"

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v[0..n-1]. */
static double pct(const u64 *v, u64 n, double p)
{
	u64 i;

	if (!n)
		return 0;
	i = (u64)(p * (double)n + 0.999999);
	if (i < 1)
		i = 1;
	if (i > n)
		i = n;
	return (double)v[i - 1] / 1e6;
}

void lat_from(struct sim_lat *l, u64 *ns, u64 n)
{
	double sum = 0;

	memset(l, 0, sizeof(*l));
	l->n = n;
	if (!n)
		return;
	qsort(ns, n, sizeof(u64), cmp_u64);
	for (u64 i = 0; i < n; i++)
		sum += (double)ns[i];
	l->mean_ms = sum / (double)n / 1e6;
	l->p50_ms = pct(ns, n, 0.50);
	l->p95_ms = pct(ns, n, 0.95);
	l->p99_ms = pct(ns, n, 0.99);
	l->max_ms = (double)ns[n - 1] / 1e6;
}

const char *read_policy_name(enum sim_read_policy p)
{
	return p == RP_MD ? "md" : "nearest";
}

const char *policy_name(enum sim_policy p)
{
	switch (p) {
	case POL_FCFS:
		return "fcfs";
	case POL_SATF:
		return "satf";
	case POL_SATF_EW:
		return "satf-ew";
	}
	return "?";
}

static void json_lat(FILE *f, const char *name, const struct sim_lat *l)
{
	fprintf(f,
		"  \"%s\": {\"n\": %llu, \"mean_ms\": %.4f, \"p50_ms\": %.4f, \"p95_ms\": %.4f, \"p99_ms\": %.4f, \"max_ms\": %.4f},\n",
		name, (unsigned long long)l->n, l->mean_ms, l->p50_ms,
		l->p95_ms, l->p99_ms, l->max_ms);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void report_json(FILE *f, const struct sim_config *c,
		 const struct sim_result *r, bool samples)
{
	char lab[600], dil[16];

	ew_format_dilution(dil, sizeof(dil), c->dilution_x100);
	fprintf(f, "{\n  \"ewsim\": \"" EWSIM_VERSION "\",\n  \"workload\": ");
	json_str(f, wl_label(c, lab, sizeof(lab)));
	fprintf(f,
		",\n  \"layout\": \"%s\", \"disks\": %u, \"mirrors\": %u, \"dilution\": \"%s\", \"stripe\": %.2f, \"sync\": %u,\n",
		sim_layout_name(c), c->nr_disks, c->mirrors, dil,
		r->stripe_x100 / 100.0, c->sync);
	fprintf(f, "  \"read_policy\": \"%s\",\n",
		read_policy_name(c->read_policy));
	fprintf(f,
		"  \"policy\": \"%s\", \"block_bytes\": %u, \"chunk_sectors\": %u, \"delay_queue\": %u, \"predict_noise\": %g,\n",
		policy_name(c->policy), c->block_sectors * 512,
		c->chunk_sectors, c->delay_queue, c->predict_noise);
	if (c->phase_seeded) {
		fprintf(f, "  \"phase_seed\": %llu, \"phases_ns\": [",
			(unsigned long long)c->phase_seed);
		for (u32 i = 0; i < c->nr_disks; i++)
			fprintf(f, "%s%llu", i ? ", " : "",
				(unsigned long long)ewsim_phase(c->phase_seed, i,
								c->disk.rotation_ns));
		fprintf(f, "],\n");
	} else {
		fprintf(f, "  \"phase_seed\": null,\n");
	}
	fprintf(f,
		"  \"disk_sectors\": %llu, \"len_blocks\": %llu, \"region_blocks\": %llu, \"seed\": %llu, \"rate\": %g, \"outstanding\": %u, \"read_frac\": %.4f,\n",
		(unsigned long long)(c->disk_sectors ? c->disk_sectors :
				     ew_disk_params_sectors(&c->disk)),
		(unsigned long long)r->len_blocks,
		(unsigned long long)r->region_blocks,
		(unsigned long long)c->seed, r->offered_rate,
		c->wl == WL_CLOSED ? c->outstanding : 0, c->read_frac);
	fprintf(f, "  \"populate\": \"%s\", \"warmup_tpcc\": [",
		c->populate == POP_SEQUENTIAL ? "sequential" : "random");
	for (u32 i = 0; i < c->nr_warm; i++)
		fprintf(f, "%s{\"rate\": %g, \"requests\": %llu}",
			i ? ", " : "", c->warm[i].rate,
			(unsigned long long)c->warm[i].requests);
	fprintf(f, "], \"warmup_syncwrite\": %llu, ",
		(unsigned long long)c->warm_sync);
	fprintf(f, "\"pre_requests\": %llu, \"pre_s\": %.6f, ",
		(unsigned long long)r->pre_requests, r->pre_s);
	if (r->has_fm)
		fprintf(f, "\"full_tracks\": %.5f, \"empty_tracks\": %.5f,\n",
			r->full_tracks, r->empty_tracks);
	else
		fprintf(f, "\"full_tracks\": null, \"empty_tracks\": null,\n");
	fprintf(f,
		"  \"collapsed\": %s, \"arrivals\": %llu, \"completions\": %llu, \"measured\": %llu,\n",
		r->collapsed ? "true" : "false",
		(unsigned long long)r->arrivals,
		(unsigned long long)r->completions,
		(unsigned long long)r->measured);
	json_lat(f, "read", &r->rd);
	json_lat(f, "write", &r->wr);
	json_lat(f, "all", &r->all);
	fprintf(f,
		"  \"span_s\": %.6f, \"throughput\": %.3f, \"util_mean\": %.5f, \"util_max\": %.5f,\n  \"util\": [",
		r->span_s, r->throughput, r->util_mean, r->util_max);
	for (u32 i = 0; i < c->nr_disks; i++)
		fprintf(f, "%s%.5f", i ? ", " : "", r->util[i]);
	fprintf(f,
		"],\n  \"eager_writes\": %llu, \"eager_pos_ms\": %.5f, \"eager_rot_ms\": %.5f,\n",
		(unsigned long long)r->eager_n, r->eager_pos_ms,
		r->eager_rot_ms);
	fprintf(f,
		"  \"op_n\": %llu, \"op_resp_ms\": %.5f, \"op_svc_ms\": %.5f, \"op_svc_m2\": %.6f,\n",
		(unsigned long long)r->op_n, r->op_resp_ms, r->op_svc_ms,
		r->op_svc_m2);
	fprintf(f,
		"  \"delayq_mean\": %.3f, \"delayq_max\": %.0f, \"delayed_done\": %llu, \"delayed_superseded\": %llu, \"stalls\": %llu,\n",
		r->delayq_mean, r->delayq_max,
		(unsigned long long)r->delayed_done,
		(unsigned long long)r->delayed_superseded,
		(unsigned long long)r->stalls);
	fprintf(f, "  \"dup_reads\": %llu, \"dup_wasted\": %llu",
		(unsigned long long)r->dup_reads,
		(unsigned long long)r->dup_wasted);
	if (samples) {
		fprintf(f, ",\n  \"delayq\": [");
		for (u32 i = 0; i < r->nr_samples; i++)
			fprintf(f, "%s[%.4f, %u]", i ? ", " : "",
				r->sample_t_s[i], r->sample_len[i]);
		fprintf(f, "]");
	}
	fprintf(f, "\n}");
}

void report_csv_header(FILE *f)
{
	fprintf(f,
		"workload,layout,disks,mirrors,dilution,stripe,sync,policy,seed,rate,outstanding,collapsed,measured,throughput,"
		"read_mean_ms,read_p50_ms,read_p95_ms,read_p99_ms,"
		"write_mean_ms,write_p50_ms,write_p95_ms,write_p99_ms,"
		"all_mean_ms,all_p50_ms,all_p95_ms,all_p99_ms,"
		"util_mean,util_max,eager_pos_ms,eager_rot_ms,delayq_mean,delayq_max,stalls,dup_reads,dup_wasted\n");
}

void report_csv_row(FILE *f, const struct sim_config *c,
		    const struct sim_result *r)
{
	char lab[600], dil[16];

	ew_format_dilution(dil, sizeof(dil), c->dilution_x100);
	fprintf(f, "%s,%s,%u,%u,%s,%.2f,%u,%s,%llu,%g,%u,%d,%llu,%.3f,",
		wl_label(c, lab, sizeof(lab)), sim_layout_name(c),
		c->nr_disks, c->mirrors, dil, r->stripe_x100 / 100.0, c->sync,
		policy_name(c->policy), (unsigned long long)c->seed,
		r->offered_rate, c->wl == WL_CLOSED ? c->outstanding : 0,
		r->collapsed, (unsigned long long)r->measured, r->throughput);
	fprintf(f, "%.4f,%.4f,%.4f,%.4f,", r->rd.mean_ms, r->rd.p50_ms,
		r->rd.p95_ms, r->rd.p99_ms);
	fprintf(f, "%.4f,%.4f,%.4f,%.4f,", r->wr.mean_ms, r->wr.p50_ms,
		r->wr.p95_ms, r->wr.p99_ms);
	fprintf(f, "%.4f,%.4f,%.4f,%.4f,", r->all.mean_ms, r->all.p50_ms,
		r->all.p95_ms, r->all.p99_ms);
	fprintf(f, "%.5f,%.5f,%.5f,%.5f,%.3f,%.0f,%llu,%llu,%llu\n",
		r->util_mean, r->util_max, r->eager_pos_ms, r->eager_rot_ms,
		r->delayq_mean, r->delayq_max, (unsigned long long)r->stalls,
		(unsigned long long)r->dup_reads,
		(unsigned long long)r->dup_wasted);
}
