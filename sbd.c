// SPDX-License-Identifier: GPL-2.0
/*
 * sbd - a simple block device: a RAM disk on blk-mq.
 *
 * This is the "sbd" of LWN's 2003 "Driver porting: a simple block driver",
 * redone for today's block layer.  The shape is the same: a vmalloc'ed
 * store, a major number, a gendisk, and a function that copies each
 * request to or from the store under a spinlock.  What changed is the
 * plumbing around it; sbd.h holds the few places where kernels differ.
 *
 * Beyond the article, sbd can create several disks of different sizes,
 * make them read-only, and fail I/O to sectors marked bad through sysfs,
 * which is what filesystem and storage-stack testers need.  With a
 * volatile write cache (cache_mb=), a test can cut a disk's power and
 * see which writes a real drive could have lost.
 *
 * Read it top to bottom: parameters, the request path, the volatile
 * write cache, sysfs, device set-up, module init and exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/spinlock.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/ctype.h>
#include <linux/string.h>
#include <linux/mutex.h>
#include <linux/bitmap.h>
#include <linux/ktime.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "sbd.h"

#define SBD_NAME		"sbd"
/* Minor numbers per disk: the disk itself and up to 15 partitions. */
#define SBD_MINORS		16
/* Without nsectors=, a disk is 64 MiB whatever its block size. */
#define SBD_DEFAULT_BYTES	SZ_64M
#define SBD_DEFAULT_SECT_SIZE	512
/*
 * Largest request the block layer may send us.  A RAM disk has no
 * transfer limit of its own; without one, max_hw_sectors would default
 * to 255 sectors.  4 MiB keeps each request's time under the lock short.
 */
#define SBD_MAX_REQUEST_SECTORS	(SZ_4M >> SECTOR_SHIFT)
#define SBD_MAX_SEGMENTS	(SZ_4M >> PAGE_SHIFT)
/* Discard and write-zeroes memset the range: bound each request too. */
#define SBD_MAX_ZERO_SECTORS	(SZ_64M >> SECTOR_SHIFT)
/*
 * With a write cache, a discard or write-zeroes also copies what it
 * overwrites into the log, all under the disk's lock: no more than a
 * write may (SBD_MAX_REQUEST_SECTORS), so that no request holds the
 * lock for more than 4 MiB of log and 4 MiB of store.
 */
#define SBD_MAX_CACHED_ZERO_SECTORS	SBD_MAX_REQUEST_SECTORS
/*
 * Requests, discards and write-zeroes are whole logical blocks: each
 * limit must be a whole number of the largest block sbd accepts.
 */
static_assert(SBD_MAX_REQUEST_SECTORS % (SBD_MAX_BLOCK_SIZE >> SECTOR_SHIFT) == 0);
static_assert(SBD_MAX_ZERO_SECTORS % (SBD_MAX_BLOCK_SIZE >> SECTOR_SHIFT) == 0);
static_assert(SBD_DEFAULT_BYTES % SBD_MAX_BLOCK_SIZE == 0);
#define SBD_QUEUE_DEPTH		128
/* Each disk takes SBD_MINORS minors; 64 disks is plenty for testing. */
#define SBD_MAX_DEVICES		64	/* keep in MODULE_PARM_DESC(ndevices) */
/* cache_mb is bounded by RAM; this only keeps MiB-to-bytes from overflowing. */
#define SBD_MAX_CACHE_MB	1048576		/* 1 TiB */

/* ------------------------------------------------------------------ */
/* Module parameters                                                   */
/* ------------------------------------------------------------------ */

/*
 * Parameters are parsed when given but judged in sbd_check_params(), so
 * that every bad value, a non-number included, is refused with one line
 * naming the parameter, the value and what is allowed.  (The stock
 * integer parsers fail before init with a generic message, and -ERANGE
 * instead of -EINVAL for an overflow.)
 */
struct sbd_param {
	u64 value;
	bool parsed;		/* false if the text was not a valid value */
	bool given;		/* on the command line, not the default */
	char text[24];		/* as the user typed it, for messages */
};

/*
 * The one number parser, for module parameters and sysfs files alike:
 * the @len characters at @s must be decimal digits, nothing else, and
 * fit in a u64.  kstrtou64() alone would also take a leading "+" and a
 * trailing newline, and base 0 would read "010" as 8 and take "0x10".
 * More than 20 digits is refused, leading zeros or not, so that a
 * caller that splits its input into tokens never cuts one in two.
 */
static bool sbd_parse_decimal(const char *s, size_t len, u64 *value)
{
	char digits[21];	/* U64_MAX has 20 */
	size_t i;

	if (!len || len >= sizeof(digits))
		return false;
	for (i = 0; i < len; i++)
		if (!isdigit(s[i]))
			return false;
	memcpy(digits, s, len);
	digits[len] = '\0';
	return !kstrtou64(digits, 10, value);
}

static void sbd_param_keep_text(struct sbd_param *p, const char *val)
{
	strscpy(p->text, val, sizeof(p->text));
	p->given = true;
}

static int sbd_param_set(const char *val, const struct kernel_param *kp)
{
	struct sbd_param *p = kp->arg;

	sbd_param_keep_text(p, val);
	p->parsed = sbd_parse_decimal(val, strlen(val), &p->value);
	return 0;
}

/*
 * Not sysfs_emit(): for the sizes= array this writes each element at an
 * offset into the page, as the kernel's own param_get_*() do.  The
 * newline is part of the format: arrays turn it into the separator.
 */
static int sbd_param_get(char *buf, const struct kernel_param *kp)
{
	const struct sbd_param *p = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%llu\n", p->value);
}

static const struct kernel_param_ops sbd_param_ops = {
	.set = sbd_param_set,
	.get = sbd_param_get,
};

/* Without nsectors=, sbd_check_params() sets it to 64 MiB of sectors. */
static struct sbd_param nsectors = { .parsed = true };
module_param_cb(nsectors, &sbd_param_ops, &nsectors, 0444);
__MODULE_PARM_TYPE(nsectors, "ullong");
MODULE_PARM_DESC(nsectors,
		 "Size of each disk in hardsect_size-byte sectors (default: 64 MiB, i.e. 131072 at 512 bytes, 16384 at 4096)");

static struct sbd_param hardsect_size = {
	.value = SBD_DEFAULT_SECT_SIZE, .parsed = true,
};
module_param_cb(hardsect_size, &sbd_param_ops, &hardsect_size, 0444);
__MODULE_PARM_TYPE(hardsect_size, "uint");
MODULE_PARM_DESC(hardsect_size,
		 "Logical block size in bytes: a power of two from 512 to "
		 SBD_MAX_BLOCK_TEXT " (default 512)");

static struct sbd_param ndevices = { .value = 1, .parsed = true };
module_param_cb(ndevices, &sbd_param_ops, &ndevices, 0444);
__MODULE_PARM_TYPE(ndevices, "uint");
MODULE_PARM_DESC(ndevices,
		 "Number of disks, sbd0 to sbdN-1: 1 to 64 (default 1)");

/* "4096", "64M", "1G": bytes, with an optional K, M, G or T suffix. */
static bool sbd_parse_bytes(const char *text, u64 *bytes)
{
	static const char suffixes[] = "KMGT";
	size_t len = strlen(text);
	unsigned int shift = 0;
	const char *suffix;

	suffix = len ? strchr(suffixes, toupper(text[len - 1])) : NULL;
	if (suffix) {
		shift = 10 * (suffix - suffixes + 1);
		len--;
	}
	return sbd_parse_decimal(text, len, bytes) &&
	       !check_shl_overflow(*bytes, shift, bytes);
}

static int sbd_size_param_set(const char *val, const struct kernel_param *kp)
{
	struct sbd_param *p = kp->arg;

	sbd_param_keep_text(p, val);
	p->parsed = sbd_parse_bytes(val, &p->value);
	return 0;
}

/* One element of the sizes= array; module_param_array() wants these names. */
static const struct kernel_param_ops param_ops_sbd_size = {
	.set = sbd_size_param_set,
	.get = sbd_param_get,
};

#define param_check_sbd_size(name, p) __param_check(name, p, struct sbd_param)

static struct sbd_param sizes[SBD_MAX_DEVICES];
static unsigned int nr_sizes;
module_param_array(sizes, sbd_size, &nr_sizes, 0444);
MODULE_PARM_DESC(sizes,
		 "Per-disk sizes in bytes with optional K/M/G/T suffix, e.g. 64M,1G; other disks use nsectors (default: none)");

/*
 * readonly= takes exactly what the README lists.  The stock bool parser
 * would accept "yes", "off" or "nonsense" (it reads one letter) and
 * refuse anything else before init, without sbd's message.
 */
static int sbd_bool_param_set(const char *val, const struct kernel_param *kp)
{
	struct sbd_param *p = kp->arg;

	/* A bare "readonly", as for any bool parameter, means Y. */
	if (!val)
		val = "Y";
	sbd_param_keep_text(p, val);
	p->parsed = sysfs_streq(val, "1") || sysfs_streq(val, "Y") ||
		    sysfs_streq(val, "y");
	p->value = p->parsed;
	if (sysfs_streq(val, "0") || sysfs_streq(val, "N") ||
	    sysfs_streq(val, "n"))
		p->parsed = true;
	return 0;
}

static int sbd_bool_param_get(char *buf, const struct kernel_param *kp)
{
	const struct sbd_param *p = kp->arg;

	return sysfs_emit(buf, "%c\n", p->value ? 'Y' : 'N');
}

static const struct kernel_param_ops sbd_bool_param_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = sbd_bool_param_set,
	.get = sbd_bool_param_get,
};

static struct sbd_param readonly = { .value = 0, .parsed = true };
module_param_cb(readonly, &sbd_bool_param_ops, &readonly, 0444);
__MODULE_PARM_TYPE(readonly, "bool");
MODULE_PARM_DESC(readonly,
		 "Make every disk read-only from load time: 0/1 or N/Y (default N)");

static struct sbd_param cache_mb = { .value = 0, .parsed = true };
module_param_cb(cache_mb, &sbd_param_ops, &cache_mb, 0444);
__MODULE_PARM_TYPE(cache_mb, "uint");
MODULE_PARM_DESC(cache_mb,
		 "Volatile write cache of each disk in MiB, which sysfs can power-cut; 0 for none (default 0)");

/* ------------------------------------------------------------------ */
/* The device                                                          */
/* ------------------------------------------------------------------ */

/* What a power cut does to the writes that are not yet durable. */
enum sbd_cut_policy {
	SBD_CUT_NONE,		/* none of them survives */
	SBD_CUT_ALL,		/* all survive */
	SBD_CUT_RANDOM,		/* each survives with @percent probability */
	SBD_CUT_TORN,		/* half survive, some only in part */
};

struct sbd_policy {
	enum sbd_cut_policy kind;
	u64 seed;		/* random and torn */
	unsigned int percent;	/* random */
};

struct sbd_record;

/*
 * The volatile write cache of a disk loaded with cache_mb > 0, kept as
 * an undo log of the writes that are not durable yet (see "The volatile
 * write cache" below).  @log is NULL on a disk without one.
 */
struct sbd_cache {
	/*
	 * The log: a ring of entries, oldest at @first, and apart from it a
	 * ring of the bytes they saved, so that whole pages stay whole.
	 */
	struct sbd_log_entry *entries;	/* @max_entries of them */
	size_t max_entries;
	size_t first;		/* index of the oldest entry */
	size_t count;		/* entries in the log; 0: all writes durable */
	u8 *log;		/* vmalloc'ed ring of saved bytes */
	size_t size;		/* bytes in @log */
	size_t head;		/* where the oldest saved bytes start */
	size_t tail;		/* where the next saved bytes go */
	size_t end;		/* while @wrapped, where the bytes from @head end */
	bool wrapped;		/* saved bytes run @head..@end, then 0..@tail */
	bool off;		/* power cut: every request fails */
	/*
	 * A bit per logical block, all clear between cuts, for the cut's
	 * walk (sbd_cache_rollback()).  Allocated at load, so that a cut
	 * never fails for want of memory.
	 */
	unsigned long *pinned;
	/* Counters for cache_stats, under the disk's lock. */
	u64 unflushed_bytes, flushes, fua_writes, fua_bytes;
	u64 destaged_bytes, cuts;
	u64 last_cut_ns;
	/* The power switch, the policy and the recording, under @mutex. */
	struct mutex mutex;
	struct sbd_policy policy;
	struct sbd_record *rec;	/* NULL: not recorded */
	u64 recordings;		/* started so far: tells recordings apart */
};

