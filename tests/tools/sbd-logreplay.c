// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-logreplay: read a log in dm-log-writes' format (the kernel's
 * Documentation/admin-guide/device-mapper/log-writes.rst), written by the
 * kernel's dm-log-writes target or exported by sbd.
 *
 *   sbd-logreplay dump LOG
 *	One line per entry: "INDEX FLAGS SECTOR NR_SECTORS DATA_LEN WHAT",
 *	WHAT being a mark's name or a checksum (FNV-1a 64) of the data.
 *   sbd-logreplay replay LOG SIZE K OUT [BASE]
 *	Replay onto an image of SIZE bytes (zeros, or the file BASE: the
 *	disk as the log started) every entry up to and
 *	including the Kth FLUSH entry (K = 0: all of them), as fstests'
 *	replay-log does (a discard zeroes, which is what sbd's does), and
 *	write the image to OUT.
 *
 *   sbd-logreplay limit LOG SIZE N OUT [BASE]
 *	The same, of the first N entries (N = 0: all of them), as
 *	replay-log --limit N does.
 *
 *   sbd-logreplay apply LOG K DEV
 *	The same replay written straight onto the block device DEV with
 *	O_DIRECT, discards as BLKDISCARD, as fstests' replay-log does:
 *	DEV must hold what the log's device held as the log started.
 *
 * The format: at byte 0 a super block (magic, version, nr_entries,
 * sectorsize), then per entry one sectorsize block holding the entry
 * (and a mark's name after it), then, unless the entry is a discard,
 * NR_SECTORS blocks of data.  Sectors count sectorsize blocks.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../../explore/sbd-logwrites.h"

static uint64_t fnv(const unsigned char *p, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

int main(int argc, char **argv)
{
	int dump = argc == 3 && !strcmp(argv[1], "dump");
	int limit = (argc == 6 || argc == 7) && !strcmp(argv[1], "limit");
	int replay = (argc == 6 || argc == 7) &&
		     (limit || !strcmp(argv[1], "replay"));
	int apply = argc == 5 && !strcmp(argv[1], "apply");
	int dev = -1;
	uint64_t size = 0, want = 0, flushes = 0, i, bytes;
	unsigned char *block, *data, *img = NULL;
	struct lw_super super;
	struct lw_entry e;
	FILE *f, *out;

	if (!dump && !replay && !apply) {
		fprintf(stderr, "usage: sbd-logreplay dump LOG\n"
				"       sbd-logreplay replay LOG SIZE K OUT [BASE]\n"
				"       sbd-logreplay limit LOG SIZE N OUT [BASE]\n"
				"       sbd-logreplay apply LOG K DEV\n");
		return 2;
	}
	f = fopen(argv[2], "rb");
	if (!f || fread(&super, sizeof(super), 1, f) != 1 ||
	    super.magic != LW_MAGIC || super.sectorsize < 512 ||
	    super.sectorsize > 65536) {
		fprintf(stderr, "%s: not a dm-log-writes log\n", argv[2]);
		return 1;
	}
	if (replay) {
		size = strtoull(argv[3], NULL, 10);
		want = strtoull(argv[4], NULL, 10);
		img = calloc(1, size);
		if (argc == 7) {
			FILE *base = fopen(argv[6], "rb");

			if (!base || fread(img, size, 1, base) != 1) {
				fprintf(stderr, "%s: cannot read %" PRIu64 " bytes\n",
					argv[6], size);
				return 1;
			}
			fclose(base);
		}
	}
	if (apply) {
		want = strtoull(argv[3], NULL, 10);
		dev = open(argv[4], O_WRONLY | O_DIRECT);
		if (dev < 0) {
			perror(argv[4]);
			return 1;
		}
	}
	block = malloc(super.sectorsize);
	if (fseek(f, super.sectorsize, SEEK_SET))
		return 1;
	for (i = 0; i < super.nr_entries; i++) {
		if (fread(block, super.sectorsize, 1, f) != 1) {
			fprintf(stderr, "entry %" PRIu64 ": log ends early\n", i);
			return 1;
		}
		memcpy(&e, block, sizeof(e));
		bytes = e.flags & LW_DISCARD ? 0 : e.nr_sectors * super.sectorsize;
		if (posix_memalign((void **)&data, 4096, bytes ? bytes : 1))
			return 1;
		if (bytes && fread(data, bytes, 1, f) != 1) {
			fprintf(stderr, "entry %" PRIu64 ": data ends early\n", i);
			return 1;
		}
		if (apply) {
			uint64_t range[2] = { e.sector * super.sectorsize,
					      e.nr_sectors * super.sectorsize };

			if (e.flags & LW_DISCARD ? ioctl(dev, BLKDISCARD, range) :
			    bytes && pwrite(dev, data, bytes, range[0]) != (ssize_t)bytes) {
				perror("apply");
				return 1;
			}
		} else if (dump) {
			printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " ",
			       i, e.flags, e.sector, e.nr_sectors, e.data_len);
			if (e.flags & LW_MARK)
				printf("%.*s\n", (int)e.data_len,
				       (char *)block + sizeof(e));
			else
				printf("%016" PRIx64 "\n", fnv(data, bytes));
		} else if ((e.sector + e.nr_sectors) * super.sectorsize > size) {
			fprintf(stderr, "entry %" PRIu64 ": beyond %" PRIu64 " bytes\n",
				i, size);
			return 1;
		} else if (e.flags & LW_DISCARD) {
			memset(img + e.sector * super.sectorsize, 0,
			       e.nr_sectors * super.sectorsize);
		} else if (!(e.flags & LW_MARK)) {
			memcpy(img + e.sector * super.sectorsize, data, bytes);
		}
		free(data);
		if (limit && i + 1 == want)
			break;
		if (!limit && (replay || apply) && (e.flags & LW_FLUSH) &&
		    ++flushes == want)
			break;
	}
	if (apply)
		return fsync(dev) || close(dev);
	if (replay) {
		if (limit && want && i + 1 != want) {
			fprintf(stderr, "the log has %" PRIu64 " entries, not %" PRIu64 "\n",
				super.nr_entries, want);
			return 1;
		}
		if (!limit && want && flushes != want) {
			fprintf(stderr, "the log has %" PRIu64 " FLUSH entries, not %" PRIu64 "\n",
				flushes, want);
			return 1;
		}
		out = fopen(argv[5], "wb");
		if (!out || fwrite(img, size, 1, out) != 1 || fclose(out))
			return 1;
	}
	return 0;
}
