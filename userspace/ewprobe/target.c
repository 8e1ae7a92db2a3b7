// SPDX-License-Identifier: GPL-2.0-only
/*
 * target.c - the file or block device ewprobe writes on.
 *
 * Owns the safety rule: a probe never destroys data it was not given
 * leave to destroy.  A path that holds data (an existing regular file
 * with a non-zero size, or a block device whose first MiB is not all
 * zeros) is refused unless --force; a path ewprobe creates is fine.
 * Block devices are opened O_EXCL so a mounted or assembled device is
 * refused by the kernel as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "ewprobe.h"

#define EWP_PROBE_HEAD	(1u << 20)

void *ewp_alloc_aligned(size_t bytes)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, bytes ? bytes : 4096))
		return NULL;
	memset(p, 0, bytes);
	return p;
}

/* Is any byte of the device's first MiB non-zero? -1 on a read error. */
static int blockdev_holds_data(int fd, uint64_t size)
{
	size_t n = size < EWP_PROBE_HEAD ? (size_t)size : EWP_PROBE_HEAD;
	unsigned char *buf = ewp_alloc_aligned(n);
	size_t done = 0;
	int ret = 0;

	if (!buf)
		return -1;
	while (done < n) {
		ssize_t r = pread(fd, buf + done, n - done, done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -1 : 0;
			break;
		}
		done += r;
	}
	for (size_t i = 0; ret == 0 && i < done; i++)
		if (buf[i])
			ret = 1;
	free(buf);
	return ret;
}

int ewp_target_prepare(struct ewp_target *t, const char *path, bool force)
{
	struct stat st;
	struct statfs sf;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->fd = -1;
	t->lbs = EWP_SECTOR;

	if (stat(path, &st) < 0) {
		int fd;

		if (errno != ENOENT) {
			ewp_err("%s: %s", path, strerror(errno));
			return EWP_FAIL;
		}
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			ewp_err("cannot create %s: %s", path, strerror(errno));
			return EWP_FAIL;
		}
		close(fd);
		t->created = true;
	} else if (S_ISREG(st.st_mode)) {
		if (st.st_size > 0 && !force) {
			ewp_err("refusing to write on %s: it is a file holding %lld bytes of data "
				"that the probe would overwrite (use --force to allow it, or name a path that does not exist)",
				path, (long long)st.st_size);
			return EWP_USAGE;
		}
		t->was_empty = st.st_size == 0;
		t->size = st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		uint64_t size = 0;
		int held;

		if (fd < 0) {
			ewp_err("%s: %s", path, strerror(errno));
			return EWP_FAIL;
		}
		if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
			ewp_err("%s: cannot get the device size: %s", path, strerror(errno));
			close(fd);
			return EWP_FAIL;
		}
		held = blockdev_holds_data(fd, size);
		close(fd);
		if (held < 0) {
			ewp_err("%s: cannot read the device: %s", path, strerror(errno));
			return EWP_FAIL;
		}
		if (held && !force) {
			ewp_err("refusing to write on %s: it is a block device whose first MiB is not all zeros, "
				"so it may hold data the probe would destroy (use --force to allow it)", path);
			return EWP_USAGE;
		}
		t->blockdev = true;
		t->size = size;
	} else {
		ewp_err("%s: not a regular file or a block device", path);
		return EWP_USAGE;
	}
	if (statfs(path, &sf) == 0 && !t->blockdev &&
	    (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC))
		t->tmpfs = true;
	return EWP_OK;
}

int ewp_target_open(struct ewp_target *t, int flags)
{
	int excl = t->blockdev ? O_EXCL : 0;
	int bs;

	t->fd = open(t->path, O_RDWR | O_CLOEXEC | excl | flags);
	if (t->fd < 0) {
		int e = errno;

		if (e == EBUSY)
			ewp_err("%s: the device is in use (mounted or part of a mapping)", t->path);
		else if (e == EINVAL && (flags & O_DIRECT) && t->try_direct)
			;
		else if (e == EINVAL && (flags & O_DIRECT))
			ewp_err("%s: O_DIRECT is not supported here (tmpfs does not have it)", t->path);
		else
			ewp_err("cannot open %s: %s", t->path, strerror(e));
		errno = e;
		return EWP_FAIL;
	}
	if (t->blockdev && ioctl(t->fd, BLKSSZGET, &bs) == 0 && bs > 0)
		t->lbs = bs;
	return EWP_OK;
}

int ewp_target_extend(struct ewp_target *t, uint64_t bytes, bool fill)
{
	struct stat st;
	static const size_t chunk = 1u << 20;
	unsigned char *zero;

	if (t->blockdev)
		return EWP_OK;
	if (fstat(t->fd, &st) < 0) {
		ewp_err("%s: %s", t->path, strerror(errno));
		return EWP_FAIL;
	}
	if ((uint64_t)st.st_size >= bytes) {
		t->size = st.st_size;
		return EWP_OK;
	}
	if (!fill) {
		if (ftruncate(t->fd, bytes) < 0 || fsync(t->fd) < 0) {
			ewp_err("%s: cannot extend to %llu bytes: %s", t->path,
				(unsigned long long)bytes, strerror(errno));
			return EWP_FAIL;
		}
		t->size = bytes;
		return EWP_OK;
	}
	/* Real zeros rather than a hole, as pg_test_fsync does: the first
	 * write to a hole or unwritten extent costs a metadata update that
	 * would be timed as part of the sync. */
	zero = ewp_alloc_aligned(chunk);
	if (!zero)
		return EWP_FAIL;
	for (uint64_t off = st.st_size; off < bytes;) {
		size_t n = bytes - off < chunk ? (size_t)(bytes - off) : chunk;
		ssize_t w = pwrite(t->fd, zero, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ewp_err("%s: cannot fill to %llu bytes: %s", t->path,
				(unsigned long long)bytes, w < 0 ? strerror(errno) : "short write");
			free(zero);
			return EWP_FAIL;
		}
		off += w;
	}
	free(zero);
	if (fsync(t->fd) < 0) {
		ewp_err("%s: fsync: %s", t->path, strerror(errno));
		return EWP_FAIL;
	}
	t->size = bytes;
	return EWP_OK;
}

void ewp_target_close(struct ewp_target *t, bool restore)
{
	if (t->fd >= 0) {
		if (restore && t->was_empty && ftruncate(t->fd, 0) < 0)
			ewp_err("%s: cannot truncate back to empty: %s", t->path, strerror(errno));
		close(t->fd);
		t->fd = -1;
	}
	if (restore && t->created && unlink(t->path) < 0)
		ewp_err("cannot remove %s: %s", t->path, strerror(errno));
}
