/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ewprobe.h - what the parts of ewprobe share: exit codes, the target
 * (the file or block device under test, and the refusal to overwrite one
 * that holds data), the probe-block format written by `write` and checked
 * by `verify`, the log-record format that carries intents and
 * acknowledgements over the channel, and the channel itself.
 */
#ifndef EWPROBE_H
#define EWPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes; documented in Documentation/ewprobe.rst and --help. */
enum ewp_exit {
	EWP_OK = 0,
	EWP_LOSS = 1,	/* verify: an acknowledged write is lost or corrupt */
	EWP_USAGE = 2,	/* bad arguments, refused target, unusable log */
	EWP_FAIL = 3,	/* I/O or system error while probing */
};

/* ---- ewprobe.c: helpers every subcommand uses ---- */
void ewp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ewp_parse_size(const char *s, uint64_t *out);
int ewp_parse_u64(const char *s, uint64_t *out);
int ewp_parse_seconds(const char *s, double *out);
double ewp_now(void);
void ewp_json_string(FILE *f, const char *s);
uint64_t ewp_mix64(uint64_t x);
uint64_t ewp_random_seed(void);

int ewp_cmd_rate(int argc, char **argv);
int ewp_cmd_write(int argc, char **argv);
int ewp_cmd_verify(int argc, char **argv);
int ewp_cmd_listen(int argc, char **argv);

/* ---- target.c: the file or block device under test ---- */
struct ewp_target {
	const char *path;
	int fd;
	bool blockdev;
	bool created;		/* the path did not exist: we made it */
	bool was_empty;		/* an existing regular file of size 0 */
	bool tmpfs;		/* lives in memory: nothing there is durable */
	bool try_direct;	/* O_DIRECT refused: say nothing, caller retries */
	uint64_t size;		/* bytes (device size, or file size) */
	unsigned int lbs;	/* logical block size (O_DIRECT alignment) */
};

/*
 * Make sure writing on @path destroys nothing (unless @force), creating it
 * when absent.  Returns an EWP_* code; messages are printed here.
 */
int ewp_target_prepare(struct ewp_target *t, const char *path, bool force);
/* Open the prepared target read-write with extra open(2) @flags. */
int ewp_target_open(struct ewp_target *t, int flags);
/* Make a regular file at least @bytes long (zero-filled if @fill). */
int ewp_target_extend(struct ewp_target *t, uint64_t bytes, bool fill);
/* Close; a file we created is removed and an empty one truncated back
 * when @restore, so that probing leaves the path as it found it. */
void ewp_target_close(struct ewp_target *t, bool restore);
void *ewp_alloc_aligned(size_t bytes);

/* ---- record.c: probe blocks and log records ---- */
#define EWP_SECTOR		512u
#define EWP_BLOCK_MAGIC		0x314b4c4250574555ull	/* "UEWPBLK1" */
#define EWP_BLOCK_VERSION	1u
#define EWP_HDR_BYTES		64u
#define EWP_LOG_VERSION		1u
#define EWP_LINE_MAX		160u

struct ewp_block_hdr {
	uint64_t magic;
	uint64_t seq;		/* write sequence number, from 1 */
	uint64_t block;		/* its own block address, in block-size units */
	uint64_t id;		/* write id: ewp_write_id(seed, seq) */
	uint64_t seed;		/* the run's seed */
	uint32_t block_size;
	uint32_t version;
	uint32_t crc;		/* crc32c of the whole block, this field 0 */
	uint32_t pad[3];
};

enum ewp_block_state {
	EWP_BLOCK_ZERO,		/* all zeros: never written, or discarded */
	EWP_BLOCK_VALID,	/* a probe block whose checksum is right */
	EWP_BLOCK_BAD,		/* anything else */
};

uint64_t ewp_write_id(uint64_t seed, uint64_t seq);
void ewp_block_fill(void *buf, uint32_t bs, uint64_t seq, uint64_t block,
		    uint64_t id, uint64_t seed);
enum ewp_block_state ewp_block_check(const void *buf, uint32_t bs,
				     struct ewp_block_hdr *hdr);

enum ewp_rec_type {
	EWP_REC_START,	/* a: log version, b: block size, c: blocks, d: seed */
	EWP_REC_INTENT,	/* a: seq, b: block, c: write id */
	EWP_REC_ACK,	/* a: seq, b: block, c: write id */
	EWP_REC_END,	/* a: writes acknowledged */
};

struct ewp_rec {
	enum ewp_rec_type type;
	uint64_t a, b, c, d;
};

/* Format @r as one newline-terminated line; returns its length. */
size_t ewp_rec_format(char *buf, size_t len, const struct ewp_rec *r);
/* Find and parse a record in one line of console text; 0 when found,
 * -1 when the line holds no "EWPROBE " marker, -2 when it holds one but
 * no intact record (torn, garbled, bad checksum). */
int ewp_rec_parse(const char *line, size_t len, struct ewp_rec *r);

/* ---- channel.c: where intents and acknowledgements go ---- */
struct ewp_channel {
	int fd;
	int kind;
	char desc[96];
};

int ewp_channel_open(struct ewp_channel *c, const char *spec);
/* Send one record line and wait until it has left this machine as far as
 * the channel can tell (fsync, tcdrain, or the listener's reply). */
int ewp_channel_send(struct ewp_channel *c, const char *line, size_t len);
void ewp_channel_close(struct ewp_channel *c);

#endif /* EWPROBE_H */
