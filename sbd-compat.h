/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where sbd meets the differences between kernels.
 *
 * sbd.c and the feature files (sbd-*.c) are written against the block
 * layer of today (7.x).  Each helper below hides one API that changed
 * between 6.1 LTS and now, and says which kernel changed it.  Add a
 * kernel by adjusting these, not the .c files.
 */
#ifndef SBD_COMPAT_H
#define SBD_COMPAT_H

#include <linux/version.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/badblocks.h>

/*
 * SBD_MAX_BLOCK_SIZE: the largest logical block size this kernel takes.
 * Up to 6.14 that was the page size.  6.15 (47dd67532303 "block/bdev:
 * lift block size restrictions to 64k") defined BLK_MAX_BLOCK_SIZE: 64 KiB
 * with CONFIG_TRANSPARENT_HUGEPAGE (the page cache then holds a block in
 * one large folio), else still the page size.  Keyed on the macro, not
 * on the version, so that a backport of the change is picked up too.
 * SBD_MAX_BLOCK_TEXT says the same for modinfo.
 */
#ifdef BLK_MAX_BLOCK_SIZE
#define SBD_MAX_BLOCK_SIZE	((unsigned long)BLK_MAX_BLOCK_SIZE)
#define SBD_MAX_BLOCK_TEXT	"65536 with transparent hugepages, else the page size"
#else
#define SBD_MAX_BLOCK_SIZE	PAGE_SIZE
#define SBD_MAX_BLOCK_TEXT	"the page size"
#endif

/*
 * sbd_rq_list: the list of requests blk-mq hands to .queue_rqs.  It was
 * a bare chain ("struct request *", popped with the rq_list_pop() macro)
 * until the rq_list type with head and tail (a3396b99990d "block: add a
 * rq_list type", 6.13, and backported to 6.12 stable kernels, Debian's
 * among them).  rq_list_pop() is a macro before that change and an
 * inline function after it, which tells the two apart where a version
 * number cannot.  Either way rq_list_pop(list) takes a pointer to it.
 */
#ifdef rq_list_pop
typedef struct request *sbd_rq_list;
#else
typedef struct rq_list sbd_rq_list;
#endif

/*
 * 6.14 made merging unconditional and removed BLK_MQ_F_SHOULD_MERGE;
 * before it, a tag set had to ask for merges.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0)
#define SBD_TAG_SET_MERGE BLK_MQ_F_SHOULD_MERGE
#else
#define SBD_TAG_SET_MERGE 0
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
/*
 * Before 6.9 a queue was allocated with default limits and then adjusted
 * one setter at a time; the setters were removed in 6.10 and 6.11.
 */
static inline void sbd_apply_limits(struct request_queue *q,
				    const struct queue_limits *lim)
{
	blk_queue_logical_block_size(q, lim->logical_block_size);
	blk_queue_physical_block_size(q, lim->physical_block_size);
	blk_queue_max_hw_sectors(q, lim->max_hw_sectors);
	blk_queue_max_segments(q, lim->max_segments);
	blk_queue_max_discard_sectors(q, lim->max_hw_discard_sectors);
	blk_queue_max_write_zeroes_sectors(q, lim->max_write_zeroes_sectors);
	/* No setter existed for the granularity: drivers wrote it directly. */
	q->limits.discard_granularity = lim->discard_granularity;
}
#endif

/*
 * sbd_alloc_disk() - blk_mq_alloc_disk() with the limits applied.
 *
 * 6.9 added the limits argument (applied atomically at allocation).
 * 6.11 turned queue flags into lim->features and made non-rotational the
 * default; before it, a queue was rotational until told otherwise.  The
 * same change moved "this disk has a volatile write cache and honours
 * FUA" from blk_queue_write_cache(q, true, true) to BLK_FEAT_WRITE_CACHE
 * and BLK_FEAT_FUA in lim->features; @write_cache asks for both.
 * Returns an ERR_PTR on failure, like blk_mq_alloc_disk() on every kernel.
 */
