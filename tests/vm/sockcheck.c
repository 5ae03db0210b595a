// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the socket test: a server (this process, the one the
 * module follows) reads COUNT messages of SIZE bytes that a client (a
 * forked child, not followed) sends over a socket of KIND, and before each
 * read asks the kernel how much is queued (ioctl FIONREAD).
 *
 * Usage: sockcheck tcp|tcp6|udp|unix|unix-dgram COUNT SIZE [FILE]
 *
 * The client sends without delay, but after every third message it
 * pauses 6 ms, so the server often reads before the next one arrives
 * (it waits); the server naps 4 ms before every fifth read, so data is
 * then queued (it is ready). Reads rotate through read(), recvfrom(),
 * recvmsg() and readv(). With FILE, every fourth round also preads 4 KiB
 * of FILE (socket and file reads in one process). TCP sockets have
 * TCP_NODELAY and messages under the loopback MSS: a message is one
 * segment.
 *
 * Prints: reads N queued N bytes N segs_in N, segs_in the TCP connection's
 * segments received by the server during the reads (TCP_INFO's
 * tcpi_segs_in difference; 0 for other kinds). With PC_LOG=FILE in the
 * environment, one line per read: "SYSCALL POS QUEUED RET T0 T1" (POS -1
 * for a socket, the offset for FILE; QUEUED the FIONREAD answer, or the
 * page's residency by mincore() for FILE; T0, T1 CLOCK_MONOTONIC ns
 * around the call), the layout of preadcheck's log.
 * With SC_MMSG=N in the environment, the server ends with N recvmmsg()
 * calls that find nothing (MSG_DONTWAIT): not flows, counted by the module.
 * Stops itself (SIGSTOP) once connected, before its first read, so that
 * the test can load the module with its pid.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void nap_us(long us)
{
	struct timespec t = { .tv_sec = 0, .tv_nsec = us * 1000 };

	nanosleep(&t, NULL);
}

static unsigned int segs_in(int fd, int tcp)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (!tcp)
		return 0;
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		die("TCP_INFO");
	return ti.tcpi_segs_in;
}

