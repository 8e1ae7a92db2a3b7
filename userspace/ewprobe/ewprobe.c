// SPDX-License-Identifier: GPL-2.0-only
/*
 * ewprobe.c - the durability probe's entry point: subcommand dispatch,
 * the tool's --help, and the small parsing and output helpers that every
 * subcommand shares.
 *
 * ewprobe asks two questions of a storage stack.  `rate` times write+sync
 * and compares the figure with what a rotating disk can physically do; a
 * rate above that ceiling means a volatile cache, NVRAM or a write
 * strategy that does not rewrite in place (eager writing is one).  Only a
 * power cut tells those apart, so `write` / `listen` / `verify` do one in
 * the manner of diskchecker.pl.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "ew_kerncompat.h"
#include "ewprobe.h"

static const char usage[] =
"usage: ewprobe COMMAND [OPTIONS] ...\n"
"\n"
"Is this device really durable?  Measure it, then prove it with a power cut.\n"
"\n"
"commands:\n"
"  rate    time write+sync on PATH and compare with a rotating disk's ceiling\n"
"  write   write checked blocks to PATH, logging intents and acks to a channel\n"
"  verify  after a power cut, check PATH against the log of a `write` run\n"
"  listen  receive a `write` run's log over TCP (loopback) into a file\n"
"\n"
"`ewprobe COMMAND --help` describes each.  Exit codes: 0 success, 1 verify\n"
"found a lost or corrupt acknowledged write, 2 usage error (including a\n"
"refusal to overwrite data without --force), 3 I/O or system error.\n"
"See Documentation/ewprobe.rst.\n";

void ewp_err(const char *fmt, ...)
{
	va_list ap;

	fputs("ewprobe: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int ewp_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* A byte count with an optional binary suffix: 4096, 4k, 64M, 1G. */
int ewp_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: return -1;
	}
	if (*end == 'i' && shift)
		end++;
	if ((*end == 'B' || *end == 'b') && shift)
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int ewp_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v > 0) || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

double ewp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void ewp_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* splitmix64's finaliser: a bijection, so distinct inputs stay distinct. */
uint64_t ewp_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t ewp_random_seed(void)
{
	uint64_t s;
	struct timespec ts;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) == (ssize_t)sizeof(s))
		return s;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ewp_mix64((uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "rate", ewp_cmd_rate },
		{ "write", ewp_cmd_write },
		{ "verify", ewp_cmd_verify },
		{ "listen", ewp_cmd_listen },
	};

	if (argc < 2) {
		fputs(usage, stderr);
		return EWP_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return EWP_OK;
	}
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	ewp_err("unknown command '%s'", argv[1]);
	fputs(usage, stderr);
	return EWP_USAGE;
}
