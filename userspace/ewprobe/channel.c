// SPDX-License-Identifier: GPL-2.0-only
/*
 * channel.c - how `write` tells a second party what it is about to write
 * and what was acknowledged, so that the record survives the power cut of
 * the machine under test.
 *
 * The intent must have left before the write is issued, or verify could
 * meet a newer block it was never told about; so every send waits:
 *   tcp:HOST:PORT  the listener (ewprobe listen) answers each line with one
 *                  byte once the line is in its file; we wait for it
 *   a tty          raw mode, one write(2) per line, then tcdrain(3)
 *   a file         O_APPEND, one write(2) per line, then fsync(2)
 *   another char device (a virtio port): one write(2) per line
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "ewprobe.h"

enum { CH_FILE, CH_TTY, CH_CHAR, CH_TCP };

#define EWP_TCP_REPLY_MS	10000

static int open_tcp(struct ewp_channel *c, const char *hostport)
{
	char host[64];
	const char *colon = strrchr(hostport, ':');
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
	int err, one = 1;

	if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof(host) ||
	    !colon[1]) {
		ewp_err("bad channel 'tcp:%s' (want tcp:HOST:PORT)", hostport);
		return EWP_USAGE;
	}
	memcpy(host, hostport, colon - hostport);
	host[colon - hostport] = '\0';
	err = getaddrinfo(host, colon + 1, &hints, &ai);
	if (err) {
		ewp_err("channel tcp:%s: %s", hostport, gai_strerror(err));
		return EWP_USAGE;
	}
	c->fd = -1;
	for (a = ai; a && c->fd < 0; a = a->ai_next) {
		c->fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (c->fd < 0)
			continue;
		if (connect(c->fd, a->ai_addr, a->ai_addrlen) < 0) {
			err = errno;
			close(c->fd);
			c->fd = -1;
			errno = err;
		}
	}
	freeaddrinfo(ai);
	if (c->fd < 0) {
		ewp_err("channel tcp:%s: cannot connect: %s", hostport, strerror(errno));
		return EWP_FAIL;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->kind = CH_TCP;
	return EWP_OK;
}

int ewp_channel_open(struct ewp_channel *c, const char *spec)
{
	struct stat st;

	memset(c, 0, sizeof(*c));
	snprintf(c->desc, sizeof(c->desc), "%s", spec);
	if (!strncmp(spec, "tcp:", 4))
		return open_tcp(c, spec + 4);

	c->fd = open(spec, O_WRONLY | O_CREAT | O_APPEND | O_NOCTTY | O_CLOEXEC, 0644);
	if (c->fd < 0 || fstat(c->fd, &st) < 0) {
		ewp_err("channel %s: %s", spec, strerror(errno));
		return EWP_FAIL;
	}
	if (S_ISREG(st.st_mode)) {
		c->kind = CH_FILE;
	} else if (isatty(c->fd)) {
		struct termios tio;

		/* Raw: no CR insertion, no echo processing; the host sees
		 * the bytes we write. */
		if (tcgetattr(c->fd, &tio) == 0) {
			cfmakeraw(&tio);
			tcsetattr(c->fd, TCSANOW, &tio);
		}
		c->kind = CH_TTY;
	} else if (S_ISCHR(st.st_mode)) {
		c->kind = CH_CHAR;
	} else {
		ewp_err("channel %s: not a file, tty or character device", spec);
		close(c->fd);
		return EWP_USAGE;
	}
	return EWP_OK;
}

static int write_line(int fd, const char *line, size_t len)
{
	size_t done = 0;

	/* One write(2) per line keeps a record whole on a shared console;
	 * the loop only finishes a short write. */
	while (done < len) {
		ssize_t w = write(fd, line + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += w;
	}
	return 0;
}

int ewp_channel_send(struct ewp_channel *c, const char *line, size_t len)
{
	if (write_line(c->fd, line, len) < 0) {
		ewp_err("channel %s: write: %s", c->desc, strerror(errno));
		return EWP_FAIL;
	}
	switch (c->kind) {
	case CH_FILE:
		if (fsync(c->fd) < 0) {
			ewp_err("channel %s: fsync: %s", c->desc, strerror(errno));
			return EWP_FAIL;
		}
		break;
	case CH_TTY:
		if (tcdrain(c->fd) < 0) {
			ewp_err("channel %s: tcdrain: %s", c->desc, strerror(errno));
			return EWP_FAIL;
		}
		break;
	case CH_TCP: {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		char reply;
		int n;

		do
			n = poll(&p, 1, EWP_TCP_REPLY_MS);
		while (n < 0 && errno == EINTR);
		if (n <= 0 || read(c->fd, &reply, 1) != 1) {
			ewp_err("channel %s: the listener did not confirm a line", c->desc);
			return EWP_FAIL;
		}
		break;
	}
	default:
		break;
	}
	return EWP_OK;
}

void ewp_channel_close(struct ewp_channel *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
