// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-fsyncfiles DIR N: the crash benchmark's workload
 * (tests/vm-bench-explore.sh): N operations, each writing a new file
 * DIR/fI (I = 1..N) of I * 7919 % 16384 + 1 pseudo-random bytes and
 * fsyncing it, and every tenth also fsyncing DIR.  One process: a shell
 * loop spawning head and sync per file cost 0.19 s a file under QEMU's
 * TCG, which made thousands of operations impractical and timed the
 * spawns more than the filesystem.  Exits 0, or 1 with the failing call.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static unsigned char buf[16384];
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	char path[4096];
	long i, n, len, j;
	int dir, fd;

	if (argc != 3 || (n = atol(argv[2])) < 1) {
		fprintf(stderr, "usage: sbd-fsyncfiles DIR N\n");
		return 2;
	}
	dir = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dir < 0) {
		perror(argv[1]);
		return 1;
	}
	for (i = 1; i <= n; i++) {
		len = i * 7919 % 16384 + 1;
		for (j = 0; j < len; j++) {	/* xorshift64: new data each file */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[j] = (unsigned char)x;
		}
		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, len) != len || fsync(fd) || close(fd)) {
			perror(path);
			return 1;
		}
		if (i % 10 == 0 && fsync(dir)) {
			perror(argv[1]);
			return 1;
		}
	}
	return close(dir) ? 1 : 0;
}
