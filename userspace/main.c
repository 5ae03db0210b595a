// SPDX-License-Identifier: GPL-2.0
/* iolayers: where did the time of my reads go? Reads the module's debugfs. */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "iolayers.h"
#include "../include/uapi/iolayers.h"

#define LIVE_ROOT "/sys/kernel/debug/" IOLAYERS_DEBUGFS_DIR

static struct env {
	const char *root;
	const char *from;
	int hist, probes, unit, timeline, slow, json, prometheus, timestamp, reset, files, disks;
	int json_lines;			/* -J */
	unsigned int cache_mask;
	int cache;			/* -1: any */
	unsigned long long flow;
	const char *svg, *output, *heatmap, *perfetto;
	int rows;
	const char *pid, *comm, *children;	/* --set-pid, --set-comm, --set-children */
	const char *cgroup, *sd_unit;		/* --set-cgroup, --unit */
	long view_pid;				/* -p */
	int interval, count;
	int check, strict, root_set;
	const char *check_root;
} env = {
	.root = LIVE_ROOT, .cache_mask = ~0U, .cache = -1, .rows = 50, .count = -1,
};

const char *argp_program_version = "iolayers 0.1.0";
/* Each example shorter than argp's 79 columns: it wraps longer lines at column 0. */
static const char doc[] =
"Show where the time of a process's read() calls, io_uring and Linux AIO\n"
"read requests and page faults on mapped files goes, layer by layer:\n"
"syscall, request (io_uring, AIO) or fault, VFS, file system, block queue\n"
"and service, NVMe device; and whether the page cache served them (HIT,\n"
"MISS, PARTIAL, DIRECT), or that they failed (ERROR).\n"
"\n"
"USAGE: iolayers [OPTIONS] [INTERVAL [COUNT]]\n"
"       iolayers record [-o FILE] [--duration S] [-- COMMAND...]\n"
"       iolayers serve [--web.listen-address HOST:PORT]\n"
"       iolayers --check\n"
"\n"
"EXAMPLES:\n"
"    insmod iolayers.ko pid=$(pidof -s fio)  # follow fio's reads\n"
"    iolayers                     # a table per cache state\n"
"    iolayers -c MISS -H          # latency histograms of the misses\n"
"    iolayers -P                  # probe points, drops, table occupancy\n"
"    iolayers -c MISS -t          # timeline of the slowest miss\n"
"    iolayers -f 1863680          # timeline of one read (ID from --slow, -j)\n"
"    iolayers --slow              # reads slower than slow_us, one per line\n"
"    iolayers --svg reads.svg     # waterfall of the 50 slowest reads\n"
"    iolayers -T 1 10             # per-second deltas, 10 times\n"
"    iolayers -j > now.json       # everything as one JSON object\n"
"    iolayers --prometheus        # for node_exporter's textfile collector\n"
"    iolayers serve               # Prometheus exporter on 127.0.0.1:9732\n"
"    iolayers -p 4321 -t          # the slowest kept read of process 4321\n"
"    iolayers --set-pid 4321 --set-children  # follow 4321 and its children\n"
"    iolayers --unit postgresql.service  # follow a service's cgroup\n"
"    iolayers --reset             # zero the module's counters\n"
"    iolayers --root ./saved      # a copy saved with scripts/save-debugfs\n"
"    iolayers record -o run.rec -- ./myapp  # every read of myapp\n"
"    iolayers --from run.rec -H   # any view of a recording\n"
"    iolayers --files             # per file\n"
"    iolayers -D                  # per disk histograms\n"
"    iolayers --check             # which layers work here, and why not\n";

enum { OPT_SVG = 1000, OPT_JSON_LINES, OPT_HEATMAP, OPT_PERFETTO, OPT_PROM, OPT_OPENMETRICS, OPT_OUTPUT, OPT_SET_PID, OPT_COMM, OPT_CGROUP, OPT_UNIT, OPT_CHILDREN, OPT_RESET, OPT_ROWS, OPT_FROM,
	OPT_FILES, OPT_CHECK, OPT_CHECK_ROOT, OPT_STRICT };