struct sbd_device {
	u64 size;			/* bytes */
	unsigned int sect_size;		/* logical block size, bytes */
	u8 *store;			/* vmalloc'ed, @size bytes */
	spinlock_t lock;		/* serializes access to @store, @cache */
	struct sbd_cache cache;		/* volatile write cache, if any */
	struct badblocks badblocks;	/* sectors that fail all I/O */
	struct mutex badblocks_edit_lock; /* one sysfs edit at a time */
	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
	bool added;			/* add_disk() succeeded */
	struct dentry *debugfs;		/* sbd/sbdN/, on a disk with a cache */
	struct completion released;	/* the gendisk's last reference is gone */
};

static int sbd_major;
static struct dentry *sbd_debugfs;	/* /sys/kernel/debug/sbd */
static struct sbd_device *sbd_devices;
static unsigned int sbd_ndevices;

/* ------------------------------------------------------------------ */
/* The request path                                                    */
/* ------------------------------------------------------------------ */

/*
 * Copy a READ or WRITE between the request's pages and the store.
 * rq_for_each_segment() yields single-page segments, which is what the
 * memcpy_*_bvec() helpers (kmap_local inside) expect.  The lock is held
 * per segment: long enough that no reader sees a half-written segment,
 * short enough that a 4 MiB request does not stall the other queues.
 *
 * A segment that is a whole page on both sides (page cache and O_DIRECT
 * I/O of 4 KiB and up, at 4 KiB offsets) is copied with copy_page(), the
 * architecture's page copy, which no kernel's memcpy() beats for a whole
 * page (bench/experiments has the figures); anything else with memcpy().
 */
static void sbd_copy_seg(u8 *mem, struct bio_vec *bvec, u64 pos, bool write)
{
	if (bvec->bv_len == PAGE_SIZE && !bvec->bv_offset &&
	    PAGE_ALIGNED(pos)) {
		void *page = kmap_local_page(bvec->bv_page);

		if (write)
			copy_page(mem, page);
		else
			copy_page(page, mem);
		kunmap_local(page);
	} else if (write) {
		memcpy_from_bvec(mem, bvec);
	} else {
		memcpy_to_bvec(bvec, mem);
	}
}

static void sbd_copy_rq(struct sbd_device *dev, struct request *rq, u64 pos)
{
	bool write = op_is_write(req_op(rq));
	struct req_iterator iter;
	struct bio_vec bvec;

	rq_for_each_segment(bvec, rq, iter) {
		spin_lock(&dev->lock);
		sbd_copy_seg(dev->store + pos, &bvec, pos, write);
		spin_unlock(&dev->lock);
		/* Segments need not be whole sectors: advance by bytes. */
		pos += bvec.bv_len;
	}
}

/* DISCARD and WRITE_ZEROES: the range reads back as zeros afterwards. */
static void sbd_zero_range(struct sbd_device *dev, u64 pos, u32 len)
{
	while (len) {
		/* A page at a time, so the lock is never held for long. */
		u32 chunk = min_t(u32, len, PAGE_SIZE - offset_in_page(pos));

		spin_lock(&dev->lock);
		memset(dev->store + pos, 0, chunk);
		spin_unlock(&dev->lock);
		pos += chunk;
		len -= chunk;
	}
}

/* In "The volatile write cache", below: writes to a disk with a cache. */
static blk_status_t sbd_cache_write(struct sbd_device *dev, struct request *rq,
				    u64 pos, u32 len);
static blk_status_t sbd_cache_flush(struct sbd_device *dev);

/*
 * May a request that carries data touch the store?  Its range, injected
 * bad sectors and the read-only switch, in one place for every such
 * request.  A failed request changes nothing.
 */
static blk_status_t sbd_check_rq(struct sbd_device *dev, struct request *rq,
				 u64 pos, u32 len)
{
	/* Written so it cannot overflow: no request leaves the store. */
	if (pos > dev->size || len > dev->size - pos)
		return BLK_STS_IOERR;
	/* Injected bad sectors fail the whole request, data untouched. */
	if (unlikely(READ_ONCE(dev->badblocks.count)) &&
	    sbd_badblocks_hit(&dev->badblocks, blk_rq_pos(rq),
			      blk_rq_sectors(rq)))
		return BLK_STS_IOERR;
	/*
	 * The block layer refuses user writes to a read-only disk; this
	 * makes sure nothing else (a filesystem mounted before blockdev
	 * --setro, which the block layer only warns about) changes one.
	 */
	if (op_is_write(req_op(rq)) && get_disk_ro(dev->disk))
		return BLK_STS_IOERR;
	return BLK_STS_OK;
}

static blk_status_t sbd_do_rq(struct sbd_device *dev, struct request *rq)
{
	/* blk_rq_pos() counts 512-byte sectors, whatever hardsect_size is. */
	u64 pos = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	u32 len = blk_rq_bytes(rq);
	blk_status_t status;

	switch (req_op(rq)) {
	case REQ_OP_READ:
		status = sbd_check_rq(dev, rq, pos, len);
		if (likely(status == BLK_STS_OK))
			sbd_copy_rq(dev, rq, pos);
		return status;
	case REQ_OP_WRITE:
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		status = sbd_check_rq(dev, rq, pos, len);
		if (unlikely(status != BLK_STS_OK))
			return status;
		/* The one test a write pays for the cache it usually lacks. */
		if (unlikely(dev->cache.log))
			return sbd_cache_write(dev, rq, pos, len);
		if (req_op(rq) == REQ_OP_WRITE)
			sbd_copy_rq(dev, rq, pos);
		else	/* the range reads back as zeros afterwards */
			sbd_zero_range(dev, pos, len);
		return BLK_STS_OK;
	case REQ_OP_FLUSH:
		/*
		 * No data and no position (its sector is -1).  Sent only to
		 * a disk that has a write cache; without one, every write is
		 * in the store already.
		 */
		if (dev->cache.log)
			return sbd_cache_flush(dev);
		return BLK_STS_OK;
	default:
		return BLK_STS_NOTSUPP;
	}
}

static blk_status_t sbd_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;

	blk_mq_start_request(rq);
	/* Memory is synchronous: complete inline, no interrupt to wait for. */
	blk_mq_end_request(rq, sbd_do_rq(hctx->queue->queuedata, rq));
	return BLK_STS_OK;
}

static void sbd_end_batch(struct io_comp_batch *iob)
{
	blk_mq_end_request_batch(iob);
}

/*
 * A plugged list: several requests a submitter handed over at once
 * (io_submit() or io_uring_enter() with more than two I/Os, writeback).
 * The same work as sbd_queue_rq() for each, but completed as one batch,
 * which frees the tags and reads the clock once for all of them.  A
 * failed request is not batched (blk-mq ends a batch with success).
 */
static void sbd_queue_rqs(sbd_rq_list *rqlist)
{
	DEFINE_IO_COMP_BATCH(iob);
	struct request *rq;

	while ((rq = rq_list_pop(rqlist))) {
		blk_status_t status;

		blk_mq_start_request(rq);
		status = sbd_do_rq(rq->q->queuedata, rq);
		if (!blk_mq_add_to_batch(rq, &iob, status != BLK_STS_OK,
					 sbd_end_batch))
			blk_mq_end_request(rq, status);
	}
	if (iob.complete)
		iob.complete(&iob);
}

static const struct blk_mq_ops sbd_mq_ops = {
	.queue_rq = sbd_queue_rq,
	.queue_rqs = sbd_queue_rqs,
};

/* Called once the last reference to a disk that was added is dropped. */
static void sbd_free_disk(struct gendisk *disk)
{
	struct sbd_device *dev = disk->private_data;

	complete(&dev->released);
}

/*
 * Nothing to do on open or release: a RAM disk has no media to check.
 * .owner makes the block layer pin the module while the disk is open or
 * mounted, so rmmod is refused (-EBUSY) until it is closed.
 */
static const struct block_device_operations sbd_fops = {
	.owner = THIS_MODULE,
	.free_disk = sbd_free_disk,
};

/* ------------------------------------------------------------------ */
/* The volatile write cache                                            */
/* ------------------------------------------------------------------ */

/*
 * With cache_mb=N, a disk behaves like a drive with an N MiB volatile
 * write cache: a write (discard, write-zeroes) completes once cached; a
 * FLUSH completes once every write completed before it is durable; a FUA
 * write is durable when it completes.  Writing "off" to sysfs "power"
 * cuts the power: what was durable stays, and of the rest, what
 * "powercut_policy" says.
 *
 * Reads must not pay for this, so every write still goes straight to
 * the store, and the cache is an undo log: before a write is applied,
 * the log records what it overwrites.  A FLUSH empties the log (every
 * write in it becomes durable); a cut undoes the writes it loses, newest
 * first.  The log is a ring of N MiB allocated at load, because
 * queue_rq may neither sleep nor fail for want of memory; when it is
 * full, the oldest entries are dropped: those writes are destaged,
 * durable from then on, as a drive writes back its oldest data.
 *
 * The block layer does the rest of a drive's contract: given a write
 * cache, it turns each REQ_PREFLUSH into a FLUSH request sent first, and
 * since sbd advertises FUA, REQ_FUA reaches sbd on the write itself.
 */
struct sbd_log_entry {
	u64 pos;		/* bytes into the store */
	u32 len;		/* bytes written */
	/*
	 * FUA, or larger than the whole cache (written through): never
	 * undone, so nothing saved.  Kept in the log all the same, so that
	 * a cut cannot undo an older write over it (see sbd_cache_undo()).
	 */
	bool durable;
	size_t old;		/* offset in c->log of the bytes it overwrote */
};

/* The @i-th entry of the log, oldest first. */
static struct sbd_log_entry *sbd_log_entry(const struct sbd_cache *c,
					   size_t i)
{
	return &c->entries[(c->first + i) % c->max_entries];
}

/* The bytes an entry saved, ALIGN(len, 8) of them in the ring. */
static u8 *sbd_log_old(const struct sbd_cache *c,
		       const struct sbd_log_entry *e)
{
	return c->log + e->old;
}

/* Drop the oldest entry: its write is durable from now on. */
static void sbd_cache_destage(struct sbd_cache *c)
{
	struct sbd_log_entry *e = sbd_log_entry(c, 0);

	if (!e->durable) {
		c->unflushed_bytes -= e->len;
		c->destaged_bytes += e->len;
		c->head = e->old + ALIGN(e->len, 8);
		if (c->wrapped && c->head == c->end) {
			c->head = 0;
			c->wrapped = false;
		}
	}
	c->first = (c->first + 1) % c->max_entries;
	c->count--;
}

/*
 * Room for one more entry, and for @len saved bytes unless @durable,
 * destaging as needed; NULL if that would take destaging and @keep
 * forbids it.  The caller makes sure that ALIGN(@len, 8) <= c->size.
 */
