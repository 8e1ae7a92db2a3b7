// SPDX-License-Identifier: GPL-2.0-only
/*
 * assemble.c - "ewctl assemble": finds an array's metadata device and
 * members by what their first blocks say (ewctl_probe_dev()), orders the
 * members by the index in their labels, checks each label against the
 * superblock with the core's ew_meta_label_check() (the constructor's own
 * test), builds the table line with ew_table_format() and creates the
 * mapped device with dmsetup.  Mirrored metadata: copy 0 and copy 1
 * become the metadata device and metadata_mirror (plan_copies()).
 * Metadata on the members: the holders' copies (plan_members()).  With
 * --scan it does so for every array named in /etc/eagerwrite.conf (a
 * boot-time unit runs that).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "ewctl_dev.h"
#include "ewctl_meta.h"

extern char **environ;

#define EWCTL_CONF	"/etc/eagerwrite.conf"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ewctl assemble [--uuid UUID] [--degraded [--force]] [--dry-run]\n"
"                      [--json] [--config FILE] NAME [DEV...]\n"
"       ewctl assemble --scan [--dry-run] [--config FILE]\n"
"\n"
"Finds the metadata device and the members of an array by their labels,\n"
"puts the members in the order of their member index, checks every label\n"
"against the superblock (array UUID, geometry, generation) and creates\n"
"/dev/mapper/NAME with dmsetup.  DEV... are the devices to look at\n"
"(default: every block device in /proc/partitions that no other block\n"
"device holds); a DEV given that belongs to another array, or carries\n"
"no label, is refused.  Mirrored\n"
"metadata (metadata_mirror): both copies are found, copy 0 becomes the\n"
"metadata device and copy 1 the mirror; the labels are checked against\n"
"the newer copy and an older or stale copy is named (the target\n"
"resynchronises it at load).  A metadata device of the array with\n"
"another copy count and an older generation (left behind when a\n"
"--degraded assembly changed the copy set) is named and not used.\n"
"Metadata on the members (\"-\" in the table): the labels say so, the\n"
"superblock is the newest valid copy among the members that hold one,\n"
"and the table names \"-\" for the metadata device; an older or damaged\n"
"copy is named (the target rewrites it at load).\n"
"Two metadata devices of one copy each (a copied device, or a split\n"
"brain: each copy of a pair assembled --degraded alone) are refused,\n"
"with both generations: name the one to keep with the members.\n"
"\n"
"  --uuid UUID     the array; default: the UUID of NAME in the config\n"
"                  file, else the only array found\n"
"  --degraded      a member that is not found becomes '-' (missing);\n"
"                  without it an incomplete set is refused.  Members the\n"
"                  superblock marks failed are '-' either way.  A\n"
"                  metadata copy not found: the table names the other\n"
"                  alone, without metadata_mirror (the target then\n"
"                  keeps it as metadata of one copy), if that copy marks\n"
"                  the missing one stale (it went on without it).\n"
"  --force         with --degraded: assemble from the metadata copy found\n"
"                  even if it does not mark the missing copy stale; the\n"
"                  missing copy may be newer (it may have gone on alone,\n"
"                  and then every write since is lost).\n"
"  --dry-run       print the table line, create nothing\n"
"  --json          print {\"name\", \"uuid\", \"table\", \"metadata\",\n"
"                  \"metadata_mirror\", \"members\", \"missing\", ...}\n"
"  --config FILE   default " EWCTL_CONF "\n"
"  --scan          every array in the config file, except those already\n"
"                  active and those marked noauto\n"
"  -h, --help      this help\n"
"\n"
"Config file: one array a line, \"NAME UUID [OPTIONS]\", OPTIONS a\n"
"comma-separated list of degraded, noauto (or '-'); '#' starts a comment.\n"
"\n"
"Exit status: 0 created (or printed), 1 refused or failed (the message\n"
"says why; nothing was created), 2 usage error or bad config file.\n");
}

struct conf_entry {
	char name[128];
	char uuid_str[64];
	u8 uuid[EW_META_UUID_SIZE];
	bool degraded, noauto;
	unsigned int line;
};

/* Parses the config file; -1 (message printed) on a bad line. */
static int conf_read(const char *path, struct conf_entry **out,
		     unsigned int *nr, bool must_exist)
{
	FILE *f = fopen(path, "r");
	char line[512], opts[256], *hash, *o, *save;
	struct conf_entry *v = NULL, *nv, e;
	unsigned int n = 0, ln = 0, i;
	int k;

	*out = NULL;
	*nr = 0;
	if (!f) {
		if (!must_exist && errno == ENOENT)
			return 0;
		fprintf(stderr, "%s: %s: %s\n", ewctl_prog, path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		ln++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		memset(&e, 0, sizeof(e));
		e.line = ln;
		opts[0] = '\0';
		k = sscanf(line, " %127s %63s %255s", e.name, e.uuid_str, opts);
		if (k <= 0)
			continue;
		if (k < 2 || ewctl_uuid_parse(e.uuid_str, e.uuid)) {
			fprintf(stderr, "%s: %s:%u: want \"NAME UUID [OPTIONS]\"\n",
				ewctl_prog, path, ln);
			goto bad;
		}
		for (o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
			if (!strcmp(o, "degraded")) {
				e.degraded = true;
			} else if (!strcmp(o, "noauto")) {
				e.noauto = true;
			} else if (strcmp(o, "-")) {
				fprintf(stderr, "%s: %s:%u: unknown option '%s' (degraded, noauto)\n",
					ewctl_prog, path, ln, o);
				goto bad;
			}
		}
		for (i = 0; i < n; i++) {
			if (!strcmp(v[i].name, e.name) ||
			    !memcmp(v[i].uuid, e.uuid, EW_META_UUID_SIZE)) {
				fprintf(stderr, "%s: %s:%u: %s repeats line %u\n",
					ewctl_prog, path, ln,
					strcmp(v[i].name, e.name) ? "the UUID" : "the name",
					v[i].line);
				goto bad;
			}
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			goto bad;
		v = nv;
		v[n++] = e;
	}
	fclose(f);
	*out = v;
	*nr = n;
	return 0;
bad:
	fclose(f);
	free(v);
	return -1;
}

/* Runs argv[0] (found in PATH); its exit status, or -1. */
static int run(char *const argv[], bool quiet)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, ret;

	posix_spawn_file_actions_init(&fa);
	if (quiet) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	}
	ret = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret) {
		fprintf(stderr, "%s: cannot run %s: %s\n", ewctl_prog, argv[0],
			strerror(ret));
		return -1;
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool dm_exists(const char *name)
{
	char *argv[] = { "dmsetup", "info", (char *)name, NULL };

	return run(argv, true) == 0;
}

struct scan {
	struct ewctl_probe *p;
	unsigned int nr;
	bool explicit;		/* devices named on the command line */
};

static int scan_devs(struct scan *s, char **devs, unsigned int nr)
{
	unsigned int i;

	s->p = calloc(nr ? nr : 1, sizeof(*s->p));
	if (!s->p) {
		fprintf(stderr, "%s: out of memory\n", ewctl_prog);
		return -1;
	}
	s->nr = nr;
	for (i = 0; i < nr; i++)
		ewctl_probe_dev(devs[i], &s->p[i]);
	return 0;
}

static const u8 *probe_uuid(const struct ewctl_probe *p)
{
	if (p->kind == EWCTL_KIND_MEMBER)
		return p->label.uuid;
	if (p->kind == EWCTL_KIND_META)
		return p->sb.uuid;
	return NULL;
}

/* The superblock p carries: a metadata device's, or a holder's copy. */
static const struct ew_meta_sb *probe_sb(const struct ewctl_probe *p)
{
	return p->kind == EWCTL_KIND_META || ewctl_probe_holds_sb(p) ?
	       &p->sb : NULL;
}

/* Does a member label of uuid say the metadata is on the members? */
static bool labels_on_members(const struct scan *s, const u8 *uuid)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		const struct ewctl_probe *p = &s->p[i];

		if (p->kind == EWCTL_KIND_MEMBER &&
		    !memcmp(p->label.uuid, uuid, EW_META_UUID_SIZE) &&
		    p->label.data_offset_sectors != EW_MEMBER_DATA_OFFSET_SECTORS)
			return true;
	}
	return false;
}

