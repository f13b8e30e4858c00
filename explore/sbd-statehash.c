// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-statehash DEV LISTING: hash what can differ between the crash
 * states of one recording, for sbd-explore to skip states it has
 * checked already.  LISTING is sbd's list of points (debugfs
 * sbd/sbdN/points); only the ranges its writes, discards and
 * write-zeroes cover can differ between two visits of that recording
 * (the rest holds what it held when the recording started), so only
 * those are read, with O_DIRECT.  DEV may be an image of the disk.  Prints 32 hex digits (two 64-bit
 * lanes over the merged ranges and their data) and exits 0; 2 on error.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct range {
	uint64_t pos, end;
};

static int by_pos(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

#define BUF (1 << 20)

int main(int argc, char **argv)
{
	uint64_t h1 = 0x243f6a8885a308d3ULL, h2 = 0x13198a2e03707344ULL;
	struct range *r = NULL;
	size_t n = 0, cap = 0, m, i;
	char line[256], kind[16];
	unsigned char *buf;
	FILE *f;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: sbd-statehash DEV LISTING\n");
		return 2;
	}
	f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t k, pos, len;

		if (sscanf(line, "%" SCNu64 " %15s %" SCNu64 " %" SCNu64, &k, kind, &pos, &len) != 4 ||
		    !len)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			r = realloc(r, cap * sizeof(*r));
			if (!r) {
				perror("realloc");
				return 2;
			}
		}
		r[n].pos = pos;
		r[n++].end = pos + len;
	}
	fclose(f);
	qsort(r, n, sizeof(*r), by_pos);
	for (m = 0, i = 0; i < n; i++) {
		if (m && r[i].pos <= r[m - 1].end) {
			if (r[i].end > r[m - 1].end)
				r[m - 1].end = r[i].end;
		} else {
			r[m++] = r[i];
		}
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0)	/* an image on tmpfs */
		fd = open(argv[1], O_RDONLY);
	if (fd < 0 || posix_memalign((void **)&buf, 4096, BUF)) {
		perror(argv[1]);
		return 2;
	}
	for (i = 0; i < m; i++) {
		uint64_t pos = r[i].pos;

		h1 = (h1 ^ pos) * 0x9e3779b97f4a7c15ULL;
		h2 = (h2 ^ r[i].end) * 0xc2b2ae3d27d4eb4fULL;
		while (pos < r[i].end) {
			size_t want = r[i].end - pos > BUF ? BUF : r[i].end - pos, j;
			ssize_t got = pread(fd, buf, want, pos);

			if (got != (ssize_t)want) {
				fprintf(stderr, "sbd-statehash: %s: read of %zu bytes at %" PRIu64 " failed\n",
					argv[1], want, pos);
				return 2;
			}
			for (j = 0; j + 8 <= want; j += 8) {
				uint64_t w;

				memcpy(&w, buf + j, 8);
				h1 = (h1 ^ w) * 0x100000001b3ULL;
				h1 ^= h1 >> 29;
				h2 = (h2 + w) * 0xff51afd7ed558ccdULL;
				h2 ^= h2 >> 32;
			}
			pos += want;
		}
	}
	printf("%016" PRIx64 "%016" PRIx64 "\n", h1, h2);
	return 0;
}
