/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the feature files share of the cut and the recording:
 * sbd-cache.c, sbd-record.c and sbd-export.c include it, sbd.c does not
 * (its interface to them is sbd.h).
 *
 * Of the cache: its log's entries, which a visit undoes too, what a
 * policy does to a write, and the steps around any change of the store
 * under the page cache.  Of the recording: its points, which the export
 * lists, and what the cache's write path and power switch call in
 * sbd-record.c.
 */
#ifndef SBD_RECORD_H
#define SBD_RECORD_H

#include <linux/blkdev.h>
#include <linux/lockdep.h>
#include <linux/xarray.h>

#include "sbd.h"

/* An entry of the cache's log (see "The volatile write cache", sbd-cache.c). */
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
static inline struct sbd_log_entry *sbd_log_entry(const struct sbd_cache *c,
						  size_t i)
{
	return &c->entries[(c->first + i) % c->max_entries];
}

/* The bytes an entry saved, ALIGN(len, 8) of them in the ring. */
static inline u8 *sbd_log_old(const struct sbd_cache *c,
			      const struct sbd_log_entry *e)
{
	return c->log + e->old;
}

/*
 * splitmix64: a cut under "random SEED ..." or "torn SEED" depends only
 * on SEED and on the writes in the log, on every kernel and machine.
 */
