# SPDX-License-Identifier: GPL-2.0
# bug-leveldb-log.py: LevelDB (python3-plyvel) loaded in bursts, each
# closed by a synchronous write, as LevelDB's documentation suggests for
# bulk loads.  Step I: K small asynchronous puts a<I>.<J>, one large
# asynchronous put a<I>.big that fills the write buffer, then the
# synchronous put s<I>: it finds the buffer full, so LevelDB switches to
# a new log file, writes s<I> there and syncs that file alone.
#   python3 bug-leveldb-log.py workload N   prints I once s<I> returned
#   python3 bug-leveldb-log.py check        prints how many steps are
#       there whole; exits 1 with the reason if a step's synchronous
#       write is there and one of its earlier writes is not
import subprocess
import sys

import plyvel

BUFFER = 128 << 10   # write_buffer_size (LevelDB's smallest is 64 KiB)
K = 16


def small(i, j):
    return (b"%d.%d;" % (i, j)) * (60 + 7 * j)


def big(i):
    return (b"%d;" % i) * (BUFFER // len(b"%d;" % i))


def main():
    if sys.argv[1] == "workload":
        db = plyvel.DB("db", create_if_missing=True, write_buffer_size=BUFFER)
        # The set-up durable before step 1 starts (see mark_steps).
        subprocess.run(["sync", "-f", "."], check=True)
        print(0, flush=True)
        for i in range(1, int(sys.argv[2]) + 1):
            for j in range(K):
                db.put(b"a%05d.%03d" % (i, j), small(i, j))
            db.put(b"a%05d.big" % i, big(i))
            db.put(b"s%05d" % i, b"%d" % i, sync=True)
            print(i, flush=True)
        db.close()
        return 0
    db = plyvel.DB("db", write_buffer_size=BUFFER)
    have = sorted(int(k[1:]) for k in db.iterator(prefix=b"s", include_value=False))
    n = 0
    while n < len(have) and have[n] == n + 1:
        n += 1
    if n < len(have):
        print("s%05d is there without s%05d: %s" % (have[n], n + 1, have[:8]))
        return 1
    for i in range(1, n + 1):
        want = [(b"a%05d.%03d" % (i, j), small(i, j)) for j in range(K)]
        want.append((b"a%05d.big" % i, big(i)))
        for k, v in want:
            got = db.get(k)
            if got != v:
                print("step %d: its synchronous write s%05d is there, but its earlier "
                      "write %s is %s" % (i, i, k.decode(), "missing" if got is None else "wrong"))
                return 1
    db.close()
    print(n)
    return 0


sys.exit(main())
