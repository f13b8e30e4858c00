// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-grab DEV HOLD_MS [AFTER]: open DEV as soon as it can be opened (or,
 * given AFTER, a path, as soon as AFTER exists: e.g. /sys/block/sbd1,
 * which appears once sbd0 is fully added and while sbd1 is being added),
 * as udev's probe does on a disk's add event; hold it open for HOLD_MS
 * milliseconds, close it and exit 0.  Prints "held" once the open
 * succeeded.  Until then it retries every 100 us; kill it to give up.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec hold, poll = { 0, 100000 };
	struct stat st;
	long ms;
	int fd;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: sbd-grab DEV HOLD_MS [AFTER]\n");
		return 2;
	}
	ms = atol(argv[2]);
	while (argc == 4 && stat(argv[3], &st))
		nanosleep(&poll, NULL);
	while ((fd = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0)
		nanosleep(&poll, NULL);
	printf("held\n");
	fflush(stdout);
	hold.tv_sec = ms / 1000;
	hold.tv_nsec = ms % 1000 * 1000000L;
	nanosleep(&hold, NULL);
	close(fd);
	return 0;
}
