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
 * From /proc/self/mountinfo: the first cgroup2 mount of the hierarchy's
 * root as the reader's cgroup namespace sees it (mount root "/"); a mount
 * of a cgroup under it is not taken, for the module's paths start at
 * that root.
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
		char *sep = strstr(line, " - "), *root, *mp, *p;
		int i;

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		root = line;
		for (i = 0; i < 3 && root; i++) {
			root = strchr(root, ' ');
			if (root)
				root++;
		}
		if (!root)
			continue;
		mp = strchr(root, ' ');
		if (!mp)
			continue;
		*mp++ = '\0';
		p = strchr(mp, ' ');
		if (!p)
			continue;
		*p = '\0';
		/*
		 * The mount of the hierarchy's root (in the reader's cgroup
		 * namespace), not of a cgroup under it: paths under it are
		 * what the module takes. Octal escapes (\040 a blank): such a
		 * mount point is not taken.
		 */
		if (strcmp(root, "/") || strlen(mp) >= len || strchr(mp, '\\'))
			continue;
		strcpy(buf, mp);
		ret = 0;
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

/*
 * systemctl's ControlGroup of @unit into @out. Return: 0; 1 when systemd
 * runs but gives the unit no cgroup (not loaded, or not active); 2 when
 * systemctl failed (said on stderr); -1 when systemd cannot say (not
 * running here, no systemctl).
 */
static int systemctl_cgroup(const char *unit, char *out, size_t len)
{
	static const char *const paths[] = { "/usr/bin/systemctl", "/bin/systemctl" };
	const char *sc = NULL;
	int p[2], status;
	size_t got = 0, i;
	ssize_t n;
	pid_t pid, w;

	/* sd_booted(): systemd is the init system here. */
	if (access("/run/systemd/system", F_OK))
		return -1;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && !sc; i++)
		if (!access(paths[i], X_OK))
			sc = paths[i];
	if (!sc || pipe(p))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		/* Its errors (no bus, say) are the user's to see. */
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execl(sc, "systemctl", "show", "--property=ControlGroup", "--value", "--", unit,
		      (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (got + 1 < len) {
		n = read(p[0], out + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(p[0]);
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 127)
		return -1;
	if (WEXITSTATUS(status)) {
		fprintf(stderr, "iolayers: --unit: %s show failed (exit %d; above)\n", sc,
			WEXITSTATUS(status));
		return 2;
	}
	return out[0] != '/';
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
 * A unit's cgroup is systemd's (``systemctl show -p ControlGroup``), and
 * none when systemd gives it none; where no systemd runs, the one
 * directory of that name under the cgroup2 mount, eight levels deep at
 * most.
 *
 * Return: 0, or -1 with a message on stderr.
 */
int il_cgroup_target(const char *arg, int unit, char *out, size_t len)
{
	char mnt[PATH_MAX], tmp[IL_TERM_LEN(256)], emnt[IL_TERM_LEN(256)];
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
	n = systemctl_cgroup(arg, out, len);
	if (!n)
		return 0;
	if (n == 2)
		return -1;
	if (n > 0) {
		fprintf(stderr, "iolayers: --unit %s: systemd gives it no cgroup (no such unit, "
			"or not active)\n", il_term_str(tmp, sizeof(tmp), arg));
		return -1;
	}
	if (il_cgroup2_mount(mnt, sizeof(mnt))) {
		fprintf(stderr, "iolayers: --unit %s: no cgroup v2 hierarchy is mounted (a cgroup "
			"v1 host: the module follows cgroup v2 only)\n",
			il_term_str(tmp, sizeof(tmp), arg));
		return -1;
	}
	n = find_dir(mnt, strlen(mnt), arg, 8, out, len);
	if (n == 1)
		return 0;
	fprintf(stderr, "iolayers: --unit %s: %s under %s (and no systemd to ask)\n",
		il_term_str(tmp, sizeof(tmp), arg),
		n ? "more than one cgroup of that name" : "no cgroup of that name",
		il_term_str(emnt, sizeof(emnt), mnt));
	return -1;
too_long:
	fprintf(stderr, "iolayers: --set-cgroup: a path of at most %zu bytes\n", len - 1);
	return -1;
}
