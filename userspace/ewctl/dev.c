// SPDX-License-Identifier: GPL-2.0-only
/*
 * dev.c - the size of a member device for ewctl.  Kept apart from the
 * core's headers: <sys/stat.h> pulls in <linux/types.h>, whose __le64
 * clashes with ew_kerncompat.h's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