struct plan {
	/* the newest valid metadata copy: the superblock labels are checked against */
	const struct ewctl_probe *src;
	const struct ewctl_probe *copy[EW_META_MAX_COPIES];	/* by index */
	u32 copies;		/* the superblocks' copies count (1: not mirrored) */
	const char *meta;	/* the table's metadata device */
	const char *mirror;	/* its metadata_mirror; NULL: none */
	bool on_members;	/* the metadata is on the members ("-") */
	const char *dev[EW_MAX_DISKS];	/* NULL: missing */
	bool failed[EW_MAX_DISKS];	/* failed in the superblock */
	unsigned int missing, failed_nr;
	char table[8300];
};

/*
 * The metadata copies of the array (pl->copy[], found by the scan) in
 * the table the target expects (dm-eagerwrite-metadata.c, ew_md_open()):
 * copy 0 the metadata device and copy 1 the metadata_mirror, since the
 * target's copy index is the table position (it rewrites a superblock
 * whose meta_copy differs) and the source's stale bits are read by that
 * position; a missing copy cannot be "-" (dm_get_device() would fail), so
 * --degraded leaves the feature out and names the copy there is.  A
 * copy found alone may be the older one (the other went on without it,
 * marking it stale where this one cannot see): it is taken only if its
 * superblock marks the missing copy stale, or with --force.  The
 * superblock is the newest valid copy's (highest generation, copy 0 of
 * equals), as the target picks it.  0, or -1 after printing why.
 */
