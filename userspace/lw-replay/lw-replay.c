// SPDX-License-Identifier: GPL-2.0-only
/*
 * lw-replay.c - a small replayer of dm-log-writes logs, for the crash
 * tests (tests/vm/test-logwrites.sh): list a log's entries, and write a
 * range of them onto a device or file, so that a test can rebuild the
 * state the logged device had at each flush or FUA boundary.
 *
 * The log format is the kernel's (drivers/md/dm-log-writes.c,
 * Documentation/admin-guide/device-mapper/log-writes.rst), all fields
 * little-endian, in units of the logged device's logical block size S
 * (the "sectorsize" of the super block):
 *
 *   block 0      struct log_write_super { magic, version, nr_entries,
 *                sectorsize }
 *   block 1..    for each entry: one block holding struct log_write_entry
 *                { sector, nr_sectors, flags, data_len } (a MARK's text
 *                follows it in the same block), then nr_sectors blocks of
 *                data unless the entry is a DISCARD.
 *
 * Writes are logged in completion order once a later flush completed
 * (the flush entry comes after them); FUA writes when they complete.
 * Replaying entries 0..i where i is a FLUSH or FUA entry gives a state a
 * power cut could have left.  nr_entries is rewritten only with FUA and
 * MARK entries (and at table removal, which logs the mark
 * "dm-log-writes-end"), so a log of a device still in use may hold more
 * entries than it says: --scan reads on to the end instead.
 *
 * Never links the eagerwrite core: it is a tool about dm-log-writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LW_MAGIC	0x6a736677736872ULL
#define LW_VERSION	1ULL
#define LW_FLUSH	(1ULL << 0)
#define LW_FUA		(1ULL << 1)
#define LW_DISCARD	(1ULL << 2)
#define LW_MARK		(1ULL << 3)
#define LW_META		(1ULL << 4)
#define LW_KNOWN	(LW_FLUSH | LW_FUA | LW_DISCARD | LW_MARK | LW_META)

/* exit status */
enum { LW_OK = 0, LW_BAD = 1, LW_USAGE = 2, LW_IO = 3 };

#define MAX_SKIP 64

struct lw_entry {
	uint64_t index;
	uint64_t pos;		/* byte offset of the entry block in the log */
	uint64_t sector;	/* in units of sectorsize */
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_len;
	char mark[512];
};

struct lw_log {
	int fd;
	const char *path;
	uint64_t size;
	uint64_t nr_entries;
	uint32_t sectorsize;
	uint64_t next;		/* byte offset of the next entry block */
	uint64_t index;
	unsigned char *blk;
};

static const char *prog = "lw-replay";

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: lw-replay [--list] [--scan] LOG\n"
"       lw-replay --replay DEV [--start N] [--end N] [--skip N]... [--scan] LOG\n"
"\n"
"Reads a dm-log-writes log (the log device of a \"log-writes DEV LOGDEV\"\n"
"table, or a copy of it).\n"
"\n"
"  -l, --list        print one line per entry: INDEX SECTOR NR_SECTORS FLAGS\n"
"                    [MARK], sectors in bytes/512, FLAGS a '|' list of FLUSH,\n"
"                    FUA, DISCARD, MARK, META or '-'; a first line\n"
"                    \"# entries N sectorsize S\"\n"
"  -r, --replay DEV  write entries [START, END) to DEV (a device or a file,\n"
"                    opened without truncation); DISCARD entries write zeros\n"
"  -s, --start N     first entry to write (default 0); entries before it\n"
"                    are read, not written: replay in steps on one DEV\n"
"  -e, --end N       stop before entry N (default: every entry)\n"
"  -x, --skip N      do not write entry N (for controls that break the\n"
"                    order on purpose); up to %d times\n"
"  -S, --scan        do not trust the super block's entry count (it is\n"
"                    rewritten only on FUA and MARK entries): read entries\n"
"                    until the log ends or holds something that is not one\n"
"  -h, --help        this help\n"
"\n"
"Without --replay, --list is implied.  The device is fsync'ed at the end.\n"
"Exit status: 0 success, 1 the log is not a dm-log-writes log, is damaged\n"
"or shorter than --end, 2 usage error, 3 I/O error.\n", MAX_SKIP);
}

static int read_at(struct lw_log *l, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(l->fd, buf, len, (off_t)off);

	if (n < 0) {
		fprintf(stderr, "%s: %s: read at %" PRIu64 ": %s\n", prog,
			l->path, off, strerror(errno));
		return LW_IO;
	}
	if ((size_t)n != len) {
		fprintf(stderr, "%s: %s: short read at %" PRIu64 " (log truncated?)\n",
			prog, l->path, off);
		return LW_BAD;
	}
	return LW_OK;
}

