#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""notes: a tiny note keeper, the program of the worked example in
docs/applications.md.

  notes.py add TEXT   add a note; once this returns, the note is saved
  notes.py count      check notes.json and print how many notes it holds

It keeps its notes in notes.json in the current directory and saves by
writing notes.json.tmp and renaming it over notes.json, so that a crash
never leaves half a file.  NOTES_SYNC says how it makes a save durable:
"all" (the default) fsyncs the new file and then the directory; "file"
fsyncs only the file, "none" nothing: the two mistakes the example
shows sbd-explore catching.
"""
import json
import os
import sys

FILE = "notes.json"
SYNC = os.environ.get("NOTES_SYNC", "all")


def load():
    try:
        with open(FILE, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return []


def save(notes):
    tmp = FILE + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(notes, f)
        if SYNC in ("file", "all"):
            f.flush()
            os.fsync(f.fileno())
    os.rename(tmp, FILE)
    if SYNC == "all":
        # The rename is a change to the directory: only an fsync of
        # the directory makes it durable.
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def main(argv):
    if len(argv) == 3 and argv[1] == "add":
        save(load() + [argv[2]])
    elif len(argv) == 2 and argv[1] == "count":
        try:
            notes = load()
        except ValueError as e:
            sys.exit(f"{FILE}: not a notes file: {e}")
        print(len(notes))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
