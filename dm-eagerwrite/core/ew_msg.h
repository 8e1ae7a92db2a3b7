/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_msg.h - the words of a "dmsetup message" to the target, parsed.
 *
 *   reset_counters
 *   disk_param <member|all> <key> <value>
 *   rebuild pause | rebuild resume
 *   rebuild_rate <MiB/s>
 *
 * Shared by the target's .message, the unit tests, KUnit and the fuzzer,
 * so that what the kernel accepts from userspace is the code that is
 * fuzzed.  The parser only reads its words and writes *m; acting on the
 * message is the target's job.  Error strings are static (the target logs
 * them with the offending word).
 */
#ifndef EW_MSG_H
#define EW_MSG_H

#include "ew_compat.h"
#include "ew_disk.h"

enum ew_msg_op {
	EW_MSG_RESET_COUNTERS = 0,
	EW_MSG_DISK_PARAM,
	EW_MSG_REBUILD_PAUSE,
	EW_MSG_REBUILD_RESUME,
	EW_MSG_REBUILD_RATE,
	EW_MSG_CHECKPOINT,
};

/* rebuild_rate's ceiling, in MiB/s (0: no limit). */
#define EW_MSG_MAX_REBUILD_RATE	100000

/* A disk_param key: a field of struct ew_disk_params. */
struct ew_param_key {
	const char *name;
	size_t off;
	bool wide;		/* u64; otherwise u32 */
};

extern const struct ew_param_key ew_param_keys[];
extern const unsigned int ew_nr_param_keys;

struct ew_msg {
	enum ew_msg_op op;
	/* disk_param: members [first, last], key, value */
	u32 first, last;
	const struct ew_param_key *key;
	u64 value;
	/* rebuild_rate */
	u32 rate_mib;
	/* the word that was refused (NULL: the count of words) */
	const char *bad_word;
};

/*
 * Parses argv[0..argc) for an array of nr_members members.  Returns 0
 * and fills *m, or -EINVAL with *why (static) and m->bad_word set.
 */
int ew_msg_parse(unsigned int argc, char **argv, u32 nr_members,
		 struct ew_msg *m, const char **why);

/* Sets key k of p to v (v fits: ew_msg_parse checked it). */
void ew_param_set(struct ew_disk_params *p, const struct ew_param_key *k,
		  u64 v);

#endif /* EW_MSG_H */
