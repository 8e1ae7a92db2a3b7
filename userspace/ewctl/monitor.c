// SPDX-License-Identifier: GPL-2.0-only
/*
 * monitor.c - "ewctl monitor": waits for the device-mapper events of
 * eagerwrite arrays (the target raises one when a member fails, a rebuild
 * starts, pauses, resumes or ends, a block is lost or the metadata turns
 * read-only), compares the status before and after, and prints one line
 * per change, running --program for each, as mdadm --monitor does.  One
 * child process per array, each blocked in DM_DEV_WAIT.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "ewctl_status.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl monitor [--program PROG] [--interval S] [--oneshot] [NAME...]\n"
"\n"
"Watches eagerwrite arrays (the NAMEs given, or every one loaded when it\n"
"starts) and prints a line per event:\n"
"  TIME NAME EVENT [DETAIL]\n"
"EVENT is one of Fail (a member failed; DETAIL: its index), RebuildStarted,\n"
"RebuildFinished (DETAIL: the member), RebuildPaused, RebuildResumed,\n"
"LostBlocks (DETAIL: how many now), MetadataReadOnly, DegradedArray\n"
"(at start or with --oneshot: DETAIL the failed members), DeviceDisappeared.\n"
"It waits on device-mapper's events (as \"dmsetup wait\"), which the target\n"
"raises for each of these; --interval S also looks every S seconds.\n"
"\n"
"  --program PROG  run PROG EVENT NAME [DETAIL] for each event (its exit\n"
"                  status is ignored; it runs while monitoring waits)\n"
"  --interval S    look at the status every S seconds too (default: only\n"
"                  on events)\n"
"  --oneshot       report what is wrong now (DegradedArray, LostBlocks,\n"
"                  MetadataReadOnly, a rebuild running) and exit\n"
"  -h, --help      this help\n"
"\n"
"Exit status: 0 (monitoring ends only on SIGINT/SIGTERM, or when every\n"
"array is gone), 1 no array to watch, 2 usage error.\n");
}

static const char *program;

static void emit(const char *name, const char *event, const char *detail)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("%s %s %s%s%s\n", ts, name, event, detail ? " " : "",
	       detail ? detail : "");
	fflush(stdout);
	if (program) {
		pid_t pid = fork();

		if (!pid) {
			execlp(program, program, event, name, detail,
			       (char *)NULL);
			fprintf(stderr, "%s: cannot run %s: %s\n", ewctl_prog,
				program, strerror(errno));
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

/* What is wrong in one status: at start and with --oneshot. */
static void report(const struct ewctl_status *a)
{
	const char *st = ewctl_status_field(a, F_STATES);
	const char *rs = ewctl_status_field(a, F_RSTATE);
	char failed[512] = "";
	size_t n = 0;
	unsigned int i;

	for (i = 0; st && st[i] && n + 8 < sizeof(failed); i++)
		if (st[i] == 'D')
			n += (size_t)snprintf(failed + n, sizeof(failed) - n,
					      "%s%u", n ? "," : "", i);
	if (n)
		emit(a->name, "DegradedArray", failed);
	if (ewctl_status_num(a, F_LOST)) {
		char d[32];

		snprintf(d, sizeof(d), "%llu", ewctl_status_num(a, F_LOST));
		emit(a->name, "LostBlocks", d);
	}
	if (ewctl_status_field(a, F_META) &&
	    strcmp(ewctl_status_field(a, F_META), "ok"))
		emit(a->name, "MetadataReadOnly", NULL);
	if (rs && !strcmp(rs, "running"))
		emit(a->name, "RebuildRunning", NULL);
}

