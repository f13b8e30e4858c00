// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-torn DEV BLOCKS SECONDS: look for torn reads.
 *
 * Two writers flip whole 4 KiB blocks (O_DIRECT, one page each, so one
 * segment per request) between two patterns; two readers read the same
 * blocks and check that every block read is entirely one pattern or
 * entirely zeros (not yet written).  sbd copies each segment under its
 * lock, so a reader can never see half of one write and half of another.
 * Prints the counts; exits 1 if any read was torn, 2 on an error.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096

static int uniform(const unsigned char *p)
{
	for (int i = 1; i < BLOCK; i++)
		if (p[i] != p[0])
			return 0;
	return p[0] == 0 || p[0] == 0xaa || p[0] == 0x55;
}

/* One worker: returns its count of torn reads (readers) or 0. */
static long work(const char *dev, long blocks, int seconds, int writer,
		 unsigned int seed, long *ops)
{
	unsigned char *buf;
	long torn = 0;
	time_t end = time(NULL) + seconds;
	int fd = open(dev, (writer ? O_WRONLY : O_RDONLY) | O_DIRECT);

	if (fd < 0 || posix_memalign((void **)&buf, BLOCK, BLOCK)) {
		perror(dev);
		exit(2);
	}
	srandom(seed);
	for (*ops = 0; time(NULL) < end; (*ops)++) {
		off_t off = (random() % blocks) * BLOCK;

		if (writer) {
			memset(buf, (*ops & 1) ? 0xaa : 0x55, BLOCK);
			if (pwrite(fd, buf, BLOCK, off) != BLOCK) {
				perror("pwrite");
				exit(2);
			}
		} else {
			if (pread(fd, buf, BLOCK, off) != BLOCK) {
				perror("pread");
				exit(2);
			}
			torn += !uniform(buf);
		}
	}
	return torn;
}

int main(int argc, char **argv)
{
	long blocks, reads = 0, writes = 0, torn = 0;
	int seconds, status, fds[2];

	if (argc != 4) {
		fprintf(stderr, "usage: sbd-torn DEV BLOCKS SECONDS\n");
		return 2;
	}
	blocks = atol(argv[2]);
	seconds = atoi(argv[3]);
	if (blocks < 1 || seconds < 1 || pipe(fds))
		return 2;
	for (int i = 0; i < 4; i++) {
		if (fork() == 0) {
			long ops, t = work(argv[1], blocks, seconds, i < 2,
					   i + 1, &ops);
			dprintf(fds[1], "%d %ld %ld\n", i < 2, ops, t);
			_exit(0);
		}
	}
	close(fds[1]);
	FILE *in = fdopen(fds[0], "r");
	int w;
	long ops, t;

	while (fscanf(in, "%d %ld %ld", &w, &ops, &t) == 3) {
		if (w)
			writes += ops;
		else
			reads += ops;
		torn += t;
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return 2;
	printf("writes %ld reads %ld torn %ld\n", writes, reads, torn);
	return torn ? 1 : 0;
}
