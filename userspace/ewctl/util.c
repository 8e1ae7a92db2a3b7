// SPDX-License-Identifier: GPL-2.0-only
/*
 * util.c - helpers the ewctl subcommands share: the layout options and
 * the table line built from them, sizes with units, JSON.  Device sizes
 * are in dev.c.
 */
#include <stdio.h>
#include <string.h>

#include "ewctl.h"

bool ewctl_layout_opt(struct ewctl_layout_opts *o, int opt, const char *arg)
{
	if (opt == EWCTL_OPT_LAYOUT) {
		o->layout = arg;
		return true;
	}
	if (opt >= EWCTL_OPT_KEY0 && opt < EWCTL_OPT_NEXT) {
		o->val[opt - EWCTL_OPT_KEY0] = arg;
		return true;
	}
	return false;
}

void ewctl_layout_help(FILE *f)
{
	fprintf(f,
"Layout options (as in the table line; a key not given is left out of it\n"
"and takes the target's default, but sync is always written):\n"
"  --layout raid10|ddm|ew  the layout (default ew)\n"
"  --mirrors N             replicas per block: raid10/ew 2..8, ddm 2 (2)\n"
"  --dilution D            ew, ddm: above 1, to 100, two decimals (2)\n"
"  --sync 1|2              replicas written before a write is acknowledged\n"
"                          (2; with 1, a member failure before the delayed\n"
"                          replica is written loses the write)\n"
"  --chunk-sectors N       stripe unit, power of two >= one block (128)\n"
"  --block-size BYTES      4096..65536, power of two (4096)\n"
"  --delay-queue N         pending background replicas, 1..10000000 (10000)\n"
"  --journal-copy N        with --sync 1: N copy slots on the metadata\n"
"                          device, 1..1048576 (none; dm-eagerwrite(7))\n");
}

int ewctl_parse_table(const struct ewctl_layout_opts *o, const char *meta,
		      unsigned int nr_devs, char **devs,
		      struct ewctl_words *w, struct ew_table_args *t)
{
	const char *err = NULL;
	unsigned int k, i, nargs = 0;

	w->argc = 0;
	w->argv[w->argc++] = (char *)(o->layout ? o->layout : "ew");
	for (k = 0; k < EW_KEY_NR; k++)
		if (o->val[k])
			nargs += 2;
	snprintf(w->nbuf[0], sizeof(w->nbuf[0]), "%u", nargs);
	w->argv[w->argc++] = w->nbuf[0];
	for (k = 0; k < EW_KEY_NR; k++) {
		if (!o->val[k])
			continue;
		w->argv[w->argc++] = (char *)ew_key_name(k);
		w->argv[w->argc++] = (char *)o->val[k];
	}
	w->argv[w->argc++] = (char *)meta;
	snprintf(w->nbuf[1], sizeof(w->nbuf[1]), "%u", nr_devs);
	w->argv[w->argc++] = w->nbuf[1];
	for (i = 0; i < nr_devs && i < EW_MAX_DISKS; i++)
		w->argv[w->argc++] = devs[i];
	w->argv[w->argc] = NULL;
	if (ew_table_parse(w->argc, w->argv, t, &err)) {
		fprintf(stderr, "%s: %s\n", ewctl_prog, err);
		return EWCTL_FAIL;
	}
	return EWCTL_OK;
}

int ewctl_parse_size(const char *s, u64 *bytes)
{
	char digits[32];
	size_t n = strspn(s, "0123456789");
	const char *u = s + n;
	u64 v, mul = 1;

	if (!n || n >= sizeof(digits))
		return -1;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (ew_parse_u64(digits, &v))
		return -1;
	switch (*u) {
	case '\0':
		break;
	case 's':
		mul = 512;
		u++;
		break;
	case 'k': case 'K':
		mul = 1ULL << 10;
		break;
	case 'm': case 'M':
		mul = 1ULL << 20;
		break;
	case 'g': case 'G':
		mul = 1ULL << 30;
		break;
	case 't': case 'T':
		mul = 1ULL << 40;
		break;
	case 'p': case 'P':
		mul = 1ULL << 50;
		break;
	default:
		return -1;
	}
	if (mul > 512) {
		u++;
		if (!strcmp(u, "iB") || !strcmp(u, "B"))
			u += strlen(u);
	}
	if (*u)
		return -1;
	if (v && mul > ~0ULL / v)
		return -1;
	*bytes = v * mul;
	return 0;
}

void ewctl_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void ewctl_fmt_x100(char *buf, size_t len, u64 x100)
{
	snprintf(buf, len, "%llu.%02llu", (unsigned long long)(x100 / 100),
		 (unsigned long long)(x100 % 100));
}
