/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ewctl_dev.h - device sizes for ewctl (dev.c), with standard types only
 * so that dev.c can use the system headers that clash with the core's.
 */
#ifndef EWCTL_DEV_H
#define EWCTL_DEV_H

#include <stdint.h>

extern const char *ewctl_prog;

/*
 * Size of a block device (BLKGETSIZE64) or regular file (st_size) in
 * bytes; -1 with a message on stderr when it cannot be read.
 */
int ewctl_dev_bytes(const char *path, uint64_t *bytes);

#endif /* EWCTL_DEV_H */
