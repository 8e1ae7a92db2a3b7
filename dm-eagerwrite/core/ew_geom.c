// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_geom.c - array geometry: capacity, region and the O(1) map from a
 * logical block to its replicas' disks and fixed homes, for the raid10,
 * ddm and ew layouts.  The mapping itself is documented in ew_geom.h and
 * Documentation/geometry.rst; this file owns the arithmetic and the
 * checks of the geometry parameters.
 *
 * All sizes are in blocks of block_sectors.  Every product that could
 * overflow 64 bits on absurd inputs is bounded by the checks first
 * (members of at most EW_MAX_DISK_SECTORS, chunks of at most
 * EW_MAX_CHUNK_SECTORS).
 */
#include "ew_geom.h"

/*
 * Every message ew_geom_check() and ew_geom_init() can return, in one
 * place; they become ti->error and are listed in
 * Documentation/table-errors.rst.
 */
enum ew_geom_err {
	EW_GERR_LAYOUT,
	EW_GERR_DISKS,
	EW_GERR_MIRRORS,
	EW_GERR_DDM_MIRRORS,
	EW_GERR_DIVISIBLE,
	EW_GERR_DDM_ODD,
	EW_GERR_BLOCK,
	EW_GERR_CHUNK,
	EW_GERR_CHUNK_SMALL,
	EW_GERR_CHUNK_LARGE,
	EW_GERR_DILUTION,
	EW_GERR_DISK_LARGE,
	EW_GERR_DISK_SMALL,
	EW_GERR_LEN_ZERO,
	EW_GERR_LEN_ALIGN,
	EW_GERR_LEN_CAPACITY,
	EW_GERR_NR
};

static const char *const ew_geom_msgs[EW_GERR_NR] = {
	[EW_GERR_LAYOUT] = "Unknown layout",
	[EW_GERR_DISKS] = "Wrong number of data devices (2 to 64)",
	[EW_GERR_MIRRORS] = "mirrors out of range (2 to 8)",
	[EW_GERR_DDM_MIRRORS] = "mirrors must be 2 for layout ddm",
	[EW_GERR_DIVISIBLE] = "Number of data devices not divisible by mirrors",
	[EW_GERR_DDM_ODD] = "Odd number of data devices for layout ddm",
	[EW_GERR_BLOCK] = "block_size must be a power of two from 4096 to 65536",
	[EW_GERR_CHUNK] = "chunk_sectors must be a power of two",
	[EW_GERR_CHUNK_SMALL] = "chunk_sectors smaller than a block",
	[EW_GERR_CHUNK_LARGE] = "chunk_sectors too large (at most 2097152)",
	[EW_GERR_DILUTION] = "dilution out of range (1 to 100)",
	[EW_GERR_DISK_LARGE] = "Data devices too large (at most 2^48 sectors)",
	[EW_GERR_DISK_SMALL] = "Data devices too small for the layout",
	[EW_GERR_LEN_ZERO] = "Length is zero",
	[EW_GERR_LEN_ALIGN] = "Length not a multiple of block_size",
	[EW_GERR_LEN_CAPACITY] = "Length exceeds the array's capacity",
};

#define GERR(id) (ew_geom_msgs[EW_GERR_##id])

const char *ew_geom_error(unsigned int i)
{
	return i < EW_GERR_NR ? ew_geom_msgs[i] : NULL;
}

static const char *const ew_layout_names[EW_LAYOUT_NR] = {
	[EW_LAYOUT_RAID10] = "raid10",
	[EW_LAYOUT_DDM] = "ddm",
	[EW_LAYOUT_EW] = "ew",
};

const char *ew_layout_name(enum ew_layout l)
{
	return (unsigned int)l < EW_LAYOUT_NR ? ew_layout_names[l] : "unknown";
}

int ew_layout_parse(const char *s, enum ew_layout *l)
{
	unsigned int i;

	for (i = 0; i < EW_LAYOUT_NR; i++) {
		if (!strcmp(s, ew_layout_names[i])) {
			*l = (enum ew_layout)i;
			return 0;
		}
	}
	return -EINVAL;
}

static bool ew_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Strict: one or more digits, then optionally '.' and one or two digits.
 * No sign, no exponent, no spaces.  -EINVAL for bad syntax, -ERANGE for
 * a well-formed value outside 1..100 (EW_MAX_DILUTION_X100).
 */
int ew_parse_dilution(const char *s, u32 *x100)
{
	u64 whole = 0;
	u32 frac = 0, nfrac = 0;
	const char *p = s;

	if (!ew_is_digit(*p))
		return -EINVAL;
	while (ew_is_digit(*p)) {
		/* Saturate: anything this large is out of range anyway. */
		if (whole < 1000000)
			whole = whole * 10 + (u64)(*p - '0');
		p++;
	}
	if (*p == '.') {
		p++;
		while (ew_is_digit(*p)) {
			if (++nfrac > 2)
				return -EINVAL;
			frac = frac * 10 + (u32)(*p - '0');
			p++;
		}
		if (!nfrac)
			return -EINVAL;
		if (nfrac == 1)
			frac *= 10;
	}
	if (*p)
		return -EINVAL;
	whole = whole * 100 + frac;
	if (whole < 100 || whole > EW_MAX_DILUTION_X100)
		return -ERANGE;
	*x100 = (u32)whole;
	return 0;
}

