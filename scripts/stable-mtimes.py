#!/usr/bin/env python3
"""Gives each tracked file of a fresh clone the modification time it had the
last time its content was seen, so that cargo's freshness check (by mtime)
rebuilds only the crates whose files changed.

Usage: scripts/stable-mtimes.py <record file>

A clone writes every file with the time of the clone, newer than anything in
a build cache kept outside it, so every crate of the workspace was rebuilt on
each run. The record maps each path to the SHA-256 of its content and the
mtime it was given then. A file whose content matches its record gets that
time back; a new or changed file keeps its fresh time and is recorded with it,
so cargo rebuilds what it feeds. A file that changed and changed back counts
as changed: its recorded hash is the newer one.
"""
import hashlib
import json
import os
import subprocess
import sys


def main(record_path):
    try:
        with open(record_path, encoding="utf-8") as f:
            record = json.load(f)
    except (OSError, ValueError):
        record = {}
    files = subprocess.run(["git", "ls-files", "-z"], check=True, capture_output=True).stdout
    kept = changed = 0
    for name in filter(None, files.decode("utf-8", "surrogateescape").split("\0")):
        if not os.path.isfile(name) or os.path.islink(name):
            continue
        with open(name, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        seen = record.get(name)
        if seen and seen[0] == digest:
            os.utime(name, ns=(seen[1], seen[1]))
            kept += 1
        else:
            record[name] = [digest, os.stat(name).st_mtime_ns]
            changed += 1
    tmp = record_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(record, f)
    os.replace(tmp, record_path)
    print(f"source times: {kept} files as last seen, {changed} new or changed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