static int log_open(struct lw_log *l, const char *path)
{
	unsigned char sb[32];
	struct stat st;
	off_t end;
	int ret;

	memset(l, 0, sizeof(*l));
	l->path = path;
	l->fd = open(path, O_RDONLY);
	if (l->fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return LW_IO;
	}
	if (fstat(l->fd, &st) || (end = lseek(l->fd, 0, SEEK_END)) < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return LW_IO;
	}
	l->size = (uint64_t)end;
	ret = read_at(l, sb, sizeof(sb), 0);
	if (ret)
		return ret;
	if (get_le64(sb) != LW_MAGIC) {
		fprintf(stderr, "%s: %s: not a dm-log-writes log (bad magic)\n",
			prog, path);
		return LW_BAD;
	}
	if (get_le64(sb + 8) != LW_VERSION) {
		fprintf(stderr, "%s: %s: log version %" PRIu64 " not supported\n",
			prog, path, get_le64(sb + 8));
		return LW_BAD;
	}
	l->nr_entries = get_le64(sb + 16);
	l->sectorsize = get_le32(sb + 24);
	if (l->sectorsize < 512 || l->sectorsize > 65536 ||
	    (l->sectorsize & (l->sectorsize - 1))) {
		fprintf(stderr, "%s: %s: bad sector size %u in the super block\n",
			prog, path, l->sectorsize);
		return LW_BAD;
	}
	l->blk = malloc(l->sectorsize);
	if (!l->blk) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return LW_IO;
	}
	l->next = l->sectorsize;
	return LW_OK;
}

/*
 * The next entry: 0 and *e filled, LW_BAD (and a message unless scanning
 * past the counted entries, where it means the end) or LW_IO.
 */
static int log_next(struct lw_log *l, struct lw_entry *e, bool quiet)
{
	uint64_t data;
	size_t ml;
	int ret;

	if (l->next + l->sectorsize > l->size) {
		if (!quiet)
			fprintf(stderr, "%s: %s: log ends before entry %" PRIu64 "\n",
				prog, l->path, l->index);
		return LW_BAD;
	}
	ret = read_at(l, l->blk, l->sectorsize, l->next);
	if (ret)
		return ret;
	memset(e, 0, sizeof(*e));
	e->index = l->index;
	e->pos = l->next;
	e->sector = get_le64(l->blk);
	e->nr_sectors = get_le64(l->blk + 8);
	e->flags = get_le64(l->blk + 16);
	e->data_len = get_le64(l->blk + 24);
	if ((e->flags & ~LW_KNOWN) ||
	    ((e->flags & LW_MARK) && (e->data_len == 0 ||
				      e->data_len > l->sectorsize - 32 - 1)) ||
	    (!(e->flags & LW_MARK) && e->data_len) ||
	    ((e->flags & LW_MARK) && e->nr_sectors) ||
	    e->nr_sectors > l->size / l->sectorsize) {
		if (!quiet)
			fprintf(stderr, "%s: %s: entry %" PRIu64 " at byte %" PRIu64 " is damaged (flags %#" PRIx64 ", %" PRIu64 " sectors, data_len %" PRIu64 ")\n",
				prog, l->path, l->index, l->next, e->flags,
				e->nr_sectors, e->data_len);
		return LW_BAD;
	}
	if (e->flags & LW_MARK) {
		ml = (size_t)e->data_len;
		memcpy(e->mark, l->blk + 32, ml);
		e->mark[ml] = 0;
		if (strlen(e->mark) != ml) {
			if (!quiet)
				fprintf(stderr, "%s: %s: entry %" PRIu64 ": mark with a NUL inside\n",
					prog, l->path, l->index);
			return LW_BAD;
		}
	}
	data = (e->flags & LW_DISCARD) ? 0 : e->nr_sectors * l->sectorsize;
	if (l->next + l->sectorsize + data > l->size) {
		if (!quiet)
			fprintf(stderr, "%s: %s: entry %" PRIu64 ": data past the end of the log\n",
				prog, l->path, l->index);
		return LW_BAD;
	}
	l->next += l->sectorsize + data;
	l->index++;
	return LW_OK;
}

static void flags_str(uint64_t f, char *buf, size_t len)
{
	static const struct { uint64_t bit; const char *name; } names[] = {
		{ LW_FLUSH, "FLUSH" }, { LW_FUA, "FUA" },
		{ LW_DISCARD, "DISCARD" }, { LW_MARK, "MARK" },
		{ LW_META, "META" },
	};
	size_t i;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (f & names[i].bit) {
			if (buf[0])
				strncat(buf, "|", len - strlen(buf) - 1);
			strncat(buf, names[i].name, len - strlen(buf) - 1);
		}
	if (!buf[0])
		snprintf(buf, len, "-");
}

static int write_full(int fd, const char *path, const unsigned char *buf,
		      size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "%s: %s: write at %" PRIu64 ": %s\n",
				prog, path, off, n < 0 ? strerror(errno) : "no progress");
			return LW_IO;
		}
		buf += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return LW_OK;
}

