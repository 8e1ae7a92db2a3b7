// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_msg.c - the target's messages (core/ew_msg.c), untrusted words
 * from "dmsetup message".  The first byte is the array's member count
 * (1 to 64), the rest the message's words.  A refused message must say
 * why and, if it names a word, name one of its own; an accepted one must
 * name members, a key and a value the target can apply as they are.
 */
#include "ew_msg.h"
#include "fuzz_util.h"

#define MAX_LINE 4096

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static char buf[MAX_LINE + 1];
	static char *argv[FUZZ_MAX_WORDS];
	struct ew_disk_params p;
	const char *why = NULL;
	struct ew_msg m;
	unsigned int argc, i;
	u32 nr;
	int bad;

	if (!size || size > MAX_LINE)
		return -1;
	nr = data[0] % 64 + 1;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	argc = fuzz_split(buf, argv);
	if (ew_msg_parse(argc, argv, nr, &m, &why)) {
		FUZZ_CHECK(why && *why);
		if (m.bad_word) {
			for (bad = 1, i = 0; i < argc; i++)
				if (m.bad_word == argv[i])
					bad = 0;
			FUZZ_CHECK(!bad);
		}
		return 0;
	}
	switch (m.op) {
	case EW_MSG_RESET_COUNTERS:
	case EW_MSG_CHECKPOINT:
		FUZZ_CHECK(argc == 1);
		break;
	case EW_MSG_DISK_PARAM:
		FUZZ_CHECK(argc == 4 && m.first <= m.last && m.last < nr);
		FUZZ_CHECK(m.key >= ew_param_keys &&
			   m.key < ew_param_keys + ew_nr_param_keys);
		FUZZ_CHECK(m.key->wide || m.value <= 0xffffffffULL);
		FUZZ_CHECK(!strcmp(argv[2], m.key->name));
		ew_disk_params_default(&p);
		ew_param_set(&p, m.key, m.value);
		break;
	case EW_MSG_REBUILD_RATE:
		FUZZ_CHECK(argc == 2 && m.rate_mib <= EW_MSG_MAX_REBUILD_RATE);
		break;
	case EW_MSG_REBUILD_PAUSE:
	case EW_MSG_REBUILD_RESUME:
		FUZZ_CHECK(argc == 2);
		break;
	default:
		FUZZ_CHECK(0);
	}
	return 0;
}