static struct sbd_log_entry *sbd_cache_reserve(struct sbd_cache *c, u32 len,
					       bool durable, bool keep)
{
	size_t need = durable ? 0 : ALIGN(len, 8);
	struct sbd_log_entry *e;
	size_t start;

	for (;;) {
		if (!c->count) {
			c->head = 0;
			c->tail = 0;
			c->wrapped = false;
		}
		/* Whole pages are saved page-aligned, for sbd_copy_bytes(). */
		start = PAGE_ALIGNED(need) ? ALIGN(c->tail, PAGE_SIZE) : c->tail;
		if (c->count < c->max_entries) {
			if (!need || start + need <= (c->wrapped ? c->head :
								    c->size))
				break;
			/* Saved bytes never straddle the end: go on at 0. */
			if (!c->wrapped && c->head >= need) {
				c->end = c->tail;
				c->wrapped = true;
				start = 0;
				break;
			}
		}
		if (keep)
			return NULL;
		sbd_cache_destage(c);
	}
	if (need)
		c->tail = start + need;
	e = sbd_log_entry(c, c->count++);
	e->old = start;
	e->durable = durable;
	return e;
}

/*
 * Save what a write overwrites: a page at a time with copy_page() where
 * both sides are whole pages, as sbd_copy_seg() does, else memcpy().
 */
static void sbd_copy_bytes(u8 *to, u8 *from, u32 len)
{
	if (!PAGE_ALIGNED(to) || !PAGE_ALIGNED(from) || !PAGE_ALIGNED(len)) {
		memcpy(to, from, len);
		return;
	}
	for (; len; len -= PAGE_SIZE, to += PAGE_SIZE, from += PAGE_SIZE)
		copy_page(to, from);
}

/* The write itself, under the lock: the request's data, or zeros. */
static void sbd_apply_write(struct sbd_device *dev, struct request *rq,
			    u64 pos, u32 len)
{
	struct req_iterator iter;
	struct bio_vec bvec;

	if (req_op(rq) == REQ_OP_WRITE) {
		rq_for_each_segment(bvec, rq, iter) {
			sbd_copy_seg(dev->store + pos, &bvec, pos, true);
			pos += bvec.bv_len;
		}
	} else {
		memset(dev->store + pos, 0, len);
	}
}

/* In "Recording", below. */
static bool sbd_record_write(struct sbd_device *dev, struct request *rq,
			     u64 pos, u32 len, bool fua);
static bool sbd_record_flush(struct sbd_device *dev);
static bool sbd_record_keeps_ring(const struct sbd_cache *c);

/*
 * A WRITE, DISCARD or WRITE_ZEROES to a disk with a cache.  The lock is
 * held for the whole request, not per segment as without a cache, so
 * that the log's order is the order in which writes reached each sector:
 * undoing them newest first then gives back what each one overwrote.
 */
static blk_status_t sbd_cache_write(struct sbd_device *dev, struct request *rq,
				    u64 pos, u32 len)
{
	struct sbd_cache *c = &dev->cache;
	bool fua = rq->cmd_flags & REQ_FUA;
	bool keep, durable;
	struct sbd_log_entry *e;

	spin_lock(&dev->lock);
	/* The power went off (an aimed cut) while this one waited. */
	if (unlikely(c->off))
		goto fail;
	if (c->rec && sbd_record_write(dev, rq, pos, len, fua))
		goto done;
	/*
	 * Once a recording has ended, the ring holds the writes made since
	 * (during visits): each is undone whole when the visit ends, so none
	 * is durable, none is destaged, and one that finds no room fails.
	 * Otherwise a write larger than the whole cache goes straight to the
	 * media.
	 */
	keep = sbd_record_keeps_ring(c);
	durable = !keep && (fua || ALIGN(len, 8) > c->size);
	if (keep && ALIGN(len, 8) > c->size)
		goto fail;
	e = sbd_cache_reserve(c, len, durable, keep);
	if (!e)
		goto fail;
	e->pos = pos;
	e->len = len;
	if (durable && !fua) {
		c->destaged_bytes += len;
	} else if (!durable) {
		sbd_copy_bytes(sbd_log_old(c, e), dev->store + pos, len);
		c->unflushed_bytes += len;
	}
	sbd_apply_write(dev, rq, pos, len);
done:
	if (fua) {
		c->fua_writes++;
		c->fua_bytes += len;
	}
	spin_unlock(&dev->lock);
	return BLK_STS_OK;
fail:
	spin_unlock(&dev->lock);
	return BLK_STS_IOERR;
}

/* FLUSH: every write in the log becomes durable. */
static blk_status_t sbd_cache_flush(struct sbd_device *dev)
{
	struct sbd_cache *c = &dev->cache;

	spin_lock(&dev->lock);
	if (unlikely(c->off)) {
		spin_unlock(&dev->lock);
		return BLK_STS_IOERR;
	}
	if ((!c->rec || !sbd_record_flush(dev)) && !sbd_record_keeps_ring(c)) {
		c->count = 0;
		c->unflushed_bytes = 0;
	}
	c->flushes++;
	spin_unlock(&dev->lock);
	return BLK_STS_OK;
}

/*
 * A disk with a cache gets its own queue_rq, so that the power switch
 * costs the other disks nothing.  While the power is cut, every request
 * fails, reads included, as on a drive that is off.
 */
static blk_status_t sbd_cache_queue_rq(struct blk_mq_hw_ctx *hctx,
				       const struct blk_mq_queue_data *bd)
{
	struct sbd_device *dev = hctx->queue->queuedata;
	struct request *rq = bd->rq;

	blk_mq_start_request(rq);
	blk_mq_end_request(rq, READ_ONCE(dev->cache.off) ? BLK_STS_IOERR :
							   sbd_do_rq(dev, rq));
	return BLK_STS_OK;
}

static const struct blk_mq_ops sbd_cache_mq_ops = {
	.queue_rq = sbd_cache_queue_rq,
};

/*
 * splitmix64: a cut under "random SEED ..." or "torn SEED" depends only
 * on SEED and on the writes in the log, on every kernel and machine.
 */
static u64 sbd_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

enum sbd_fate { SBD_LOST, SBD_KEPT, SBD_TORN };

/*
 * What @pol does to a write not yet durable that spans @blocks blocks,
 * drawing from @rnd: at a cut, and at a visit (sbd_visit_fate()).
 */
static enum sbd_fate sbd_cut_fate(const struct sbd_policy *pol,
				  unsigned long blocks, u64 *rnd)
{
	switch (pol->kind) {
	case SBD_CUT_ALL:
		return SBD_KEPT;
	case SBD_CUT_RANDOM:
		return sbd_rand(rnd) % 100 < pol->percent ? SBD_KEPT : SBD_LOST;
	case SBD_CUT_TORN:
		if (sbd_rand(rnd) % 2)
			return SBD_LOST;
		return blocks > 1 && sbd_rand(rnd) % 2 ? SBD_TORN : SBD_KEPT;
	default:
		return SBD_LOST;
	}
}

/*
 * Undo blocks @from..@to-1 of the write of @e, except the pinned ones:
 * a newer write that survives holds them.  Returns the bytes undone.
 */
static u64 sbd_cache_undo(struct sbd_device *dev,
			  const struct sbd_log_entry *e,
			  const unsigned long *pinned,
			  unsigned long from, unsigned long to)
{
	unsigned int shift = ilog2(dev->sect_size);
	unsigned long first = e->pos >> shift;
	unsigned long b = first + from, end = first + to, next;
	u64 bytes = 0;

	while ((b = find_next_zero_bit(pinned, end, b)) < end) {
		next = find_next_bit(pinned, end, b);
		sbd_copy_bytes(dev->store + ((u64)b << shift),
			       sbd_log_old(&dev->cache, e) +
			       ((u64)(b - first) << shift),
			       (u64)(next - b) << shift);
		bytes += (u64)(next - b) << shift;
		b = next;
	}
	return bytes;
}

/*
 * Give the store the content the cut leaves: every block holds the data
 * of the newest surviving write to it, or else its durable content.
 *
 * The walk goes from the newest entry to the oldest, with a bit per
 * logical block in @pinned.  Before an entry is processed, every
 * unpinned block holds what it held just after that entry's write (at
 * the start, the store as it is).  A surviving write pins its blocks; a
 * lost one gives its unpinned blocks back what it overwrote, which is
 * what they held just before it, so the statement holds for the next
 * entry.  Once all are processed, unpinned blocks hold what they held
 * before the oldest logged write: durable data.  Returns bytes undone.
 */
static u64 sbd_cache_rollback(struct sbd_device *dev)
{
	struct sbd_cache *c = &dev->cache;
	unsigned long *pinned = c->pinned;
	unsigned int shift = ilog2(dev->sect_size);
	u64 rnd = c->policy.seed, undone = 0;
	struct sbd_log_entry *e;
	unsigned long first, n, b;
	size_t i;

	for (i = c->count; i--;) {
		e = sbd_log_entry(c, i);
		first = e->pos >> shift;
		n = e->len >> shift;
		switch (e->durable ? SBD_KEPT :
			sbd_cut_fate(&c->policy, n, &rnd)) {
		case SBD_KEPT:
			bitmap_set(pinned, first, n);
			break;
		case SBD_LOST:
			undone += sbd_cache_undo(dev, e, pinned, 0, n);
			break;
		case SBD_TORN:
			/* Block by block: a block is written whole or not. */
			for (b = 0; b < n; b++) {
				if (sbd_rand(&rnd) % 2)
					set_bit(first + b, pinned);
				else
					undone += sbd_cache_undo(dev, e, pinned,
								 b, b + 1);
			}
			break;
		}
		cond_resched();
	}
	/* Leave every bit clear for the next cut: the log's blocks only. */
	for (i = 0; i < c->count; i++) {
		e = sbd_log_entry(c, i);
		bitmap_clear(pinned, e->pos >> shift, e->len >> shift);
	}
	return undone;
}

/*
 * The store changed under the page cache: drop what the whole disk and
 * each partition cached, or a process that keeps the disk open would
 * read the old data back.  invalidate_bdev() drops clean pages only,
 * which is all a disk whose power is off can have (no write reached
 * it); open_mutex keeps partitions from going away meanwhile.
 */
static void sbd_drop_page_cache(struct gendisk *disk)
{
	struct block_device *part;
	unsigned long idx;

	mutex_lock(&disk->open_mutex);
	xa_for_each(&disk->part_tbl, idx, part)
		invalidate_bdev(part);
	mutex_unlock(&disk->open_mutex);
}

/* Cut the power; the caller holds c->mutex and the power is on. */
static void sbd_power_cut(struct sbd_device *dev)
{
	struct request_queue *q = dev->disk->queue;
	struct sbd_cache *c = &dev->cache;
	unsigned int memflags;
	size_t entries;
	u64 start, undone;

	/*
	 * Once frozen, no request is in flight and none starts before the
	 * unfreeze, so the walk needs no lock: it may copy cache_mb MiB,
	 * and holding the spinlock that long would stall cache_stats
	 * readers for nothing.
	 */
	memflags = sbd_freeze_queue(q);
	start = ktime_get_ns();
	entries = c->count;
	undone = sbd_cache_rollback(dev);
	spin_lock(&dev->lock);
	c->count = 0;
	c->unflushed_bytes = 0;
	c->cuts++;
	c->last_cut_ns = ktime_get_ns() - start;
	WRITE_ONCE(c->off, true);
	spin_unlock(&dev->lock);
	sbd_unfreeze_queue(q, memflags);
	/* Reads fail while the power is off: nothing can cache again. */
	sbd_drop_page_cache(dev->disk);

	pr_info("%s: power cut: %zu writes in the cache, %llu bytes undone in %llu us\n",
		dev->disk->disk_name, entries, undone,
		div_u64(c->last_cut_ns, NSEC_PER_USEC));
}

/* ------------------------------------------------------------------ */
/* Recording, and the crash states of a recording                      */
/* ------------------------------------------------------------------ */