static const struct argp_option opts[] = {
	{ "root", 'r', "DIR", 0, "Read DIR instead of " LIVE_ROOT, 0 },
	{ "from", OPT_FROM, "FILE", 0, "Read a recording (iolayers record) instead of the module", 0 },
	{ "strict", OPT_STRICT, NULL, 0, "With --from: refuse a recording the reader would warn "
	  "about (cut short, damaged, no trailer, a trailer that does not count its lines, "
	  "objects of unknown kinds) instead of reading it with a warning", 0 },
	{ "hist", 'H', NULL, 0, "Log2 latency histograms per layer", 1 },
	{ "probes", 'P', NULL, 0, "Probe points: state, hits, missed; tables and counters", 1 },
	{ "milliseconds", 'm', NULL, 0, "Histograms in milliseconds, bpftrace's layout "
	  "(default: nanoseconds, bcc's)", 1 },
	{ "microseconds", 'u', NULL, 0, "Histograms in microseconds, bpftrace's layout", 1 },
	{ "cache", 'c', "STATE", 0, "Only reads in this cache state (HIT, MISS, PARTIAL, "
	  "DIRECT, other, UNK, ERROR, READY, WAITED, EMPTY): the table, -H, -t, --slow, --svg, "
	  "--files, -D", 1 },
	{ "timeline", 't', NULL, 0, "Timeline of the slowest read (of --cache)", 1 },
	{ "flow", 'f', "ID", 0, "Timeline of read ID", 1 },
	{ "slow", 's', NULL, 0, "Slow reads, one per line", 1 },
	{ "files", OPT_FILES, NULL, 0, "Per file: reads, bytes, HIT share, time per layer (--rows files)", 1 },
	{ "disks", 'D', NULL, 0, "Per disk: queue, service and device histograms", 1 },
	{ "svg", OPT_SVG, "FILE", 0, "Write a waterfall of the slowest reads to FILE", 1 },
	{ "heatmap", OPT_HEATMAP, "FILE", 0, "With --from: write a latency heatmap (time x "
	  "latency, per layer and cache state) to FILE, SVG", 1 },
	{ "perfetto", OPT_PERFETTO, "FILE", 0, "With --from: write the recording as a trace "
	  "Perfetto opens (ui.perfetto.dev; Chrome's JSON trace events) to FILE", 1 },
	{ "rows", OPT_ROWS, "N", 0, "Reads in the SVG, files in --files (default 50)", 1 },
	{ "json", 'j', NULL, 0, "Everything as one JSON object", 1 },
	{ "json-lines", 'J', NULL, 0, "With --from: every read of the recording as JSON lines "
	  "(what record --json writes)", 1 },
	{ "prometheus", OPT_PROM, NULL, 0, "Prometheus text format (node_exporter textfile)", 1 },
	{ "openmetrics", OPT_OPENMETRICS, NULL, 0, "OpenMetrics text format (units, # EOF)", 1 },
	{ "output", 'o', "FILE", 0, "Write -j, --prometheus or --openmetrics to FILE, replaced atomically "
	  "(each interval with INTERVAL)", 1 },
	{ "timestamp", 'T', NULL, 0, "Print a timestamp with each interval", 1 },
	{ "pid", 'p', "PID", 0, "Show only process PID's reads: per-read views (-t, -f, --slow, "
	  "--svg, --files, -D) and recordings; changes nothing in the module", 1 },
	{ "set-pid", OPT_SET_PID, "PID", 0, "Make the module follow process PID (a module setting: "
	  "it stays after the reader exits)", 2 },
	{ "set-comm", OPT_COMM, "NAME", 0, "Make the module follow every process named NAME "
	  "(\"\" turns it off; stays)", 2 },
	{ "comm", OPT_COMM, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 2 },
	{ "set-cgroup", OPT_CGROUP, "CGROUP", 0, "Make the module follow every task of a "
	  "cgroup v2 and those under it: its path under the cgroup2 mount (or with the mount "
	  "point first, as a container runtime prints it) or its id (\"\" turns it off; stays)",
	  2 },
	{ "unit", OPT_UNIT, "NAME", 0, "Make the module follow a systemd unit's cgroup "
	  "(postgresql.service, a slice or scope too; stays)", 2 },
	{ "set-children", OPT_CHILDREN, "0|1", OPTION_ARG_OPTIONAL,
	  "Make the module also follow processes forked from now on (default 1; stays)", 2 },
	{ "children", OPT_CHILDREN, NULL, OPTION_ALIAS | OPTION_HIDDEN, NULL, 2 },
	{ "reset", OPT_RESET, NULL, 0, "Zero the module's histograms and counters", 2 },
	{ "check", OPT_CHECK, NULL, 0, "Preflight: which layers work on this kernel, and why not "
	  "(exit 0 all, 1 some, 2 none)", 3 },
	{ "check-root", OPT_CHECK_ROOT, "DIR", OPTION_HIDDEN, "--check on a copy of /proc and /sys", 3 },
	{},
};

