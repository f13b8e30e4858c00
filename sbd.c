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
 * Read it top to bottom: parameters, the request path, device set-up,
 * module init and exit.
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

#include "sbd.h"

#define SBD_NAME		"sbd"
/* Minor numbers per disk: the disk itself and up to 15 partitions. */
#define SBD_MINORS		16
#define SBD_DEFAULT_NSECTORS	131072		/* 64 MiB of 512-byte sectors */
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
#define SBD_QUEUE_DEPTH		128

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
	bool is_number;
	char text[24];		/* as the user typed it, for messages */
};

static int sbd_param_set(const char *val, const struct kernel_param *kp)
{
	struct sbd_param *p = kp->arg;

	strscpy(p->text, val, sizeof(p->text));
	p->is_number = !kstrtou64(val, 0, &p->value);
	return 0;
}

static int sbd_param_get(char *buf, const struct kernel_param *kp)
{
	const struct sbd_param *p = kp->arg;

	return sysfs_emit(buf, "%llu\n", p->value);
}

static const struct kernel_param_ops sbd_param_ops = {
	.set = sbd_param_set,
	.get = sbd_param_get,
};

static struct sbd_param nsectors = {
	.value = SBD_DEFAULT_NSECTORS, .is_number = true,
};
module_param_cb(nsectors, &sbd_param_ops, &nsectors, 0444);
__MODULE_PARM_TYPE(nsectors, "ullong");
MODULE_PARM_DESC(nsectors,
		 "Device size in hardsect_size-byte sectors (default 131072, i.e. 64 MiB at 512 bytes)");

static struct sbd_param hardsect_size = {
	.value = SBD_DEFAULT_SECT_SIZE, .is_number = true,
};
module_param_cb(hardsect_size, &sbd_param_ops, &hardsect_size, 0444);
__MODULE_PARM_TYPE(hardsect_size, "uint");
MODULE_PARM_DESC(hardsect_size,
		 "Logical block size in bytes: 512, 1024, 2048 or 4096 (default 512)");

/* ------------------------------------------------------------------ */
/* The device                                                          */
/* ------------------------------------------------------------------ */

struct sbd_device {
	u64 size;			/* bytes */
	u8 *store;			/* vmalloc'ed, @size bytes */
	spinlock_t lock;		/* serializes access to @store */
	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
};

static int sbd_major;
static struct sbd_device sbd_dev;

/* ------------------------------------------------------------------ */
/* The request path                                                    */
/* ------------------------------------------------------------------ */

/*
 * Copy a READ or WRITE between the request's pages and the store.
 * rq_for_each_segment() yields single-page segments, which is what the
 * memcpy_*_bvec() helpers (kmap_local inside) expect.  The lock is held
 * per segment: long enough that no reader sees a half-written segment,
 * short enough that a 4 MiB request does not stall the other queues.
 */
