// SPDX-License-Identifier: GPL-2.0
/*
 * sbd's volatile write cache, and the recordings that turn a disk into
 * any crash state of a run.
 *
 * sbd.c is the driver; a disk loaded with cache_mb > 0 sends its writes
 * and FLUSHes here (sbd_cache_write(), sbd_cache_flush()) and shows the
 * sysfs files defined at the end of this file.  A disk without a cache
 * never calls into it.
 *
 * Read it top to bottom: the cache and its power cut, recordings and
 * visits, the debugfs listings, then the sysfs files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "sbd.h"

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

const struct blk_mq_ops sbd_cache_mq_ops = {
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
 * The store is about to change under the page cache (a cut, a visit).
 * Dirty pages of the disk or a partition are written back first, as
 * ordinary writes: into the cache, where the change treats them as any
 * other write (a cut may lose them, a visit undoes them), instead of
 * landing later on the state the change made.  Once the power is off
 * they fail, as writes to a drive that is off do.  Then, after the
 * change, the clean pages are dropped, or a process that keeps the disk
 * open would read the old data back.  Both run under open_mutex (see
 * sbd_lock_openers()), which also keeps partitions from going away.
 */
static void sbd_write_back_page_cache(struct gendisk *disk)
{
	struct block_device *part;
	unsigned long idx;

	xa_for_each(&disk->part_tbl, idx, part)
		sync_blockdev(part);
}

static void sbd_drop_page_cache(struct gendisk *disk)
{
	struct block_device *part;
	unsigned long idx;

	xa_for_each(&disk->part_tbl, idx, part)
		invalidate_bdev(part);
}

/*
 * Hold off openers while the store changes: a mount waits for
 * open_mutex to claim the disk, so "is it claimed?" and the change that
 * depends on the answer are one step.  Taken after c->mutex.
 */
static void sbd_lock_openers(struct sbd_device *dev)
{
	mutex_lock(&dev->disk->open_mutex);
}

static void sbd_unlock_openers(struct sbd_device *dev)
{
	mutex_unlock(&dev->disk->open_mutex);
}