/*
 * On a disk with a cache, "record" starts a recording (starting it makes
 * every earlier write durable, as a FLUSH would).  From then on, every
 * write, discard and write-zeroes that completes is kept with the bytes
 * it overwrote, and so is every FLUSH that completes and every mark user
 * space writes: each is a point, numbered 1, 2, ... in completion order;
 * point 0 is the disk as the recording started.  The store keeps the
 * newest data, as without a recording, so reads pay nothing.
 *
 * A visit (POINT, POLICY) turns the store into what a power cut right
 * after POINT would have left: every write durable by then (completed
 * before a FLUSH at or before POINT, or written with FUA), and of the
 * others, what the policy keeps.  While recording nothing is destaged:
 * the recording's memory is the cache.
 *
 * The visit moves along the recording by swapping a write's saved bytes
 * with the store: a write undone that way holds its own data afterwards,
 * and the same swap redoes it.  So no second copy of the disk is needed,
 * and a move costs the bytes of the writes it crosses.  @base says where
 * the store is: it holds every write up to point @base and none after.
 * A visit of POINT moves @base to the last FLUSH at or before POINT (or
 * 0), then swaps in the kept part of the writes between it and POINT,
 * oldest first; leaving the visit swaps the same parts back, newest
 * first.  Writes made during a visit go to the cache's ring, kept whole
 * there until the next visit or the return undoes them.
 */
enum sbd_point_kind {
	SBD_POINT_WRITE,
	SBD_POINT_DISCARD,
	SBD_POINT_ZEROES,
	SBD_POINT_FLUSH,
	SBD_POINT_MARK,
};

static const char * const sbd_point_names[] = {
	[SBD_POINT_WRITE] = "write",
	[SBD_POINT_DISCARD] = "discard",
	[SBD_POINT_ZEROES] = "zeroes",
	[SBD_POINT_FLUSH] = "flush",
	[SBD_POINT_MARK] = "mark",
};

struct sbd_point {
	u64 pos;		/* bytes into the store */
	u64 saved;		/* offset in the recording's memory of its bytes */
	u32 len;		/* bytes written, or a mark's name length */
	u8 kind;		/* enum sbd_point_kind */
	bool fua;
};

/* A mark's name: 1 to SBD_MARK_MAX printable characters, no blanks. */
#define SBD_MARK_MAX	32

enum sbd_rec_state { SBD_REC_ON, SBD_REC_STOPPED, SBD_REC_FULL, SBD_REC_CUT };

static const char * const sbd_rec_state_names[] = {
	[SBD_REC_ON] = "recording",
	[SBD_REC_STOPPED] = "stopped",
	[SBD_REC_FULL] = "full",
	[SBD_REC_CUT] = "cut",
};

struct sbd_record {
	/* vmalloc'ed: points from the start up, saved bytes from the end down */
	u8 *mem;
	size_t size;
	size_t low;		/* the saved bytes take mem[low, size) */
	u64 npoints;		/* point k is points()[k - 1] */
	u64 base;		/* see above */
	u64 cut_at;		/* cut the power as this point completes; 0: never */
	enum sbd_rec_state state;
	bool cut_pending;	/* an aimed cut happened: visit it at power on */
	bool visiting;
	u64 point;		/* the visit, while @visiting */
	struct sbd_policy policy;
	/* Counters for record_stats. */
	u64 writes, flushes, fua_writes, marks, saved_bytes;
	u64 visits, moved_bytes, last_move_ns;
};

static struct sbd_point *sbd_point_array(const struct sbd_record *r)
{
	return (struct sbd_point *)r->mem;
}

static bool sbd_point_has_data(const struct sbd_point *p)
{
	return p->kind <= SBD_POINT_ZEROES;
}

/* After a recording, the ring keeps what visits write (sbd_cache_write()). */
static bool sbd_record_keeps_ring(const struct sbd_cache *c)
{
	return c->rec && c->rec->state != SBD_REC_ON;
}

/*
 * Under dev->lock: room for one more point with @len bytes to save, or
 * NULL (and the recording ends, "full") when its memory is used up.
 */
static struct sbd_point *sbd_record_add(struct sbd_record *r, u32 len)
{
	size_t points = (r->npoints + 1) * sizeof(struct sbd_point);
	size_t need = ALIGN(len, 8);

	if (r->state != SBD_REC_ON)
		return NULL;
	if (r->low < need || r->low - need < points) {
		r->state = SBD_REC_FULL;
		return NULL;
	}
	r->low -= need;
	/* Whole pages stay page-aligned, for sbd_copy_bytes(). */
	if (PAGE_ALIGNED(len) && r->low >= points + PAGE_SIZE)
		r->low = round_down(r->low, PAGE_SIZE);
	sbd_point_array(r)[r->npoints].saved = r->low;
	return &sbd_point_array(r)[r->npoints];
}

/*
 * Under dev->lock: the point that sbd_record_add() gave is complete.
 * The release pairs with the listing's acquire: a reader sees a point
 * only once it is filled in.  If a cut is aimed at it, the power goes
 * off now: requests after it fail, as on a drive that died right there.
 */
static void sbd_record_commit(struct sbd_device *dev, struct sbd_record *r)
{
	/* The listing reads points without dev->lock: fill in, then count. */
	smp_store_release(&r->npoints, r->npoints + 1);
	r->base = r->npoints;
	if (r->npoints == r->cut_at) {
		r->state = SBD_REC_CUT;
		r->cut_pending = true;
		dev->cache.cuts++;
		WRITE_ONCE(dev->cache.off, true);
	}
}

/* Under dev->lock: record and apply a write; false if not recording. */
static bool sbd_record_write(struct sbd_device *dev, struct request *rq,
			     u64 pos, u32 len, bool fua)
{
	struct sbd_record *r = dev->cache.rec;
	struct sbd_point *p = sbd_record_add(r, len);

	if (!p)
		return false;
	p->pos = pos;
	p->len = len;
	p->fua = fua;
	switch (req_op(rq)) {
	case REQ_OP_DISCARD:
		p->kind = SBD_POINT_DISCARD;
		break;
	case REQ_OP_WRITE_ZEROES:
		p->kind = SBD_POINT_ZEROES;
		break;
	default:
		p->kind = SBD_POINT_WRITE;
		break;
	}
	sbd_copy_bytes(r->mem + p->saved, dev->store + pos, len);
	sbd_apply_write(dev, rq, pos, len);
	r->writes++;
	r->fua_writes += fua;
	r->saved_bytes += len;
	sbd_record_commit(dev, r);
	return true;
}

/* Under dev->lock: record a FLUSH; false if not recording. */
static bool sbd_record_flush(struct sbd_device *dev)
{
	struct sbd_record *r = dev->cache.rec;
	struct sbd_point *p = sbd_record_add(r, 0);

	if (!p)
		return false;
	p->kind = SBD_POINT_FLUSH;
	p->pos = 0;
	p->len = 0;
	p->fua = false;
	r->flushes++;
	sbd_record_commit(dev, r);
	return true;
}

/* Swap @len bytes (a multiple of 8, both 8-byte aligned) of @a and @b. */
static void sbd_swap_bytes(u8 *a, u8 *b, u64 len)
{
	u64 *x = (u64 *)a, *y = (u64 *)b;

	for (len /= 8; len; len--, x++, y++)
		swap(*x, *y);
}

/* Swap @len bytes at @off into point @p's saved bytes with the store. */
static u64 sbd_point_swap(struct sbd_device *dev, const struct sbd_point *p,
			  u32 off, u32 len)
{
	sbd_swap_bytes(dev->cache.rec->mem + p->saved + off,
		       dev->store + p->pos + off, len);
	return len;
}

/* Move the store to @target (see @base): undo newest first, redo oldest first. */
static u64 sbd_record_move(struct sbd_device *dev, u64 target)
{
	struct sbd_record *r = dev->cache.rec;
	const struct sbd_point *p;
	u64 moved = 0;

	while (r->base != target) {
		if (r->base > target)
			p = &sbd_point_array(r)[--r->base];
		else
			p = &sbd_point_array(r)[r->base++];
		if (sbd_point_has_data(p))
			moved += sbd_point_swap(dev, p, 0, p->len);
		cond_resched();
	}
	return moved;
}

/* The last FLUSH at or before @point, or 0: everything up to it is durable. */
static u64 sbd_record_durable(const struct sbd_record *r, u64 point)
{
	while (point && sbd_point_array(r)[point - 1].kind != SBD_POINT_FLUSH)
		point--;
	return point;
}

/*
 * What a visit under @pol does to the write of point @k, which is not
 * durable at the visited point and spans @blocks blocks.  Each point
 * draws from its own stream, seeded by (seed, k): the fates do not depend
 * on the order in which points are looked at, so applying (oldest first)
 * and removing (newest first) agree, and so does an independent model.
 */
static enum sbd_fate sbd_visit_fate(const struct sbd_policy *pol, u64 k,
				    u32 blocks, u64 *rnd)
{
	*rnd = pol->seed ^ (k * 0xd6e8feb86659fd93ULL);
	return sbd_cut_fate(pol, blocks, rnd);
}

/*
 * With the store at @base, swap in (@apply) or back out the part @pol
 * keeps of the writes after @base up to @point.  A torn write keeps each
 * of its blocks with probability 1/2: a block is written whole or not.
 */
static u64 sbd_record_overlay(struct sbd_device *dev, u64 point,
			      const struct sbd_policy *pol, bool apply)
{
	struct sbd_record *r = dev->cache.rec;
	u64 i, k, rnd, moved = 0;
	const struct sbd_point *p;
	u32 off;

	for (i = 0; i < point - r->base; i++) {
		k = apply ? r->base + 1 + i : point - i;
		p = &sbd_point_array(r)[k - 1];
		if (!sbd_point_has_data(p))
			continue;
		switch (p->fua ? SBD_KEPT :
			sbd_visit_fate(pol, k, p->len / dev->sect_size, &rnd)) {
		case SBD_KEPT:
			moved += sbd_point_swap(dev, p, 0, p->len);
			break;
		case SBD_TORN:
			for (off = 0; off < p->len; off += dev->sect_size)
				if (sbd_rand(&rnd) % 2)
					moved += sbd_point_swap(dev, p, off,
								dev->sect_size);
			break;
		case SBD_LOST:
			break;
		}
		cond_resched();
	}
	return moved;
}

/* Undo, newest first, every write the ring kept since the recording ended. */
static u64 sbd_record_undo_ring(struct sbd_device *dev)
{
	struct sbd_cache *c = &dev->cache;
	struct sbd_log_entry *e;
	u64 undone = 0;
	size_t i;

	for (i = c->count; i--;) {
		e = sbd_log_entry(c, i);
		sbd_copy_bytes(dev->store + e->pos, sbd_log_old(c, e), e->len);
		undone += e->len;
		cond_resched();
	}
	c->count = 0;
	c->unflushed_bytes = 0;
	return undone;
}

/*
 * Turn the store into the crash state (@point, @pol), or with @pol NULL
 * back into the recording's end.  The caller holds c->mutex; the
 * recording has ended.  The queue is frozen throughout: no request sees
 * a state half made, and the swaps need no spinlock.
 */
static void sbd_record_goto(struct sbd_device *dev, u64 point,
			    const struct sbd_policy *pol)
{
	struct sbd_record *r = dev->cache.rec;
	unsigned int memflags;
	u64 start, moved;

	memflags = sbd_freeze_queue(dev->disk->queue);
	start = ktime_get_ns();
	moved = sbd_record_undo_ring(dev);
	if (r->visiting)
		moved += sbd_record_overlay(dev, r->point, &r->policy, false);
	moved += sbd_record_move(dev, pol ? sbd_record_durable(r, point) :
					    r->npoints);
	if (pol)
		moved += sbd_record_overlay(dev, point, pol, true);
	r->visiting = pol;
	if (pol) {
		r->point = point;
		r->policy = *pol;
		r->visits++;
	}
	r->cut_pending = false;
	r->moved_bytes += moved;
	r->last_move_ns = ktime_get_ns() - start;
	sbd_unfreeze_queue(dev->disk->queue, memflags);
	sbd_drop_page_cache(dev->disk);
}

