/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_kerncompat.h - the kernel types and helpers that the portable core
 * (dm-eagerwrite/core/) uses, provided for userspace builds.  Keep this
 * the only userspace-specific piece of the core's build.
 */
#ifndef EW_KERNCOMPAT_H
#define EW_KERNCOMPAT_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>		/* snprintf, as in the kernel */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
/* __le16/__le32/__le64, the same typedefs <sys/stat.h> may pull in. */
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define ew_zalloc(size)		calloc(1, (size))
#define ew_free(ptr)		free(ptr)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define fallthrough		__attribute__((__fallthrough__))

/* Set bits of a word (the kernel's is <linux/bitops.h>'s). */
static inline unsigned int hweight64(u64 w)
{
	return (unsigned int)__builtin_popcountll(w);
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 mul_u64_u32_div(u64 a, u32 mul, u32 divisor)
{
	return (u64)(((unsigned __int128)a * mul) / divisor);
}

/* Little-endian on-disk helpers (the tools run on little-endian hosts, but
 * say what they mean). */
static inline u32 le32_to_cpu(__le32 v) { return v; }
static inline __le32 cpu_to_le32(u32 v) { return v; }
static inline u64 le64_to_cpu(__le64 v) { return v; }
static inline __le64 cpu_to_le64(u64 v) { return v; }
static inline u16 le16_to_cpu(__le16 v) { return v; }
static inline __le16 cpu_to_le16(u16 v) { return v; }

/* Castagnoli CRC, bitwise; the same function as the kernel's crc32c(). */
static inline u32 ew_crc32c(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78U & (0U - (crc & 1)));
	}
	return crc;
}

#endif /* EW_KERNCOMPAT_H */
