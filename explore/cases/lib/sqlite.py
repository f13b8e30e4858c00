# SPDX-License-Identifier: GPL-2.0
# sqlite.py JOURNAL_MODE SYNCHRONOUS N VALUE: one connection, as an application
# keeps it (with WAL, closing the last connection checkpoints the log,
# which syncs it: one connection per step would hide what NORMAL does),
# and step I inserts row I in its own transaction; prints I once the
# commit returned, for the shell to mark.  VALUE is sqlite.sh's SQL for
# a row's value, "@" standing for the row, so that its check computes
# the same.
import sqlite3
import sys

mode, sync, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
value = sys.argv[4]
db = sqlite3.connect("db", isolation_level=None)
db.execute("pragma synchronous=%s" % sync)
if db.execute("pragma journal_mode").fetchone()[0] != mode:
    sys.exit("journal_mode is not %s" % mode)
for i in range(1, n + 1):
    db.execute("begin")
    db.execute("insert into t values(%d, %s)" % (i, value.replace("@", str(i))))
    db.execute("commit")
    print(i, flush=True)
db.close()
