// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-inflight FILE OFFSET BYTE [MARK NAME]: fdatasync a write that is
 * still in flight, the mistake sbd's hold_writes_ms is there to catch.
 *
 * Submits one asynchronous O_DIRECT write of 4 KiB of BYTE at OFFSET
 * (io_submit), then, without waiting for it, fdatasync()s FILE, and only
 * then waits for the write.  fdatasync() does not wait for direct I/O in
 * flight, so its FLUSH need not cover the write, as an application that
 * sends its writes and its fsync through io_uring unlinked gets too.
 * FILE is a block device or a file at least OFFSET + 4 KiB long.  With
 * MARK and NAME, NAME is written to the file MARK once fdatasync()
 * returned, before the wait: where the program believes the data
 * durable (sbd-explore's $SBD_MARK).  Exits 0 when all succeeded, 1
 * with a message if any failed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BLOCK 4096

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void mark(const char *file, const char *name)
{
	FILE *f = fopen(file, "w");

	if (!f || fprintf(f, "%s\n", name) < 0 || fclose(f))
		die(file);
}

int main(int argc, char **argv)
{
	struct iocb cb = { 0 }, *cbs[1] = { &cb };
	aio_context_t ctx = 0;
	struct io_event ev;
	unsigned char *buf;
	int fd;

	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: sbd-inflight FILE OFFSET BYTE [MARK NAME]\n");
		return 1;
	}
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0)
		die(argv[1]);
	if (posix_memalign((void **)&buf, BLOCK, BLOCK))
		die("posix_memalign");
	memset(buf, (int)strtol(argv[3], NULL, 0), BLOCK);
	if (syscall(SYS_io_setup, 1, &ctx))
		die("io_setup");
	cb.aio_fildes = fd;
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_buf = (uintptr_t)buf;
	cb.aio_nbytes = BLOCK;
	cb.aio_offset = strtoll(argv[2], NULL, 0);
	if (syscall(SYS_io_submit, ctx, 1, cbs) != 1)
		die("io_submit");
	if (fdatasync(fd))
		die("fdatasync");
	if (argc == 6)
		mark(argv[4], argv[5]);
	if (syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) != 1)
		die("io_getevents");
	if (ev.res != BLOCK) {
		fprintf(stderr, "the write failed: %lld\n", (long long)ev.res);
		return 1;
	}
	return 0;
}