static int plan_copies(struct plan *pl, const char *us, bool degraded,
		       bool force)
{
	const struct ewctl_probe *p;
	u32 c, missing = 0;

	if (pl->copies > 2) {
		fprintf(stderr, "%s: array %s has %u metadata copies; a table names at most 2 (metadata_mirror)\n",
			ewctl_prog, us, pl->copies);
		return -1;
	}
	for (c = 0; c < pl->copies; c++) {
		p = pl->copy[c];
		if (!p)
			missing |= 1U << c;
		else if (!pl->src || p->sb.generation > pl->src->sb.generation)
			pl->src = p;
	}
	if (pl->copies == 1) {
		pl->meta = pl->src->path;
		return 0;
	}
	c = pl->src->sb.meta_copy;
	if (missing && !degraded) {
		fprintf(stderr, "%s: array %s: metadata copy %u of 2 not found (--degraded assembles it from copy %u, %s, alone, without metadata_mirror)\n",
			ewctl_prog, us, !c, c, pl->src->path);
		return -1;
	}
	if (missing && !(pl->src->sb.meta_stale & (1U << !c)) && !force) {
		fprintf(stderr, "%s: array %s: metadata copy %u of 2 not found, and copy %u (%s, generation %llu) does not mark it stale: copy %u may be the newer one (it may have gone on alone); --degraded --force assembles from copy %u anyway\n",
			ewctl_prog, us, !c, c, pl->src->path,
			(unsigned long long)pl->src->sb.generation, !c, c);
		return -1;
	}
	if (missing) {
		pl->meta = pl->src->path;
		return 0;
	}
	pl->meta = pl->copy[0]->path;
	pl->mirror = pl->copy[1]->path;
	return 0;
}

/* After a plan is made: what the target will do about the metadata copies. */
static void plan_copies_note(const struct plan *pl, const char *us)
{
	const struct ew_meta_sb *sb = &pl->src->sb;
	u32 c;

	if (pl->copies < 2)
		return;
	if (!pl->mirror) {
		fprintf(stderr, "%s: array %s: metadata copy %u not found: assembling from copy %u (%s, generation %llu) alone, without metadata_mirror%s; the target writes it as metadata of one copy from then on (ewctl table --metadata-mirror builds the table that mirrors it again)\n",
			ewctl_prog, us, !sb->meta_copy, sb->meta_copy,
			pl->src->path, (unsigned long long)sb->generation,
			sb->meta_stale & (1U << !sb->meta_copy) ? "" :
			" (--force: it does not mark the missing copy stale)");
		return;
	}
	for (c = 0; c < pl->copies; c++) {
		const struct ewctl_probe *p = pl->copy[c];

		if (p == pl->src || (!(sb->meta_stale & (1U << c)) &&
				     p->sb.generation == sb->generation))
			continue;
		fprintf(stderr, "%s: metadata copy %u (%s) is %s (generation %llu, copy %u's is %llu): the target resynchronises it from copy %u at load\n",
			ewctl_prog, c, p->path,
			sb->meta_stale & (1U << c) ? "marked stale" : "older",
			(unsigned long long)p->sb.generation, sb->meta_copy,
			(unsigned long long)sb->generation, sb->meta_copy);
	}
}

