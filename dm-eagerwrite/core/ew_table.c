// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_table.c - parses the words of an eagerwrite table line and prints
 * them back (see ew_table.h for the syntax), in the manner of dm-raid:
 * one table of keys drives parsing and printing, each key has an
 * allow-mask of layouts, and every rejection is a static message naming
 * the argument and what is wrong with it.  All messages are in
 * ew_table_msgs[] below and in Documentation/table-errors.rst.
 */
#include "ew_table.h"

enum ew_table_err {
	EW_TERR_NONE = 0,
	EW_TERR_MISSING_LAYOUT,
	EW_TERR_LAYOUT,
	EW_TERR_MISSING_NR_ARGS,
	EW_TERR_NR_ARGS,
	EW_TERR_ODD_ARGS,
	EW_TERR_FEW_ARGS,
	EW_TERR_KEY,
	EW_TERR_DILUTION_RAID10,
	EW_TERR_DUP_MIRRORS,
	EW_TERR_DUP_DILUTION,
	EW_TERR_DUP_SYNC,
	EW_TERR_DUP_CHUNK,
	EW_TERR_DUP_BLOCK,
	EW_TERR_DUP_DELAY,
	EW_TERR_DUP_JCOPY,
	EW_TERR_MIRRORS,
	EW_TERR_MIRRORS_RANGE,
	EW_TERR_MIRRORS_DDM,
	EW_TERR_DILUTION,
	EW_TERR_DILUTION_RANGE,
	EW_TERR_DILUTION_ONE,
	EW_TERR_SYNC,
	EW_TERR_SYNC_MIRRORS,
	EW_TERR_CHUNK,
	EW_TERR_CHUNK_POW2,
	EW_TERR_CHUNK_SMALL,
	EW_TERR_CHUNK_LARGE,
	EW_TERR_BLOCK,
	EW_TERR_BLOCK_RANGE,
	EW_TERR_DELAY,
	EW_TERR_DELAY_RANGE,
	EW_TERR_JCOPY,
	EW_TERR_JCOPY_RANGE,
	EW_TERR_JCOPY_SYNC,
	EW_TERR_MISSING_META,
	EW_TERR_MISSING_NR_DEVS,
	EW_TERR_NR_DEVS,
	EW_TERR_NR_DEVS_RANGE,
	EW_TERR_FEW_DEVS,
	EW_TERR_DEVS_DIVISIBLE,
	EW_TERR_DEVS_DDM_ODD,
	EW_TERR_DUP_DEV,
	EW_TERR_ALL_MISSING,
	EW_TERR_META_IS_DATA,
	EW_TERR_NR_FEATURES,
	EW_TERR_FEW_FEATURES,
	EW_TERR_FEATURE,
	EW_TERR_TRAILING,
	EW_TERR_DUP_MMIRROR,
	EW_TERR_MMIRROR_DEV,
	EW_TERR_MMIRROR_IS_META,
	EW_TERR_MMIRROR_IS_DATA,
	EW_TERR_MMIRROR_MEMBERS,
	EW_TERR_NR
};

