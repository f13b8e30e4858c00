// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-model: an independent model of sbd's recorded crash states.
 *
 *   sbd-model play DEV SEED NOPS TRACE
 *	On DEV (an sbd disk with a recording on), run NOPS operations
 *	chosen by SEED: O_DIRECT writes, O_DSYNC (FUA) writes, fsyncs,
 *	marks, discards, zeroouts.  (With $SBD_MODEL_DISK=sbdN and
 *	$SBD_MODEL_DM=NAME, DEV is a dm-log-writes target NAME on sbdN:
 *	marks go to both.  With $SBD_MODEL_BLOCKS=N, only the first N
 *	blocks are written, so that writes overlap often.)  Each write's data is a function of
 *	(SEED, operation), so nothing but TRACE, one line per operation,
 *	needs keeping.
 *   sbd-model check DEV TRACE LISTING POLICY...
 *	LISTING is sbd's list of points (debugfs sbd/sbdN/points).  First
 *	check it against TRACE: the same writes, in order, with the same
 *	ranges, FUA flags and marks (an O_DSYNC write is a FUA write and
 *	then a FLUSH: the fsync O_DSYNC implies).  Then, for every point and
 *	each POLICY ("none", "all", "random:SEED:PERCENT", "torn:SEED";
 *	with "@odd" or "@even" after it, the visit's "only" list is the
 *	odd or even numbered of the writes whose fates the policy decides,
 *	at most 128 of them; with "@lose", the visit loses the newest write
 *	that the state keeps whatever the policy and that no later write
 *	touches, and a visit losing the newest other write is refused),
 *	visit it through sysfs and compare the disk,
 *	block by block, with the image this program computes, and the
 *	disk's debugfs "fates" with the writes the model loses or tears;
 *	after each point, go back to the
 *	end and compare that with the end image; last, visit every point
 *	from the newest down with "all" and no return in between.
 *
 * The image of (P, policy): every write up to the last FLUSH at or
 * before P, then of the writes after it up to P, oldest first, the FUA
 * ones and what the policy keeps: a write's fate comes from splitmix64
 * seeded with SEED ^ (P * 0xd6e8feb86659fd93), as sbd documents; a torn
 * write keeps each block on one more draw.  Prints "ok ..." lines and
 * "bad ..." lines (at most a few per kind); exits 1 on any "bad".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

enum kind { WRITE, DISCARD, ZEROES, FLUSH, MARK };
static const char *const kind_names[] = { "write", "discard", "zeroes", "flush", "mark" };

struct point {
	enum kind kind;
	uint64_t pos, len;
	int fua;
	uint64_t data_seed;	/* writes: their data */
	char name[40];		/* marks */
};

static uint64_t splitmix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void fill(unsigned char *buf, uint64_t len, uint64_t seed)
{
	uint64_t st = seed, v, i;

	for (i = 0; i < len; i += 8) {
		v = splitmix(&st);
		memcpy(buf + i, &v, 8);
	}
}

