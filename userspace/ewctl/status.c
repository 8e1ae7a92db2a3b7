// SPDX-License-Identifier: GPL-2.0-only
/*
 * status.c - "ewctl status [NAME...]": an array's state for people (like
 * mdadm --detail) or scripts (--json), from "dmsetup status" (the
 * target's positional INFO fields, Documentation/eagerwrite.rst) and
 * "dmsetup table" (parsed by the core's ew_table_parse()).  Every field
 * is named here once, in status_fields[]; a field the target appends
 * later is shown as "field_N" until it is named.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ewctl_status.h"

/* The INFO fields in order (field 1 is status_fields[0]). */
static const char *const status_fields[] = {
	"layout", "members", "mirrors", "dilution", "striping",
	"region_blocks", "member_states", "pending", "reads", "writes",
	"fg_replica_writes", "bg_replica_writes", "eager_writes", "flushes",
	"predictor_error_ns", "metadata", "journal_seq", "commits",
	"checkpoints", "resync", "read_errors", "write_errors", "repairs",
	"owed", "lost", "rebuild", "rebuild_state", "rebuild_rate",
	"delay_pages", "delay_fallbacks", "copy_slots", "metadata_copies",
	"metadata_repairs", "journal_waits", "checkpoint_progress",
	"placement_lead_ns",
};
#define NR_NAMED	ARRAY_SIZE(status_fields)

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl status [--json] [--no-sample] [NAME...]\n"
"       ewctl status [--json] --input FILE\n"
"\n"
"Prints the state of eagerwrite arrays (every one that is loaded, or the\n"
"NAMEs given): layout, members and their states, rebuild progress with\n"
"its rate and time left, resync, delayed replicas, metadata and journal,\n"
"errors, predictor error and counters.  It reads \"dmsetup status\" and\n"
"\"dmsetup table\"; while a rebuild runs it reads the status twice, one\n"
"second apart, to measure the rate (--no-sample: once).\n"
"\n"
"  --json         one JSON array, an object per array; the field names\n"
"                 are those of Documentation/ewctl.rst\n"
"  --input FILE   parse \"dmsetup status\" lines from FILE ('-': stdin)\n"
"                 instead of asking device-mapper (no table, no sample)\n"
"  -h, --help     this help\n"
"\n"
"Exit status: 0 printed, 1 an array is not an eagerwrite array, cannot\n"
"be read or its status line is malformed, 2 usage error.\n");
}

