# SPDX-License-Identifier: GPL-2.0
# kv.py: LMDB (python3-lmdb) and LevelDB (python3-plyvel) stores.
#   python3 kv.py workload ENGINE OPTION N   step I puts kI in its own
#       write (a transaction in LMDB), then prints I: the shell marks it
#   python3 kv.py check ENGINE               prints how many of k1.. are
#       there, whole, in order; exits 1 with the reason if they are not a
#       prefix or a value is wrong
import subprocess
import sys


def value(i):
    return (b"%d." % i) * (200 + i * 97 % 3000)


def open_store(engine, option):
    if engine == "lmdb":
        import lmdb
        sync = option != "nosync"
        metasync = option not in ("nosync", "nometasync")
        env = lmdb.open("db", map_size=64 << 20, sync=sync, metasync=metasync)

        def put(k, v):
            with env.begin(write=True) as txn:
                txn.put(k, v)

        def get(k):
            with env.begin() as txn:
                return txn.get(k)

        def count():
            return env.stat()["entries"]
        return put, get, count, env.close
    import plyvel
    db = plyvel.DB("db", create_if_missing=True)
    sync = option == "sync"

    def put(k, v):
        db.put(k, v, sync=sync)

    def count():
        return sum(1 for _ in db.iterator(include_value=False))
    return put, db.get, count, db.close


def main():
    verb, engine = sys.argv[1], sys.argv[2]
    if verb == "workload":
        put, _, _, close = open_store(engine, sys.argv[3])
        # The set-up durable before step 1 starts (see mark_steps).
        subprocess.run(["sync", "-f", "."], check=True)
        print(0, flush=True)
        for i in range(1, int(sys.argv[4]) + 1):
            put(b"k%d" % i, value(i))
            print(i, flush=True)
        close()
        return 0
    _, get, count, close = open_store(engine, "sync")
    n = count()
    for i in range(1, n + 1):
        v = get(b"k%d" % i)
        if v != value(i):
            print("k%d: %s (of %d keys)" % (i, "missing" if v is None else "wrong value", n))
            return 1
    close()
    print(n)
    return 0


sys.exit(main())