static int bad_count;

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
	va_list ap;

	if (++bad_count > 20)
		return;
	va_start(ap, fmt);
	printf("bad ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

static void *xalloc(size_t n)
{
	void *p;

	if (posix_memalign(&p, 65536, n ? n : 1)) {
		perror("posix_memalign");
		exit(2);
	}
	return p;
}

/*
 * The sbd disk under DEV: DEV's own name, or $SBD_MODEL_DISK when DEV is
 * stacked on it (a device-mapper target).
 */
static const char *disk_name(const char *dev)
{
	const char *name = getenv("SBD_MODEL_DISK");

	if (name)
		return name;
	name = strrchr(dev, '/');
	return name ? name + 1 : dev;
}

/* /sys/block/NAME/sbd/FILE for DEV=/dev/NAME */
static void sys_path(char *out, size_t n, const char *dev, const char *file)
{
	snprintf(out, n, "/sys/block/%s/sbd/%s", disk_name(dev), file);
}

static int sys_write(const char *dev, const char *file, const char *text)
{
	char path[256];
	int fd, ret = 0;

	sys_path(path, sizeof(path), dev, file);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	return ret;
}

static uint64_t dev_size, block;

static void dev_geometry(int fd, const char *dev)
{
	char path[256];
	FILE *f;

	if (ioctl(fd, BLKGETSIZE64, &dev_size)) {
		perror("BLKGETSIZE64");
		exit(2);
	}
	snprintf(path, sizeof(path), "/sys/block/%s/queue/logical_block_size",
		 disk_name(dev));
	f = fopen(path, "r");
	if (!f || fscanf(f, "%" SCNu64, &block) != 1) {
		perror(path);
		exit(2);
	}
	fclose(f);
}

static int play(const char *dev, uint64_t seed, int nops, const char *trace)
{
	int fd = open(dev, O_RDWR | O_DIRECT), fd_sync = open(dev, O_RDWR | O_DIRECT | O_DSYNC);
	uint64_t st = seed, blocks, r, pos, len, range[2], limit = 0;
	FILE *out = fopen(trace, "w");
	unsigned char *buf;
	char name[40];
	int i;

	if (fd < 0 || fd_sync < 0 || !out) {
		perror("play: open");
		return 2;
	}
	dev_geometry(fd, dev);
	blocks = dev_size / block;
	/* $SBD_MODEL_BLOCKS=N (0: all): the first N blocks, so that writes overlap. */
	if (getenv("SBD_MODEL_BLOCKS"))
		limit = strtoull(getenv("SBD_MODEL_BLOCKS"), NULL, 10);
	if (limit && limit < blocks)
		blocks = limit;
	buf = xalloc(16 * block);
	for (i = 0; i < nops; i++) {
		r = splitmix(&st) % 100;
		pos = splitmix(&st) % blocks;
		len = 1 + splitmix(&st) % 16;
		if (pos + len > blocks)
			len = blocks - pos;
		pos *= block;
		len *= block;
		if (r < 55) {
			fill(buf, len, seed * 1000003 + i);
			if (pwrite(fd, buf, len, pos) != (ssize_t)len)
				goto fail;
			fprintf(out, "write %" PRIu64 " %" PRIu64 " 0 %" PRIu64 "\n",
				pos, len, seed * 1000003 + i);
		} else if (r < 65) {
			fill(buf, len, seed * 1000003 + i);
			if (pwrite(fd_sync, buf, len, pos) != (ssize_t)len)
				goto fail;
			/* A FUA write, then the FLUSH of the fsync O_DSYNC implies. */
			fprintf(out, "write %" PRIu64 " %" PRIu64 " 1 %" PRIu64 "\nflush\n",
				pos, len, seed * 1000003 + i);
		} else if (r < 80) {
			if (fsync(fd))
				goto fail;
			fprintf(out, "flush\n");
		} else if (r < 90) {
			snprintf(name, sizeof(name), "m%d", i);
			if (sys_write(dev, "mark", name))
				goto fail;
			/* $SBD_MODEL_DM: a dm-log-writes target on top marks too. */
			if (getenv("SBD_MODEL_DM")) {
				char cmd[128];

				snprintf(cmd, sizeof(cmd), "dmsetup message %s 0 mark %s",
					 getenv("SBD_MODEL_DM"), name);
				if (system(cmd))
					goto fail;
			}
			fprintf(out, "mark %s\n", name);
		} else {
			range[0] = pos;
			range[1] = len;
			if (ioctl(fd, r < 95 ? BLKDISCARD : BLKZEROOUT, range))
				goto fail;
			fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n",
				r < 95 ? "discard" : "zeroes", pos, len);
		}
	}
	fclose(out);
	printf("ok played %d operations\n", nops);
	return 0;
fail:
	printf("bad operation %d failed: %s\n", i, strerror(errno));
	return 1;
}

/* Open a trace or listing; a file that is not there ends the run. */
static FILE *open_or_exit(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(2);
	}
	return f;
}

/* Append P to the growing array *T of *N points (room for *CAP). */
static void append_point(struct point **t, int *n, int *cap, const struct point *p)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*t = realloc(*t, *cap * sizeof(**t));
		if (!*t) {
			perror("realloc");
			exit(2);
		}
	}
	(*t)[(*n)++] = *p;
}

static struct point *read_trace(const char *path, int *n)
{
	struct point *t = NULL;
	char line[256], word[16];
	FILE *f = open_or_exit(path);
	int cap = 0;

	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		struct point p = { 0 };

		if (sscanf(line, "%15s", word) != 1)
			continue;
		if (!strcmp(word, "write")) {
			p.kind = WRITE;
			sscanf(line, "%*s %" SCNu64 " %" SCNu64 " %d %" SCNu64,
			       &p.pos, &p.len, &p.fua, &p.data_seed);
		} else if (!strcmp(word, "discard") || !strcmp(word, "zeroes")) {
			p.kind = word[0] == 'd' ? DISCARD : ZEROES;
			sscanf(line, "%*s %" SCNu64 " %" SCNu64, &p.pos, &p.len);
		} else if (!strcmp(word, "flush")) {
			p.kind = FLUSH;
		} else if (!strcmp(word, "mark")) {
			p.kind = MARK;
			sscanf(line, "%*s %39s", p.name);
		} else {
			continue;
		}
		append_point(&t, n, &cap, &p);
	}
	fclose(f);
	return t;
}