/* Splits "NAME: 0 LEN eagerwrite f1 f2 ..." (or without "NAME: "). */
int ewctl_status_parse(struct ewctl_status *a, const char *name, const char *line)
{
	char *p, *tok, *save;
	unsigned int i = 0;

	snprintf(a->line, sizeof(a->line), "%s", line);
	p = a->line;
	p[strcspn(p, "\n")] = '\0';
	if (!name) {
		char *colon = strstr(p, ": ");

		if (!colon)
			return -1;
		*colon = '\0';
		name = p;
		p = colon + 2;
	}
	if (strlen(name) >= sizeof(a->name))
		return -1;
	strcpy(a->name, name);
	a->nf = 0;
	for (tok = strtok_r(p, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (i == 2 && strcmp(tok, "eagerwrite"))
			return -1;
		if (i++ < 3)
			continue;
		if (a->nf < EWCTL_STATUS_MAX_FIELDS)
			a->f[a->nf++] = tok;
	}
	/* Fields 1-20 date from the first status format. */
	return i >= 3 && a->nf >= 20 ? 0 : -1;
}

const char *ewctl_status_field(const struct ewctl_status *a, unsigned int i)
{
	return i < a->nf ? a->f[i] : NULL;
}

unsigned long long ewctl_status_num(const struct ewctl_status *a, unsigned int i)
{
	const char *s = ewctl_status_field(a, i);

	return s ? strtoull(s, NULL, 10) : 0;
}

/* "done/total" -> done, total; false if not that shape. */
bool ewctl_status_frac(const struct ewctl_status *a, unsigned int i, unsigned long long *d,
		 unsigned long long *t)
{
	const char *s = ewctl_status_field(a, i);

	return s && sscanf(s, "%llu/%llu", d, t) == 2;
}

/* Runs a command, first line of its output into buf; 0 or -1. */
static int cmd_line(const char *const argv[], char *buf, size_t len)
{
	char cmd[512];
	FILE *p;
	size_t n = 0;
	unsigned int i;
	int st;

	/* Names reach a shell: allow the characters dm allows, quoted. */
	for (i = 0; argv[i]; i++) {
		if (strchr(argv[i], '\'')) {
			fprintf(stderr, "%s: bad name %s\n", ewctl_prog, argv[i]);
			return -1;
		}
		n += (size_t)snprintf(cmd + n, n < sizeof(cmd) ? sizeof(cmd) - n : 0,
				      "%s'%s'", i ? " " : "", argv[i]);
	}
	/* dmsetup's own complaint is replaced by the caller's */
	n += (size_t)snprintf(cmd + n, n < sizeof(cmd) ? sizeof(cmd) - n : 0,
			      " 2>/dev/null");
	if (n >= sizeof(cmd))
		return -1;
	p = popen(cmd, "r");
	if (!p)
		return -1;
	buf[0] = '\0';
	if (!fgets(buf, (int)len, p))
		buf[0] = '\0';
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	return st == 0 && buf[0] ? 0 : -1;
}

int ewctl_status_read_table(struct ewctl_status *a)
{
	const char *argv[] = { "dmsetup", "table", a->name, NULL };
	char *tok, *save;
	unsigned int n = 0, i = 0;
	const char *why;

	if (cmd_line(argv, a->tline, sizeof(a->tline)))
		return -1;
	a->tline[strcspn(a->tline, "\n")] = '\0';
	for (tok = strtok_r(a->tline, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (i++ < 3)
			continue;
		if (n < ARRAY_SIZE(a->twords))
			a->twords[n++] = tok;
	}
	if (ew_table_parse(n, a->twords, &a->t, &why))
		return -1;
	a->have_table = true;
	return 0;
}

int ewctl_status_read(struct ewctl_status *a, const char *name)
{
	const char *argv[] = { "dmsetup", "status", name, NULL };
	char buf[8192];

	if (cmd_line(argv, buf, sizeof(buf))) {
		fprintf(stderr, "%s: %s: dmsetup status failed\n", ewctl_prog, name);
		return -1;
	}
	if (ewctl_status_parse(a, name, buf)) {
		fprintf(stderr, "%s: %s: not an eagerwrite array (status: %s)\n",
			ewctl_prog, name, buf);
		return -1;
	}
	return 0;
}

static void print_text(const struct ewctl_status *a)
{
	unsigned long long d, t, alive = 0, failed = 0, reb = 0;
	const char *st = ewctl_status_field(a, F_STATES);
	unsigned int i;

	for (i = 0; st && st[i]; i++) {
		alive += st[i] == 'A';
		failed += st[i] == 'D';
		reb += st[i] == 'R';
	}
	printf("%s:\n", a->name);
	printf("        Layout : %s, mirrors %s, dilution %s, striping %s, region %s blocks per member\n",
	       ewctl_status_field(a, F_LAYOUT), ewctl_status_field(a, F_MIRRORS), ewctl_status_field(a, F_DILUTION),
	       ewctl_status_field(a, F_STRIPING), ewctl_status_field(a, F_REGION));
	if (a->have_table)
		printf("          Sync : %u of %u replicas durable before a write completes%s\n",
		       a->t.sync, a->t.mirrors,
		       a->t.sync < 2 && a->t.mirrors >= 2 ?
		       " (one member failure can lose recent writes)" : "");
	printf("       Members : %s: %llu alive, %llu failed or missing, %llu rebuilding\n",
	       ewctl_status_field(a, F_MEMBERS), alive, failed, reb);
	printf("  Member state : %s\n", st);
	if (a->have_table) {
		printf("      Metadata : %s\n", strcmp(a->t.metadata_dev, "-") ?
		       a->t.metadata_dev :
		       "on the members (\"-\": copies on every replica of the first column)");
		if (a->t.metadata_mirror)
			printf("Metadata mirror: %s\n", a->t.metadata_mirror);
		for (i = 0; i < a->t.nr_disks; i++)
			printf("     Member %2u : %-12s %s\n", i, a->t.data_devs[i],
			       st && i < strlen(st) ? (st[i] == 'A' ? "alive" :
			       st[i] == 'R' ? "rebuilding" : "failed/missing") : "?");
	}
	printf(" Metadata mode : %s, journal seq %s, %s commits, %s checkpoints",
	       ewctl_status_field(a, F_META), ewctl_status_field(a, F_JSEQ), ewctl_status_field(a, F_COMMITS),
	       ewctl_status_field(a, F_CKPTS));
	if (ewctl_status_field(a, F_JWAITS))
		printf(", %s journal waits", ewctl_status_field(a, F_JWAITS));
	printf("\n");
	printf("       Delayed : %s replicas pending", ewctl_status_field(a, F_PENDING));
	if (a->have_table)
		printf(" (bound %u)", a->t.delay_queue);
	if (ewctl_status_frac(a, F_DPAGES, &d, &t))
		printf("; pages %llu/%llu in use, %s fell back to read-back copies", d, t,
		       ewctl_status_field(a, F_DFALLBACK) ?
		       ewctl_status_field(a, F_DFALLBACK) : "?");
	printf("\n");
	if (ewctl_status_field(a, F_MCOPIES)) {
		const char *mc = ewctl_status_field(a, F_MCOPIES);

		printf("Metadata copies: %s (%zu copies, %zu stale), %s blocks read or rewritten from another copy\n",
		       mc, strlen(mc), strlen(mc) - strspn(mc, "A"),
		       ewctl_status_field(a, F_MREPAIRS) ?
		       ewctl_status_field(a, F_MREPAIRS) : "?");
	}
	if (ewctl_status_frac(a, F_COPIES, &d, &t) && t)
		printf("Journal copies : %llu/%llu slots in use\n", d, t);
	if (ewctl_status_frac(a, F_CKPT, &d, &t) && t)
		printf("    Checkpoint : %llu/%llu map blocks written\n", d, t);
	if (ewctl_status_frac(a, F_RESYNC, &d, &t))
		printf("        Resync : %llu/%llu blocks (%.1f%%)\n", d, t,
		       t ? 100.0 * (double)d / (double)t : 100.0);
	if (ewctl_status_field(a, F_RSTATE)) {
		printf("       Rebuild : %s", ewctl_status_field(a, F_RSTATE));
		if (ewctl_status_frac(a, F_REBUILD, &d, &t) && t) {
			printf(", %llu/%llu blocks (%.1f%%)", d, t,
			       100.0 * (double)d / (double)t);
			if (a->rebuild_bps > 0) {
				unsigned long long left = (unsigned long long)
					((double)(t - d) / a->rebuild_bps);

				printf(", %.0f blocks/s, %llu:%02llu:%02llu left",
				       a->rebuild_bps, left / 3600,
				       left / 60 % 60, left % 60);
			}
		}
		printf(", rate limit %s MiB/s%s\n", ewctl_status_field(a, F_RRATE),
		       ewctl_status_num(a, F_RRATE) ? "" : " (none)");
	}
	if (ewctl_status_field(a, F_LOST))
		printf("        Errors : %s read, %s write, %s repairs, %s owed, %s lost\n",
		       ewctl_status_field(a, F_RERR), ewctl_status_field(a, F_WERR), ewctl_status_field(a, F_REPAIRS),
		       ewctl_status_field(a, F_OWED), ewctl_status_field(a, F_LOST));
	printf("     Predictor : mean error %s ns", ewctl_status_field(a, F_PRED));
	if (ewctl_status_field(a, F_LEAD))
		printf(", placement lead %s ns", ewctl_status_field(a, F_LEAD));
	printf("\n");
	printf("      Counters : %s reads, %s writes, %s foreground and %s background replica writes, %s eager, %s flushes\n",
	       ewctl_status_field(a, F_READS), ewctl_status_field(a, F_WRITES), ewctl_status_field(a, F_FGW),
	       ewctl_status_field(a, F_BGW), ewctl_status_field(a, F_EAGER), ewctl_status_field(a, F_FLUSHES));
	for (i = NR_NAMED; i < a->nf; i++)
		printf("      field_%u : %s\n", i + 1, a->f[i]);
}

static void print_json(const struct ewctl_status *a)
{
	unsigned long long d, t;
	unsigned int i;
	char key[32];

	printf("{\"name\": ");
	ewctl_json_str(stdout, a->name);
	for (i = 0; i < a->nf; i++) {
		const char *s = a->f[i];
		char *end;

		if (i < NR_NAMED)
			snprintf(key, sizeof(key), "%s", status_fields[i]);
		else
			snprintf(key, sizeof(key), "field_%u", i + 1);
		if ((i == F_RESYNC || i == F_REBUILD) && ewctl_status_frac(a, i, &d, &t)) {
			printf(", \"%s\": {\"done\": %llu, \"total\": %llu}", key, d, t);
			continue;
		}
		if (i == F_DPAGES && ewctl_status_frac(a, i, &d, &t)) {
			printf(", \"%s\": {\"used\": %llu, \"pool\": %llu}", key, d, t);
			continue;
		}
		if (i == F_CKPT && ewctl_status_frac(a, i, &d, &t)) {
			printf(", \"%s\": {\"done\": %llu, \"total\": %llu}", key, d, t);
			continue;
		}
		if (i == F_COPIES && ewctl_status_frac(a, i, &d, &t)) {
			printf(", \"%s\": {\"used\": %llu, \"total\": %llu}", key, d, t);
			continue;
		}
		strtod(s, &end);
		printf(", \"%s\": ", key);
		if (*s && !*end && i != F_LAYOUT && i != F_STATES)
			printf("%s", s);
		else
			ewctl_json_str(stdout, s);
	}
	if (a->rebuild_bps >= 0)
		printf(", \"rebuild_blocks_per_s\": %.1f", a->rebuild_bps);
	if (a->have_table) {
		printf(", \"sync\": %u, \"delay_queue\": %u, \"block_size\": %u"
		       ", \"chunk_sectors\": %u, \"metadata_dev\": ",
		       a->t.sync, a->t.delay_queue, a->t.block_size,
		       a->t.chunk_sectors);
		ewctl_json_str(stdout, a->t.metadata_dev);
		printf(", \"devices\": [");
		for (i = 0; i < a->t.nr_disks; i++) {
			if (i)
				printf(", ");
			ewctl_json_str(stdout, a->t.data_devs[i]);
		}
		printf("]");
	}
	printf("}");
}

/* The names of every loaded eagerwrite array. */
int ewctl_status_list(char ***names, unsigned int *nr)
{
	FILE *p = popen("dmsetup status --target eagerwrite 2>/dev/null", "r");
	char line[8192], **v = NULL, **nv, *colon;
	unsigned int n = 0;

	*names = NULL;
	*nr = 0;
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		colon = strstr(line, ": ");
		if (!colon)
			continue;	/* "No devices found" */
		*colon = '\0';
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n] = strdup(line);
		if (!v[n])
			break;
		n++;
	}
	pclose(p);
	*names = v;
	*nr = n;
	return 0;
}

