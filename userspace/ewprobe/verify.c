// SPDX-License-Identifier: GPL-2.0-only
/*
 * verify.c - `ewprobe verify`: after the power cut, did every
 * acknowledged write survive?
 *
 * The log (console output, a listener's file) is read for the last run's
 * records; records are found by their marker and checksum, so console
 * noise and a torn last line are skipped.  Then every block the run
 * mentioned is read and judged against the block's latest acknowledged
 * write A and the intents logged after it (writes that may have been in
 * flight at the cut):
 *
 *   verified     the block holds A
 *   later-write  it holds a later logged intent, or a sector-wise mix of
 *                A and later intents (an in-flight multi-sector write may
 *                tear; that is allowed)
 *   lost         it holds an older state: zeros, an earlier write to it,
 *                or a probe block of another run
 *   corrupt      anything else: garbage, a bad checksum, another block's
 *                data, a write whose intent was never logged (unless the
 *                log has damaged records: an intact later write of this
 *                run then counts as later-write, "later_unlogged")
 *
 * lost and corrupt are failures (exit 1).  Blocks with an intent but no
 * acknowledgement are read and counted, never judged.
 *
 * --scan also reads every block of the run's range the log never
 * mentions.  Such a block may hold zeros or a probe block of another run
 * at its own address (stale: what was there before, not judged); a
 * probe block of this run (its intent was never logged, or it is another
 * block's data), another address's probe block, or garbage is foreign
 * data, a failure like corrupt.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ewprobe.h"

static const char verify_usage[] =
"usage: ewprobe verify --log FILE [--scan] [--json] PATH\n"
"\n"
"Check PATH against the log of an `ewprobe write` run (the last run in\n"
"FILE): every acknowledged block must hold its acknowledged data or a\n"
"later write whose intent was logged.  FILE may be a whole console\n"
"capture: other text and a torn last line are skipped.\n"
"\n"
"  --log FILE   the channel's capture (a listener's file, a serial log)\n"
"  --scan       also read every block of the run's range that the log\n"
"               never mentions: none may hold foreign data (this run's\n"
"               writes, another address's probe block, garbage)\n"
"  --json       print one JSON object instead of text\n"
"\n"
"Prints totals: acked (blocks with an acknowledged write), verified,\n"
"later-write, lost, corrupt, and the unacknowledged blocks seen.\n"
"Exit: 0 nothing lost, 1 a lost or corrupt acknowledged write (or, with\n"
"--scan, a block holding foreign data), 2 usage\n"
"error or unusable log, 3 I/O error reading PATH or FILE.\n";

#define MAX_ERR_REPORT	100

struct ent {
	uint64_t seq, block, id;
	bool intent, ack;
};

struct log {
	struct ent *e;
	size_t n, cap;
	uint64_t bs, blocks, seed;
	bool have_start, ended;
	uint64_t end_writes;
	size_t lines, records, noise, bad, runs, inconsistent;
	bool torn_tail;
};

enum verdict { V_VERIFIED, V_LATER, V_LOST, V_CORRUPT, V_FOREIGN };
static const char *const verdict_names[] = {
	"verified", "later-write", "lost", "corrupt", "foreign"
};

struct problem {
	enum verdict v;
	uint64_t block, seq;
	char found[96];
};

struct totals {
	size_t acked, verdicts[5], unacked, unacked_landed, acks, intents;
	size_t later_unlogged;	/* later writes whose intent is among damaged records */
	/* --scan: blocks of the range the log never mentions */
	bool scan;
	size_t scanned, scan_zero, scan_stale, foreign;
	struct problem *p;
	size_t np;
};

static int add_ent(struct log *l, const struct ewp_rec *r)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct ent *e = realloc(l->e, cap * sizeof(*e));

		if (!e)
			return -1;
		l->e = e;
		l->cap = cap;
	}
	l->e[l->n++] = (struct ent){
		.seq = r->a, .block = r->b, .id = r->c,
		.intent = r->type == EWP_REC_INTENT, .ack = r->type == EWP_REC_ACK,
	};
	return 0;
}

