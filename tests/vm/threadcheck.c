// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the filter and merge tests: threads and processes that
 * read a known number of times in the ways that used to leak task entries
 * or lose a followed process, or that make the I/O scheduler merge. Linked statically, so that an exec runs no
 * dynamic loader and every read() it makes is one of the counted ones.
 * Every mode stops itself (SIGSTOP) before its first counted read, so that
 * the test can load the module or change a filter first.
 *
 * Usage:
 *   threadcheck execs N FILE      N times: a thread that is not the leader
 *                                 reads once and execs this program again
 *   threadcheck threads N FILE    N threads each read once, then all wait
 *                                 (until killed); prints "threads N ready"
 *   threadcheck reads N FILE      the main thread reads N times
 *   threadcheck leader-exit N FILE
 *                                 forks a child whose leader exits
 *                                 (pthread_exit) while its other thread
 *                                 goes on and reads N times
 *   threadcheck zombie 0 FILE     forks a child that exits at once, never
 *                                 reaped; prints "zombie PID", then waits
 *   threadcheck merge N FILE      4 threads read FILE with O_DIRECT, N
 *                                 stripes of 4 blocks of 4 KiB, each
 *                                 stripe's blocks at once (a barrier), so
 *                                 that neighbours wait side by side in
 *                                 the I/O scheduler (the merge test)
 * Prints "MODE reads N" with the reads made (not "threads", "zombie").
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *path;
static long count;
static atomic_long done;

static void read_once(int fd)
{
	char buf[4096];

	if (pread(fd, buf, sizeof(buf), 0) < 0) {
		perror("pread");
		exit(1);
	}
	atomic_fetch_add(&done, 1);
}

static int open_file(void)
{
	/* Close-on-exec: each of the execs' images opens it again. */
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

/* execs: one read by a thread that is not the leader, then its exec. */
static void *exec_thread(void *arg)
{
	char next[32];
	char *argv[] = { "threadcheck", "execs", next, (char *)path, "again", NULL };

	read_once(*(int *)arg);
	snprintf(next, sizeof(next), "%ld", count - 1);
	execv("/proc/self/exe", argv);
	perror("execv");
	exit(1);
}

static int mode_execs(int again)
{
	pthread_t t;
	int fd;

	if (!count) {
		printf("execs done\n");
		return 0;
	}
	fd = open_file();
	if (!again)
		raise(SIGSTOP);
	if (pthread_create(&t, NULL, exec_thread, &fd))
		return 1;
	for (;;)
		pause();	/* ended by the thread's exec */
}

static void *wait_thread(void *arg)
{
	read_once(*(int *)arg);
	for (;;)
		pause();
	return NULL;
}

static int mode_threads(void)
{
	pthread_attr_t attr;
	pthread_t t;
	long i;
	int fd = open_file();

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	raise(SIGSTOP);
	for (i = 0; i < count; i++)
		if (pthread_create(&t, &attr, wait_thread, &fd)) {
			perror("pthread_create");
			return 1;
		}
	while (atomic_load(&done) < count)
		usleep(10000);
	printf("threads %ld ready\n", count);
	fflush(stdout);
	for (;;)
		pause();
}

static int mode_reads(void)
{
	int fd = open_file();
	long i;

	raise(SIGSTOP);
	for (i = 0; i < count; i++)
		read_once(fd);
	printf("reads reads %ld\n", atomic_load(&done));
	return 0;
}

/* leader-exit: the child's second thread reads after its leader is gone. */
static void *survivor_thread(void *arg)
{
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	long i;

	nanosleep(&ts, NULL);
	for (i = 0; i < count; i++)
		read_once(*(int *)arg);
	exit(atomic_load(&done) == count ? 0 : 1);
}

static int mode_leader_exit(void)
{
	static int fd;
	pthread_t t;
	int status;
	pid_t child;

	fd = open_file();
	raise(SIGSTOP);
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		if (pthread_create(&t, NULL, survivor_thread, &fd))
			_exit(1);
		pthread_exit(NULL);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	printf("leader-exit reads %ld\n", count);
	return 0;
}

static int mode_zombie(void)
{
	pid_t child = fork();

	if (child < 0)
		return 1;
	if (!child)
		_exit(0);
	printf("zombie %d\n", (int)child);
	for (;;)
		pause();
}

/* merge: thread i reads block i of every stripe, all four at once. */
#define MERGE_THREADS 4
static pthread_barrier_t merge_barrier;
static int merge_fd;

static void *merge_thread(void *arg)
{
	long i = (long)arg, s;
	void *buf;

	if (posix_memalign(&buf, 4096, 4096))
		exit(1);
	for (s = 0; s < count; s++) {
		pthread_barrier_wait(&merge_barrier);
		if (pread(merge_fd, buf, 4096, (s * MERGE_THREADS + i) * 4096) != 4096) {
			perror("pread");
			exit(1);
		}
		atomic_fetch_add(&done, 1);
	}
	return NULL;
}

static int mode_merge(void)
{
	pthread_t t[MERGE_THREADS];
	long i;

	merge_fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (merge_fd < 0) {
		perror(path);
		return 1;
	}
	if (pthread_barrier_init(&merge_barrier, NULL, MERGE_THREADS))
		return 1;
	raise(SIGSTOP);
	for (i = 0; i < MERGE_THREADS; i++)
		if (pthread_create(&t[i], NULL, merge_thread, (void *)i))
			return 1;
	for (i = 0; i < MERGE_THREADS; i++)
		pthread_join(t[i], NULL);
	printf("merge reads %ld\n", atomic_load(&done));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr,
			"usage: threadcheck execs|threads|reads|leader-exit|zombie|merge N FILE\n");
		return 2;
	}
	count = atol(argv[2]);
	path = argv[3];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "execs"))
		return mode_execs(argc > 4);
	if (!strcmp(argv[1], "threads"))
		return mode_threads();
	if (!strcmp(argv[1], "reads"))
		return mode_reads();
	if (!strcmp(argv[1], "leader-exit"))
		return mode_leader_exit();
	if (!strcmp(argv[1], "zombie"))
		return mode_zombie();
	if (!strcmp(argv[1], "merge"))
		return mode_merge();
	fprintf(stderr, "threadcheck: unknown mode %s\n", argv[1]);
	return 2;
}