static int positive(const char *arg, struct argp_state *state, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v <= 0 || v > 1000000)
		argp_error(state, "invalid %s '%s': want a positive number", what, arg);
	return (int)v;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char *end;

	switch (key) {
	case 'r':
		env.root = arg;
		env.root_set = 1;
		break;
	case OPT_STRICT:
		env.strict = 1;
		break;
	case OPT_FROM:
		env.from = arg;
		break;
	case 'H':
		env.hist = 1;
		break;
	case 'm':
		env.unit = IL_UNIT_MS;
		break;
	case 'o':
		env.output = arg;
		break;
	case 'u':
		env.unit = IL_UNIT_US;
		break;
	case 'P':
		env.probes = 1;
		break;
	case 'c':
		env.cache = il_cache_index(arg);
		if (env.cache < 0)
			argp_error(state, "invalid cache state '%s': want HIT, MISS, PARTIAL, "
				   "DIRECT, other, UNK, ERROR, READY, WAITED or EMPTY", arg);
		env.cache_mask = 1U << env.cache;
		break;
	case 't':
		env.timeline = 1;
		break;
	case 'f':
		errno = 0;
		env.flow = strtoull(arg, &end, 10);
		if (errno || *end || !env.flow)
			argp_error(state, "invalid flow id '%s'", arg);
		env.timeline = 1;
		break;
	case 's':
		env.slow = 1;
		break;
	case OPT_FILES:
		env.files = 1;
		break;
	case 'D':
		env.disks = 1;
		break;
	case OPT_SVG:
		env.svg = arg;
		break;
	case OPT_HEATMAP:
		env.heatmap = arg;
		break;
	case OPT_PERFETTO:
		env.perfetto = arg;
		break;
	case OPT_ROWS:
		env.rows = positive(arg, state, "rows");
		break;
	case 'j':
		env.json = 1;
		break;
	case 'J':
		env.json_lines = 1;
		break;
	case OPT_PROM:
		env.prometheus = 1;
		break;
	case OPT_OPENMETRICS:
		env.prometheus = 2;
		break;
	case 'T':
		env.timestamp = 1;
		break;
	case 'p':
		errno = 0;
		env.view_pid = strtol(arg, &end, 10);
		if (errno || *end || env.view_pid <= 0 || env.view_pid > 4194304)
			argp_error(state, "invalid pid '%s': want a process id", arg);
		break;
	case OPT_SET_PID:
		env.pid = arg;
		break;
	case OPT_COMM:
		env.comm = arg;
		break;
	case OPT_CGROUP:
		env.cgroup = arg;
		break;
	case OPT_UNIT:
		env.sd_unit = arg;
		break;
	case OPT_CHILDREN:
		env.children = arg ? arg : "1";
		break;
	case OPT_RESET:
		env.reset = 1;
		break;
	case OPT_CHECK:
		env.check = 1;
		break;
	case OPT_CHECK_ROOT:
		env.check_root = arg;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0)
			env.interval = positive(arg, state, "interval");
		else if (state->arg_num == 1)
			env.count = positive(arg, state, "count");
		else
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

	if (strcmp(root, LIVE_ROOT))
		return;
	if (geteuid() != 0)
		fprintf(stderr, "iolayers: debugfs is readable by root only: run with sudo\n");
	else if (stat("/sys/kernel/debug/tracing", &st) && stat("/sys/kernel/debug/block", &st))
		fprintf(stderr, "iolayers: debugfs is not mounted: mount -t debugfs none /sys/kernel/debug\n");
	else
		il_say_not_loaded();
}

/**
 * il_say_not_loaded() - Say on stderr that the module is not loaded, and
 * how to load it.
 */
void il_say_not_loaded(void)
{
	fprintf(stderr, "iolayers: the module is not loaded: insmod iolayers.ko pid=PID\n");
}

/**
 * il_params_dir() - Where the module's parameters are.
 *
 * Return: $IOLAYERS_PARAMS_DIR when set and not empty (tests point it at
 * a directory of their own), else IOLAYERS_PARAMS_DIR.
 */
const char *il_params_dir(void)
{
	const char *dir = getenv("IOLAYERS_PARAMS_DIR");

	return dir && *dir ? dir : IOLAYERS_PARAMS_DIR;
}

/**
 * il_set_param() - Change one of the module's runtime settings.
 * @name: the parameter (IOLAYERS_FILE_PID...)
 * @value: its new value
 *
 * Writes IOLAYERS_PARAMS_DIR/@name (or $IOLAYERS_PARAMS_DIR/@name): module
 * parameters stay writable where a locked-down kernel refuses debugfs
 * writes. Says why on stderr when it fails, and else, for every setting
 * but reset, the change on stderr: the module keeps it after the reader
 * exits, for every reader.
 *
 * Return: 0, or -1.
 */
