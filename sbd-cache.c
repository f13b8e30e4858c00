// SPDX-License-Identifier: GPL-2.0
/*
 * sbd's volatile write cache, and its power cut.
 *
 * sbd.c is the driver; a disk loaded with cache_mb > 0 sends its writes
 * and FLUSHes here (sbd_cache_write(), sbd_cache_flush()) and shows the
 * sysfs files defined at the end of this file: power, powercut_policy
 * and cache_stats.  A disk without a cache never calls into it.  While
 * a recording runs (sbd-record.c), the cache hands its writes and
 * FLUSHes to it.
 *
 * Read it top to bottom: the cache, its power cut, set-up, then the
 * sysfs files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "sbd-record.h"

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
 * A WRITE, DISCARD or WRITE_ZEROES to a disk with a cache.  The lock is
 * held for the whole request, not per segment as without a cache, so
 * that the log's order is the order in which writes reached each sector:
 * undoing them newest first then gives back what each one overwrote.
 */
blk_status_t sbd_cache_write(struct sbd_device *dev, struct request *rq,
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
blk_status_t sbd_cache_flush(struct sbd_device *dev)
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
 * Cut the power; the caller holds c->mutex and the openers' lock
 * (sbd_lock_openers()), and the power is on.
 */
static void sbd_power_cut(struct sbd_device *dev)
{
	struct request_queue *q = dev->disk->queue;
	struct sbd_cache *c = &dev->cache;
	unsigned int memflags;
	size_t entries;
	u64 start, undone;

	sbd_write_back_page_cache(dev->disk);
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

/*
 * "off": cut the power; the caller holds c->mutex and the openers' lock,
 * and the power is on.
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
	sbd_write_back_page_cache(dev->disk);
	memflags = sbd_freeze_queue(dev->disk->queue);
	spin_lock(&dev->lock);
	/* The write-back may have filled it: "full" stays what it says. */
	if (r->state != SBD_REC_ON) {
		spin_unlock(&dev->lock);
		sbd_unfreeze_queue(dev->disk->queue, memflags);
		return -EINVAL;
	}
	r->state = SBD_REC_CUT;
	c->cuts++;
	WRITE_ONCE(c->off, true);
	spin_unlock(&dev->lock);
	sbd_unfreeze_queue(dev->disk->queue, memflags);
	sbd_record_goto(dev, r->npoints, &c->policy);
	return 0;
}

/*
 * "on": after an aimed cut, the disk first becomes its crash state,
 * which, like a visit, is refused while a filesystem still holds the
 * disk (its umount failed): it would see its disk change underneath.
 */
static int sbd_power_on(struct sbd_device *dev)
{
	struct sbd_cache *c = &dev->cache;

	if (c->rec && c->rec->cut_pending) {
		if (sbd_disk_claimed(dev->disk))
			return -EINVAL;
		sbd_record_goto(dev, c->rec->npoints, &c->policy);
	}
	WRITE_ONCE(c->off, false);
	return 0;
}

/* Undo sbd_cache_init(); harmless on a disk without a cache. */
void sbd_cache_free(struct sbd_device *dev)
{
	if (dev->cache.rec) {
		kfree(dev->cache.rec->only);
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

/* Memory for a cache of @bytes, saved bytes and entries (not the bitmap). */
u64 sbd_cache_memory(u64 bytes, unsigned int sect_size)
{
	return bytes + (u64)sbd_cache_entries(bytes, sect_size) *
		       sizeof(struct sbd_log_entry);
}

/*
 * Give @dev a write cache of @bytes, and the cut's bitmap.  Only the
 * bitmap is zeroed: an entry is written before it is ever read, and the
 * bitmap is cleared here once and by each cut after it.
 */
int sbd_cache_init(struct sbd_device *dev, unsigned int index, size_t bytes)
{
	struct sbd_cache *c = &dev->cache;
	size_t bitmap = BITS_TO_LONGS(dev->size >> ilog2(dev->sect_size)) *
			sizeof(long);

	mutex_init(&c->mutex);
	init_waitqueue_head(&c->pause_wq);
	spin_lock_init(&c->held_lock);
	INIT_LIST_HEAD(&c->held);
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
/* sysfs: the cache's files in /sys/block/sbdN/sbd/                    */
/* ------------------------------------------------------------------ */

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
	sbd_lock_openers(dev);
	if (off == c->off)
		err = -EINVAL;
	else if (off)
		err = sbd_power_off(dev);
	else
		err = sbd_power_on(dev);
	sbd_unlock_openers(dev);
	mutex_unlock(&c->mutex);
	return err ?: len;
}
DEVICE_ATTR_RW(power);

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
DEVICE_ATTR_RW(powercut_policy);

/* One "name value" line per counter, all read under the lock at once. */
static ssize_t cache_stats_show(struct device *d,
				struct device_attribute *attr, char *buf)
{
	struct sbd_device *dev = to_sbd(d);
	struct sbd_cache *c = &dev->cache;
	u64 v[9];

	spin_lock(&dev->lock);
	v[0] = c->unflushed_bytes;
	v[1] = c->flushes;
	v[2] = c->fua_writes;
	v[3] = c->fua_bytes;
	v[4] = c->destaged_bytes;
	v[5] = c->cuts;
	v[6] = div_u64(c->last_cut_ns, NSEC_PER_USEC);
	spin_unlock(&dev->lock);
	spin_lock(&c->held_lock);
	v[7] = c->held_writes;
	v[8] = c->overtaken_writes;
	spin_unlock(&c->held_lock);
	return sysfs_emit(buf,
			  "cache_bytes %zu\nunflushed_bytes %llu\nflushes %llu\nfua_writes %llu\nfua_bytes %llu\ndestaged_bytes %llu\ncuts %llu\nlast_cut_usec %llu\nheld_writes %llu\novertaken_writes %llu\n",
			  c->size, v[0], v[1], v[2], v[3], v[4], v[5], v[6],
			  v[7], v[8]);
}
DEVICE_ATTR_RO(cache_stats);

/*
 * hold_writes_ms: 0 (the default) or up to SBD_MAX_HOLD_MS: how long a
 * write may be held back so that a FLUSH overtakes it (see "Writes a
 * FLUSH need not cover" in sbd.c); held_writes and overtaken_writes in
 * cache_stats count them.  A write held when it is set to 0 still waits
 * out its hold.
 */
static ssize_t hold_writes_ms_show(struct device *d,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_sbd(d)->cache.hold_ms));
}

static ssize_t hold_writes_ms_store(struct device *d,
				    struct device_attribute *attr,
				    const char *buf, size_t len)
{
	const char *p = buf;
	u64 ms;

	if (!sbd_parse_token(&p, &ms) || !sbd_input_ends(p) ||
	    ms > SBD_MAX_HOLD_MS)
		return -EINVAL;
	WRITE_ONCE(to_sbd(d)->cache.hold_ms, ms);
	return len;
}
DEVICE_ATTR_RW(hold_writes_ms);