/* Start a recording of @bytes; the caller holds c->mutex. */
static int sbd_record_start(struct sbd_device *dev, u64 bytes)
{
	struct sbd_cache *c = &dev->cache;
	unsigned int memflags;
	struct sbd_record *r;

	if (c->rec || c->off || !bytes || bytes > SIZE_MAX)
		return -EINVAL;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->size = bytes;
	r->low = bytes;
	r->mem = __vmalloc(bytes, GFP_KERNEL | __GFP_RETRY_MAYFAIL |
				  __GFP_NOWARN);
	if (!r->mem) {
		kfree(r);
		return -ENOMEM;
	}
	/* Point 0 is durable: what the cache holds now is, as at a FLUSH. */
	memflags = sbd_freeze_queue(dev->disk->queue);
	spin_lock(&dev->lock);
	c->count = 0;
	c->unflushed_bytes = 0;
	c->rec = r;
	c->recordings++;
	spin_unlock(&dev->lock);
	sbd_unfreeze_queue(dev->disk->queue, memflags);
	return 0;
}

/* Free the recording; the disk keeps what it holds.  Under c->mutex. */
static void sbd_record_drop(struct sbd_device *dev)
{
	struct sbd_cache *c = &dev->cache;
	struct sbd_record *r = c->rec;
	unsigned int memflags;

	/*
	 * The ring's entries stay, as unflushed writes of a cache without a
	 * recording: all of them can be undone, and none is durable yet.
	 */
	memflags = sbd_freeze_queue(dev->disk->queue);
	spin_lock(&dev->lock);
	c->rec = NULL;
	spin_unlock(&dev->lock);
	sbd_unfreeze_queue(dev->disk->queue, memflags);
	vfree(r->mem);
	kfree(r);
}

/* Is the disk, or a partition of it, claimed (mounted, say)? */
static bool sbd_disk_claimed(struct gendisk *disk)
{
	struct block_device *part;
	unsigned long idx;
	bool claimed = false;

	mutex_lock(&disk->open_mutex);
	xa_for_each(&disk->part_tbl, idx, part)
		claimed |= !!READ_ONCE(part->bd_holder);
	mutex_unlock(&disk->open_mutex);
	return claimed;
}

/*
 * "off": cut the power; the caller holds c->mutex and the power is on.
 * Without a recording, see sbd_power_cut().  While recording, the
 * recording ends at its last point and the disk becomes that point's
 * crash state under the cut's policy: a visit, which "visit end" can
 * leave.  Once a recording has ended, a cut means nothing: -EINVAL.
 */
static int sbd_power_off(struct sbd_device *dev)
{
	struct sbd_cache *c = &dev->cache;
	struct sbd_record *r = c->rec;
	unsigned int memflags;

	if (!r) {
		sbd_power_cut(dev);
		return 0;
	}
	if (r->state != SBD_REC_ON)
		return -EINVAL;
	memflags = sbd_freeze_queue(dev->disk->queue);
	spin_lock(&dev->lock);
	r->state = SBD_REC_CUT;
	c->cuts++;
	WRITE_ONCE(c->off, true);
	spin_unlock(&dev->lock);
	sbd_unfreeze_queue(dev->disk->queue, memflags);
	sbd_record_goto(dev, r->npoints, &c->policy);
	return 0;
}

/* "on": after an aimed cut, the disk first becomes its crash state. */
static void sbd_power_on(struct sbd_device *dev)
{
	struct sbd_cache *c = &dev->cache;

	if (c->rec && c->rec->cut_pending)
		sbd_record_goto(dev, c->rec->npoints, &c->policy);
	WRITE_ONCE(c->off, false);
}

/* debugfs sbd/sbdN/points: one line per point, under c->mutex. */
static void *sbd_listing_start(struct seq_file *m, loff_t *pos)
{
	struct sbd_device *dev = m->private;
	struct sbd_record *r;

	mutex_lock(&dev->cache.mutex);
	r = dev->cache.rec;
	/* Pairs with sbd_record_commit(): only points filled in. */
	if (!r || *pos >= smp_load_acquire(&r->npoints))
		return NULL;
	return &sbd_point_array(r)[*pos];
}

static void *sbd_listing_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct sbd_device *dev = m->private;
	struct sbd_record *r = dev->cache.rec;

	++*pos;
	/* Pairs with sbd_record_commit(): only points filled in. */
	if (*pos >= smp_load_acquire(&r->npoints))
		return NULL;
	return &sbd_point_array(r)[*pos];
}

static void sbd_listing_stop(struct seq_file *m, void *v)
{
	struct sbd_device *dev = m->private;

	mutex_unlock(&dev->cache.mutex);
}

/* "K write POS LEN [fua]", "K flush", "K mark NAME"; bytes, decimal. */
static int sbd_listing_show(struct seq_file *m, void *v)
{
	struct sbd_device *dev = m->private;
	struct sbd_record *r = dev->cache.rec;
	const struct sbd_point *p = v;
	u64 k = p - sbd_point_array(r) + 1;

	if (sbd_point_has_data(p))
		seq_printf(m, "%llu %s %llu %u%s\n", k, sbd_point_names[p->kind],
			   p->pos, p->len, p->fua ? " fua" : "");
	else if (p->kind == SBD_POINT_MARK)
		seq_printf(m, "%llu mark %.*s\n", k, (int)p->len,
			   r->mem + p->saved);
	else
		seq_printf(m, "%llu flush\n", k);
	return 0;
}

static const struct seq_operations sbd_listing_sops = {
	.start = sbd_listing_start,
	.next = sbd_listing_next,
	.stop = sbd_listing_stop,
	.show = sbd_listing_show,
};
DEFINE_SEQ_ATTRIBUTE(sbd_listing);

/*
 * debugfs sbd/sbdN/log-writes: the recording in dm-log-writes' format
 * (Documentation/admin-guide/device-mapper/log-writes.rst), which
 * fstests' replay-log reads: a super block, then per entry a header
 * block (and a mark's name in it) and the data written.  Sectors count
 * logical blocks, as dm-log-writes counts its device's.  Entries come
 * in the order dm-log-writes logs them: a write when the next FLUSH
 * completes (or at the end), a FUA write and a mark at once.
 *
 * A write's own data is what the export needs, and the recording keeps
 * it only for writes the store does not hold (after @base, see above):
 * readable while the disk is visiting point 0, else -EINVAL.
 */
#define SBD_LW_MAGIC		0x6a736677736872ULL
#define SBD_LW_VERSION		1ULL
#define SBD_LW_FLUSH		BIT(0)
#define SBD_LW_FUA		BIT(1)
#define SBD_LW_DISCARD		BIT(2)
#define SBD_LW_MARK		BIT(3)

struct sbd_lw_super {
	__le64 magic;
	__le64 version;
	__le64 nr_entries;
	__le32 sectorsize;
} __packed;

struct sbd_lw_entry {
	__le64 sector;
	__le64 nr_sectors;
	__le64 flags;
	__le64 data_len;
};

struct sbd_export {
	struct sbd_device *dev;
	struct sbd_record *rec;
	u64 recording;		/* which one this order is for (c->recordings) */
	u64 n;			/* entries */
	u64 *order;		/* point numbers, in dm-log-writes' order */
	u8 *block;		/* one zeroed header block */
};

/* The saved bytes are the writes' own data: at point 0, with no overlay. */
static bool sbd_export_ready(const struct sbd_record *r)
{
	return r && r->state != SBD_REC_ON && !r->base &&
	       (!r->visiting || !r->point);
}

static void *sbd_export_start(struct seq_file *m, loff_t *pos)
{
	struct sbd_export *x = m->private;
	struct sbd_cache *c = &x->dev->cache;

	mutex_lock(&c->mutex);
	if (c->recordings != x->recording || !sbd_export_ready(c->rec))
		return ERR_PTR(-EINVAL);
	return *pos <= x->n ? (void *)(uintptr_t)(*pos + 1) : NULL;
}

static void *sbd_export_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct sbd_export *x = m->private;

	++*pos;
	return *pos <= x->n ? (void *)(uintptr_t)(*pos + 1) : NULL;
}

static void sbd_export_stop(struct seq_file *m, void *v)
{
	struct sbd_export *x = m->private;

	mutex_unlock(&x->dev->cache.mutex);
}

/* Entry @v - 1: the super block first, then one entry and its data. */
static int sbd_export_show(struct seq_file *m, void *v)
{
	struct sbd_export *x = m->private;
	unsigned int shift = ilog2(x->dev->sect_size);
	struct sbd_lw_super *super = (void *)x->block;
	struct sbd_lw_entry *e = (void *)x->block;
	u64 i = (uintptr_t)v - 1;
	const struct sbd_point *p;
	u64 flags = 0;

	memset(x->block, 0, x->dev->sect_size);
	if (!i) {
		super->magic = cpu_to_le64(SBD_LW_MAGIC);
		super->version = cpu_to_le64(SBD_LW_VERSION);
		super->nr_entries = cpu_to_le64(x->n);
		super->sectorsize = cpu_to_le32(x->dev->sect_size);
		seq_write(m, x->block, x->dev->sect_size);
		return 0;
	}
	p = &sbd_point_array(x->rec)[x->order[i - 1] - 1];
	if (p->kind == SBD_POINT_FLUSH)
		flags = SBD_LW_FLUSH;
	else if (p->kind == SBD_POINT_MARK)
		flags = SBD_LW_MARK;
	else if (p->kind == SBD_POINT_DISCARD)
		flags = SBD_LW_DISCARD;
	if (p->fua)
		flags |= SBD_LW_FUA;
	e->flags = cpu_to_le64(flags);
	if (sbd_point_has_data(p)) {
		e->sector = cpu_to_le64(p->pos >> shift);
		e->nr_sectors = cpu_to_le64(p->len >> shift);
	}
	if (p->kind == SBD_POINT_MARK) {
		e->data_len = cpu_to_le64(p->len);
		memcpy(e + 1, x->rec->mem + p->saved, p->len);
	}
	seq_write(m, x->block, x->dev->sect_size);
	/* A zeroout's data is zeros, as its saved bytes hold at point 0. */
	if (sbd_point_has_data(p) && p->kind != SBD_POINT_DISCARD)
		seq_write(m, x->rec->mem + p->saved, p->len);
	return 0;
}

static const struct seq_operations sbd_export_sops = {
	.start = sbd_export_start,
	.next = sbd_export_next,
	.stop = sbd_export_stop,
	.show = sbd_export_show,
};

static int sbd_export_open(struct inode *inode, struct file *file)
{
	struct sbd_device *dev = inode->i_private;
	struct sbd_cache *c = &dev->cache;
	struct sbd_export *x;
	struct sbd_record *r;
	u64 k, pending = 0, i = 0;
	int err = -ENOMEM;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->dev = dev;
	x->block = kzalloc(dev->sect_size, GFP_KERNEL);
	mutex_lock(&c->mutex);
	r = c->rec;
	if (!sbd_export_ready(r)) {
		err = -EINVAL;
		goto fail;
	}
	x->order = kvcalloc(r->npoints + 1, sizeof(u64), GFP_KERNEL);
	if (!x->order || !x->block)
		goto fail;
	/*
	 * Writes wait in order[pending, i) for the next FLUSH, which comes
	 * after them; a FUA write or a mark goes before them, which moves
	 * them one place up.
	 */
	for (k = 1; k <= r->npoints; k++) {
		const struct sbd_point *p = &sbd_point_array(r)[k - 1];

		if (sbd_point_has_data(p) && !p->fua) {
			x->order[i++] = k;
			continue;
		}
		if (p->kind == SBD_POINT_FLUSH) {
			x->order[i++] = k;
			pending = i;
			continue;
		}
		memmove(&x->order[pending + 1], &x->order[pending],
			(i - pending) * sizeof(u64));
		x->order[pending++] = k;
		i++;
	}
	x->n = i;
	x->rec = r;
	x->recording = c->recordings;
	mutex_unlock(&c->mutex);
	err = seq_open(file, &sbd_export_sops);
	if (err)
		goto free;
	((struct seq_file *)file->private_data)->private = x;
	return 0;
fail:
	mutex_unlock(&c->mutex);
free:
	kvfree(x->order);
	kfree(x->block);
	kfree(x);
	return err;
}

