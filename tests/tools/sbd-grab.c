// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-grab DEV HOLD_MS: open DEV the moment it appears, as udev's probe
 * does on a disk's add event, hold it open for HOLD_MS milliseconds,
 * close it and exit 0.  Prints "held" once the open succeeded.  Until
 * then it retries every 100 us; kill it to give up.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec hold;
	long ms;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: sbd-grab DEV HOLD_MS\n");
		return 2;
	}
	ms = atol(argv[2]);
	/* Every 100 us: often enough, without taking a whole CPU. */
	hold.tv_sec = 0;
	hold.tv_nsec = 100000;
	while ((fd = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0)
		nanosleep(&hold, NULL);
	printf("held\n");
	fflush(stdout);
	hold.tv_sec = ms / 1000;
	hold.tv_nsec = ms % 1000 * 1000000L;
	nanosleep(&hold, NULL);
	close(fd);
	return 0;
}
