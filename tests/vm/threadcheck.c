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
 *   threadcheck pause N FILE      reads N times, stops itself again,
 *                                 then reads N times more
 *   threadcheck leader-exit N FILE
 *                                 forks a child whose leader exits
 *                                 (pthread_exit) while its other thread
 *                                 goes on and reads N times
 *   threadcheck zombie 0 FILE     forks a child that exits at once, never
 *                                 reaped; prints "zombie PID", then waits
 *   threadcheck gap N FILE        O_DIRECT, N stripes, in this order,
 *                                 each read started once the one before
 *                                 it waits for its I/O: three reads far
 *                                 apart (on a disk that takes two at a
 *                                 time they fill it and the third waits
 *                                 outside the I/O scheduler, where the
 *                                 next requests then stay), blocks 0
 *                                 and 2, then block 1, whose bio fills the gap
 *                                 between the two waiting requests (a bio
 *                                 merge after which the scheduler merges
 *                                 the requests: block_rq_merge); N <= 85
 *   threadcheck descend N FILE    the same with blocks 1 then 0: the
 *                                 second bio front-merges
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
#include <semaphore.h>
#include <sys/syscall.h>
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

/*
 * pause: N reads, a stop (the test moves it to another cgroup), N more.
 * Prints "pause reads 2N" once the second half is done.
 */
static int mode_pause(void)
{
	int fd = open_file();
	long i;

	raise(SIGSTOP);
	for (i = 0; i < count; i++)
		read_once(fd);
	raise(SIGSTOP);
	for (i = 0; i < count; i++)
		read_once(fd);
	printf("pause reads %ld\n", atomic_load(&done));
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

/*
 * gap, descend: one thread per slot of a stripe, started in slot order by
 * the main thread, each once the one before it sleeps uninterruptibly in
 * its read (its bio queued: an O_DIRECT read waits for its request in D
 * state) or is done. Slots 0 to 2 read blocks two apart from block 4N on;
 * the others read blocks of the stripe's 4 below block 4N.
 */
#define ORDER_FAR 3
#define ORDER_SLOTS_MAX 6
static const long *order_blocks;
static pthread_barrier_t order_barrier;
static sem_t order_go[ORDER_SLOTS_MAX];
static atomic_int order_state[ORDER_SLOTS_MAX];	/* 1 reading, 2 done */
static pid_t order_tid[ORDER_SLOTS_MAX];
static int order_fd;

static void *order_thread(void *arg)
{
	long k = (long)arg, s, far = count * 4, block;
	void *buf;

	order_tid[k] = (pid_t)syscall(SYS_gettid);
	if (posix_memalign(&buf, 4096, 4096))
		exit(1);
	memset(buf, 0, 4096);
	pthread_barrier_wait(&order_barrier);
	for (s = 0; s < count; s++) {
		while (sem_wait(&order_go[k]))
			;
		block = k < ORDER_FAR ? far + s * 8 + k * 2 : s * 4 + order_blocks[k];
		atomic_store(&order_state[k], 1);
		if (pread(order_fd, buf, 4096, block * 4096) != 4096) {
			perror("pread");
			exit(1);
		}
		atomic_fetch_add(&done, 1);
		atomic_store(&order_state[k], 2);
		pthread_barrier_wait(&order_barrier);
	}
	return NULL;
}

/* Has thread @k gone to sleep in its read (state D), or finished it? */
static int order_waiting(int k)
{
	char path[64], stat[512], *p;
	int fd, n;

	if (atomic_load(&order_state[k]) == 2)
		return 1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)order_tid[k]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	stat[n] = 0;
	p = strrchr(stat, ')');
	return atomic_load(&order_state[k]) == 1 && p && p[1] == ' ' && p[2] == 'D';
}

static int mode_ordered(const long *blocks, int slots)
{
	pthread_t t[ORDER_SLOTS_MAX];
	long k, s;

	order_blocks = blocks;
	order_fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (order_fd < 0) {
		perror(path);
		return 1;
	}
	if (pthread_barrier_init(&order_barrier, NULL, slots + 1))
		return 1;
	for (k = 0; k < slots; k++)
		if (sem_init(&order_go[k], 0, 0) ||
		    pthread_create(&t[k], NULL, order_thread, (void *)k))
			return 1;
	pthread_barrier_wait(&order_barrier);
	raise(SIGSTOP);
	for (s = 0; s < count; s++) {
		for (k = 0; k < slots; k++) {
			atomic_store(&order_state[k], 0);
			sem_post(&order_go[k]);
			while (!order_waiting(k))
				usleep(50);
		}
		pthread_barrier_wait(&order_barrier);
	}
	for (k = 0; k < slots; k++)
		pthread_join(t[k], NULL);
	printf("%s reads %ld\n", slots == 6 ? "gap" : "descend", atomic_load(&done));
	return 0;
}

int main(int argc, char **argv)
{
	/* The stripe's blocks by slot (the first ORDER_FAR: the far reads). */
	static const long gap[] = { 0, 0, 0, 0, 2, 1 }, descend[] = { 0, 0, 0, 1, 0 };

	if (argc < 4) {
		fprintf(stderr,
			"usage: threadcheck execs|threads|reads|pause|leader-exit|zombie|gap|descend N FILE\n");
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
	if (!strcmp(argv[1], "pause"))
		return mode_pause();
	if (!strcmp(argv[1], "leader-exit"))
		return mode_leader_exit();
	if (!strcmp(argv[1], "zombie"))
		return mode_zombie();
	if (!strcmp(argv[1], "gap"))
		return mode_ordered(gap, 6);
	if (!strcmp(argv[1], "descend"))
		return mode_ordered(descend, 5);
	fprintf(stderr, "threadcheck: unknown mode %s\n", argv[1]);
	return 2;
}
