// SPDX-License-Identifier: GPL-2.0
/*
 * The soak test's consumer of the module's binary stream: reads
 * stream/raw until SIGTERM (or the end of the stream) and counts the read
 * records per file, so that a test can hold the reads of its own file
 * against the application's count of them, apart from the reads the
 * application makes of other files, pipes and timers (fio's helper thread
 * reads a timerfd and a pipe several times a second, so those grow with
 * its run time).
 *
 * Signals are taken only while it waits in ppoll(), so a SIGTERM cannot
 * fall between its check of the flag and a read() that would then block
 * for good; once told to stop it reads on without blocking until the
 * stream is empty, so every record the module counted as delivered
 * (staged for this reader) is parsed.
 *
 * Usage: streamtally RAW [TGID]
 * Prints when it ends: "records N lost N untallied N foreign N", then per
 * file "fs_major:fs_minor ino count", the most read first. untallied
 * counts the records of files past the table's size (none in the soak),
 * foreign the records of a process other than TGID (when given).
 * Exits 1 on a record it cannot parse (a size that is too small or runs
 * past what read() returned, or a stream version it does not know).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../include/uapi/iolayers.h"

#define NR_FILES 4096	/* a power of two */

struct tally {
	uint32_t major, minor;
	uint64_t ino, count;
	int used;
};

static struct tally files[NR_FILES];
static uint64_t records, lost, untallied, foreign;
static long tgid = -1;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* A read of process @pid (one record, full or brief) of the file @ino on @major:@minor. */
static void count_read(int pid, uint64_t ino, unsigned int major, unsigned int minor)
{
	uint64_t h = (ino ^ ((uint64_t)major << 40) ^ ((uint64_t)minor << 20)) *
		     0x9e3779b97f4a7c15ull;
	unsigned int i, n;

	records++;
	if (tgid >= 0 && pid != tgid)
		foreign++;
	for (n = 0, i = h >> 52; n < NR_FILES; n++, i = (i + 1) & (NR_FILES - 1)) {
		struct tally *t = &files[i];

		if (!t->used) {
			t->used = 1;
			t->major = major;
			t->minor = minor;
			t->ino = ino;
		}
		if (t->major == major && t->minor == minor && t->ino == ino) {
			t->count++;
			return;
		}
	}
	untallied++;
}

/* Parse @len bytes of whole records; -1 on one that cannot be. */
static int parse(const unsigned char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		struct iolayers_rec_hdr h;

		if (len - off < sizeof(h))
			return -1;
		memcpy(&h, buf + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			return -1;
		if (h.type == IOLAYERS_REC_START) {
			struct iolayers_rec_start s = { 0 };

			memcpy(&s, buf + off, h.size < sizeof(s) ? h.size : sizeof(s));
			/* Its CPU is no CPU's: 0, not what the buffer held before. */
			if (s.version != IOLAYERS_STREAM_VERSION || s.hdr.cpu != 0)
				return -1;
		} else if (h.type == IOLAYERS_REC_READ) {
			struct iolayers_rec_read r = { 0 };

			if (h.size < offsetof(struct iolayers_rec_read, fs_minor) + sizeof(r.fs_minor))
				return -1;
			memcpy(&r, buf + off, h.size < sizeof(r) ? h.size : sizeof(r));
			count_read(r.tgid, r.ino, r.fs_major, r.fs_minor);
		} else if (h.type == IOLAYERS_REC_BRIEF) {
			struct iolayers_rec_brief r;

			if (h.size < sizeof(r))
				return -1;
			memcpy(&r, buf + off, sizeof(r));
			count_read(r.tgid, r.ino, r.fs_major, r.fs_minor);
		} else if (h.type == IOLAYERS_REC_LOST) {
			struct iolayers_rec_lost l = { 0 };

			memcpy(&l, buf + off, h.size < sizeof(l) ? h.size : sizeof(l));
			lost += l.count;
		}
		off += h.size;
	}
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->used != y->used)
		return y->used - x->used;
	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 20];
	struct sigaction sa;
	sigset_t block, waiting;
	unsigned int i;
	ssize_t n;
	int fd, rc = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: streamtally RAW [TGID]\n");
		return 2;
	}
	if (argc == 3)
		tgid = strtol(argv[2], NULL, 10);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &waiting);
	sigdelset(&waiting, SIGTERM);
	sigdelset(&waiting, SIGINT);
	fd = open(argv[1], O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EAGAIN) {
			if (stop)
				break;	/* told to stop, and nothing is left */
			if (ppoll(&p, 1, NULL, &waiting) < 0 && errno != EINTR) {
				perror("ppoll");
				rc = 2;
				break;
			}
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("read");
			rc = 2;
			break;
		}
		if (n == 0)
			break;
		if (parse(buf, n) < 0) {
			fprintf(stderr, "streamtally: a record it cannot parse\n");
			rc = 1;
			break;
		}
	}
	qsort(files, NR_FILES, sizeof(files[0]), by_count);
	printf("records %llu lost %llu untallied %llu foreign %llu\n",
	       (unsigned long long)records, (unsigned long long)lost,
	       (unsigned long long)untallied, (unsigned long long)foreign);
	for (i = 0; i < NR_FILES && files[i].used; i++)
		printf("%u:%u %llu %llu\n", files[i].major, files[i].minor,
		       (unsigned long long)files[i].ino, (unsigned long long)files[i].count);
	return rc;
}