static inline u64 sbd_rand(u64 *state)
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
static inline enum sbd_fate sbd_cut_fate(const struct sbd_policy *pol,
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
static inline void sbd_write_back_page_cache(struct gendisk *disk)
{
	struct block_device *part;
	unsigned long idx;

	xa_for_each(&disk->part_tbl, idx, part)
		sync_blockdev(part);
}

static inline void sbd_drop_page_cache(struct gendisk *disk)
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
static inline void sbd_lock_openers(struct sbd_device *dev)
{
	mutex_lock(&dev->disk->open_mutex);
}

static inline void sbd_unlock_openers(struct sbd_device *dev)
{
	mutex_unlock(&dev->disk->open_mutex);
}

/*
 * A test hook.  The sysfs path that debugfs sbd/sbdN/pause names waits
 * at its pause point until the hook is cleared, so that a test runs the
 * other side of a race in between, in an order it chooses instead of
 * one left to chance.  Each point sits where a check not made under
 * the lock that orders it would go stale: before "stop" and "mark" read
 * the recording's state, which the request path changes; between
 * visit's holder check and its change, which openers wait for.
 */
enum sbd_pause { SBD_PAUSE_NONE, SBD_PAUSE_STOP, SBD_PAUSE_MARK,
		 SBD_PAUSE_VISIT };

static inline void sbd_pause_point(struct sbd_cache *c, enum sbd_pause where)
{
	if (likely(READ_ONCE(c->pause_at) != where))
		return;
	WRITE_ONCE(c->paused, true);
	/* Killable: a test that died leaves no writer stuck for good. */
	wait_event_killable(c->pause_wq, READ_ONCE(c->pause_at) != where);
	WRITE_ONCE(c->paused, false);
}

static inline void sbd_pause_clear(struct sbd_cache *c)
{
	WRITE_ONCE(c->pause_at, SBD_PAUSE_NONE);
	wake_up_all(&c->pause_wq);
}

/* Is the disk, or a partition of it, claimed (mounted, say)? */
static inline bool sbd_disk_claimed(struct gendisk *disk)
{
	struct block_device *part;
	unsigned long idx;
	bool claimed = false;

	lockdep_assert_held(&disk->open_mutex);
	xa_for_each(&disk->part_tbl, idx, part)
		claimed |= !!READ_ONCE(part->bd_holder);
	return claimed;
}

/* A recording (see "Recording" in sbd-record.c) is a list of points. */
enum sbd_point_kind {
	SBD_POINT_WRITE,
	SBD_POINT_DISCARD,
	SBD_POINT_ZEROES,
	SBD_POINT_FLUSH,
	SBD_POINT_MARK,
};

struct sbd_point {
	u64 pos;		/* bytes into the store */
	u64 saved;		/* offset in the recording's memory of its bytes */
	u32 len;		/* bytes written, or a mark's name length */
	u8 kind;		/* enum sbd_point_kind */
	bool fua;
};

enum sbd_rec_state { SBD_REC_ON, SBD_REC_STOPPED, SBD_REC_FULL, SBD_REC_CUT };

struct sbd_record {
	/* vmalloc'ed: points from the start up, saved bytes from the end down */
	u8 *mem;
	size_t size;
	size_t low;		/* the saved bytes take mem[low, size) */
	u64 npoints;		/* point k is points()[k - 1] */
	u64 base;		/* see "Recording", sbd-record.c */
	u64 cut_at;		/* cut the power as this point completes; 0: never */
	enum sbd_rec_state state;
	bool cut_pending;	/* an aimed cut happened: visit it at power on */
	bool visiting;
	u64 point;		/* the visit, while @visiting */
	struct sbd_policy policy;
	/*
	 * The visit's "only" list: the policy decides the fates of these
	 * writes alone (points, increasing), every other one is kept; NULL
	 * without one.  kmalloc'ed, freed by the next visit.
	 */
	u64 *only;
	unsigned int nonly;
	/*
	 * The visit's lost write: one the point made durable that the
	 * visit undoes, as a drive that acknowledged and flushed it but
	 * never stored it would; 0 without one.
	 */
	u64 lose;
	/* Counters for record_stats. */
	u64 writes, flushes, fua_writes, marks, saved_bytes;
	u64 visits, moved_bytes, last_move_ns;
};

static inline struct sbd_point *sbd_point_array(const struct sbd_record *r)
{
	return (struct sbd_point *)r->mem;
}

static inline bool sbd_point_has_data(const struct sbd_point *p)
{
	return p->kind <= SBD_POINT_ZEROES;
}

/* The last FLUSH at or before @point, or 0: everything up to it is durable. */
static inline u64 sbd_record_durable(const struct sbd_record *r, u64 point)
{
	while (point && sbd_point_array(r)[point - 1].kind != SBD_POINT_FLUSH)
		point--;
	return point;
}

/* Is point @k in the increasing list @only of @n points? */
static inline bool sbd_only_has(const u64 *only, unsigned int n, u64 k)
{
	unsigned int lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (only[mid] == k)
			return true;
		if (only[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * What a visit under @pol does to the write of point @k, which is not
 * durable at the visited point and spans @blocks blocks.  Each point
 * draws from its own stream, seeded by (seed, k): the fates do not depend
 * on the order in which points are looked at, so applying (oldest first)
 * and removing (newest first) agree, and so does an independent model.
 * With an "only" list (@nonly points), a write not in it is kept: each
 * listed write's fate is the one it has without the list.
 */
static inline enum sbd_fate sbd_visit_fate(const struct sbd_policy *pol,
					   const u64 *only, unsigned int nonly,
					   u64 k, u32 blocks, u64 *rnd)
{
	if (only && !sbd_only_has(only, nonly, k))
		return SBD_KEPT;
	*rnd = pol->seed ^ (k * 0xd6e8feb86659fd93ULL);
	return sbd_cut_fate(pol, blocks, rnd);
}

/* After a recording, the ring keeps what visits write (sbd_cache_write()). */
static inline bool sbd_record_keeps_ring(const struct sbd_cache *c)
{
	return c->rec && c->rec->state != SBD_REC_ON;
}

/* In sbd-record.c, for the cache's write path and its power switch. */
bool sbd_record_write(struct sbd_device *dev, struct request *rq,
		      u64 pos, u32 len, bool fua);
bool sbd_record_flush(struct sbd_device *dev);
void sbd_record_goto(struct sbd_device *dev, u64 point,
		     const struct sbd_policy *pol);

#endif /* SBD_RECORD_H */
