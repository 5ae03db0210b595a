// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the io_uring test: 4 KiB reads of FILE through an
 * io_uring (liburing), one at a time, each after mincore() said whether
 * its page is in the page cache, and what each CQE returned.
 *
 * Usage: uringcheck FILE COUNT SEED [direct] [async] [sqpoll] [errors] [mixed]
 * direct opens FILE with O_DIRECT; async sets IOSQE_ASYNC on every
 * request (issued by an io-wq worker, never inline); sqpoll makes the
 * ring with an SQPOLL thread; errors makes every fourth read's buffer an
 * inaccessible page (-EFAULT); mixed cycles through IORING_OP_READ, READV,
 * READ_FIXED (a registered buffer) and, where the kernel has it (6.15 on),
 * READV_FIXED (an iovec in the registered buffer). overflow makes COUNT
 * reads instead in two batches of COUNT / 2 on a ring whose CQ holds
 * COUNT / 2 (the second batch's CQEs overflow it; the kernel keeps them,
 * IORING_FEAT_NODROP), reaps them all, then submits COUNT / 2 NOPs that
 * post no CQE (IOSQE_CQE_SKIP_SUCCESS), which take the freed requests
 * again: requests at the reads' addresses that the module does not
 * follow. recv makes COUNT IORING_OP_RECV requests of 64 bytes each from
 * a Unix socket pair (written beforehand) and COUNT reads of FILE (to be
 * cached) that post no CQE on success (IOSQE_CQE_SKIP_SUCCESS): reads
 * the module counts and does not follow; prints "recvs N skipped N".
 * Prints: reads N resident N nonresident N bytes N failed N, where
 * resident and nonresident count the reads that did not fail. With
 * UC_LOG=FILE in the environment, also one line per read into FILE:
 * "OP OFFSET RESIDENT RES" (the opcode's name as the module's flows name
 * it, the file offset, 1 when mincore() said the page was cached, the
 * CQE's result).
 * Stops itself (SIGSTOP) before the first read so that the test can load
 * the module with its pid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "checkutil.h"

#define UC_OP_READV_FIXED 60

/* overflow: see above. Logs each CQE as the other modes do, RESIDENT -1. */
static int overflow_reads(struct io_uring *ring, int fd, long pages, long count, FILE *logf)
{
	static char bufs[64][4096] __attribute__((aligned(4096)));
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct tally t = { 0 };
	long i, b, half = count / 2;
	int ret;

	for (b = 0; b < 2; b++) {
		for (i = b * half; i < (b + 1) * half; i++) {
			long page = ((long)rand() * RAND_MAX + rand()) % pages;

			sqe = io_uring_get_sqe(ring);
			if (!sqe) {
				fprintf(stderr, "overflow: no SQE\n");
				return 1;
			}
			io_uring_prep_read(sqe, fd, bufs[i], 4096, page * 4096);
			sqe->user_data = page * 4096;
		}
		ret = io_uring_submit(ring);
		if (ret != half) {
			fprintf(stderr, "overflow: submitted %d of %ld\n", ret, half);
			return 1;
		}
	}
	for (i = 0; i < count; i++) {
		ret = io_uring_wait_cqe(ring, &cqe);
		if (ret < 0) {
			fprintf(stderr, "overflow: io_uring_wait_cqe: %s\n", strerror(-ret));
			return 1;
		}
		tally_read(&t, cqe->res, 0);
		if (logf)
			fprintf(logf, "io_uring:READ %llu -1 %d\n",
				(unsigned long long)cqe->user_data, cqe->res);
		io_uring_cqe_seen(ring, cqe);
	}
	for (i = 0; i < half; i++) {
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_nop(sqe);
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	}
	ret = io_uring_submit(ring);
	if (ret != half) {
		fprintf(stderr, "overflow: NOPs submitted %d of %ld\n", ret, half);
		return 1;
	}
	if (logf)
		fclose(logf);
	io_uring_queue_exit(ring);
	tally_print(count, &t);
	return 0;
}

/* One request of @ring, its CQE expected (@cqe) or none. */
static int one_request(struct io_uring *ring, int cqe_expected, int want)
{
	struct io_uring_cqe *cqe;
	int ret = io_uring_submit(ring);

	if (ret != 1) {
		fprintf(stderr, "recv: submitted %d\n", ret);
		return 1;
	}
	if (!cqe_expected)
		return 0;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret < 0 || cqe->res != want) {
		fprintf(stderr, "recv: CQE %d, res %d\n", ret, ret < 0 ? 0 : cqe->res);
		return 1;
	}
	io_uring_cqe_seen(ring, cqe);
	return 0;
}