/* sbd's listing: "K write POS LEN [fua]", "K flush", "K mark NAME". */
static struct point *read_listing(const char *path, int *n)
{
	struct point *t = NULL;
	char line[256], word[16], extra[40];
	unsigned long long k;
	FILE *f = open_or_exit(path);
	int cap = 0;

	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		struct point p = { 0 };
		int got;

		extra[0] = 0;
		got = sscanf(line, "%llu %15s", &k, word);
		if (got != 2 || k != (unsigned long long)*n + 1) {
			bad("listing: line %d reads \"%.60s\"", *n + 1, line);
			break;
		}
		if (!strcmp(word, "flush")) {
			p.kind = FLUSH;
		} else if (!strcmp(word, "mark")) {
			p.kind = MARK;
			sscanf(line, "%*u %*s %39s", p.name);
		} else {
			p.kind = !strcmp(word, "write") ? WRITE :
				 !strcmp(word, "discard") ? DISCARD : ZEROES;
			sscanf(line, "%*u %*s %" SCNu64 " %" SCNu64 " %39s",
			       &p.pos, &p.len, extra);
			p.fua = !strcmp(extra, "fua");
		}
		append_point(&t, n, &cap, &p);
	}
	fclose(f);
	return t;
}

static void apply(unsigned char *img, const struct point *p, uint64_t from, uint64_t to,
		  unsigned char *scratch)
{
	uint64_t off = from * block, len = (to - from) * block;

	if (p->kind == WRITE) {
		fill(scratch, p->len, p->data_seed);
		memcpy(img + p->pos + off, scratch + off, len);
	} else {
		memset(img + p->pos + off, 0, len);
	}
}

struct policy {
	int kind;	/* 0 none, 1 all, 2 random, 3 torn */
	uint64_t seed;
	unsigned int percent;
	char text[64];
	int only;	/* 0: no list; 1: the odd writes, 2: the even ones */
	int lose;	/* "@lose" */
};

#define ONLY_MAX	128

static int parse_policy(const char *arg, struct policy *pol)
{
	char *at;

	memset(pol, 0, sizeof(*pol));
	at = strchr(arg, '@');
	if (at) {
		char head[64];

		if (strcmp(at, "@odd") && strcmp(at, "@even") && strcmp(at, "@lose"))
			return -1;
		snprintf(head, sizeof(head), "%.*s", (int)(at - arg), arg);
		if (parse_policy(head, pol))
			return -1;
		if (at[1] == 'l')
			pol->lose = 1;
		else
			pol->only = at[1] == 'o' ? 1 : 2;
		return 0;
	}
	if (!strcmp(arg, "none")) {
		strcpy(pol->text, "none");
	} else if (!strcmp(arg, "all")) {
		pol->kind = 1;
		strcpy(pol->text, "all");
	} else if (sscanf(arg, "random:%" SCNu64 ":%u", &pol->seed, &pol->percent) == 2) {
		pol->kind = 2;
		snprintf(pol->text, sizeof(pol->text), "random %" PRIu64 " %u",
			 pol->seed, pol->percent);
	} else if (sscanf(arg, "torn:%" SCNu64, &pol->seed) == 1) {
		pol->kind = 3;
		snprintf(pol->text, sizeof(pol->text), "torn %" PRIu64, pol->seed);
	} else {
		return -1;
	}
	return 0;
}

/* The last FLUSH at or before P, or 0. */
static int durable(const struct point *pts, int P)
{
	while (P > 0 && pts[P - 1].kind != FLUSH)
		P--;
	return P;
}

/*
 * The "only" list of (P, pol) into @list (ONLY_MAX): the odd or even
 * numbered writes without FUA after the last FLUSH, up to P.  Returns
 * how many: 0 means no list.
 */
static int only_list(const struct point *pts, int P, const struct policy *pol,
		     int *list)
{
	int k, n = 0;

	if (!pol || !pol->only)
		return 0;
	for (k = durable(pts, P) + 1; k <= P && n < ONLY_MAX; k++)
		if (pts[k - 1].kind <= ZEROES && !pts[k - 1].fua &&
		    k % 2 == (pol->only == 1))
			list[n++] = k;
	return n;
}

