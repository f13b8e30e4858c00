#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# The record of how the experiment variants in README.md were made (paths
# are those of the scratch copy they were built in): copy sbd.c under the
# module and disk name NAME with FEATURES applied (noiostat, nomerge,
# rqlock, nolock, queuerqs, hwq1, copypage), for BENCH_EXTRA_KO.
# mkvariant.py NAME FEATURES... : write /tmp/scratch-bench/exp/src/NAME/{NAME.c,sbd.h,Kbuild}
import os, sys
name, feats = sys.argv[1], set(sys.argv[2:])
base = open('/tmp/snap/sbd.c').read()
s = base.replace('#define SBD_NAME\t\t"sbd"', f'#define SBD_NAME\t\t"{name}"')
assert f'"{name}"' in s
def rep(old, new):
    global s
    assert old in s, old
    s = s.replace(old, new, 1)

if 'noiostat' in feats or 'nomerge' in feats:
    post = ''
    if 'noiostat' in feats:
        post += '''
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	{
		struct queue_limits l = queue_limits_start_update(disk->queue);
		l.features &= ~BLK_FEAT_IO_STAT;
		queue_limits_commit_update(disk->queue, &l);
	}
#else
	blk_queue_flag_clear(QUEUE_FLAG_IO_STAT, disk->queue);
#endif
'''
    if 'nomerge' in feats:
        post += '\tblk_queue_flag_set(QUEUE_FLAG_NOMERGES, disk->queue);\n'
    rep('\tdev->disk = disk;\n', '\tdev->disk = disk;\n' + post)
if 'nomerge' in feats:
    rep('set->flags = SBD_TAG_SET_MERGE | BLK_MQ_F_NO_SCHED_BY_DEFAULT;', 'set->flags = BLK_MQ_F_NO_SCHED_BY_DEFAULT;')

copy_start = s.index('static void sbd_copy_rq(')
copy_end = s.index('/* DISCARD and WRITE_ZEROES')
if 'rqlock' in feats:
    s = s[:copy_start] + '''static void sbd_copy_rq(struct sbd_device *dev, struct request *rq, u64 pos)
{
	bool write = op_is_write(req_op(rq));
	struct req_iterator iter;
	struct bio_vec bvec;

	spin_lock(&dev->lock);
	rq_for_each_bvec(bvec, rq, iter) {
		u8 *mem = dev->store + pos;
		void *buf = bvec_virt(&bvec);

		if (write)
			memcpy(mem, buf, bvec.bv_len);
		else
			memcpy(buf, mem, bvec.bv_len);
		pos += bvec.bv_len;
	}
	spin_unlock(&dev->lock);
}

''' + s[copy_end:]
if 'copypage' in feats:
    rep('''		spin_lock(&dev->lock);
		if (write)
			memcpy_from_bvec(mem, &bvec);
		else
			memcpy_to_bvec(&bvec, mem);
		spin_unlock(&dev->lock);''', '''		spin_lock(&dev->lock);
		if (bvec.bv_len == PAGE_SIZE && !bvec.bv_offset &&
		    PAGE_ALIGNED(pos)) {
			void *page = kmap_local_page(bvec.bv_page);

			if (write)
				copy_page(mem, page);
			else
				copy_page(page, mem);
			kunmap_local(page);
		} else if (write) {
			memcpy_from_bvec(mem, &bvec);
		} else {
			memcpy_to_bvec(&bvec, mem);
		}
		spin_unlock(&dev->lock);''')
if 'nolock' in feats:
    s = s.replace('\t\tspin_lock(&dev->lock);\n\t\tif (write)', '\t\tif (write)', 1)
    s = s.replace('\t\t\tmemcpy_to_bvec(&bvec, mem);\n\t\tspin_unlock(&dev->lock);', '\t\t\tmemcpy_to_bvec(&bvec, mem);', 1)
if 'queuerqs' in feats:
    rep('static const struct blk_mq_ops sbd_mq_ops = {\n\t.queue_rq = sbd_queue_rq,\n', '''static void sbd_queue_rqs(struct rq_list *rqlist)
{
	struct request *rq;

	while ((rq = rq_list_pop(rqlist))) {
		blk_mq_start_request(rq);
		blk_mq_end_request(rq, sbd_do_rq(rq->q->queuedata, rq));
	}
}

static const struct blk_mq_ops sbd_mq_ops = {
	.queue_rq = sbd_queue_rq,
	.queue_rqs = sbd_queue_rqs,
''')
if 'hwq1' in feats:
    rep('set->nr_hw_queues = num_online_cpus();', 'set->nr_hw_queues = 1;')
for f in feats:
    if f.startswith('depth'):
        rep('#define SBD_QUEUE_DEPTH\t\t128', f'#define SBD_QUEUE_DEPTH\t\t{int(f[5:])}')
d = f'/tmp/scratch-bench/exp/src/{name}'
os.makedirs(d, exist_ok=True)
open(f'{d}/{name}.c', 'w').write(s)
open(f'{d}/Kbuild', 'w').write(f'obj-m := {name}.o\n')
os.system(f'cp /tmp/snap/sbd.h /tmp/scratch-bench/Makefile {d}/')
