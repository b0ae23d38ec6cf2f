#!/usr/bin/env python3
"""Fails when a target's sources import a module of the package that its target does not list, or
when the modules table of docs/architecture.md says a module imports other than its target lists.

SwiftPM builds every module into one directory, so a module the target does not list is found
anyway whenever something else built it first: the import compiles, `Package.swift` and the
direction it states stop saying what depends on what, and a clean build of that target alone (as
scripts/fuzz.sh does for the pure ones) may fail. Redis imported Locking, and EventLoopTests
Timekeeping, that way.

Reads the targets from `swift package dump-package` (SWIFT, default `swift`) and every `import`
line of their `.swift` files; modules from outside the package (Foundation, Glibc, Testing...) are
not judged. In the table's last column a remark in parentheses is not a module, and `nothing` is
none; a target the table leaves out is not judged there.

Usage: scripts/check-imports.py        (the first step of scripts/test.sh, so of `make test`)
"""
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# `import M`, `@testable import M`, `@_spi(S) import M`, `import class M.T`, `package import M`.
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?(\w+)")

# A row: | `Module` | what it holds | Imports, Listed (a remark) |; a test helper's is `Module` (tests).
TABLE_ROW = re.compile(r"^\| `([^`]+)`(?: \(tests\))? \|.*\|([^|]*)\|\s*$")


def targets():
    """(name, directory, declared dependency names) of every target that has sources."""
    swift = os.environ.get("SWIFT", "swift")
    dump = json.loads(subprocess.run([swift, "package", "dump-package"], cwd=ROOT, check=True,
                                     capture_output=True, text=True).stdout)
    for target in dump["targets"]:
        if target["type"] == "system":
            continue
        default = "Tests" if target["type"] == "test" else "Sources"
        directory = ROOT / (target.get("path") or f"{default}/{target['name']}")
        declared = set()
        for dependency in target["dependencies"]:
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        yield target["name"], directory, declared


def main():
    listed = list(targets())
    names = {name for name, _, _ in listed}
    failures = 0
    for name, directory, declared in listed:
        for path in sorted(directory.rglob("*.swift")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                match = IMPORT.match(line)
                if match and match.group(1) in names and match.group(1) not in declared | {name}:
                    failures += 1
                    print(f"{path.relative_to(ROOT)}:{number}: {name} imports {match.group(1)}, which its "
                          f"target in Package.swift does not list: add it to the dependencies", file=sys.stderr)
    declared_by_name = {name: declared for name, _, declared in listed}
    documented = 0
    for number, line in enumerate((ROOT / "docs/architecture.md").read_text().splitlines(), 1):
        row = TABLE_ROW.match(line)
        if not row or row.group(1) not in declared_by_name:
            continue
        documented += 1
        said = {re.sub(r"\s*\(.*?\)", "", part).strip() for part in row.group(2).split(",")} - {"", "nothing"}
        declared = declared_by_name[row.group(1)]
        if said != declared:
            failures += 1
            print(f"docs/architecture.md:{number}: the table says {row.group(1)} imports {', '.join(sorted(said)) or 'nothing'}; "
                  f"Package.swift lists {', '.join(sorted(declared)) or 'nothing'}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"check-imports: every import of the package's modules in {len(listed)} targets is declared, "
          f"and the {documented} modules in docs/architecture.md's table import what they list")


if __name__ == "__main__":
    main()
