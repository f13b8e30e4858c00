/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sbd's disk, and the narrow interface between its files.  Kernel
 * differences stay in sbd-compat.h.
 *
 * Each file calls only files listed below it, never one above, so that
 * no two call into each other (scripts/callgraph.sh checks the built
 * objects; sbd-export.c calls none):
 *
 *   sbd.c          the driver: parameters, the request path, sysfs,
 *                  set-up, init/exit
 *   sbd-cache.c    the volatile write cache (cache_mb=) and the power cut
 *   sbd-record.c   recordings, and visits of their crash states
 *   sbd-export.c   debugfs: the points listing, the log-writes export
 *   sbd-input.c    reading numbers, words and policies from parameters
 *                  and sysfs
 *   sbd-copy.c     copying between a request's pages, the store and the
 *                  bytes a write overwrote
 *
 * What the three feature files share of the cut and the recording is in
 * sbd-record.h; sbd.c does not include it.
 */
#ifndef SBD_H
#define SBD_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/badblocks.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/completion.h>
#include <linux/workqueue.h>

#include "sbd-compat.h"

#define SBD_VERSION "1.2.0"

/*
 * cache_mb and a recording's MiB are bounded by RAM; this only keeps
 * MiB-to-bytes from overflowing.
 */
#define SBD_MAX_CACHE_MB	1048576		/* 1 TiB */

/*
 * A held write (hold_writes_ms) waits at most this long: far below the
 * block layer's 30 s request timeout, and a visit's freeze waits for it.
 */
#define SBD_MAX_HOLD_MS		1000

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
struct sbd_log_entry;

/*
 * The volatile write cache of a disk loaded with cache_mb > 0, kept as
 * an undo log of the writes that are not durable yet (see "The volatile
 * write cache" in sbd-cache.c).  @log is NULL on a disk without one.
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
	/* The test hook of debugfs sbd/sbdN/pause: sbd_pause_point(). */
	wait_queue_head_t pause_wq;
	int pause_at;		/* enum sbd_pause: the path that waits there */
	bool paused;		/* a writer waits at it now */
	/*
	 * Writes held back so that a FLUSH may overtake them (sysfs
	 * hold_writes_ms, "Writes a FLUSH need not cover" in sbd.c).
	 */
	unsigned int hold_ms;	/* 0: none is held */
	spinlock_t held_lock;	/* @held and the two counters below */
	struct list_head held;	/* oldest first, by their driver data */
	struct delayed_work held_work;	/* ends the hold of those held */
	u64 held_writes, overtaken_writes;
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
	/* Every disk of the module, for a file that names another one. */
	struct sbd_device *peers;
	unsigned int npeers;
};

/* The disk behind one of its sysfs files. */
static inline struct sbd_device *to_sbd(struct device *d)
{
	return dev_to_disk(d)->private_data;
}

/* In sbd-cache.c: a disk with a cache, set up and torn down by sbd.c. */
blk_status_t sbd_cache_write(struct sbd_device *dev, struct request *rq,
			     u64 pos, u32 len);
blk_status_t sbd_cache_flush(struct sbd_device *dev);
int sbd_cache_init(struct sbd_device *dev, unsigned int index, size_t bytes);
void sbd_cache_free(struct sbd_device *dev);
u64 sbd_cache_memory(u64 bytes, unsigned int sect_size);

/*
 * The sysfs files of sbd-cache.c and sbd-record.c, in sbd.c's group
 * (shown only on a disk with a cache).
 */
extern struct device_attribute dev_attr_power, dev_attr_powercut_policy,
	dev_attr_cache_stats, dev_attr_record, dev_attr_mark, dev_attr_cut_at,
	dev_attr_visit, dev_attr_record_stats, dev_attr_hold_writes_ms;

/* In sbd-export.c: a disk's debugfs directory, removed by sbd.c. */
void sbd_export_add_debugfs(struct sbd_device *dev, struct dentry *root);
void sbd_export_remove_debugfs(struct sbd_device *dev);

/* In sbd-input.c: reading parameters and sysfs input. */
bool sbd_parse_decimal(const char *s, size_t len, u64 *value);
const char *sbd_next_word(const char **p, size_t *len);
bool sbd_word_is(const char *word, size_t len, const char *name);
bool sbd_parse_token(const char **p, u64 *value);
bool sbd_input_ends(const char *p);
bool sbd_parse_policy(const char **p, struct sbd_policy *pol);
ssize_t sbd_policy_emit(char *buf, int at, const struct sbd_policy *pol);

/* In sbd-copy.c: the request path's copy, and the cache's. */
void sbd_copy_seg(u8 *mem, struct bio_vec *bvec, u64 pos, bool write);
void sbd_apply_write(struct sbd_device *dev, struct request *rq,
		     u64 pos, u32 len);
void sbd_copy_bytes(u8 *to, u8 *from, u32 len);

#endif /* SBD_H */
