// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers serve: a Prometheus exporter. Each scrape of /metrics reads the
 * module's debugfs files afresh and answers with what --prometheus (or,
 * when the client's Accept header prefers it, --openmetrics) prints, plus
 * the exporter's own iolayers_up and iolayers_scrape_duration_seconds:
 * nothing is kept between scrapes.
 *
 * One thread and ppoll(): a client that reads its answer slowly holds one
 * of --web.max-connections slots until its --web.timeout ends, and never
 * the others' scrapes; when every slot is taken, a new client takes the
 * slot of a connection whose answer is all sent, else of the one whose
 * request is slowest to come, once that one has had a second (so clients
 * that connect and send nothing cannot keep a scrape out). Every answer closes its connection (HTTP/1.1
 * "Connection: close"): a scraper opens one every interval, which costs
 * less than the scrape itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "iolayers.h"
#include "../include/uapi/iolayers.h"

#define SERVE_ROOT		"/sys/kernel/debug/" IOLAYERS_DEBUGFS_DIR
#define SERVE_ADDRESS		"127.0.0.1:9732"
/* A request's head (request line and headers): scrapers send a few hundred bytes. */
#define SERVE_HEAD_MAX		8192
#define SERVE_CONN_MAX		1024

/**
 * struct serve_conn - one client connection.
 * @fd: its socket, -1 when the slot is free
 * @state: reading its request, writing the answer, or draining what the
 *	client still sends after the answer (so that closing does not reset
 *	the connection before the client has read it)
 * @head: the request's head so far
 * @head_len: bytes in @head
 * @out: the answer (head and body), malloc'd
 * @out_len: bytes in @out
 * @sent: bytes of @out sent
 * @deadline_ms: when the connection is closed whatever its state
 *	(CLOCK_MONOTONIC, ms)
 * @since_ms: when it was accepted
 */
struct serve_conn {
	int fd;
	enum { SC_READ, SC_WRITE, SC_DRAIN } state;
	char head[SERVE_HEAD_MAX];
	size_t head_len;
	char *out;
	size_t out_len, sent;
	int64_t deadline_ms, since_ms;
};

static struct {
	const char *root, *address, *path;
	int max_conns;
	int timeout_ms;
	/* What the exporter did, for its own metrics. */
	uint64_t scrapes, failed_scrapes, timeouts;
	int last_up;		/* the last scrape's iolayers_up, -1 before the first */
} srv = {
	.root = SERVE_ROOT, .address = SERVE_ADDRESS, .path = "/metrics",
	.max_conns = 16, .timeout_ms = 10000, .last_up = -1,
};

static volatile sig_atomic_t serve_stop;

static void serve_on_signal(int sig)
{
	(void)sig;
	serve_stop = 1;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * ADDRESS: "HOST:PORT", "[V6]:PORT" or ":PORT" (every address). Listening
 * sockets on each address HOST resolves to (both families of a name).
 */
static int serve_listen(const char *address, int *fds, int max)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	}, *res, *ai;
	char host[256];
	const char *port, *h = address;
	size_t hl;
	int n = 0, err, one = 1;

	port = strrchr(address, ':');
	if (!port || !port[1] || strspn(port + 1, "0123456789") != strlen(port + 1) ||
	    strlen(port + 1) > 5 || atoi(port + 1) > 65535) {
		fprintf(stderr, "iolayers serve: --web.listen-address %s: not HOST:PORT\n",
			address);
		return -2;
	}
	hl = (size_t)(port - address);
	if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
		h++;
		hl -= 2;
	}
	if (hl >= sizeof(host)) {
		fprintf(stderr, "iolayers serve: --web.listen-address: host too long\n");
		return -2;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	port++;
	err = getaddrinfo(hl ? host : NULL, port, &hints, &res);
	if (err) {
		fprintf(stderr, "iolayers serve: --web.listen-address %s: %s\n", address,
			gai_strerror(err));
		return -1;
	}
	for (ai = res; ai && n < max; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				ai->ai_protocol);

		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* ":PORT" resolves to 0.0.0.0 and ::, each its own socket. */
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
			err = errno;
			close(fd);
			continue;
		}
		fds[n++] = fd;
	}
	freeaddrinfo(res);
	if (!n)
		fprintf(stderr, "iolayers serve: cannot listen on %s: %s\n", address,
			strerror(err ? err : EADDRNOTAVAIL));
	return n ? n : -1;
}