static inline struct gendisk *sbd_alloc_disk(struct blk_mq_tag_set *set,
					     struct queue_limits *lim,
					     void *queuedata, bool write_cache)
{
	struct gendisk *disk;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	if (write_cache)
		lim->features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	disk = blk_mq_alloc_disk(set, lim, queuedata);
#else
	disk = blk_mq_alloc_disk(set, queuedata);
	if (!IS_ERR(disk))
		sbd_apply_limits(disk->queue, lim);
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
	if (!IS_ERR(disk)) {
		blk_queue_flag_set(QUEUE_FLAG_NONROT, disk->queue);
		blk_queue_write_cache(disk->queue, write_cache, write_cache);
	}
#endif
	return disk;
}

/*
 * 6.14 made blk_mq_freeze_queue() enter a memalloc_noio section and
 * return its flags, which blk_mq_unfreeze_queue() takes to leave it.
 * Debian's 6.12 has the old void form (checked in its headers).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
static inline unsigned int sbd_freeze_queue(struct request_queue *q)
{
	return blk_mq_freeze_queue(q);
}

static inline void sbd_unfreeze_queue(struct request_queue *q,
				      unsigned int memflags)
{
	blk_mq_unfreeze_queue(q, memflags);
}
#else
static inline unsigned int sbd_freeze_queue(struct request_queue *q)
{
	blk_mq_freeze_queue(q);
	return 0;
}

static inline void sbd_unfreeze_queue(struct request_queue *q,
				      unsigned int memflags)
{
	blk_mq_unfreeze_queue(q);
}
#endif

/*
 * 6.15 made badblocks lengths sector_t and badblocks_set()/_clear()
 * return true on success; before, lengths were int and 0 meant success.
 * These wrappers return true on success on every kernel.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
typedef sector_t sbd_bb_len_t;
#define SBD_BB_OK(ret) (ret)
#else
typedef int sbd_bb_len_t;
#define SBD_BB_OK(ret) (!(ret))
#endif

/*
 * Before the rewrite of badblocks_set() in 6.7, marking a range longer
 * than BB_MAX_LEN left the table out of order, so later lookups missed
 * it (seen on 6.1).  Marking (and clearing) BB_MAX_LEN at a time, in
 * ascending order, keeps it sorted on every kernel.
 */
/* Mark (@bad) or clear @n sectors from @s; true on success. */
static inline bool sbd_badblocks_update(struct badblocks *bb, sector_t s,
					sector_t n, bool bad)
{
	while (n) {
		sector_t len = min_t(sector_t, n, BB_MAX_LEN);

		if (!SBD_BB_OK(bad ? badblocks_set(bb, s, len, 1) :
				     badblocks_clear(bb, s, len)))
			return false;
		s += len;
		n -= len;
	}
	return true;
}

/* True if any of the @n sectors from @s is marked bad. */
static inline bool sbd_badblocks_hit(struct badblocks *bb, sector_t s,
				     sbd_bb_len_t n)
{
	sbd_bb_len_t bad_len;
	sector_t first_bad;

	return badblocks_check(bb, s, n, &first_bad, &bad_len) != 0;
}

/*
 * device_add_disk() without its partition scan.  The scan opens the
 * disk, and since 6.9 (the file-based bdev open) that open is released
 * only when insmod returns to user space; if a later disk then failed to
 * add, the release would run the freed module's code.  The bit in
 * disk->state that add_disk() checks is the same in 6.1, 6.12 and 7.2.
 */
static inline int sbd_add_disk_unscanned(struct gendisk *disk,
					 const struct attribute_group **groups)
{
	int err;

	set_bit(GD_SUPPRESS_PART_SCAN, &disk->state);
	err = device_add_disk(NULL, disk, groups);
	clear_bit(GD_SUPPRESS_PART_SCAN, &disk->state);
	return err;
}

#endif /* SBD_COMPAT_H */
