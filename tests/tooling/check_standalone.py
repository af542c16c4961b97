#!/usr/bin/env python3
"""Checks that the repository stands alone: nothing in it refers to a path outside it.

  refs   every file git knows (tracked or not ignored) is read; it fails on
         - a path into the parent folder's shared area (dot-dot, slash, "shared"),
         - a source paper named by its file name (three digits, an underscore, sixteen hex digits, or the
           papers' folder name followed by a slash and digits): cite them by number, listed in
           docs/architecture.md "References",
         - a Markdown page (a name ending in ".md", with or without folders) named anywhere that is not a
           file of the repository,
         - a relative Markdown link `[text](target)` in a .md file whose target does not exist.
  index  every page docs/*.md is linked from the docs index, docs/README.md.

Usage: check_standalone.py refs|index [REPO_ROOT]
"""
import os
import pathlib
import re
import subprocess
import sys

# Built from pieces, so that this file does not match itself.
OUTSIDE = re.compile(re.escape("..") + "/" + "shared" + r"\b")
PAPER_FILE = re.compile(r"\b\d{3}_[0-9a-f]{16}\b|\b" + "se" + r"eds/\d{3}")
MD_NAME = re.compile(r"[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def git_files(root):
    out = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return sorted(f for f in out.stdout.splitlines() if (root / f).is_file())


def exists(files, including, target):
    here = os.path.dirname(including)
    return any(os.path.normpath(os.path.join(base, target)) in files for base in (here, ""))


def check_refs(root, files):
    fileset, names = set(files), {os.path.basename(f) for f in files}
    errors = []
    for f in files:
        try:
            text = (root / f).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary files
        for n, line in enumerate(text.splitlines(), 1):
            where = f"{f}:{n}"
            if OUTSIDE.search(line):
                errors.append(f"{where}: refers to a folder outside the repository: {line.strip()[:100]}")
            if PAPER_FILE.search(line):
                errors.append(f"{where}: names a paper by its file name; cite it by number "
                              "(docs/architecture.md \"References\")")
            for m in MD_NAME.finditer(line):
                tok = m.group(0)
                found = exists(fileset, f, tok) or (".." not in tok and os.path.basename(tok) in names)
                if not found:
                    errors.append(f"{where}: names the page {tok}, which is not in the repository")
            if not f.endswith(".md"):
                continue
            for m in MD_LINK.finditer(line):
                target = m.group(1).split("#")[0]
                if not target or re.match(r"^[a-z]+:", target):
                    continue  # an anchor in the same page, or a URL
                if not exists(fileset, f, target) and not os.path.isdir(root / os.path.dirname(f) / target):
                    errors.append(f"{where}: the link ({m.group(1)}) leads to no file of the repository")
    return errors


def check_index(root, files):
    index = root / "docs" / "README.md"
    if not index.exists():
        return ["docs/README.md is missing: it is the index of every page of docs/"]
    linked = set(MD_LINK.findall(index.read_text()))
    linked = {t.split("#")[0] for t in linked}
    pages = [f for f in files if re.fullmatch(r"docs/[^/]+\.md", f) and f != "docs/README.md"]
    return [f"{p} is not listed in docs/README.md: add a line '- [{os.path.basename(p)}]({os.path.basename(p)}): "
            "what it covers'" for p in pages if os.path.basename(p) not in linked]


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("refs", "index"):
        print(__doc__, file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else pathlib.Path(__file__).resolve().parents[2])
    files = git_files(root)
    if files is None:
        print("check_standalone: not a git checkout; nothing to check", file=sys.stderr)
        return 77
    errors = check_refs(root, files) if sys.argv[1] == "refs" else check_index(root, files)
    for e in errors:
        print(e, file=sys.stderr)
    print(f"check_standalone {sys.argv[1]}: {len(files)} files, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