/*
 * The quality the Accept header gives a media type: the largest q of
 * the ranges naming it (with @exact, only ranges that name it whole, else
 * also its top type with any subtype and any type); 0 where none does,
 * 1 without a header.
 */
static double accept_q(const char *accept, const char *type, int exact)
{
	const char *p = accept, *slash = strchr(type, '/');
	double best = 0;

	if (!accept)
		return exact ? 0 : 1;
	while (*p) {
		const char *end = p + strcspn(p, ","), *semi;
		size_t tl;
		double q = 1;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		semi = memchr(p, ';', (size_t)(end - p));
		tl = (size_t)((semi ? semi : end) - p);
		while (tl && (p[tl - 1] == ' ' || p[tl - 1] == '\t'))
			tl--;
		for (; semi && semi < end; semi = memchr(semi + 1, ';', (size_t)(end - semi - 1))) {
			const char *v = semi + 1;

			while (v < end && *v == ' ')
				v++;
			if (end - v > 2 && !strncasecmp(v, "q=", 2))
				q = strtod(v + 2, NULL);
		}
		if ((tl == strlen(type) && !strncasecmp(p, type, tl)) ||
		    (!exact && tl == 3 && !strncmp(p, "*/*", 3)) ||
		    (!exact && tl == (size_t)(slash - type) + 2 && !strncasecmp(p, type, tl - 1) &&
		     p[tl - 1] == '*'))
			if (q > best)
				best = q;
		p = *end ? end + 1 : end;
	}
	return best;
}

/*
 * A header's value in a request head from its request line's end on
 * (the value's line end becomes a NUL), or NULL.
 */
static const char *header(char *p, const char *name)
{
	size_t n = strlen(name);

	while ((p = strchr(p, '\n'))) {
		p++;
		if (!strncasecmp(p, name, n) && p[n] == ':') {
			char *v = p + n + 1, *e = strpbrk(v, "\r\n");

			while (*v == ' ' || *v == '\t')
				v++;
			if (e)
				*e = '\0';
			return v;
		}
	}
	return NULL;
}

