#!/usr/bin/env python3
"""Checks every #include of the library's layers against the layer table of libxsim/README.md.

The table ("| target | folder | may use |") is the one statement of the layering: each row names a target,
the files it owns as back-quoted path prefixes or patterns (`netmodel/`, `libxsim/options.*`) and, in the
"may use" column, the back-quoted targets and outside libraries it may include. A layer may include its own
files and those of every layer it may use, directly or through the layers they may use. This script reads
the table, gives every source file git knows (tracked or not ignored) under the checked folders its layer, resolves each
`#include "..."` to a file of the repository and each `#include <...>` of an outside library to that
library, and fails naming every include that runs the wrong way, every file no row owns and every quoted
include it cannot find.

Usage: check_layers.py [REPO_ROOT] [--self-test]
  --self-test: also checks that a wrong-way include (netmodel including an engine header) is caught.
"""
import fnmatch
import pathlib
import re
import subprocess
import sys

CHECKED = ("common/", "netmodel/", "procmodel/", "libxsim/", "include/")
SOURCE = re.compile(r"\.(c|cc|cpp|h|hpp)$")
# The include roots the targets export (their CMakeLists' target_include_directories), searched after the
# including file's own folder, in this order: file names are unique, so the first match is the file.
ROOTS = ("libxsim", "libxsim/runtime/core", "libxsim/runtime/mpi", "libxsim/runtime/mpi/objects",
         "libxsim/runtime/observe", "libxsim/runtime/process", "include", "common", "netmodel", "procmodel")
# Outside libraries, by the headers that bring them in (anything else in <...> is the C/C++ library or the OS).
OUTSIDE = (("MPI", re.compile(r"^(mpi|mpio|mpi_proto)\.h$")), ("toml++", re.compile(r"^toml\+\+/")),
           ("Boost.Context", re.compile(r"^boost/context/")), ("libunwind", re.compile(r"^libunwind")),
           ("OTF2", re.compile(r"^otf2/")))
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def read_table(readme):
    """Returns ({layer: [patterns]}, {layer: set of layers and libraries it may use directly})."""
    owns, uses = {}, {}
    for line in readme.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not line.lstrip().startswith("|"):
            continue
        names = re.findall(r"`([^`]+)`", cells[0])
        if len(names) != 1 or not names[0].startswith("xsim"):
            continue
        owns[names[0]] = [p for p in re.findall(r"`([^`]+)`", cells[1]) if "/" in p]
        uses[names[0]] = set(re.findall(r"`([^`]+)`", cells[2]))
    if not owns:
        sys.exit(f"{readme}: no layer table found (rows '| `target` | `folder/` | `used`, ... |')")
    for layer, used in uses.items():
        unknown = [u for u in used if u not in owns and u not in dict(OUTSIDE)]
        if unknown:
            sys.exit(f"{readme}: the row of {layer} may use {unknown}: neither a layer of the table nor one of "
                     f"the outside libraries this check knows ({', '.join(n for n, _ in OUTSIDE)})")
    return owns, uses


def closure(uses):
    allowed = {}
    for layer in uses:
        seen, todo = {layer}, [layer]
        while todo:
            for u in uses.get(todo.pop(), ()):
                if u not in seen:
                    seen.add(u)
                    todo.append(u)
        allowed[layer] = seen
    return allowed


def layer_of(path, owns):
    """The layer whose longest pattern matches `path` (a folder prefix `x/` or a glob), or None."""
    best, best_len = None, -1
    for layer, patterns in owns.items():
        for p in patterns:
            hit = path.startswith(p) if p.endswith("/") else fnmatch.fnmatch(path, p)
            if hit and len(p) > best_len:
                best, best_len = layer, len(p)
    return best


def resolve(including, name, files):
    for folder in (str(pathlib.PurePosixPath(including).parent),) + ROOTS:
        cand = str(pathlib.PurePosixPath(folder) / name)
        if cand in files:
            return cand
    return None


def check(root, files, owns, allowed):
    errors = []
    for f in sorted(files):
        if not f.startswith(CHECKED) or not SOURCE.search(f):
            continue
        layer = layer_of(f, owns)
        if layer is None:
            errors.append(f"{f}: no row of the layer table owns this file (add its folder or pattern there)")
            continue
        for n, line in enumerate((root / f).read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            if kind == '"':
                target = resolve(f, name, files)
                if target is None:
                    errors.append(f"{f}:{n}: #include \"{name}\" is not a file of the repository")
                    continue
                used = layer_of(target, owns)
                what = f"{target} ({used})"
            else:
                used = next((lib for lib, rx in OUTSIDE if rx.search(name)), None)
                what = f"<{name}> ({used})"
            if used is not None and used not in allowed[layer]:
                errors.append(f"{f}:{n}: {layer} includes {what}: a wrong-way arrow; {layer} may use "
                              f"{', '.join(sorted(allowed[layer] - {layer})) or 'nothing'} (libxsim/README.md)")
    return errors


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parents[2])
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard"], capture_output=True, text=True)
    if listed.returncode != 0:
        print("check_layers: not a git checkout; nothing to check", file=sys.stderr)
        return 77
    files = {f for f in listed.stdout.splitlines() if (root / f).exists()}
    owns, uses = read_table(root / "libxsim" / "README.md")
    allowed = closure(uses)
    errors = check(root, files, owns, allowed)
    for e in errors:
        print(e, file=sys.stderr)
    if "--self-test" in sys.argv:
        # a pure network model that reaches up into the engine must be refused
        probe = layer_of("netmodel/ring.cpp", owns)
        engine = layer_of("libxsim/runtime/core/engine.hpp", owns)
        if probe is None or engine is None or engine in allowed[probe]:
            print("check_layers: self-test failed: netmodel -> engine.hpp would pass", file=sys.stderr)
            return 1
    checked = sum(1 for f in files if f.startswith(CHECKED) and SOURCE.search(f))
    print(f"check_layers: {checked} files, {len(owns)} layers, {len(errors)} wrong-way or unknown includes")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