static const char *const ew_table_msgs[EW_TERR_NR] = {
	[EW_TERR_MISSING_LAYOUT] = "Missing layout",
	[EW_TERR_LAYOUT] = "Unknown layout",
	[EW_TERR_MISSING_NR_ARGS] = "Missing number of layout arguments",
	[EW_TERR_NR_ARGS] = "Invalid number of layout arguments",
	[EW_TERR_ODD_ARGS] = "Odd number of layout arguments",
	[EW_TERR_FEW_ARGS] = "Not enough layout arguments",
	[EW_TERR_KEY] = "Unknown key",
	[EW_TERR_DILUTION_RAID10] = "Key dilution not allowed for layout raid10",
	[EW_TERR_DUP_MIRRORS] = "Duplicate key mirrors",
	[EW_TERR_DUP_DILUTION] = "Duplicate key dilution",
	[EW_TERR_DUP_SYNC] = "Duplicate key sync",
	[EW_TERR_DUP_CHUNK] = "Duplicate key chunk_sectors",
	[EW_TERR_DUP_BLOCK] = "Duplicate key block_size",
	[EW_TERR_DUP_DELAY] = "Duplicate key delay_queue",
	[EW_TERR_DUP_JCOPY] = "Duplicate key journal_copy",
	[EW_TERR_MIRRORS] = "Invalid mirrors value",
	[EW_TERR_MIRRORS_RANGE] = "mirrors out of range (2 to 8)",
	[EW_TERR_MIRRORS_DDM] = "mirrors must be 2 for layout ddm",
	[EW_TERR_DILUTION] = "Invalid dilution value",
	[EW_TERR_DILUTION_RANGE] = "dilution out of range (1 to 100)",
	[EW_TERR_DILUTION_ONE] = "dilution must be above 1 for ddm and ew",
	[EW_TERR_SYNC] = "Invalid sync value (1 or 2)",
	[EW_TERR_SYNC_MIRRORS] = "sync exceeds mirrors",
	[EW_TERR_CHUNK] = "Invalid chunk_sectors value",
	[EW_TERR_CHUNK_POW2] = "chunk_sectors must be a power of two",
	[EW_TERR_CHUNK_SMALL] = "chunk_sectors smaller than a block",
	[EW_TERR_CHUNK_LARGE] = "chunk_sectors too large (at most 2097152)",
	[EW_TERR_BLOCK] = "Invalid block_size value",
	[EW_TERR_BLOCK_RANGE] = "block_size must be a power of two from 4096 to 65536",
	[EW_TERR_DELAY] = "Invalid delay_queue value",
	[EW_TERR_DELAY_RANGE] = "delay_queue out of range (1 to 10000000)",
	[EW_TERR_JCOPY] = "Invalid journal_copy value",
	[EW_TERR_JCOPY_RANGE] = "journal_copy out of range (1 to 1048576)",
	[EW_TERR_JCOPY_SYNC] = "journal_copy needs sync 1",
	[EW_TERR_MISSING_META] = "Missing metadata device",
	[EW_TERR_MISSING_NR_DEVS] = "Missing number of data devices",
	[EW_TERR_NR_DEVS] = "Invalid number of data devices",
	[EW_TERR_NR_DEVS_RANGE] = "Wrong number of data devices (2 to 64)",
	[EW_TERR_FEW_DEVS] = "Not enough data devices",
	[EW_TERR_DEVS_DIVISIBLE] = "Number of data devices not divisible by mirrors",
	[EW_TERR_DEVS_DDM_ODD] = "Odd number of data devices for layout ddm",
	[EW_TERR_DUP_DEV] = "Duplicate data device",
	[EW_TERR_ALL_MISSING] = "Every replica of some blocks is on a missing data device",
	[EW_TERR_META_IS_DATA] = "Metadata device is also a data device",
	[EW_TERR_NR_FEATURES] = "Invalid number of feature arguments",
	[EW_TERR_FEW_FEATURES] = "Not enough feature arguments",
	[EW_TERR_FEATURE] = "Unknown feature",
	[EW_TERR_TRAILING] = "Too many arguments",
	[EW_TERR_DUP_MMIRROR] = "Duplicate feature metadata_mirror",
	[EW_TERR_MMIRROR_DEV] = "Feature metadata_mirror needs a device",
	[EW_TERR_MMIRROR_IS_META] = "Metadata mirror is the metadata device",
	[EW_TERR_MMIRROR_IS_DATA] = "Metadata mirror is also a data device",
	[EW_TERR_MMIRROR_MEMBERS] = "Feature metadata_mirror needs a metadata device, not \"-\"",
};

#define EW_LAYOUT_BIT(l)	(1U << (l))
#define EW_ALL_LAYOUTS		((1U << EW_LAYOUT_NR) - 1)