/* The client: COUNT messages of SIZE bytes, a pause after every third. */
static void client(int fd, const struct sockaddr *to, socklen_t tolen, long count, size_t size)
{
	char *buf = malloc(size);
	long i;

	if (!buf)
		die("malloc");
	for (i = 0; i < count; i++) {
		memset(buf, 'a' + i % 26, size);
		if (sendto(fd, buf, size, 0, to, tolen) != (ssize_t)size)
			die("send");
		if (i % 3 == 2)
			nap_us(6000);
	}
	/* Let the server read the last ones before the end of stream. */
	nap_us(200000);
	exit(0);
}

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";
	long count = argc > 2 ? atol(argv[2]) : 0, i, reads = 0, queued_n = 0;
	size_t size = argc > 3 ? (size_t)atol(argv[3]) : 0;
	const char *file = argc > 4 ? argv[4] : NULL;
	int tcp = !strncmp(kind, "tcp", 3), v6 = !strcmp(kind, "tcp6");
	int udp = !strcmp(kind, "udp"), stream = tcp || !strcmp(kind, "unix");
	long long bytes = 0, t0, t1;
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	unsigned int segs0, segs1;
	int srv = -1, conn, cl, ffd = -1, one = 1;
	char *buf, *page = NULL;
	FILE *log = NULL;
	pid_t child;

	if (argc < 4 || count <= 0 || !size || size > 60000 ||
	    (!tcp && !udp && strcmp(kind, "unix") && strcmp(kind, "unix-dgram"))) {
		fprintf(stderr, "usage: sockcheck tcp|tcp6|udp|unix|unix-dgram COUNT SIZE [FILE]\n");
		return 2;
	}
	if (getenv("PC_LOG")) {
		log = fopen(getenv("PC_LOG"), "w");
		if (!log)
			die("PC_LOG");
	}
	buf = malloc(size);
	if (!buf)
		die("malloc");
	if (file) {
		ffd = open(file, O_RDONLY);
		page = malloc(4096);
		if (ffd < 0 || !page)
			die(file);
	}
	memset(&ss, 0, sizeof(ss));
	if (tcp || udp) {
		if (v6) {
			struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

			a->sin6_family = AF_INET6;
			a->sin6_addr = in6addr_loopback;
		} else {
			struct sockaddr_in *a = (struct sockaddr_in *)&ss;

			a->sin_family = AF_INET;
			a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		}
		srv = socket(ss.ss_family, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
		if (srv < 0 || bind(srv, (struct sockaddr *)&ss, v6 ? sizeof(struct sockaddr_in6) :
				    sizeof(struct sockaddr_in)) ||
		    getsockname(srv, (struct sockaddr *)&ss, &sslen) || (tcp && listen(srv, 1)))
			die("server socket");
		cl = socket(ss.ss_family, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
		if (cl < 0)
			die("client socket");
		if (tcp && (setsockopt(cl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
			    connect(cl, (struct sockaddr *)&ss, sslen)))
			die("connect");
		conn = tcp ? accept(srv, NULL, NULL) : srv;
		if (conn < 0)
			die("accept");
	} else {
		int sv[2];

		if (socketpair(AF_UNIX, stream ? SOCK_STREAM : SOCK_DGRAM, 0, sv))
			die("socketpair");
		conn = sv[0];
		cl = sv[1];
	}
	/* Stopped before the client starts: the first reads find data queued. */
	raise(SIGSTOP);
	child = fork();
	if (child < 0)
		die("fork");
	if (!child) {
		close(conn);
		if (udp)
			client(cl, (struct sockaddr *)&ss, sslen, count, size);
		client(cl, NULL, 0, count, size);
	}
	close(cl);
	segs0 = segs_in(conn, tcp);
	for (i = 0; i < count; i++) {
		const char *name;
		int queued = 0;
		ssize_t ret;

		if (i % 5 == 4)
			nap_us(4000);
		if (ioctl(conn, FIONREAD, &queued))
			die("FIONREAD");
		t0 = now_ns();
		switch (i % 4) {
		case 0:
			name = "read";
			ret = read(conn, buf, size);
			break;
		case 1:
			name = "recvfrom";
			ret = recvfrom(conn, buf, size, 0, NULL, NULL);
			break;
		case 2: {
			struct iovec iov = { .iov_base = buf, .iov_len = size };
			struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

			name = "recvmsg";
			ret = recvmsg(conn, &msg, 0);
			break;
		}
		default: {
			struct iovec iov[2] = {
				{ .iov_base = buf, .iov_len = size / 2 },
				{ .iov_base = buf + size / 2, .iov_len = size - size / 2 },
			};

			name = "readv";
			ret = readv(conn, iov, 2);
		}
		}
		t1 = now_ns();
		if (ret < 0)
			die(name);
		reads++;
		queued_n += queued > 0;
		bytes += ret;
		if (log)
			fprintf(log, "%s -1 %d %zd %lld %lld\n", name, queued, ret, t0, t1);
		/* A stream read may take part of a message: read the rest. */
		if (stream && ret > 0 && (size_t)ret < size)
			count++;
		if (file && i % 4 == 3) {
			off_t off = (off_t)(i / 4) * 4096;
			unsigned char vec = 0;
			void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ffd, off);

			if (m == MAP_FAILED || mincore(m, 4096, &vec))
				die("mincore");
			munmap(m, 4096);
			t0 = now_ns();
			ret = pread(ffd, page, 4096, off);
			t1 = now_ns();
			if (ret < 0)
				die("pread");
			if (log)
				fprintf(log, "pread64 %lld %d %zd %lld %lld\n", (long long)off,
					vec & 1, ret, t0, t1);
		}
	}
	segs1 = segs_in(conn, tcp);
	for (i = 0; getenv("SC_MMSG") && i < atol(getenv("SC_MMSG")); i++) {
		struct iovec iov = { .iov_base = buf, .iov_len = size };
		struct mmsghdr mm = { .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1 } };

		recvmmsg(conn, &mm, 1, MSG_DONTWAIT, NULL);
	}
	waitpid(child, NULL, 0);
	printf("reads %ld queued %ld bytes %lld segs_in %u\n", reads, queued_n, bytes,
	       segs1 - segs0);
	if (log)
		fclose(log);
	return 0;
}
