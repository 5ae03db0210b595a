/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the VM tests' ground-truth programs share (uringcheck, aiocheck,
 * mmapcheck, preadcheck): their options, and their file mapped for
 * mincore().
 */
#ifndef IOLAYERS_CHECKUTIL_H
#define IOLAYERS_CHECKUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* Is @word among the options after FILE COUNT SEED? */
static inline int has(int argc, char **argv, const char *word)
{
	int i;

	for (i = 4; i < argc; i++)
		if (!strcmp(argv[i], word))
			return 1;
	return 0;
}

/*
 * @path, open as @fd, mapped shared and read-only (for mincore()), its
 * size in 4 KiB pages in @pages; the program ends on a failure.
 */
static inline char *map_pages(int fd, const char *path, long *pages)
{
	struct stat st;
	char *map;

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		exit(1);
	}
	*pages = st.st_size / 4096;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED || *pages == 0) {
		perror("mmap");
		exit(1);
	}
	return map;
}

/* What the request programs count of their reads (uringcheck, aiocheck). */
struct tally {
	long resident, nonresident, bytes, failed;
};

/* A read that returned @res, its page cached before (mincore()) or not. */
static inline void tally_read(struct tally *t, long res, int resident)
{
	if (res < 0) {
		t->failed++;
		return;
	}
	t->bytes += res;
	if (resident)
		t->resident++;
	else
		t->nonresident++;
}

/* The summary line the tests read. */
static inline void tally_print(long count, const struct tally *t)
{
	printf("reads %ld resident %ld nonresident %ld bytes %ld failed %ld\n", count,
	       t->resident, t->nonresident, t->bytes, t->failed);
}

#endif /* IOLAYERS_CHECKUTIL_H */
