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
 *      zones and skews the predictor and hddsim use), less the host's
 *      least delay if known (--path-ns: MimdRAID measured and subtracted
 *      its host overhead; nothing here can tell it from the angle).
 * Periodic recalibration (--every): MimdRAID kept the prediction within
 * 1% of a turn by recalibrating every two minutes, each time cheaply.
 * Here each later round is a short burst of reads whose cluster gives one
 * more anchor instant; the whole number of turns since the first anchor
 * is rounded with the current period, and the period refitted over every
 * anchor by least squares.  The gaps widen (at most 4 x the baseline so far, up to
 * --every), so the rounding stays right: a period good to 1/64 of a turn
 * over the baseline B drifts by at most 4/64 of a turn over 4 B.  The
 * period's error then falls as 1/baseline, and the phase is taken from
 * the anchor with the least delay.
 * The seek profile and overheads are not measured here (the core's
 * defaults stand).
 * A whole array (--array): every live rotating member of a loaded table,
 * each in a process of its own (the members are separate spindles), each
 * result applied to its member's model.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ewctl.h"
#include "ewctl_dev.h"
#include "ewctl_status.h"
#include "ew_disk.h"

#define CAL_WINDOW_DIV	64	/* cluster window: R / 64 */
#define CAL_MAX_ROUNDS	100000

struct cal_opts {
	unsigned int count, rounds, burst_n;
	double every;
	unsigned long long sector, guess, path_ns;
	bool json;
};

/* --array: the member index this process calibrates; -1 otherwise. */
static int cal_member = -1;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl calibrate [--count N] [--sector S] [--rotation-ns R]\n"
"                       [--every SECONDS [--rounds K] [--burst M]]\n"
"                       [--path-ns D]\n"
"                       [--json] [--apply DMNAME MEMBER] DEV\n"
"       ewctl calibrate [the same options] --array DMNAME\n"
"\n"
"Learns DEV's rotation period and phase (CLOCK_MONOTONIC ns at which\n"
"angle 0 is under the heads, as in the core's disk model: the last such\n"
"instant of the run) by timing N O_DIRECT reads of one reference sector\n"
"(the logical block starting there: 4 KiB on a 4Kn disk), each issued\n"
"as the previous one completes (MimdRAID's method), and prints\n"
"rotation_ns and phase_ns.\n"
"\n"
"  --count N          reads to time (default 400)\n"
"  --sector S         the reference sector, in 512-byte units, at a\n"
"                     logical block's start (default 0)\n"
"  --rotation-ns R    the nominal period, searched +-1%% (default: the\n"
"                     core's default model, 5,973,121 ns: 10,045 RPM)\n"
"  --every SECONDS    then recalibrate periodically: K more rounds, each\n"
"                     a burst of M reads that refits the period over the\n"
"                     whole run so far; the gaps widen from the first\n"
"                     round's span (at most 4x the run so far) up to\n"
"                     SECONDS.  One line (JSON: one object) per round,\n"
"                     round 0 being the first calibration\n"
"  --rounds K         rounds after the first (default 10)\n"
"  --burst M          reads per later round (default 64, 16..100000)\n"
"  --path-ns D        the host's own completion path (interrupt, wake-up,\n"
"                     return to userspace), subtracted from the phase:\n"
"                     measure it once on a disk whose phase is known\n"
"                     (hddsim) on the same machine (default 0)\n"
"  --json             one JSON object instead of text\n"
"  --apply DMNAME MEMBER\n"
"                     then run dmsetup message DMNAME 0 disk_param MEMBER\n"
"                     rotation_ns R, and ... phase_ns P (MEMBER: index in\n"
"                     the table, or all); with --every, after every round\n"
"  --array DMNAME     every member of the loaded eagerwrite array DMNAME\n"
"                     that is present, not failed and rotational, all at\n"
"                     once (one process each), each applied to its member\n"
"                     as --apply does; lines start \"member I: \" (JSON: a\n"
"                     \"member\" key); members skipped are named on stderr;\n"
"                     with --every, the table is read again every 10 s\n"
"                     and a replaced member's new device is calibrated\n"
"  -h, --help         this help\n"
"\n"
"The disk's geometry is taken to be the core's default model for DEV's\n"
"size (the phase depends on where the sector lies on its track).\n"
"Exit status: 0 calibrated (--array: every member tried, or none to try),\n"
"1 I/O error, no period found, not an eagerwrite array, or a member\n"
"not calibrated, 2 usage.\n");
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

