// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark: the guest side of the instruction counter. Executes the
 * marker and prints the plugin's running totals as "seq kernel user",
 * read back from the plugin's file (the host path, seen over the guest's
 * 9p root). With "loop N" or "syscalls N" it measures a known piece of
 * code between two markers in one process and prints "kernel user"
 * executed in between: the self-test of the counter.
 *
 * Usage: insn-mark FILE [loop N | syscalls N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "icount.h"

struct totals {
	unsigned long long seq, kernel, user;
};

/* noinline: one marker instruction per call site, none duplicated. */
static __attribute__((noinline)) void mark(void)
{
	asm volatile(IOLAYERS_MARK_ASM ::: "memory");
}

/* The "M seq kernel user" line of marker @seq (0: the newest) in the file. */
static int read_totals(const char *path, unsigned long long seq, struct totals *t)
{
	struct totals l;
	char line[256];
	FILE *f = fopen(path, "r");
	int found = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "M %llu %llu %llu", &l.seq, &l.kernel, &l.user) == 3 &&
		    (!seq || l.seq == seq)) {
			*t = l;
			found = 1;
		}
	fclose(f);
	if (!found) {
		fprintf(stderr, "insn-mark: marker %llu not in %s: is the plugin loaded?\n",
			seq, path);
		return -1;
	}
	return 0;
}

/* Exactly two instructions per iteration: dec, jnz. */
static void loop(unsigned long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) :: "cc");
}

int main(int argc, char **argv)
{
	struct totals a, b, c;
	unsigned long n, i;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: insn-mark FILE [loop N | syscalls N]\n");
		return 2;
	}
	mark();
	if (read_totals(argv[1], 0, &a))
		return 1;
	if (argc == 2) {
		printf("%llu %llu %llu\n", a.seq, a.kernel, a.user);
		return 0;
	}
	n = strtoul(argv[3], NULL, 0);
	if (!n || (strcmp(argv[2], "loop") && strcmp(argv[2], "syscalls"))) {
		fprintf(stderr, "insn-mark: want loop N or syscalls N, N > 0\n");
		return 2;
	}
	/* Markers a.seq + 1 and a.seq + 2 hold only the code measured. */
	mark();
	if (!strcmp(argv[2], "loop"))
		loop(n);
	else
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	mark();
	if (read_totals(argv[1], a.seq + 1, &b) || read_totals(argv[1], a.seq + 2, &c))
		return 1;
	printf("%llu %llu\n", c.kernel - b.kernel, c.user - b.user);
	return 0;
}
