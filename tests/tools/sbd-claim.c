// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-claim DEV: open DEV exclusively (O_EXCL on a block device claims
 * it, as a mount does), print "claimed", hold it until standard input
 * ends, and exit 0.  Exits 1, saying why, if the open fails.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[64];
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: sbd-claim DEV\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	printf("claimed\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}