/* recv: see above. */
static int recv_reads(struct io_uring *ring, int fd, long count)
{
	static char buf[64];
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int sv[2];
	long i;

	if (count > 1000 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("socketpair");
		return 1;
	}
	for (i = 0; i < count; i++)
		if (write(sv[1], buf, sizeof(buf)) != sizeof(buf)) {
			perror("write");
			return 1;
		}
	for (i = 0; i < count; i++) {
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_recv(sqe, sv[0], buf, sizeof(buf), MSG_WAITALL);
		if (one_request(ring, 1, sizeof(buf)))
			return 1;
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_read(sqe, fd, buf, sizeof(buf), i * 4096);
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
		if (one_request(ring, 0, 0))
			return 1;
	}
	/*
	 * A NOP's CQE, and none before it: the reads (cached: done as they
	 * were submitted) did not fail. (IOSQE_IO_DRAIN would say so of
	 * every one, but a ring that used IOSQE_CQE_SKIP_SUCCESS refuses it.)
	 */
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_nop(sqe);
	if (one_request(ring, 1, 0) || io_uring_peek_cqe(ring, &cqe) != -EAGAIN) {
		fprintf(stderr, "recv: a CQE left (a read failed)\n");
		return 1;
	}
	io_uring_queue_exit(ring);
	printf("recvs %ld skipped %ld\n", count, count);
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[4096] __attribute__((aligned(4096)));
	static const char * const names[] = { "io_uring:READ", "io_uring:READV",
					      "io_uring:READ_FIXED", "io_uring:READV_FIXED" };
	struct tally t = { 0 };
	long count, pages, i;
	int fd, direct, async, sqpoll, errors, mixed, overflow, recv, ret, nops = 3;
	struct io_uring_probe *probe;
	struct iovec iov = { buf, sizeof(buf) };
	const char *log = getenv("UC_LOG");
	struct io_uring_params p = { 0 };
	struct io_uring ring;
	FILE *logf = NULL;
	unsigned char vec;
	char *unmapped;
	void *map;

	if (argc < 4) {
		fprintf(stderr,
			"usage: uringcheck FILE COUNT SEED [direct] [async] [sqpoll] [errors] [mixed] [overflow] [recv]\n");
		return 2;
	}
	direct = has(argc, argv, "direct");
	async = has(argc, argv, "async");
	sqpoll = has(argc, argv, "sqpoll");
	errors = has(argc, argv, "errors");
	mixed = has(argc, argv, "mixed");
	overflow = has(argc, argv, "overflow");
	recv = has(argc, argv, "recv");
	count = atol(argv[2]);
	srand(atoi(argv[3]));
	/*
	 * An address the kernel accepts as user memory that faults: a page
	 * kept inaccessible (an unmapped one would be taken by the ring's
	 * own mappings below).
	 */
	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (unmapped == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	fd = open(argv[1], direct ? O_RDONLY | O_DIRECT : O_RDONLY);
	map = map_pages(fd, argv[1], &pages);
	if (sqpoll) {
		p.flags = IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 1000;
	}
	if (overflow) {
		if (count < 2 || count > 64 || count % 2) {
			fprintf(stderr, "overflow: COUNT is even, 2 to 64\n");
			return 2;
		}
		p.flags |= IORING_SETUP_CQSIZE;
		p.cq_entries = count / 2;
	}
	ret = io_uring_queue_init_params(overflow ? count / 2 : 4, &ring, &p);
	if (ret < 0) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret < 0) {
		fprintf(stderr, "io_uring_register_buffers: %s\n", strerror(-ret));
		return 1;
	}
	/* IORING_OP_READV_FIXED: a number of the uapi, newer than liburing 2.3. */
	probe = io_uring_get_probe_ring(&ring);
	if (probe && io_uring_opcode_supported(probe, UC_OP_READV_FIXED))
		nops = 4;
	free(probe);
	if (mixed)
		fprintf(stderr, "uringcheck: %d opcodes\n", nops);
	if (log && !(logf = fopen(log, "w"))) {
		perror(log);
		return 1;
	}
	raise(SIGSTOP);
	if (overflow)
		return overflow_reads(&ring, fd, pages, count, logf);
	if (recv)
		return recv_reads(&ring, fd, count);
	for (i = 0; i < count; i++) {
		long page = ((long)rand() * RAND_MAX + rand()) % pages;
		int op = mixed ? i % nops : 0, bad = errors && i % 4 == 1;
		struct iovec biov = { bad ? unmapped : buf, sizeof(buf) };
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;
		int res;

		if (!sqe || mincore((char *)map + page * 4096, 4096, &vec)) {
			perror("mincore");
			return 1;
		}
		if (bad && op >= 2)
			op = 0;	/* a registered buffer is always mapped */
		if (op == 0)
			io_uring_prep_read(sqe, fd, biov.iov_base, sizeof(buf), page * 4096);
		else if (op == 1)
			io_uring_prep_readv(sqe, fd, &biov, 1, page * 4096);
		else if (op == 2)
			io_uring_prep_read_fixed(sqe, fd, buf, sizeof(buf), page * 4096, 0);
		else	/* READV_FIXED: an iovec of the registered buffer 0 */
			io_uring_prep_rw(UC_OP_READV_FIXED, sqe, fd, &iov, 1, page * 4096);
		if (async)
			sqe->flags |= IOSQE_ASYNC;
		sqe->user_data = i;
		ret = io_uring_submit_and_wait(&ring, 1);
		if (ret < 0) {
			fprintf(stderr, "io_uring_submit_and_wait: %s\n", strerror(-ret));
			return 1;
		}
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret < 0 || cqe->user_data != (__u64)i) {
			fprintf(stderr, "io_uring_wait_cqe: %s (read %ld, CQE %llu res %d)\n",
				ret < 0 ? strerror(-ret) : "wrong CQE", i,
				ret < 0 ? 0ULL : (unsigned long long)cqe->user_data, ret < 0 ? 0 : cqe->res);
			return 1;
		}
		res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		tally_read(&t, res, vec & 1);
		if (logf)
			fprintf(logf, "%s %ld %d %d\n", names[op], page * 4096, vec & 1, res);
	}
	if (logf)
		fclose(logf);
	io_uring_queue_exit(&ring);
	tally_print(count, &t);
	return 0;
}