/* The scrape: the module's metrics, the exporter's own after them. */
static char *scrape(int om, size_t *len)
{
	char err[512], *buf = NULL;
	struct il_exporter e;
	struct il_snapshot s;
	double t = now_s();
	FILE *m = open_memstream(&buf, len);
	int up;

	if (!m)
		return NULL;
	srv.scrapes++;
	up = !il_read_snapshot(srv.root, &s, err, sizeof(err));
	if (up) {
		il_view_prom_body(m, &s, om);
		il_snapshot_free(&s);
	} else {
		srv.failed_scrapes++;
	}
	/* Said when it changes, not at every scrape (a journal's worth a day). */
	if (up != srv.last_up) {
		char terr[IL_TERM_LEN(512)];

		if (up)
			fprintf(stderr, "iolayers serve: reading the module (%s)\n", srv.root);
		else
			fprintf(stderr, "iolayers serve: cannot read the module: %s "
				"(iolayers_up 0 until it can)\n",
				il_term_str(terr, sizeof(terr), err));
		srv.last_up = up;
	}
	e.up = up;
	e.seconds = now_s() - t;
	e.scrapes = srv.scrapes;
	e.failed = srv.failed_scrapes;
	e.timeouts = srv.timeouts;
	il_view_prom_exporter(m, om, &e);
	if (ferror(m) | fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const char index_page[] =
"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>iolayers exporter</title>"
"</head>\n<body><h1>iolayers exporter</h1>\n"
"<p>Where the time of the followed processes' reads goes, layer by layer "
"(syscall, VFS, file system, block queue and service, device; socket and TCP), "
"by cache state (HIT, MISS, PARTIAL, DIRECT; READY, WAITED), from the iolayers "
"kernel module's counters, read afresh at each scrape.</p>\n"
"<p><a href=\"%s\">Metrics</a> (Prometheus text; OpenMetrics when the "
"<code>Accept</code> header asks for it). Latency histograms: "
"<code>iolayers_LAYER_latency_seconds</code> with a <code>cache</code> label; "
"<code>iolayers_up</code> is 0 when the module could not be read.</p>\n"
"<p>What the module follows is set with <code>iolayers --set-pid</code>, "
"<code>--set-comm</code> or <code>--set-cgroup</code>; see iolayers(8).</p>\n"
"</body></html>\n";

/* An answer: status line, headers, body (which may be NULL, for HEAD or an error). */
static void answer(struct serve_conn *c, const char *status, const char *type,
		   const char *extra, const char *body, size_t body_len, int head_only)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		goto fail;
	fprintf(m, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		"Connection: close\r\n%s\r\n", status, type, body_len, extra ? extra : "");
	if (body && !head_only)
		fwrite(body, 1, body_len, m);
	if (ferror(m) | fclose(m))
		goto fail;
	c->out = buf;
	c->out_len = len;
	c->sent = 0;
	c->state = SC_WRITE;
	return;
fail:
	free(buf);
	c->out = NULL;
	c->out_len = c->sent = 0;
	c->state = SC_WRITE;
}

static void answer_text(struct serve_conn *c, const char *status, const char *extra,
			int head_only)
{
	char body[128];
	int n = snprintf(body, sizeof(body), "%s\n", status);

	answer(c, status, "text/plain; charset=utf-8", extra, body, (size_t)n, head_only);
}

/* A whole request head in c->head: its answer into c->out. */
static void handle(struct serve_conn *c)
{
	char *sp1, *sp2, *eol, *q;
	int head_only;

	c->head[c->head_len] = '\0';
	eol = strpbrk(c->head, "\r\n");
	if (eol)
		*eol = '\0';
	sp1 = strchr(c->head, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strncmp(sp2 + 1, "HTTP/1.", 7)) {
		answer_text(c, "400 Bad Request", NULL, 0);
		return;
	}
	*sp1 = *sp2 = '\0';
	/* The head's other lines, for header(): the request line ends at its NUL. */
	if (eol)
		*eol = '\n';
	head_only = !strcmp(c->head, "HEAD");
	if (strcmp(c->head, "GET") && !head_only) {
		answer_text(c, "405 Method Not Allowed", "Allow: GET, HEAD\r\n", 0);
		return;
	}
	q = strchr(sp1 + 1, '?');
	if (q)
		*q = '\0';
	if (!strcmp(sp1 + 1, srv.path)) {
		const char *accept = eol ? header(eol, "Accept") : NULL;
		/*
		 * OpenMetrics when the client names it and likes it at least as
		 * well as the Prometheus text (Prometheus's own Accept: q=1
		 * against 0.5); a client that takes anything gets the text.
		 */
		double om_q = accept_q(accept, "application/openmetrics-text", 1);
		int om = om_q > 0 && om_q >= accept_q(accept, "text/plain", 0);
		size_t len = 0;
		char *body = scrape(om, &len);

		if (!body) {
			answer_text(c, "500 Internal Server Error", NULL, head_only);
			return;
		}
		answer(c, "200 OK", om ? "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		       "text/plain; version=0.0.4; charset=utf-8", NULL, body, len, head_only);
		free(body);
	} else if (!strcmp(sp1 + 1, "/")) {
		char page[sizeof(index_page) + 256];
		int n = snprintf(page, sizeof(page), index_page, srv.path);

		answer(c, "200 OK", "text/html; charset=utf-8", NULL, page,
		       n < 0 ? 0 : (size_t)n < sizeof(page) ? (size_t)n : sizeof(page) - 1,
		       head_only);
	} else {
		answer_text(c, "404 Not Found", NULL, head_only);
	}
}

static void conn_close(struct serve_conn *c)
{
	close(c->fd);
	c->fd = -1;
	free(c->out);
	c->out = NULL;
}

/* Readable: more of the request, or (draining) whatever follows it. */
static void conn_read(struct serve_conn *c)
{
	size_t from, i, end = 0;
	ssize_t n;

	if (c->state == SC_DRAIN) {
		char sink[4096];

		n = recv(c->fd, sink, sizeof(sink), 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			conn_close(c);
		return;
	}
	n = recv(c->fd, c->head + c->head_len, sizeof(c->head) - 1 - c->head_len, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c);
		return;
	}
	/* The head ends at its blank line; what follows (a pipelined request) is not read. */
	from = c->head_len > 3 ? c->head_len - 3 : 0;
	c->head_len += (size_t)n;
	for (i = from; i < c->head_len; i++) {
		if (c->head[i] != '\n')
			continue;
		if (i >= 1 && c->head[i - 1] == '\n')
			end = i + 1;
		else if (i >= 3 && c->head[i - 1] == '\r' && c->head[i - 2] == '\n' &&
			 c->head[i - 3] == '\r')
			end = i + 1;
		if (end)
			break;
	}
	/* A NUL is no part of a request's head. */
	if (memchr(c->head, '\0', end ? end : c->head_len)) {
		answer_text(c, "400 Bad Request", NULL, 0);
		return;
	}
	if (end) {
		c->head_len = end;
		handle(c);
	} else if (c->head_len == sizeof(c->head) - 1) {
		answer_text(c, "431 Request Header Fields Too Large", NULL, 0);
	}
}

/* Writable: more of the answer; all of it sent, the connection drains. */
static void conn_write(struct serve_conn *c)
{
	while (c->sent < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->sent, c->out_len - c->sent, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			conn_close(c);
			return;
		}
		c->sent += (size_t)n;
	}
	free(c->out);
	c->out = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = SC_DRAIN;
	/* A client that does not close its side: a second at most. */
	if (c->deadline_ms > now_ms() + 1000)
		c->deadline_ms = now_ms() + 1000;
}

/*
 * When every slot is taken, whose slot a new client gets: a connection
 * whose answer is all sent (draining what its client still sends; the
 * oldest), else the one whose request is slowest to come, once it has
 * had a second. Its index, or -1 when none may give its slot up now;
 * @at: when the slowest request's second is up (-1: no request coming).
 */
static int serve_victim(const struct serve_conn *conns, int n, int64_t t, int64_t *at)
{
	int i, drain = -1, read = -1;

	for (i = 0; i < n; i++) {
		const struct serve_conn *k = &conns[i];

		if (k->fd < 0)
			continue;
		if (k->state == SC_DRAIN && (drain < 0 || k->since_ms < conns[drain].since_ms))
			drain = i;
		if (k->state == SC_READ && (read < 0 || k->since_ms < conns[read].since_ms))
			read = i;
	}
	*at = read >= 0 ? conns[read].since_ms + 1000 : -1;
	if (drain >= 0)
		return drain;
	return read >= 0 && *at <= t ? read : -1;
}

/* A slot given up for a new client: a request that was slow, counted. */
static void serve_evict(struct serve_conn *c)
{
	if (c->state == SC_DRAIN) {
		char sink[4096];

		/* What its client sent is read first: closed with it unread, it would be reset. */
		while (recv(c->fd, sink, sizeof(sink), 0) > 0)
			;
	} else {
		srv.timeouts++;
	}
	conn_close(c);
}

static void serve_usage(FILE *f)
{
	fprintf(f,
"Usage: iolayers serve [OPTION...]\n"
"Serve the module's metrics to Prometheus: /metrics, read afresh at each scrape.\n\n"
"  --web.listen-address=ADDR  HOST:PORT, [V6]:PORT or :PORT (every address)\n"
"                             to listen on (default " SERVE_ADDRESS ")\n"
"  --web.telemetry-path=PATH  where the metrics are (default /metrics)\n"
"  --web.max-connections=N    clients served at once (default 16, at most %d);\n"
"                             when full, a new client takes the slot of an\n"
"                             answered one, else of the slowest request\n"
"                             over a second old\n"
"  --web.timeout=SECONDS      a connection's time to send its request and\n"
"                             take the answer (default 10)\n"
"  -r, --root=DIR             read DIR instead of " SERVE_ROOT "\n"
"  -h, --help                 this text\n", SERVE_CONN_MAX);
}

/* A positive integer option in [1, max], or -1. */
static long serve_num(const char *opt, const char *arg, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > max) {
		fprintf(stderr, "iolayers serve: %s: '%s' is not a number from 1 to %ld\n", opt,
			arg, max);
		return -1;
	}
	return v;
}

