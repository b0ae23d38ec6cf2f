#!/usr/bin/env python3
"""The documentation check, run by `make test`; standard library only.

Fails (exit 1, one line per problem) when:
  - README.md is larger than README_MAX_BYTES (15,360 bytes): the front door stays short, the
    rest lives in docs/;
  - a Markdown file (README.md and any other *.md at the root, docs/**/*.md, bench/*.md) has a
    link that leaves the repository: a relative target that does not exist in it, one that
    climbs out of its root (`../` too far), an absolute path, or a `file:` URL.
Web links (`https:`, `http:`, `mailto:`) and anchors within a page (`#…`) are not followed.
Links inside code spans and fenced code blocks are not links and are skipped.

    scripts/docs-check.py [--root DIR]
"""

import argparse
import glob
import os
import re
import sys

README_MAX_BYTES = 15 * 1024

# [text](target "title") and ![alt](target); the target may be in <angle brackets>.
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
# [label]: target (a reference definition, at the start of a line).
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
FENCE = re.compile(r"^ {0,3}(```|~~~)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files(root):
    patterns = ["*.md", "docs/**/*.md", "bench/*.md"]
    found = set()
    for pattern in patterns:
        found.update(glob.glob(os.path.join(root, pattern), recursive=True))
    return sorted(found)


def links(path):
    """(line number, target) of every link outside code."""
    in_fence = None
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            fence = FENCE.match(line)
            if fence:
                if in_fence is None:
                    in_fence = fence.group(1)
                elif fence.group(1) == in_fence:
                    in_fence = None
                continue
            if in_fence is not None:
                continue
            text = CODE_SPAN.sub("", line)
            for match in INLINE_LINK.finditer(text):
                yield number, match.group(1)
            definition = REFERENCE_DEFINITION.match(text)
            if definition:
                yield number, definition.group(1)


def problem(root, path, target):
    """Why `target`, linked from `path`, leaves the repository; None when it does not."""
    target = target.strip("<>")
    if not target or target.startswith("#"):
        return None
    if SCHEME.match(target):
        scheme = target.split(":", 1)[0].lower()
        return "a file: URL points outside the repository" if scheme == "file" else None
    if target.startswith("/"):
        return "an absolute path: link relative to the file instead"
    relative = re.split(r"[#?]", target, maxsplit=1)[0]
    if not relative:
        return None
    resolved = os.path.realpath(os.path.join(os.path.dirname(path), relative))
    real_root = os.path.realpath(root)
    if os.path.commonpath([resolved, real_root]) != real_root:
        return "leaves the repository"
    if not os.path.exists(resolved):
        return "no such file in the repository"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    root = parser.parse_args().root
    problems = []

    readme = os.path.join(root, "README.md")
    size = os.path.getsize(readme)
    if size > README_MAX_BYTES:
        problems.append(f"README.md: {size} bytes, more than {README_MAX_BYTES}: move detail to docs/")

    files = markdown_files(root)
    checked = 0
    for path in files:
        for number, target in links(path):
            checked += 1
            why = problem(root, path, target)
            if why:
                problems.append(f"{os.path.relpath(path, root)}:{number}: ({target}) {why}")

    for line in problems:
        print(f"docs-check: {line}", file=sys.stderr)
    if problems:
        return 1
    print(f"docs-check: README.md {size} of {README_MAX_BYTES} bytes; {checked} links in {len(files)} files stay in the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