/* The end angle of sector s in the default model of that size, period r. */
static int end_angle_of(struct ew_disk *d, u64 bytes, unsigned long long s,
			u64 r, u64 *angle)
{
	struct ew_disk_params p;
	struct ew_pos pos;

	ew_disk_params_default(&p);
	p.rotation_ns = r;
	p.phase_ns = 0;
	if (ew_disk_init(d, &p, bytes / 512))
		return -1;
	ew_disk_lba_to_pos(d, s, &pos);
	*angle = (ew_disk_sector_angle(d, &pos) + r / pos.spt) % r;
	return 0;
}

/*
 * One read to bring the arm, then m timed reads of the sector: len bytes
 * from it, the device's logical block (O_DIRECT reads no less).
 */
static int burst(int fd, void *buf, unsigned int len,
		 unsigned long long sector, u64 *t, unsigned int m)
{
	unsigned int i;

	if (pread(fd, buf, len, (off_t)sector * 512) != (ssize_t)len)
		return -1;
	for (i = 0; i < m; i++) {
		if (pread(fd, buf, len, (off_t)sector * 512) != (ssize_t)len)
			return -1;
		t[i] = now_ns();
	}
	return 0;
}

static void sleep_until(u64 when)
{
	struct timespec ts = {
		.tv_sec = (time_t)(when / 1000000000ull),
		.tv_nsec = (long)(when % 1000000000ull),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int apply(const char *dm, const char *member, u64 r, u64 phase)
{
	if (run_dmsetup(dm, member, "rotation_ns", r) ||
	    run_dmsetup(dm, member, "phase_ns", phase)) {
		fprintf(stderr, "%s calibrate: dmsetup message %s disk_param %s failed\n",
			ewctl_prog, dm, member);
		return -1;
	}
	return 0;
}

/* The start of a result: the device, and the member with --array. */
static void json_head(const char *dev)
{
	printf("{\"device\":");
	ewctl_json_str(stdout, dev);
	if (cal_member >= 0)
		printf(",\"member\":%d", cal_member);
}

static void text_head(void)
{
	if (cal_member >= 0)
		printf("member %d: ", cal_member);
}

static void print_round(bool json, const char *dev, unsigned int round,
			u64 tnow, u64 gap, unsigned int reads, unsigned int inwin,
			long long turns, double slip, u64 r, u64 phase)
{
	if (json) {
		json_head(dev);
		printf(",\"round\":%u,\"t_ns\":%llu,\"gap_ns\":%llu,\"reads\":%u,"
		       "\"in_window\":%u,\"turns\":%lld,\"slip_ns\":%.0f,"
		       "\"rotation_ns\":%llu,\"phase_ns\":%llu}\n",
		       round, (unsigned long long)tnow, (unsigned long long)gap,
		       reads, inwin, turns, slip, (unsigned long long)r,
		       (unsigned long long)phase);
	} else {
		text_head();
		printf("round %u: %u/%u reads in the window, %lld turns since round 0 (slip %.0f ns), rotation_ns %llu phase_ns %llu\n",
		       round, inwin, reads, turns, slip, (unsigned long long)r,
		       (unsigned long long)phase);
	}
	fflush(stdout);
}

/* Calibrates dev; with apply_dm, hands each result to that member. */
static int cal_device(const struct cal_opts *o, const char *dev,
		      const char *apply_dm, const char *apply_member)
{
	unsigned int count = o->count, rounds = o->rounds, burst_n = o->burst_n;
	unsigned int i, n, in_win, best, iter, round;
	double every = o->every;
	unsigned long long sector = o->sector, guess = o->guess,
			   path_ns = o->path_ns;
	bool json = o->json;
	u64 *t = NULL, *res = NULL, *iv = NULL, r0, r = 0, lead = 0, w, bytes,
	    end_angle, phase;
	double *anch = NULL;
	long long *turns_of = NULL;
	double sx = 0, sy = 0, sxx = 0, sxy = 0, a, b, resid = 0;
	struct ew_disk_params p;
	struct ew_disk *d;
	void *buf = NULL;
	unsigned int lbs;
	int fd, ret = EWCTL_FAIL;

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
	/*
	 * A read of the logical block at the sector (4 KiB on a 4Kn disk)
	 * ends when its last 512-byte sector passes under the head.
	 */
	lbs = ewctl_dev_lbs(fd);
	if (lbs > 65536 || sector % (lbs / 512) ||
	    (sector + lbs / 512) * 512 > bytes) {
		fprintf(stderr, "%s calibrate: %s: sector %llu does not start a logical block of %u bytes inside the device\n",
			ewctl_prog, dev, sector, lbs);
		close(fd);
		return EWCTL_FAIL;
	}
	n = count > burst_n ? count : burst_n;
	t = calloc(n, sizeof(*t));
	res = calloc(2 * (size_t)n, sizeof(*res));
	anch = calloc((size_t)rounds + 1, sizeof(*anch));
	turns_of = calloc((size_t)rounds + 1, sizeof(*turns_of));
	iv = calloc(count, sizeof(*iv));
	d = calloc(1, sizeof(*d));
	if (!t || !res || !iv || !d || !anch || !turns_of ||
	    posix_memalign(&buf, 4096, lbs > 4096 ? lbs : 4096)) {
		fprintf(stderr, "%s calibrate: out of memory\n", ewctl_prog);
		buf = NULL;
		goto close_out;
	}
	if (burst(fd, buf, lbs, sector, t, count))
		goto io_error;
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
		goto close_out;
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
		goto close_out;
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

	/*
	 * The end angle of the block's last sector in the model for this
	 * size and period.
	 */
	if (end_angle_of(d, bytes, sector + lbs / 512 - 1, r, &end_angle)) {
		fprintf(stderr, "%s calibrate: no disk model for %s\n", ewctl_prog, dev);
		goto close_out;
	}
	/* angle(t) = (t - phase) mod R, and angle(a) = end_angle. */
	/*
	 * An instant of angle 0 near the end of the run: an error in R
	 * grows with the distance from it, (t - phase) mod R.
	 */
	phase = (u64)a - path_ns - end_angle;
	phase += (t[n - 1] - phase) / r * r;

	if (every > 0) {
		print_round(json, dev, 0, t[n - 1], 0, n, best, 0, 0, r, phase);
	} else if (json) {
		json_head(dev);
		printf(",\"sector\":%llu,\"read_bytes\":%u,\"reads\":%u,\"in_window\":%u,"
		       "\"rotation_ns\":%llu,\"phase_ns\":%llu,"
		       "\"window_ns\":%llu,\"mean_delay_in_window_ns\":%.0f,"
		       "\"min_interval_ns\":%llu}\n",
		       sector, lbs, n, best, (unsigned long long)r,
		       (unsigned long long)phase, (unsigned long long)w, resid,
		       (unsigned long long)iv[0]);
	} else {
		text_head();
		printf("%s: %u reads of sector %llu (%u bytes), %u within %llu ns of the leading edge\n",
		       dev, n, sector, lbs, best, (unsigned long long)w);
		text_head();
		printf("rotation_ns %llu (%.1f RPM)\n", (unsigned long long)r,
		       60e9 / (double)r);
		text_head();
		printf("phase_ns %llu\n", (unsigned long long)phase);
	}
	if (apply_dm && apply(apply_dm, apply_member, r, phase))
		goto close_out;

	/*
	 * 5. Later rounds (--every): one anchor each, the turns since the
	 * first anchor rounded with the current period, the period refitted
	 * over that baseline, the phase from the earliest projected anchor
	 * (delays only add).
	 */
	if (every > 0) {
		u64 every_ns = (u64)(every * 1e9), t_first = t[0], t_last = t[n - 1];
		double a0 = a;
		unsigned int na = 1;

		anch[0] = a0;
		turns_of[0] = 0;
		for (round = 1; round <= rounds; round++) {
			u64 gap = t_last - t_first, rn;
			double anchor, slip, min_off = 0;
			long long kt;
			unsigned int c, j;

			gap = 4 * gap < every_ns ? 4 * gap : every_ns;
			sleep_until(t_last + gap);
			if (burst(fd, buf, lbs, sector, t, burst_n))
				goto io_error;
			t_last = t[burst_n - 1];
			c = densest(t, burst_n, r, r / CAL_WINDOW_DIV, res, &lead);
			anchor = (double)t[0] + (double)lead;
			kt = llround((anchor - a0) / (double)r);
			slip = anchor - a0 - (double)kt * (double)r;
			/* Too few reads line up, or the rounding is unsafe: keep. */
			if (c < 4 || kt <= 0 || fabs(slip) > (double)r / 4) {
				print_round(json, dev, round, t_last, gap, burst_n, c,
					    kt, slip, r, phase);
				continue;
			}
			anch[na] = anchor;
			turns_of[na++] = kt;
			/*
			 * Least squares over every anchor (centred: the sums
			 * of raw products would overflow a double's 53 bits),
			 * then the line moved down to the earliest anchor:
			 * every anchor is late by its own delay, the least
			 * late one is the best estimate of the angle.
			 */
			{
				long double mk = 0, my = 0, sxx = 0, sxy = 0, ic;

				for (j = 0; j < na; j++) {
					mk += turns_of[j];
					my += anch[j] - a0;
				}
				mk /= na;
				my /= na;
				for (j = 0; j < na; j++) {
					long double dk = turns_of[j] - mk;

					sxx += dk * dk;
					sxy += dk * (anch[j] - a0 - my);
				}
				rn = (u64)llroundl(sxy / sxx);
				ic = my - (long double)rn * mk;
				min_off = (double)ic;
				for (j = 0; j < na; j++) {
					double off = (double)((long double)anch[j] - a0 -
							      (long double)turns_of[j] * rn);

					if (off < min_off)
						min_off = off;
				}
			}
			r = rn;
			if (end_angle_of(d, bytes, sector + lbs / 512 - 1, r, &end_angle)) {
				fprintf(stderr, "%s calibrate: no disk model for %s\n", ewctl_prog, dev);
				goto close_out;
			}
			phase = (u64)llround(a0 + min_off) - path_ns - end_angle;
			phase += (t_last - phase) / r * r;
			print_round(json, dev, round, t_last, gap, burst_n, c, kt,
				    slip, r, phase);
			if (apply_dm && apply(apply_dm, apply_member, r, phase))
				goto close_out;
		}
	}
	ret = EWCTL_OK;
	goto close_out;

io_error:
	fprintf(stderr, "%s calibrate: reading %s: %s\n", ewctl_prog, dev,
		errno ? strerror(errno) : "short read");
close_out:
	close(fd);
	free(anch);
	free(turns_of);
	free(t);
	free(res);
	free(iv);
	free(d);
	free(buf);
	return ret;
}

/*
 * --array: every present, live, rotational member of the loaded array
 * name, each calibrated by a child process of its own and applied to its
 * member.  A member missing ("-"), failed or non-rotational is named on
 * stderr and skipped; one whose calibration fails makes the exit status 1
 * once every other is done.  With --every the children run for their
 * rounds while the parent reads the table again every CAL_POLL_S seconds
 * (at most --every): a member whose device changed (replaced), or that
 * failed, has its child stopped, and a new device is calibrated by a new
 * child, so a long-running recalibration follows member replacements.
 */
#define CAL_POLL_S	10.0

struct cal_slot {
	pid_t pid;		/* its calibrating child, or 0 */
	char key[40];		/* what was decided for: "-", "D" or M:m */
	char path[256];		/* the device the child reads */
};

/* Stops slot s's child, if any; true if there was one. */
static bool cal_stop(struct cal_slot *s)
{
	int wst;

	if (!s->pid)
		return false;
	kill(s->pid, SIGTERM);
	waitpid(s->pid, &wst, 0);
	s->pid = 0;
	return true;
}

/*
 * Member i as the table and status st say now: starts its child when
 * what it is changed (and stops the old one).  Returns 1 if a child was
 * started, -1 if the member could not be started, 0 otherwise.
 */
static int cal_member_update(const struct cal_opts *o, const char *name,
			     const struct ewctl_status *st, u32 i,
			     struct cal_slot *s, bool first)
{
	const char *states = ewctl_status_field(st, F_STATES);
	const char *dv = st->t.data_devs[i], *key = dv;
	char member[16];
	pid_t parent;

	if (ew_table_dev_missing(&st->t, i))
		key = "-";
	else if (states && i < strlen(states) && states[i] == 'D')
		key = "D";
	if (!strcmp(key, s->key))
		return 0;		/* decided already */
	if (cal_stop(s))
		fprintf(stderr, "%s calibrate: %s: member %u is no longer %s: its calibration stopped\n",
			ewctl_prog, name, i, s->path);
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->path[0] = '\0';
	if (!strcmp(key, "-")) {
		fprintf(stderr, "%s calibrate: %s: member %u is missing (-): skipped\n",
			ewctl_prog, name, i);
		return 0;
	}
	if (!strcmp(key, "D")) {
		fprintf(stderr, "%s calibrate: %s: member %u (%s) has failed: skipped\n",
			ewctl_prog, name, i, dv);
		return 0;
	}
	if (ewctl_dev_by_devno(dv, s->path, sizeof(s->path)))
		return -1;
	if (ewctl_dev_rotational(dv) == 0) {
		fprintf(stderr, "%s calibrate: %s: member %u (%s) is not rotational: skipped\n",
			ewctl_prog, name, i, s->path);
		return 0;
	}
	if (!first)
		fprintf(stderr, "%s calibrate: %s: member %u is now %s: calibrating it\n",
			ewctl_prog, name, i, s->path);
	snprintf(member, sizeof(member), "%u", i);
	parent = getpid();
	fflush(stdout);		/* nothing buffered twice by the children */
	fflush(stderr);
	s->pid = fork();
	if (s->pid < 0) {
		fprintf(stderr, "%s calibrate: fork: %s\n", ewctl_prog,
			strerror(errno));
		s->pid = 0;
		return -1;
	}
	if (s->pid == 0) {
		int rc;

		/* not left reading and applying if the parent is killed */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(EWCTL_FAIL);
		cal_member = (int)i;
		rc = cal_device(o, s->path, name, member);
		fflush(stdout);
		_exit(rc);
	}
	return 1;
}

/* Reaps slot s's child if it ended (or waits for it); true if it failed. */
static bool cal_reap(const char *name, u32 i, struct cal_slot *s, bool wait)
{
	int wst;
	pid_t r;

	if (!s->pid)
		return false;
	r = waitpid(s->pid, &wst, wait ? 0 : WNOHANG);
	if (r == 0)
		return false;		/* still running */
	s->pid = 0;
	if (r > 0 && WIFEXITED(wst) && WEXITSTATUS(wst) == EWCTL_OK)
		return false;
	fprintf(stderr, "%s calibrate: %s: member %u (%s) not calibrated: its model is unchanged\n",
		ewctl_prog, name, i, s->path);
	return true;
}

static int cal_array(const struct cal_opts *o, const char *name)
{
	u64 poll_ns = (u64)((o->every < CAL_POLL_S ? o->every : CAL_POLL_S) * 1e9);
	struct cal_slot *slot;
	struct ewctl_status *st;
	unsigned int i, nr = 0, started = 0, failed = 0, running;
	bool first = true;
	int ret = EWCTL_FAIL, r;

	st = calloc(1, sizeof(*st));
	slot = calloc(EW_MAX_DISKS, sizeof(*slot));
	if (!st || !slot) {
		fprintf(stderr, "%s calibrate: out of memory\n", ewctl_prog);
		goto out;
	}
	for (;;) {
		memset(st, 0, sizeof(*st));
		snprintf(st->name, sizeof(st->name), "%s", name);
		if (ewctl_status_read(st, name) || ewctl_status_read_table(st)) {
			fprintf(stderr, "%s calibrate: %s: its status or table cannot be read%s\n",
				ewctl_prog, name, first ? "" : ": calibration stops");
			if (first)
				goto out;
			for (i = 0; i < nr; i++)
				cal_stop(&slot[i]);
			failed++;
			break;
		}
		nr = st->t.nr_disks;
		running = 0;
		for (i = 0; i < nr; i++) {
			r = cal_member_update(o, name, st, i, &slot[i], first);
			started += r > 0;
			failed += r < 0;
			running += slot[i].pid != 0;
		}
		first = false;
		if (!running)
			break;
		if (o->every <= 0) {
			/* one calibration each: wait for them all */
			for (i = 0; i < nr; i++)
				failed += cal_reap(name, i, &slot[i], true);
			break;
		}
		sleep_until(now_ns() + poll_ns);
		for (i = 0; i < nr; i++)
			failed += cal_reap(name, i, &slot[i], false);
	}
	if (!started && !failed)
		fprintf(stderr, "%s calibrate: %s: no rotating member to calibrate\n",
			ewctl_prog, name);
	ret = failed ? EWCTL_FAIL : EWCTL_OK;
out:
	free(st);
	free(slot);
	return ret;
}

int ewctl_calibrate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "sector", required_argument, NULL, 's' },
		{ "rotation-ns", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "apply", required_argument, NULL, 'a' },
		{ "array", required_argument, NULL, 'A' },
		{ "every", required_argument, NULL, 'e' },
		{ "rounds", required_argument, NULL, 'k' },
		{ "burst", required_argument, NULL, 'm' },
		{ "path-ns", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned int count = 400, rounds = 10, burst_n = 64;
	double every = 0;
	unsigned long long sector = 0, guess = 0, path_ns = 0;
	const char *apply_dm = NULL, *apply_member = NULL, *array = NULL;
	struct cal_opts o;
	bool json = false;
	char *end;
	int opt;

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
		case 'e':
			every = strtod(optarg, &end);
			if (*end || !(every >= 0.01 && every <= 86400)) {
				fprintf(stderr, "%s calibrate: --every: 0.01..86400 seconds\n", ewctl_prog);
				return EWCTL_USAGE;
			}
			break;
		case 'k':
			rounds = strtoul(optarg, &end, 10);
			if (*end || rounds < 1 || rounds > CAL_MAX_ROUNDS) {
				fprintf(stderr, "%s calibrate: --rounds: 1..%u\n", ewctl_prog, CAL_MAX_ROUNDS);
				return EWCTL_USAGE;
			}
			break;
		case 'm':
			burst_n = strtoul(optarg, &end, 10);
			if (*end || burst_n < 16 || burst_n > 100000) {
				fprintf(stderr, "%s calibrate: --burst: 16..100000\n", ewctl_prog);
				return EWCTL_USAGE;
			}
			break;
		case 'p':
			path_ns = strtoull(optarg, &end, 10);
			if (*end || path_ns > 100000000) {
				fprintf(stderr, "%s calibrate: --path-ns: 0..100000000\n", ewctl_prog);
				return EWCTL_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'A':
			array = optarg;
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
	if (array && apply_dm) {
		fprintf(stderr, "%s calibrate: --array applies every member's result itself: no --apply\n",
			ewctl_prog);
		return EWCTL_USAGE;
	}
	if (optind != argc - (array ? 0 : 1)) {
		usage(stderr);
		return EWCTL_USAGE;
	}
	o = (struct cal_opts){
		.count = count, .rounds = rounds, .burst_n = burst_n,
		.every = every, .sector = sector, .guess = guess,
		.path_ns = path_ns, .json = json,
	};
	if (array)
		return cal_array(&o, array);
	return cal_device(&o, argv[optind], apply_dm, apply_member);
}
