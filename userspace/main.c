// SPDX-License-Identifier: GPL-2.0
/* iolayers: print what the iolayers module has measured. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "iolayers.h"

static struct env {
	const char *root;
} env = {
	.root = "/sys/kernel/debug/iolayers",
};

const char *argp_program_version = "iolayers 0.1.0";
static const char doc[] =
"Show where the time of a process's read() calls goes, layer by layer.\n"
"\n"
"USAGE: iolayers [--root DIR]\n"
"\n"
"EXAMPLES:\n"
"    sudo insmod iolayers.ko pid=$(pidof fio) && sudo iolayers\n"
"    iolayers --root ./saved-debugfs     # a copy saved with scripts/save-debugfs\n";

static const struct argp_option opts[] = {
	{ "root", 'r', "DIR", 0, "Read DIR instead of /sys/kernel/debug/iolayers", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'r':
		env.root = arg;
		break;
	case ARGP_KEY_ARG:
		argp_usage(state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Explain the usual reasons the live tree is not there, with the fix. */
static void explain_missing(const char *root)
{
	struct stat st;

	if (strcmp(root, "/sys/kernel/debug/iolayers"))
		return;
	if (geteuid() != 0)
		fprintf(stderr, "iolayers: debugfs is readable by root only: run with sudo\n");
	else if (stat("/sys/kernel/debug/tracing", &st) && stat("/sys/kernel/debug/block", &st))
		fprintf(stderr, "iolayers: debugfs is not mounted: mount -t debugfs none /sys/kernel/debug\n");
	else
		fprintf(stderr, "iolayers: the module is not loaded: insmod iolayers.ko pid=PID\n");
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	struct il_snapshot snap;
	char err[512];
	struct stat st;
	int ret;

	ret = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (ret)
		return 1;
	if (stat(env.root, &st)) {
		fprintf(stderr, "iolayers: %s: %s\n", env.root, strerror(errno));
		explain_missing(env.root);
		return 1;
	}
	if (il_read_snapshot(env.root, &snap, err, sizeof(err))) {
		fprintf(stderr, "iolayers: %s\n", err);
		return 1;
	}
	il_print_table(stdout, &snap);
	return 0;
}