int il_set_param(const char *name, const char *value)
{
	char path[4096], was[4096 + 16], ewas[IL_TERM_LEN(256)], eval[IL_TERM_LEN(256)], *line;
	size_t len;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", il_params_dir(), name);
	was[0] = '\0';
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, was, sizeof(was) - 1);
		was[n > 0 ? n : 0] = '\0';
		was[strcspn(was, "\n")] = '\0';
		close(fd);
	}
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "iolayers: %s: %s\n", path, strerror(errno));
		if (errno == ENOENT)
			il_say_not_loaded();
		else if (errno == EACCES)
			fprintf(stderr, "iolayers: settings are writable by root only: run with sudo\n");
		return -1;
	}
	/*
	 * With a newline, which the module takes off: a write of nothing
	 * ("" to turn comm= or cgroup= off) would change nothing, as sysfs
	 * never calls the setting for it.
	 */
	len = strlen(value);
	line = malloc(len + 2);
	if (!line) {
		close(fd);
		fprintf(stderr, "iolayers: out of memory\n");
		return -1;
	}
	memcpy(line, value, len);
	line[len] = '\n';
	n = write(fd, line, len + 1);
	free(line);
	if (close(fd) && n >= 0)
		n = -1;
	if (n < 0) {
		fprintf(stderr, "iolayers: %s: the module refused '%s' (%s)%s\n", name,
			il_term_str(eval, sizeof(eval), value), strerror(errno),
			errno == EBUSY ? "" : "; see dmesg");
		return -1;
	}
	if (strcmp(name, IOLAYERS_FILE_RESET))
		fprintf(stderr, "iolayers: module setting %s: '%s' -> '%s' (it stays after this "
			"reader exits)\n", name, il_term_str(ewas, sizeof(ewas), was),
			il_term_str(eval, sizeof(eval), value));
	return 0;
}

/*
 * -p and -c: keep the reads of process env.view_pid, in state env.cache,
 * in @fl (the module's; a recording keeps only those as it is read).
 */
static void keep_view(struct il_flows *fl)
{
	int i, n = 0;

	for (i = 0; i < fl->n; i++)
		if ((!env.view_pid || fl->v[i].tgid == env.view_pid) &&
		    (env.cache < 0 || fl->v[i].cache == env.cache))
			fl->v[n++] = fl->v[i];
	fl->n = n;
}

/*
 * -p with a view of the module's totals (the table, -H, -j, --prometheus,
 * -P, intervals): they are of every read the module follows, so they are
 * the process's only when that is all it follows. Says so when not.
 */
static int view_pid_totals_ok(const struct il_snapshot *s)
{
	char tc[IL_TERM_LEN(IL_NAME_LEN)], tg[IL_TERM_LEN(sizeof(s->cgroup))];

	if (!env.view_pid || s->recording ||
	    (s->pid == env.view_pid && !s->comm[0] && !s->cgroup[0] && !s->children))
		return 1;
	fprintf(stderr, "iolayers: -p %ld: the module's totals and histograms are of all it "
		"follows (pid %d%s%s%s%s%s), not of %ld alone; -p filters the per-read views (-t, "
		"-f, --slow, --svg, --files, -D) and recordings (--from); --set-pid %ld makes the "
		"module follow %ld\n", env.view_pid, s->pid, s->children ? " and its children" : "",
		s->comm[0] ? ", comm " : "", il_term_str(tc, sizeof(tc), s->comm),
		s->cgroup[0] ? ", cgroup " : "", il_term_str(tg, sizeof(tg), s->cgroup),
		env.view_pid, env.view_pid, env.view_pid);
	return 0;
}

/*
 * What a recording, read read by read, keeps for the view asked for: the
 * slowest reads for -t and --svg, one for -f, the slow ones for --slow,
 * the newest --rows for -j (as the module keeps the newest in flows);
 * none for the views made of histograms and sums.
 */
static int64_t recording_interval_ns;	/* --from REC INTERVAL */
static struct il_perfetto *recording_perfetto;	/* --perfetto */
static void recording_interval(const struct il_snapshot *s, int64_t end_ns);

