// SPDX-License-Identifier: GPL-2.0-only
/*
 * calibrate.c - "ewctl calibrate": learns a member's rotation period and
 * rotational phase in the manner of MimdRAID (Yu et al., OSDI 2000), by
 * timing O_DIRECT reads of one reference sector, and optionally hands
 * them to an eagerwrite array's predictor ("disk_param" messages).
 *
 * Why it works: a read of a fixed sector completes when that sector's
 * end passes under the head, so every completion time is the same angle:
 * t_k = phase + angle_end + n_k * rotation + delay_k, where delay_k >= 0
 * is the host's own path (interrupt, wake-up, return to userspace).  The
 * interval between two reads is a whole number of rotations plus the
 * difference of two delays.  So:
 *   1. the nominal period R0 (--rotation-ns, else the core's default
 *      model's: the data sheet's RPM);
 *   2. a search of R within 1% of R0: the period that gathers the most
 *      completion times (mod R) into a window of R/64 (the true period
 *      lines up every low-delay sample; a wrong one smears them);
 *   3. a least-squares fit of t_k = a + n_k * R over the samples in that
 *      window, which refines R over the whole run;
 *   4. the phase from the window's leading edge (delays only add, so the
 *      earliest samples of the cluster have the least delay), less the
 *      reference sector's end angle in the core's disk model (the same
 *      zones and skews the predictor and hddsim use).
 * The seek profile and overheads are not measured here (the core's
 * defaults stand).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ewctl.h"
#include "ew_disk.h"

#define CAL_WINDOW_DIV	64	/* cluster window: R / 64 */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl calibrate [--count N] [--sector S] [--rotation-ns R]\n"
"                       [--json] [--apply DMNAME MEMBER] DEV\n"
"\n"
"Learns DEV's rotation period and phase (CLOCK_MONOTONIC ns at which\n"
"angle 0 is under the heads, as in the core's disk model: the last such\n"
"instant of the run) by timing N O_DIRECT reads of one 512-byte sector,\n"
"each issued as the previous one completes (MimdRAID's method), and\n"
"prints rotation_ns and phase_ns.\n"
"\n"
"  --count N          reads to time (default 400)\n"
"  --sector S         the reference sector (default 0)\n"
"  --rotation-ns R    the nominal period, searched +-1%% (default: the\n"
"                     core's default model, 5,973,121 ns: 10,045 RPM)\n"
"  --json             one JSON object instead of text\n"
"  --apply DMNAME MEMBER\n"
"                     then run dmsetup message DMNAME 0 disk_param MEMBER\n"
"                     rotation_ns R, and ... phase_ns P (MEMBER: index in\n"
"                     the table, or all)\n"
"  -h, --help         this help\n"
"\n"
"The disk's geometry is taken to be the core's default model for DEV's\n"
"size (the phase depends on where the sector lies on its track).\n"
"Exit status: 0 calibrated, 1 I/O error or no period found, 2 usage.\n");
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The window of width w (mod r) holding the most samples: returns the
 * count and sets *lead to the residue of its first sample.  res is
 * scratch of n + n entries.
 */
static unsigned int densest(const u64 *t, unsigned int n, u64 r, u64 w,
			    u64 *res, u64 *lead)
{
	unsigned int i, j = 0, best = 0;

	for (i = 0; i < n; i++)
		res[i] = (t[i] - t[0]) % r;
	qsort(res, n, sizeof(*res), cmp_u64);
	for (i = 0; i < n; i++)		/* unrolled circle */
		res[n + i] = res[i] + r;
	for (i = 0; i < n; i++) {
		if (j < i)
			j = i;
		while (j < i + n && res[j] < res[i] + w)
			j++;
		if (j - i > best) {
			best = j - i;
			*lead = res[i];
		}
	}
	return best;
}

static unsigned int search(const u64 *t, unsigned int n, u64 lo, u64 hi,
			   u64 step, u64 *res, u64 *best_r, u64 *lead)
{
	unsigned int c, best = 0;
	u64 r, l;

	for (r = lo; r <= hi; r += step) {
		c = densest(t, n, r, r / CAL_WINDOW_DIV, res, &l);
		if (c > best) {
			best = c;
			*best_r = r;
			*lead = l;
		}
	}
	return best;
}

