/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_table.h - the table line's words, parsed and printed back.
 *
 *   <layout> <#layout_args> [<key> <value>]... <metadata_dev>
 *   <#data_devs> <data_dev>... [<#feature_args> [<feature>]...]
 *
 * A <data_dev> of "-" is a missing member (the array runs degraded); a
 * <metadata_dev> of "-" keeps the metadata on the members.
 *
 * Shared by the target's constructor and STATUSTYPE_TABLE, KUnit, the
 * unit tests and ewctl's table builder, so that what is accepted and what
 * is printed back cannot drift apart.  Device words are only checked for
 * count and distinctness here; opening them is the target's job.
 * Error strings are static (they become ti->error).
 */
#ifndef EW_TABLE_H
#define EW_TABLE_H

#include "ew_compat.h"
#include "ew_geom.h"

/* Keys of <layout_args>, in the canonical order TABLE prints them. */
enum ew_key {
	EW_KEY_MIRRORS = 0,
	EW_KEY_DILUTION,
	EW_KEY_SYNC,
	EW_KEY_CHUNK_SECTORS,
	EW_KEY_BLOCK_SIZE,
	EW_KEY_DELAY_QUEUE,
	EW_KEY_JOURNAL_COPY,
	EW_KEY_NR
};

#define EW_DEFAULT_MIRRORS		2
#define EW_DEFAULT_DILUTION_X100	200
/*
 * sync: the replicas written before a write is acknowledged.  The
 * default is 2 (mirrors is at least 2): every acknowledged write, and
 * every write a completed flush covers, has two durable copies, as on
 * md raid10.  sync 1 (the paper's "Delay") must be asked for: a recent
 * write then has one durable copy until its delayed replica is written.
 */
#define EW_DEFAULT_SYNC			2
#define EW_DEFAULT_CHUNK_SECTORS	128
#define EW_DEFAULT_BLOCK_SIZE		4096
#define EW_DEFAULT_DELAY_QUEUE		10000
#define EW_MAX_DELAY_QUEUE		10000000
/*
 * journal_copy <slots>: with sync 1, a write's data also goes into one of
 * <slots> copy slots on the metadata device in the same commit as its map
 * record, the second durable copy until its delayed replica is written
 * (Documentation/eagerwrite.rst).  0: off (the key not given).
 */
#define EW_MAX_JOURNAL_COPY		1048576
/* A data device word for a member that is missing (dm-raid's "-"). */
#define EW_MISSING_DEV			"-"

struct ew_table_args {
	enum ew_layout layout;
	u32 mirrors;
	u32 dilution_x100;
	u32 sync;
	u32 chunk_sectors;
	u32 block_size;		/* bytes */
	u32 delay_queue;
	u32 journal_copy;	/* copy slots; 0: no journal copies */
	u32 given;		/* bit (1 << ew_key) set: key given in the line */
	const char *metadata_dev;
	u32 nr_disks;
	const char *data_devs[EW_MAX_DISKS];
	u32 nr_features;
	const char *metadata_mirror;	/* feature metadata_mirror; or NULL */
};

/*
 * Parses argv[0..argc-1] (the words after "eagerwrite").  Returns 0, or
 * -EINVAL with *error set to a static message naming the argument and
 * what is wrong with it.  On success every field is set (defaults for
 * keys not given) and the combination has been checked (sync <= mirrors,
 * device count against the layout, ...).
 */
int ew_table_parse(unsigned int argc, char **argv, struct ew_table_args *t,
		   const char **error);

/*
 * Is the metadata device word "-": the metadata kept on the members
 * (Documentation/on-disk-format.rst, "Metadata on the members")?
 */
bool ew_table_meta_on_members(const struct ew_table_args *t);
/* Is data device i of a parsed table the missing-member word "-"? */
bool ew_table_dev_missing(const struct ew_table_args *t, u32 i);
/*
 * Does every block keep at least one replica on a present member?  (The
 * parser refuses a line where it does not.)
 */
bool ew_table_missing_ok(const struct ew_table_args *t);
/*
 * Whether every block keeps a replica on a member outside gone (bit i:
 * member i missing, failed or unreadable).
 */
bool ew_table_members_ok(const struct ew_table_args *t, u64 gone);

/*
 * What a parsed table risks, in one sentence for a log line or a tool's
 * warning, or NULL: sync 1 with mirrors >= 2 acknowledges a write with
 * one durable copy until its delayed replica is written.  NULL with
 * journal_copy: the copy slot is the second durable copy (or, on a
 * rotating metadata device, the write waits for two replicas).
 */
const char *ew_table_risk(const struct ew_table_args *t);

/* Geometry parameters of a parsed table for members of disk_sectors. */
void ew_table_geom_params(const struct ew_table_args *t, u64 disk_sectors,
			  struct ew_geom_params *p);

/*
 * Prints "<layout> <#layout_args> [<key> <value>]..." with the keys that
 * were given and sync always (the durability a write gets is never left
 * to a default a later version might change), in canonical order, so
 * that the line reloads exactly.
 * Returns the length it would print (snprintf semantics).
 */
int ew_table_format_layout(const struct ew_table_args *t, char *buf,
			   size_t len);

const char *ew_key_name(enum ew_key k);
/* Does layout l accept key k (the key's allow-mask)? */
bool ew_key_allowed(enum ew_key k, enum ew_layout l);

/*
 * The whole line after "eagerwrite", devices and a feature count ("0")
 * included, in the form ew_table_parse() reads back.  snprintf semantics.
 */
int ew_table_format(const struct ew_table_args *t, char *buf, size_t len);

/*
 * The geometry of a parsed table for members of disk_sectors and a
 * target of len_sectors: ew_table_geom_params(), the length checks of
 * ew_geom_len_blocks() and ew_geom_init().  -EINVAL with *error set.
 */
int ew_table_geom(const struct ew_table_args *t, u64 disk_sectors,
		  u64 len_sectors, struct ew_geom *g, const char **error);

/* The i-th message ew_table_parse() can set; NULL past the last. */
const char *ew_table_error(unsigned int i);

/*
 * Strict decimal: digits only (no sign, space or prefix), no trailing
 * junk.  -EINVAL for bad syntax, -ERANGE on overflow.
 */
int ew_parse_u32(const char *s, u32 *v);
int ew_parse_u64(const char *s, u64 *v);

#endif /* EW_TABLE_H */
