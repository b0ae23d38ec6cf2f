#!/usr/bin/env python3
"""Fails when an `@inlinable` member belongs to a type other modules cannot inline from.

Swift 6.3 takes `@inlinable` on a member of a `package` (or internal) type that is not itself
`@usableFromInline` without a word, and then neither checks the body's references nor puts the body
in the module: every caller in another module calls it out of line, so the attribute promises what
it does not do (JSONReader's key matching and JSONBytesWriter's appends were such calls until the
JSON types were marked; bench/HISTORY.md). Marking the type `@usableFromInline` (it stays `package`)
makes the compiler check the body and inline it.

Reads Sources/**/*.swift. A member declared in its type's body is judged by that declaration; one
in an extension by every type of the extended name (all must be exported, so that two nested types
of one name cannot hide each other). File-level functions are not checked (the trap is the type's).
Braces inside string literals and comments are skipped.

Usage: scripts/check-inlinable.py        (the first step of scripts/test.sh, so of `make test`)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DECLARATION = re.compile(
    r"^\s*((?:@\w+(?:\([^)]*\))?\s+)*)((?:public|package|internal|fileprivate|private|final|indirect)\s+)*"
    r"(struct|enum|class|actor|protocol|extension)\s+([A-Za-z_][\w.]*)")


def code_only(line):
    """The line without its comment and the contents of its string literals (one-line ones)."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    return line.split("//", 1)[0]


def scan(path):
    """Yields ('type', name, exported, line) for each type declaration and ('inlinable', owner,
    exported, line) for each `@inlinable` declaration inside a type or extension: the innermost
    one's name, and whether it is exported (None for an extension: its type decides)."""
    stack = []  # (name, exported or None, brace depth inside it)
    depth = 0
    pending_attributes = ""
    in_block_comment = False
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw
        if in_block_comment:
            if "*/" not in line:
                continue
            line = line.split("*/", 1)[1]
            in_block_comment = False
        if "/*" in line and "*/" not in line.split("/*", 1)[1]:
            line = line.split("/*", 1)[0]
            in_block_comment = True
        code = code_only(line)
        stripped = code.strip()
        match = DECLARATION.match(code)
        # `class func`, `class var`: a member, not a class.
        if match and match.group(4) in ("func", "var", "let", "subscript"):
            match = None
        if match:
            attributes = pending_attributes + (match.group(1) or "")
            words = code[:match.start(3)]
            kind, name = match.group(3), match.group(4).split(".")[-1]
            exported = None
            if kind != "extension":
                exported = "public" in words.split() or "@usableFromInline" in attributes
                yield ("type", name, exported, number)
            stack.append((name, exported, depth + 1))
        if "@inlinable" in code and stack:
            yield ("inlinable", stack[-1][0], stack[-1][1], number)
        # Attributes on lines of their own apply to the next declaration.
        if stripped.startswith("@") and not re.search(r"\b(func|var|let|init|subscript|struct|enum|class|actor|protocol|extension)\b", stripped):
            pending_attributes += stripped + " "
        elif stripped:
            pending_attributes = ""
        for character in code:
            if character == "{":
                depth += 1
            elif character == "}":
                depth -= 1
                while stack and depth < stack[-1][2]:
                    stack.pop()


def main():
    exported = {}
    uses = []
    for path in sorted((ROOT / "Sources").rglob("*.swift")):
        for kind, name, flag, line in scan(path):
            if kind == "type":
                exported[name] = exported.get(name, True) and flag
            else:
                uses.append((path.relative_to(ROOT), line, name, flag))
    # An extension of a type declared outside Sources (the standard library's) is not judged.
    failures = [(path, line, name) for path, line, name, flag in uses
                if (flag is False) or (flag is None and not exported.get(name, True))]
    for path, line, name in failures:
        print(f"{path}:{line}: @inlinable in '{name}', which is neither public nor @usableFromInline: "
              f"other modules call it out of line; mark the type @usableFromInline", file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"check-inlinable: {len(uses)} @inlinable declarations, each in a type other modules can inline from")


if __name__ == "__main__":
    main()