/*
 * The metadata of array uuid is on its members (the labels say so): the
 * superblock is the newest valid copy among the holders found, and the
 * table names "-" for the metadata device.  The target reads every
 * holder of the table and repairs a blank, older or damaged copy from
 * the newest at load, so such copies are only named; a missing holder is
 * a missing member (--degraded).  A metadata device of the array as well
 * is a contradiction, refused.  0, or -1 after printing why.
 */
static int plan_members(const struct scan *s, const u8 *uuid,
			const char *us, struct plan *pl)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		const struct ewctl_probe *p = &s->p[i];
		const u8 *u = probe_uuid(p);

		if (!u || memcmp(u, uuid, EW_META_UUID_SIZE))
			continue;
		if (p->kind == EWCTL_KIND_META) {
			fprintf(stderr, "%s: %s carries metadata of array %s, whose member labels say its metadata is on the members; zero its first 8 KiB if it is left over\n",
				ewctl_prog, p->path, us);
			return -1;
		}
		if (ewctl_probe_holds_sb(p) &&
		    (!pl->src || p->sb.generation > pl->src->sb.generation))
			pl->src = p;
	}
	if (!pl->src) {
		fprintf(stderr, "%s: array %s keeps its metadata on its members, and no member holding a valid copy was found\n",
			ewctl_prog, us);
		return -1;
	}
	for (i = 0; i < s->nr; i++) {
		const struct ewctl_probe *p = &s->p[i];

		if (p->kind != EWCTL_KIND_MEMBER || !p->holder ||
		    memcmp(p->label.uuid, uuid, EW_META_UUID_SIZE))
			continue;
		if (p->hpick)
			fprintf(stderr, "%s: %s: the metadata copy of member %u is not valid (%s): the target rewrites it from generation %llu at load\n",
				ewctl_prog, p->path, p->label.member, p->hwhy,
				(unsigned long long)pl->src->sb.generation);
		else if (p->sb.generation != pl->src->sb.generation)
			fprintf(stderr, "%s: %s: the metadata copy of member %u is older (generation %llu, member %u's is %llu): the target rewrites it at load\n",
				ewctl_prog, p->path, p->label.member,
				(unsigned long long)p->sb.generation,
				pl->src->label.member,
				(unsigned long long)pl->src->sb.generation);
	}
	pl->copies = 1;
	pl->on_members = true;
	pl->meta = EW_MISSING_DEV;
	return 0;
}

/*
 * Decides the table of the array uuid from the scan; 0, or -1 after
 * printing why (nothing is created).
 */