int ewctl_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "input", required_argument, NULL, 'i' },
		{ "no-sample", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct ewctl_status a, b;
	const char *input = NULL;
	bool json = false, sample = true, first = true;
	char **names = NULL;
	unsigned int nr = 0, i;
	int c, rc = EWCTL_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'i':
			input = optarg;
			break;
		case 'S':
			sample = false;
			break;
		case 'h':
			usage(stdout);
			return EWCTL_OK;
		default:
			fprintf(stderr, "Try '%s --help'.\n", argv[0]);
			return EWCTL_USAGE;
		}
	}
	if (input && optind < argc) {
		fprintf(stderr, "%s: --input takes no NAME\n", ewctl_prog);
		return EWCTL_USAGE;
	}
	if (json)
		printf("[");
	if (input) {
		FILE *f = strcmp(input, "-") ? fopen(input, "r") : stdin;
		char line[8192];

		if (!f) {
			fprintf(stderr, "%s: cannot open %s\n", ewctl_prog, input);
			return EWCTL_FAIL;
		}
		while (fgets(line, sizeof(line), f)) {
			memset(&a, 0, sizeof(a));
			a.rebuild_bps = -1;
			if (ewctl_status_parse(&a, NULL, line)) {
				fprintf(stderr, "%s: not an eagerwrite status line: %s",
					ewctl_prog, line);
				rc = EWCTL_FAIL;
				continue;
			}
			if (json)
				printf("%s", first ? "" : ",\n ");
			json ? print_json(&a) : print_text(&a);
			first = false;
		}
		if (f != stdin)
			fclose(f);
		if (json)
			printf("]\n");
		return rc;
	}
	if (optind < argc) {
		names = argv + optind;
		nr = (unsigned int)(argc - optind);
	} else if (ewctl_status_list(&names, &nr)) {
		fprintf(stderr, "%s: cannot run dmsetup\n", ewctl_prog);
		return EWCTL_FAIL;
	}
	for (i = 0; i < nr; i++) {
		unsigned long long d0, t0, d1, t1;

		memset(&a, 0, sizeof(a));
		a.rebuild_bps = -1;
		if (ewctl_status_read(&a, names[i])) {
			rc = EWCTL_FAIL;
			continue;
		}
		ewctl_status_read_table(&a);
		if (sample && ewctl_status_field(&a, F_RSTATE) &&
		    !strcmp(ewctl_status_field(&a, F_RSTATE), "running") &&
		    ewctl_status_frac(&a, F_REBUILD, &d0, &t0)) {
			sleep(1);
			memset(&b, 0, sizeof(b));
			if (!ewctl_status_read(&b, names[i]) &&
			    ewctl_status_frac(&b, F_REBUILD, &d1, &t1) && d1 >= d0)
				a.rebuild_bps = (double)(d1 - d0);
		}
		if (json)
			printf("%s", first ? "" : ",\n ");
		else if (!first)
			printf("\n");
		json ? print_json(&a) : print_text(&a);
		first = false;
	}
	if (json)
		printf("]\n");
	if (optind >= argc) {
		for (i = 0; i < nr; i++)
			free(names[i]);
		free(names);
	}
	return rc;
}
