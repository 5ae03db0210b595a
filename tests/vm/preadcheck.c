// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the cache-state test: before each 4 KiB pread of FILE,
 * ask mincore() whether the page is in the page cache, and count.
 *
 * Usage: preadcheck FILE COUNT rand|seq SEED [direct]
 * direct opens FILE with O_DIRECT (the buffer is page-aligned).
 * Prints: reads N resident N nonresident N bytes N
 * Stops itself (SIGSTOP) before the first read so that the test can load the
 * module with its pid.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long count, pages, i, resident = 0, nonresident = 0, bytes = 0;
	unsigned char vec;
	static char buf[4096] __attribute__((aligned(4096)));
	struct stat st;
	void *map;
	int fd, seq;

	if (argc != 5 && !(argc == 6 && !strcmp(argv[5], "direct"))) {
		fprintf(stderr, "usage: preadcheck FILE COUNT rand|seq SEED [direct]\n");
		return 2;
	}
	count = atol(argv[2]);
	seq = !strcmp(argv[3], "seq");
	srand(atoi(argv[4]));
	fd = open(argv[1], argc == 6 ? O_RDONLY | O_DIRECT : O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	pages = st.st_size / 4096;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || pages == 0) {
		perror("mmap");
		return 1;
	}
	raise(SIGSTOP);
	for (i = 0; i < count; i++) {
		long page = seq ? i % pages : ((long)rand() * RAND_MAX + rand()) % pages;
		ssize_t r;

		if (mincore((char *)map + page * 4096, 4096, &vec)) {
			perror("mincore");
			return 1;
		}
		if (vec & 1)
			resident++;
		else
			nonresident++;
		r = pread(fd, buf, sizeof(buf), page * 4096);
		if (r < 0) {
			perror("pread");
			return 1;
		}
		bytes += r;
	}
	printf("reads %ld resident %ld nonresident %ld bytes %ld\n", count, resident,
	       nonresident, bytes);
	return 0;
}