static void recording_keeps(struct il_snapshot *s)
{
	s->view_cache_mask = env.cache >= 0 ? 1U << env.cache : 0;
	s->keep = IL_KEEP_NONE;
	if (env.svg) {
		s->keep = IL_KEEP_SLOWEST;
		s->keep_n = env.rows;
	} else if (env.timeline && env.flow) {
		s->keep = IL_KEEP_SEQ;
		s->keep_seq = env.flow;
	} else if (env.timeline) {
		s->keep = IL_KEEP_SLOWEST;
		s->keep_n = 1;
	} else if (env.json) {
		s->keep = IL_KEEP_NEWEST;
		s->keep_n = env.rows;
	}
	s->no_slow = !env.slow && !env.json;
	s->slow_max = env.slow ? IL_MAX_SLOW : env.rows;
	if (env.heatmap)
		s->heat = calloc(1, sizeof(*s->heat));
	s->perfetto = recording_perfetto;
	if (recording_interval_ns) {
		/* Intervals print histograms only: no read kept from one to the next. */
		s->interval_ns = recording_interval_ns;
		s->on_interval = recording_interval;
		s->keep = IL_KEEP_NONE;
		s->no_slow = 1;
	}
}

static int read_snapshot(struct il_snapshot *s)
{
	/* err, or the recording's warning (shorter), escaped. */
	char err[512], terr[IL_TERM_LEN(512)];
	struct stat st;
	_Static_assert(sizeof(s->warning) <= sizeof(err), "terr holds a warning escaped");

	if (env.from) {
		FILE *f = fopen(env.from, "r");
		int ret;

		if (!f) {
			fprintf(stderr, "iolayers: %s: %s\n", env.from, strerror(errno));
			return -1;
		}
		memset(s, 0, sizeof(*s));
		s->view_pid = env.view_pid;
		recording_keeps(s);
		ret = il_parse_recording(f, s, err, sizeof(err));
		fclose(f);
		if (!ret && s->warning[0]) {
			fprintf(stderr, "iolayers: %s: %s%s\n", env.from,
				env.strict ? "refused (--strict): " : "warning: ",
				il_term_str(terr, sizeof(terr), s->warning));
			if (env.strict) {
				il_snapshot_free(s);
				return -1;
			}
		}
		/* -p and -c were applied read by read (recording_keeps()). */
		if (ret) {
			/* The message may quote the recording. */
			fprintf(stderr, "iolayers: %s: %s\n", env.from,
				il_term_str(terr, sizeof(terr), err));
			il_snapshot_free(s);
		}
		return ret;
	}

	if (stat(env.root, &st)) {
		fprintf(stderr, "iolayers: %s: %s\n", env.root, strerror(errno));
		explain_missing(env.root);
		return -1;
	}
	if (il_read_snapshot(env.root, s, err, sizeof(err))) {
		fprintf(stderr, "iolayers: %s\n", il_term_str(terr, sizeof(terr), err));
		return -1;
	}
	s->view_pid = env.view_pid;
	keep_view(&s->flows);
	keep_view(&s->slow);
	if (il_model_sum_flows(s)) {
		fprintf(stderr, "iolayers: out of memory\n");
		il_snapshot_free(s);
		return -1;
	}
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * -o FILE: write @view of @s to a temporary file next to FILE and rename
 * it over FILE, so that a reader of FILE (node_exporter's textfile
 * collector) never sees half of it.
 */
static int write_atomically(const char *file, void (*view)(FILE *, const struct il_snapshot *),
			    const struct il_snapshot *s)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", file) >= (int)sizeof(tmp)) {
		fprintf(stderr, "iolayers: %s: name too long\n", file);
		return 1;
	}
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		fprintf(stderr, "iolayers: %s: %s\n", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		return 1;
	}
	fchmod(fd, 0644);
	view(f, s);
	if (ferror(f) | fclose(f) || rename(tmp, file)) {
		fprintf(stderr, "iolayers: %s: %s\n", file, strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

/* The view --prometheus or --openmetrics asked for. */
static void (*prom_view(void))(FILE *, const struct il_snapshot *)
{
	return env.prometheus == 2 ? il_view_openmetrics : il_view_prometheus;
}

/* A JSON view on one line with the interval's wall-clock time first. */
static void json_line(FILE *out, const struct il_snapshot *s, const char *when)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	il_view_json(m, s);
	fclose(m);
	/* Strings are escaped: every newline, and the indent after it, is layout. */
	fprintf(out, "{\"time\": \"%s\", \"interval_s\": %d, ", when, env.interval);
	for (p = buf + 1; p < buf + len; p++) {
		if (*p == '\n') {
			while (p[1] == ' ')
				p++;
			continue;
		}
		fputc(*p, out);
	}
	fputc('\n', out);
	free(buf);
}

/*
 * One interval: its deltas as the table or histograms, or as one JSON
 * line; Prometheus gets the totals (its counters are cumulative), to
 * FILE or stdout.
 */
static int show(const struct il_snapshot *d, const struct il_snapshot *total, const char *when)
{
	if (env.prometheus) {
		if (env.output)
			return write_atomically(env.output, prom_view(), total);
		prom_view()(stdout, total);
		return 0;
	}
	if (env.json) {
		json_line(stdout, d, when);
		return 0;
	}
	if (env.timestamp)
		printf("%s\n", when);
	if (env.hist)
		il_view_hist(stdout, d, env.cache_mask, env.unit);
	else
		il_view_table(stdout, d, env.cache_mask);
	printf("\n");
	return 0;
}

/* INTERVAL [COUNT]: deltas, like biolatency; Ctrl-C ends after a clean line. */
static int interval_loop(void)
{
	struct il_snapshot before, now, d;
	struct sigaction sa = { .sa_handler = on_signal };
	char ts[40];
	struct tm tm;
	time_t t;
	int rc = 0;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (read_snapshot(&before))
		return 1;
	if (!view_pid_totals_ok(&before)) {
		il_snapshot_free(&before);
		return 2;
	}
	while (!stop && env.count != 0) {
		struct timespec left = { env.interval, 0 };

		while (nanosleep(&left, &left) && !stop)
			;
		if (read_snapshot(&now)) {
			il_snapshot_free(&before);
			return 1;
		}
		il_snapshot_delta(&d, &now, &before);
		t = time(NULL);
		localtime_r(&t, &tm);
		/* -T prints the time of day; JSON lines carry ISO 8601 with the offset. */
		strftime(ts, sizeof(ts), env.json ? "%Y-%m-%dT%H:%M:%S%z" : "%H:%M:%S", &tm);
		rc |= show(&d, &now, ts);
		fflush(stdout);
		il_snapshot_free(&before);
		before = now;
		if (env.count > 0)
			env.count--;
	}
	il_snapshot_free(&before);
	return rc;
}

/* --perfetto FILE: the recording as a trace, written as it is read. */
static int perfetto_main(void)
{
	struct il_snapshot s;
	FILE *out = fopen(env.perfetto, "w");
	int ret;

	if (!out) {
		fprintf(stderr, "iolayers: %s: %s\n", env.perfetto, strerror(errno));
		return 1;
	}
	recording_perfetto = il_perfetto_open(out);
	ret = recording_perfetto ? read_snapshot(&s) : -1;
	if (recording_perfetto)
		il_perfetto_close(recording_perfetto);
	if (ferror(out) | fclose(out) && !ret) {
		fprintf(stderr, "iolayers: %s: %s\n", env.perfetto, strerror(errno));
		ret = -1;
	}
	if (!ret) {
		printf("iolayers: wrote %s (%" PRId64 " reads, %" PRId64 " lost); open it in "
		       "https://ui.perfetto.dev\n", env.perfetto, s.view_reads, s.rec_lost);
		il_snapshot_free(&s);
	}
	return ret ? 1 : 0;
}

/* -J: the recording's reads as JSON lines, on stdout. */
static int json_lines_main(void)
{
	char err[512], terr[IL_TERM_LEN(512)];
	FILE *f = fopen(env.from, "r");
	int ret;

	if (!f) {
		fprintf(stderr, "iolayers: %s: %s\n", env.from, strerror(errno));
		return 1;
	}
	ret = il_recording_json_lines(f, stdout, err, sizeof(err));
	fclose(f);
	if (fflush(stdout) && !ret) {
		snprintf(err, sizeof(err), "stdout: %s", strerror(errno));
		ret = -1;
	}
	if (ret)
		fprintf(stderr, "iolayers: %s: %s\n", env.from, il_term_str(terr, sizeof(terr), err));
	return ret ? 1 : 0;
}

/* The wall-clock time of a recording's @ns (CLOCK_MONOTONIC), as live intervals print it. */
static void recording_time(char *buf, size_t len, const struct il_snapshot *s, int64_t ns)
{
	/* A recording from before the anchor: its own clock's seconds. */
	il_fmt_wall(buf, len, ns, s->realtime_off, env.json ? "%Y-%m-%dT%H:%M:%S%z" : "%H:%M:%S");
}

/* One interval of a recording, printed as a live one is (with its time). */
static void recording_interval(const struct il_snapshot *s, int64_t end_ns)
{
	char ts[48];

	if (!env.count)
		return;
	recording_time(ts, sizeof(ts), s, end_ns);
	show(s, s, ts);
	if (env.count > 0)
		env.count--;
}

/*
 * --from REC INTERVAL [COUNT]: the recording's reads per INTERVAL of the
 * wall clock (aligned to it, as the time a live interval ends), in the
 * order they ended, the table, -H or -j of each with its end time;
 * intervals without a read left out.
 */
static int recording_intervals(void)
{
	struct il_snapshot s;
	int ret;

	env.timestamp = 1;
	recording_interval_ns = (int64_t)env.interval * 1000000000;
	ret = read_snapshot(&s);
	if (!ret)
		il_snapshot_free(&s);
	fflush(stdout);
	return ret ? 1 : 0;
}

/*
 * Options that cannot go together: two views (each prints one), a
 * modifier without the view it modifies, two sources. Says which, on
 * stderr. Return: 1 when there is a conflict.
 */
static int conflicts(void)
{
	const struct { int on; const char *name; } views[] = {
		{ env.json, "-j" }, { env.prometheus == 1, "--prometheus" },
		{ env.prometheus == 2, "--openmetrics" }, { !!env.svg, "--svg" },
		{ env.timeline && !env.flow, "-t" }, { env.timeline && env.flow, "-f" },
		{ env.slow, "--slow" }, { env.files, "--files" }, { env.disks, "-D" },
		{ env.probes, "-P" }, { env.hist, "-H" }, { env.check, "--check" },
		{ env.json_lines, "-J" }, { !!env.heatmap, "--heatmap" },
		{ !!env.perfetto, "--perfetto" },
	};
	const char *first = NULL;
	size_t i;

	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		if (!views[i].on)
			continue;
		if (first) {
			fprintf(stderr, "iolayers: %s and %s are two views: choose one\n", first,
				views[i].name);
			return 1;
		}
		first = views[i].name;
	}
	if (env.from && env.root_set) {
		fprintf(stderr, "iolayers: --from and --root are two sources: choose one\n");
		return 1;
	}
	if (env.json_lines && (!env.from || env.view_pid || env.cache >= 0 || env.output)) {
		fprintf(stderr, "iolayers: -J prints every read of a recording (--from), on "
			"stdout: no -p, -c or -o\n");
		return 1;
	}
	if ((env.heatmap || env.perfetto) && (!env.from || env.interval)) {
		fprintf(stderr, "iolayers: --heatmap and --perfetto show a recording's reads over "
			"time: they go with --from, without an interval\n");
		return 1;
	}
	if (env.strict && env.interval) {
		fprintf(stderr, "iolayers: --strict refuses a damaged recording before printing; "
			"an INTERVAL prints as it reads: choose one\n");
		return 1;
	}
	if (env.strict && !env.from) {
		fprintf(stderr, "iolayers: --strict is about a recording: it goes with --from\n");
		return 1;
	}
	if (env.cache >= 0 && (env.json || env.prometheus || env.probes || env.check)) {
		fprintf(stderr, "iolayers: -c selects the reads of the table, -H, -t, --slow, "
			"--svg, --files and -D; %s shows every state\n", first);
		return 1;
	}
	if (env.unit && !env.hist && !env.disks) {
		fprintf(stderr, "iolayers: -m and -u are the unit of -H and -D\n");
		return 1;
	}
	if (env.timestamp && !env.interval) {
		fprintf(stderr, "iolayers: -T prints a time with each interval: give an INTERVAL\n");
		return 1;
	}
	if (env.interval && (env.svg || env.timeline || env.slow || env.files || env.disks ||
			     env.probes)) {
		fprintf(stderr, "iolayers: INTERVAL repeats the table, -H, -j or --prometheus; "
			"%s is shown once\n", first);
		return 1;
	}
	return 0;
}

