// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - ewsim's command line: run, sweep, selftest, bound.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "ewsim.h"

static const char usage[] =
"usage: ewsim [run] [OPTIONS]        one simulation (JSON on stdout)\n"
"       ewsim sweep --rates R1,R2,.. [OPTIONS]\n"
"                                    one run per arrival rate (CSV on stdout)\n"
"       ewsim selftest [-v]          zero-load and bookkeeping checks\n"
"       ewsim bound [--free P,..] [--writes N] [--seed N] [--csv FILE]\n"
"                                    eager-write positioning vs (1-p)/(p+1/n)\n"
"       ewsim bound --same-block [--disk KEY=VAL,..] [--block-size B]\n"
"                                    the fastest durable rewrite of one block\n"
"\n"
"Array (the module's parameters):\n"
"  --layout raid10|ddm|ew|single  (ew; single: one conventional disk,\n"
"                           in place, the baseline)\n"
"  --disks N (36)           --mirrors Dm (2)\n"
"  --dilution Dd (2)        --sync 1|2 (1: \"Delay\", 2: \"Sync\")\n"
"  --block-size BYTES (8192)  --chunk-sectors N (128)  --delay-queue N (10000)\n"
"  --len-blocks N           data set in blocks (0: one member's size, the\n"
"                           paper's setup; capped at the array's capacity)\n"
"  --policy fcfs|satf|satf-ew (satf-ew)  --window N  SATF looks at N queued (64)\n"
"  --read-policy nearest|md  which replica a read goes to: nearest (the\n"
"                           module's: the idle holder reached first, every\n"
"                           holder busy a duplicate in each queue) or md\n"
"                           (md raid10's near layout: the first idle copy,\n"
"                           else the copy nearest its disk's last request)\n"
"  --predict-noise F        sd of the predictor's phase error, in turns (0)\n"
"  --dup-cancel complete|start  a read duplicated on busy holders: the\n"
"                           others are cancelled when one completes (the\n"
"                           paper) or as soon as one starts\n"
"  --disk-mib M            members of M MiB: the model truncated to its\n"
"                           outer cylinders, as hddsim does on a device of\n"
"                           that size (0: the whole model)\n"
"  --phase-seed N           disk i's phase drawn from N (below 2^43) and\n"
"                           i, as make bench draws hddsim's (hddsim_phase);\n"
"                           without it every disk has the model's phase_ns\n"
"                           (the spindles turn in step)\n"
"  --disk KEY=VAL[,..]      disk model: rotation_ns phase_ns overhead_ns\n"
"                           head_switch_ns write_settle_ns single_cyl_ns\n"
"                           seek_a_ns seek_b_ns seek_c_ns seek_e_ns\n"
"                           seek_boundary (Cheetah 9LP defaults)\n"
"Workload:\n"
"  --requests N (100000)    --warmup F  fraction not measured (0.1)\n"
"  --seed N (1)\n"
"  synthetic TPC-C-like (default; open loop, Poisson):\n"
"  --rate R  per second (1000)  --read-frac F (0.655 = 1.9:1)\n"
"  --page-bytes N (8192)    --hot A/S  share A of accesses to share S of\n"
"                           pages (0.8/0.2)\n"
"  --burst F:ON:PERIOD      rate x F for ON ms of every PERIOD ms\n"
"  --trace FILE             replay SPC (ASU,LBA,size,opcode,timestamp)\n"
"  --trace-speed F          replay F times faster (1)\n"
"  --outstanding N          closed loop: N requests always in flight\n"
"  --max-outstanding N      open loop: stop, \"collapsed\", beyond N (20000)\n"
"Before the run (not counted, not measured; the bench's guest sequence):\n"
"  --populate random|sequential  the data set's initial layout (random):\n"
"                           every write-anywhere replica at a random free\n"
"                           block, or the data set written in logical order\n"
"                           through the write path (1 MiB requests, 8 in\n"
"                           flight: make bench's prefill), delayed replicas\n"
"                           drained; raid10 and single: homes either way\n"
"  --warmup-tpcc R:N[,R:N..]  then, per phase in order, N requests of the\n"
"                           TPC-C-like mix (8 KiB pages, --read-frac's\n"
"                           default 0.655, uniform: make bench's fio job)\n"
"                           at R per second, each phase drained\n"
"  --warmup-syncwrite N      then N writes of one block, one outstanding,\n"
"                           uniform over the data set (make bench's\n"
"                           syncwrite job, which the guest runs before\n"
"                           ewprobe), drained\n"
"Output:\n"
"  --json FILE|-  --csv FILE|-  --samples (delayed queue over time in JSON)\n"
"  --ops FILE               every disk operation (CSV)\n"
"  --stop-ms T              sweep: stop after a rate whose mean exceeds T\n"
"  --stop-util U            sweep: stop after a rate at which some disk's\n"
"                           utilisation exceeds U (delayed writes can no\n"
"                           longer keep up) or a writer stalled\n"
"  -h, --help               this text\n"
"\n"
"Exit status: 0 ok, 1 run failed, 2 usage, 3 selftest failed.\n";

