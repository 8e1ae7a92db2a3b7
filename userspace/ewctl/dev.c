// SPDX-License-Identifier: GPL-2.0-only
/*
 * dev.c - member devices for ewctl: sizes, raw reads, the list of block
 * devices.  Kept apart from the
 * core's headers: <sys/stat.h> pulls in <linux/types.h>, whose __le64
 * clashes with ew_kerncompat.h's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>		/* BLKGETSIZE64, BLKSSZGET */
#include <sys/stat.h>
#include <sys/sysmacros.h>	/* major, minor */

#include "ewctl_dev.h"

int ewctl_dev_bytes(const char *path, uint64_t *bytes)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", ewctl_prog, path,
			strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		fprintf(stderr, "%s: %s: %s\n", ewctl_prog, path,
			strerror(errno));
		ret = -1;
	} else if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, bytes)) {
			fprintf(stderr, "%s: %s: BLKGETSIZE64: %s\n",
				ewctl_prog, path, strerror(errno));
			ret = -1;
		}
	} else if (S_ISREG(st.st_mode)) {
		*bytes = (uint64_t)st.st_size;
	} else {
		fprintf(stderr,
			"%s: %s: not a block device or regular file\n",
			ewctl_prog, path);
		ret = -1;
	}
	close(fd);
	return ret;
}

unsigned int ewctl_dev_lbs(int fd)
{
	struct stat st;
	int lbs;

	if (fstat(fd, &st) || !S_ISBLK(st.st_mode) ||
	    ioctl(fd, BLKSSZGET, &lbs) || lbs < 512)
		return 512;
	return (unsigned int)lbs;
}

int ewctl_dev_read(const char *path, uint64_t off, void *buf, size_t len)
{
	void *al = NULL;
	ssize_t n;
	int fd, err = 0;

	/*
	 * O_DIRECT: a member in use by a live table is written by the target
	 * with bios that the page cache of the block device never sees, so a
	 * buffered read could return what an earlier read cached.  Files on
	 * tmpfs (and some other file systems) refuse O_DIRECT: read them
	 * through the cache.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT);
	if (fd < 0 && errno == EINVAL)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (posix_memalign(&al, 4096, len)) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, al, len, (off_t)off);
	if (n < 0)
		err = -errno;
	else if ((size_t)n < len)
		memset((char *)al + n, 0, len - (size_t)n); /* short: zeros */
	if (!err)
		memcpy(buf, al, len);
	free(al);
	close(fd);
	return err;
}

/*
 * Does something sit on block device NAME (a /proc/partitions name): a
 * device-mapper or md device over it (/sys/class/block/NAME/holders)?
 * Such a device is seen through what holds it, and a label read on both
 * would count twice.
 */
static bool dev_held(const char *name)
{
	char path[256];
	struct dirent *e;
	bool held = false;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/block/%s/holders", name);
	d = opendir(path);
	if (!d)
		return false;
	while (!held && (e = readdir(d)))
		held = e->d_name[0] != '.';
	closedir(d);
	return held;
}

int ewctl_dev_list(char ***paths, unsigned int *nr)
{
	FILE *f = fopen("/proc/partitions", "r");
	char line[256], name[128], **v = NULL, **nv;
	unsigned long long blocks;
	unsigned int maj, min, n = 0;

	*paths = NULL;
	*nr = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %u %u %llu %127s", &maj, &min, &blocks,
			   name) != 4 || blocks < 8)
			continue;	/* the header, extended partitions */
		if (dev_held(name))
			continue;	/* seen through its holder */
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			goto nomem;
		v = nv;
		v[n] = malloc(strlen(name) + 6);
		if (!v[n])
			goto nomem;
		sprintf(v[n++], "/dev/%s", name);
	}
	fclose(f);
	*paths = v;
	*nr = n;
	return 0;
nomem:
	fclose(f);
	ewctl_dev_list_free(v, n);
	return -ENOMEM;
}

/* "M:m" as two numbers; false if it is not that. */
static bool parse_devno(const char *majmin, unsigned int *maj,
			unsigned int *min)
{
	char tail;

	return sscanf(majmin, "%u:%u%c", maj, min, &tail) == 2;
}

int ewctl_dev_by_devno(const char *majmin, char *path, size_t len)
{
	char sys[128], line[256], name[128] = "";
	unsigned int maj, min;
	struct stat st;
	FILE *f;

	if (!parse_devno(majmin, &maj, &min)) {
		fprintf(stderr, "%s: '%s' is not a MAJOR:MINOR device number\n",
			ewctl_prog, majmin);
		return -1;
	}
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/uevent", maj, min);
	f = fopen(sys, "r");
	if (!f) {
		fprintf(stderr, "%s: no block device %u:%u (%s: %s)\n",
			ewctl_prog, maj, min, sys, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "DEVNAME=%127s", name) == 1)
			break;
	fclose(f);
	if (!name[0] || (size_t)snprintf(path, len, "/dev/%s", name) >= len) {
		fprintf(stderr, "%s: block device %u:%u: no name in %s\n",
			ewctl_prog, maj, min, sys);
		return -1;
	}
	if (stat(path, &st) || !S_ISBLK(st.st_mode) ||
	    major(st.st_rdev) != maj || minor(st.st_rdev) != min) {
		fprintf(stderr, "%s: block device %u:%u: %s is not its node\n",
			ewctl_prog, maj, min, path);
		return -1;
	}
	return 0;
}

int ewctl_dev_rotational(const char *majmin)
{
	static const char *const where[] = {
		"/sys/dev/block/%u:%u/queue/rotational",
		"/sys/dev/block/%u:%u/../queue/rotational",	/* a partition */
	};
	unsigned int maj, min, i;
	char sys[128];
	int v = -1;
	FILE *f;

	if (!parse_devno(majmin, &maj, &min))
		return -1;
	for (i = 0; i < 2 && v < 0; i++) {
		snprintf(sys, sizeof(sys), where[i], maj, min);
		f = fopen(sys, "r");
		if (!f)
			continue;
		if (fscanf(f, "%d", &v) != 1 || (v != 0 && v != 1))
			v = -1;
		fclose(f);
	}
	return v;
}

void ewctl_dev_list_free(char **paths, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		free(paths[i]);
	free(paths);
}