static int sbd_export_release(struct inode *inode, struct file *file)
{
	struct sbd_export *x = ((struct seq_file *)file->private_data)->private;

	kvfree(x->order);
	kfree(x->block);
	kfree(x);
	return seq_release(inode, file);
}

static const struct file_operations sbd_export_fops = {
	.owner = THIS_MODULE,
	.open = sbd_export_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = sbd_export_release,
};

/* Undo sbd_cache_init(); harmless on a disk without a cache. */
static void sbd_cache_free(struct sbd_device *dev)
{
	if (dev->cache.rec) {
		vfree(dev->cache.rec->mem);
		kfree(dev->cache.rec);
		dev->cache.rec = NULL;
	}
	kvfree(dev->cache.pinned);
	kvfree(dev->cache.entries);
	vfree(dev->cache.log);
	dev->cache.pinned = NULL;
	dev->cache.entries = NULL;
	dev->cache.log = NULL;
}

/*
 * Entries for a cache of @bytes: as many as the smallest writes (one
 * block each) that fit in it, so that writes with data never destage
 * for want of entries.
 */
static size_t sbd_cache_entries(size_t bytes, unsigned int sect_size)
{
	return bytes / sect_size;
}

/*
 * Give @dev a write cache of @bytes, and the cut's bitmap.  Only the
 * bitmap is zeroed: an entry is written before it is ever read, and the
 * bitmap is cleared here once and by each cut after it.
 */
static int sbd_cache_init(struct sbd_device *dev, unsigned int index,
			  size_t bytes)
{
	struct sbd_cache *c = &dev->cache;
	size_t bitmap = BITS_TO_LONGS(dev->size >> ilog2(dev->sect_size)) *
			sizeof(long);

	mutex_init(&c->mutex);
	c->size = bytes;
	c->max_entries = sbd_cache_entries(bytes, dev->sect_size);
	c->log = __vmalloc(bytes, GFP_KERNEL | __GFP_RETRY_MAYFAIL |
				  __GFP_NOWARN);
	c->entries = kvmalloc_array(c->max_entries, sizeof(*c->entries),
				    GFP_KERNEL | __GFP_RETRY_MAYFAIL |
				    __GFP_NOWARN);
	c->pinned = kvzalloc(bitmap, GFP_KERNEL | __GFP_RETRY_MAYFAIL |
				     __GFP_NOWARN);
	if (!c->log || !c->entries || !c->pinned) {
		pr_err("sbd%u: cannot allocate %zu bytes for the write cache\n",
		       index, bytes + bitmap +
		       c->max_entries * sizeof(*c->entries));
		sbd_cache_free(dev);
		return -ENOMEM;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* sysfs: /sys/block/sbdN/sbd/                                         */
/* ------------------------------------------------------------------ */

static struct sbd_device *to_sbd(struct device *d)
{
	return dev_to_disk(d)->private_data;
}

static ssize_t size_bytes_show(struct device *d, struct device_attribute *attr,
			       char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_sbd(d)->size);
}
static DEVICE_ATTR_RO(size_bytes);

static ssize_t hardsect_size_show(struct device *d,
				  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_sbd(d)->sect_size);
}
static DEVICE_ATTR_RO(hardsect_size);

/* vmalloc hands out whole pages: that is what the store really holds. */
static ssize_t store_bytes_show(struct device *d, struct device_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%llu\n", (u64)PAGE_ALIGN(to_sbd(d)->size));
}
static DEVICE_ATTR_RO(store_bytes);

/* Lists the bad ranges, one "START COUNT" line each (512-byte sectors). */
static ssize_t sbd_badblocks_show(struct device *d,
				  struct device_attribute *attr, char *buf)
{
	return badblocks_show(&to_sbd(d)->badblocks, buf, 0);
}

/*
 * sysfs input is read a blank-separated word at a time: the next word
 * of *@p (moved past it), its length in *@len; NULL when none is left.
 */
static const char *sbd_next_word(const char **p, size_t *len)
{
	const char *s = skip_spaces(*p);

	*len = strcspn(s, " \t\n");
	*p = s + *len;
	return *len ? s : NULL;
}

static bool sbd_word_is(const char *word, size_t len, const char *name)
{
	return word && len == strlen(name) && !memcmp(word, name, len);
}

/* The next word of *@p as one decimal number: the whole word or nothing. */
static bool sbd_parse_token(const char **p, u64 *value)
{
	size_t len;
	const char *word = sbd_next_word(p, &len);

	return word && sbd_parse_decimal(word, len, value);
}

/* Nothing but blanks (and the newline echo adds) left in @p. */
static bool sbd_input_ends(const char *p)
{
	return !*skip_spaces(p);
}

/*
 * A policy from *@p: "none", "all", "random SEED PERCENT" or "torn SEED".
 * Used by powercut_policy and by visit.
 */
static bool sbd_parse_policy(const char **p, struct sbd_policy *pol)
{
	u64 percent = 0;
	size_t len;
	const char *word = sbd_next_word(p, &len);

	pol->seed = 0;
	if (sbd_word_is(word, len, "none"))
		pol->kind = SBD_CUT_NONE;
	else if (sbd_word_is(word, len, "all"))
		pol->kind = SBD_CUT_ALL;
	else if (sbd_word_is(word, len, "random") &&
		 sbd_parse_token(p, &pol->seed) &&
		 sbd_parse_token(p, &percent) && percent <= 100)
		pol->kind = SBD_CUT_RANDOM;
	else if (sbd_word_is(word, len, "torn") &&
		 sbd_parse_token(p, &pol->seed))
		pol->kind = SBD_CUT_TORN;
	else
		return false;
	pol->percent = percent;
	return true;
}

/* @pol as sbd_parse_policy() reads it, and a newline, at @buf + @at. */
static ssize_t sbd_policy_emit(char *buf, int at, const struct sbd_policy *pol)
{
	switch (pol->kind) {
	case SBD_CUT_ALL:
		return sysfs_emit_at(buf, at, "all\n");
	case SBD_CUT_RANDOM:
		return sysfs_emit_at(buf, at, "random %llu %u\n", pol->seed,
				     pol->percent);
	case SBD_CUT_TORN:
		return sysfs_emit_at(buf, at, "torn %llu\n", pol->seed);
	default:
		return sysfs_emit_at(buf, at, "none\n");
	}
}

/*
 * Mark or clear a range, all or nothing.  The kernel's table (one page,
 * 512 ranges) can fill part-way through a long range; it is then put
 * back as it was, so a refused command changes nothing.  Edits are
 * serialized by badblocks_edit_lock; the I/O path only reads the table.
 */
static int sbd_badblocks_apply(struct badblocks *bb, u64 start, u64 count,
			       bool bad)
{
	int saved_count = bb->count, saved_unacked = bb->unacked_exist;
	u64 *saved = kmemdup(bb->page, PAGE_SIZE, GFP_KERNEL);

	if (!saved)
		return -ENOMEM;
	if (!sbd_badblocks_update(bb, start, count, bad)) {
		write_seqlock_irq(&bb->lock);
		memcpy(bb->page, saved, PAGE_SIZE);
		bb->count = saved_count;
		bb->unacked_exist = saved_unacked;
		write_sequnlock_irq(&bb->lock);
		kfree(saved);
		return -ENOSPC;
	}
	kfree(saved);
	return 0;
}

/*
 * "+START COUNT" marks COUNT 512-byte sectors from START bad; any request
 * touching them fails with an I/O error.  "-START COUNT" clears them.
 * Anything else, or a range outside the disk, is -EINVAL; a table too
 * full for the change is -ENOSPC.  Either way nothing changes.
 */
static ssize_t sbd_badblocks_store(struct device *d,
				   struct device_attribute *attr,
				   const char *buf, size_t len)
{
	struct sbd_device *dev = to_sbd(d);
	u64 capacity = dev->size >> SECTOR_SHIFT;
	const char *p = buf + 1;
	u64 start, count;
	int err;

	if ((buf[0] != '+' && buf[0] != '-') ||
	    !sbd_parse_token(&p, &start) || !sbd_parse_token(&p, &count) ||
	    !sbd_input_ends(p) || count == 0 || start >= capacity ||
	    count > capacity - start)
		return -EINVAL;

	mutex_lock(&dev->badblocks_edit_lock);
	err = sbd_badblocks_apply(&dev->badblocks, start, count, buf[0] == '+');
	mutex_unlock(&dev->badblocks_edit_lock);
	return err ? err : len;
}

/* Not DEVICE_ATTR_RW(): badblocks_show/_store name the kernel's helpers. */
static struct device_attribute dev_attr_badblocks =
	__ATTR(badblocks, 0644, sbd_badblocks_show, sbd_badblocks_store);

/*
 * The cache's files exist only on a disk loaded with cache_mb > 0.
 *
 * power: "on" or "off".  Writing "off" cuts the power (see
 * sbd_power_off()), "on" brings it back with what the cut left.
 * Writing the state the disk is already in is -EINVAL.
 */
static ssize_t power_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(to_sbd(d)->cache.off) ? "off" : "on");
}

static ssize_t power_store(struct device *d, struct device_attribute *attr,
			   const char *buf, size_t len)
{
	struct sbd_device *dev = to_sbd(d);
	struct sbd_cache *c = &dev->cache;
	int err = 0;
	bool off;

	if (sysfs_streq(buf, "off"))
		off = true;
	else if (sysfs_streq(buf, "on"))
		off = false;
	else
		return -EINVAL;

	mutex_lock(&c->mutex);
	if (off == c->off)
		err = -EINVAL;
	else if (off)
		err = sbd_power_off(dev);
	else
		sbd_power_on(dev);
	mutex_unlock(&c->mutex);
	return err ?: len;
}
static DEVICE_ATTR_RW(power);

/*
 * powercut_policy: what the next cut does to the writes not yet durable:
 * "none" (all lost), "all" (none lost), "random SEED PERCENT" (each
 * kept with PERCENT % probability), "torn SEED" (each kept with 50 %,
 * and half of those kept only in part, block by block).  Decimal
 * numbers (sbd_parse_decimal()); anything else is -EINVAL and changes
 * nothing.
 */
static ssize_t powercut_policy_show(struct device *d,
				    struct device_attribute *attr, char *buf)
{
	struct sbd_cache *c = &to_sbd(d)->cache;
	ssize_t ret;

	mutex_lock(&c->mutex);
	ret = sbd_policy_emit(buf, 0, &c->policy);
	mutex_unlock(&c->mutex);
	return ret;
}

static ssize_t powercut_policy_store(struct device *d,
				     struct device_attribute *attr,
				     const char *buf, size_t len)
{
	struct sbd_cache *c = &to_sbd(d)->cache;
	struct sbd_policy policy;
	const char *p = buf;

	if (!sbd_parse_policy(&p, &policy) || !sbd_input_ends(p))
		return -EINVAL;

	mutex_lock(&c->mutex);
	c->policy = policy;
	mutex_unlock(&c->mutex);
	return len;
}
static DEVICE_ATTR_RW(powercut_policy);

/* One "name value" line per counter, all read under the lock at once. */
static ssize_t cache_stats_show(struct device *d,
				struct device_attribute *attr, char *buf)
{
	struct sbd_device *dev = to_sbd(d);
	struct sbd_cache *c = &dev->cache;
	u64 v[7];

