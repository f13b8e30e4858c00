// SPDX-License-Identifier: GPL-2.0
/*
 * sbd's recordings, which turn a disk with a volatile write cache into
 * any crash state of a run.
 *
 * While a recording runs, sbd-cache.c hands it every write and FLUSH
 * (sbd_record_write(), sbd_record_flush()), and its power switch moves
 * the disk to a crash state (sbd_record_goto()).  The sysfs files record,
 * mark, cut_at, visit and record_stats are defined at the end of this
 * file; sbd-export.c lists and exports a recording.
 *
 * Read it top to bottom: recording, visits, then the sysfs files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/ctype.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "sbd-record.h"

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

/* A mark's name: 1 to SBD_MARK_MAX printable characters, no blanks. */
#define SBD_MARK_MAX	32

static const char * const sbd_rec_state_names[] = {
	[SBD_REC_ON] = "recording",
	[SBD_REC_STOPPED] = "stopped",
	[SBD_REC_FULL] = "full",
	[SBD_REC_CUT] = "cut",
};

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
bool sbd_record_write(struct sbd_device *dev, struct request *rq,
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
bool sbd_record_flush(struct sbd_device *dev)
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

/* Swap all of point @k's saved bytes with the store: a visit's lost write. */
static u64 sbd_record_swap_whole(struct sbd_device *dev, u64 k)
{
	const struct sbd_point *p = &sbd_point_array(dev->cache.rec)[k - 1];

	return sbd_point_swap(dev, p, 0, p->len);
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

/*
 * With the store at @base, swap in (@apply) or back out the part @pol
 * (and @only, @nonly) keeps of the writes after @base up to @point.  A
 * torn write keeps each of its blocks with probability 1/2: a block is
 * written whole or not.
 */
static u64 sbd_record_overlay(struct sbd_device *dev, u64 point,
			      const struct sbd_policy *pol, const u64 *only,
			      unsigned int nonly, bool apply)
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
			sbd_visit_fate(pol, only, nonly, k,
				       p->len / dev->sect_size, &rnd)) {
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
 * Turn the store into the crash state (@point, @pol), its fates limited
 * to the writes of @only if not NULL (the record takes it), or with @pol
 * NULL back into the recording's end.  The caller holds c->mutex and the
 * openers' lock; the recording has ended.  The queue is frozen
 * throughout: no request sees a state half made, and the swaps need no
 * spinlock.
 */
static void sbd_record_visit(struct sbd_device *dev, u64 point,
			     const struct sbd_policy *pol, u64 *only,
			     unsigned int nonly, u64 lose)
{
	struct sbd_record *r = dev->cache.rec;
	unsigned int memflags;
	u64 start, moved;

	sbd_write_back_page_cache(dev->disk);
	memflags = sbd_freeze_queue(dev->disk->queue);
	start = ktime_get_ns();
	moved = sbd_record_undo_ring(dev);
	if (r->visiting && r->lose)
		moved += sbd_record_swap_whole(dev, r->lose);
	if (r->visiting)
		moved += sbd_record_overlay(dev, r->point, &r->policy, r->only,
					    r->nonly, false);
	moved += sbd_record_move(dev, pol ? sbd_record_durable(r, point) :
					    r->npoints);
	if (pol)
		moved += sbd_record_overlay(dev, point, pol, only, nonly, true);
	/* Nothing later touches its blocks: swapping undoes it (and redoes). */
	if (pol && lose)
		moved += sbd_record_swap_whole(dev, lose);
	r->lose = pol ? lose : 0;
	r->visiting = pol;
	kfree(r->only);
	r->only = only;
	r->nonly = nonly;
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

/* The same, without an "only" list: for the power switch (sbd-cache.c). */
void sbd_record_goto(struct sbd_device *dev, u64 point,
		     const struct sbd_policy *pol)
{
	sbd_record_visit(dev, point, pol, NULL, 0, 0);
}

/*
 * With the queue frozen: @r becomes the disk's recording.  Whatever the
 * cache held is durable from here on, as at a FLUSH: point 0.
 */
static void sbd_record_attach(struct sbd_device *dev, struct sbd_record *r)
{
	struct sbd_cache *c = &dev->cache;

	spin_lock(&dev->lock);
	c->count = 0;
	c->unflushed_bytes = 0;
	c->rec = r;
	c->recordings++;
	spin_unlock(&dev->lock);
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
	sbd_record_attach(dev, r);
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
	kfree(r->only);
	vfree(r->mem);
	kfree(r);
}

/* The disk called @name (as in /sys/block), or NULL. */
static struct sbd_device *sbd_find_peer(struct sbd_device *dev,
					const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < dev->npeers; i++) {
		const char *n = dev->peers[i].disk->disk_name;

		if (strlen(n) == len && !memcmp(n, name, len))
			return &dev->peers[i];
	}
	return NULL;
}

/*
 * This disk takes a copy of @src's recording, and @src's store for its
 * own, so that the recording's states can be visited on both at once.
 * @src's recording has ended and @src is at its end, unwritten since;
 * this disk is of the same geometry, with the power on, no recording
 * and no holder.  Its own data, durable or not, is replaced.
 */
static int sbd_record_copy(struct sbd_device *dev, struct sbd_device *src)
{
	struct sbd_device *first = dev < src ? dev : src;
	struct sbd_device *second = dev < src ? src : dev;
	struct sbd_cache *c = &dev->cache, *sc = &src->cache;
	unsigned int memflags, src_memflags;
	struct sbd_record *r, *sr;
	size_t points;
	u64 pos;
	int err;

	if (src == dev || !sc->log || src->size != dev->size ||
	    src->sect_size != dev->sect_size)
		return -EINVAL;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;

	/* Two disks' mutexes, always in the array's order. */
	mutex_lock(&first->cache.mutex);
	mutex_lock_nested(&second->cache.mutex, SINGLE_DEPTH_NESTING);
	sbd_lock_openers(dev);
	sr = sc->rec;
	err = -EINVAL;
	/*
	 * @src at its end: the store holds every write (@base), none made
	 * since (the ring is empty).  A visit that moved @base away is
	 * refused by the first, one that lost a write by the second; any
	 * other left the end as it is.
	 */
	if (c->rec || c->off || sbd_disk_claimed(dev->disk) || sc->off ||
	    !sr || sr->state == SBD_REC_ON || sr->cut_pending ||
	    sr->base != sr->npoints || sr->lose || sc->count)
		goto out;
	err = -ENOMEM;
	r->mem = __vmalloc(sr->size, GFP_KERNEL | __GFP_RETRY_MAYFAIL |
				     __GFP_NOWARN);
	if (!r->mem)
		goto out;
	/* Points from the start up, saved bytes from the end down. */
	points = sr->npoints * sizeof(struct sbd_point);
	memcpy(r->mem, sr->mem, points);
	memcpy(r->mem + sr->low, sr->mem + sr->low, sr->size - sr->low);
	r->size = sr->size;
	r->low = sr->low;
	r->npoints = sr->npoints;
	r->base = sr->base;
	r->state = sr->state;
	r->writes = sr->writes;
	r->flushes = sr->flushes;
	r->fua_writes = sr->fua_writes;
	r->marks = sr->marks;
	r->saved_bytes = sr->saved_bytes;

	sbd_write_back_page_cache(dev->disk);
	memflags = sbd_freeze_queue(dev->disk->queue);
	src_memflags = sbd_freeze_queue(src->disk->queue);
	for (pos = 0; pos < dev->size; pos += SZ_1M) {
		memcpy(dev->store + pos, src->store + pos,
		       min_t(u64, SZ_1M, dev->size - pos));
		cond_resched();
	}
	sbd_record_attach(dev, r);
	sbd_unfreeze_queue(src->disk->queue, src_memflags);
	sbd_unfreeze_queue(dev->disk->queue, memflags);
	sbd_drop_page_cache(dev->disk);
	r = NULL;
	err = 0;
out:
	sbd_unlock_openers(dev);
	mutex_unlock(&second->cache.mutex);
	mutex_unlock(&first->cache.mutex);
	if (r)
		vfree(r->mem);
	kfree(r);
	return err;
}

/* ------------------------------------------------------------------ */
/* sysfs: the recording's files in /sys/block/sbdN/sbd/               */
/* ------------------------------------------------------------------ */

/*
 * record: "start MIB" starts a recording kept in MIB MiB (points and
 * the bytes each write overwrote); "stop" ends it; "drop" frees it and
 * leaves the disk as it is; "copy DISK" takes DISK's ended recording and
 * DISK's data (sbd_record_copy()).  Reads "none", "recording", or how it ended:
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
	if (sbd_word_is(word, word_len, "copy")) {
		struct sbd_device *src;

		word = sbd_next_word(&p, &word_len);
		src = word ? sbd_find_peer(dev, word, word_len) : NULL;
		if (!src || !sbd_input_ends(p))
			return -EINVAL;
		err = sbd_record_copy(dev, src);
		return err ?: len;
	}
	if (sbd_word_is(word, word_len, "start") &&
	    (!sbd_parse_token(&p, &mib) || !mib || mib > SBD_MAX_CACHE_MB))
		return -EINVAL;
	if (!sbd_input_ends(p))
		return -EINVAL;

	mutex_lock(&c->mutex);
	if (sbd_word_is(word, word_len, "start")) {
		err = sbd_record_start(dev, mib << 20);
	} else if (sbd_word_is(word, word_len, "stop") && c->rec) {
		sbd_pause_point(c, SBD_PAUSE_STOP);
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
	sbd_pause_point(c, SBD_PAUSE_MARK);
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
 *
 * "POINT POLICY only K..." lets POLICY decide the fates of the writes K
 * alone, each as it would without the list; every other write is kept.
 * Shrinking the list of a failing state's lost writes finds the ones
 * that make it fail.  Each K, increasing, must be a write (or discard,
 * write-zeroes) without FUA after the last FLUSH at or before POINT, and
 * at most POINT: one whose fate the policy decides.
 *
 * "POINT POLICY lose K" then loses write K, which the state keeps
 * whatever the policy (at or before that FLUSH, or with FUA): its blocks
 * hold what they held before it, as on a drive that acknowledged and
 * flushed it but never stored it.  No later point up to POINT may touch
 * its blocks.
 */
#define SBD_ONLY_MAX	128

/*
 * What follows a visit's policy: nothing (*@only NULL, *@lose 0); "lose"
 * and a point, into *@lose; or "only" and increasing point numbers, at
 * most SBD_ONLY_MAX, into a kmalloc'ed *@only.  -EINVAL for anything
 * else.
 */
static int sbd_parse_visit_tail(const char *p, u64 **only,
				unsigned int *nonly, u64 *lose)
{
	unsigned int n = 0;
	const char *word;
	size_t len;
	u64 *list;

	*only = NULL;
	*nonly = 0;
	*lose = 0;
	word = sbd_next_word(&p, &len);
	if (!word)
		return 0;
	if (sbd_word_is(word, len, "lose"))
		return sbd_parse_token(&p, lose) && *lose && sbd_input_ends(p) ?
		       0 : -EINVAL;
	if (!sbd_word_is(word, len, "only") || sbd_input_ends(p))
		return -EINVAL;
	list = kmalloc_array(SBD_ONLY_MAX, sizeof(*list), GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	while (!sbd_input_ends(p)) {
		if (n == SBD_ONLY_MAX || !sbd_parse_token(&p, &list[n]) ||
		    (n && list[n] <= list[n - 1])) {
			kfree(list);
			return -EINVAL;
		}
		n++;
	}
	*only = list;
	*nonly = n;
	return 0;
}

/* Is each point of @only one whose fate a visit of @point decides? */
static bool sbd_only_valid(const struct sbd_record *r, u64 point,
			   const u64 *only, unsigned int nonly)
{
	u64 durable = sbd_record_durable(r, point);
	const struct sbd_point *p;
	unsigned int i;

	for (i = 0; i < nonly; i++) {
		if (only[i] <= durable || only[i] > point)
			return false;
		p = &sbd_point_array(r)[only[i] - 1];
		if (!sbd_point_has_data(p) || p->fua)
			return false;
	}
	return true;
}

/*
 * Is @k a write that a visit of @point keeps whole whatever the policy
 * (made durable by a FLUSH, or FUA), with no later point up to @point
 * touching its blocks?  Then it can be lost as a drive that lies loses
 * it, and nothing else changes.
 */
static bool sbd_lose_valid(const struct sbd_record *r, u64 point, u64 k)
{
	const struct sbd_point *p, *q;
	u64 j;

	if (k > point)
		return false;
	p = &sbd_point_array(r)[k - 1];
	if (!sbd_point_has_data(p) ||
	    (k > sbd_record_durable(r, point) && !p->fua))
		return false;
	for (j = k + 1; j <= point; j++) {
		q = &sbd_point_array(r)[j - 1];
		if (sbd_point_has_data(q) && q->pos < p->pos + p->len &&
		    p->pos < q->pos + q->len)
			return false;
		cond_resched();
	}
	return true;
}

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
		if (r->only) {
			unsigned int i;

			/* The policy's newline becomes the list's blank. */
			buf[ret - 1] = ' ';
			ret += sysfs_emit_at(buf, ret, "only");
			for (i = 0; i < r->nonly; i++)
				ret += sysfs_emit_at(buf, ret, " %llu",
						     r->only[i]);
			ret += sysfs_emit_at(buf, ret, "\n");
		} else if (r->lose) {
			buf[ret - 1] = ' ';
			ret += sysfs_emit_at(buf, ret, "lose %llu\n", r->lose);
		}
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
	unsigned int nonly = 0;
	u64 *only = NULL;
	size_t word_len;
	const char *word;
	bool to_end;
	u64 point = 0, lose = 0;
	int err;

	word = sbd_next_word(&p, &word_len);
	to_end = sbd_word_is(word, word_len, "end");
	if (!to_end) {
		p = buf;
		if (!sbd_parse_token(&p, &point) || !sbd_parse_policy(&p, &pol))
			return -EINVAL;
		err = sbd_parse_visit_tail(p, &only, &nonly, &lose);
		if (err)
			return err;
	} else if (!sbd_input_ends(p)) {
		return -EINVAL;
	}

	err = -EINVAL;
	mutex_lock(&c->mutex);
	sbd_lock_openers(dev);
	if (c->rec && c->rec->state != SBD_REC_ON && !c->off &&
	    point <= c->rec->npoints && !sbd_disk_claimed(dev->disk) &&
	    sbd_only_valid(c->rec, point, only, nonly) &&
	    (!lose || sbd_lose_valid(c->rec, point, lose))) {
		sbd_pause_point(c, SBD_PAUSE_VISIT);
		sbd_record_visit(dev, point, to_end ? NULL : &pol, only, nonly,
				 lose);
		only = NULL;
		err = 0;
	}
	sbd_unlock_openers(dev);
	mutex_unlock(&c->mutex);
	kfree(only);
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
