"""Renders a copy of deploy/nginx/fleet.conf that runs outside a container, as any user.

    render_nginx.py SRC DST --prefix DIR [--listen ADDR] --upstream NAME=HOST:PORT ...

Every `server NAME:PORT` of the upstream block becomes `server HOST:PORT` (each NAME must be given
and each given NAME must be there, so the copy cannot drift from the original); the pid file and
the temp folders go under DIR (use `nginx -p DIR -e stderr -c DST`); with --listen, the `listen`
directive becomes ADDR. Nothing else changes. Standard library only.
"""

import argparse
import os
import re
import sys


def fail(message):
    print(f"render_nginx: {message}", file=sys.stderr)
    sys.exit(1)


def render(text, prefix, upstreams, listen):
    used = set()

    def server(match):
        name = match.group(2)
        if name not in upstreams:
            fail(f"upstream server {name}:{match.group(3)} has no --upstream mapping")
        used.add(name)
        return f"{match.group(1)}{upstreams[name]}"

    text = re.sub(r"(^\s*server\s+)([A-Za-z][A-Za-z0-9.-]*):(\d+)", server, text, flags=re.M)
    missing = sorted(set(upstreams) - used)
    if missing:
        fail(f"no upstream server named {', '.join(missing)}")

    if listen is not None:
        text, count = re.subn(r"^(\s*listen\s+)[^;]+;", lambda m: f"{m.group(1)}{listen};", text, flags=re.M)
        if count != 1:
            fail(f"expected one listen directive, found {count}")

    if re.search(r"^\s*(pid|user)\s", text, flags=re.M):
        fail("the config sets pid or user itself: leave them to the image (the copy sets pid)")
    text = f"pid {prefix}/nginx.pid;\n" + text
    temp = "".join(
        f"    {kind}_temp_path {prefix}/{kind}_temp;\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text, count = re.subn(r"^http\s*\{\n", lambda m: m.group(0) + temp, text, count=1, flags=re.M)
    if count != 1:
        fail("no top-level `http {` line")
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("source")
    parser.add_argument("destination")
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--listen")
    parser.add_argument("--upstream", action="append", default=[], metavar="NAME=HOST:PORT")
    args = parser.parse_args()
    upstreams = {}
    for item in args.upstream:
        name, sep, address = item.partition("=")
        if not sep or not re.fullmatch(r"[^\s;]+:\d+", address):
            fail(f"--upstream wants NAME=HOST:PORT, got {item!r}")
        upstreams[name] = address
    prefix = os.path.abspath(args.prefix)
    with open(args.source, encoding="utf-8") as handle:
        text = render(handle.read(), prefix, upstreams, args.listen)
    with open(args.destination, "w", encoding="utf-8") as handle:
        handle.write(text)


if __name__ == "__main__":
    main()