/* Is the disk, or a partition of it, claimed (mounted, say)? */
static bool sbd_disk_claimed(struct gendisk *disk)
{
	struct block_device *part;
	unsigned long idx;
	bool claimed = false;

	lockdep_assert_held(&disk->open_mutex);
	xa_for_each(&disk->part_tbl, idx, part)
		claimed |= !!READ_ONCE(part->bd_holder);
	return claimed;
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
	/*
	 * Whole pages stay page-aligned, for sbd_copy_bytes().  A FLUSH
	 * saves nothing, and PAGE_ALIGNED(0) is true: no rounding for it.
	 */
	if (len && PAGE_ALIGNED(len) && r->low >= points + PAGE_SIZE)
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
 * back into the recording's end.  The caller holds c->mutex and the
 * openers' lock; the recording has ended.  The queue is frozen
 * throughout: no request sees a state half made, and the swaps need no
 * spinlock.
 */
static void sbd_record_goto(struct sbd_device *dev, u64 point,
			    const struct sbd_policy *pol)
{
	struct sbd_record *r = dev->cache.rec;
	unsigned int memflags;
	u64 start, moved;

	sbd_write_back_page_cache(dev->disk);
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
 * logical blocks, as dm-log-writes counts its device's.
 *
 * Entries come in the order dm-log-writes logs them: a FUA write and a
 * mark at once, the other writes of an epoch (the points between two
 * FLUSHes) when its FLUSH completes (or at the end), in the order they
 * completed.  So the first N entries, replayed, are the crash state
 * (P, none) when entry N - 1 is point P's FLUSH, FUA write or mark.  But
 * a FUA write logged ahead of an older write to the same block would be
 * undone by it at the FLUSH, a state the disk never had (the kernel's
 * target does just that).  sbd knows the true order: a FUA write that
 * overlaps a write logged before it in its epoch's batch is logged once
 * more in the batch, as a plain write in its own place.  debugfs
 * sbd/sbdN/log-writes-points maps entries to points.
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
	u64 *order;		/* point numbers, in the export's order */
	u8 *block;		/* one zeroed header block */
};

/* In @order: a FUA write logged again, as a plain write (see above). */
#define SBD_EXPORT_AGAIN	BIT_ULL(63)

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
	bool again;

	memset(x->block, 0, x->dev->sect_size);
	if (!i) {
		super->magic = cpu_to_le64(SBD_LW_MAGIC);
		super->version = cpu_to_le64(SBD_LW_VERSION);
		super->nr_entries = cpu_to_le64(x->n);
		super->sectorsize = cpu_to_le32(x->dev->sect_size);
		seq_write(m, x->block, x->dev->sect_size);
		return 0;
	}
	again = x->order[i - 1] & SBD_EXPORT_AGAIN;
	p = &sbd_point_array(x->rec)[(x->order[i - 1] & ~SBD_EXPORT_AGAIN) - 1];
	if (p->kind == SBD_POINT_FLUSH)
		flags = SBD_LW_FLUSH;
	else if (p->kind == SBD_POINT_MARK)
		flags = SBD_LW_MARK;
	else if (p->kind == SBD_POINT_DISCARD)
		flags = SBD_LW_DISCARD;
	if (p->fua && !again)
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

/*
 * The points of one epoch, @from..@to - 1, in the export's order, from
 * order[n]; returns the new n.  Its FUA writes and marks first, as they
 * completed; then its other writes, each FUA write again where it
 * overlaps one logged in the batch before it.  @logged, a bit per block
 * (the cut's, clear outside a cut, which c->mutex keeps away), marks
 * the batch's blocks, and is cleared again.
 */
static u64 sbd_export_epoch(struct sbd_device *dev, struct sbd_record *r,
			    u64 from, u64 to, u64 *order, u64 n)
{
	unsigned long *logged = dev->cache.pinned;
	unsigned int shift = ilog2(dev->sect_size);
	const struct sbd_point *p;
	unsigned long first, end;
	u64 k;

	for (k = from; k < to; k++) {
		p = &sbd_point_array(r)[k - 1];
		if (!sbd_point_has_data(p) || p->fua)
			order[n++] = k;
	}
	for (k = from; k < to; k++) {
		p = &sbd_point_array(r)[k - 1];
		if (!sbd_point_has_data(p))
			continue;
		first = p->pos >> shift;
		end = first + (p->len >> shift);
		if (!p->fua)
			order[n++] = k;
		else if (find_next_bit(logged, end, first) < end)
			order[n++] = k | SBD_EXPORT_AGAIN;
		else
			continue;
		bitmap_set(logged, first, end - first);
		cond_resched();
	}
	for (k = from; k < to; k++) {
		p = &sbd_point_array(r)[k - 1];
		if (sbd_point_has_data(p))
			bitmap_clear(logged, p->pos >> shift, p->len >> shift);
	}
	return n;
}

/* Open the export or its map (@sops): the order, made once, linear. */
static int sbd_export_open_with(struct inode *inode, struct file *file,
				const struct seq_operations *sops,
				bool need_data)
{
	struct sbd_device *dev = inode->i_private;
	struct sbd_cache *c = &dev->cache;
	struct sbd_export *x;
	struct sbd_record *r;
	u64 k, from = 1;
	int err = -ENOMEM;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->dev = dev;
	x->block = kzalloc(dev->sect_size, GFP_KERNEL);
	mutex_lock(&c->mutex);
	r = c->rec;
	if (need_data ? !sbd_export_ready(r) : (!r || r->state == SBD_REC_ON)) {
		err = -EINVAL;
		goto fail;
	}
	/* Each point once, and each FUA write at most twice. */
	x->order = kvcalloc(r->npoints + r->fua_writes + 1, sizeof(u64),
			    GFP_KERNEL);
	if (!x->order || !x->block)
		goto fail;
	for (k = 1; k <= r->npoints; k++) {
		if (sbd_point_array(r)[k - 1].kind != SBD_POINT_FLUSH)
			continue;
		x->n = sbd_export_epoch(dev, r, from, k, x->order, x->n);
		x->order[x->n++] = k;
		from = k + 1;
	}
	x->n = sbd_export_epoch(dev, r, from, k, x->order, x->n);
	x->rec = r;
	x->recording = c->recordings;
	mutex_unlock(&c->mutex);
	err = seq_open(file, sops);
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

static int sbd_export_open(struct inode *inode, struct file *file)
{
	return sbd_export_open_with(inode, file, &sbd_export_sops, true);
}

/*
 * debugfs sbd/sbdN/log-writes-points: one line per entry of the export,
 * "ENTRY POINT KIND[ fua][ again]", ENTRY counted from 0 as replay-log
 * counts (the super block is not an entry), KIND as in the points
 * listing; "again" marks a FUA write logged once more.  Replaying
 * entries 0..ENTRY of a FLUSH, a FUA write or a mark (replay-log
 * --limit ENTRY+1) gives the crash state (POINT, none); the whole log,
 * the recording's end.  Readable once the recording has ended.
 */
static void *sbd_export_map_start(struct seq_file *m, loff_t *pos)
{
	struct sbd_export *x = m->private;
	struct sbd_cache *c = &x->dev->cache;

	mutex_lock(&c->mutex);
	if (c->recordings != x->recording || !c->rec)
		return ERR_PTR(-EINVAL);
	return *pos < x->n ? (void *)(uintptr_t)(*pos + 1) : NULL;
}

static void *sbd_export_map_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct sbd_export *x = m->private;

	++*pos;
	return *pos < x->n ? (void *)(uintptr_t)(*pos + 1) : NULL;
}

static int sbd_export_map_show(struct seq_file *m, void *v)
{
	struct sbd_export *x = m->private;
	u64 i = (uintptr_t)v - 1;
	u64 k = x->order[i] & ~SBD_EXPORT_AGAIN;
	const struct sbd_point *p = &sbd_point_array(x->rec)[k - 1];

	seq_printf(m, "%llu %llu %s%s%s\n", i, k, sbd_point_names[p->kind],
		   p->fua ? " fua" : "",
		   x->order[i] & SBD_EXPORT_AGAIN ? " again" : "");
	return 0;
}

static const struct seq_operations sbd_export_map_sops = {
	.start = sbd_export_map_start,
	.next = sbd_export_map_next,
	.stop = sbd_export_stop,
	.show = sbd_export_map_show,
};

static int sbd_export_map_open(struct inode *inode, struct file *file)
{
	return sbd_export_open_with(inode, file, &sbd_export_map_sops, false);
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

static const struct file_operations sbd_export_map_fops = {
	.owner = THIS_MODULE,
	.open = sbd_export_map_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = sbd_export_release,
};

/*
 * sbd/sbdN/ under @root, with the recording's three listings; removed
 * with the disk (sbd.c).  debugfs errors are not sbd's to report.
 */
void sbd_cache_add_debugfs(struct sbd_device *dev, struct dentry *root)
{
	dev->debugfs = debugfs_create_dir(dev->disk->disk_name, root);
	debugfs_create_file("points", 0444, dev->debugfs, dev,
			    &sbd_listing_fops);
	debugfs_create_file("log-writes", 0444, dev->debugfs, dev,
			    &sbd_export_fops);
	debugfs_create_file("log-writes-points", 0444, dev->debugfs, dev,
			    &sbd_export_map_fops);
}

/* Undo sbd_cache_init(); harmless on a disk without a cache. */
void sbd_cache_free(struct sbd_device *dev)
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
DEVICE_ATTR_RO(cache_stats);

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
	} else if (sbd_word_is(word, word_len, "stop") && c->rec) {
		/* Under the lock that ends it "full" or "cut" too. */
		spin_lock(&dev->lock);
		if (c->rec->state == SBD_REC_ON) {
			c->rec->state = SBD_REC_STOPPED;
			err = 0;
		}
		spin_unlock(&dev->lock);
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
DEVICE_ATTR_RW(record);

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
	if (!c->rec) {
		err = -EINVAL;
		goto out;
	}
	/* Under the lock that ends a recording "cut" or "full". */
	spin_lock(&dev->lock);
	if (c->rec->state != SBD_REC_ON) {
		spin_unlock(&dev->lock);
		err = -EINVAL;
		goto out;
	}
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
DEVICE_ATTR_WO(mark);

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
DEVICE_ATTR_RW(cut_at);

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
	sbd_lock_openers(dev);
	if (c->rec && c->rec->state != SBD_REC_ON && !c->off &&
	    point <= c->rec->npoints && !sbd_disk_claimed(dev->disk)) {
		sbd_record_goto(dev, point, to_end ? NULL : &pol);
		err = 0;
	}
	sbd_unlock_openers(dev);
	mutex_unlock(&c->mutex);
	return err ?: len;
}
DEVICE_ATTR_RW(visit);

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
DEVICE_ATTR_RO(record_stats);
