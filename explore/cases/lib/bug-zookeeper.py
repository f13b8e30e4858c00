# SPDX-License-Identifier: GPL-2.0
# bug-zookeeper.py: a ZooKeeper client (python3-kazoo) for
# bug-zookeeper.sh.
#   python3 bug-zookeeper.py workload HOST:PORT N   creates /kI holding
#       value(I), for I in 1..N, and prints I once the create returned
#   python3 bug-zookeeper.py check HOST:PORT        prints how many of
#       /k1.. are there, whole, in order; exits 1 with the reason if
#       they are not a prefix or a value is wrong
import sys

from kazoo.client import KazooClient


def value(i):
    return (b"%d." % i) * (100 + i * 37 % 400)


def main():
    zk = KazooClient(hosts=sys.argv[2], timeout=30)
    zk.start(timeout=60)
    if sys.argv[1] == "workload":
        for i in range(1, int(sys.argv[3]) + 1):
            zk.create("/k%d" % i, value(i))
            print(i, flush=True)
        zk.stop()
        return 0
    have = sorted(int(c[1:]) for c in zk.get_children("/") if c.startswith("k"))
    n = 0
    while n < len(have) and have[n] == n + 1:
        n += 1
    if n < len(have):
        print("/k%d is there without /k%d" % (have[n], n + 1))
        return 1
    for i in range(1, n + 1):
        if zk.get("/k%d" % i)[0] != value(i):
            print("/k%d: wrong value (of %d znodes)" % (i, n))
            return 1
    zk.stop()
    print(n)
    return 0


sys.exit(main())