static int plan_array(const struct scan *s, const u8 *uuid, bool degraded,
		      bool force, struct plan *pl)
{
	const struct ew_meta_sb *sb;
	const struct ewctl_probe *first = NULL, *newest = NULL;
	struct ew_table_args t;
	char us[40], line[8192];
	const char *why;
	unsigned int i, m;
	int bad = 0;

	memset(pl, 0, sizeof(*pl));
	ewctl_uuid_str(uuid, us);
	for (i = 0; i < s->nr; i++) {
		const struct ewctl_probe *p = &s->p[i];
		const u8 *u = probe_uuid(p);

		if (s->explicit && (!u || memcmp(u, uuid, EW_META_UUID_SIZE))) {
			char other[40];

			if (u) {
				ewctl_uuid_str(u, other);
				fprintf(stderr, "%s: %s belongs to array %s, not %s\n",
					ewctl_prog, p->path, other, us);
			} else {
				fprintf(stderr, "%s: %s: %s: %s\n", ewctl_prog,
					p->path, p->kind == EWCTL_KIND_NONE ?
					"not an eagerwrite device" :
					ewctl_kind_name(p->kind), p->why);
			}
			bad = 1;
			continue;
		}
		if (p->kind == EWCTL_KIND_META && !memcmp(u, uuid, EW_META_UUID_SIZE) &&
		    (!newest || p->sb.generation > newest->sb.generation))
			newest = p;
	}
	if (bad)
		return -1;
	if (labels_on_members(s, uuid)) {
		if (plan_members(s, uuid, us, pl))
			return -1;
		goto members;
	}
	/*
	 * The newest superblock's copy count is the array's: a device with
	 * another count and an older generation was left behind when the
	 * copy set changed (a --degraded assembly wrote the copy it found as
	 * metadata of one copy, and went on), so it is named and not used.
	 * Another count at the newest generation cannot be told apart.
	 */
	for (i = 0; i < s->nr; i++) {
		const struct ewctl_probe *p = &s->p[i];

		if (p->kind != EWCTL_KIND_META ||
		    memcmp(p->sb.uuid, uuid, EW_META_UUID_SIZE))
			continue;
		if (ewctl_sb_copies(&p->sb) != ewctl_sb_copies(&newest->sb) &&
		    p->sb.generation < newest->sb.generation) {
			fprintf(stderr, "%s: %s: metadata of array %s as %u copies at generation %llu, superseded: %s is generation %llu of %u %s; not used (zero its first 8 KiB to reuse the device)\n",
				ewctl_prog, p->path, us, ewctl_sb_copies(&p->sb),
				(unsigned long long)p->sb.generation,
				newest->path,
				(unsigned long long)newest->sb.generation,
				ewctl_sb_copies(&newest->sb),
				ewctl_sb_copies(&newest->sb) == 1 ? "copy" : "copies");
			continue;
		}
		if (!first) {
			first = p;
			pl->copies = ewctl_sb_copies(&p->sb);
		} else if (ewctl_sb_copies(&p->sb) != pl->copies) {
			fprintf(stderr, "%s: metadata devices of array %s disagree on the copy count: %s says %u, %s says %u, at generation %llu\n",
				ewctl_prog, us, first->path, pl->copies, p->path,
				ewctl_sb_copies(&p->sb),
				(unsigned long long)newest->sb.generation);
			return -1;
		} else if (pl->copies == 1) {
			/*
			 * A device copied, or a split brain: the two copies of
			 * a pair each assembled --degraded without the other
			 * and written as one copy.  The generations tell the
			 * two apart, not which map holds the writes wanted.
			 */
			fprintf(stderr, "%s: two metadata devices carry array %s: %s and %s (its metadata is not mirrored): generations %llu and %llu, %s; ewctl examine shows both: name the one to keep to ewctl assemble with the members, or zero the other's first 8 KiB\n",
				ewctl_prog, us, first->path, p->path,
				(unsigned long long)first->sb.generation,
				(unsigned long long)p->sb.generation,
				first->sb.generation == p->sb.generation ?
				"the same (a copy of one device?)" :
				"different (each assembled without the other, --degraded? both then went on, and the newer is not necessarily the one to keep)");
			return -1;
		}
		/* the core's decoder keeps meta_copy below the copies count */
		if (pl->copy[p->sb.meta_copy]) {
			fprintf(stderr, "%s: metadata copy %u of array %s found twice: %s and %s\n",
				ewctl_prog, p->sb.meta_copy, us,
				pl->copy[p->sb.meta_copy]->path, p->path);
			return -1;
		}
		pl->copy[p->sb.meta_copy] = p;
	}
	if (!first) {
		fprintf(stderr, "%s: no metadata device of array %s found\n",
			ewctl_prog, us);
		return -1;
	}
	if (plan_copies(pl, us, degraded, force))
		return -1;
members:
	sb = &pl->src->sb;
	for (m = 0; m < sb->nr_disks && m < EW_MAX_DISKS; m++) {
		if (sb->member_failed & (1ULL << m)) {
			pl->failed[m] = true;
			pl->failed_nr++;
			continue;
		}
		for (i = 0; i < s->nr; i++) {
			const struct ewctl_probe *p = &s->p[i];

			if (p->kind != EWCTL_KIND_MEMBER || p->label.member != m ||
			    memcmp(p->label.uuid, uuid, EW_META_UUID_SIZE))
				continue;
			if (ew_meta_label_check(sb, p->blk[0], m, &why)) {
				fprintf(stderr, "%s: %s: label of member %u ignored: %s\n",
					ewctl_prog, p->path, m, why);
				continue;
			}
			if (pl->dev[m]) {
				fprintf(stderr, "%s: member %u of array %s found twice: %s and %s\n",
					ewctl_prog, m, us, pl->dev[m], p->path);
				return -1;
			}
			pl->dev[m] = p->path;
		}
		if (!pl->dev[m])
			pl->missing++;
	}
	/* A label whose index is out of range is another array's damage. */
	for (i = 0; i < s->nr; i++) {
		const struct ewctl_probe *p = &s->p[i];

		if (p->kind == EWCTL_KIND_MEMBER &&
		    !memcmp(p->label.uuid, uuid, EW_META_UUID_SIZE) &&
		    p->label.member >= sb->nr_disks)
			fprintf(stderr, "%s: %s: member %u of a %u-member array ignored\n",
				ewctl_prog, p->path, p->label.member, sb->nr_disks);
	}
	if (pl->missing && !degraded) {
		fprintf(stderr, "%s: array %s is incomplete: %u of %u members not found:",
			ewctl_prog, us, pl->missing, sb->nr_disks);
		for (m = 0; m < sb->nr_disks; m++)
			if (!pl->dev[m] && !pl->failed[m])
				fprintf(stderr, " %u", m);
		fprintf(stderr, " (--degraded assembles it without them)\n");
		return -1;
	}

	memset(&t, 0, sizeof(t));
	t.layout = sb->layout;
	t.mirrors = sb->mirrors;
	t.dilution_x100 = sb->dilution_x100;
	t.sync = sb->sync;
	t.chunk_sectors = sb->chunk_sectors;
	t.block_size = sb->block_size;
	t.delay_queue = sb->delay_queue;
	/*
	 * An array with copy slots last loaded with sync 1 gets them back:
	 * without the key it would run sync 1's window.
	 */
	if (sb->sync == 1 || pl->on_members)
		t.journal_copy = sb->copy_slots;
	for (i = 0; i < EW_KEY_NR; i++)
		if (ew_key_allowed(i, t.layout) &&
		    (i != EW_KEY_JOURNAL_COPY || t.journal_copy))
			t.given |= 1U << i;
	t.metadata_dev = pl->meta;
	t.metadata_mirror = pl->mirror;
	t.nr_disks = sb->nr_disks;
	for (m = 0; m < sb->nr_disks; m++)
		t.data_devs[m] = pl->dev[m] ? pl->dev[m] : EW_MISSING_DEV;
	if (ew_table_format(&t, line, sizeof(line)) >= (int)sizeof(line)) {
		fprintf(stderr, "%s: table line too long\n", ewctl_prog);
		return -1;
	}
	snprintf(pl->table, sizeof(pl->table), "0 %llu eagerwrite %s",
		 (unsigned long long)(sb->len_blocks * (sb->block_size / 512)),
		 line);
	if (!pl->on_members)
		plan_copies_note(pl, us);
	return 0;
}

