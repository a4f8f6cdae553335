#!/usr/bin/env python3
"""Fails when a page of a built HTML site links to a file or #anchor it lacks.

Usage: scripts/check-links.py <site folder>

Every href and src of every .html file is followed when it stays inside the
site (no scheme, no leading //): the file must exist, and a #fragment must be
the id of an element in the page it names. Links out of the site are not
followed: the test machine has no Internet, and they are not ours to keep.
"""
import html.parser
import os
import sys
import urllib.parse


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name in ("href", "src") and value and tag in ("a", "img", "link", "script"):
                self.links.append(value)


def parse(path, cache):
    if path not in cache:
        page = Page()
        with open(path, encoding="utf-8") as f:
            page.feed(f.read())
        cache[path] = page
    return cache[path]


def main(root):
    root = os.path.abspath(root)
    cache, broken, checked = {}, [], 0
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".html"):
                continue
            source = os.path.join(folder, name)
            for link in parse(source, cache).links:
                url = urllib.parse.urlsplit(link)
                if url.scheme or link.startswith("//"):
                    continue
                checked += 1
                target = source if not url.path else os.path.normpath(
                    os.path.join(os.path.dirname(source), urllib.parse.unquote(url.path)))
                if os.path.isdir(target):
                    target = os.path.join(target, "index.html")
                where = os.path.relpath(source, root)
                if not os.path.isfile(target):
                    broken.append(f"{where}: {link} (no such file)")
                elif url.fragment and target.endswith(".html") and \
                        urllib.parse.unquote(url.fragment) not in parse(target, cache).ids:
                    broken.append(f"{where}: {link} (no such anchor)")
    if not cache:
        print(f"no pages in {root}: nothing was built there", file=sys.stderr)
        return 1
    for line in sorted(set(broken)):
        print("broken link:", line, file=sys.stderr)
    print(f"links: {checked} checked in {len(cache)} pages, {len(set(broken))} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