int ew_format_dilution(char *buf, size_t len, u32 x100)
{
	u32 whole = x100 / 100, frac = x100 % 100;

	if (!frac)
		return snprintf(buf, len, "%u", whole);
	if (frac % 10 == 0)
		return snprintf(buf, len, "%u.%u", whole, frac / 10);
	return snprintf(buf, len, "%u.%02u", whole, frac);
}

static bool ew_is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

/* ceil(blocks * Dd): the space a share of blocks occupies at dilution Dd. */
static u64 ew_diluted(u64 blocks, u32 dilution_x100)
{
	u64 r = mul_u64_u32_div(blocks, dilution_x100, 100);
	u32 rem;

	div_u64_rem(blocks, 100, &rem);
	if ((rem * dilution_x100) % 100)
		r++;
	return r;
}

/* Everything but the size test; NULL when the params are sane. */
static const char *ew_params_error(const struct ew_geom_params *p)
{
	if ((unsigned int)p->layout >= EW_LAYOUT_NR)
		return GERR(LAYOUT);
	if (p->nr_disks < EW_MIN_DISKS || p->nr_disks > EW_MAX_DISKS)
		return GERR(DISKS);
	if (p->layout == EW_LAYOUT_DDM && p->mirrors != 2)
		return GERR(DDM_MIRRORS);
	if (p->mirrors < 2 || p->mirrors > EW_MAX_MIRRORS)
		return GERR(MIRRORS);
	if (p->layout == EW_LAYOUT_DDM && (p->nr_disks & 1))
		return GERR(DDM_ODD);
	if (p->nr_disks % p->mirrors)
		return GERR(DIVISIBLE);
	if (!ew_is_pow2(p->block_sectors) ||
	    p->block_sectors < EW_MIN_BLOCK_SECTORS ||
	    p->block_sectors > EW_MAX_BLOCK_SECTORS)
		return GERR(BLOCK);
	if (!ew_is_pow2(p->chunk_sectors))
		return GERR(CHUNK);
	if (p->chunk_sectors < p->block_sectors)
		return GERR(CHUNK_SMALL);
	if (p->chunk_sectors > EW_MAX_CHUNK_SECTORS)
		return GERR(CHUNK_LARGE);
	if (ew_layout_eager(p->layout) &&
	    (p->dilution_x100 < 100 ||
	     p->dilution_x100 > EW_MAX_DILUTION_X100))
		return GERR(DILUTION);
	if (p->disk_sectors > EW_MAX_DISK_SECTORS)
		return GERR(DISK_LARGE);
	return NULL;
}

/* Capacity without the checks; params must be sane. */
static u64 ew_capacity(const struct ew_geom_params *p)
{
	u32 cb = p->chunk_sectors / p->block_sectors;
	u64 db = div_u64(p->disk_sectors, p->block_sectors);
	u32 w, unit;
	u64 share;

	switch (p->layout) {
	case EW_LAYOUT_RAID10:
		w = p->nr_disks / p->mirrors;
		return div_u64(db, cb) * cb * w;
	case EW_LAYOUT_DDM:
		/* Two rows (one home chunk, one partner's) per unit. */
		unit = cb + (u32)ew_diluted(cb, p->dilution_x100);
		return div_u64(db, unit) * 2 * cb * (p->nr_disks / 2);
	case EW_LAYOUT_EW:
	default:
		/* Largest whole-chunk share with ceil(share * Dd) <= db. */
		w = p->nr_disks / p->mirrors;
		share = mul_u64_u32_div(db, 100, p->dilution_x100);
		return div_u64(share, cb) * cb * w;
	}
}

int ew_geom_check(const struct ew_geom_params *p, const char **why)
{
	const char *e = ew_params_error(p);

	if (!e && !ew_capacity(p))
		e = GERR(DISK_SMALL);
	if (e) {
		if (why)
			*why = e;
		return -EINVAL;
	}
	return 0;
}

u64 ew_geom_capacity_blocks(const struct ew_geom_params *p)
{
	return ew_params_error(p) ? 0 : ew_capacity(p);
}

int ew_geom_len_blocks(const struct ew_geom_params *p, u64 len_sectors,
		       u64 *len_blocks, const char **why)
{
	const char *e = NULL;
	u64 cap;

	if (ew_geom_check(p, why))
		return -EINVAL;
	cap = ew_capacity(p);
	if (!len_sectors)
		e = GERR(LEN_ZERO);
	else if (len_sectors & (p->block_sectors - 1))
		e = GERR(LEN_ALIGN);
	else if (div_u64(len_sectors, p->block_sectors) > cap)
		e = GERR(LEN_CAPACITY);
	if (e) {
		if (why)
			*why = e;
		return -EINVAL;
	}
	*len_blocks = div_u64(len_sectors, p->block_sectors);
	return 0;
}

