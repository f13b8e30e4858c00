// SPDX-License-Identifier: GPL-2.0
/*
 * What debugfs shows of a disk's recording, under sbd/sbdN/ on a disk
 * with a cache: "points", the recording point by point; "log-writes",
 * the recording in dm-log-writes' format; "log-writes-points", which
 * maps that log's entries to points; "fates", what the visit lost of
 * the writes.  It reads the recording
 * (sbd-record.h) under the cache's mutex and calls nothing else of sbd.
 * And the way back in, "fua": a FUA write through the block layer, for
 * replaying such a log into a new recording (explore/sbd-import.c).
 */
#include <linux/bio.h>
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "sbd-record.h"

static const char * const sbd_point_names[] = {
	[SBD_POINT_WRITE] = "write",
	[SBD_POINT_DISCARD] = "discard",
	[SBD_POINT_ZEROES] = "zeroes",
	[SBD_POINT_FLUSH] = "flush",
	[SBD_POINT_MARK] = "mark",
};

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
 * it only for writes the store does not hold (after @base, see sbd-record.c):
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
 * debugfs sbd/sbdN/fates: while the disk visits a state, the writes it
 * did not keep whole, a line each, "K lost" or "K torn": the writes after
 * the last FLUSH at or before the point, without FUA, whose fate under
 * the visit's policy (and "only" list) is not to be kept.  Shrinking
 * such a set (a visit's "only" list) finds the writes a failure needs.
 * EINVAL when the disk is not visiting.
 */
static int sbd_fates_show(struct seq_file *m, void *v)
{
	struct sbd_device *dev = m->private;
	struct sbd_cache *c = &dev->cache;
	const struct sbd_point *p;
	struct sbd_record *r;
	enum sbd_fate fate;
	int err = 0;
	u64 k, rnd;

	mutex_lock(&c->mutex);
	r = c->rec;
	if (!r || !r->visiting) {
		err = -EINVAL;
		goto out;
	}
	for (k = sbd_record_durable(r, r->point) + 1; k <= r->point; k++) {
		p = &sbd_point_array(r)[k - 1];
		if (!sbd_point_has_data(p) || p->fua)
			continue;
		fate = sbd_visit_fate(&r->policy, r->only, r->nonly, k,
				      p->len / dev->sect_size, &rnd);
		if (fate != SBD_KEPT)
			seq_printf(m, "%llu %s\n", k,
				   fate == SBD_LOST ? "lost" : "torn");
		cond_resched();
	}
out:
	mutex_unlock(&c->mutex);
	return err;
}
DEFINE_SHOW_ATTRIBUTE(sbd_fates);

/*
 * debugfs sbd/sbdN/fua: a pwrite() of whole blocks here is one FUA write
 * of those bytes at that offset of the disk, sent through the block
 * layer like any other.  Replaying a log needs it: user space cannot
 * send a FUA write alone (O_DSYNC on a block device sends a FLUSH after
 * it, a point the log never had).  At most max_sectors_kb, so that the
 * block layer does not split it into several writes, and one bio's
 * worth of pages (BIO_MAX_VECS).
 */
static ssize_t sbd_fua_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct sbd_device *dev = file->private_data;
	struct request_queue *q = dev->disk->queue;
	loff_t pos = *ppos;
	struct bio *bio;
	size_t off;
	u8 *data;
	int err;

	if (pos < 0 || !count || !IS_ALIGNED(pos | count, dev->sect_size) ||
	    count > (size_t)queue_max_sectors(q) << SECTOR_SHIFT ||
	    count > BIO_MAX_VECS * PAGE_SIZE)
		return -EINVAL;
	if (get_disk_ro(dev->disk))
		return -EROFS;
	if (pos >= dev->size || count > dev->size - pos)
		return -ENOSPC;
	data = vmalloc(count);
	if (!data)
		return -ENOMEM;
	err = -EFAULT;
	if (copy_from_user(data, buf, count))
		goto out;
	bio = bio_alloc(dev->disk->part0, DIV_ROUND_UP(count, PAGE_SIZE),
			REQ_OP_WRITE | REQ_SYNC | REQ_FUA, GFP_KERNEL);
	bio->bi_iter.bi_sector = pos >> SECTOR_SHIFT;
	for (off = 0; off < count; off += PAGE_SIZE)
		__bio_add_page(bio, vmalloc_to_page(data + off),
			       min_t(size_t, count - off, PAGE_SIZE), 0);
	err = submit_bio_wait(bio);
	bio_put(bio);
	if (!err)
		*ppos = pos + count;
out:
	vfree(data);
	return err ? err : count;
}

static const struct file_operations sbd_fua_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sbd_fua_write,
	.llseek = default_llseek,
};

/*
 * debugfs sbd/sbdN/pause: a test hook (sbd_pause_point()).  Writing
 * "stop", "mark" or "visit" makes the next write of that sysfs file wait
 * at its pause point; "none" lets it go on.  Reads the path armed
 * ("none" if none), and "waiting" after it while a writer waits.
 */
static const char *const sbd_pause_names[] = {
	[SBD_PAUSE_NONE] = "none",
	[SBD_PAUSE_STOP] = "stop",
	[SBD_PAUSE_MARK] = "mark",
	[SBD_PAUSE_VISIT] = "visit",
};

static int sbd_pause_show(struct seq_file *m, void *v)
{
	struct sbd_cache *c = &((struct sbd_device *)m->private)->cache;

	seq_printf(m, "%s%s\n", sbd_pause_names[READ_ONCE(c->pause_at)],
		   READ_ONCE(c->paused) ? " waiting" : "");
	return 0;
}

static int sbd_pause_open(struct inode *inode, struct file *file)
{
	return single_open(file, sbd_pause_show, inode->i_private);
}

static ssize_t sbd_pause_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct sbd_cache *c = &((struct sbd_device *)m->private)->cache;
	char buf[8];
	int where;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	where = sysfs_match_string(sbd_pause_names, buf);
	if (where < 0)
		return -EINVAL;
	WRITE_ONCE(c->pause_at, where);
	wake_up_all(&c->pause_wq);
	return count;
}

static const struct file_operations sbd_pause_fops = {
	.owner = THIS_MODULE,
	.open = sbd_pause_open,
	.read = seq_read,
	.write = sbd_pause_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * sbd/sbdN/ under @root, with the recording's listings, the visit's
 * fates, the FUA write and the test hook; removed with the disk (sbd.c).
 * debugfs errors are not sbd's to report.
 */
void sbd_export_add_debugfs(struct sbd_device *dev, struct dentry *root)
{
	dev->debugfs = debugfs_create_dir(dev->disk->disk_name, root);
	debugfs_create_file("points", 0444, dev->debugfs, dev,
			    &sbd_listing_fops);
	debugfs_create_file("log-writes", 0444, dev->debugfs, dev,
			    &sbd_export_fops);
	debugfs_create_file("log-writes-points", 0444, dev->debugfs, dev,
			    &sbd_export_map_fops);
	debugfs_create_file("fates", 0444, dev->debugfs, dev,
			    &sbd_fates_fops);
	debugfs_create_file("fua", 0200, dev->debugfs, dev, &sbd_fua_fops);
	debugfs_create_file("pause", 0600, dev->debugfs, dev, &sbd_pause_fops);
}

/*
 * Remove sbd/sbdN/, then let a writer waiting at a pause point go on:
 * the disk's removal waits for its sysfs writers, and nothing can arm
 * the hook again.
 */
void sbd_export_remove_debugfs(struct sbd_device *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	if (dev->cache.log)
		sbd_pause_clear(&dev->cache);
}