	spin_lock(&dev->lock);
	v[0] = c->unflushed_bytes;
	v[1] = c->flushes;
	v[2] = c->fua_writes;
	v[3] = c->fua_bytes;
	v[4] = c->destaged_bytes;
	v[5] = c->cuts;
	v[6] = div_u64(c->last_cut_ns, NSEC_PER_USEC);
	spin_unlock(&dev->lock);
	return sysfs_emit(buf,
			  "cache_bytes %zu\nunflushed_bytes %llu\nflushes %llu\nfua_writes %llu\nfua_bytes %llu\ndestaged_bytes %llu\ncuts %llu\nlast_cut_usec %llu\n",
			  c->size, v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
}
static DEVICE_ATTR_RO(cache_stats);

/*
 * record: "start MIB" starts a recording kept in MIB MiB (points and
 * the bytes each write overwrote); "stop" ends it; "drop" frees it and
 * leaves the disk as it is.  Reads "none", "recording", or how it ended:
 * "stopped", "full" (its memory ran out), "cut" (the power).
 */
static ssize_t record_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct sbd_cache *c = &to_sbd(d)->cache;
	ssize_t ret;

	mutex_lock(&c->mutex);
	ret = sysfs_emit(buf, "%s\n", c->rec ?
			 sbd_rec_state_names[c->rec->state] : "none");
	mutex_unlock(&c->mutex);
	return ret;
}

static ssize_t record_store(struct device *d, struct device_attribute *attr,
			    const char *buf, size_t len)
{
	struct sbd_device *dev = to_sbd(d);
	struct sbd_cache *c = &dev->cache;
	const char *p = buf, *word;
	size_t word_len;
	u64 mib = 0;
	int err = -EINVAL;

	word = sbd_next_word(&p, &word_len);
	if (sbd_word_is(word, word_len, "start") &&
	    (!sbd_parse_token(&p, &mib) || !mib || mib > SBD_MAX_CACHE_MB))
		return -EINVAL;
	if (!sbd_input_ends(p))
		return -EINVAL;

	mutex_lock(&c->mutex);
	if (sbd_word_is(word, word_len, "start")) {
		err = sbd_record_start(dev, mib << 20);
	} else if (sbd_word_is(word, word_len, "stop")) {
		if (c->rec && c->rec->state == SBD_REC_ON) {
			spin_lock(&dev->lock);
			c->rec->state = SBD_REC_STOPPED;
			spin_unlock(&dev->lock);
			err = 0;
		}
	} else if (sbd_word_is(word, word_len, "drop")) {
		/* After an aimed cut, the crash state comes with power on. */
		if (c->rec && !c->rec->cut_pending) {
			sbd_record_drop(dev);
			err = 0;
		}
	}
	mutex_unlock(&c->mutex);
	return err ?: len;
}
static DEVICE_ATTR_RW(record);

/*
 * mark: "NAME" adds a mark point, after every request completed before
 * this write (they were recorded under the same lock).  1 to 32 printable
 * characters, no blanks; only while recording.  -ENOSPC: the recording's
 * memory ran out (it has ended).
 */
static ssize_t mark_store(struct device *d, struct device_attribute *attr,
			  const char *buf, size_t len)
{
	struct sbd_device *dev = to_sbd(d);
	struct sbd_cache *c = &dev->cache;
	const char *p = buf, *name;
	struct sbd_point *pt;
	size_t name_len, i;
	int err = 0;

	name = sbd_next_word(&p, &name_len);
	if (!name || name_len > SBD_MARK_MAX || !sbd_input_ends(p))
		return -EINVAL;
	for (i = 0; i < name_len; i++)
		if (!isgraph(name[i]))
			return -EINVAL;

	mutex_lock(&c->mutex);
	if (!c->rec || c->rec->state != SBD_REC_ON) {
		err = -EINVAL;
		goto out;
	}
	spin_lock(&dev->lock);
	pt = sbd_record_add(c->rec, name_len);
	if (pt) {
		pt->kind = SBD_POINT_MARK;
		pt->pos = 0;
		pt->len = name_len;
		pt->fua = false;
		memcpy(c->rec->mem + pt->saved, name, name_len);
		c->rec->marks++;
		sbd_record_commit(dev, c->rec);
	}
	spin_unlock(&dev->lock);
	err = pt ? 0 : -ENOSPC;
out:
	mutex_unlock(&c->mutex);
	return err ?: len;
}
static DEVICE_ATTR_WO(mark);

/*
 * cut_at: "N" cuts the power the moment point N completes (N after the
 * last point; the recording must be on); "0" disarms.  At power on the
 * disk becomes the crash state (N, powercut_policy).
 */
static ssize_t cut_at_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct sbd_cache *c = &to_sbd(d)->cache;
	ssize_t ret;

	mutex_lock(&c->mutex);
	ret = sysfs_emit(buf, "%llu\n", c->rec ? c->rec->cut_at : 0);
	mutex_unlock(&c->mutex);
	return ret;
}

static ssize_t cut_at_store(struct device *d, struct device_attribute *attr,
			    const char *buf, size_t len)
{
	struct sbd_device *dev = to_sbd(d);
	struct sbd_cache *c = &dev->cache;
	const char *p = buf;
	int err = -EINVAL;
	u64 point;

	if (!sbd_parse_token(&p, &point) || !sbd_input_ends(p))
		return -EINVAL;
	mutex_lock(&c->mutex);
	spin_lock(&dev->lock);
	if (c->rec && c->rec->state == SBD_REC_ON &&
	    (!point || point > c->rec->npoints)) {
		c->rec->cut_at = point;
		err = 0;
	}
	spin_unlock(&dev->lock);
	mutex_unlock(&c->mutex);
	return err ?: len;
}
static DEVICE_ATTR_RW(cut_at);

/*
 * visit: "POINT POLICY" turns the disk into the crash state a cut right
 * after POINT would have left under POLICY (as powercut_policy reads it);
 * "end" brings back the recording's end, byte for byte.  Only once the
 * recording has ended, with the power on and no filesystem mounted on
 * the disk; anything else is -EINVAL.  Reads "end", "none" (no
 * recording) or the state visited.
 */
static ssize_t visit_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	struct sbd_cache *c = &to_sbd(d)->cache;
	struct sbd_record *r;
	ssize_t ret;

	mutex_lock(&c->mutex);
	r = c->rec;
	if (!r) {
		ret = sysfs_emit(buf, "none\n");
	} else if (!r->visiting) {
		ret = sysfs_emit(buf, "end\n");
	} else {
		ret = sysfs_emit(buf, "%llu ", r->point);
		ret += sbd_policy_emit(buf, ret, &r->policy);
	}
	mutex_unlock(&c->mutex);
	return ret;
}

static ssize_t visit_store(struct device *d, struct device_attribute *attr,
			   const char *buf, size_t len)
{
	struct sbd_device *dev = to_sbd(d);
	struct sbd_cache *c = &dev->cache;
	struct sbd_policy pol;
	const char *p = buf;
	size_t word_len;
	const char *word;
	bool to_end;
	u64 point = 0;
	int err = -EINVAL;

	word = sbd_next_word(&p, &word_len);
	to_end = sbd_word_is(word, word_len, "end");
	if (!to_end) {
		p = buf;
		if (!sbd_parse_token(&p, &point) || !sbd_parse_policy(&p, &pol))
			return -EINVAL;
	}
	if (!sbd_input_ends(p))
		return -EINVAL;

	mutex_lock(&c->mutex);
	if (c->rec && c->rec->state != SBD_REC_ON && !c->off &&
	    point <= c->rec->npoints && !sbd_disk_claimed(dev->disk)) {
		sbd_record_goto(dev, point, to_end ? NULL : &pol);
		err = 0;
	}
	mutex_unlock(&c->mutex);
	return err ?: len;
}
static DEVICE_ATTR_RW(visit);

/* One "name value" line per counter of the recording. */
static ssize_t record_stats_show(struct device *d,
				 struct device_attribute *attr, char *buf)
{
	struct sbd_device *dev = to_sbd(d);
	struct sbd_cache *c = &dev->cache;
	struct sbd_record *r;
	ssize_t ret;

	mutex_lock(&c->mutex);
	r = c->rec;
	if (!r) {
		ret = sysfs_emit(buf, "state none\n");
	} else {
		spin_lock(&dev->lock);
		ret = sysfs_emit(buf,
				 "state %s\npoints %llu\nwrites %llu\nflushes %llu\nfua_writes %llu\nmarks %llu\nsaved_bytes %llu\nmemory_bytes %zu\nmemory_used %llu\nvisits %llu\nmoved_bytes %llu\nlast_move_usec %llu\n",
				 sbd_rec_state_names[r->state], r->npoints,
				 r->writes, r->flushes, r->fua_writes, r->marks,
				 r->saved_bytes, r->size,
				 (u64)(r->size - r->low) +
				 r->npoints * sizeof(struct sbd_point),
				 r->visits, r->moved_bytes,
				 div_u64(r->last_move_ns, NSEC_PER_USEC));
		spin_unlock(&dev->lock);
	}
	mutex_unlock(&c->mutex);
	return ret;
}
static DEVICE_ATTR_RO(record_stats);

static struct attribute *sbd_attrs[] = {
	&dev_attr_size_bytes.attr,
	&dev_attr_hardsect_size.attr,
	&dev_attr_store_bytes.attr,
	&dev_attr_badblocks.attr,
	&dev_attr_power.attr,
	&dev_attr_powercut_policy.attr,
	&dev_attr_cache_stats.attr,
	&dev_attr_record.attr,
	&dev_attr_mark.attr,
	&dev_attr_cut_at.attr,
	&dev_attr_visit.attr,
	&dev_attr_record_stats.attr,
	NULL,
};

static umode_t sbd_attr_visible(struct kobject *kobj, struct attribute *attr,
				int n)
{
	struct sbd_device *dev = to_sbd(kobj_to_dev(kobj));
	bool cache_file = attr != &dev_attr_size_bytes.attr &&
			  attr != &dev_attr_hardsect_size.attr &&
			  attr != &dev_attr_store_bytes.attr &&
			  attr != &dev_attr_badblocks.attr;

	return cache_file && !dev->cache.log ? 0 : attr->mode;
}

static const struct attribute_group sbd_attr_group = {
	.name = SBD_NAME,
	.attrs = sbd_attrs,
	.is_visible = sbd_attr_visible,
};

static const struct attribute_group *sbd_attr_groups[] = {
	&sbd_attr_group,
	NULL,
};

/* ------------------------------------------------------------------ */
/* Set-up and tear-down                                                */
/* ------------------------------------------------------------------ */

/* Size in bytes of disk @i, from sizes= or else nsectors. */
static u64 sbd_disk_size(unsigned int i)
{
	return i < nr_sizes ? sizes[i].value :
			      nsectors.value * hardsect_size.value;
}

/*
 * Check every parameter before anything is allocated.  Each refusal is
 * a single line naming the parameter, its value and what is allowed.
 */
