/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_compat.h - the one place where the portable eager-writing core meets
 * its environment.
 *
 * Everything under dm-eagerwrite/core/ compiles unchanged into the kernel
 * module and into the userspace tools (unit tests, ewsim, ewctl), the way
 * xfsprogs shares libxfs with the kernel.  The core does no I/O, takes no
 * locks and reads no clock: time is always an argument, in nanoseconds.
 * This header maps the handful of kernel facilities the core uses; in
 * userspace they come from userspace/include/ew_kerncompat.h.
 */
#ifndef EW_COMPAT_H
#define EW_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/crc32c.h>
#include <linux/bitops.h>

/* Large per-disk tables: kvzalloc may fall back to vmalloc. */
#define ew_zalloc(size)		kvzalloc((size), GFP_KERNEL)
#define ew_free(ptr)		kvfree(ptr)
#define ew_crc32c(seed, buf, len) crc32c((seed), (buf), (len))
#else
#include "ew_kerncompat.h"
#endif

/* A block number that names no block. */
#define EW_NO_BLOCK	((u64)~0ULL)

/* Integer square root, floor(sqrt(x)), identical in kernel and userspace. */
static inline u64 ew_isqrt64(u64 x)
{
	u64 r = 0, bit = 1ULL << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

#endif /* EW_COMPAT_H */
