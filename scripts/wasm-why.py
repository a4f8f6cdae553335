#!/usr/bin/env python3
"""What an island (or a #[lazy] function) brings into the browser beyond the
main module, and why: the code reachable from its split entry point and not
from the main module's exports, grouped by what it is, with its largest
functions. `scripts/wasm-size.sh` says how big a first load is; this says
what is in it (for example, the JSON decoder that an island's props bring
in).

Reads the unsplit module that `cargo leptos build --release --split` leaves
before splitting (it keeps its symbol names and relocations), through
`wasm-objdump` (Debian's wabt) and `c++filt`. Sizes are of code before
wasm-opt: compare them with each other, not with the shipped chunks.

Usage: scripts/wasm-why.py <island or lazy fn, e.g. network_form> [top N]
  KNOTROUTE_UNSPLIT_WASM  the unsplit module (default: the release build's)
"""
import collections
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wasm_sections import leb, sections  # noqa: E402

CATEGORIES = [
    # First match wins: the more specific before the more general.
    ("float formatting", ("flt2dec", "fmt::float", "zmij", "bignum")),
    ("serde_json", ("serde_json",)),
    ("serde", ("serde_core", "serde::")),
    ("tachys attributes", ("tachys::html::attribute",)),
    ("tachys elements", ("tachys::html::element",)),
    ("tachys events", ("tachys::html::event",)),
    ("tachys AnyView", ("tachys::view::any_view",)),
    ("tachys reactive views", ("tachys::reactive_graph",)),
    ("tachys other", ("tachys",)),
    ("render effects", ("RenderEffect",)),
    ("reactive_graph", ("reactive_graph",)),
    ("our app", ("app::",)),
    ("our protocol", ("protocol::",)),
    ("alloc", ("alloc::",)),
    ("wasm-bindgen, web-sys, js-sys", ("wasm_bindgen", "web_sys", "js_sys")),
    ("closure shims", ("vtable.shim",)),
    ("core::fmt", ("core::fmt",)),
]


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    wanted, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    path = os.environ.get(
        "KNOTROUTE_UNSPLIT_WASM",
        f"{target}/front/wasm32-unknown-unknown/wasm-release/knotroute_frontend.wasm",
    )
    if not os.path.exists(path):
        sys.exit(f"{path}: no unsplit module; run scripts/build-release.sh (or set KNOTROUTE_UNSPLIT_WASM)")
    if shutil.which("wasm-objdump") is None:
        sys.exit("wasm-objdump is missing: apt-get install wabt")
    data = open(path, "rb").read()

    # Code: each function's references (calls, table entries, data).
    edges = collections.defaultdict(set)
    body_at = {}
    current = None
    header = re.compile(r"^([0-9a-f]+) func\[\d+\] <(.*)>:$")
    reloc = re.compile(r"R_WASM_\w+ \d+ <(.*)>$")
    for line in run("wasm-objdump", "-d", "-r", path).splitlines():
        m = header.match(line)
        if m:
            current = m.group(2)
            body_at[int(m.group(1), 16)] = current
        elif current and "R_WASM_" in line:
            m = reloc.search(line.strip())
            if m:
                edges[current].add(m.group(1))
    size = {}
    for sid, start, length in sections(data):
        if sid == 10:
            count, j = leb(data, start)
            for _ in range(count):
                n, k = leb(data, j)
                if k in body_at:
                    size[body_at[k]] = n
                j = k + n

    # Data: what each data symbol refers to (vtables name their functions).
    symbols = collections.defaultdict(list)
    for line in run("wasm-objdump", "-x", "-j", "linking", path).splitlines():
        m = re.search(r"D <(.*)> segment=(\d+) offset=(\d+) size=(\d+)", line)
        if m:
            symbols[int(m.group(2))].append((int(m.group(3)), int(m.group(4)), m.group(1)))
    segments = []
    for sid, start, length in sections(data):
        if sid == 11:
            count, j = leb(data, start)
            for _ in range(count):
                flags, j = leb(data, j)
                if flags == 0:
                    _, j = leb(data, j + 1)  # i32.const <offset>
                    j += 1  # end
                n, j = leb(data, j)
                segments.append((j - start, n))
                j += n
    for entries in symbols.values():
        entries.sort()

    def data_symbol_at(offset):
        for index, (start, length) in enumerate(segments):
            if start <= offset < start + length:
                at = offset - start
                for sym_start, sym_size, name in reversed(symbols[index]):
                    if sym_start <= at:
                        return name if at < sym_start + max(sym_size, 1) else None
        return None

    for line in run("wasm-objdump", "-x", "-j", "reloc.DATA", path).splitlines():
        m = re.search(r"R_WASM_\w+ offset=0x([0-9a-f]+).*<(.*)>", line)
        if m:
            source = data_symbol_at(int(m.group(1), 16))
            if source:
                edges[source].add(m.group(2))

    exports = re.findall(r"func\[\d+\] <(.*)> ->", run("wasm-objdump", "-x", "-j", "Export", path))
    split = [e for e in exports if e.startswith("__wasm_split_00")]

    def reach(roots):
        seen, todo = set(roots), list(roots)
        while todo:
            for callee in edges.get(todo.pop(), ()):
                if callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        return seen

    entry = [e for e in split if e[len("__wasm_split_00"):].startswith(wanted)]
    if not entry:
        names = sorted({e[len("__wasm_split_00"):].split("_export_")[0].rstrip("0123456789_") for e in split})
        sys.exit(f"no split entry named {wanted!r}; there are: {', '.join(names)}")
    main_module = reach([e for e in exports if not e.startswith("__wasm_split_00")])
    own = [f for f in reach(entry[:1]) - main_module if f in size]
    plain = subprocess.run(["c++filt"], input="\n".join(own), capture_output=True, text=True, check=True)
    demangled = dict(zip(own, plain.stdout.splitlines()))
    print(f"{wanted}: {sum(size[f] for f in own):,} bytes of code ({len(own)} functions) beyond the main module")
    by = collections.Counter()
    count = collections.Counter()
    for f in own:
        name = re.sub(r"\[[0-9a-f]+\]", "", demangled[f])
        group = next((g for g, keys in CATEGORIES if any(k in name for k in keys)), "other")
        by[group] += size[f]
        count[group] += 1
    for group, n in by.most_common():
        print(f"{n:>9,} {count[group]:>5}  {group}")
    print(f"\nlargest {top}:")
    for f in sorted(own, key=lambda f: -size[f])[:top]:
        print(f"{size[f]:>9,}  {demangled[f][:160]}")


if __name__ == "__main__":
    main()