enum {
	O_LAYOUT = 256, O_DISKS, O_MIRRORS, O_DILUTION, O_SYNC, O_BLOCK,
	O_CHUNK, O_DELAYQ, O_LEN, O_POLICY, O_WINDOW, O_NOISE, O_DISK,
	O_REQUESTS, O_WARMUP, O_SEED, O_RATE, O_READFRAC, O_PAGE, O_HOT,
	O_BURST, O_TRACE, O_TSPEED, O_OUTST, O_MAXOUT, O_JSON, O_CSV,
	O_SAMPLES, O_OPS, O_RATES, O_STOPMS, O_STOPUTIL, O_DUPCANCEL, O_DISKMIB,
	O_PHASESEED, O_READPOL, O_POPULATE, O_WARMTPCC, O_WARMSYNC, O_HELP
};

static const struct option longopts[] = {
	{ "layout", required_argument, NULL, O_LAYOUT },
	{ "disks", required_argument, NULL, O_DISKS },
	{ "mirrors", required_argument, NULL, O_MIRRORS },
	{ "dilution", required_argument, NULL, O_DILUTION },
	{ "sync", required_argument, NULL, O_SYNC },
	{ "block-size", required_argument, NULL, O_BLOCK },
	{ "chunk-sectors", required_argument, NULL, O_CHUNK },
	{ "delay-queue", required_argument, NULL, O_DELAYQ },
	{ "len-blocks", required_argument, NULL, O_LEN },
	{ "policy", required_argument, NULL, O_POLICY },
	{ "read-policy", required_argument, NULL, O_READPOL },
	{ "window", required_argument, NULL, O_WINDOW },
	{ "predict-noise", required_argument, NULL, O_NOISE },
	{ "disk", required_argument, NULL, O_DISK },
	{ "disk-mib", required_argument, NULL, O_DISKMIB },
	{ "phase-seed", required_argument, NULL, O_PHASESEED },
	{ "requests", required_argument, NULL, O_REQUESTS },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "populate", required_argument, NULL, O_POPULATE },
	{ "warmup-tpcc", required_argument, NULL, O_WARMTPCC },
	{ "warmup-syncwrite", required_argument, NULL, O_WARMSYNC },
	{ "seed", required_argument, NULL, O_SEED },
	{ "rate", required_argument, NULL, O_RATE },
	{ "read-frac", required_argument, NULL, O_READFRAC },
	{ "page-bytes", required_argument, NULL, O_PAGE },
	{ "hot", required_argument, NULL, O_HOT },
	{ "burst", required_argument, NULL, O_BURST },
	{ "trace", required_argument, NULL, O_TRACE },
	{ "trace-speed", required_argument, NULL, O_TSPEED },
	{ "outstanding", required_argument, NULL, O_OUTST },
	{ "max-outstanding", required_argument, NULL, O_MAXOUT },
	{ "json", required_argument, NULL, O_JSON },
	{ "csv", required_argument, NULL, O_CSV },
	{ "samples", no_argument, NULL, O_SAMPLES },
	{ "ops", required_argument, NULL, O_OPS },
	{ "rates", required_argument, NULL, O_RATES },
	{ "stop-ms", required_argument, NULL, O_STOPMS },
	{ "stop-util", required_argument, NULL, O_STOPUTIL },
	{ "dup-cancel", required_argument, NULL, O_DUPCANCEL },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 }
};

