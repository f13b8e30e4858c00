// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-range discard|zeroout DEV OFFSET LENGTH: one BLKDISCARD or
 * BLKZEROOUT ioctl with exactly this byte range.  blkdiscard clamps a
 * range that crosses the end of the device to the device; the tests
 * need what the kernel says of the range as given.  On failure prints
 * strerror(errno) and exits 1.
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uint64_t range[2];
	unsigned long req;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: sbd-range discard|zeroout DEV OFFSET LENGTH\n");
		return 2;
	}
	if (!strcmp(argv[1], "discard"))
		req = BLKDISCARD;
	else if (!strcmp(argv[1], "zeroout"))
		req = BLKZEROOUT;
	else
		return 2;
	range[0] = strtoull(argv[3], NULL, 10);
	range[1] = strtoull(argv[4], NULL, 10);
	fd = open(argv[2], O_WRONLY);
	if (fd < 0 || ioctl(fd, req, range)) {
		fprintf(stderr, "%s %s %s+%s: %s\n", argv[1], argv[2], argv[3],
			argv[4], strerror(errno));
		return 1;
	}
	return 0;
}
