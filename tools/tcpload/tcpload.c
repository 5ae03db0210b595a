// SPDX-License-Identifier: GPL-2.0
/*
 * tcpload: make bench's loopback TCP workload, request and response. A
 * server (this process, the one the tracer follows) reads with recv() what
 * a client (a forked child, not followed) sends over a loopback TCP
 * connection: COUNT requests of SIZE bytes, each answered with one byte
 * before the client sends the next, then the client closes. The server
 * asks for the rest of the request in each call, so a request may take
 * more than one; every call is counted. Lock-step, so that the same work
 * repeats on every request: sent as a stream, the data met the reader in
 * batches that varied from run to run by more than a tracer adds (one
 * vCPU, counting instructions: 1 to 2 % between runs).
 *
 * Usage: tcpload COUNT SIZE [4|6]
 *
 * Stops itself (SIGSTOP) once connected and before its first read, so that
 * the tracer can attach to its pid; the client starts sending when the
 * server continues (it waits for one byte from the server first).
 *
 * Prints one JSON object: {"reads": calls that returned data, "calls": every
 * recv() including the one that saw EOF, "bytes": bytes read, "seconds":
 * from the first read to EOF (CLOCK_MONOTONIC)}.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* A listening loopback socket of family @af on a free port; its address. */
static int listen_loopback(int af, struct sockaddr_storage *ss, socklen_t *len)
{
	int fd = socket(af, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	memset(ss, 0, sizeof(*ss));
	if (af == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		*len = sizeof(*a);
	}
	if (bind(fd, (struct sockaddr *)ss, *len) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)ss, len))
		die("bind/listen");
	return fd;
}

static void client(int af, const struct sockaddr_storage *ss, socklen_t len, long count,
		   size_t size)
{
	int fd = socket(af, SOCK_STREAM, 0), one = 1;
	char *buf = calloc(1, size), go;
	long i;

	if (fd < 0 || !buf)
		die("client socket");
	if (connect(fd, (const struct sockaddr *)ss, len))
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (read(fd, &go, 1) != 1)
		die("client: start byte");
	for (i = 0; i < count; i++) {
		size_t off = 0;

		while (off < size) {
			ssize_t n = send(fd, buf + off, size - off, 0);

			if (n <= 0)
				die("send");
			off += n;
		}
		if (read(fd, &go, 1) != 1)
			die("client: response");
	}
	close(fd);
	exit(0);
}

int main(int argc, char **argv)
{
	long count, reads = 0, calls = 0;
	size_t got = 0;
	long long bytes = 0;
	struct sockaddr_storage ss;
	int lfd, fd, af = AF_INET, st;
	socklen_t len;
	double t0, t1;
	size_t size;
	pid_t pid;
	char *buf;
	ssize_t n;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: tcpload COUNT SIZE [4|6]\n");
		return 2;
	}
	count = atol(argv[1]);
	size = strtoul(argv[2], NULL, 0);
	if (argc == 4 && !strcmp(argv[3], "6"))
		af = AF_INET6;
	else if (argc == 4 && strcmp(argv[3], "4"))
		return fprintf(stderr, "tcpload: family 4 or 6, not %s\n", argv[3]), 2;
	if (count <= 0 || !size || size > (64 << 20))
		return fprintf(stderr, "tcpload: bad COUNT or SIZE\n"), 2;
	buf = malloc(size);
	if (!buf)
		die("malloc");
	lfd = listen_loopback(af, &ss, &len);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		client(af, &ss, len, count, size);
	/* A client that failed to connect never comes: do not wait forever. */
	alarm(60);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	alarm(0);
	close(lfd);
	/* Connected: the tracer attaches to this pid while it is stopped. */
	raise(SIGSTOP);
	if (write(fd, "g", 1) != 1)
		die("start byte");
	t0 = now_s();
	do {
		n = recv(fd, buf, size - got, 0);
		calls++;
		if (n > 0) {
			reads++;
			bytes += n;
			got += n;
			if (got == size) {
				got = 0;
				if (write(fd, "r", 1) != 1)
					die("response");
			}
		}
	} while (n > 0);
	t1 = now_s();
	if (n < 0)
		die("recv");
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return fprintf(stderr, "tcpload: the client failed\n"), 1;
	if (bytes != (long long)count * (long long)size)
		return fprintf(stderr, "tcpload: read %lld bytes of %lld\n", bytes,
			       (long long)count * (long long)size), 1;
	printf("{\"reads\": %ld, \"calls\": %ld, \"bytes\": %lld, \"seconds\": %.6f}\n", reads,
	       calls, bytes, t1 - t0);
	return 0;
}
