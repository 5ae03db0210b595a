// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the cache-state test: before each 4 KiB pread of FILE,
 * ask mincore() whether the page is in the page cache, and count.
 *
 * Usage: preadcheck FILE COUNT rand|seq SEED [direct|errors|mixed|foreign=OTHER|swap=RECLAIM]
 * direct opens FILE with O_DIRECT (the buffer is page-aligned). mixed
 * cycles through the whole read family: read() and readv() after an
 * lseek() to the page, pread64(), preadv(), preadv2(). errors
 * makes reads that fail in the file system: every third read's buffer is
 * an unmapped page (-EFAULT), and the one after it is a preadv2() with
 * RWF_NOWAIT (-EAGAIN when its page is not cached). foreign=OTHER reads
 * into a private writable mapping of the file OTHER whose page was just
 * dropped from the page cache (MADV_DONTNEED, POSIX_FADV_DONTNEED), so
 * that the copy to the buffer faults and reads OTHER from the disk: I/O
 * during the read that is not FILE's. swap=RECLAIM reads into an
 * anonymous page that was just written and paged out to swap
 * (MADV_PAGEOUT, then its cgroup's memory.reclaim file RECLAIM until
 * mincore() says it has left the swap cache too), so that the copy to the
 * buffer swaps it in: swap I/O during the read.
 * Prints: reads N resident N nonresident N bytes N failed N swapped N,
 * where resident and nonresident count the reads that did not fail, and
 * swapped the reads whose buffer was out in swap when they started. With
 * PC_LOG=FILE in the environment, also one line per read into FILE:
 * "SYSCALL OFFSET RESIDENT RET T0 T1" (the syscall's name, the file
 * offset, 1 when mincore() said the page was cached, what it returned,
 * and CLOCK_MONOTONIC in ns just before and just after the call: the read
 * lies between them).
 * Stops itself (SIGSTOP) before the first read so that the test can load the
 * module with its pid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "checkutil.h"