/*
 * The keys of <layout_args>, indexed by enum ew_key (the order TABLE
 * prints them in).  A key is accepted only for the layouts in its mask;
 * forbidden[] names the message for each layout outside it.
 */
static const struct ew_key_info {
	const char *name;
	u32 layouts;
	enum ew_table_err dup;
	enum ew_table_err forbidden[EW_LAYOUT_NR];
	bool printed;	/* TABLE prints it even when not given */
} ew_keys[EW_KEY_NR] = {
	[EW_KEY_MIRRORS] = { "mirrors", EW_ALL_LAYOUTS, EW_TERR_DUP_MIRRORS },
	[EW_KEY_DILUTION] = {
		"dilution",
		EW_LAYOUT_BIT(EW_LAYOUT_DDM) | EW_LAYOUT_BIT(EW_LAYOUT_EW),
		EW_TERR_DUP_DILUTION,
		{ [EW_LAYOUT_RAID10] = EW_TERR_DILUTION_RAID10 },
	},
	[EW_KEY_SYNC] = {
		"sync", EW_ALL_LAYOUTS, EW_TERR_DUP_SYNC, { 0 }, true
	},
	[EW_KEY_CHUNK_SECTORS] = {
		"chunk_sectors", EW_ALL_LAYOUTS, EW_TERR_DUP_CHUNK
	},
	[EW_KEY_BLOCK_SIZE] = {
		"block_size", EW_ALL_LAYOUTS, EW_TERR_DUP_BLOCK
	},
	[EW_KEY_DELAY_QUEUE] = {
		"delay_queue", EW_ALL_LAYOUTS, EW_TERR_DUP_DELAY
	},
	[EW_KEY_JOURNAL_COPY] = {
		"journal_copy", EW_ALL_LAYOUTS, EW_TERR_DUP_JCOPY
	},
};

const char *ew_table_error(unsigned int i)
{
	return i + 1 < EW_TERR_NR ? ew_table_msgs[i + 1] : NULL;
}

const char *ew_key_name(enum ew_key k)
{
	return (unsigned int)k < EW_KEY_NR ? ew_keys[k].name : "unknown";
}

bool ew_key_allowed(enum ew_key k, enum ew_layout l)
{
	return (unsigned int)k < EW_KEY_NR && (unsigned int)l < EW_LAYOUT_NR &&
	       (ew_keys[k].layouts & EW_LAYOUT_BIT(l));
}

int ew_parse_u64(const char *s, u64 *v)
{
	u64 r = 0;
	u32 d;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = (u32)(*s - '0');
		if (r > div_u64(~0ULL - d, 10))
			return -ERANGE;
		r = r * 10 + d;
	}
	*v = r;
	return 0;
}

int ew_parse_u32(const char *s, u32 *v)
{
	u64 r;
	int ret = ew_parse_u64(s, &r);

	if (ret)
		return ret;
	if (r > (u32)~0U)
		return -ERANGE;
	*v = (u32)r;
	return 0;
}

static bool ew_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

/* One key's value; the layout is known, cross-key checks come later. */
static enum ew_table_err ew_parse_value(struct ew_table_args *t,
					enum ew_key k, const char *s)
{
	u32 v;
	int ret;

