// SPDX-License-Identifier: GPL-2.0-only
/*
 * listen.c - `ewprobe listen`: the second party of the power-cut test
 * when the machine under test can reach this one over TCP.
 *
 * Connections are served one at a time.  Each complete line is written
 * to the output file with one write(2) and only then confirmed to the
 * writer with one byte, so an intent the writer was told about is in the
 * file (the page cache of a machine whose power is not cut) before the
 * block write it announces is issued.  The listener stops by itself after
 * N connections have closed or after S seconds.  It binds loopback only:
 * the protocol has no authentication.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ewprobe.h"

static const char listen_usage[] =
"usage: ewprobe listen [--port P] [--bind ADDR] --out FILE\n"
"                      [--count-connections N] [--seconds S]\n"
"\n"
"Receive the log of `ewprobe write --log tcp:ADDR:P` and write it to FILE\n"
"(truncated first), one write(2) per line, confirming each line to the\n"
"writer with one byte once it is in the file.  Connections are served\n"
"one after another.\n"
"\n"
"  --port P                 TCP port (default 5400; 0 picks a free one)\n"
"  --bind ADDR              loopback address to listen on (default\n"
"                           127.0.0.1; only 127.0.0.0/8 and ::1 are accepted)\n"
"  --out FILE               where the log goes\n"
"  --count-connections N    stop once N connections have closed (default 1)\n"
"  --seconds S              stop after S seconds in any case\n"
"\n"
"Prints 'ewprobe listen: listening on ADDR:PORT' once ready (stdout,\n"
"flushed), and a summary when it stops.  SIGINT/SIGTERM stop it too.\n"
"Exit: 0 stopped as asked (connections closed or time up), 2 usage,\n"
"3 I/O or socket error.\n";

#define LISTEN_LINE_MAX	4096

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int put(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= w;
	}
	return 0;
}

static int make_socket(const char *bind_addr, unsigned int port, char *desc, size_t desc_len)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fd, one = 1;
	char host[INET6_ADDRSTRLEN];

	if (!strcmp(bind_addr, "localhost"))
		bind_addr = "127.0.0.1";
	if (inet_pton(AF_INET, bind_addr, &s4->sin_addr) == 1) {
		if ((ntohl(s4->sin_addr.s_addr) >> 24) != 127) {
			ewp_err("listen: %s is not a loopback address (the log protocol is unauthenticated)",
				bind_addr);
			return -EWP_USAGE;
		}
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		len = sizeof(*s4);
	} else if (inet_pton(AF_INET6, bind_addr, &s6->sin6_addr) == 1) {
		if (!IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr)) {
			ewp_err("listen: %s is not a loopback address (the log protocol is unauthenticated)",
				bind_addr);
			return -EWP_USAGE;
		}
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		len = sizeof(*s6);
	} else {
		ewp_err("listen: bad --bind address '%s'", bind_addr);
		return -EWP_USAGE;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ewp_err("listen: socket: %s", strerror(errno));
		return -EWP_FAIL;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 4) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		ewp_err("listen: %s port %u: %s", bind_addr, port, strerror(errno));
		close(fd);
		return -EWP_FAIL;
	}
	if (ss.ss_family == AF_INET) {
		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(desc, desc_len, "%s:%u", host, ntohs(s4->sin_port));
	} else {
		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(desc, desc_len, "[%s]:%u", host, ntohs(s6->sin6_port));
	}
	return fd;
}

/* Write the complete lines in @buf[0..*n) to @out, confirming each. */
static int drain_lines(int out, int conn, char *buf, size_t *n, size_t *lines, bool eof)
{
	size_t start = 0;

	for (size_t i = 0; i < *n; i++) {
		if (buf[i] != '\n')
			continue;
		if (put(out, buf + start, i + 1 - start) < 0)
			return -1;
		(*lines)++;
		send(conn, "+", 1, MSG_NOSIGNAL);
		start = i + 1;
	}
	/* A line too long to be a record, or the torn tail of a closed
	 * connection: keep it, ended, for the parser to skip. */
	if ((eof && start < *n) || (start == 0 && *n == LISTEN_LINE_MAX)) {
		if (put(out, buf + start, *n - start) < 0 || put(out, "\n", 1) < 0)
			return -1;
		(*lines)++;
		start = *n;
	}
	memmove(buf, buf + start, *n - start);
	*n -= start;
	return 0;
}