static long long ns_of(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

/*
 * Write the anonymous page @dst (so that it has content to swap), page it
 * out, and reclaim its cgroup's memory until the page has left the swap
 * cache as well (MADV_PAGEOUT leaves it there while its write is in
 * flight, and after). Returns 1 when it is out, 0 when it stayed.
 */
static int swap_out(char *dst, const char *reclaim, long i)
{
	/*
	 * Anonymous memory only where the kernel can be told so (6.15's
	 * swappiness=max): else reclaim may take the read file's own pages,
	 * and its reads would no longer be all resident.
	 */
	static const char *ask = "256K swappiness=max";
	struct timespec ms = { 0, 1000000 };
	unsigned char vec;
	int try, fd, err;

	/* Never all zeros: 6.12 keeps a zero-filled page out of swap I/O. */
	memset(dst, (int)(i % 255) + 1, 4096);
	if (madvise(dst, 4096, MADV_PAGEOUT)) {
		perror("MADV_PAGEOUT");
		exit(1);
	}
	for (try = 0; try < 200; try++) {
		if (mincore(dst, 4096, &vec)) {
			perror("mincore");
			exit(1);
		}
		if (!(vec & 1))
			return 1;
		fd = open(reclaim, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(reclaim);
			exit(1);
		}
		err = write(fd, ask, strlen(ask)) < 0 ? errno : 0;
		close(fd);
		if (err == EINVAL && strcmp(ask, "256K")) {
			ask = "256K";	/* an older kernel: any memory */
			try--;
			continue;
		}
		/* -EAGAIN when less than asked could be reclaimed: no matter. */
		if (err && err != EAGAIN) {
			errno = err;
			perror(reclaim);
			exit(1);
		}
		nanosleep(&ms, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long count, pages, i, resident = 0, nonresident = 0, bytes = 0, failed = 0, swapped = 0;
	const char *reclaim = NULL;
	static char buf[4096] __attribute__((aligned(4096)));
	static const char * const names[] = { "read", "pread64", "readv", "preadv", "preadv2" };
	int fd, seq, direct, errors, mixed, ofd = -1;
	const char *log = getenv("PC_LOG");
	FILE *logf = NULL;
	char *unmapped, *dst = buf;
	unsigned char vec;
	void *map;

	direct = argc == 6 && !strcmp(argv[5], "direct");
	errors = argc == 6 && !strcmp(argv[5], "errors");
	mixed = argc == 6 && !strcmp(argv[5], "mixed");
	if (argc == 6 && !strncmp(argv[5], "foreign=", 8)) {
		ofd = open(argv[5] + 8, O_RDONLY);
		dst = ofd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE,
						  MAP_PRIVATE, ofd, 0);
		if (dst == MAP_FAILED) {
			perror(argv[5] + 8);
			return 1;
		}
	}
	if (argc == 6 && !strncmp(argv[5], "swap=", 5)) {
		reclaim = argv[5] + 5;
		dst = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (dst == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	}
	if (argc != 5 && !direct && !errors && !mixed && ofd < 0 && !reclaim) {
		fprintf(stderr,
			"usage: preadcheck FILE COUNT rand|seq SEED [direct|errors|mixed|foreign=OTHER|swap=RECLAIM]\n");
		return 2;
	}
	count = atol(argv[2]);
	seq = !strcmp(argv[3], "seq");
	srand(atoi(argv[4]));
	/* An address the kernel accepts as user memory that faults. */
	unmapped = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (unmapped == MAP_FAILED || munmap(unmapped, 4096)) {
		perror("mmap");
		return 1;
	}
	fd = open(argv[1], direct ? O_RDONLY | O_DIRECT : O_RDONLY);
	map = map_pages(fd, argv[1], &pages);
	if (log && !(logf = fopen(log, "w"))) {
		perror(log);
		return 1;
	}
	raise(SIGSTOP);
	for (i = 0; i < count; i++) {
		long page = seq ? i % pages : ((long)rand() * RAND_MAX + rand()) % pages;
		struct iovec iov = { buf, sizeof(buf) };
		struct timespec t0, t1;
		int call = 1;	/* pread64 */
		ssize_t r;

		if (mincore((char *)map + page * 4096, 4096, &vec)) {
			perror("mincore");
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (errors && i % 3 == 1) {
			r = pread(fd, unmapped, sizeof(buf), page * 4096);
		} else if (errors && i % 3 == 2) {
			call = 4;
			r = preadv2(fd, &iov, 1, page * 4096, RWF_NOWAIT);
		} else if (mixed) {
			call = i % 5;
			if ((call == 0 || call == 2) && lseek(fd, page * 4096, SEEK_SET) < 0) {
				perror("lseek");
				return 1;
			}
			if (call == 0)
				r = read(fd, buf, sizeof(buf));
			else if (call == 1)
				r = pread(fd, buf, sizeof(buf), page * 4096);
			else if (call == 2)
				r = readv(fd, &iov, 1);
			else if (call == 3)
				r = preadv(fd, &iov, 1, page * 4096);
			else
				r = preadv2(fd, &iov, 1, page * 4096, 0);
		} else {
			/*
			 * The whole file: its first page may be part of a
			 * larger folio (ext4 has large folios from 6.16), which
			 * dropping one page's range leaves in the cache.
			 */
			if (ofd >= 0 && (madvise(dst, 4096, MADV_DONTNEED) ||
					 posix_fadvise(ofd, 0, 0, POSIX_FADV_DONTNEED))) {
				perror("foreign");
				return 1;
			}
			if (reclaim)
				swapped += swap_out(dst, reclaim, i);
			r = pread(fd, dst, sizeof(buf), page * 4096);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (logf)
			fprintf(logf, "%s %ld %d %zd %lld %lld\n", names[call], page * 4096, vec & 1,
				r, ns_of(&t0), ns_of(&t1));
		if (r < 0 && errors) {
			failed++;
			continue;
		}
		if (r < 0) {
			perror("pread");
			return 1;
		}
		if (vec & 1)
			resident++;
		else
			nonresident++;
		bytes += r;
	}
	if (logf && fclose(logf)) {
		perror(log);
		return 1;
	}
	printf("reads %ld resident %ld nonresident %ld bytes %ld failed %ld swapped %ld\n", count,
	       resident, nonresident, bytes, failed, swapped);
	return 0;
}