/* --set-cgroup or --unit: the module's cgroup= setting. */
static int set_cgroup(void)
{
	char v[4096];

	if (il_cgroup_target(env.sd_unit ? env.sd_unit : env.cgroup, !!env.sd_unit, v, sizeof(v)))
		return -1;
	return il_set_param(IOLAYERS_FILE_CGROUP, v);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	int settings, ret = 0;
	struct il_snapshot s;
	FILE *svg;

	/* A bad option or argument exits 2, as record's do (not argp's 64). */
	argp_err_exit_status = 2;
	if (argc > 1 && !strcmp(argv[1], "record"))
		return il_record_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "serve"))
		return il_serve_main(argc - 1, argv + 1);
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	if (conflicts())
		return 2;
	if (env.check)
		return il_preflight(env.check_root ? env.check_root : "", stdout);
	if (env.output && !env.json && !env.prometheus) {
		fprintf(stderr, "iolayers: -o FILE writes -j, --prometheus or --openmetrics output only\n");
		return 2;
	}
	settings = env.pid || env.comm || env.cgroup || env.sd_unit || env.children || env.reset;
	if (env.cgroup && env.sd_unit) {
		fprintf(stderr, "iolayers: --set-cgroup or --unit, not both\n");
		return 2;
	}
	if (env.from && (settings || env.probes || (env.interval && env.prometheus))) {
		fprintf(stderr, "iolayers: --from reads a recording: no settings, -P, or "
			"--prometheus with an interval\n");
		return 1;
	}
	if ((env.pid && il_set_param(IOLAYERS_FILE_PID, env.pid)) ||
	    (env.comm && il_set_param(IOLAYERS_FILE_COMM, env.comm)) ||
	    ((env.cgroup || env.sd_unit) && set_cgroup()) ||
	    (env.children && il_set_param(IOLAYERS_FILE_CHILDREN, env.children)) ||
	    (env.reset && il_set_param(IOLAYERS_FILE_RESET, "1")))
		return 1;
	if (env.json_lines)
		return json_lines_main();
	if (env.perfetto)
		return perfetto_main();
	if (env.interval && env.from)
		return recording_intervals();
	if (env.interval)
		return interval_loop();
	if (settings && !(env.hist || env.probes || env.timeline || env.slow || env.svg || env.json ||
			  env.prometheus || env.files || env.disks))
		return 0;
	if (read_snapshot(&s))
		return 1;
	if (!(env.svg || env.timeline || env.files || env.disks || env.slow) &&
	    !view_pid_totals_ok(&s)) {
		il_snapshot_free(&s);
		return 2;
	}
	if (env.output && (env.json || env.prometheus)) {
		ret = write_atomically(env.output, env.json ? il_view_json : prom_view(), &s);
	} else if (env.json) {
		il_view_json(stdout, &s);
	} else if (env.prometheus) {
		prom_view()(stdout, &s);
	} else if (env.svg) {
		svg = fopen(env.svg, "w");
		if (!svg || il_view_svg(svg, &s, env.rows) || fclose(svg)) {
			fprintf(stderr, "iolayers: %s: %s\n", env.svg, strerror(errno));
			ret = 1;
		} else {
			printf("iolayers: wrote %s (%d slowest reads of %d kept)\n", env.svg,
			       s.flows.n < env.rows ? s.flows.n : env.rows, s.flows.n);
		}
	} else if (env.heatmap) {
		FILE *hm = s.heat ? fopen(env.heatmap, "w") : NULL;
		int panels = hm ? il_view_heatmap(hm, &s) : 0;

		if (!hm || ferror(hm) | fclose(hm)) {
			fprintf(stderr, "iolayers: %s: %s\n", env.heatmap,
				s.heat ? strerror(errno) : "out of memory");
			ret = 1;
		} else {
			printf("iolayers: wrote %s (%d panels, %" PRId64 " reads)\n", env.heatmap,
			       panels, s.view_reads);
		}
	} else if (env.timeline) {
		/* The slowest kept read: `slow` may hold older, slower ones. */
		const struct il_flow *f = il_pick_flow(&s.flows, env.flow, env.cache);
		const struct il_flow *g = il_pick_flow(&s.slow, env.flow, env.cache);

		if (!f || (g && !env.flow && il_flow_ns(g) > il_flow_ns(f)))
			f = g;
		if (f) {
			il_view_timeline(stdout, f);
		} else {
			fprintf(stderr, "iolayers: no such read in flows or slow (the module keeps "
				"the newest flows= per CPU)\n");
			ret = 1;
		}
	} else if (env.files) {
		il_view_files(stdout, &s, env.rows);
	} else if (env.disks) {
		il_view_disks(stdout, &s, env.unit);
	} else if (env.slow) {
		il_view_slow(stdout, &s.slow);
		if (s.slow_dropped)
			printf("(the %" PRId64 " slow reads before these not kept: the newest %d are)\n",
			       s.slow_dropped, s.slow.n);
	} else if (env.probes) {
		il_view_probes(stdout, &s);
	} else if (env.hist) {
		il_view_hist(stdout, &s, env.cache_mask, env.unit);
	} else {
		il_view_table(stdout, &s, env.cache_mask);
		if (!env.hist)
			printf("SHARE: the layer's time over the syscall (or io_uring or AIO "
			       "request, or page fault) time of the same reads; queue/service/device: "
			       "the longest request of each read\n");
	}
	il_snapshot_free(&s);
	return ret;
}