/*
 * The newest write up to P that (P, any policy) keeps whole (at or
 * before the last FLUSH, or FUA) and that no later write up to P
 * touches, if @eligible; else the newest other write.  0 if none.
 */
static int lose_target(const struct point *pts, int P, int eligible)
{
	int k, j, ok;

	for (k = P; k >= 1; k--) {
		const struct point *p = &pts[k - 1];

		if (p->kind > ZEROES)
			continue;
		ok = k <= durable(pts, P) || p->fua;
		for (j = k + 1; j <= P && ok; j++)
			if (pts[j - 1].kind <= ZEROES && pts[j - 1].pos < p->pos + p->len &&
			    p->pos < pts[j - 1].pos + pts[j - 1].len)
				ok = 0;
		if (ok == eligible)
			return k;
	}
	return 0;
}

static int in_list(const int *list, int n, int k)
{
	while (n--)
		if (list[n] == k)
			return 1;
	return 0;
}

/*
 * The image of (P, pol) over @pts; @pol NULL: everything up to P.  With
 * @fates, "K lost" / "K torn" lines for the writes not kept whole.
 * Write @lose (0: none) is never stored: its blocks keep what the state
 * had there before it.
 */
static void model(unsigned char *img, const struct point *pts, int P,
		  const struct policy *pol, unsigned char *scratch, char *fates,
		  int lose)
{
	int base = P, k, list[ONLY_MAX], nlist = only_list(pts, P, pol, list);

	memset(img, 0, dev_size);
	if (fates)
		fates[0] = 0;
	if (pol)
		base = durable(pts, P);
	for (k = 1; k <= P; k++) {
		const struct point *p = &pts[k - 1];
		uint64_t blocks = p->len / block, rnd, b;
		int fate;	/* 0 lost, 1 kept, 2 torn */

		if (p->kind == FLUSH || p->kind == MARK)
			continue;
		if (k == lose)
			continue;
		if (k <= base || p->fua) {
			apply(img, p, 0, blocks, scratch);
			continue;
		}
		rnd = pol->seed ^ ((uint64_t)k * 0xd6e8feb86659fd93ULL);
		switch (nlist && !in_list(list, nlist, k) ? 1 : pol->kind) {
		case 1:
			fate = 1;
			break;
		case 2:
			fate = splitmix(&rnd) % 100 < pol->percent;
			break;
		case 3:
			if (splitmix(&rnd) % 2)
				fate = 0;
			else
				fate = blocks > 1 && splitmix(&rnd) % 2 ? 2 : 1;
			break;
		default:
			fate = 0;
		}
		if (fates && fate != 1)
			sprintf(fates + strlen(fates), "%d %s\n", k, fate ? "torn" : "lost");
		if (fate == 1)
			apply(img, p, 0, blocks, scratch);
		else if (fate == 2)
			for (b = 0; b < blocks; b++)
				if (splitmix(&rnd) % 2)
					apply(img, p, b, b + 1, scratch);
	}
}

static int read_dev(const char *dev, unsigned char *buf)
{
	int fd = open(dev, O_RDONLY | O_DIRECT);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = pread(fd, buf, dev_size, 0);
	close(fd);
	return got == (ssize_t)dev_size ? 0 : -1;
}

static long compared, states;

