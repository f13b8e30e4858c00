// SPDX-License-Identifier: GPL-2.0
/*
 * sbd - a simple block device: a RAM disk on blk-mq.
 *
 * This is the "sbd" of LWN's 2003 "Driver porting: a simple block driver",
 * redone for today's block layer.  The shape is the same: a vmalloc'ed
 * store, a major number, a gendisk, and a function that copies each
 * request to or from the store under a spinlock.  What changed is the
 * plumbing around it; sbd-compat.h holds the few places where kernels
 * differ.
 *
 * Beyond the article, sbd can create several disks of different sizes,
 * make them read-only, and fail I/O to sectors marked bad through sysfs,
 * which is what filesystem and storage-stack testers need.  With a
 * volatile write cache (cache_mb=), a test can cut a disk's power and
 * see which writes a real drive could have lost, or record a run and
 * visit every crash state it could have left: that lives in
 * sbd-cache.c, sbd-record.c and sbd-export.c, and a disk without a cache
 * never enters them.  sbd.h says how the files fit together.
 *
 * Read it top to bottom: parameters, the device, the request path,
 * sysfs, device set-up, module init and exit.
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
#include <linux/debugfs.h>

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

/* ------------------------------------------------------------------ */
/* Module parameters                                                   */
/* ------------------------------------------------------------------ */

/*
 * Parameters are parsed when given but judged in sbd_check_params(), so
 * that every bad value, a non-number included, is refused with one line
 * naming the parameter, the value and what is allowed.  (The stock
 * integer parsers fail before init with a generic message, and -ERANGE
 * instead of -EINVAL for an overflow.)  Numbers are read by
 * sbd_parse_decimal() in sbd-input.c, which sysfs input shares.
 */
struct sbd_param {
	u64 value;
	bool parsed;		/* false if the text was not a valid value */
	bool given;		/* on the command line, not the default */
	char text[24];		/* as the user typed it, for messages */
};

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

/*
 * Each disk is a struct sbd_device, in sbd.h because the feature files
 * use it too: its size and logical block size, the vmalloc'ed store,
 * the spinlock that serializes copies to and from it, its bad sectors,
 * its tag set and gendisk, and its volatile write cache if it has one.
 */
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
 * sbd_copy_seg() (sbd-copy.c, which the write cache uses too) copies
 * each: a whole page with copy_page(), anything else with memcpy().
 */
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

/*
 * A disk with a cache gets its own queue_rq (sbd_cache_queue_rq()), so
 * that the power switch and the writes it holds cost the other disks
 * nothing.  While the power is cut, every request fails, reads
 * included, as on a drive that is off.
 */
static void sbd_cache_end_rq(struct sbd_device *dev, struct request *rq)
{
	blk_mq_end_request(rq, READ_ONCE(dev->cache.off) ? BLK_STS_IOERR :
							   sbd_do_rq(dev, rq));
}

/*
 * Writes a FLUSH need not cover.  A FLUSH makes durable the writes that
 * completed before it was sent; a write still in flight then may reach
 * the media before it or after it.  sbd ends each write as it arrives,
 * so a FLUSH finds every write sent before it done and covers them all:
 * a file system that sends a FLUSH without waiting for its writes is
 * never caught.  With hold_writes_ms = N (sysfs), writes, discards and
 * write-zeroes are held back up to N ms, not yet carried out.  A FLUSH
 * that arrives meanwhile is carried out first, covering none of them
 * (a recording lists it before them, in completion order), and then
 * they are, oldest first.  Reads are not held: one that meets a held
 * write reads what was there before it, as it may while one is in flight.
 */
static void sbd_end_held(struct sbd_device *dev, bool overtaken)
{
	struct sbd_cache *c = &dev->cache;
	struct list_head *entry, *next;
	LIST_HEAD(held);

	spin_lock(&c->held_lock);
	/* Counted before any ends: whoever waits for one sees the count. */
	if (overtaken)
		list_for_each(entry, &c->held)
			c->overtaken_writes++;
	list_splice_init(&c->held, &held);
	spin_unlock(&c->held_lock);
	list_for_each_safe(entry, next, &held) {
		list_del(entry);
		sbd_cache_end_rq(dev, blk_mq_rq_from_pdu(entry));
	}
}