static void print_plan(const char *name, const u8 *uuid,
		       const struct plan *pl, bool json)
{
	char us[40];
	unsigned int m, n = pl->src->sb.nr_disks;
	bool first = true;

	ewctl_uuid_str(uuid, us);
	if (!json) {
		printf("%s\n", pl->table);
		return;
	}
	printf("{\"name\": ");
	ewctl_json_str(stdout, name);
	printf(", \"uuid\": \"%s\", \"table\": ", us);
	ewctl_json_str(stdout, pl->table);
	printf(", \"metadata\": ");
	if (pl->on_members)
		printf("null");
	else
		ewctl_json_str(stdout, pl->meta);
	printf(", \"on_members\": %s", pl->on_members ? "true" : "false");
	printf(", \"metadata_mirror\": ");
	if (pl->mirror)
		ewctl_json_str(stdout, pl->mirror);
	else
		printf("null");
	printf(", \"members\": [");
	for (m = 0; m < n; m++) {
		if (m)
			printf(", ");
		if (pl->dev[m])
			ewctl_json_str(stdout, pl->dev[m]);
		else
			printf("null");
	}
	printf("], \"missing\": [");
	for (m = 0; m < n; m++) {
		if (pl->dev[m] || pl->failed[m])
			continue;
		printf("%s%u", first ? "" : ", ", m);
		first = false;
	}
	printf("], \"failed\": [");
	first = true;
	for (m = 0; m < n; m++) {
		if (!pl->failed[m])
			continue;
		printf("%s%u", first ? "" : ", ", m);
		first = false;
	}
	printf("]}\n");
}