/**
 * il_serve_main() - `iolayers serve`.
 * @argc: arguments after the reader's name, "serve" first
 * @argv: them
 *
 * Return: the exit status: 0 after SIGINT or SIGTERM, 1 when it cannot
 * listen, 2 on bad usage (a listen address that is not HOST:PORT too).
 */
int il_serve_main(int argc, char **argv)
{
	enum { O_ADDR = 1000, O_PATH, O_CONNS, O_TIMEOUT };
	static const struct option lopts[] = {
		{ "web.listen-address", required_argument, NULL, O_ADDR },
		{ "web.telemetry-path", required_argument, NULL, O_PATH },
		{ "web.max-connections", required_argument, NULL, O_CONNS },
		{ "web.timeout", required_argument, NULL, O_TIMEOUT },
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct sigaction sa = { .sa_handler = serve_on_signal };
	sigset_t stopsigs, waitmask;
	int64_t accept_pause = 0;
	struct serve_conn *conns;
	struct pollfd *pfd;
	int lfd[8], nl, c, i, nconns = 0, ret = 0;
	struct rlimit rl;
	long v;

	while ((c = getopt_long(argc, argv, "+r:h", lopts, NULL)) != -1) {
		switch (c) {
		case O_ADDR:
			srv.address = optarg;
			break;
		case O_PATH:
			/* It goes into the index page's link: plain characters only. */
			if (optarg[0] != '/' || !strcmp(optarg, "/") || strlen(optarg) > 128 ||
			    strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				   "0123456789/._~-") != strlen(optarg)) {
				fprintf(stderr, "iolayers serve: --web.telemetry-path: want a path "
					"other than /, starting with /, of at most 128 letters, "
					"digits and /._~-\n");
				return 2;
			}
			srv.path = optarg;
			break;
		case O_CONNS:
			v = serve_num("--web.max-connections", optarg, SERVE_CONN_MAX);
			if (v < 0)
				return 2;
			srv.max_conns = (int)v;
			break;
		case O_TIMEOUT:
			v = serve_num("--web.timeout", optarg, 3600);
			if (v < 0)
				return 2;
			srv.timeout_ms = (int)v * 1000;
			break;
		case 'r':
			srv.root = optarg;
			break;
		case 'h':
			serve_usage(stdout);
			return 0;
		default:
			serve_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "iolayers serve: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	/*
	 * A descriptor per client, the listeners' and a scrape's (the
	 * module's files, one at a time): as many as the hard limit allows.
	 */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)srv.max_conns + 32 > rl.rlim_cur) {
		fprintf(stderr, "iolayers serve: --web.max-connections %d: at most %llu with %llu "
			"file descriptors (ulimit -n)\n", srv.max_conns,
			rl.rlim_cur > 32 ? (unsigned long long)rl.rlim_cur - 32 : 0ULL,
			(unsigned long long)rl.rlim_cur);
		return 2;
	}
	nl = serve_listen(srv.address, lfd, (int)(sizeof(lfd) / sizeof(lfd[0])));
	if (nl < 0)
		return nl == -2 ? 2 : 1;
	conns = calloc((size_t)srv.max_conns, sizeof(*conns));
	pfd = calloc((size_t)(srv.max_conns + nl), sizeof(*pfd));
	if (!conns || !pfd) {
		fprintf(stderr, "iolayers serve: out of memory\n");
		return 1;
	}
	for (i = 0; i < srv.max_conns; i++)
		conns[i].fd = -1;
	/*
	 * SIGINT and SIGTERM are let in only inside ppoll(): one that comes
	 * between the loop's test and the wait still ends the wait.
	 */
	sigemptyset(&stopsigs);
	sigaddset(&stopsigs, SIGINT);
	sigaddset(&stopsigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &stopsigs, &waitmask);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	fprintf(stderr, "iolayers serve: listening on %s, metrics at %s\n", srv.address, srv.path);
	while (!serve_stop) {
		int64_t t = now_ms(), next = -1, oldest_at;
		int n = 0, victim, listen;
		struct timespec ts, *tsp = NULL;

		/*
		 * A slot for a new client: a free one, or when every one is
		 * taken one given up (serve_victim(): a client that connects
		 * and sends nothing holds no scrape back for long). Not while
		 * accept() is out of file descriptors.
		 */
		victim = serve_victim(conns, srv.max_conns, t, &oldest_at);
		listen = t >= accept_pause && (nconns < srv.max_conns || victim >= 0);
		for (i = 0; i < nl; i++)
			pfd[n++] = (struct pollfd){ .fd = listen ? lfd[i] : -1, .events = POLLIN };
		for (i = 0; i < srv.max_conns; i++) {
			struct serve_conn *k = &conns[i];

			pfd[n++] = (struct pollfd){ .fd = k->fd,
				.events = k->state == SC_WRITE ? POLLOUT : POLLIN };
			if (k->fd >= 0 && (next < 0 || k->deadline_ms < next))
				next = k->deadline_ms;
		}
		if (!listen && t < accept_pause && (next < 0 || accept_pause < next))
			next = accept_pause;
		/* Full: when the slowest request's second is up (and no pause). */
		if (!listen && nconns == srv.max_conns && oldest_at >= 0) {
			int64_t at = oldest_at > accept_pause ? oldest_at : accept_pause;

			if (next < 0 || at < next)
				next = at;
		}
		if (next >= 0) {
			int64_t w = next > t ? next - t : 0;

			ts.tv_sec = w / 1000;
			ts.tv_nsec = (w % 1000) * 1000000;
			tsp = &ts;
		}
		if (ppoll(pfd, (nfds_t)n, tsp, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			perror("iolayers serve: poll");
			ret = 1;
			break;
		}
		t = now_ms();
		for (i = 0; i < srv.max_conns; i++) {
			struct serve_conn *k = &conns[i];
			short re = pfd[nl + i].revents;

			if (k->fd < 0 || pfd[nl + i].fd != k->fd)
				continue;
			if (re & (POLLERR | POLLNVAL)) {
				conn_close(k);
			} else if (k->state == SC_WRITE && (re & (POLLOUT | POLLHUP))) {
				conn_write(k);
			} else if (re & (POLLIN | POLLHUP)) {
				conn_read(k);
				/* Answered at once: most answers fit the socket's buffer. */
				if (k->fd >= 0 && k->state == SC_WRITE)
					conn_write(k);
			}
			if (k->fd >= 0 && k->deadline_ms <= t) {
				if (k->state != SC_DRAIN)
					srv.timeouts++;
				conn_close(k);
			}
			if (k->fd < 0)
				nconns--;
		}
		for (i = 0; i < nl; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			for (;;) {
				int fd, j;

				if (nconns == srv.max_conns) {
					victim = serve_victim(conns, srv.max_conns, t, &oldest_at);
					if (victim < 0)
						break;
				}
				fd = accept4(lfd[i], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
				if (fd < 0) {
					/*
					 * Out of descriptors, or refused otherwise: the
					 * listeners rest a tenth of a second (the client
					 * waits in the queue, and the loop does not spin).
					 */
					if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
					    errno != ECONNABORTED)
						accept_pause = t + 100;
					break;
				}
				/* A client came: the victim gives it its slot. */
				if (nconns == srv.max_conns) {
					serve_evict(&conns[victim]);
					nconns--;
				}
				for (j = 0; conns[j].fd >= 0; j++)
					;
				conns[j] = (struct serve_conn){ .fd = fd, .state = SC_READ,
					.deadline_ms = t + srv.timeout_ms, .since_ms = t };
				nconns++;
			}
		}
	}
	for (i = 0; i < srv.max_conns; i++)
		if (conns[i].fd >= 0)
			conn_close(&conns[i]);
	for (i = 0; i < nl; i++)
		close(lfd[i]);
	free(conns);
	free(pfd);
	return ret;
}