/* The long name of option value ch (longopts is not in enum order). */
static const char *opt_name(int ch)
{
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == ch)
			return o->name;
	return "?";
}

static int bad(const char *opt, const char *val)
{
	fprintf(stderr, "ewsim: invalid value for --%s: '%s'\n", opt, val);
	return -EINVAL;
}

static int parse_u64(const char *s, u64 *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		return -EINVAL;
	*v = x;
	return 0;
}

static int parse_u32(const char *s, u32 *v)
{
	u64 x;

	if (parse_u64(s, &x) || x > 0xffffffffULL)
		return -EINVAL;
	*v = (u32)x;
	return 0;
}

static int parse_dbl(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v))
		return -EINVAL;
	return 0;
}

int ewsim_parse_disk(struct ew_disk_params *p, const char *arg)
{
	char buf[512], *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		u64 v;

		if (!eq || parse_u64(eq + 1, &v))
			return -EINVAL;
		*eq = 0;
#define DFIELD(name, max)						\
		if (!strcmp(tok, #name)) {				\
			if (v > (max))					\
				return -EINVAL;				\
			p->name = v;					\
			continue;					\
		}
		DFIELD(rotation_ns, ~0ULL)
		DFIELD(phase_ns, ~0ULL)
		DFIELD(overhead_ns, 0xffffffffULL)
		DFIELD(head_switch_ns, 0xffffffffULL)
		DFIELD(write_settle_ns, 0xffffffffULL)
		DFIELD(single_cyl_ns, 0xffffffffULL)
		DFIELD(seek_a_ns, 0xffffffffULL)
		DFIELD(seek_b_ns, 0xffffffffULL)
		DFIELD(seek_c_ns, 0xffffffffULL)
		DFIELD(seek_e_ns, 0xffffffffULL)
		DFIELD(seek_boundary, 0xffffffffULL)
#undef DFIELD
		return -EINVAL;
	}
	return 0;
}

/* The keywords of --policy, --read-policy and --populate, by value. */
static const char *const policy_names[] = {
	[POL_FCFS] = "fcfs", [POL_SATF] = "satf", [POL_SATF_EW] = "satf-ew",
};
static const char *const read_policy_names[] = {
	[RP_NEAREST] = "nearest", [RP_MD] = "md",
};
static const char *const populate_names[] = {
	[POP_RANDOM] = "random", [POP_SEQUENTIAL] = "sequential",
};

/* The index of keyword a in names[n], or -1. */
static int keyword(const char *a, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(a, names[i]))
			return i;
	return -1;
}

/* --warmup-tpcc RATE:REQUESTS[,RATE:REQUESTS..] */
static int parse_warm(struct sim_config *c, const char *arg)
{
	char buf[1024], *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	c->nr_warm = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct sim_warm *w = &c->warm[c->nr_warm];
		char *colon = strchr(tok, ':');

		if (c->nr_warm == SIM_MAX_WARM || !colon)
			return -EINVAL;
		*colon = 0;
		if (parse_dbl(tok, &w->rate) || w->rate <= 0 ||
		    parse_u64(colon + 1, &w->requests) || !w->requests)
			return -EINVAL;
		c->nr_warm++;
	}
	return c->nr_warm ? 0 : -EINVAL;
}

