#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""variant.py NAME SRCDIR OUTDIR [nocopy] [noqueuerqs]: sbd's source from SRCDIR
(sbd.c, and every other *.c and *.h the commit has)
as a module and disk named NAME in OUTDIR (NAME-main.c, the others as
they are, Kbuild), for scripts/bench.sh to load beside sbd in the same
VM boot.
With "nocopy" the request path skips sbd_copy_rq(): everything a READ or
WRITE costs except touching the data (its segment walk, lock and copy),
to set against null_blk with memory_backed=0, the blk-mq floor.
With "noqueuerqs" sbd's .queue_rqs handler is left out, to measure
what batched submission gains.
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
if "noqueuerqs" in feats:
    # sbd without its .queue_rqs handler: plugged lists go through
    # .queue_rq one request at a time, each completed on its own.
    rep(".queue_rqs = sbd_queue_rqs,", ".queue_rqs = NULL ? sbd_queue_rqs : NULL,")
unknown = feats - {"nocopy", "noqueuerqs"}
assert not unknown, f"unknown feature {unknown}"
os.makedirs(out, exist_ok=True)
parts = [f"{name}-main.o"]
open(f"{out}/{name}-main.c", "w").write(s)
# Every other source of the commit: headers, and the feature files,
# each linked into the variant.
for f in sorted(os.listdir(src)):
    if f == "sbd.c" or not f.endswith((".c", ".h")):
        continue
    open(f"{out}/{f}", "w").write(open(f"{src}/{f}").read())
    if f.endswith(".c"):
        parts.append(f[:-2] + ".o")
open(f"{out}/Kbuild", "w").write(f"obj-m := {name}.o\n{name}-y := {' '.join(parts)}\n")