static void sbd_held_work(struct work_struct *work)
{
	struct sbd_cache *c = container_of(to_delayed_work(work),
					   struct sbd_cache, held_work);

	sbd_end_held(container_of(c, struct sbd_device, cache), false);
}

/* Hold @rq if it is a write, or carry out a FLUSH before those held. */
static bool sbd_hold_rq(struct sbd_device *dev, struct request *rq,
			unsigned int ms)
{
	struct sbd_cache *c = &dev->cache;

	switch (req_op(rq)) {
	case REQ_OP_WRITE:
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		spin_lock(&c->held_lock);
		list_add_tail(blk_mq_rq_to_pdu(rq), &c->held);
		c->held_writes++;
		spin_unlock(&c->held_lock);
		/* Does nothing while pending: none waits longer than @ms. */
		queue_delayed_work(system_wq, &c->held_work,
				   msecs_to_jiffies(ms));
		return true;
	case REQ_OP_FLUSH:
		sbd_cache_end_rq(dev, rq);
		sbd_end_held(dev, true);
		return true;
	default:
		return false;
	}
}

static blk_status_t sbd_cache_queue_rq(struct blk_mq_hw_ctx *hctx,
				       const struct blk_mq_queue_data *bd)
{
	struct sbd_device *dev = hctx->queue->queuedata;
	unsigned int hold_ms = READ_ONCE(dev->cache.hold_ms);
	struct request *rq = bd->rq;

	blk_mq_start_request(rq);
	if (unlikely(hold_ms) && sbd_hold_rq(dev, rq, hold_ms))
		return BLK_STS_OK;
	sbd_cache_end_rq(dev, rq);
	return BLK_STS_OK;
}

static const struct blk_mq_ops sbd_cache_mq_ops = {
	.queue_rq = sbd_cache_queue_rq,
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
/* sysfs: /sys/block/sbdN/sbd/                                         */
/* ------------------------------------------------------------------ */

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

static struct attribute *sbd_attrs[] = {
	&dev_attr_size_bytes.attr,
	&dev_attr_hardsect_size.attr,
	&dev_attr_store_bytes.attr,
	&dev_attr_badblocks.attr,
	/* sbd-cache.c's and sbd-record.c's, on a disk with a cache only: */
	&dev_attr_power.attr,
	&dev_attr_powercut_policy.attr,
	&dev_attr_cache_stats.attr,
	&dev_attr_record.attr,
	&dev_attr_mark.attr,
	&dev_attr_cut_at.attr,
	&dev_attr_visit.attr,
	&dev_attr_record_stats.attr,
	&dev_attr_hold_writes_ms.attr,
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
		    check_add_overflow(total,
				       sbd_cache_memory(cache_mb.value << 20, ss) +
				       div_u64(bytes, ss * 8), &total))
			total = U64_MAX;
	}
	/*
	 * Refuse early what vmalloc can never give, rather than push the
	 * machine into reclaim and the OOM killer trying.  The message
	 * names what the user gave: the disks, or else the caches.
	 */
	if (total > ram) {
		u64 caches = cache_mb.value ? (u64)sbd_ndevices *
			sbd_cache_memory(cache_mb.value << 20, ss) : 0;

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
	/* A disk with a cache links the writes it holds by their data. */
	if (dev->cache.log)
		set->cmd_size = sizeof(struct list_head);
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
		INIT_DELAYED_WORK(&dev->cache.held_work, sbd_held_work);
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
	/* No write is held once the disk is gone: the work may still be due. */
	if (dev->cache.log)
		cancel_delayed_work_sync(&dev->cache.held_work);
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
	 * find: skip add_disk()'s scan (why it matters: sbd-compat.h).  A table
	 * written later is read as usual (sfdisk, blockdev --rereadpt).
	 */
	err = sbd_add_disk_unscanned(disk, sbd_attr_groups);
	if (err)
		return err;
	dev->added = true;
	if (dev->cache.log)
		sbd_export_add_debugfs(dev, sbd_debugfs);
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
		sbd_export_remove_debugfs(&sbd_devices[count]);
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
		/*
		 * The array outlives any sysfs write that names a peer:
		 * sbd_exit() frees it only after del_gendisk() of every disk,
		 * which waits for the writes in progress.
		 */
		sbd_devices[allocated].peers = sbd_devices;
		sbd_devices[allocated].npeers = sbd_ndevices;
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
