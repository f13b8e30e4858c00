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
 * which is what filesystem and storage-stack testers need.
 *
 * Read it top to bottom: parameters, the request path, sysfs, device
 * set-up, module init and exit.
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
/*
 * Requests, discards and write-zeroes are whole logical blocks: each
 * limit must be a whole number of the largest block sbd accepts.
 */
static_assert(SBD_MAX_REQUEST_SECTORS % (SBD_MAX_BLOCK_SIZE >> SECTOR_SHIFT) == 0);
static_assert(SBD_MAX_ZERO_SECTORS % (SBD_MAX_BLOCK_SIZE >> SECTOR_SHIFT) == 0);
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
 * instead of -EINVAL for an overflow.)
 */
struct sbd_param {
	u64 value;
	bool parsed;		/* false if the text was not a valid value */
	char text[24];		/* as the user typed it, for messages */
};

static int sbd_param_set(const char *val, const struct kernel_param *kp)
{
	struct sbd_param *p = kp->arg;

	strscpy(p->text, val, sizeof(p->text));
	p->parsed = !kstrtou64(val, 0, &p->value);
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

static struct sbd_param nsectors = {
	.value = SBD_DEFAULT_NSECTORS, .parsed = true,
};
module_param_cb(nsectors, &sbd_param_ops, &nsectors, 0444);
__MODULE_PARM_TYPE(nsectors, "ullong");
MODULE_PARM_DESC(nsectors,
		 "Size of each disk in hardsect_size-byte sectors (default 131072, i.e. 64 MiB at 512 bytes)");

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
	size_t len = strcspn(text, "\n");
	unsigned int shift = 0;
	const char *suffix;
	char digits[24];

	suffix = len ? strchr(suffixes, toupper(text[len - 1])) : NULL;
	if (suffix) {
		shift = 10 * (suffix - suffixes + 1);
		len--;
	}
	if (!len || len >= sizeof(digits))
		return false;
	memcpy(digits, text, len);
	digits[len] = '\0';
	return !kstrtou64(digits, 10, bytes) &&
	       !check_shl_overflow(*bytes, shift, bytes);
}

