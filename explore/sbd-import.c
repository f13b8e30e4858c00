// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-import LOG DEV [MAP]: replay a log in dm-log-writes' format onto
 * the sbd disk DEV while it records, so that DEV's recording holds the
 * log's writes, FLUSHes and marks as points, in order.  DEV must hold
 * what the log's device held when the log began (sbd-explore --from
 * writes it there first) and be recording ("start" in its record file).
 *
 * Each entry is sent as what it was: a write with O_DIRECT, a FUA write
 * through debugfs sbd/NAME/fua (O_DSYNC would add a FLUSH), a FLUSH as
 * fsync(), a discard as BLKDISCARD, a mark through sysfs.  Without MAP
 * the entries go in the log's order, the order in which the kernel's
 * dm-log-writes target logged them.  MAP is sbd's own log-writes-points
 * for the log: with it, the entries go in the order of the points they
 * were, the writes logged twice once, write-zeroes as BLKZEROOUT, so
 * that the recording is the exported one, point for point.
 *
 * Exit status: 0 when DEV recorded one point per entry; 1 otherwise,
 * with the reason (the recording is then not the log's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sbd-logwrites.h"

/* What debugfs' fua takes at once: one bio of 4 KiB pages. */
#define FUA_MAX		(256 << 12)

/* One entry of the log, where it is, and what MAP says of it. */
struct entry {
	struct lw_entry e;
	off_t at;		/* its header block */
	uint64_t point;		/* MAP's point, 0 without MAP */
	int again, zeroes;	/* MAP: logged twice; a write-zeroes */
};

static const char *prog = "sbd-import";

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* The first line of sysfs or debugfs file @path, into @buf. */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	if (!f || !fgets(buf, size, f))
		die("cannot read %s: %s", path, strerror(errno));
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

/* /sys/block/@name/queue/@limit. */
static uint64_t queue_limit(const char *name, const char *limit)
{
	char path[PATH_MAX], line[64];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", name, limit);
	read_line(path, line, sizeof(line));
	return strtoull(line, NULL, 10);
}

/* "points N" of DEV's record_stats. */
static uint64_t recorded_points(const char *sys)
{
	char path[PATH_MAX], line[256];
	uint64_t n = UINT64_MAX;
	FILE *f;

	snprintf(path, sizeof(path), "%s/record_stats", sys);
	f = fopen(path, "r");
	if (!f)
		die("cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "points %" SCNu64, &n) == 1)
			break;
	fclose(f);
	if (n == UINT64_MAX)
		die("%s has no points line", path);
	return n;
}

int main(int argc, char **argv)
{
	char sys[128], path[PATH_MAX], line[256], *name, *real;
	uint64_t i, n, k, npoints = 0, expect = 0, before, bytes;
	uint64_t max_io, max_discard, max_zeroes;
	struct entry *ents, **order;
	unsigned int lbs;
	struct lw_super super;
	unsigned char *block, *data = NULL;
	size_t data_size = 0;
	int dev, fua, log;
	off_t at;
	FILE *map;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: sbd-import LOG DEV [MAP]\n");
		return 2;
	}
	real = realpath(argv[2], NULL);
	if (!real)
		die("%s: %s", argv[2], strerror(errno));
	name = strrchr(real, '/') + 1;
	if (strlen(name) > 32)
		die("%s is not an sbd disk: it will not be touched", argv[2]);
	snprintf(sys, sizeof(sys), "/sys/block/%s/sbd", name);
	snprintf(path, sizeof(path), "%s/record", sys);
	if (access(path, F_OK))
		die("%s is not an sbd disk with a cache: it will not be touched", argv[2]);
	read_line(path, line, sizeof(line));
	if (strcmp(line, "recording"))
		die("%s is not recording (record: %s): start a recording first", argv[2], line);

	log = open(argv[1], O_RDONLY);
	if (log < 0)
		die("%s: %s", argv[1], strerror(errno));
	if (pread(log, &super, sizeof(super), 0) != sizeof(super) ||
	    super.magic != LW_MAGIC || super.sectorsize < 512 ||
	    super.sectorsize > 65536)
		die("%s: not a log in dm-log-writes' format", argv[1]);
	dev = open(argv[2], O_WRONLY | O_DIRECT);
	if (dev < 0 || ioctl(dev, BLKSSZGET, &lbs))
		die("%s: %s", argv[2], strerror(errno));
	if (lbs != super.sectorsize)
		die("%s counts %u-byte sectors, %s has %u-byte blocks: load sbd with hardsect_size=%u",
		    argv[1], super.sectorsize, argv[2], lbs, super.sectorsize);
	snprintf(path, sizeof(path), "/sys/kernel/debug/sbd/%s/fua", name);
	fua = open(path, O_WRONLY);
	if (fua < 0)
		die("%s: %s (is debugfs mounted?)", path, strerror(errno));
	max_io = queue_limit(name, "max_sectors_kb") * 1024;
	max_discard = queue_limit(name, "discard_max_bytes");
	max_zeroes = queue_limit(name, "write_zeroes_max_bytes");

	/* Where each entry is: its header block, then its data, if any. */
	n = super.nr_entries;
	ents = calloc(n ? n : 1, sizeof(*ents));
	order = calloc(n ? n : 1, sizeof(*order));
	block = malloc(super.sectorsize);
	if (!ents || !order || !block)
		die("out of memory for %" PRIu64 " entries", n);
	at = super.sectorsize;
	for (i = 0; i < n; i++) {
		if (pread(log, block, super.sectorsize, at) != super.sectorsize)
			die("%s: entry %" PRIu64 " is missing: the log ends early", argv[1], i);
		memcpy(&ents[i].e, block, sizeof(ents[i].e));
		ents[i].at = at;
		at += super.sectorsize;
		if (!(ents[i].e.flags & LW_DISCARD))
			at += ents[i].e.nr_sectors * super.sectorsize;
		order[i] = &ents[i];
	}
	npoints = n;

	/* MAP: "ENTRY POINT KIND[ fua][ again]", an entry per line. */
	if (argc == 4) {
		uint64_t e, p;
		char kind[16], rest[64];
		int got;

		map = fopen(argv[3], "r");
		if (!map)
			die("%s: %s", argv[3], strerror(errno));
		for (i = 0; fgets(line, sizeof(line), map); i++) {
			rest[0] = 0;
			got = sscanf(line, "%" SCNu64 " %" SCNu64 " %15s %63[^\n]",
				     &e, &p, kind, rest);
			if (got < 3 || e != i || e >= n || !p)
				die("%s, line %" PRIu64 ": not entry %" PRIu64 " of the log", argv[3], i + 1, i);
			ents[e].point = p;
			ents[e].again = !!strstr(rest, "again");
			ents[e].zeroes = !strcmp(kind, "zeroes");
		}
		fclose(map);
		if (i != n)
			die("%s maps %" PRIu64 " entries, the log has %" PRIu64, argv[3], i, n);
		/* Each point once: its entry, the one not logged again. */
		npoints = 0;
		for (i = 0; i < n; i++)
			if (!ents[i].again && ents[i].point > npoints)
				npoints = ents[i].point;
		memset(order, 0, n * sizeof(*order));
		for (i = 0; i < n; i++) {
			if (ents[i].again)
				continue;
			k = ents[i].point - 1;
			if (k >= n || order[k])
				die("%s: point %" PRIu64 " is mapped twice", argv[3], k + 1);
			order[k] = &ents[i];
		}
		for (k = 0; k < npoints; k++)
			if (!order[k])
				die("%s: no entry for point %" PRIu64, argv[3], k + 1);
	}

	before = recorded_points(sys);
	for (k = 0; k < npoints; k++) {
		struct entry *x = order[k];
		uint64_t flags = x->e.flags, pos = x->e.sector * super.sectorsize;
		uint64_t range[2] = { pos, x->e.nr_sectors * super.sectorsize };
		uint64_t idx = x - ents;

		bytes = flags & LW_DISCARD ? 0 : range[1];
		if (flags & LW_FLUSH) {
			if (fsync(dev))
				die("entry %" PRIu64 ": FLUSH: %s", idx, strerror(errno));
			expect++;
		}
		if (flags & LW_MARK) {
			int m;

			if (x->e.data_len < 1 || x->e.data_len > super.sectorsize - sizeof(x->e))
				die("entry %" PRIu64 ": a mark of %" PRIu64 " bytes", idx, x->e.data_len);
			if (pread(log, block, super.sectorsize, x->at) != super.sectorsize)
				die("%s: %s", argv[1], strerror(errno));
			snprintf(path, sizeof(path), "%s/mark", sys);
			m = open(path, O_WRONLY);
			if (m < 0 || write(m, block + sizeof(x->e), x->e.data_len) !=
				     (ssize_t)x->e.data_len || close(m))
				die("entry %" PRIu64 ": mark '%.*s': %s", idx, (int)x->e.data_len,
				    (char *)block + sizeof(x->e), strerror(errno));
			expect++;
			continue;
		}
		if (!range[1])
			continue;
		expect++;
		if (flags & LW_DISCARD || x->zeroes) {
			if (range[1] > (flags & LW_DISCARD ? max_discard : max_zeroes))
				die("entry %" PRIu64 ": a %s of %" PRIu64 " bytes, more than %s takes at once: "
				    "the block layer would split it", idx,
				    flags & LW_DISCARD ? "discard" : "write-zeroes", range[1], argv[2]);
			if (ioctl(dev, flags & LW_DISCARD ? BLKDISCARD : BLKZEROOUT, range))
				die("entry %" PRIu64 ": %s of %" PRIu64 "+%" PRIu64 ": %s", idx,
				    flags & LW_DISCARD ? "discard" : "write-zeroes",
				    pos, range[1], strerror(errno));
			continue;
		}
		if (bytes > max_io || (flags & LW_FUA && bytes > FUA_MAX))
			die("entry %" PRIu64 ": a %swrite of %" PRIu64 " bytes, more than %s takes at once "
			    "(max_sectors_kb %" PRIu64 "%s): the block layer would split it", idx,
			    flags & LW_FUA ? "FUA " : "", bytes, argv[2], max_io / 1024,
			    flags & LW_FUA ? ", and 1 MiB through debugfs' fua" : "");
		if (bytes > data_size) {
			free(data);
			data_size = bytes;
			if (posix_memalign((void **)&data, 4096, data_size))
				die("out of memory for %" PRIu64 " bytes", bytes);
		}
		if (pread(log, data, bytes, x->at + super.sectorsize) != (ssize_t)bytes)
			die("%s: entry %" PRIu64 "'s data ends early", argv[1], idx);
		if (pwrite(flags & LW_FUA ? fua : dev, data, bytes, pos) != (ssize_t)bytes)
			die("entry %" PRIu64 ": %swrite of %" PRIu64 "+%" PRIu64 ": %s", idx,
			    flags & LW_FUA ? "FUA " : "", pos, bytes, strerror(errno));
	}
	k = recorded_points(sys) - before;
	if (k != expect)
		die("%s recorded %" PRIu64 " points where the log has %" PRIu64
		    ": the recording is not the log's", argv[2], k, expect);
	printf("%s: %" PRIu64 " entries of %s recorded as %" PRIu64 " points\n",
	       prog, n, argv[1], k);
	return 0;
}