static int run_dmsetup(const char *dm, const char *member, const char *key,
		       u64 val)
{
	char v[32];
	pid_t pid;
	int st;

	snprintf(v, sizeof(v), "%llu", (unsigned long long)val);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execlp("dmsetup", "dmsetup", "message", dm, "0", "disk_param",
		       member, key, v, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

int ewctl_calibrate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "sector", required_argument, NULL, 's' },
		{ "rotation-ns", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "apply", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned int count = 400, i, n, in_win, best, iter;
	unsigned long long sector = 0, guess = 0;
	const char *dev, *apply_dm = NULL, *apply_member = NULL;
	u64 *t, *res, *iv, r0, r = 0, lead = 0, w, bytes, end_angle, phase;
	double sx = 0, sy = 0, sxx = 0, sxy = 0, a, b, resid = 0;
	struct ew_disk_params p;
	struct ew_disk *d;
	struct ew_pos pos;
	bool json = false;
	void *buf = NULL;
	int opt, fd, ret = EWCTL_FAIL;
	char *end;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			count = strtoul(optarg, &end, 10);
			if (*end || count < 16 || count > 1000000) {
				fprintf(stderr, "%s calibrate: --count: 16..1000000\n", ewctl_prog);
				return EWCTL_USAGE;
			}
			break;
		case 's':
			sector = strtoull(optarg, &end, 10);
			if (*end) {
				fprintf(stderr, "%s calibrate: --sector: a number\n", ewctl_prog);
				return EWCTL_USAGE;
			}
			break;
		case 'r':
			guess = strtoull(optarg, &end, 10);
			if (*end || guess < 1000000 || guess > 1000000000) {
				fprintf(stderr, "%s calibrate: --rotation-ns: 1 ms to 1 s\n", ewctl_prog);
				return EWCTL_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'a':
			apply_dm = optarg;
			if (optind >= argc) {
				fprintf(stderr, "%s calibrate: --apply DMNAME MEMBER\n", ewctl_prog);
				return EWCTL_USAGE;
			}
			apply_member = argv[optind++];
			break;
		case 'h':
			usage(stdout);
			return EWCTL_OK;
		default:
			usage(stderr);
			return EWCTL_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return EWCTL_USAGE;
	}
	dev = argv[optind];
	if (ewctl_dev_bytes(dev, &bytes))
		return EWCTL_FAIL;
	if ((sector + 1) * 512 > bytes) {
		fprintf(stderr, "%s calibrate: sector %llu is past the end of %s\n",
			ewctl_prog, sector, dev);
		return EWCTL_FAIL;
	}
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "%s calibrate: %s: %s\n", ewctl_prog, dev, strerror(errno));
		return EWCTL_FAIL;
	}
	t = calloc(count, sizeof(*t));
	res = calloc(2 * (size_t)count, sizeof(*res));
	iv = calloc(count, sizeof(*iv));
	d = calloc(1, sizeof(*d));
	if (!t || !res || !iv || !d || posix_memalign(&buf, 4096, 4096)) {
		fprintf(stderr, "%s calibrate: out of memory\n", ewctl_prog);
		buf = NULL;
		close(fd);
		goto out;
	}
	/* One read first: the arm comes to the reference track. */
	if (pread(fd, buf, 512, (off_t)sector * 512) != 512)
		goto io_error;
	for (i = 0; i < count; i++) {
		if (pread(fd, buf, 512, (off_t)sector * 512) != 512)
			goto io_error;
		t[i] = now_ns();
	}
	close(fd);
	n = count;

	/*
	 * 1. R0: the guess, else the nominal period of the core's default
	 * model (as MimdRAID starts from the data sheet's RPM).
	 * 2. Search R0 +- 1% in steps small enough that the run's whole span
	 * drifts by at most a quarter of the window.
	 */
	for (i = 1; i < n; i++)
		iv[i - 1] = t[i] - t[i - 1];
	qsort(iv, n - 1, sizeof(*iv), cmp_u64);
	ew_disk_params_default(&p);
	r0 = guess ? guess : p.rotation_ns;
	/* A disk rereading one sector waits about a turn each time. */
	if (iv[(n - 1) / 2] < r0 / 2) {
		fprintf(stderr, "%s calibrate: %s: reads complete in %llu ns (median), under half a turn: no rotation to learn (a cache, or no mechanics)\n",
			ewctl_prog, dev, (unsigned long long)iv[(n - 1) / 2]);
		goto out;
	}
	{
		u64 turns = (t[n - 1] - t[0]) / r0 + 1;
		u64 step = r0 / CAL_WINDOW_DIV / (4 * turns);
		u64 lo = r0 - r0 / 100, hi = r0 + r0 / 100;

		if (step < (hi - lo) / 20000)
			step = (hi - lo) / 20000;
		if (!step)
			step = 1;
		best = search(t, n, lo, hi, step, res, &r, &lead);
	}
	if (best < 4) {
		fprintf(stderr, "%s calibrate: %s: no period found (%u reads line up)\n",
			ewctl_prog, dev, best);
		goto out;
	}

	/*
	 * 3. Fit t_k - t_0 = a + k * R over the samples in the window (k:
	 * whole turns from the leading edge); the delays inside the window
	 * only shift a.
	 */
	for (iter = 0; iter < 4; iter++) {
		w = r / CAL_WINDOW_DIV;
		in_win = 0;
		sx = sy = sxx = sxy = 0;
		for (i = 0; i < n; i++) {
			s64 dr = (s64)(t[i] - t[0]) - (s64)lead;
			s64 x = ((dr % (s64)r) + (s64)r) % (s64)r;
			double k, y = (double)(t[i] - t[0]);

			if (x >= (s64)w)
				continue;
			k = (double)((dr - x) / (s64)r);
			sx += k;
			sy += y;
			sxx += k * k;
			sxy += k * y;
			in_win++;
		}
		if (in_win < 8 || sxx * in_win - sx * sx <= 0)
			break;
		b = (in_win * sxy - sx * sy) / (in_win * sxx - sx * sx);
		if (fabs(b - (double)r) >= (double)r / 1000 ||
		    (u64)llround(b) == r)
			break;
		/* The cluster again with the refined period, then refit. */
		r = (u64)llround(b);
		densest(t, n, r, r / CAL_WINDOW_DIV, res, &lead);
	}
	/* 4. The leading edge of the cluster with the refined period. */
	best = densest(t, n, r, r / CAL_WINDOW_DIV, res, &lead);
	a = (double)t[0] + (double)lead;	/* a completion instant */
	for (i = 0; i < n; i++) {
		double x = fmod((double)t[i] - a, (double)r);

		if (x < 0)
			x += r;
		if (x < (double)w)
			resid += x;
	}
	resid = best ? resid / best : 0;

	/* The sector's end angle in the model for this size and period. */
	ew_disk_params_default(&p);
	p.rotation_ns = r;
	p.phase_ns = 0;
	if (ew_disk_init(d, &p, bytes / 512)) {
		fprintf(stderr, "%s calibrate: no disk model for %s\n", ewctl_prog, dev);
		goto out;
	}
	ew_disk_lba_to_pos(d, sector, &pos);
	end_angle = (ew_disk_sector_angle(d, &pos) + r / pos.spt) % r;
	/* angle(t) = (t - phase) mod R, and angle(a) = end_angle. */
	/*
	 * An instant of angle 0 near the end of the run: an error in R
	 * grows with the distance from it, (t - phase) mod R.
	 */
	phase = (u64)a - end_angle;
	phase += (t[n - 1] - phase) / r * r;

	if (json) {
		printf("{\"device\":");
		ewctl_json_str(stdout, dev);
		printf(",\"sector\":%llu,\"reads\":%u,\"in_window\":%u,"
		       "\"rotation_ns\":%llu,\"phase_ns\":%llu,"
		       "\"window_ns\":%llu,\"mean_delay_in_window_ns\":%.0f,"
		       "\"min_interval_ns\":%llu}\n",
		       sector, n, best, (unsigned long long)r,
		       (unsigned long long)phase, (unsigned long long)w, resid,
		       (unsigned long long)iv[0]);
	} else {
		printf("%s: %u reads of sector %llu, %u within %llu ns of the leading edge\n",
		       dev, n, sector, best, (unsigned long long)w);
		printf("rotation_ns %llu (%.1f RPM)\nphase_ns %llu\n",
		       (unsigned long long)r, 60e9 / (double)r,
		       (unsigned long long)phase);
	}
	if (apply_dm) {
		if (run_dmsetup(apply_dm, apply_member, "rotation_ns", r) ||
		    run_dmsetup(apply_dm, apply_member, "phase_ns", phase)) {
			fprintf(stderr, "%s calibrate: dmsetup message %s disk_param %s failed\n",
				ewctl_prog, apply_dm, apply_member);
			goto out;
		}
	}
	ret = EWCTL_OK;
	goto out;

io_error:
	fprintf(stderr, "%s calibrate: reading %s: %s\n", ewctl_prog, dev,
		errno ? strerror(errno) : "short read");
	close(fd);
out:
	free(t);
	free(res);
	free(iv);
	free(d);
	free(buf);
	return ret;
}
