#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""variant.py NAME SRCDIR OUTDIR [nocopy] [queuerqs]: sbd's source from SRCDIR
(sbd.c, sbd.h) as a module and disk named NAME in OUTDIR (NAME.c, sbd.h,
Kbuild), for scripts/bench.sh to load beside sbd in the same VM boot.
With "nocopy" the request path skips sbd_copy_rq(): everything a READ or
WRITE costs except touching the data (its segment walk, lock and copy),
to set against null_blk with memory_backed=0, the blk-mq floor.
With "queuerqs" it gains a .queue_rqs handler (6.12 and later: struct
rq_list) that completes the plugged batch with blk_mq_end_request_batch(),
and prints at unload how many requests came through each entry point.
Each edit asserts that the text it changes is there, so a variant never
silently measures something else."""
import os
import sys

name, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
feats = set(sys.argv[4:])
s = open(f"{src}/sbd.c").read()


def rep(old, new):
    global s
    assert s.count(old) == 1, f"variant {name}: expected once: {old!r}"
    s = s.replace(old, new)


rep('#define SBD_NAME\t\t"sbd"', f'#define SBD_NAME\t\t"{name}"')
if "nocopy" in feats:
    rep("static void sbd_copy_rq(struct sbd_device *dev, struct request *rq, u64 pos)\n{\n",
        "static void sbd_copy_rq(struct sbd_device *dev, struct request *rq, u64 pos)\n{\n"
        "\tif (dev)\t/* bench variant: no segment walk, no lock, no copy */\n"
        "\t\treturn;\n")
if "queuerqs" in feats:
    # A .queue_rqs handler with batched completion, and counters that
    # say at unload how often blk-mq used it: is the plug path taken?
    rep("""static blk_status_t sbd_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;

""", """static atomic_long_t sbd_bench_queue_rq, sbd_bench_queue_rqs, sbd_bench_rqs;

static blk_status_t sbd_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;

	atomic_long_inc(&sbd_bench_queue_rq);
""")
    rep("""static const struct blk_mq_ops sbd_mq_ops = {
	.queue_rq = sbd_queue_rq,
""", """static void sbd_complete_batch(struct io_comp_batch *iob)
{
	blk_mq_end_request_batch(iob);
}

/* A plugged batch: every request of @rqlist, completed as one batch. */
static void sbd_queue_rqs(struct rq_list *rqlist)
{
	DEFINE_IO_COMP_BATCH(iob);
	struct request *rq;

	atomic_long_inc(&sbd_bench_queue_rqs);
	while ((rq = rq_list_pop(rqlist))) {
		blk_status_t status;

		atomic_long_inc(&sbd_bench_rqs);
		blk_mq_start_request(rq);
		status = sbd_do_rq(rq->q->queuedata, rq);
		if (!blk_mq_add_to_batch(rq, &iob, status != BLK_STS_OK,
					 sbd_complete_batch))
			blk_mq_end_request(rq, status);
	}
	if (iob.complete)
		iob.complete(&iob);
}

static const struct blk_mq_ops sbd_mq_ops = {
	.queue_rq = sbd_queue_rq,
	.queue_rqs = sbd_queue_rqs,
""")
    rep("""static void __exit sbd_exit(void)
{
""", """static void __exit sbd_exit(void)
{
	pr_info("bench: queue_rq %ld calls; queue_rqs %ld calls for %ld requests\\n",
		atomic_long_read(&sbd_bench_queue_rq),
		atomic_long_read(&sbd_bench_queue_rqs),
		atomic_long_read(&sbd_bench_rqs));
""")
unknown = feats - {"nocopy", "queuerqs"}
assert not unknown, f"unknown feature {unknown}"
os.makedirs(out, exist_ok=True)
open(f"{out}/{name}.c", "w").write(s)
open(f"{out}/sbd.h", "w").write(open(f"{src}/sbd.h").read())
open(f"{out}/Kbuild", "w").write(f"obj-m := {name}.o\n")
