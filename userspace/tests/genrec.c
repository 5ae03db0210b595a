// SPDX-License-Identifier: GPL-2.0
/*
 * genrec N [FILES]: a synthetic binary recording of N reads on stdout, as
 * `iolayers record` writes one: 8 threads reading FILES files (default
 * 1,000), a third each HIT, MISS (with a request on one of two disks) and
 * DIRECT, latencies spread over five decades, a loss every 100,000 reads,
 * each file's path, the trailer. The HITs are brief records, as the
 * module writes them. For the scale test (check-scale.sh) and
 * for timing --from on this machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../iolayers.h"
#include "recput.h"

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

int main(int argc, char **argv)
{
	static const char header[] =
		"{\"iolayers_record\": 1, \"stream_version\": 4, \"format\": 9, "
		"\"kernel\": \"synthetic\", \"module\": \"iolayers 0.1.0\", \"open_ns\": 1, "
		"\"settings\": {\"pid\": \"0\", \"comm\": \"\", \"children\": \"0\", "
		"\"slow_us\": \"10000\"}, \"command\": [\"genrec\"], "
		"\"clock\": {\"realtime_ns\": 1765100000000000000, \"monotonic_ns\": 1}}";
	struct il_recfile_head head = { .version = IL_RECFILE_VERSION };
	struct iolayers_rec_start st = { { IOLAYERS_REC_START, sizeof(st), 0 },
					 IOLAYERS_STREAM_VERSION, IOLAYERS_FORMAT_VERSION, 1 };
	struct il_rec_end end = { .hdr = { IL_REC_END, sizeof(end), 0 } };
	static char buf[4096 * sizeof(struct iolayers_rec_read)];
	struct iolayers_rec_read rr, *r = &rr;
	size_t used = 0;
	long long n = argc > 1 ? atoll(argv[1]) : 0, files = argc > 2 ? atoll(argv[2]) : 1000;
	uint64_t x = 0x9e3779b97f4a7c15ULL, t = 1000000, lost = 0;
	static const char zeros[8];
	long long i;
	int l;

	if (n <= 0 || files <= 0) {
		fprintf(stderr, "usage: genrec N [FILES]\n");
		return 2;
	}
	memcpy(head.magic, IL_RECFILE_MAGIC, sizeof(head.magic));
	head.json_len = sizeof(header) - 1;
	fwrite(&head, sizeof(head), 1, stdout);
	fwrite(header, 1, head.json_len, stdout);
	fwrite(zeros, 1, (8 - head.json_len % 8) % 8, stdout);
	fwrite(&st, sizeof(st), 1, stdout);
	for (i = 0; i < n; i++) {
		uint64_t v = rnd(&x);
		int64_t lat = (int64_t)(1000 * (1 + (v >> 40) % 1000) * (1 + (v >> 20) % 100));

		memset(r, 0, sizeof(*r));
		r->hdr.type = IOLAYERS_REC_READ;
		r->hdr.size = sizeof(*r);
		r->hdr.cpu = (uint32_t)(v % 8);
		r->seq = (uint64_t)i + 1;
		t += 1000 + v % 5000;
		r->start_ns = t;
		r->tid = 100 + (int)(v % 8);
		r->tgid = 100;
		r->fd = 3;
		r->pos = (int64_t)((v >> 8) % 4096) * 4096;
		r->req = r->ret = 4096;
		r->ino = 1000 + (v >> 32) % (uint64_t)files;
		r->fs_major = 259;
		r->syscall = 1;
		strcpy(r->comm, "gen");
		for (l = 0; l < IOLAYERS_REC_LAYERS; l++)
			r->ns[l] = -1;
		r->vfs_off = r->fs_off = r->queue_off = r->issue_off = r->device_off = -1;
		r->done_off = -1;
		r->ns[IOLAYERS_L_SYSCALL] = lat;
		r->ns[IOLAYERS_L_VFS] = lat - 200;
		r->ns[IOLAYERS_L_FS] = lat - 400;
		r->vfs_off = 100;
		r->fs_off = 300;
		r->sock_ns = r->tcp_ns = r->wait_ns = r->sock_off = r->tcp_off = -1;
		r->ur_issue_off = r->ur_issue_ns = -1;
		r->cache = (uint8_t)(v % 3 == 0 ? IOLAYERS_C_HIT : v % 3 == 1 ? IOLAYERS_C_MISS :
				     IOLAYERS_C_DIRECT);
		if (r->cache != IOLAYERS_C_HIT) {
			r->bios = r->rqs = 1;
			r->bio_bytes = r->rq_bytes = 4096;
			r->ns[IOLAYERS_L_QUEUE] = 1000;
			r->ns[IOLAYERS_L_SERVICE] = lat / 2;
			r->ns[IOLAYERS_L_DEVICE] = lat / 2 - 500;
			r->queue_off = 400;
			r->issue_off = 1400;
			r->device_off = 1400 + lat / 2 - 500;
			r->done_off = 1400 + lat / 2;
			r->ndisks = 1;
			r->dev_major = 259;
			r->dev_minor = (uint32_t)(v >> 7) % 2;
			strcpy(r->disk, r->dev_minor ? "nvme1n1" : "nvme0n1");
		}
		used += rec_put(buf + used, r);
		if ((i + 1) % 100000 == 0) {
			struct iolayers_rec_lost lo = { { IOLAYERS_REC_LOST, sizeof(lo), 0 }, 1 };

			memcpy(buf + used, &lo, sizeof(lo));
			used += sizeof(lo);
			lost++;
		}
		if (used + sizeof(*r) + sizeof(struct iolayers_rec_lost) > sizeof(buf) ||
		    i == n - 1) {
			fwrite(buf, 1, used, stdout);
			used = 0;
		}
	}
	for (i = 0; i < files; i++) {
		struct il_rec_file fr = { .hdr = { IL_REC_FILE, 0, 0 } };
		char path[64];
		size_t len = (size_t)snprintf(path, sizeof(path), "/data/file-%lld", i);
		size_t pad = (8 - (sizeof(fr) + len) % 8) % 8;

		fr.hdr.size = (uint16_t)(sizeof(fr) + len + pad);
		fr.fs_major = 259;
		fr.ino = 1000 + (uint64_t)i;
		fr.path_len = (uint32_t)len;
		fwrite(&fr, sizeof(fr), 1, stdout);
		fwrite(path, 1, len, stdout);
		fwrite(zeros, 1, pad, stdout);
	}
	end.reads = (uint64_t)n;
	end.lost = lost;
	fwrite(&end, sizeof(end), 1, stdout);
	return fflush(stdout) ? 1 : 0;
}
