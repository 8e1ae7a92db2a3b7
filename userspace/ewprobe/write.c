// SPDX-License-Identifier: GPL-2.0-only
/*
 * write.c - `ewprobe write`: the half of the power-cut test that runs on
 * the machine whose power is cut, in the manner of diskchecker.pl.
 *
 * One thread, one write at a time: log the intent (and wait until it has
 * left), write a probe block to a random address, fdatasync, log the
 * acknowledgement.  After the cut, every acknowledged block must hold that
 * write or a later one whose intent was logged; `verify` checks it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ewprobe.h"

static const char write_usage[] =
"usage: ewprobe write --log CHANNEL [--seconds S] [--count N]\n"
"                     [--stop-after N] [--block-size B] [--blocks N]\n"
"                     [--seed X] [--force] PATH\n"
"\n"
"Write probe blocks (magic, sequence number, own address, write id, seed,\n"
"checksum over the whole block, deterministic pseudo-random payload) to\n"
"random blocks of PATH, one at a time, each followed by fdatasync.  Before\n"
"each write an intent record and after the sync an ack record go to\n"
"CHANNEL; cut the power while this runs, then run `ewprobe verify`.\n"
"\n"
"  --log CHANNEL     tcp:HOST:PORT (an `ewprobe listen`, which confirms each\n"
"                    line), a tty such as /dev/ttyS1 (raw mode, tcdrain after\n"
"                    each line), another character device, or a regular file\n"
"                    (appended to, fsync after each line)\n"
"  --seconds S       stop after S seconds (default 10 unless --count is given)\n"
"  --count N         stop after N acknowledged writes\n"
"  --stop-after N    once N writes are acknowledged (their ack records sent),\n"
"                    stop the process itself (SIGSTOP) before the next write;\n"
"                    SIGCONT goes on: a test acts at an exact point of the run\n"
"  --block-size B    bytes per block, multiple of 512 (default 4096)\n"
"  --blocks N        blocks to choose from (default: the whole device or\n"
"                    file; 1024 for a new or empty file)\n"
"  --seed X          seed of the block choice and the payload (default random)\n"
"  --force           write even though PATH holds data\n"
"\n"
"SIGINT or SIGTERM stops it cleanly.  Record format: Documentation/ewprobe.rst.\n"
"Exit: 0 done, 2 usage or refused, 3 I/O error (channel or target).\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int send_rec(struct ewp_channel *ch, enum ewp_rec_type type, uint64_t a,
		    uint64_t b, uint64_t c, uint64_t d)
{
	struct ewp_rec r = { .type = type, .a = a, .b = b, .c = c, .d = d };
	char line[EWP_LINE_MAX];
	size_t n = ewp_rec_format(line, sizeof(line), &r);

	return n ? ewp_channel_send(ch, line, n) : EWP_FAIL;
}

static int write_block(struct ewp_target *t, const void *buf, uint32_t bs, uint64_t blk)
{
	size_t done = 0;

	while (done < bs) {
		ssize_t w = pwrite(t->fd, (const char *)buf + done, bs - done,
				   blk * bs + done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ewp_err("%s: write of block %" PRIu64 ": %s", t->path, blk,
				w < 0 ? strerror(errno) : "no progress");
			return EWP_FAIL;
		}
		done += w;
	}
	if (fdatasync(t->fd) < 0) {
		ewp_err("%s: fdatasync: %s", t->path, strerror(errno));
		return EWP_FAIL;
	}
	return EWP_OK;
}

int ewp_cmd_write(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "seconds", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "stop-after", required_argument, NULL, 'S' },
		{ "block-size", required_argument, NULL, 'b' },
		{ "blocks", required_argument, NULL, 'B' },
		{ "seed", required_argument, NULL, 'x' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *log = NULL;
	double seconds = 0, t0, deadline;
	uint64_t count = 0, bs = 4096, blocks = 0, seed = 0, seq = 0, rng;
	uint64_t stop_after = 0;
	bool force = false, seed_set = false;
	struct ewp_target t;
	struct ewp_channel ch = { .fd = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned char *buf = NULL;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'l': log = optarg; break;
		case 's':
			if (ewp_parse_seconds(optarg, &seconds)) {
				ewp_err("write: bad --seconds '%s'", optarg);
				return EWP_USAGE;
			}
			break;
		case 'n':
			if (ewp_parse_u64(optarg, &count) || !count) {
				ewp_err("write: bad --count '%s'", optarg);
				return EWP_USAGE;
			}
			break;
		case 'S':
			if (ewp_parse_u64(optarg, &stop_after) || !stop_after) {
				ewp_err("write: bad --stop-after '%s'", optarg);
				return EWP_USAGE;
			}
			break;
		case 'b':
			if (ewp_parse_size(optarg, &bs) || !bs || bs % EWP_SECTOR ||
			    bs > (16u << 20)) {
				ewp_err("write: --block-size must be a multiple of 512 up to 16M");
				return EWP_USAGE;
			}
			break;
		case 'B':
			if (ewp_parse_u64(optarg, &blocks) || !blocks) {
				ewp_err("write: bad --blocks '%s'", optarg);
				return EWP_USAGE;
			}
			break;
		case 'x':
			if (ewp_parse_u64(optarg, &seed)) {
				ewp_err("write: bad --seed '%s'", optarg);
				return EWP_USAGE;
			}
			seed_set = true;
			break;
		case 'f': force = true; break;
		case 'h':
			fputs(write_usage, stdout);
			return EWP_OK;
		default:
			fputs(write_usage, stderr);
			return EWP_USAGE;
		}
	}
	if (optind != argc - 1 || !log) {
		ewp_err("write: --log CHANNEL and exactly one PATH are needed");
		fputs(write_usage, stderr);
		return EWP_USAGE;
	}
	if (stop_after && count && stop_after >= count) {
		ewp_err("write: --stop-after %" PRIu64 " must be below --count %" PRIu64,
			stop_after, count);
		return EWP_USAGE;
	}
	if (!seconds && !count)
		seconds = 10;
	if (!seed_set)
		seed = ewp_random_seed();

	ret = ewp_target_prepare(&t, argv[optind], force);
	if (ret)
		return ret;
	/* O_DIRECT keeps the page cache out of the way; tmpfs has none. */
	t.try_direct = true;
	ret = ewp_target_open(&t, O_DIRECT);
	if (ret && errno == EINVAL)
		ret = ewp_target_open(&t, 0);
	if (ret)
		goto fail;
	if (bs % t.lbs) {
		ewp_err("write: --block-size %" PRIu64 " is not a multiple of %s's logical block size %u",
			bs, t.path, t.lbs);
		ret = EWP_USAGE;
		goto fail;
	}
	if (!blocks)
		blocks = t.size >= bs ? t.size / bs : 1024;
	if (t.blockdev && blocks > t.size / bs) {
		ewp_err("write: %s holds only %" PRIu64 " blocks of %" PRIu64 " bytes",
			t.path, t.size / bs, bs);
		ret = EWP_USAGE;
		goto fail;
	}
	if (blocks > UINT64_MAX / bs) {
		ewp_err("write: --blocks too large");
		ret = EWP_USAGE;
		goto fail;
	}
	ret = ewp_target_extend(&t, blocks * bs, false);
	if (ret)
		goto fail;
	buf = ewp_alloc_aligned(bs);
	if (!buf) {
		ret = EWP_FAIL;
		goto fail;
	}
	ret = ewp_channel_open(&ch, log);
	if (ret)
		goto fail;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	ret = send_rec(&ch, EWP_REC_START, EWP_LOG_VERSION, bs, blocks, seed);
	rng = seed;
	t0 = ewp_now();
	deadline = seconds ? t0 + seconds : 0;
	while (!ret && !stop && (!count || seq < count) &&
	       (!deadline || ewp_now() < deadline)) {
		uint64_t blk, id;

		seq++;
		rng = ewp_mix64(rng);
		blk = rng % blocks;
		id = ewp_write_id(seed, seq);
		ewp_block_fill(buf, (uint32_t)bs, seq, blk, id, seed);
		ret = send_rec(&ch, EWP_REC_INTENT, seq, blk, id, 0);
		if (!ret)
			ret = write_block(&t, buf, (uint32_t)bs, blk);
		if (!ret)
			ret = send_rec(&ch, EWP_REC_ACK, seq, blk, id, 0);
		if (ret)
			seq--;
		else if (seq == stop_after)
			raise(SIGSTOP);
	}
	if (!ret)
		ret = send_rec(&ch, EWP_REC_END, seq, 0, 0, 0);
	{
		double el = ewp_now() - t0;

		printf("ewprobe write: %s: %" PRIu64 " writes acknowledged in %.1f s (%.1f/s), "
		       "%" PRIu64 " blocks of %" PRIu64 " bytes, seed 0x%016" PRIx64 ", log %s\n",
		       t.path, seq, el, el > 0 ? seq / el : 0, blocks, bs, seed, log);
	}
	free(buf);
	ewp_channel_close(&ch);
	ewp_target_close(&t, false);
	return ret;
fail:
	free(buf);
	ewp_channel_close(&ch);
	ewp_target_close(&t, true);
	return ret;
}
