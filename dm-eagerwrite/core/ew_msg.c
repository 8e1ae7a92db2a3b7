// SPDX-License-Identifier: GPL-2.0-only
/*
 * ew_msg.c - the target's messages, parsed (see ew_msg.h).
 */
#include "ew_msg.h"
#include "ew_table.h"

#define EW_PK(f, w) { #f, offsetof(struct ew_disk_params, f), w }
const struct ew_param_key ew_param_keys[] = {
	EW_PK(rotation_ns, true),
	EW_PK(phase_ns, true),
	EW_PK(single_cyl_ns, false),
	EW_PK(seek_a_ns, false),
	EW_PK(seek_b_ns, false),
	EW_PK(seek_boundary, false),
	EW_PK(seek_c_ns, false),
	EW_PK(seek_e_ns, false),
	EW_PK(head_switch_ns, false),
	EW_PK(write_settle_ns, false),
	EW_PK(overhead_ns, false),
};

const unsigned int ew_nr_param_keys = ARRAY_SIZE(ew_param_keys);

static int ew_msg_bad(struct ew_msg *m, const char *word, const char **why,
		      const char *msg)
{
	m->bad_word = word;
	*why = msg;
	return -EINVAL;
}

static int ew_msg_disk_param(unsigned int argc, char **argv, u32 nr_members,
			     struct ew_msg *m, const char **why)
{
	unsigned int i;

	if (argc != 4)
		return ew_msg_bad(m, NULL, why,
				  "disk_param: expected <member|all> <key> <value>");
	m->op = EW_MSG_DISK_PARAM;
	if (!nr_members)
		return ew_msg_bad(m, argv[1], why, "disk_param: no members");
	if (!strcmp(argv[1], "all")) {
		m->first = 0;
		m->last = nr_members - 1;
	} else {
		if (ew_parse_u32(argv[1], &m->first) || m->first >= nr_members)
			return ew_msg_bad(m, argv[1], why,
					  "disk_param: bad member index");
		m->last = m->first;
	}
	m->key = NULL;
	for (i = 0; i < ew_nr_param_keys; i++)
		if (!strcmp(argv[2], ew_param_keys[i].name))
			m->key = &ew_param_keys[i];
	if (!m->key)
		return ew_msg_bad(m, argv[2], why, "disk_param: unknown key");
	if (ew_parse_u64(argv[3], &m->value) ||
	    (!m->key->wide && m->value > (u32)~0U))
		return ew_msg_bad(m, argv[3], why, "disk_param: bad value");
	return 0;
}

int ew_msg_parse(unsigned int argc, char **argv, u32 nr_members,
		 struct ew_msg *m, const char **why)
{
	memset(m, 0, sizeof(*m));
	if (!argc)
		return ew_msg_bad(m, NULL, why, "empty message");
	if (!strcmp(argv[0], "reset_counters")) {
		if (argc != 1)
			return ew_msg_bad(m, NULL, why,
					  "reset_counters takes no arguments");
		m->op = EW_MSG_RESET_COUNTERS;
		return 0;
	}
	if (!strcmp(argv[0], "checkpoint")) {
		if (argc != 1)
			return ew_msg_bad(m, NULL, why,
					  "checkpoint takes no arguments");
		m->op = EW_MSG_CHECKPOINT;
		return 0;
	}
	if (!strcmp(argv[0], "disk_param"))
		return ew_msg_disk_param(argc, argv, nr_members, m, why);
	if (!strcmp(argv[0], "rebuild_rate")) {
		if (argc != 2)
			return ew_msg_bad(m, NULL, why,
					  "rebuild_rate: expected <MiB/s>");
		m->op = EW_MSG_REBUILD_RATE;
		if (ew_parse_u32(argv[1], &m->rate_mib) ||
		    m->rate_mib > EW_MSG_MAX_REBUILD_RATE)
			return ew_msg_bad(m, argv[1], why,
					  "rebuild_rate: bad value (MiB/s, 0 to 100000)");
		return 0;
	}
	if (!strcmp(argv[0], "rebuild")) {
		if (argc == 2 && !strcmp(argv[1], "pause")) {
			m->op = EW_MSG_REBUILD_PAUSE;
			return 0;
		}
		if (argc == 2 && !strcmp(argv[1], "resume")) {
			m->op = EW_MSG_REBUILD_RESUME;
			return 0;
		}
		return ew_msg_bad(m, argc == 2 ? argv[1] : NULL, why,
				  "rebuild: expected pause or resume");
	}
	return ew_msg_bad(m, argv[0], why, "unknown message");
}

void ew_param_set(struct ew_disk_params *p, const struct ew_param_key *k,
		  u64 v)
{
	if (k->wide)
		*(u64 *)((u8 *)p + k->off) = v;
	else
		*(u32 *)((u8 *)p + k->off) = (u32)v;
}