/* Write one entry's data (or zeros for a discard) to the replay target. */
static int apply(struct lw_log *l, const struct lw_entry *e, int fd,
		 const char *dev, unsigned char *buf, size_t buflen)
{
	uint64_t left = e->nr_sectors * l->sectorsize;
	uint64_t src = e->pos + l->sectorsize;
	uint64_t dst = e->sector * l->sectorsize;
	int ret;

	if (e->flags & LW_DISCARD)
		memset(buf, 0, buflen);
	while (left) {
		size_t n = left < buflen ? (size_t)left : buflen;

		if (!(e->flags & LW_DISCARD)) {
			ret = read_at(l, buf, n, src);
			if (ret)
				return ret;
			src += n;
		}
		ret = write_full(fd, dev, buf, n, dst);
		if (ret)
			return ret;
		dst += n;
		left -= n;
	}
	return LW_OK;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 0);
	return (errno || *end) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "replay", required_argument, NULL, 'r' },
		{ "start", required_argument, NULL, 's' },
		{ "end", required_argument, NULL, 'e' },
		{ "skip", required_argument, NULL, 'x' },
		{ "scan", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t start = 0, end = UINT64_MAX, skip[MAX_SKIP], written = 0;
	const char *dev = NULL;
	bool list = false, scan = false;
	unsigned int nskip = 0, i;
	unsigned char *buf = NULL;
	size_t buflen = 1 << 20;
	struct lw_log l;
	struct lw_entry e;
	int opt, fd = -1, ret;
	char fl[64];

	while ((opt = getopt_long(argc, argv, "lr:s:e:x:Sh", opts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			list = true;
			break;
		case 'r':
			dev = optarg;
			break;
		case 's':
			if (parse_u64(optarg, &start))
				goto bad_usage;
			break;
		case 'e':
			if (parse_u64(optarg, &end))
				goto bad_usage;
			break;
		case 'x':
			if (nskip == MAX_SKIP || parse_u64(optarg, &skip[nskip++]))
				goto bad_usage;
			break;
		case 'S':
			scan = true;
			break;
		case 'h':
			usage(stdout);
			return LW_OK;
		default:
			goto bad_usage;
		}
	}
	if (optind != argc - 1 || start > end)
		goto bad_usage;
	if (!dev)
		list = true;

	ret = log_open(&l, argv[optind]);
	if (ret)
		goto out;
	if (list)
		printf("# entries %" PRIu64 " sectorsize %u\n", l.nr_entries,
		       l.sectorsize);
	if (dev) {
		fd = open(dev, O_WRONLY);
		buf = malloc(buflen);
		if (fd < 0 || !buf) {
			fprintf(stderr, "%s: %s: %s\n", prog, dev,
				fd < 0 ? strerror(errno) : "out of memory");
			ret = LW_IO;
			goto out;
		}
	}
	for (;;) {
		bool counted = l.index < l.nr_entries;

		if (l.index >= end || (!counted && !scan))
			break;
		ret = log_next(&l, &e, !counted);
		if (ret == LW_BAD && !counted) {
			ret = LW_OK;	/* scanning: the end of what was written */
			break;
		}
		if (ret)
			goto out;
		if (list) {
			flags_str(e.flags, fl, sizeof(fl));
			printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %s%s%s\n",
			       e.index, e.sector * (l.sectorsize / 512),
			       e.nr_sectors * (l.sectorsize / 512), fl,
			       e.mark[0] ? " " : "", e.mark);
		}
		if (!dev || e.index < start || (e.flags & LW_MARK))
			continue;
		for (i = 0; i < nskip && skip[i] != e.index; i++)
			;
		if (i < nskip)
			continue;
		if (e.nr_sectors) {
			ret = apply(&l, &e, fd, dev, buf, buflen);
			if (ret)
				goto out;
			written++;
		}
	}
	if (end != UINT64_MAX && l.index < end) {
		fprintf(stderr, "%s: %s: the log has %" PRIu64 " entries, fewer than --end %" PRIu64 "\n",
			prog, l.path, l.index, end);
		ret = LW_BAD;
		goto out;
	}
	if (fd >= 0 && fsync(fd)) {
		fprintf(stderr, "%s: %s: fsync: %s\n", prog, dev, strerror(errno));
		ret = LW_IO;
		goto out;
	}
	if (dev)
		fprintf(stderr, "%s: entries %" PRIu64 "..%" PRIu64 ": %" PRIu64 " written to %s\n",
			prog, start, l.index, written, dev);
	ret = LW_OK;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(l.blk);
	if (l.fd >= 0)
		close(l.fd);
	return ret;
bad_usage:
	usage(stderr);
	return LW_USAGE;
}