static void sbd_copy_rq(struct sbd_device *dev, struct request *rq, u64 pos)
{
	bool write = op_is_write(req_op(rq));
	struct req_iterator iter;
	struct bio_vec bvec;

	rq_for_each_segment(bvec, rq, iter) {
		u8 *mem = dev->store + pos;

		spin_lock(&dev->lock);
		if (write)
			memcpy_from_bvec(mem, &bvec);
		else
			memcpy_to_bvec(&bvec, mem);
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

static blk_status_t sbd_do_rq(struct sbd_device *dev, struct request *rq)
{
	/* blk_rq_pos() counts 512-byte sectors, whatever hardsect_size is. */
	u64 pos = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	u32 len = blk_rq_bytes(rq);

	/* Written so it cannot overflow: no request leaves the store. */
	if (pos > dev->size || len > dev->size - pos)
		return BLK_STS_IOERR;

	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		sbd_copy_rq(dev, rq, pos);
		return BLK_STS_OK;
	case REQ_OP_FLUSH:
		/* No volatile cache: every write is already in the store. */
		return BLK_STS_OK;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		sbd_zero_range(dev, pos, len);
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

static const struct blk_mq_ops sbd_mq_ops = {
	.queue_rq = sbd_queue_rq,
};

/*
 * Nothing to do on open or release: a RAM disk has no media to check.
 * .owner makes the block layer pin the module while the disk is open or
 * mounted, so rmmod is refused (-EBUSY) until it is closed.
 */
static const struct block_device_operations sbd_fops = {
	.owner = THIS_MODULE,
};

/* ------------------------------------------------------------------ */
/* Set-up and tear-down                                                */
/* ------------------------------------------------------------------ */

/*
 * Check the parameters and compute the size.  Each refusal is a single
 * line naming the parameter, its value and what is allowed.
 */
static int sbd_check_params(u64 *size)
{
	u64 ss = hardsect_size.value;
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	if (!hardsect_size.is_number || ss < SECTOR_SIZE || ss > PAGE_SIZE ||
	    !is_power_of_2(ss)) {
		pr_err("hardsect_size=%s is invalid: use 512, 1024, 2048 or %lu (a power of two from 512 to the page size)\n",
		       hardsect_size.text, PAGE_SIZE);
		return -EINVAL;
	}
	if (!nsectors.is_number || nsectors.value == 0) {
		pr_err("nsectors=%s is invalid: use a whole number of %llu-byte sectors, at least 1\n",
		       nsectors.text, ss);
		return -EINVAL;
	}
	if (check_mul_overflow(nsectors.value, ss, size)) {
		pr_err("nsectors=%s is invalid: nsectors * hardsect_size (%llu) overflows 64 bits\n",
		       nsectors.text, ss);
		return -EINVAL;
	}
	/* Refuse early what vmalloc can never give, rather than push the
	 * machine into reclaim and the OOM killer trying.
	 */
	if (*size > ram) {
		pr_err("nsectors=%s is too large: %llu bytes is more than this machine's %llu bytes of RAM\n",
		       nsectors.text, *size, ram);
		return -ENOMEM;
	}
	return 0;
}

static int sbd_init_tag_set(struct blk_mq_tag_set *set, void *driver_data)
{
	set->ops = &sbd_mq_ops;
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
	set->driver_data = driver_data;
	return blk_mq_alloc_tag_set(set);
}

static int sbd_add_device(struct sbd_device *dev, int index, u64 size,
			  unsigned int sect_size)
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
	spin_lock_init(&dev->lock);
	/*
	 * Zeroed, so a fresh disk never shows stale kernel memory.
	 * __GFP_NOWARN: a failure is reported below, in one line.
	 */
	dev->store = __vmalloc(size, GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (!dev->store) {
		pr_err("nsectors=%s: cannot allocate %llu bytes for the store\n",
		       nsectors.text, size);
		return -ENOMEM;
	}

	err = sbd_init_tag_set(&dev->tag_set, dev);
	if (err)
		goto out_free_store;

	disk = sbd_alloc_disk(&dev->tag_set, &lim, dev);
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
	snprintf(disk->disk_name, DISK_NAME_LEN, SBD_NAME "%d", index);
	set_capacity(disk, size >> SECTOR_SHIFT);

	err = add_disk(disk);
	if (err)
		goto out_put_disk;

	pr_info("%s: %llu bytes (%llu MiB), %u-byte sectors, %u hardware queues\n",
		disk->disk_name, size, size >> 20, sect_size,
		dev->tag_set.nr_hw_queues);
	return 0;

out_put_disk:
	put_disk(disk);
out_free_tag_set:
	blk_mq_free_tag_set(&dev->tag_set);
out_free_store:
	vfree(dev->store);
	return err;
}

/*
 * del_gendisk() waits for every request in flight and lets no new one
 * in, so the store is freed only after the last copy that could use it.
 */
static void sbd_remove_device(struct sbd_device *dev)
{
	del_gendisk(dev->disk);
	put_disk(dev->disk);
	blk_mq_free_tag_set(&dev->tag_set);
	vfree(dev->store);
}

static int __init sbd_init(void)
{
	u64 size;
	int err;

	err = sbd_check_params(&size);
	if (err)
		return err;

	/* Major 0 asks for a dynamic major; it shows in /proc/devices. */
	sbd_major = register_blkdev(0, SBD_NAME);
	if (sbd_major < 0)
		return sbd_major;

	err = sbd_add_device(&sbd_dev, 0, size, hardsect_size.value);
	if (err) {
		unregister_blkdev(sbd_major, SBD_NAME);
		return err;
	}
	return 0;
}

static void __exit sbd_exit(void)
{
	sbd_remove_device(&sbd_dev);
	unregister_blkdev(sbd_major, SBD_NAME);
}

module_init(sbd_init);
module_exit(sbd_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sbd: a simple RAM-backed blk-mq block device");
MODULE_AUTHOR("The sbd developers");
MODULE_VERSION(SBD_VERSION);