	switch (k) {
	case EW_KEY_MIRRORS:
		ret = ew_parse_u32(s, &v);
		if (ret == -EINVAL)
			return EW_TERR_MIRRORS;
		if (ret)
			v = ~0U;
		if (t->layout == EW_LAYOUT_DDM && v != 2)
			return EW_TERR_MIRRORS_DDM;
		if (v < 2 || v > EW_MAX_MIRRORS)
			return EW_TERR_MIRRORS_RANGE;
		t->mirrors = v;
		break;
	case EW_KEY_DILUTION:
		ret = ew_parse_dilution(s, &v);
		if (ret == -ERANGE)
			return EW_TERR_DILUTION_RANGE;
		if (ret)
			return EW_TERR_DILUTION;
		/*
		 * At 1 a full ddm or ew volume has no free block: an
		 * overwrite, which needs one before it gives up its old
		 * block, could only fail.  (raid10 refuses the key.)
		 */
		if (v <= 100)
			return EW_TERR_DILUTION_ONE;
		t->dilution_x100 = v;
		break;
	case EW_KEY_SYNC:
		/*
		 * A new mode (a value or a word) is added here and printed
		 * back by ew_out_layout(); TABLE always prints sync, so a
		 * line keeps its mode across versions.
		 */
		if (ew_parse_u32(s, &v) || v < 1 || v > 2)
			return EW_TERR_SYNC;
		t->sync = v;
		break;
	case EW_KEY_CHUNK_SECTORS:
		ret = ew_parse_u32(s, &v);
		if (ret == -EINVAL)
			return EW_TERR_CHUNK;
		if (ret)
			return EW_TERR_CHUNK_LARGE;
		if (!ew_pow2(v))
			return EW_TERR_CHUNK_POW2;
		if (v > EW_MAX_CHUNK_SECTORS)
			return EW_TERR_CHUNK_LARGE;
		t->chunk_sectors = v;
		break;
	case EW_KEY_BLOCK_SIZE:
		ret = ew_parse_u32(s, &v);
		if (ret == -EINVAL)
			return EW_TERR_BLOCK;
		if (ret || !ew_pow2(v) || v < EW_MIN_BLOCK_SECTORS * 512 ||
		    v > EW_MAX_BLOCK_SECTORS * 512)
			return EW_TERR_BLOCK_RANGE;
		t->block_size = v;
		break;
	case EW_KEY_DELAY_QUEUE:
		ret = ew_parse_u32(s, &v);
		if (ret == -EINVAL)
			return EW_TERR_DELAY;
		if (ret || v < 1 || v > EW_MAX_DELAY_QUEUE)
			return EW_TERR_DELAY_RANGE;
		t->delay_queue = v;
		break;
	case EW_KEY_JOURNAL_COPY:
		ret = ew_parse_u32(s, &v);
		if (ret == -EINVAL)
			return EW_TERR_JCOPY;
		if (ret || v < 1 || v > EW_MAX_JOURNAL_COPY)
			return EW_TERR_JCOPY_RANGE;
		t->journal_copy = v;
		break;
	default:
		return EW_TERR_KEY;
	}
	return EW_TERR_NONE;
}

static enum ew_table_err ew_parse_layout_args(struct ew_table_args *t,
					      unsigned int nargs, char **argv)
{
	enum ew_table_err e;
	unsigned int i, k;

	for (i = 0; i + 1 < nargs; i += 2) {
		for (k = 0; k < EW_KEY_NR; k++)
			if (!strcmp(argv[i], ew_keys[k].name))
				break;
		if (k == EW_KEY_NR)
			return EW_TERR_KEY;
		if (!(ew_keys[k].layouts & EW_LAYOUT_BIT(t->layout))) {
			e = ew_keys[k].forbidden[t->layout];
			return e ? e : EW_TERR_KEY;
		}
		if (t->given & (1U << k))
			return ew_keys[k].dup;
		e = ew_parse_value(t, (enum ew_key)k, argv[i + 1]);
		if (e)
			return e;
		t->given |= 1U << k;
	}
	if (t->sync > t->mirrors)
		return EW_TERR_SYNC_MIRRORS;
	/*
	 * The copy is the second durable copy of a sync 1 write: with
	 * sync 2 (or more) there is nothing for it to do.  mirrors is
	 * at least 2 for every layout.
	 */
	if (t->journal_copy && t->sync != 1)
		return EW_TERR_JCOPY_SYNC;
	if (t->chunk_sectors < t->block_size / 512)
		return EW_TERR_CHUNK_SMALL;
	return EW_TERR_NONE;
}

