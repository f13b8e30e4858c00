// SPDX-License-Identifier: GPL-2.0
/*
 * sbd's copies between a request's pages, the store and the bytes a
 * write overwrote: the request path's (sbd.c), and the write cache's and
 * the recording's, which also save what each write overwrites.  Calls
 * nothing else of sbd.
 *
 * Out of line, in a file of its own, because both sbd.c and the feature
 * files use sbd_copy_seg() and may not call each other both ways.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "sbd.h"

/*
 * Copy a READ or WRITE segment between the request's page and the store
 * at @mem (@pos bytes into it); the caller holds the disk's lock.
 * rq_for_each_segment() yields single-page segments, which is what the
 * memcpy_*_bvec() helpers (kmap_local inside) expect.
 *
 * A segment that is a whole page on both sides (page cache and O_DIRECT
 * I/O of 4 KiB and up, at 4 KiB offsets) is copied with copy_page(), the
 * architecture's page copy, which no kernel's memcpy() beats for a whole
 * page (bench/experiments/README.md has the figures); anything else with
 * memcpy().
 */
void sbd_copy_seg(u8 *mem, struct bio_vec *bvec, u64 pos, bool write)
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

/*
 * A write to a disk with a cache, under the lock: the request's data, or
 * zeros.
 */
void sbd_apply_write(struct sbd_device *dev, struct request *rq,
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

/*
 * Save what a write overwrites, or put it back: a page at a time with
 * copy_page() where both sides are whole pages, as sbd_copy_seg() does,
 * else memcpy().
 */
void sbd_copy_bytes(u8 *to, u8 *from, u32 len)
{
	if (!PAGE_ALIGNED(to) || !PAGE_ALIGNED(from) || !PAGE_ALIGNED(len)) {
		memcpy(to, from, len);
		return;
	}
	for (; len; len -= PAGE_SIZE, to += PAGE_SIZE, from += PAGE_SIZE)
		copy_page(to, from);
}