static void take_record(struct log *l, const struct ewp_rec *r)
{
	switch (r->type) {
	case EWP_REC_START:
		/* A new run: the records before it describe another one. */
		l->n = 0;
		l->runs++;
		l->have_start = true;
		l->ended = false;
		l->bs = r->b;
		l->blocks = r->c;
		l->seed = r->d;
		break;
	case EWP_REC_END:
		l->ended = true;
		l->end_writes = r->a;
		break;
	default:
		if (l->have_start && add_ent(l, r) < 0) {
			ewp_err("verify: out of memory");
			exit(EWP_FAIL);
		}
		break;
	}
}

static int read_log(const char *path, struct log *l)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f) {
		ewp_err("verify: cannot open log %s: %s", path, strerror(errno));
		return EWP_FAIL;
	}
	while ((len = getline(&buf, &cap, f)) > 0) {
		bool last = buf[len - 1] != '\n';
		struct ewp_rec r;
		int ret;

		l->lines++;
		ret = ewp_rec_parse(buf, last ? (size_t)len : (size_t)len - 1, &r);
		if (ret == 0) {
			l->records++;
			take_record(l, &r);
		} else if (ret == -2) {
			if (last)
				l->torn_tail = true;
			else
				l->bad++;
		} else {
			l->noise++;
		}
	}
	if (ferror(f)) {
		ewp_err("verify: reading %s: %s", path, strerror(errno));
		free(buf);
		fclose(f);
		return EWP_FAIL;
	}
	free(buf);
	fclose(f);
	if (!l->have_start) {
		ewp_err("verify: %s holds no intact 'EWPROBE start' record", path);
		return EWP_USAGE;
	}
	if (l->bs < EWP_SECTOR || l->bs % EWP_SECTOR || l->bs > (16u << 20)) {
		ewp_err("verify: %s: the run's block size %" PRIu64 " is not usable", path, l->bs);
		return EWP_USAGE;
	}
	return EWP_OK;
}

static int by_seq(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (int)y->intent - (int)x->intent;
}

