#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""report.py OUTDIR LABEL=CONSOLE.LOG...: turn tests/vm-bench.sh's "@@ bench"
lines into OUTDIR/results.md (tables), OUTDIR/results.csv (every round),
OUTDIR/summary.csv (medians, spread, ratio to brd) and, per kernel,
OUTDIR/ratios-LABEL.dat for the chart (gnuplot runs in scripts/bench.sh),
and where the VM measured sbd at several logical block sizes, a table of
those against its 4096-byte-sector figures.
The figure is the median of the rounds; the spread is min-max."""
import os
import statistics
import time
import sys

ORDER = ["randread-qd1", "randread-qd1-uring", "randread-qd32",
         "randwrite-qd1", "randwrite-qd1-uring", "randwrite-qd32",
         "randrw70-2j-qd16", "seqread-1m-qd8", "seqwrite-1m-qd8",
         "randread-qd32-uring-batch", "randwrite-qd32-uring-batch",
         "randread-2j-qd16-uring-batch", "randread-qd32-uring-reap16",
         "randwrite-qd32-uring-reap16", "randwrite-qd1-fsync32",
         "seqwrite-1m-qd8-fsync8"]
DESC = {
    "randread-qd1": "4k randread QD1 libaio",
    "randread-qd1-uring": "4k randread QD1 io_uring",
    "randread-qd32": "4k randread QD32 libaio",
    "randwrite-qd1": "4k randwrite QD1 libaio",
    "randwrite-qd1-uring": "4k randwrite QD1 io_uring",
    "randwrite-qd32": "4k randwrite QD32 libaio",
    "randrw70-2j-qd16": "4k randrw 70/30 2 jobs QD16",
    "seqread-1m-qd8": "1M seq read QD8",
    "seqwrite-1m-qd8": "1M seq write QD8",
    "randread-qd32-uring-batch": "4k randread QD32 io_uring batch 16",
    "randwrite-qd32-uring-batch": "4k randwrite QD32 io_uring batch 16",
    "randread-2j-qd16-uring-batch": "4k randread 2 jobs QD16 io_uring batch 16",
    "randread-qd32-uring-reap16": "4k randread QD32 io_uring batch 16, reap 16",
    "randwrite-qd32-uring-reap16": "4k randwrite QD32 io_uring batch 16, reap 16",
    "randwrite-qd1-fsync32": "4k randwrite QD1, fsync every 32",
    "seqwrite-1m-qd8-fsync8": "1M seq write QD8, fsync every 8",
    "randread-bs-qd1": "randread at the block size QD1",
    "randread-bs-qd32": "randread at the block size QD32",
    "randwrite-bs-qd1": "randwrite at the block size QD1",
    "randwrite-bs-qd32": "randwrite at the block size QD32",
}
LBS_ORDER = ["randread-bs-qd1", "randread-bs-qd32", "randwrite-bs-qd1",
             "randwrite-bs-qd32", "seqread-1m-qd8", "seqwrite-1m-qd8"]
DEV_ORDER = ["sbd", "sbd-tuned", "sbdo", "sbdc", "sbdn", "brd", "null_blk",
             "nullb-floor", "zram"]
# Pairs compared directly (A / B, median over median, same boot), when
# both were measured: what each says.
PAIRS = [
    ("sbdn", "nullb-floor", "sbd's request path without its copy (sbdn) "
     "against the blk-mq floor (null_blk, no memory)"),
    ("sbd", "sbdn", "sbd against its own copy-free path: what the "
     "segment walk, lock and copy cost"),
    ("sbd", "sbdo", "sbd against sbd as of 749dfb9 (sbdo: no write cache, "
     "no large blocks): the uncached path unchanged"),
    ("sbdc", "sbd", "sbd with a 64 MiB write cache (sbdc) against sbd "
     "without one: what the cache costs"),
]


def unit(w):
    return "MiB/s" if w.startswith("seq") else "IOPS"


def lbs_table(lbs):
    """Markdown for sbd at each logical block size; ratios to 4096."""
    sizes = sorted({bs for bs, _ in lbs})
    med = {k: statistics.median(v for _, v in vals) for k, vals in lbs.items()}
    md = ["sbd alone at several logical block sizes (`hardsect_size`; fio "
          "at the block size, so IOPS move data in blocks of that size), "
          "median of the rounds; in brackets the ratio to the 4096-byte "
          "figure:", "",
          "| workload | unit | " + " | ".join(f"{bs}" for bs in sizes) + " |",
          "|---|---|" + "---|" * len(sizes)]
    for w in [w for w in LBS_ORDER if any(k[1] == w for k in lbs)]:
        base = med.get((4096, w))
        cells = []
        for bs in sizes:
            m = med.get((bs, w))
            if m is None:
                cells.append("-")
            elif base and bs != 4096:
                cells.append(f"{fmt(m)} ({m / base:.2f})")
            else:
                cells.append(fmt(m))
        md.append(f"| {DESC.get(w, w)} | {unit(w)} | " + " | ".join(cells) + " |")
    return md + [""]


def fmt(v):
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def parse(path):
    res, settings, memcpy, info, notes, lbs = {}, {}, [], [], [], {}
    sizes, prof = {}, {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line.startswith("@@ bench "):
                continue
            w = line.split()[2:]
            if w[0] == "result" and len(w) == 5:
                res.setdefault((w[2], w[3]), []).append((int(w[1]), float(w[4])))
            elif w[0] == "lbs" and len(w) == 5:
                lbs.setdefault((int(w[2]), w[3]), []).append((int(w[1]), float(w[4])))
            elif w[0] == "size" and len(w) == 6:
                sizes[w[1], int(w[2])] = (int(w[3]), int(w[4]), int(w[5]))
            elif w[0] == "profile" and len(w) == 5:
                prof.setdefault((w[1], w[2]), {})[w[3]] = float(w[4])
            elif w[0] == "profile-total" and len(w) == 5:
                prof.setdefault((w[1], w[2]), {})[" total"] = float(w[3])
                prof[w[1], w[2]][" lost"] = float(w[4])
            elif w[0] == "setting":
                settings[w[1]] = dict(kv.split("=", 1) for kv in w[2:])
            elif w[0] == "memcpy" and len(w) >= 4:
                memcpy.append((float(w[2]), float(w[3]),
                               float(w[4]) if len(w) > 4 else 0.0))
            elif w[0] == "info":
                info.append(" ".join(w[1:]))
            elif w[0] == "note":
                notes.append(" ".join(w[1:]))
    return res, settings, memcpy, info, notes, lbs, sizes, prof


def profile_table(label, prof, out):
    """Kernel function calls per I/O, per device: a summary for
    results.md and every function in profile-LABEL.md."""
    wls = sorted({w for _, w in prof})
    md = []
    for w in wls:
        devs = [d for d in DEV_ORDER + sorted({d for d, _ in prof})
                if (d, w) in prof]
        devs = list(dict.fromkeys(devs))
        funcs = sorted({f for d in devs for f in prof[d, w] if not f.startswith(" ")},
                       key=lambda f: (-max(prof[d, w].get(f, 0) for d in devs), f))
        full = [f"# Kernel functions called per I/O, kernel {label}, {w}", "",
                "From tests/vm-bench.sh's function-tracer phase (BENCH_PROFILE): "
                "calls by the fio task that submits I/O, outside interrupts, in "
                "one traced second of the running workload, divided by that "
                "task's submit_bio() calls; functions some device calls at "
                "least 0.5 times per I/O (the totals count every function; "
                "calls under 0.1 per I/O are not recorded).", "",
                "| function | " + " | ".join(devs) + " |",
                "|---|" + "---|" * len(devs)]
        full.append("| **all functions** | " + " | ".join(
            f"**{prof[d, w].get(' total', 0):.0f}**" for d in devs) + " |")
        for f in funcs:
            if max(prof[d, w].get(f, 0) for d in devs) < 0.5:
                continue
            full.append(f"| {f} | " + " | ".join(
                f"{prof[d, w][f]:.1f}" if f in prof[d, w] else "-" for d in devs) + " |")
        with open(f"{out}/profile-{label}-{w}.md", "w") as fh:
            fh.write("\n".join(full) + "\n")
        md += [f"Kernel function calls per I/O ({w}; every function, from the "
               f"function tracer; all of them in `profile-{label}-{w}.md`):", "",
               "| device | calls per I/O | events lost |", "|---|---|---|"]
        md += [f"| {d} | {prof[d, w].get(' total', 0):.0f} | "
               f"{prof[d, w].get(' lost', 0):.0f} |" for d in devs]
        md.append("")
        for a, b in (("sbd", "nullb-floor"), ("sbd", "brd"), ("sbdn", "nullb-floor")):
            if (a, w) not in prof or (b, w) not in prof:
                continue
            pa, pb = prof[a, w], prof[b, w]
            diff = sorted(((pa.get(f, 0) - pb.get(f, 0), f) for f in set(pa) | set(pb)
                           if not f.startswith(" ")), key=lambda x: (-abs(x[0]), x[1]))
            more = [f"{f} {v:+.1f}" for v, f in diff if abs(v) >= 0.9][:40]
            md += [f"- {a} against {b}, calls per I/O that differ by 1 or more "
                   f"({len([1 for v, _ in diff if abs(v) >= 0.9])} functions): "
                   + ", ".join(more)]
        md.append("")
    return md


def size_table(label, sizes, out):
    """Markdown for load time and memory against size, and the .dat
    file scripts/bench.sh plots (sizes-LABEL.dat)."""
    mbs = sorted({mb for _, mb in sizes})
    md = ["Load time and memory against size (sbd and brd alone, before "
          "anything else is loaded; memory = MemTotal - MemAvailable "
          "against before the load, MiB; time = insmod or modprobe, ms):", "",
          "| size MiB | sbd load ms | sbd after load | sbd after full write "
          "| brd load ms | brd after load | brd after full write |",
          "|---|---|---|---|---|---|---|"]
    dat = ["size_mib sbd_load_ms sbd_loaded_mib sbd_filled_mib "
           "brd_load_ms brd_loaded_mib brd_filled_mib"]
    for mb in mbs:
        s = sizes.get(("sbd", mb), ("-", "-", "-"))
        b = sizes.get(("brd", mb), ("-", "-", "-"))
        md.append(f"| {mb} | " + " | ".join(str(x) for x in s + b) + " |")
        dat.append(f"{mb} " + " ".join(str(x) if x != "-" else "NaN" for x in s + b))
    with open(f"{out}/sizes-{label}.dat", "w") as f:
        f.write("\n".join(dat) + "\n")
    return md + [""]


def main():
    out = sys.argv[1]
    runs = [a.split("=", 1) for a in sys.argv[2:]]
    md = ["# sbd benchmark results", "",
          "Produced by `scripts/bench.sh`. fio, `direct=1`, time-based; "
          "each figure is the **median of the rounds**, the spread "
          "(min-max) in brackets; ratios are median/median against brd. "
          "QEMU TCG: absolute numbers mean little, the ratios within one "
          "VM boot are the result.", "",
          f"Command: `{os.environ.get('BENCH_CMD', 'scripts/bench.sh')}`; "
          f"sbd source: {os.environ.get('BENCH_SOURCE', 'unknown')}; "
          f"run {time.strftime('%Y-%m-%d %H:%M')}.", ""]
    rows = ["kernel,round,device,workload,unit,value"]
    summ = ["kernel,workload,unit,device,median,min,max,ratio_to_brd"]
    for label, path in runs:
        res, settings, memcpy, info, notes, lbs, sizes, prof = parse(path)
        devs = [d for d in DEV_ORDER if any(k[0] == d for k in res)]
        devs += sorted({k[0] for k in res} - set(devs))
        wls = [w for w in ORDER if any(k[1] == w for k in res)]
        md += [f"## Kernel {label}", ""]
        md += [f"- {i}" for i in info]
        med = {}
        for (d, w), vals in res.items():
            vs = [v for _, v in vals]
            med[d, w] = (statistics.median(vs), min(vs), max(vs), len(vs))
            for r, v in sorted(vals):
                rows.append(f"{label},{r},{d},{w},{unit(w)},{v}")
        mc_hot = statistics.median([m[0] for m in memcpy]) if memcpy else 0
        mc_str = statistics.median([m[1] for m in memcpy]) if memcpy else 0
        mc_mov = statistics.median([m[2] for m in memcpy]) if memcpy else 0
        if memcpy:
            md.append(f"- memcpy (bench/memcpy-bench.c, 1 MiB buffers, in the VM): "
                      f"glibc memcpy {mc_hot:.0f} MiB/s (same buffers), "
                      f"{mc_str:.0f} MiB/s (walking a 256 MiB source); "
                      f"`rep movsb` {mc_mov:.0f} MiB/s (median of {len(memcpy)}; "
                      f"the kernel's memcpy() is `rep movsb` only on CPUs with "
                      f"FSRM, and sbd's 1M figures above it show this guest's is not)")
        md.append("")
        md += ["| workload | unit | " + " | ".join(devs) + " |",
               "|---|---|" + "---|" * len(devs)]
        for w in wls:
            cells = []
            for d in devs:
                if (d, w) in med:
                    m, lo, hi, n = med[d, w]
                    cells.append(f"{fmt(m)} ({fmt(lo)}-{fmt(hi)})")
                else:
                    cells.append("-")
            md.append(f"| {DESC.get(w, w)} | {unit(w)} | " + " | ".join(cells) + " |")
        md.append("")
        others = [d for d in devs if d != "brd"]
        md += ["Ratio to brd (median / median; per-round ratio range in brackets):", "",
               "| workload | " + " | ".join(others) + " |",
               "|---|" + "---|" * len(others)]
        dat = ["workload " + " ".join(others)]
        for w in wls:
            cells, datc = [], []
            b = med.get(("brd", w))
            brd_by_round = dict(res.get(("brd", w), []))
            for d in others:
                if b and (d, w) in med and b[0] > 0:
                    ratio = med[d, w][0] / b[0]
                    rr = [v / brd_by_round[r] for r, v in res[d, w]
                          if brd_by_round.get(r)]
                    span = f" ({min(rr):.2f}-{max(rr):.2f})" if rr else ""
                    cells.append(f"**{ratio:.2f}**{span}" if d == "sbd" else f"{ratio:.2f}{span}")
                    datc.append(f"{ratio:.3f}")
                else:
                    cells.append("-")
                    datc.append("NaN")
            md.append(f"| {DESC.get(w, w)} | " + " | ".join(cells) + " |")
            dat.append(f"\"{DESC.get(w, w)}\" " + " ".join(datc))
        # Wall-clock noise only ever slows a round down (the host or the
        # emulator was busy elsewhere), so the fastest rounds are a second
        # estimate; where it and the median disagree, neither is solid.
        md += ["", "Ratio to brd, fastest round / fastest round (the other "
               "estimate when noise is one-sided; under `-icount` it is the "
               "median's):", "",
               "| workload | " + " | ".join(others) + " |",
               "|---|" + "---|" * len(others)]
        for w in wls:
            b = med.get(("brd", w))
            cells = [f"{med[d, w][2] / b[2]:.2f}" if b and b[2] and (d, w) in med
                     else "-" for d in others]
            md.append(f"| {DESC.get(w, w)} | " + " | ".join(cells) + " |")
        for w in wls:
            for d in devs:
                if (d, w) in med:
                    m, lo, hi, n = med[d, w]
                    b = med.get(("brd", w))
                    ratio = f"{m / b[0]:.3f}" if b and b[0] else ""
                    summ.append(f"{label},{w},{unit(w)},{d},{m},{lo},{hi},{ratio}")
        with open(f"{out}/ratios-{label}.dat", "w") as f:
            f.write("\n".join(dat) + "\n")
        md.append("")
        if memcpy:
            for d in [x for x in devs if x.startswith("sbd")]:
                parts = []
                for w, what in (("seqread-1m-qd8", "1M read"), ("seqwrite-1m-qd8", "1M write")):
                    if (d, w) in med:
                        v = med[d, w][0]
                        parts.append(f"{what} = {v / mc_hot:.2f} of glibc memcpy"
                                     + (f", {v / mc_mov:.2f} of rep movsb" if mc_mov else ""))
                if parts:
                    md.append(f"- {d}: " + "; ".join(parts))
            md.append("")
        pairs = [p for p in PAIRS
                 if any(k[0] == p[0] for k in res) and any(k[0] == p[1] for k in res)]
        if pairs:
            md += ["Pairs measured in the same boot (median / median; "
                   "per-round ratio range in brackets):", ""]
            md += [f"- **{a} / {b}**: {what}" for a, b, what in pairs] + [""]
            md += ["| workload | " + " | ".join(f"{a} / {b}" for a, b, _ in pairs) + " |",
                   "|---|" + "---|" * len(pairs)]
            for w in wls:
                cells = []
                for a, b, _ in pairs:
                    if (a, w) in med and (b, w) in med and med[b, w][0] > 0:
                        rb = dict(res[b, w])
                        rr = [v / rb[r] for r, v in res[a, w] if rb.get(r)]
                        cells.append(f"{med[a, w][0] / med[b, w][0]:.3f} "
                                     f"({min(rr):.3f}-{max(rr):.3f})")
                    else:
                        cells.append("-")
                md.append(f"| {DESC.get(w, w)} | " + " | ".join(cells) + " |")
            md.append("")
        if sizes:
            md += size_table(label, sizes, out)
        if prof:
            md += profile_table(label, prof, out)
        if lbs:
            md += lbs_table(lbs)
            for (bs, w), vals in sorted(lbs.items()):
                for r, v in sorted(vals):
                    rows.append(f"{label},{r},sbd@{bs},{w},{unit(w)},{v}")
        keys = ["scheduler", "iostats", "nomerges", "add_random", "rq_affinity", "wbt_lat_usec",
                "nr_requests", "hw_queues", "max_sectors_kb", "logical_block_size"]
        md += ["Settings each device ran with (read from sysfs; n/a = bio-based, "
               "no request queue):", "",
               "| device | disk | " + " | ".join(keys) + " |",
               "|---|---|" + "---|" * len(keys)]
        for d in devs:
            s = settings.get(d, {})
            md.append(f"| {d} | {s.get('dev', '?')} | " +
                      " | ".join(s.get(k, "?") for k in keys) + " |")
        md += ["", "Device set-up: sbd `nsectors=SIZE*2048 hardsect_size=512` "
               "(\"sbd\" = as loaded, \"sbd-tuned\" = same disk with the tuned "
               "sysfs settings above); brd `rd_nr=1 rd_size=SIZE*1024 max_part=0`; "
               "null_blk via configfs `queue_mode=2 memory_backed=1 size=SIZE "
               "blocksize=512 irqmode=0 submit_queues=nproc hw_queue_depth=128`, "
               "scheduler none (nullb-floor: the same with `memory_backed=0`); "
               "sbd variants (sbdn, sbdc, sbdo): see scripts/bench.sh "
               "BENCH_VARIANTS, same nsectors and hardsect_size; zram `disksize=SIZE`, default compressor (its "
               "logical block is fixed at 4096). All filled with the same random "
               "data first.", ""]
        if notes:
            md += ["Notes from the VM:", ""] + [f"- {n}" for n in notes] + [""]
    with open(f"{out}/results.md", "w") as f:
        f.write("\n".join(md))
    with open(f"{out}/results.csv", "w") as f:
        f.write("\n".join(rows) + "\n")
    with open(f"{out}/summary.csv", "w") as f:
        f.write("\n".join(summ) + "\n")


main()
