// SPDX-License-Identifier: GPL-2.0-only
/*
 * record.c - the two formats of the power-cut test.
 *
 * A probe block (what `write` puts on the device) is self-describing so
 * that `verify` can say not only "wrong" but what it found instead:
 *
 *   offset  size  field (little-endian)
 *        0     8  magic "UEWPBLK1"
 *        8     8  seq: write sequence number, from 1
 *       16     8  block: the block's own address, in block-size units
 *       24     8  id: write id, ewp_write_id(seed, seq)
 *       32     8  seed of the run
 *       40     4  block size in bytes
 *       44     4  format version (1)
 *       48     4  crc32c (Castagnoli) of the whole block, this field zero
 *       52    12  zero
 *       64   ...  payload: xorshift64* stream seeded from id and block
 *
 * A log record is one text line, found anywhere in a line of console
 * output after the marker "EWPROBE " and ending with the crc32c, in hex,
 * of the text from the marker up to the space before it:
 *
 *   EWPROBE start <version> <block-size> <blocks> <seed-hex16> <crc-hex8>
 *   EWPROBE intent <seq> <block> <id-hex16> <crc-hex8>
 *   EWPROBE ack <seq> <block> <id-hex16> <crc-hex8>
 *   EWPROBE end <writes> <crc-hex8>
 *
 * The checksum is what lets the parser tolerate a torn last line or
 * kernel messages interleaved with a record: such a line is dropped, never
 * misread as a different block or id.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ew_kerncompat.h"
#include "ewprobe.h"

_Static_assert(sizeof(struct ewp_block_hdr) == EWP_HDR_BYTES, "probe header size");

uint64_t ewp_write_id(uint64_t seed, uint64_t seq)
{
	return ewp_mix64(seed ^ ewp_mix64(seq));
}

void ewp_block_fill(void *buf, uint32_t bs, uint64_t seq, uint64_t block,
		    uint64_t id, uint64_t seed)
{
	struct ewp_block_hdr h = {
		.magic = cpu_to_le64(EWP_BLOCK_MAGIC),
		.seq = cpu_to_le64(seq),
		.block = cpu_to_le64(block),
		.id = cpu_to_le64(id),
		.seed = cpu_to_le64(seed),
		.block_size = cpu_to_le32(bs),
		.version = cpu_to_le32(EWP_BLOCK_VERSION),
	};
	unsigned char *p = buf;
	uint64_t x = ewp_mix64(id ^ ewp_mix64(block)) | 1;

	for (uint32_t off = EWP_HDR_BYTES; off + 8 <= bs; off += 8) {
		uint64_t v;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		v = cpu_to_le64(x * 0x2545f4914f6cdd1dull);
		memcpy(p + off, &v, 8);
	}
	memcpy(p, &h, sizeof(h));
	h.crc = cpu_to_le32(ew_crc32c(~0u, p, bs));
	memcpy(p, &h, sizeof(h));
}

enum ewp_block_state ewp_block_check(const void *buf, uint32_t bs,
				     struct ewp_block_hdr *hdr)
{
	const unsigned char *p = buf;
	unsigned char *copy;
	uint32_t crc;
	bool zero = true;

	for (uint32_t i = 0; i < bs && zero; i++)
		zero = !p[i];
	if (zero)
		return EWP_BLOCK_ZERO;
	memcpy(hdr, p, sizeof(*hdr));
	if (le64_to_cpu(hdr->magic) != EWP_BLOCK_MAGIC ||
	    le32_to_cpu(hdr->block_size) != bs ||
	    le32_to_cpu(hdr->version) != EWP_BLOCK_VERSION)
		return EWP_BLOCK_BAD;
	copy = malloc(bs);
	if (!copy)
		return EWP_BLOCK_BAD;
	memcpy(copy, p, bs);
	memset(copy + offsetof(struct ewp_block_hdr, crc), 0, sizeof(hdr->crc));
	crc = ew_crc32c(~0u, copy, bs);
	free(copy);
	return crc == le32_to_cpu(hdr->crc) ? EWP_BLOCK_VALID : EWP_BLOCK_BAD;
}

static const char marker[] = "EWPROBE ";

size_t ewp_rec_format(char *buf, size_t len, const struct ewp_rec *r)
{
	int n = 0;

	switch (r->type) {
	case EWP_REC_START:
		n = snprintf(buf, len, "EWPROBE start %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64,
			     r->a, r->b, r->c, r->d);
		break;
	case EWP_REC_INTENT:
	case EWP_REC_ACK:
		n = snprintf(buf, len, "EWPROBE %s %" PRIu64 " %" PRIu64 " %016" PRIx64,
			     r->type == EWP_REC_ACK ? "ack" : "intent", r->a, r->b, r->c);
		break;
	case EWP_REC_END:
		n = snprintf(buf, len, "EWPROBE end %" PRIu64, r->a);
		break;
	}
	if (n <= 0 || (size_t)n + 11 > len)
		return 0;
	n += snprintf(buf + n, len - n, " %08x\n", ew_crc32c(~0u, buf, n));
	return n;
}

/* One token: digits (base 10) or exactly @hexlen hex digits. */
static int token(const char **pp, const char *end, int hexlen, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int n = 0;

	for (; p < end && *p != ' '; p++, n++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (hexlen && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			return -1;
		if (hexlen) {
			v = v << 4 | d;
		} else {
			if (v > (UINT64_MAX - d) / 10)
				return -1;
			v = v * 10 + d;
		}
	}
	if (!n || (hexlen && n != hexlen) || n > 20)
		return -1;
	if (p < end)
		p++;	/* the separating space */
	*pp = p;
	*out = v;
	return 0;
}

static int parse_at(const char *s, const char *end, struct ewp_rec *r)
{
	static const struct { const char *word; enum ewp_rec_type type; int nums; } kinds[] = {
		{ "start ", EWP_REC_START, 4 },
		{ "intent ", EWP_REC_INTENT, 3 },
		{ "ack ", EWP_REC_ACK, 3 },
		{ "end ", EWP_REC_END, 1 },
	};
	const char *p = s + sizeof(marker) - 1, *crc_at;
	uint64_t vals[4] = { 0 }, crc;
	size_t k;

	/* The record ends at the line's end, less trailing CR/blanks. */
	while (end > s && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (k = 0; k < ARRAY_SIZE(kinds); k++)
		if ((size_t)(end - p) > strlen(kinds[k].word) &&
		    !memcmp(p, kinds[k].word, strlen(kinds[k].word)))
			break;
	if (k == ARRAY_SIZE(kinds))
		return -2;
	p += strlen(kinds[k].word);
	for (int i = 0; i < kinds[k].nums; i++) {
		int hex = 0;

		if ((kinds[k].type == EWP_REC_START && i == 3) ||
		    ((kinds[k].type == EWP_REC_INTENT || kinds[k].type == EWP_REC_ACK) && i == 2))
			hex = 16;
		if (p >= end || token(&p, end, hex, &vals[i]))
			return -2;
	}
	crc_at = p;
	if (crc_at - s < 2 || token(&p, end, 8, &crc) || p != end)
		return -2;
	if (ew_crc32c(~0u, s, crc_at - 1 - s) != (uint32_t)crc)
		return -2;
	r->type = kinds[k].type;
	r->a = vals[0];
	r->b = vals[1];
	r->c = vals[2];
	r->d = vals[3];
	return 0;
}

int ewp_rec_parse(const char *line, size_t len, struct ewp_rec *r)
{
	const char *end = line + len, *p = line;
	int ret = -1;

	/* Console noise may precede the marker, or a message may have been
	 * spliced in before a second, intact copy: try every occurrence. */
	while ((p = memmem(p, end - p, marker, sizeof(marker) - 1))) {
		if (!parse_at(p, end, r))
			return 0;
		ret = -2;
		p++;
	}
	return ret;
}