static enum ew_table_err ew_parse_devs(struct ew_table_args *t,
				       unsigned int argc, char **argv,
				       unsigned int *used)
{
	unsigned int i, j;
	u32 n;
	int ret;

	if (argc < 1)
		return EW_TERR_MISSING_META;
	t->metadata_dev = argv[0];
	if (argc < 2)
		return EW_TERR_MISSING_NR_DEVS;
	ret = ew_parse_u32(argv[1], &n);
	if (ret == -EINVAL)
		return EW_TERR_NR_DEVS;
	if (ret || n < EW_MIN_DISKS || n > EW_MAX_DISKS)
		return EW_TERR_NR_DEVS_RANGE;
	if (n > argc - 2)
		return EW_TERR_FEW_DEVS;
	if (t->layout == EW_LAYOUT_DDM && (n & 1))
		return EW_TERR_DEVS_DDM_ODD;
	if (n % t->mirrors)
		return EW_TERR_DEVS_DIVISIBLE;
	t->nr_disks = n;
	for (i = 0; i < n; i++) {
		t->data_devs[i] = argv[2 + i];
		/* "-": a missing member (dm-raid's way), any number of them */
		if (ew_table_dev_missing(t, i))
			continue;
		if (!ew_table_meta_on_members(t) &&
		    !strcmp(t->data_devs[i], t->metadata_dev))
			return EW_TERR_META_IS_DATA;
		for (j = 0; j < i; j++)
			if (!strcmp(t->data_devs[i], t->data_devs[j]))
				return EW_TERR_DUP_DEV;
	}
	if (!ew_table_missing_ok(t))
		return EW_TERR_ALL_MISSING;
	*used = 2 + n;
	return EW_TERR_NONE;
}

bool ew_table_meta_on_members(const struct ew_table_args *t)
{
	return t->metadata_dev && !strcmp(t->metadata_dev, EW_MISSING_DEV);
}

bool ew_table_dev_missing(const struct ew_table_args *t, u32 i)
{
	return i < t->nr_disks && t->data_devs[i] &&
	       !strcmp(t->data_devs[i], EW_MISSING_DEV);
}

/*
 * Each block keeps a replica on a member outside "gone" (bit i: member
 * i missing, failed or unreadable): raid10 and ew put replica k of
 * column c on member k * W + c (W = N / mirrors); ddm puts both
 * replicas of pair p on members 2p and 2p + 1 (ew_geom.h).
 */
bool ew_table_members_ok(const struct ew_table_args *t, u64 gone)
{
	u32 w, c, k, n = t->nr_disks;
	bool alive;

	if (t->layout == EW_LAYOUT_DDM) {
		for (c = 0; c + 1 < n; c += 2)
			if ((gone >> c & 1) && (gone >> (c + 1) & 1))
				return false;
		return true;
	}
	if (!t->mirrors || n % t->mirrors)
		return true;
	w = n / t->mirrors;
	for (c = 0; c < w; c++) {
		alive = false;
		for (k = 0; k < t->mirrors; k++)
			if (!(gone >> (k * w + c) & 1))
				alive = true;
		if (!alive)
			return false;
	}
	return true;
}

bool ew_table_missing_ok(const struct ew_table_args *t)
{
	u64 gone = 0;
	u32 i;

	for (i = 0; i < t->nr_disks && i < 64; i++)
		if (ew_table_dev_missing(t, i))
			gone |= 1ULL << i;
	return ew_table_members_ok(t, gone);
}

/*
 * Features: "metadata_mirror <dev>", a second copy of the metadata (the
 * only feature so far; its device is neither the metadata device nor a
 * data device).
 */
