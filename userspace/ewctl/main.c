// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - ewctl, the eagerwrite array's control tool: dispatches to the
 * subcommands.  To add one, write it in a file of its own, declare it in
 * ewctl.h and list it in ewctl_cmds[] below.
 */
#include <stdio.h>
#include <string.h>

#include "ewctl.h"

const char *ewctl_prog = "ewctl";

static const struct ewctl_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} ewctl_cmds[] = {
	{ "geometry", ewctl_geometry,
	  "capacity, region, stripe width and per-disk use of a layout" },
	{ "table", ewctl_table,
	  "print a dmsetup table line for a metadata and data devices" },
	{ "check", ewctl_check,
	  "check an array's metadata and member labels offline" },
	{ "dump", ewctl_dump,
	  "print an array's superblock, journal length and map summary" },
	{ "calibrate", ewctl_calibrate,
	  "learn members' rotation period and phase (MimdRAID)" },
	{ "examine", ewctl_examine,
	  "what a member label or metadata superblock says" },
	{ "assemble", ewctl_assemble,
	  "find an array's devices by their labels and create it" },
	{ "status", ewctl_status,
	  "an array's state, field by field (dmsetup status, named)" },
	{ "monitor", ewctl_monitor,
	  "wait for member failures, rebuilds, lost blocks; run a program" },
	/* no summary: not listed (writes test images) */
	{ "debug-mkmeta", ewctl_debug_mkmeta, NULL },
};

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
"Usage: ewctl <command> [options]   (ewctl <command> --help for more)\n"
"\n"
"Builds and explains dm-eagerwrite arrays (layouts raid10, ddm, ew).\n"
"\n"
"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(ewctl_cmds); i++)
		if (ewctl_cmds[i].summary)
			fprintf(f, "  %-10s %s\n", ewctl_cmds[i].name,
				ewctl_cmds[i].summary);
	fprintf(f,
"\n"
"Exit status: 0 success, 1 refused or failed (the message says why),\n"
"2 usage error.  See Documentation/ewctl.rst.\n");
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 2) {
		usage(stderr);
		return EWCTL_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EWCTL_OK;
	}
	for (i = 0; i < ARRAY_SIZE(ewctl_cmds); i++) {
		static char name[64];

		if (strcmp(argv[1], ewctl_cmds[i].name))
			continue;
		/* getopt's messages then say "ewctl table: ..." */
		snprintf(name, sizeof(name), "%s %s", ewctl_prog,
			 ewctl_cmds[i].name);
		argv[1] = name;
		return ewctl_cmds[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "%s: unknown command '%s' (try ewctl --help)\n",
		ewctl_prog, argv[1]);
	return EWCTL_USAGE;
}
