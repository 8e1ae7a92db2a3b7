// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm.c - device-mapper's event counter and event wait, through the
 * ioctls of /dev/mapper/control (what "dmsetup wait" does), for ewctl
 * monitor.  Standard types only: <linux/dm-ioctl.h> pulls in
 * <linux/types.h>, whose __le64 clashes with ew_kerncompat.h's.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/dm-ioctl.h>

#include "ewctl_dev.h"

/* One ioctl on a device by name; its event counter into *event_nr. */
static int dm_name_ioctl(unsigned long cmd, const char *name,
			 uint32_t *event_nr)
{
	union {
		struct dm_ioctl io;
		char buf[sizeof(struct dm_ioctl) + 4096];
	} u;
	int fd, ret = 0;

	if (strlen(name) >= DM_NAME_LEN)
		return -ENAMETOOLONG;
	fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&u, 0, sizeof(u));
	u.io.version[0] = DM_VERSION_MAJOR;
	u.io.version[1] = 0;
	u.io.version[2] = 0;
	u.io.data_size = sizeof(u);
	u.io.data_start = sizeof(struct dm_ioctl);
	strcpy(u.io.name, name);
	u.io.event_nr = *event_nr;
	if (ioctl(fd, cmd, &u.io) < 0)
		ret = -errno;
	else
		*event_nr = u.io.event_nr;
	close(fd);
	return ret;
}

int ewctl_dm_event_nr(const char *name, uint32_t *event_nr)
{
	*event_nr = 0;
	return dm_name_ioctl(DM_DEV_STATUS, name, event_nr);
}

int ewctl_dm_wait(const char *name, uint32_t *event_nr)
{
	return dm_name_ioctl(DM_DEV_WAIT, name, event_nr);
}