/* The events between two statuses of one array. */
static void diff(const struct ewctl_status *o, const struct ewctl_status *a)
{
	const char *s0 = ewctl_status_field(o, F_STATES);
	const char *s1 = ewctl_status_field(a, F_STATES);
	const char *r0 = ewctl_status_field(o, F_RSTATE);
	const char *r1 = ewctl_status_field(a, F_RSTATE);
	const char *m0 = ewctl_status_field(o, F_META);
	const char *m1 = ewctl_status_field(a, F_META);
	char d[32];
	unsigned int i;

	for (i = 0; s0 && s1 && s0[i] && s1[i]; i++) {
		if (s0[i] == s1[i])
			continue;
		snprintf(d, sizeof(d), "%u", i);
		if (s1[i] == 'D') {
			emit(a->name, "Fail", d);
		} else if (s1[i] == 'R') {
			emit(a->name, "RebuildStarted", d);
		} else if (s0[i] == 'R' && s1[i] == 'A') {
			emit(a->name, "RebuildFinished", d);
		} else if (s0[i] == 'D' && s1[i] == 'A') {
			/*
			 * Replaced and rebuilt between two looks: events are
			 * counted, not queued, so a slow monitor wakes once for
			 * both (a small rebuild ends within milliseconds).
			 */
			emit(a->name, "RebuildStarted", d);
			emit(a->name, "RebuildFinished", d);
		}
	}
	if (r0 && r1 && strcmp(r0, r1)) {
		if (!strcmp(r1, "paused"))
			emit(a->name, "RebuildPaused", NULL);
		else if (!strcmp(r0, "paused") && !strcmp(r1, "running"))
			emit(a->name, "RebuildResumed", NULL);
	}
	if (ewctl_status_num(a, F_LOST) > ewctl_status_num(o, F_LOST)) {
		snprintf(d, sizeof(d), "%llu", ewctl_status_num(a, F_LOST));
		emit(a->name, "LostBlocks", d);
	}
	if (m0 && m1 && !strcmp(m0, "ok") && strcmp(m1, "ok"))
		emit(a->name, "MetadataReadOnly", NULL);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* One array, in a child: never returns. */
static void watch(const char *name, unsigned int interval)
{
	static struct ewctl_status s[2];
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	unsigned int cur = 0;
	uint32_t nr;
	int err;

	signal(SIGINT, SIG_DFL);	/* the parent's handler is for it */
	signal(SIGTERM, SIG_DFL);
	sigaction(SIGALRM, &sa, NULL);
	if (ewctl_dm_event_nr(name, &nr) || ewctl_status_read(&s[cur], name))
		_exit(1);
	report(&s[cur]);
	for (;;) {
		if (interval)
			alarm(interval);
		err = ewctl_dm_wait(name, &nr);
		alarm(0);
		/* removed (the removal is an event too): say so quietly */
		if ((err && err != -EINTR) || ewctl_dm_event_nr(name, &nr)) {
			emit(name, "DeviceDisappeared", NULL);
			_exit(0);
		}
		if (ewctl_status_read(&s[!cur], name)) {
			emit(name, "DeviceDisappeared", NULL);
			_exit(0);
		}
		diff(&s[cur], &s[!cur]);
		cur = !cur;
	}
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

int ewctl_monitor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "program", required_argument, NULL, 'p' },
		{ "interval", required_argument, NULL, 'i' },
		{ "oneshot", no_argument, NULL, '1' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct ewctl_status a;
	struct sigaction sa = { .sa_handler = on_stop };
	unsigned int interval = 0, nr = 0, i, live = 0;
	bool oneshot = false, listed = false;
	char **names = NULL, *end;
	pid_t *pids;
	int c, rc = EWCTL_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			program = optarg;
			break;
		case 'i':
			interval = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !*optarg || !interval || interval > 86400) {
				fprintf(stderr, "%s: --interval: 1..86400 seconds, not '%s'\n",
					ewctl_prog, optarg);
				return EWCTL_USAGE;
			}
			break;
		case '1':
			oneshot = true;
			break;
		case 'h':
			usage(stdout);
			return EWCTL_OK;
		default:
			fprintf(stderr, "Try '%s --help'.\n", argv[0]);
			return EWCTL_USAGE;
		}
	}
	if (optind < argc) {
		names = argv + optind;
		nr = (unsigned int)(argc - optind);
	} else {
		if (ewctl_status_list(&names, &nr)) {
			fprintf(stderr, "%s: cannot run dmsetup\n", ewctl_prog);
			return EWCTL_FAIL;
		}
		listed = true;
	}
	if (!nr) {
		fprintf(stderr, "%s: no eagerwrite array to watch\n", ewctl_prog);
		return EWCTL_FAIL;
	}
	/* Every array must be one before anything is watched. */
	for (i = 0; i < nr; i++) {
		if (ewctl_status_read(&a, names[i])) {
			rc = EWCTL_FAIL;
			goto out;
		}
		if (oneshot)
			report(&a);
	}
	if (oneshot)
		goto out;
	pids = calloc(nr, sizeof(*pids));
	if (!pids) {
		rc = EWCTL_FAIL;
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < nr; i++) {
		pids[i] = fork();
		if (!pids[i])
			watch(names[i], interval);
		if (pids[i] > 0)
			live++;
	}
	while (live && !stop) {
		if (wait(NULL) > 0)
			live--;
	}
	for (i = 0; i < nr; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGTERM);
	while (wait(NULL) > 0)
		;
	free(pids);
out:
	if (listed) {
		for (i = 0; i < nr; i++)
			free(names[i]);
		free(names);
	}
	return rc;
}