static int sbd_check_params(void)
{
	u64 ss = hardsect_size.value;
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;
	u64 bytes, total = 0;
	unsigned int i;

	if (!hardsect_size.parsed || ss < SECTOR_SIZE ||
	    ss > SBD_MAX_BLOCK_SIZE || !is_power_of_2(ss)) {
		pr_err("hardsect_size=%s is invalid: use a power of two from 512 to %lu (this kernel's largest logical block)\n",
		       hardsect_size.text, SBD_MAX_BLOCK_SIZE);
		return -EINVAL;
	}
	if (!nsectors.given)
		nsectors.value = SBD_DEFAULT_BYTES / ss;
	if (!nsectors.parsed || nsectors.value == 0) {
		pr_err("nsectors=%s is invalid: use a decimal number of %llu-byte sectors, at least 1\n",
		       nsectors.text, ss);
		return -EINVAL;
	}
	if (check_mul_overflow(nsectors.value, ss, &bytes)) {
		pr_err("nsectors=%s is invalid: nsectors * hardsect_size (%llu) overflows 64 bits\n",
		       nsectors.text, ss);
		return -EINVAL;
	}
	if (!ndevices.parsed || ndevices.value == 0 ||
	    ndevices.value > SBD_MAX_DEVICES) {
		pr_err("ndevices=%s is invalid: use a decimal number from 1 to %d\n",
		       ndevices.text, SBD_MAX_DEVICES);
		return -EINVAL;
	}
	if (!readonly.parsed) {
		pr_err("readonly=%s is invalid: use 0, 1, N or Y\n",
		       readonly.text);
		return -EINVAL;
	}
	for (i = 0; i < nr_sizes; i++) {
		if (!sizes[i].parsed || !sizes[i].value ||
		    sizes[i].value % ss) {
			pr_err("sizes: entry %u (%s) is invalid: use a nonzero multiple of hardsect_size (%llu) in bytes, K, M, G or T suffix allowed\n",
			       i, sizes[i].text, ss);
			return -EINVAL;
		}
	}
	if (!cache_mb.parsed || cache_mb.value > SBD_MAX_CACHE_MB) {
		pr_err("cache_mb=%s is invalid: use a decimal number of MiB, 0 (no write cache) to %u\n",
		       cache_mb.text, SBD_MAX_CACHE_MB);
		return -EINVAL;
	}

	/* sizes= may name more disks than ndevices= asks for. */
	sbd_ndevices = max_t(unsigned int, ndevices.value, nr_sizes);
	for (i = 0; i < sbd_ndevices; i++) {
		bytes = sbd_disk_size(i);
		if (check_add_overflow(total, bytes, &total))
			total = U64_MAX;
		/*
		 * Each disk's write cache is a vmalloc area of its own, with
		 * its entries, and its cut takes a bit per block
		 * (sbd_cache_init()).
		 */
		if (cache_mb.value &&
		    check_add_overflow(total, (cache_mb.value << 20) +
				       sbd_cache_entries(cache_mb.value << 20, ss) *
				       sizeof(struct sbd_log_entry) +
				       div_u64(bytes, ss * 8), &total))
			total = U64_MAX;
	}
	/*
	 * Refuse early what vmalloc can never give, rather than push the
	 * machine into reclaim and the OOM killer trying.  The message
	 * names what the user gave: the disks, or else the caches.
	 */
	if (total > ram) {
		u64 caches = (u64)sbd_ndevices * (cache_mb.value << 20);

		if (total - caches <= ram)
			pr_err("cache_mb=%s is too large: the %u disks and their write caches need %llu bytes, more than this machine's %llu bytes of RAM\n",
			       cache_mb.text, sbd_ndevices, total, ram);
		else if (sbd_ndevices == 1 && !nr_sizes && nsectors.given)
			pr_err("nsectors=%s is too large: %llu sectors of %llu bytes need %llu bytes, more than this machine's %llu bytes of RAM\n",
			       nsectors.text, nsectors.value, ss, total, ram);
		else
			pr_err("the %u disks are too large: %llu bytes in all is more than this machine's %llu bytes of RAM\n",
			       sbd_ndevices, total, ram);
		return -ENOMEM;
	}
	return 0;
}

static int sbd_init_tag_set(struct blk_mq_tag_set *set,
			    struct sbd_device *dev)
{
	set->ops = dev->cache.log ? &sbd_cache_mq_ops : &sbd_mq_ops;
	/*
	 * One hardware queue per CPU: submitters never share a hardware
	 * context or its tags; the only shared point is the store's lock.
	 */
	set->nr_hw_queues = num_online_cpus();
	set->queue_depth = SBD_QUEUE_DEPTH;
	/*
	 * The store is one vmalloc area with no home node; NUMA_NO_NODE
	 * lets blk-mq place each queue's tags on the node of its CPUs.
	 */
	set->numa_node = NUMA_NO_NODE;
	/* An I/O scheduler only adds work for a device with no seek cost. */
	set->flags = SBD_TAG_SET_MERGE | BLK_MQ_F_NO_SCHED_BY_DEFAULT;
	set->driver_data = dev;
	return blk_mq_alloc_tag_set(set);
}

/*
 * Prepare disk sbd<index> of @size bytes, everything but making it live.
 * Each disk has its own store, lock and tag set, so a busy disk never
 * takes another one's tags; disks share only the major number.
 */
static int sbd_alloc_device(struct sbd_device *dev, unsigned int index,
			    u64 size, unsigned int sect_size)
{
	struct queue_limits lim = {
		.logical_block_size	= sect_size,
		.physical_block_size	= sect_size,
		.max_hw_sectors		= SBD_MAX_REQUEST_SECTORS,
		.max_segments		= SBD_MAX_SEGMENTS,
		.max_hw_discard_sectors	= SBD_MAX_ZERO_SECTORS,
		.max_write_zeroes_sectors = SBD_MAX_ZERO_SECTORS,
		/* Zero even a single sector; 6.1 WARNs if this is left 0. */
		.discard_granularity	= sect_size,
	};
	struct gendisk *disk;
	int err;

	dev->size = size;
	dev->sect_size = sect_size;
	spin_lock_init(&dev->lock);
	mutex_init(&dev->badblocks_edit_lock);
	init_completion(&dev->released);
	/*
	 * Zeroed, so a fresh disk never shows stale kernel memory.
	 * __GFP_RETRY_MAYFAIL: when memory runs short, fail this load rather
	 * than have the OOM killer kill something else to make room.
	 * __GFP_NOWARN: the failure is reported below, in one line.
	 */
	dev->store = __vmalloc(size, GFP_KERNEL | __GFP_ZERO |
				     __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!dev->store) {
		pr_err("sbd%u: cannot allocate %llu bytes for the store\n",
		       index, size);
		return -ENOMEM;
	}

	if (cache_mb.value) {
		err = sbd_cache_init(dev, index, cache_mb.value << 20);
		if (err)
			goto out_free_store;
		lim.max_hw_discard_sectors = SBD_MAX_CACHED_ZERO_SECTORS;
		lim.max_write_zeroes_sectors = SBD_MAX_CACHED_ZERO_SECTORS;
	}

	err = badblocks_init(&dev->badblocks, 1);
	if (err)
		goto out_free_cache;

	err = sbd_init_tag_set(&dev->tag_set, dev);
	if (err)
		goto out_exit_badblocks;

	disk = sbd_alloc_disk(&dev->tag_set, &lim, dev, !!dev->cache.log);
	if (IS_ERR(disk)) {
		err = PTR_ERR(disk);
		goto out_free_tag_set;
	}
	dev->disk = disk;
	disk->major = sbd_major;
	disk->first_minor = index * SBD_MINORS;
	disk->minors = SBD_MINORS;
	disk->fops = &sbd_fops;
	disk->private_data = dev;
	snprintf(disk->disk_name, DISK_NAME_LEN, SBD_NAME "%u", index);
	set_capacity(disk, size >> SECTOR_SHIFT);
	set_disk_ro(disk, readonly.value);
	return 0;

out_free_tag_set:
	blk_mq_free_tag_set(&dev->tag_set);
out_exit_badblocks:
	badblocks_exit(&dev->badblocks);
out_free_cache:
	sbd_cache_free(dev);
out_free_store:
	vfree(dev->store);
	return err;
}

/*
 * Undo sbd_alloc_device(); the disk must not be live (or no longer).
 * A disk that was live may still be open: a process (udev, say) that
 * opened it before del_gendisk() holds it, and with it the module, until
 * it closes it.  Module exit never sees that (the module reference makes
 * rmmod wait for the close), but a failed init would free the module
 * regardless, under the opener's feet.  So wait until the gendisk is
 * released, and only then free what its queue still points to.
 */
static void sbd_free_device(struct sbd_device *dev)
{
	put_disk(dev->disk);
	if (dev->added && !try_wait_for_completion(&dev->released)) {
		pr_info("%s: waiting for the process that has it open to close it\n",
			dev->disk->disk_name);
		wait_for_completion(&dev->released);
	}
	blk_mq_free_tag_set(&dev->tag_set);
	badblocks_exit(&dev->badblocks);
	sbd_cache_free(dev);
	vfree(dev->store);
}

static int sbd_add_device(struct sbd_device *dev)
{
	struct gendisk *disk = dev->disk;
	int err;

	/*
	 * A fresh store is all zeros, so there is no partition table to
	 * find: skip add_disk()'s scan (why it matters: sbd.h).  A table
	 * written later is read as usual (sfdisk, blockdev --rereadpt).
	 */
	err = sbd_add_disk_unscanned(disk, sbd_attr_groups);
	if (err)
		return err;
	dev->added = true;
	/* The recording's points; debugfs errors are not sbd's to report. */
	if (dev->cache.log) {
		dev->debugfs = debugfs_create_dir(disk->disk_name, sbd_debugfs);
		debugfs_create_file("points", 0444, dev->debugfs, dev,
				    &sbd_listing_fops);
		debugfs_create_file("log-writes", 0444, dev->debugfs, dev,
				    &sbd_export_fops);
	}
	pr_info("%s: %llu bytes (%llu MiB), %u-byte sectors, %u hardware queues%s%s\n",
		disk->disk_name, dev->size, dev->size >> 20, dev->sect_size,
		dev->tag_set.nr_hw_queues, readonly.value ? ", read-only" : "",
		dev->cache.log ? ", volatile write cache" : "");
	return 0;
}

static void sbd_free_devices(unsigned int count)
{
	while (count--)
		sbd_free_device(&sbd_devices[count]);
	kfree(sbd_devices);
}

/*
 * del_gendisk() waits for every request in flight and lets no new one
 * in, so a store is freed only after the last copy that could use it.
 */
static void sbd_del_disks(unsigned int count)
{
	while (count--) {
		/* Waits for readers of the listing, which use the device. */
		debugfs_remove_recursive(sbd_devices[count].debugfs);
		del_gendisk(sbd_devices[count].disk);
	}
}

static int __init sbd_init(void)
{
	unsigned int allocated, added;
	int err;

	err = sbd_check_params();
	if (err)
		return err;

	sbd_devices = kcalloc(sbd_ndevices, sizeof(*sbd_devices), GFP_KERNEL);
	if (!sbd_devices)
		return -ENOMEM;

	/* Major 0 asks for a dynamic major; it shows in /proc/devices. */
	sbd_major = register_blkdev(0, SBD_NAME);
	if (sbd_major < 0) {
		kfree(sbd_devices);
		return sbd_major;
	}
	sbd_debugfs = debugfs_create_dir(SBD_NAME, NULL);

	/*
	 * Allocate every disk before the first goes live, so that once
	 * user space can see and open a disk, only add_disk() of a later
	 * one can still fail the load.
	 */
	for (allocated = 0; allocated < sbd_ndevices; allocated++) {
		err = sbd_alloc_device(&sbd_devices[allocated], allocated,
				       sbd_disk_size(allocated),
				       hardsect_size.value);
		if (err)
			goto out_free;
	}
	for (added = 0; added < sbd_ndevices; added++) {
		err = sbd_add_device(&sbd_devices[added]);
		if (err)
			goto out_del;
	}
	return 0;

out_del:
	sbd_del_disks(added);
out_free:
	sbd_free_devices(allocated);
	debugfs_remove_recursive(sbd_debugfs);
	unregister_blkdev(sbd_major, SBD_NAME);
	return err;
}

static void __exit sbd_exit(void)
{
	sbd_del_disks(sbd_ndevices);
	sbd_free_devices(sbd_ndevices);
	debugfs_remove_recursive(sbd_debugfs);
	unregister_blkdev(sbd_major, SBD_NAME);
}

module_init(sbd_init);
module_exit(sbd_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sbd: a simple RAM-backed blk-mq block device");
MODULE_AUTHOR("The sbd developers");
MODULE_VERSION(SBD_VERSION);