static enum ew_table_err ew_parse_features(struct ew_table_args *t,
					   unsigned int argc, char **argv)
{
	const char *dev;
	u32 n, i, j;

	t->nr_features = 0;
	if (!argc)
		return EW_TERR_NONE;	/* a missing count means none */
	if (ew_parse_u32(argv[0], &n))
		return EW_TERR_NR_FEATURES;
	if (n > argc - 1)
		return EW_TERR_FEW_FEATURES;
	for (i = 1; i <= n; i++) {
		if (strcmp(argv[i], "metadata_mirror"))
			return EW_TERR_FEATURE;
		if (t->metadata_mirror)
			return EW_TERR_DUP_MMIRROR;
		if (ew_table_meta_on_members(t))
			return EW_TERR_MMIRROR_MEMBERS;
		if (i + 1 > n)
			return EW_TERR_MMIRROR_DEV;
		dev = argv[++i];
		if (!strcmp(dev, t->metadata_dev))
			return EW_TERR_MMIRROR_IS_META;
		for (j = 0; j < t->nr_disks; j++)
			if (!strcmp(dev, t->data_devs[j]))
				return EW_TERR_MMIRROR_IS_DATA;
		t->metadata_mirror = dev;
	}
	if (argc > 1 + n)
		return EW_TERR_TRAILING;
	t->nr_features = n;
	return EW_TERR_NONE;
}

static void ew_table_defaults(struct ew_table_args *t)
{
	memset(t, 0, sizeof(*t));
	t->mirrors = EW_DEFAULT_MIRRORS;
	t->dilution_x100 = EW_DEFAULT_DILUTION_X100;
	t->sync = EW_DEFAULT_SYNC;
	t->chunk_sectors = EW_DEFAULT_CHUNK_SECTORS;
	t->block_size = EW_DEFAULT_BLOCK_SIZE;
	t->delay_queue = EW_DEFAULT_DELAY_QUEUE;
}

static enum ew_table_err ew_parse_all(unsigned int argc, char **argv,
				      struct ew_table_args *t)
{
	enum ew_table_err e;
	unsigned int i, used = 0;
	u32 nargs;
	int ret;

	ew_table_defaults(t);
	if (argc < 1)
		return EW_TERR_MISSING_LAYOUT;
	if (ew_layout_parse(argv[0], &t->layout))
		return EW_TERR_LAYOUT;
	/* raid10 has no free space: its dilution is 1 */
	if (t->layout == EW_LAYOUT_RAID10)
		t->dilution_x100 = 100;
	if (argc < 2)
		return EW_TERR_MISSING_NR_ARGS;
	ret = ew_parse_u32(argv[1], &nargs);
	if (ret == -EINVAL)
		return EW_TERR_NR_ARGS;
	if (!ret && (nargs & 1))
		return EW_TERR_ODD_ARGS;
	if (ret || nargs > argc - 2)
		return EW_TERR_FEW_ARGS;
	e = ew_parse_layout_args(t, nargs, argv + 2);
	if (e)
		return e;
	i = 2 + nargs;
	e = ew_parse_devs(t, argc - i, argv + i, &used);
	if (e)
		return e;
	i += used;
	return ew_parse_features(t, argc - i, argv + i);
}

int ew_table_parse(unsigned int argc, char **argv, struct ew_table_args *t,
		   const char **error)
{
	enum ew_table_err e = ew_parse_all(argc, argv, t);

	if (e) {
		if (error)
			*error = ew_table_msgs[e];
		return -EINVAL;
	}
	return 0;
}

const char *ew_table_risk(const struct ew_table_args *t)
{
	/* journal_copy keeps the second copy (or falls back to sync 2) */
	if (t->sync < 2 && t->mirrors >= 2 && !t->journal_copy)
		return "sync 1: a write has one durable copy until its delayed replica is written";
	return NULL;
}

void ew_table_geom_params(const struct ew_table_args *t, u64 disk_sectors,
			  struct ew_geom_params *p)
{
	memset(p, 0, sizeof(*p));
	p->layout = t->layout;
	p->nr_disks = t->nr_disks;
	p->mirrors = t->mirrors;
	p->dilution_x100 = t->dilution_x100;
	p->block_sectors = t->block_size / 512;
	p->chunk_sectors = t->chunk_sectors;
	p->disk_sectors = disk_sectors;
}