int ew_geom_init(struct ew_geom *g, const struct ew_geom_params *p,
		 u64 len_blocks, const char **why)
{
	const char *e = NULL;
	u64 rows, chunks;

	if (ew_geom_check(p, why))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->p = *p;
	g->chunk_blocks = p->chunk_sectors / p->block_sectors;
	g->disk_blocks = div_u64(p->disk_sectors, p->block_sectors);
	g->capacity_blocks = ew_capacity(p);
	if (!len_blocks)
		e = GERR(LEN_ZERO);
	else if (len_blocks > g->capacity_blocks)
		e = GERR(LEN_CAPACITY);
	if (e) {
		if (why)
			*why = e;
		return -EINVAL;
	}
	g->len_blocks = len_blocks;
	chunks = DIV_ROUND_UP(len_blocks, (u64)g->chunk_blocks);
	switch (p->layout) {
	case EW_LAYOUT_RAID10:
		g->width = p->nr_disks / p->mirrors;
		rows = DIV_ROUND_UP(chunks, (u64)g->width);
		g->region_blocks = rows * g->chunk_blocks;
		break;
	case EW_LAYOUT_DDM:
		g->width = p->nr_disks / 2;
		g->unit_blocks = g->chunk_blocks +
			(u32)ew_diluted(g->chunk_blocks, p->dilution_x100);
		rows = DIV_ROUND_UP(chunks, (u64)g->width);
		g->region_blocks = DIV_ROUND_UP(rows, 2) * g->unit_blocks;
		break;
	case EW_LAYOUT_EW:
	default:
		g->width = p->nr_disks / p->mirrors;
		rows = DIV_ROUND_UP(chunks, (u64)g->width);
		g->region_blocks = ew_diluted(rows * g->chunk_blocks,
					      p->dilution_x100);
		break;
	}
	return 0;
}

u32 ew_geom_map(const struct ew_geom *g, u64 lblock, struct ew_replica *r)
{
	u32 off, col, k, home_disk;
	u64 c, row;

	c = div_u64_rem(lblock, g->chunk_blocks, &off);
	row = div_u64_rem(c, g->width, &col);
	switch (g->p.layout) {
	case EW_LAYOUT_RAID10:
		for (k = 0; k < g->p.mirrors; k++) {
			r[k].disk = k * g->width + col;
			r[k].home = row * g->chunk_blocks + off;
		}
		return g->p.mirrors;
	case EW_LAYOUT_DDM:
		/* col is the pair; rows alternate their home disk. */
		home_disk = 2 * col + (u32)(row & 1);
		r[0].disk = home_disk;
		r[0].home = (row >> 1) * g->unit_blocks + off;
		r[1].disk = home_disk ^ 1;
		r[1].home = EW_NO_BLOCK;
		return 2;
	case EW_LAYOUT_EW:
	default:
		for (k = 0; k < g->p.mirrors; k++) {
			r[k].disk = k * g->width + col;
			r[k].home = EW_NO_BLOCK;
		}
		return g->p.mirrors;
	}
}

bool ew_geom_is_home(const struct ew_geom *g, u32 disk, u64 pblock)
{
	u32 off;

	if (disk >= g->p.nr_disks || pblock >= g->region_blocks)
		return false;
	switch (g->p.layout) {
	case EW_LAYOUT_RAID10:
		return true;
	case EW_LAYOUT_DDM:
		div_u64_rem(pblock, g->unit_blocks, &off);
		return off < g->chunk_blocks;
	default:
		return false;
	}
}

u64 ew_geom_home_run(const struct ew_geom *g, u32 disk, u64 pblock,
		     u64 *count)
{
	u64 end = g->region_blocks, first = end;
	u32 off;

	*count = 0;
	if (disk >= g->p.nr_disks || pblock >= end)
		return end;
	switch (g->p.layout) {
	case EW_LAYOUT_RAID10:
		first = pblock;
		*count = end - first;
		break;
	case EW_LAYOUT_DDM:
		div_u64_rem(pblock, g->unit_blocks, &off);
		if (off < g->chunk_blocks) {
			first = pblock;
			*count = g->chunk_blocks - off;
		} else {
			first = pblock - off + g->unit_blocks;
			*count = g->chunk_blocks;
		}
		if (first >= end) {
			first = end;
			*count = 0;
		} else if (*count > end - first) {
			*count = end - first;
		}
		break;
	default:
		break;
	}
	return first;
}

u32 ew_geom_stripe_x100(const struct ew_geom *g)
{
	u64 ds;

	if (!g->region_blocks)
		return 0;
	ds = div64_u64(g->disk_blocks * 100, g->region_blocks);
	return ds > (u32)~0U ? (u32)~0U : (u32)ds;
}
