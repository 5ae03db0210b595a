// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the mmap test: touches of pages of FILE mapped shared
 * and read-only, in a random order, each between two
 * getrusage(RUSAGE_THREAD) calls (the kernel's own count of this
 * thread's minor and major faults) and after mincore() said whether its
 * page is in the page cache.
 *
 * Usage: mmapcheck FILE COUNT SEED [random|sequential] [signals]
 *	[write|readinto]
 * random and sequential give the mapping MADV_RANDOM (no readahead: a
 * fault reads its own page) or MADV_SEQUENTIAL (aggressive readahead);
 * neither: the kernel's default. signals sends this thread SIGALRM every
 * 200 us (a handler that does nothing, SA_RESTART): faults waiting for
 * their page are given up and taken again. write makes the mapping
 * private and writable and each touch a write; readinto makes it so and
 * fills each touched page with a pread() of FILE (its faults are the
 * read's, in the kernel).
 * Prints: touches N faults N minor N major N. With UC_LOG=FILE in the
 * environment, also one line per touch that faulted into FILE: "OFFSET
 * MINOR MAJOR RESIDENT" (the page's file offset, the faults getrusage()
 * counted, 1 when mincore() said the page was cached before).
 * Stops itself (SIGSTOP) before the first touch so that the test can
 * load the module with its pid.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include "checkutil.h"

static void on_alarm(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	const char *log = getenv("UC_LOG");
	long count, pages, i, faults = 0, minor = 0, major = 0;
	volatile unsigned char sink = 0;
	struct rusage before, after;
	int fd, advice = MADV_NORMAL, write, readinto;
	struct itimerval tick = { { 0, 200 }, { 0, 200 } };
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	FILE *logf = NULL;
	unsigned char vec;
	struct stat st;
	char *map;

	if (argc < 4) {
		fprintf(stderr, "usage: mmapcheck FILE COUNT SEED [random|sequential]\n");
		return 2;
	}
	if (has(argc, argv, "random"))
		advice = MADV_RANDOM;
	else if (has(argc, argv, "sequential"))
		advice = MADV_SEQUENTIAL;
	write = has(argc, argv, "write");
	readinto = has(argc, argv, "readinto");
	count = atol(argv[2]);
	srand(atoi(argv[3]));
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	pages = st.st_size / 4096;
	map = write || readinto ?
	      mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0) :
	      mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || pages == 0 || madvise(map, st.st_size, advice)) {
		perror("mmap");
		return 1;
	}
	if (log && !(logf = fopen(log, "w"))) {
		perror(log);
		return 1;
	}
	/* The log's buffer and the counters' pages, faulted in before. */
	if (logf)
		setvbuf(logf, NULL, _IOFBF, 1 << 20);
	getrusage(RUSAGE_THREAD, &before);
	raise(SIGSTOP);
	if (has(argc, argv, "signals") &&
	    (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &tick, NULL))) {
		perror("setitimer");
		return 1;
	}
	for (i = 0; i < count; i++) {
		long page = ((long)rand() * RAND_MAX + rand()) % pages, dmin, dmaj;

		if (mincore(map + page * 4096, 4096, &vec)) {
			perror("mincore");
			return 1;
		}
		getrusage(RUSAGE_THREAD, &before);
		if (readinto) {
			if (pread(fd, map + page * 4096, 4096, ((page + 1) % pages) * 4096) != 4096) {
				perror("pread");
				return 1;
			}
		} else if (write) {
			map[page * 4096] = 1;
		} else {
			sink += map[page * 4096];
		}
		getrusage(RUSAGE_THREAD, &after);
		dmin = after.ru_minflt - before.ru_minflt;
		dmaj = after.ru_majflt - before.ru_majflt;
		if (!dmin && !dmaj)
			continue;
		faults += dmin + dmaj;
		minor += dmin;
		major += dmaj;
		if (logf)
			fprintf(logf, "%ld %ld %ld %d\n", page * 4096, dmin, dmaj, vec & 1);
	}
	if (logf)
		fclose(logf);
	printf("touches %ld faults %ld minor %ld major %ld\n", count, faults, minor, major);
	return sink == 255 ? 0 : 0;
}