static int sbd_size_param_set(const char *val, const struct kernel_param *kp)
{
	struct sbd_param *p = kp->arg;

	strscpy(p->text, val, sizeof(p->text));
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

static bool readonly;
module_param(readonly, bool, 0444);
MODULE_PARM_DESC(readonly,
		 "Make every disk read-only from load time (default N)");

/* ------------------------------------------------------------------ */
/* The device                                                          */
/* ------------------------------------------------------------------ */

struct sbd_device {
	u64 size;			/* bytes */
	unsigned int sect_size;		/* logical block size, bytes */
	u8 *store;			/* vmalloc'ed, @size bytes */
	spinlock_t lock;		/* serializes access to @store */
	struct badblocks badblocks;	/* sectors that fail all I/O */
	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
};

static int sbd_major;
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
 * architecture's page copy; anything else with memcpy().  In bench.sh on
 * 7.2, whose memcpy() is slower, this made 4 KiB I/O 11% and 1 MiB I/O
 * 2.5x faster; on 6.12 it makes no difference (see README).
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

static blk_status_t sbd_do_rq(struct sbd_device *dev, struct request *rq)
{
	/* blk_rq_pos() counts 512-byte sectors, whatever hardsect_size is. */
	u64 pos = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	u32 len = blk_rq_bytes(rq);

	enum req_op op = req_op(rq);

	/* Written so it cannot overflow: no request leaves the store. */
	if (pos > dev->size || len > dev->size - pos)
		return BLK_STS_IOERR;

	if (op == REQ_OP_READ || op == REQ_OP_WRITE ||
	    op == REQ_OP_DISCARD || op == REQ_OP_WRITE_ZEROES) {
		/* Injected bad sectors fail the whole request, data untouched. */
		if (unlikely(READ_ONCE(dev->badblocks.count)) &&
		    sbd_badblocks_hit(&dev->badblocks, blk_rq_pos(rq),
				      blk_rq_sectors(rq)))
			return BLK_STS_IOERR;
		/*
		 * The block layer refuses user writes to a read-only disk;
		 * this makes sure nothing else changes one either.
		 */
		if (op != REQ_OP_READ && get_disk_ro(dev->disk))
			return BLK_STS_IOERR;
	}

	switch (op) {
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
static ssize_t badblocks_list(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	return badblocks_show(&to_sbd(d)->badblocks, buf, 0);
}

/*
 * "+START COUNT" marks COUNT 512-byte sectors from START bad; any request
 * touching them fails with an I/O error.  "-START COUNT" clears them.
 * Anything else, or a range outside the disk, is -EINVAL.
 */
static ssize_t badblocks_edit(struct device *d, struct device_attribute *attr,
			      const char *buf, size_t len)
{
	struct sbd_device *dev = to_sbd(d);
	u64 capacity = dev->size >> SECTOR_SHIFT;
	char op, start_text[24], count_text[24], extra;
	u64 start, count;
	bool done;

	if (sscanf(buf, "%c%23s %23s %c", &op, start_text, count_text,
		   &extra) != 3 || (op != '+' && op != '-') ||
	    kstrtou64(start_text, 10, &start) ||
	    kstrtou64(count_text, 10, &count) ||
	    count == 0 || start >= capacity || count > capacity - start)
		return -EINVAL;

	done = sbd_badblocks_update(&dev->badblocks, start, count, op == '+');
	/* The kernel's table holds a page of ranges; it can fill up. */
	return done ? len : -ENOSPC;
}

/* Not DEVICE_ATTR_RW(): badblocks_show/_store name the kernel's helpers. */
static struct device_attribute dev_attr_badblocks =
	__ATTR(badblocks, 0644, badblocks_list, badblocks_edit);

static struct attribute *sbd_attrs[] = {
	&dev_attr_size_bytes.attr,
	&dev_attr_hardsect_size.attr,
	&dev_attr_store_bytes.attr,
	&dev_attr_badblocks.attr,
	NULL,
};

static const struct attribute_group sbd_attr_group = {
	.name = SBD_NAME,
	.attrs = sbd_attrs,
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
	if (!nsectors.parsed || nsectors.value == 0) {
		pr_err("nsectors=%s is invalid: use a whole number of %llu-byte sectors, at least 1\n",
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
		pr_err("ndevices=%s is invalid: use 1 to %d\n",
		       ndevices.text, SBD_MAX_DEVICES);
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

	/* sizes= may name more disks than ndevices= asks for. */
	sbd_ndevices = max_t(unsigned int, ndevices.value, nr_sizes);
	for (i = 0; i < sbd_ndevices; i++) {
		if (check_add_overflow(total, sbd_disk_size(i), &total))
			total = U64_MAX;
	}
	/* Refuse early what vmalloc can never give, rather than push the
	 * machine into reclaim and the OOM killer trying.
	 */
	if (total > ram) {
		if (sbd_ndevices == 1 && !nr_sizes)
			pr_err("nsectors=%s is too large: %llu bytes is more than this machine's %llu bytes of RAM\n",
			       nsectors.text, total, ram);
		else
			pr_err("the %u disks are too large: %llu bytes in all is more than this machine's %llu bytes of RAM\n",
			       sbd_ndevices, total, ram);
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

	err = badblocks_init(&dev->badblocks, 1);
	if (err)
		goto out_free_store;

	err = sbd_init_tag_set(&dev->tag_set, dev);
	if (err)
		goto out_exit_badblocks;

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
	snprintf(disk->disk_name, DISK_NAME_LEN, SBD_NAME "%u", index);
	set_capacity(disk, size >> SECTOR_SHIFT);
	set_disk_ro(disk, readonly);
	return 0;

out_free_tag_set:
	blk_mq_free_tag_set(&dev->tag_set);
out_exit_badblocks:
	badblocks_exit(&dev->badblocks);
out_free_store:
	vfree(dev->store);
	return err;
}

/* Undo sbd_alloc_device(); the disk must not be live (or no longer). */
static void sbd_free_device(struct sbd_device *dev)
{
	put_disk(dev->disk);
	blk_mq_free_tag_set(&dev->tag_set);
	badblocks_exit(&dev->badblocks);
	vfree(dev->store);
}

static int sbd_add_device(struct sbd_device *dev)
{
	struct gendisk *disk = dev->disk;
	int err;

	/*
	 * A fresh store is all zeros, so there is no partition table to
	 * find: skip add_disk()'s scan.  The scan opens the disk, and since
	 * 6.9 that open is closed only when insmod returns to user space;
	 * if a later disk then failed to add, the close would run the
	 * freed module's code.  A table written later is read as usual
	 * (sfdisk, blockdev --rereadpt), once the bit is cleared.
	 */
	set_bit(GD_SUPPRESS_PART_SCAN, &disk->state);
	err = device_add_disk(NULL, disk, sbd_attr_groups);
	clear_bit(GD_SUPPRESS_PART_SCAN, &disk->state);
	if (err)
		return err;
	pr_info("%s: %llu bytes (%llu MiB), %u-byte sectors, %u hardware queues%s\n",
		disk->disk_name, dev->size, dev->size >> 20, dev->sect_size,
		dev->tag_set.nr_hw_queues, readonly ? ", read-only" : "");
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
	while (count--)
		del_gendisk(sbd_devices[count].disk);
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
	unregister_blkdev(sbd_major, SBD_NAME);
	return err;
}

static void __exit sbd_exit(void)
{
	sbd_del_disks(sbd_ndevices);
	sbd_free_devices(sbd_ndevices);
	unregister_blkdev(sbd_major, SBD_NAME);
}

module_init(sbd_init);
module_exit(sbd_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sbd: a simple RAM-backed blk-mq block device");
MODULE_AUTHOR("The sbd developers");
MODULE_VERSION(SBD_VERSION);