static int by_block_seq(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One entry per write: merge each ack into its intent. */
static void merge(struct log *l, struct totals *tot)
{
	size_t out = 0;

	qsort(l->e, l->n, sizeof(*l->e), by_seq);
	for (size_t i = 0; i < l->n; i++) {
		struct ent *e = &l->e[i];

		tot->acks += e->ack;
		tot->intents += e->intent;
		if (out && l->e[out - 1].seq == e->seq) {
			struct ent *m = &l->e[out - 1];

			if (m->block != e->block || m->id != e->id) {
				l->inconsistent++;
				continue;
			}
			m->intent |= e->intent;
			m->ack |= e->ack;
			continue;
		}
		l->e[out++] = *e;
	}
	l->n = out;
	qsort(l->e, l->n, sizeof(*l->e), by_block_seq);
}

static int read_block(int fd, void *buf, uint64_t bs, uint64_t blk)
{
	size_t done = 0;

	while (done < bs) {
		ssize_t r = pread(fd, (char *)buf + done, bs - done, blk * bs + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			/* Past the end of a file: what was never written. */
			memset((char *)buf + done, 0, bs - done);
			break;
		}
		done += r;
	}
	return 0;
}

/* Does every sector of @got equal that sector of one of @imgs? */
static bool sector_mix(const unsigned char *got, unsigned char **imgs, size_t n,
		       uint64_t bs)
{
	for (uint64_t off = 0; off < bs; off += EWP_SECTOR) {
		bool any = false;

		for (size_t i = 0; i < n && !any; i++)
			any = !memcmp(got + off, imgs[i] + off, EWP_SECTOR);
		if (!any)
			return false;
	}
	return true;
}

static void problem(struct totals *tot, enum verdict v, uint64_t block, uint64_t seq,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void problem(struct totals *tot, enum verdict v, uint64_t block, uint64_t seq,
		    const char *fmt, ...)
{
	va_list ap;
	struct problem *p;

	tot->verdicts[v]++;
	if (v < V_LOST || tot->np >= MAX_ERR_REPORT)
		return;
	p = &tot->p[tot->np++];
	p->v = v;
	p->block = block;
	p->seq = seq;
	va_start(ap, fmt);
	vsnprintf(p->found, sizeof(p->found), fmt, ap);
	va_end(ap);
}

/*
 * Judge one block.  @g[0..n) are the writes logged for it in seq order;
 * @a is the index of the latest acknowledged one.
 */
/*
 * A block the log never mentions (--scan): zeros or another run's probe
 * block at its own address are what was there before; anything else is
 * foreign data.
 */
static void scan_block(const struct log *l, struct totals *tot, uint64_t blk,
		       const unsigned char *got)
{
	struct ewp_block_hdr h;
	struct problem *p;
	char found[96];

	tot->scanned++;
	switch (ewp_block_check(got, (uint32_t)l->bs, &h)) {
	case EWP_BLOCK_ZERO:
		tot->scan_zero++;
		return;
	case EWP_BLOCK_BAD:
		snprintf(found, sizeof(found), "garbage (not a probe block, or a bad checksum)");
		break;
	case EWP_BLOCK_VALID:
		if (h.block == blk && (h.seed != l->seed || h.id != ewp_write_id(h.seed, h.seq))) {
			tot->scan_stale++;
			return;
		}
		if (h.block != blk)
			snprintf(found, sizeof(found), "the data of block %" PRIu64 " (seq %" PRIu64 ")",
				 h.block, h.seq);
		else
			snprintf(found, sizeof(found), "write seq %" PRIu64 " of this run, never logged",
				 h.seq);
		break;
	}
	tot->foreign++;
	if (tot->np >= MAX_ERR_REPORT)
		return;
	p = &tot->p[tot->np++];
	p->v = V_FOREIGN;
	p->block = blk;
	p->seq = 0;
	memcpy(p->found, found, sizeof(found));
}

static void judge(const struct log *l, struct totals *tot, const struct ent *g,
		  size_t n, size_t a, const unsigned char *got, unsigned char **imgs)
{
	const struct ent *A = &g[a];
	struct ewp_block_hdr h;
	size_t nimg = 0;
	uint64_t bs = l->bs;

	/* Candidate images: A, then each later intent. */
	for (size_t i = a; i < n; i++) {
		ewp_block_fill(imgs[nimg], (uint32_t)bs, g[i].seq, g[i].block, g[i].id, l->seed);
		if (!memcmp(got, imgs[nimg], bs)) {
			tot->verdicts[i == a ? V_VERIFIED : V_LATER]++;
			return;
		}
		nimg++;
	}
	if (nimg > 1 && sector_mix(got, imgs, nimg, bs)) {
		tot->verdicts[V_LATER]++;	/* a torn in-flight write */
		return;
	}
	switch (ewp_block_check(got, (uint32_t)bs, &h)) {
	case EWP_BLOCK_ZERO:
		problem(tot, V_LOST, A->block, A->seq, "zeros");
		return;
	case EWP_BLOCK_BAD:
		problem(tot, V_CORRUPT, A->block, A->seq, "garbage (not a probe block, or a bad checksum)");
		return;
	case EWP_BLOCK_VALID:
		break;
	}
	if (h.block != A->block) {
		problem(tot, V_CORRUPT, A->block, A->seq,
			"the data of block %" PRIu64 " (seq %" PRIu64 ")", h.block, h.seq);
	} else if (h.seed != l->seed || h.id != ewp_write_id(h.seed, h.seq)) {
		problem(tot, V_LOST, A->block, A->seq,
			"a probe block of another run (seed 0x%016" PRIx64 ", seq %" PRIu64 ")",
			h.seed, h.seq);
	} else if (h.seq < A->seq) {
		problem(tot, V_LOST, A->block, A->seq, "an older write, seq %" PRIu64, h.seq);
	} else if (l->bad) {
		/* A later write of this run, intact; its intent was sent
		 * before it was issued, so it is among the damaged records. */
		tot->verdicts[V_LATER]++;
		tot->later_unlogged++;
	} else {
		problem(tot, V_CORRUPT, A->block, A->seq,
			"write seq %" PRIu64 ", whose intent was never logged", h.seq);
	}
}

static int check_blocks(int fd, const struct log *l, struct totals *tot, const char *path)
{
	unsigned char *got = ewp_alloc_aligned(l->bs), **imgs = NULL;
	size_t maxg = 0;
	int ret = EWP_OK;

	for (size_t i = 0, j; i < l->n; i = j) {
		for (j = i; j < l->n && l->e[j].block == l->e[i].block; j++)
			;
		if (j - i > maxg)
			maxg = j - i;
	}
	imgs = calloc(maxg ? maxg : 1, sizeof(*imgs));
	for (size_t i = 0; imgs && i < maxg; i++) {
		imgs[i] = malloc(l->bs);
		if (!imgs[i])
			ret = EWP_FAIL;
	}
	if (!got || !imgs)
		ret = EWP_FAIL;

	for (size_t i = 0, j; !ret && i < l->n; i = j) {
		const struct ent *g = &l->e[i];
		size_t a = SIZE_MAX;

		for (j = i; j < l->n && l->e[j].block == g->block; j++)
			if (l->e[j].ack)
				a = j - i;
		if (read_block(fd, got, l->bs, g->block) < 0) {
			ewp_err("verify: %s: reading block %" PRIu64 ": %s", path, g->block,
				strerror(errno));
			ret = EWP_FAIL;
			break;
		}
		if (a == SIZE_MAX) {
			/* Only intents: the write may or may not have landed. */
			tot->unacked++;
			for (size_t k = 0; k < j - i; k++) {
				ewp_block_fill(imgs[0], (uint32_t)l->bs, g[k].seq, g[k].block,
					       g[k].id, l->seed);
				if (!memcmp(got, imgs[0], l->bs)) {
					tot->unacked_landed++;
					break;
				}
			}
			continue;
		}
		tot->acked++;
		judge(l, tot, g, j - i, a, got, imgs);
	}
	/* l->e is sorted by block: walk it alongside the range. */
	for (uint64_t blk = 0, k = 0; !ret && tot->scan && blk < l->blocks; blk++) {
		while (k < l->n && l->e[k].block < blk)
			k++;
		if (k < l->n && l->e[k].block == blk)
			continue;
		if (read_block(fd, got, l->bs, blk) < 0) {
			ewp_err("verify: %s: reading block %" PRIu64 ": %s", path, blk,
				strerror(errno));
			ret = EWP_FAIL;
			break;
		}
		scan_block(l, tot, blk, got);
	}
	for (size_t i = 0; imgs && i < maxg; i++)
		free(imgs[i]);
	free(imgs);
	free(got);
	return ret;
}

static void print_text(const char *path, const char *logpath, const struct log *l,
		       const struct totals *t)
{
	printf("ewprobe verify: %s against %s (block size %" PRIu64 ", %" PRIu64
	       " blocks, seed 0x%016" PRIx64 ")\n", path, logpath, l->bs, l->blocks, l->seed);
	printf("log: %zu lines, %zu records, %zu other lines, %zu damaged records%s; "
	       "checking the last of %zu runs, which %s\n",
	       l->lines, l->records, l->noise, l->bad,
	       l->torn_tail ? " and a torn last line" : "", l->runs,
	       l->ended ? "ended cleanly" : "was cut short");
	if (l->inconsistent)
		printf("log: %zu records contradict another with the same seq (ignored)\n",
		       l->inconsistent);
	for (size_t i = 0; i < t->np; i++) {
		if (t->p[i].v == V_FOREIGN)
			printf("block %" PRIu64 ": foreign: never written by this run's log; found %s\n",
			       t->p[i].block, t->p[i].found);
		else
			printf("block %" PRIu64 ": %s: acknowledged write seq %" PRIu64
			       " is not there; found %s\n",
			       t->p[i].block, verdict_names[t->p[i].v], t->p[i].seq,
			       t->p[i].found);
	}
	if (t->np < t->verdicts[V_LOST] + t->verdicts[V_CORRUPT] + t->foreign)
		printf("(only the first %d problems are listed)\n", MAX_ERR_REPORT);
	printf("intents %zu, acks %zu\n", t->intents, t->acks);
	printf("acked %zu, verified %zu, later-write %zu, lost %zu, corrupt %zu\n",
	       t->acked, t->verdicts[V_VERIFIED], t->verdicts[V_LATER],
	       t->verdicts[V_LOST], t->verdicts[V_CORRUPT]);
	printf("unacked %zu (blocks with an intent but no ack, not judged; %zu hold the intended write)\n",
	       t->unacked, t->unacked_landed);
	if (t->later_unlogged)
		printf("(%zu later writes of this run whose intents are among the damaged records)\n",
		       t->later_unlogged);
	if (t->scan)
		printf("scan: %zu blocks the log never mentions: %zu zeros, %zu stale (another run's, at their own address), %zu foreign\n",
		       t->scanned, t->scan_zero, t->scan_stale, t->foreign);
	if (t->verdicts[V_LOST] + t->verdicts[V_CORRUPT])
		printf("result: FAIL - %zu acknowledged writes did not survive: the stack lied about durability\n",
		       t->verdicts[V_LOST] + t->verdicts[V_CORRUPT]);
	else if (t->foreign)
		printf("result: FAIL - %zu blocks the log never wrote hold foreign data\n", t->foreign);
	else
		printf("result: OK - every acknowledged write survived\n");
}

static void print_json(const char *path, const char *logpath, const struct log *l,
		       const struct totals *t)
{
	printf("{\"command\":\"verify\",\"path\":");
	ewp_json_string(stdout, path);
	printf(",\"log\":");
	ewp_json_string(stdout, logpath);
	printf(",\"block_size\":%" PRIu64 ",\"blocks\":%" PRIu64 ",\"seed\":\"0x%016" PRIx64 "\","
	       "\"log_lines\":%zu,\"records\":%zu,\"other_lines\":%zu,\"damaged_records\":%zu,"
	       "\"torn_last_line\":%s,\"runs\":%zu,\"ended\":%s,\"inconsistent\":%zu,"
	       "\"intents\":%zu,\"acks\":%zu,\"acked\":%zu,\"verified\":%zu,\"later_write\":%zu,"
	       "\"lost\":%zu,\"corrupt\":%zu,\"unacked\":%zu,\"unacked_landed\":%zu,"
	       "\"later_unlogged\":%zu,",
	       l->bs, l->blocks, l->seed, l->lines, l->records, l->noise, l->bad,
	       l->torn_tail ? "true" : "false", l->runs, l->ended ? "true" : "false",
	       l->inconsistent, t->intents, t->acks, t->acked, t->verdicts[V_VERIFIED],
	       t->verdicts[V_LATER], t->verdicts[V_LOST], t->verdicts[V_CORRUPT],
	       t->unacked, t->unacked_landed, t->later_unlogged);
	if (t->scan)
		printf("\"scanned\":%zu,\"scan_zero\":%zu,\"scan_stale\":%zu,\"foreign\":%zu,",
		       t->scanned, t->scan_zero, t->scan_stale, t->foreign);
	printf("\"problems\":[");
	for (size_t i = 0; i < t->np; i++) {
		printf("%s{\"block\":%" PRIu64 ",\"seq\":%" PRIu64 ",\"kind\":\"%s\",\"found\":",
		       i ? "," : "", t->p[i].block, t->p[i].seq, verdict_names[t->p[i].v]);
		ewp_json_string(stdout, t->p[i].found);
		printf("}");
	}
	printf("],\"result\":\"%s\"}\n",
	       t->verdicts[V_LOST] + t->verdicts[V_CORRUPT] + t->foreign ? "fail" : "ok");
}

int ewp_cmd_verify(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "scan", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *logpath = NULL, *path;
	bool json = false;
	struct log l = { 0 };
	struct totals tot = { 0 };
	int c, fd, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'l': logpath = optarg; break;
		case 'j': json = true; break;
		case 's': tot.scan = true; break;
		case 'h':
			fputs(verify_usage, stdout);
			return EWP_OK;
		default:
			fputs(verify_usage, stderr);
			return EWP_USAGE;
		}
	}
	if (optind != argc - 1 || !logpath) {
		ewp_err("verify: --log FILE and exactly one PATH are needed");
		fputs(verify_usage, stderr);
		return EWP_USAGE;
	}
	path = argv[optind];
	ret = read_log(logpath, &l);
	if (ret)
		goto out;
	merge(&l, &tot);

	/* After a reboot the cache is cold anyway; in the same boot, read
	 * the medium (O_DIRECT) rather than what the page cache remembers. */
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 && errno == EINVAL)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ewp_err("verify: cannot open %s: %s", path, strerror(errno));
		ret = EWP_FAIL;
		goto out;
	}
	tot.p = calloc(MAX_ERR_REPORT, sizeof(*tot.p));
	ret = tot.p ? check_blocks(fd, &l, &tot, path) : EWP_FAIL;
	close(fd);
	if (ret)
		goto out;
	if (json)
		print_json(path, logpath, &l, &tot);
	else
		print_text(path, logpath, &l, &tot);
	ret = tot.verdicts[V_LOST] + tot.verdicts[V_CORRUPT] + tot.foreign ? EWP_LOSS : EWP_OK;
out:
	free(tot.p);
	free(l.e);
	return ret;
}
