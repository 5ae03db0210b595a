// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the AIO test: 4 KiB reads of FILE through Linux AIO
 * (libaio's io_submit()), one at a time, each after mincore() said
 * whether its page is in the page cache, and what each completion event
 * (or io_submit() itself) returned.
 *
 * Usage: aiocheck FILE COUNT SEED [direct] [errors] [mixed]
 * direct opens FILE with O_DIRECT; errors makes every fourth read's
 * buffer an inaccessible page (-EFAULT in its event) and every fourth
 * other one a PREAD of FILE opened write-only (refused by io_submit():
 * -EBADF, no event); mixed alternates IOCB_CMD_PREAD and PREADV.
 * Prints: reads N resident N nonresident N bytes N failed N, where
 * resident and nonresident count the reads that did not fail. With
 * UC_LOG=FILE in the environment, also one line per read into FILE:
 * "OP OFFSET RESIDENT RES" (the opcode's name as the module's flows name
 * it, the file offset, 1 when mincore() said the page was cached, the
 * event's result or io_submit()'s error).
 * Stops itself (SIGSTOP) before the first read so that the test can load
 * the module with its pid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "checkutil.h"

/* One read: its result, from its event or from io_submit()'s refusal. */
static long aio_one(io_context_t ctx, struct iocb *cb, long i)
{
	struct iocb *cbs[1] = { cb };
	struct io_event ev;
	int ret;

	cb->data = (void *)i;
	ret = io_submit(ctx, 1, cbs);
	if (ret < 0)
		return ret;	/* refused: no event comes */
	if (ret != 1) {
		fprintf(stderr, "io_submit: %d\n", ret);
		exit(1);
	}
	ret = io_getevents(ctx, 1, 1, &ev, NULL);
	if (ret != 1 || ev.data != (void *)i) {
		fprintf(stderr, "io_getevents: %d (read %ld)\n", ret, i);
		exit(1);
	}
	return (long)ev.res;
}

int main(int argc, char **argv)
{
	static char buf[4096] __attribute__((aligned(4096)));
	static const char * const names[] = { "aio:PREAD", "aio:PREADV" };
	struct tally t = { 0 };
	long count, pages, i;
	int fd, wfd, direct, errors, mixed, ret;
	const char *log = getenv("UC_LOG");
	io_context_t ctx = 0;
	FILE *logf = NULL;
	unsigned char vec;
	char *unmapped;
	void *map;

	if (argc < 4) {
		fprintf(stderr, "usage: aiocheck FILE COUNT SEED [direct] [errors] [mixed]\n");
		return 2;
	}
	direct = has(argc, argv, "direct");
	errors = has(argc, argv, "errors");
	mixed = has(argc, argv, "mixed");
	count = atol(argv[2]);
	srand(atoi(argv[3]));
	/* An address the kernel accepts as user memory that faults. */
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (unmapped == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	fd = open(argv[1], direct ? O_RDONLY | O_DIRECT : O_RDONLY);
	map = map_pages(fd, argv[1], &pages);
	wfd = open(argv[1], O_WRONLY);
	if (wfd < 0) {
		perror(argv[1]);
		return 1;
	}
	ret = io_setup(4, &ctx);
	if (ret < 0) {
		fprintf(stderr, "io_setup: %s\n", strerror(-ret));
		return 1;
	}
	if (log && !(logf = fopen(log, "w"))) {
		perror(log);
		return 1;
	}
	raise(SIGSTOP);
	for (i = 0; i < count; i++) {
		long page = ((long)rand() * RAND_MAX + rand()) % pages, res;
		int efault = errors && i % 4 == 1, refused = errors && i % 4 == 3;
		/* A refused PREADV's size is in its iovecs, never read. */
		int op = mixed && !refused ? i % 2 : 0, rfd = refused ? wfd : fd;
		struct iovec iov = { efault ? unmapped : buf, sizeof(buf) };
		struct iocb cb;

		if (mincore((char *)map + page * 4096, 4096, &vec)) {
			perror("mincore");
			return 1;
		}
		if (op == 0)
			io_prep_pread(&cb, rfd, iov.iov_base, sizeof(buf), page * 4096);
		else
			io_prep_preadv(&cb, rfd, &iov, 1, page * 4096);
		res = aio_one(ctx, &cb, i);
		tally_read(&t, res, vec & 1);
		if (logf)
			fprintf(logf, "%s %ld %d %ld\n", names[op], page * 4096, vec & 1, res);
	}
	if (logf)
		fclose(logf);
	io_destroy(ctx);
	tally_print(count, &t);
	return 0;
}