struct cli {
	struct sim_config c;
	const char *json, *csv;
	bool samples;
	double rates[256];
	u32 nr_rates;
	double stop_ms;
	double stop_util;
};

static int parse_args(int argc, char **argv, struct cli *o)
{
	int ch, k;

	sim_config_default(&o->c);
	o->stop_ms = 1e9;
	o->stop_util = 2;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		struct sim_config *c = &o->c;
		const char *a = optarg;
		const char *name = opt_name(ch);
		u64 v;
		double d;

		switch (ch) {
		case O_LAYOUT:
			c->single = !strcmp(a, "single");
			if (!c->single && ew_layout_parse(a, &c->layout))
				return bad(name, a);
			break;
		case O_DISKS:
			if (parse_u32(a, &c->nr_disks))
				return bad(name, a);
			break;
		case O_MIRRORS:
			if (parse_u32(a, &c->mirrors))
				return bad(name, a);
			break;
		case O_DILUTION:
			if (ew_parse_dilution(a, &c->dilution_x100))
				return bad(name, a);
			break;
		case O_SYNC:
			if (parse_u32(a, &c->sync) || c->sync < 1 || c->sync > 2)
				return bad(name, a);
			break;
		case O_BLOCK:
			if (parse_u64(a, &v) || v % 512 || v < 4096 ||
			    v > 65536 || (v & (v - 1)))
				return bad(name, a);
			c->block_sectors = (u32)(v / 512);
			break;
		case O_CHUNK:
			if (parse_u32(a, &c->chunk_sectors))
				return bad(name, a);
			break;
		case O_DELAYQ:
			if (parse_u32(a, &c->delay_queue) || !c->delay_queue)
				return bad(name, a);
			break;
		case O_LEN:
			if (parse_u64(a, &c->len_blocks))
				return bad(name, a);
			break;
		case O_DISKMIB:
			if (parse_u64(a, &v) || v > (1ULL << 30))
				return bad(name, a);
			c->disk_sectors = v * 2048;
			break;
		case O_PHASESEED:
			if (parse_u64(a, &c->phase_seed) ||
			    c->phase_seed >= (1ULL << 43))
				return bad(name, a);
			c->phase_seeded = true;
			break;
		case O_POLICY:
			if ((k = keyword(a, policy_names,
					 ARRAY_SIZE(policy_names))) < 0)
				return bad(name, a);
			c->policy = (enum sim_policy)k;
			break;
		case O_READPOL:
			if ((k = keyword(a, read_policy_names,
					 ARRAY_SIZE(read_policy_names))) < 0)
				return bad(name, a);
			c->read_policy = (enum sim_read_policy)k;
			break;
		case O_WINDOW:
			if (parse_u32(a, &c->window) || !c->window)
				return bad(name, a);
			break;
		case O_NOISE:
			if (parse_dbl(a, &c->predict_noise) ||
			    c->predict_noise < 0 || c->predict_noise > 1)
				return bad(name, a);
			break;
		case O_DISK:
			if (ewsim_parse_disk(&c->disk, a))
				return bad(name, a);
			break;
		case O_REQUESTS:
			if (parse_u64(a, &c->requests) || !c->requests)
				return bad(name, a);
			break;
		case O_WARMUP:
			if (parse_dbl(a, &c->warmup) || c->warmup < 0 ||
			    c->warmup >= 1)
				return bad(name, a);
			break;
		case O_POPULATE:
			if ((k = keyword(a, populate_names,
					 ARRAY_SIZE(populate_names))) < 0)
				return bad(name, a);
			c->populate = (enum sim_populate)k;
			break;
		case O_WARMTPCC:
			if (parse_warm(c, a))
				return bad(name, a);
			break;
		case O_WARMSYNC:
			if (parse_u64(a, &c->warm_sync) || !c->warm_sync)
				return bad(name, a);
			break;
		case O_SEED:
			if (parse_u64(a, &c->seed))
				return bad(name, a);
			break;
		case O_RATE:
			if (parse_dbl(a, &c->rate) || c->rate <= 0)
				return bad(name, a);
			break;
		case O_READFRAC:
			if (parse_dbl(a, &c->read_frac) || c->read_frac < 0 ||
			    c->read_frac > 1)
				return bad(name, a);
			break;
		case O_PAGE:
			if (parse_u32(a, &c->page_bytes) || !c->page_bytes ||
			    c->page_bytes > 65536 * 64)
				return bad(name, a);
			break;
		case O_HOT:
			if (sscanf(a, "%lf/%lf", &c->hot_access,
				   &c->hot_space) != 2 || c->hot_access < 0 ||
			    c->hot_access > 1 || c->hot_space <= 0 ||
			    c->hot_space > 1)
				return bad(name, a);
			break;
		case O_BURST:
			if (sscanf(a, "%lf:%lf:%lf", &c->burst_factor,
				   &c->burst_on_ms, &c->burst_period_ms) != 3 ||
			    c->burst_factor < 1 || c->burst_on_ms < 0 ||
			    c->burst_period_ms <= 0)
				return bad(name, a);
			break;
		case O_TRACE:
			c->trace = a;
			c->wl = WL_TRACE;
			break;
		case O_TSPEED:
			if (parse_dbl(a, &c->trace_speed) || c->trace_speed <= 0)
				return bad(name, a);
			break;
		case O_OUTST:
			if (parse_u32(a, &c->outstanding) || !c->outstanding)
				return bad(name, a);
			c->wl = WL_CLOSED;
			break;
		case O_MAXOUT:
			if (parse_u64(a, &c->max_outstanding) ||
			    !c->max_outstanding)
				return bad(name, a);
			break;
		case O_JSON:
			o->json = a;
			break;
		case O_CSV:
			o->csv = a;
			break;
		case O_SAMPLES:
			o->samples = true;
			break;
		case O_OPS:
			c->ops_out = a;
			break;
		case O_RATES: {
			char buf[4096], *t, *sv = NULL;

			if (strlen(a) >= sizeof(buf))
				return bad(name, a);
			strcpy(buf, a);
			o->nr_rates = 0;
			for (t = strtok_r(buf, ",", &sv); t;
			     t = strtok_r(NULL, ",", &sv)) {
				if (o->nr_rates == 256 || parse_dbl(t, &d) ||
				    d <= 0)
					return bad(name, a);
				o->rates[o->nr_rates++] = d;
			}
			break;
		}
		case O_STOPMS:
			if (parse_dbl(a, &o->stop_ms) || o->stop_ms <= 0)
				return bad(name, a);
			break;
		case O_DUPCANCEL:
			if (!strcmp(a, "start"))
				c->dup_cancel_start = true;
			else if (!strcmp(a, "complete"))
				c->dup_cancel_start = false;
			else
				return bad(name, a);
			break;
		case O_STOPUTIL:
			if (parse_dbl(a, &o->stop_util) || o->stop_util <= 0)
				return bad(name, a);
			break;
		case 'h':
		case O_HELP:
			fputs(usage, stdout);
			exit(EWSIM_EXIT_OK);
		default:
			fputs("ewsim: try 'ewsim --help'\n", stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ewsim: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	if (o->c.single) {
		o->c.nr_disks = 1;
		o->c.mirrors = 1;
		o->c.sync = 1;
	}
	if (o->c.sync > o->c.mirrors) {
		fprintf(stderr, "ewsim: --sync exceeds --mirrors\n");
		return -EINVAL;
	}
	return 0;
}

static FILE *open_out(const char *path)
{
	FILE *f;

	if (!strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "ewsim: %s: %s\n", path, strerror(errno));
	return f;
}

static void close_out(FILE *f)
{
	if (f && f != stdout)
		fclose(f);
	else if (f)
		fflush(f);
}

static int cmd_run(int argc, char **argv)
{
	struct cli o;
	struct sim_result r;
	FILE *jf = NULL, *cf = NULL;
	int ret;

	memset(&o, 0, sizeof(o));
	if (parse_args(argc, argv, &o))
		return EWSIM_EXIT_USAGE;
	if (!o.json && !o.csv)
		o.json = "-";
	ret = sim_run(&o.c, &r);
	if (ret)
		return EWSIM_EXIT_FAIL;
	if (o.json) {
		jf = open_out(o.json);
		if (!jf)
			ret = -EIO;
		else {
			report_json(jf, &o.c, &r, o.samples);
			fputc('\n', jf);
		}
		close_out(jf);
	}
	if (o.csv) {
		cf = open_out(o.csv);
		if (!cf)
			ret = -EIO;
		else {
			report_csv_header(cf);
			report_csv_row(cf, &o.c, &r);
		}
		close_out(cf);
	}
	fprintf(stderr, "ewsim: %llu requests in %.2f s wall\n",
		(unsigned long long)r.arrivals, r.wall_s);
	sim_result_free(&r);
	return ret ? EWSIM_EXIT_FAIL : EWSIM_EXIT_OK;
}

static int cmd_sweep(int argc, char **argv)
{
	struct cli o;
	FILE *jf = NULL, *cf = NULL;
	int ret = 0;

	memset(&o, 0, sizeof(o));
	if (parse_args(argc, argv, &o))
		return EWSIM_EXIT_USAGE;
	if (!o.nr_rates || o.c.wl != WL_SYNTH) {
		fprintf(stderr,
			"ewsim: sweep needs --rates and the synthetic workload\n");
		return EWSIM_EXIT_USAGE;
	}
	if (!o.json && !o.csv)
		o.csv = "-";
	if (o.csv) {
		cf = open_out(o.csv);
		if (!cf)
			return EWSIM_EXIT_FAIL;
		report_csv_header(cf);
	}
	if (o.json) {
		jf = open_out(o.json);
		if (!jf)
			return EWSIM_EXIT_FAIL;
		fputs("[\n", jf);
	}
	for (u32 i = 0; i < o.nr_rates; i++) {
		struct sim_result r;

		o.c.rate = o.rates[i];
		ret = sim_run(&o.c, &r);
		if (ret)
			break;
		if (cf) {
			report_csv_row(cf, &o.c, &r);
			fflush(cf);
		}
		if (jf) {
			if (i)
				fputs(",\n", jf);
			report_json(jf, &o.c, &r, o.samples);
		}
		fprintf(stderr, "ewsim: rate %g: mean %.3f ms%s (%.1f s)\n",
			o.c.rate, r.all.mean_ms,
			r.collapsed ? ", collapsed" : "", r.wall_s);
		sim_result_free(&r);
		if (r.collapsed || r.all.mean_ms > o.stop_ms ||
		    r.util_max > o.stop_util ||
		    (o.stop_util < 2 && r.stalls))
			break;
	}
	if (jf)
		fputs("\n]\n", jf);
	close_out(jf);
	close_out(cf);
	return ret ? EWSIM_EXIT_FAIL : EWSIM_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "sweep"))
		return cmd_sweep(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "bound"))
		return bound_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "selftest")) {
		bool v = argc > 2 && !strcmp(argv[2], "-v");

		if (argc > 2 && !v) {
			fputs(usage, stderr);
			return EWSIM_EXIT_USAGE;
		}
		return sim_selftest(v) ? EWSIM_EXIT_SELFTEST : EWSIM_EXIT_OK;
	}
	if (argc > 1 && argv[1][0] != '-') {
		fprintf(stderr, "ewsim: unknown command '%s'\n", argv[1]);
		fputs("ewsim: try 'ewsim --help'\n", stderr);
		return EWSIM_EXIT_USAGE;
	}
	return cmd_run(argc, argv);
}