int ewp_cmd_listen(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "bind", required_argument, NULL, 'b' },
		{ "out", required_argument, NULL, 'o' },
		{ "count-connections", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *bind_addr = "127.0.0.1", *outpath = NULL;
	uint64_t port = 5400, want = 1;
	double seconds = 0, deadline = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	char desc[INET6_ADDRSTRLEN + 16], *buf;
	size_t have = 0, lines = 0, closed = 0;
	int c, lfd, out, conn = -1, ret = EWP_OK;
	bool timed_out = false;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (ewp_parse_u64(optarg, &port) || port > 65535) {
				ewp_err("listen: bad --port '%s'", optarg);
				return EWP_USAGE;
			}
			break;
		case 'b': bind_addr = optarg; break;
		case 'o': outpath = optarg; break;
		case 'n':
			if (ewp_parse_u64(optarg, &want) || !want) {
				ewp_err("listen: bad --count-connections '%s'", optarg);
				return EWP_USAGE;
			}
			break;
		case 's':
			if (ewp_parse_seconds(optarg, &seconds)) {
				ewp_err("listen: bad --seconds '%s'", optarg);
				return EWP_USAGE;
			}
			break;
		case 'h':
			fputs(listen_usage, stdout);
			return EWP_OK;
		default:
			fputs(listen_usage, stderr);
			return EWP_USAGE;
		}
	}
	if (optind != argc || !outpath) {
		ewp_err("listen: --out FILE is needed, and no other argument");
		fputs(listen_usage, stderr);
		return EWP_USAGE;
	}
	lfd = make_socket(bind_addr, (unsigned int)port, desc, sizeof(desc));
	if (lfd < 0)
		return -lfd;
	out = open(outpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	buf = malloc(LISTEN_LINE_MAX);
	if (out < 0 || !buf) {
		ewp_err("listen: cannot open %s: %s", outpath, strerror(errno));
		close(lfd);
		free(buf);
		if (out >= 0)
			close(out);
		return EWP_FAIL;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("ewprobe listen: listening on %s, writing %s\n", desc, outpath);
	fflush(stdout);
	if (seconds)
		deadline = ewp_now() + seconds;

	while (!stop && closed < want) {
		struct pollfd p = { .fd = conn >= 0 ? conn : lfd, .events = POLLIN };
		int timeout = -1, n;

		if (deadline) {
			double left = deadline - ewp_now();

			if (left <= 0) {
				timed_out = true;
				break;
			}
			timeout = (int)(left * 1000) + 1;
		}
		n = poll(&p, 1, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ewp_err("listen: poll: %s", strerror(errno));
			ret = EWP_FAIL;
			break;
		}
		if (n == 0)
			continue;
		if (conn < 0) {
			conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (conn < 0 && errno != EINTR && errno != ECONNABORTED) {
				ewp_err("listen: accept: %s", strerror(errno));
				ret = EWP_FAIL;
				break;
			}
			have = 0;
			continue;
		}
		{
			ssize_t r = read(conn, buf + have, LISTEN_LINE_MAX - have);
			bool eof = r <= 0 && !(r < 0 && errno == EINTR);

			if (r > 0)
				have += r;
			if (drain_lines(out, conn, buf, &have, &lines, eof) < 0) {
				ewp_err("listen: writing %s: %s", outpath, strerror(errno));
				ret = EWP_FAIL;
				break;
			}
			if (eof) {
				close(conn);
				conn = -1;
				closed++;
			}
		}
	}
	if (conn >= 0) {
		if (have && drain_lines(out, conn, buf, &have, &lines, true) < 0)
			ret = EWP_FAIL;
		close(conn);
	}
	close(lfd);
	if (fsync(out) < 0 && errno != EINVAL)
		ewp_err("listen: fsync %s: %s", outpath, strerror(errno));
	close(out);
	free(buf);
	printf("ewprobe listen: %zu connections closed, %zu lines written to %s%s\n",
	       closed, lines, outpath, timed_out ? " (time up)" : stop ? " (signalled)" : "");
	return ret;
}
