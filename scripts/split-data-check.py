#!/usr/bin/env python3
"""Fails when the split left every module's read-only data in the main module.

Usage: scripts/split-data-check.py <unsplit .wasm> <site pkg dir>

The split tool gives each split module the data its code reads; when its new
layout comes out longer than the read-only segment it gives up, silently, and
the main module carries all of it (every island's texts in both languages:
about 60 KB brotli more on every first load). frontend/src/lib.rs's
SPLIT_DATA_SLACK leaves it room; this check says when that room ran out.
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wasm_sections import leb, sections  # noqa: E402


def data_section(path):
    data = open(path, "rb").read()
    for section_id, start, size in sections(data):
        if section_id == 11:
            return data[start : start + size]
    return b""


def largest_active_segment(body):
    """Length of the largest active data segment (flags 0, i32.const offset)."""
    count, i = leb(body, 0)
    largest = 0
    for _ in range(count):
        flags, i = leb(body, i)
        if flags != 0:
            break
        i += 1  # i32.const
        _, i = leb(body, i)
        i += 1  # end
        length, i = leb(body, i)
        largest = max(largest, length)
        i += length
    return largest


unsplit, pkg = sys.argv[1], sys.argv[2]
segment = largest_active_segment(data_section(unsplit))
main = [
    p
    for p in glob.glob(os.path.join(pkg, "knotroute*.wasm"))
    if not p.endswith((".br", ".gz"))
]
if len(main) != 1:
    sys.exit(f"split data check: expected one main module in {pkg}, found {main}")
in_main = len(data_section(main[0]))
print(f"split data check: main module data {in_main:,} bytes of a {segment:,}-byte read-only segment")
if in_main * 2 > segment:
    sys.exit(
        "split data check: the split left the whole read-only segment in the main module "
        "(its layout outgrew the segment). Raise SPLIT_DATA_SLACK in frontend/src/lib.rs."
    )