int ew_table_geom(const struct ew_table_args *t, u64 disk_sectors,
		  u64 len_sectors, struct ew_geom *g, const char **error)
{
	struct ew_geom_params p;
	u64 len_blocks;

	ew_table_geom_params(t, disk_sectors, &p);
	if (ew_geom_len_blocks(&p, len_sectors, &len_blocks, error))
		return -EINVAL;
	return ew_geom_init(g, &p, len_blocks, error);
}

/* snprintf that appends at *pos and keeps counting past the end. */
struct ew_out {
	char *buf;
	size_t len;
	size_t pos;
};

static void ew_out_str(struct ew_out *o, const char *s)
{
	size_t n = strlen(s);

	if (o->pos < o->len) {
		size_t room = o->len - o->pos - 1;
		size_t c = n < room ? n : room;

		memcpy(o->buf + o->pos, s, c);
		o->buf[o->pos + c] = '\0';
	}
	o->pos += n;
}

static void ew_out_u32(struct ew_out *o, u32 v)
{
	char num[12];

	snprintf(num, sizeof(num), "%u", v);
	ew_out_str(o, num);
}

static bool ew_key_printed(const struct ew_table_args *t, unsigned int k)
{
	return (t->given & (1U << k)) || ew_keys[k].printed;
}

static void ew_out_layout(struct ew_out *o, const struct ew_table_args *t)
{
	char dil[16];
	unsigned int k, nargs = 0;
	u32 v;

	for (k = 0; k < EW_KEY_NR; k++)
		if (ew_key_printed(t, k))
			nargs += 2;
	ew_out_str(o, ew_layout_name(t->layout));
	ew_out_str(o, " ");
	ew_out_u32(o, nargs);
	for (k = 0; k < EW_KEY_NR; k++) {
		if (!ew_key_printed(t, k))
			continue;
		ew_out_str(o, " ");
		ew_out_str(o, ew_keys[k].name);
		ew_out_str(o, " ");
		switch (k) {
		case EW_KEY_DILUTION:
			ew_format_dilution(dil, sizeof(dil), t->dilution_x100);
			ew_out_str(o, dil);
			continue;
		case EW_KEY_MIRRORS:
			v = t->mirrors;
			break;
		case EW_KEY_SYNC:
			v = t->sync;
			break;
		case EW_KEY_CHUNK_SECTORS:
			v = t->chunk_sectors;
			break;
		case EW_KEY_BLOCK_SIZE:
			v = t->block_size;
			break;
		case EW_KEY_JOURNAL_COPY:
			v = t->journal_copy;
			break;
		default:
			v = t->delay_queue;
			break;
		}
		ew_out_u32(o, v);
	}
}

static int ew_out_end(struct ew_out *o)
{
	if (o->len && o->pos >= o->len)
		o->buf[o->len - 1] = '\0';
	return o->pos > 0x7fffffff ? 0x7fffffff : (int)o->pos;
}

int ew_table_format_layout(const struct ew_table_args *t, char *buf,
			   size_t len)
{
	struct ew_out o = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	ew_out_layout(&o, t);
	return ew_out_end(&o);
}

int ew_table_format(const struct ew_table_args *t, char *buf, size_t len)
{
	struct ew_out o = { buf, len, 0 };
	unsigned int i;

	if (len)
		buf[0] = '\0';
	ew_out_layout(&o, t);
	ew_out_str(&o, " ");
	ew_out_str(&o, t->metadata_dev ? t->metadata_dev : "-");
	ew_out_str(&o, " ");
	ew_out_u32(&o, t->nr_disks);
	for (i = 0; i < t->nr_disks && i < EW_MAX_DISKS; i++) {
		ew_out_str(&o, " ");
		ew_out_str(&o, t->data_devs[i]);
	}
	if (t->metadata_mirror) {
		ew_out_str(&o, " 2 metadata_mirror ");
		ew_out_str(&o, t->metadata_mirror);
	} else {
		ew_out_str(&o, " 0");
	}
	return ew_out_end(&o);
}