/* Visit (P, pol) (or the end), and compare the disk with the model. */
static void visit_and_compare(const char *dev, const struct point *pts, int n, int P,
			      const struct policy *pol, unsigned char *want,
			      unsigned char *got, unsigned char *scratch)
{
	static char cmd[4096], fates[65536], got_fates[65536];
	int list[ONLY_MAX], nlist = only_list(pts, P, pol, list), i;
	int lose = pol && pol->lose ? lose_target(pts, P, 1) : 0;
	int refused = pol && pol->lose ? lose_target(pts, P, 0) : 0;
	uint64_t b;
	int err;

	if (refused) {
		snprintf(cmd, sizeof(cmd), "%d %s lose %d", P, pol->text, refused);
		err = sys_write(dev, "visit", cmd);
		if (err != -EINVAL)
			bad("visit \"%s\": %s, not Invalid argument", cmd,
			    err ? strerror(-err) : "accepted");
	}
	if (pol)
		snprintf(cmd, sizeof(cmd), "%d %s%s", P, pol->text, nlist ? " only" : "");
	else
		snprintf(cmd, sizeof(cmd), "end");
	for (i = 0; i < nlist; i++)
		sprintf(cmd + strlen(cmd), " %d", list[i]);
	if (lose)
		sprintf(cmd + strlen(cmd), " lose %d", lose);
	err = sys_write(dev, "visit", cmd);
	if (err) {
		bad("visit \"%s\": %s", cmd, strerror(-err));
		return;
	}
	model(want, pts, pol ? P : n, pol, scratch, pol ? fates : NULL, lose);
	if (pol) {
		char path[128];
		FILE *f;
		size_t got_len;

		snprintf(path, sizeof(path), "/sys/kernel/debug/sbd/%s/fates", disk_name(dev));
		f = fopen(path, "r");
		got_len = f ? fread(got_fates, 1, sizeof(got_fates) - 1, f) : 0;
		got_fates[got_len] = 0;
		if (!f)
			bad("visit \"%s\": cannot read %s", cmd, path);
		else if (strcmp(fates, got_fates))
			bad("visit \"%s\": fates \"%.80s\", the model's \"%.80s\"", cmd,
			    got_fates, fates);
		if (f)
			fclose(f);
	}
	if (read_dev(dev, got)) {
		bad("visit \"%s\": reading the disk failed", cmd);
		return;
	}
	states++;
	for (b = 0; b < dev_size / block; b++) {
		compared++;
		if (memcmp(want + b * block, got + b * block, block)) {
			bad("visit \"%s\": block %" PRIu64 " differs from the model", cmd, b);
			break;
		}
	}
}

static int check(const char *dev, const char *trace, const char *listing,
		 int npol, char **pol_args)
{
	struct point *tr, *ls;
	int ntr, nls, i, j, P;
	unsigned char *want, *got, *scratch;
	struct policy *pols = calloc(npol, sizeof(*pols));
	int fd = open(dev, O_RDONLY);

	if (fd < 0) {
		perror(dev);
		return 2;
	}
	dev_geometry(fd, dev);
	close(fd);
	for (i = 0; i < npol; i++)
		if (parse_policy(pol_args[i], &pols[i])) {
			fprintf(stderr, "bad policy %s\n", pol_args[i]);
			return 2;
		}
	tr = read_trace(trace, &ntr);
	ls = read_listing(listing, &nls);
	/* The listing must be the trace. */
	for (i = 0, j = 0; i < ntr && j < nls; i++, j++) {
		const struct point *a = &tr[i], *b = &ls[j];

		if (a->kind != b->kind || a->pos != b->pos || a->len != b->len ||
		    a->fua != b->fua || strcmp(a->name, b->name)) {
			bad("listing: point %d is %s %" PRIu64 " %" PRIu64 "%s %s, the trace's operation %d is %s %" PRIu64 " %" PRIu64 "%s %s",
			    j + 1, kind_names[b->kind], b->pos, b->len, b->fua ? " fua" : "", b->name,
			    i + 1, kind_names[a->kind], a->pos, a->len, a->fua ? " fua" : "", a->name);
			return 1;
		}
		ls[j].data_seed = a->data_seed;
	}
	if (i != ntr || j != nls) {
		bad("listing: %d points for %d operations: %d and %d matched", nls, ntr, j, i);
		return 1;
	}
	printf("ok listing: %d points match the %d operations\n", nls, ntr);

	want = xalloc(dev_size);
	got = xalloc(dev_size);
	scratch = xalloc(16 * 65536);
	for (P = 0; P <= nls; P++) {
		for (i = 0; i < npol; i++)
			visit_and_compare(dev, ls, nls, P, &pols[i], want, got, scratch);
		visit_and_compare(dev, ls, nls, nls, NULL, want, got, scratch);
	}
	parse_policy("all", &pols[0]);
	for (P = nls; P >= 0; P--)
		visit_and_compare(dev, ls, nls, P, &pols[0], want, got, scratch);
	visit_and_compare(dev, ls, nls, nls, NULL, want, got, scratch);
	printf("%s states: %ld visited, %ld blocks compared, %d differences\n",
	       bad_count ? "bad" : "ok", states, compared, bad_count);
	return bad_count ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "play"))
		return play(argv[2], strtoull(argv[3], NULL, 10), atoi(argv[4]), argv[5]);
	if (argc >= 6 && !strcmp(argv[1], "check"))
		return check(argv[2], argv[3], argv[4], argc - 5, argv + 5);
	fprintf(stderr, "usage: sbd-model play DEV SEED NOPS TRACE\n"
			"       sbd-model check DEV TRACE LISTING POLICY...\n");
	return 2;
}
