// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers reader: what --set-cgroup and --unit name, as the module's
 * cgroup= setting wants it: a path under the cgroup2 mount, or an id.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "iolayers.h"

/**
 * il_cgroup2_mount() - where the cgroup v2 hierarchy is mounted.
 * @buf: its mount point
 * @len: @buf's size
 *
 * From /proc/self/mountinfo: the first cgroup2 mount (its mount root
 * the hierarchy's root; a mount of a cgroup under it, in a container,
 * counts from there, as the module's paths do in the writer's namespace).
 *
 * Return: 0, or -1 when none is mounted (a cgroup v1 host).
 */
int il_cgroup2_mount(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *line = NULL;
	size_t cap = 0;
	int ret = -1;

	if (!f)
		return -1;
	while (ret && getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPER */
		char *sep = strstr(line, " - "), *mp, *p;
		int i;

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		mp = line;
		for (i = 0; i < 4 && mp; i++) {
			mp = strchr(mp, ' ');
			if (mp)
				mp++;
		}
		if (!mp)
			continue;
		p = strchr(mp, ' ');
		if (!p)
			continue;
		*p = '\0';
		/* Octal escapes (\040 a blank) are left: such a mount point is not followed. */
		if (strlen(mp) < len && !strchr(mp, '\\')) {
			strcpy(buf, mp);
			ret = 0;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

/*
 * A directory named @name under @dir (depth first, @depth levels at
 * most): its path relative to @base into @out. Return: how many such
 * directories there are (0, 1, or 2 meaning "more than one").
 */
static int find_dir(const char *dir, size_t base, const char *name, int depth, char *out,
		    size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while (found < 2 && (e = readdir(d))) {
		char sub[PATH_MAX];

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= sizeof(sub))
			continue;
		if (!strcmp(e->d_name, name)) {
			if (!found++ && strlen(sub + base) < len)
				strcpy(out, sub + base);
			continue;
		}
		if (depth > 1) {
			char o2[PATH_MAX];
			int n = find_dir(sub, base, name, depth - 1, o2, sizeof(o2));

			if (n && !found && strlen(o2) < len)
				strcpy(out, o2);
			found += n;
		}
	}
	closedir(d);
	return found;
}

/* systemctl's ControlGroup of @unit into @out; -1 when systemctl cannot say. */
static int systemctl_cgroup(const char *unit, char *out, size_t len)
{
	int p[2], status;
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(p[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(p[0]);
		close(p[1]);
		execlp("systemctl", "systemctl", "show", "--property=ControlGroup", "--value",
		       "--", unit, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (got + 1 < len && (n = read(p[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	close(p[0]);
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    out[0] != '/')
		return -1;
	return 0;
}

/**
 * il_cgroup_target() - the module's cgroup= value for what the user named.
 * @arg: a cgroup's path under the cgroup2 mount (``/system.slice/x``),
 *	the same path with the mount point before it (``/sys/fs/cgroup/...``,
 *	as a container runtime prints it), an id, or "" (off)
 * @unit: 1 when @arg is a systemd unit's name (``postgresql.service``)
 * @out: the value
 * @len: @out's size
 *
 * A unit's cgroup is systemd's (``systemctl show -p ControlGroup``); where
 * systemctl cannot say (no systemd running), the one directory of that
 * name under the cgroup2 mount, eight levels deep at most.
 *
 * Return: 0, or -1 with a message on stderr.
 */
int il_cgroup_target(const char *arg, int unit, char *out, size_t len)
{
	char mnt[PATH_MAX], tmp[IL_TERM_LEN(256)];
	size_t ml;
	int n;

	if (!unit) {
		/* An id, or off: as it is. */
		if (!arg[0] || strspn(arg, "0123456789") == strlen(arg) ||
		    il_cgroup2_mount(mnt, sizeof(mnt))) {
			if (strlen(arg) >= len)
				goto too_long;
			strcpy(out, arg);
			return 0;
		}
		ml = strlen(mnt);
		/* The mount point's own path, and a directory that is there: under the mount. */
		if (!strncmp(arg, mnt, ml) && (arg[ml] == '/' || !arg[ml])) {
			struct stat st;

			if (!stat(arg, &st) && S_ISDIR(st.st_mode)) {
				if (strlen(arg + ml) + 2 > len)
					goto too_long;
				strcpy(out, arg[ml] ? arg + ml : "/");
				return 0;
			}
		}
		if (strlen(arg) >= len)
			goto too_long;
		strcpy(out, arg);
		return 0;
	}
	if (!arg[0] || strchr(arg, '/')) {
		fprintf(stderr, "iolayers: --unit '%s': want a unit's name, like "
			"postgresql.service\n", il_term_str(tmp, sizeof(tmp), arg));
		return -1;
	}
	if (!systemctl_cgroup(arg, out, len))
		return 0;
	if (il_cgroup2_mount(mnt, sizeof(mnt))) {
		fprintf(stderr, "iolayers: --unit %s: no cgroup v2 hierarchy is mounted (a cgroup "
			"v1 host: the module follows cgroup v2 only)\n",
			il_term_str(tmp, sizeof(tmp), arg));
		return -1;
	}
	n = find_dir(mnt, strlen(mnt), arg, 8, out, len);
	if (n == 1)
		return 0;
	fprintf(stderr, "iolayers: --unit %s: %s under %s (and systemctl cannot say)\n",
		il_term_str(tmp, sizeof(tmp), arg),
		n ? "more than one cgroup of that name" : "no cgroup of that name", mnt);
	return -1;
too_long:
	fprintf(stderr, "iolayers: --set-cgroup: a path of at most %zu bytes\n", len - 1);
	return -1;
}
