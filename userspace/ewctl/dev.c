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
#include <sys/mount.h>		/* BLKGETSIZE64 */
#include <sys/stat.h>

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

void ewctl_dev_list_free(char **paths, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		free(paths[i]);
	free(paths);
}
