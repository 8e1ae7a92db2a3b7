/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ewctl_dev.h - device sizes for ewctl (dev.c), with standard types only
 * so that dev.c can use the system headers that clash with the core's.
 */
#ifndef EWCTL_DEV_H
#define EWCTL_DEV_H

#include <stddef.h>
#include <stdint.h>

extern const char *ewctl_prog;

/*
 * Size of a block device (BLKGETSIZE64) or regular file (st_size) in
 * bytes; -1 with a message on stderr when it cannot be read.
 */
int ewctl_dev_bytes(const char *path, uint64_t *bytes);

/*
 * The logical block size of the block device open as fd (BLKSSZGET), 512
 * for anything else: the smallest O_DIRECT read it takes.
 */
unsigned int ewctl_dev_lbs(int fd);

/*
 * Reads len bytes at off of a block device (O_DIRECT, so a member in use
 * by a live table reads as it is on disk) or file; past the end reads as
 * zeros.  0 or -errno, no message.
 */
int ewctl_dev_read(const char *path, uint64_t off, void *buf, size_t len);

/*
 * Every block device the kernel lists (/proc/partitions) as /dev/NAME,
 * in the kernel's order, except those something holds (a device-mapper
 * or md device over them, /sys/class/block/NAME/holders): they are seen
 * through their holder.  0 or -errno; free with ewctl_dev_list_free().
 */
int ewctl_dev_list(char ***paths, unsigned int *nr);
/*
 * The device node of "MAJOR:MINOR" (as dmsetup table prints a device):
 * /dev/ and the kernel's name for it (/sys/dev/block/M:m/uevent), checked
 * to be that block device.  0, or -1 with a message on stderr.
 */
int ewctl_dev_by_devno(const char *majmin, char *path, size_t len);
/*
 * Whether "MAJOR:MINOR" is rotational, as its queue says
 * (/sys/dev/block/M:m/queue/rotational, a partition's from its disk):
 * 1, 0, or -1 when it cannot be read.
 */
int ewctl_dev_rotational(const char *majmin);
void ewctl_dev_list_free(char **paths, unsigned int nr);

/*
 * device-mapper events (dm.c): the event counter of mapped device name,
 * and a wait until it differs from *event_nr (DM_DEV_WAIT: a target's
 * dm_table_event() or a table change), which returns the new one.  0 or
 * -errno (-EINTR when a signal came; -ENXIO: no such device).
 */
int ewctl_dm_event_nr(const char *name, uint32_t *event_nr);
int ewctl_dm_wait(const char *name, uint32_t *event_nr);

#endif /* EWCTL_DEV_H */