/*
 * The members of the plan the kernel calls rotational.  The target's
 * head predictor starts from the core's default disk model (a Cheetah
 * 9LP at phase 0) at every load and learns nothing by itself: a
 * rotating member's eager writes wait for the platter until ewctl
 * calibrate gives it the disk's period and phase.
 */
static unsigned int rotational_members(const struct plan *pl, u32 n)
{
	unsigned int rot = 0;
	char majmin[32];
	struct stat st;
	u32 i;

	for (i = 0; i < n; i++) {
		if (!pl->dev[i] || pl->failed[i] || stat(pl->dev[i], &st) ||
		    !S_ISBLK(st.st_mode))
			continue;
		snprintf(majmin, sizeof(majmin), "%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
		if (ewctl_dev_rotational(majmin) == 1)
			rot++;
	}
	return rot;
}

/* Plans and (unless dry) creates one array; EWCTL_OK or EWCTL_FAIL. */
static int assemble_one(const struct scan *s, const char *name,
			const u8 *uuid, bool degraded, bool force, bool dry,
			bool json)
{
	static struct plan pl;
	char *argv[] = { "dmsetup", "create", (char *)name, "--table",
			 pl.table, NULL };
	unsigned int rot;
	char us[40];
	int rc;

	if (plan_array(s, uuid, degraded, force, &pl))
		return EWCTL_FAIL;
	if (dry) {
		print_plan(name, uuid, &pl, json);
		return EWCTL_OK;
	}
	if (dm_exists(name)) {
		fprintf(stderr, "%s: a device-mapper device named %s exists already\n",
			ewctl_prog, name);
		return EWCTL_FAIL;
	}
	rc = run(argv, false);
	if (rc) {
		fprintf(stderr, "%s: dmsetup create %s failed (exit %d); table was: %s\n",
			ewctl_prog, name, rc, pl.table);
		return EWCTL_FAIL;
	}
	ewctl_uuid_str(uuid, us);
	if (json)
		print_plan(name, uuid, &pl, true);
	else
		printf("ewctl: created /dev/mapper/%s: array %s, %u members, %u missing, %u failed%s\n",
		       name, us, pl.src->sb.nr_disks, pl.missing, pl.failed_nr,
		       pl.mirror ? ", metadata on 2 copies" :
		       pl.on_members ? ", metadata on the members" : "");
	rot = rotational_members(&pl, pl.src->sb.nr_disks);
	if (rot)
		fprintf(stderr, "%s: %s: %u member%s rotational: the head predictor uses the default disk model until calibrated (ewctl calibrate --array %s, or the unit eagerwrite-calibrate@.service)\n",
			ewctl_prog, name, rot, rot == 1 ? " is" : "s are",
			name);
	return EWCTL_OK;
}

/* The one array among the scanned devices, or -1 with a message. */
static int only_array(const struct scan *s, u8 *uuid)
{
	const struct ew_meta_sb *sb;
	unsigned int i, n = 0, labels = 0;
	char us[40];

	for (i = 0; i < s->nr; i++) {
		sb = probe_sb(&s->p[i]);
		if (!sb)
			continue;
		if (n && !memcmp(uuid, sb->uuid, EW_META_UUID_SIZE))
			continue;
		if (n++)
			break;
		memcpy(uuid, sb->uuid, EW_META_UUID_SIZE);
	}
	if (n == 1)
		return 0;
	/*
	 * No superblock at all: the labels of one array still name it, so
	 * that its plan says what is missing (every holder's copy damaged).
	 */
	for (i = 0; !n && i < s->nr; i++) {
		if (s->p[i].kind != EWCTL_KIND_MEMBER)
			continue;
		if (labels++ &&
		    memcmp(uuid, s->p[i].label.uuid, EW_META_UUID_SIZE))
			break;
		memcpy(uuid, s->p[i].label.uuid, EW_META_UUID_SIZE);
	}
	if (!n && labels && i == s->nr)
		return 0;
	if (!n) {
		fprintf(stderr, "%s: no eagerwrite metadata device or member holding metadata found\n",
			ewctl_prog);
		return -1;
	}
	fprintf(stderr, "%s: several arrays found; name one with --uuid:", ewctl_prog);
	for (i = 0; i < s->nr; i++) {
		sb = probe_sb(&s->p[i]);
		if (!sb)
			continue;
		ewctl_uuid_str(sb->uuid, us);
		fprintf(stderr, " %s (%s)", us, s->p[i].path);
	}
	fputc('\n', stderr);
	return -1;
}

int ewctl_assemble(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "uuid", required_argument, NULL, 'u' },
		{ "degraded", no_argument, NULL, 'd' },
		{ "force", no_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "scan", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf = EWCTL_CONF, *uuid_arg = NULL, *name;
	bool degraded = false, dry = false, json = false, scan_all = false;
	bool force = false;
	bool conf_given = false;
	struct conf_entry *ce = NULL;
	unsigned int nce = 0, i, ndev;
	struct scan s = { 0 };
	char **devs = NULL;
	u8 uuid[EW_META_UUID_SIZE];
	int c, rc = EWCTL_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			uuid_arg = optarg;
			break;
		case 'd':
			degraded = true;
			break;
		case 'f':
			force = true;
			break;
		case 'n':
			dry = true;
			break;
		case 'j':
			json = true;
			break;
		case 'c':
			conf = optarg;
			conf_given = true;
			break;
		case 's':
			scan_all = true;
			break;
		case 'h':
			usage(stdout);
			return EWCTL_OK;
		default:
			fprintf(stderr, "Try '%s --help'.\n", argv[0]);
			return EWCTL_USAGE;
		}
	}
	if (uuid_arg && ewctl_uuid_parse(uuid_arg, uuid)) {
		fprintf(stderr, "%s: bad --uuid '%s'\n", ewctl_prog, uuid_arg);
		return EWCTL_USAGE;
	}
	if (scan_all ? optind != argc || uuid_arg || degraded || force :
		       optind >= argc) {
		fprintf(stderr, scan_all ?
			"%s: --scan takes no NAME, devices, --uuid, --degraded or --force\n" :
			"%s: assemble needs a NAME (or --scan)\n", ewctl_prog);
		return EWCTL_USAGE;
	}
	if (conf_read(conf, &ce, &nce, conf_given || scan_all))
		return EWCTL_USAGE;

	if (!scan_all && optind + 1 < argc) {
		s.explicit = true;
		if (scan_devs(&s, argv + optind + 1, (unsigned int)(argc - optind - 1))) {
			rc = EWCTL_FAIL;
			goto out;
		}
	} else {
		int err = ewctl_dev_list(&devs, &ndev);

		if (err) {
			fprintf(stderr, "%s: /proc/partitions: %s\n", ewctl_prog,
				strerror(-err));
			rc = EWCTL_FAIL;
			goto out;
		}
		if (scan_devs(&s, devs, ndev)) {
			rc = EWCTL_FAIL;
			goto out;
		}
	}

	if (scan_all) {
		for (i = 0; i < nce; i++) {
			if (ce[i].noauto)
				continue;
			if (!dry && dm_exists(ce[i].name)) {
				printf("ewctl: %s is active already\n", ce[i].name);
				continue;
			}
			if (assemble_one(&s, ce[i].name, ce[i].uuid, ce[i].degraded,
					 false, dry, json) != EWCTL_OK) {
				fprintf(stderr, "%s: %s (%s, %s:%u) not assembled\n",
					ewctl_prog, ce[i].name, ce[i].uuid_str,
					conf, ce[i].line);
				rc = EWCTL_FAIL;
			}
		}
		goto out;
	}

	name = argv[optind];
	if (!uuid_arg) {
		for (i = 0; i < nce; i++)
			if (!strcmp(ce[i].name, name))
				break;
		if (i < nce) {
			memcpy(uuid, ce[i].uuid, EW_META_UUID_SIZE);
			degraded = degraded || ce[i].degraded;
		} else if (only_array(&s, uuid)) {
			rc = EWCTL_FAIL;
			goto out;
		}
	}
	if (force && !degraded) {
		fprintf(stderr, "%s: --force goes with --degraded\n", ewctl_prog);
		rc = EWCTL_USAGE;
		goto out;
	}
	rc = assemble_one(&s, name, uuid, degraded, force, dry, json);
out:
	free(s.p);
	ewctl_dev_list_free(devs, devs ? ndev : 0);
	free(ce);
	return rc;
}
