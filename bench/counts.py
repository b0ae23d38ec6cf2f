#!/usr/bin/env python3
"""Runtime calls per request, counted with uprobes: the instrument that stays steady on this host.

Time-based comparisons here swing by a factor of two within an hour (the hypervisor steals CPU,
and there is no hardware counter to read instructions), but how many times a request calls
`malloc`, `swift_retain`, `swift_task_switch` or `swift_getGenericMetadata` repeats to a tenth
between runs. This starts the service from DIR (default .build/release) on one loop with its
upstream, puts a uprobe on each of those runtime functions, drives wrk against one scenario, and
prints each count divided by the answers wrk received. Needs root, perf (Debian's linux-perf)
and wrk; it removes its probes and stops everything it started.

    python3 bench/counts.py [DIR] [--scenario hot|healthz|miss|fill|l2] [--seconds 2] [--runs 2]

hot: 100 cached pages cycled; healthz; miss: cache off, 1,000 ids, three calls each to nginx
serving a static export of the stub's catalog; fill: as miss with the cache on and every request
a new id (a load, an L1 store with its eviction and the page's one compression); l2: 5,000 pages
in a redis-server, an L1 of one page (bench/fleet.py's L2_READER), so that every answer is an L2
hit.
"""
import argparse
import os
import re
import subprocess
import tempfile
import urllib.request

from bench import export_upstream, fill_script, lua_paths, start_nginx, start_service, start_stub
from fleet import L2_READER, fill_shared, start_redis

# (library, symbol): what a request costs the runtime, beyond its own code.
PROBES = [
    ("libc.so.6", "malloc"),
    ("libswiftCore.so", "swift_allocObject"),
    ("libswiftCore.so", "swift_retain"),
    ("libswiftCore.so", "swift_unownedRetainStrong"),
    ("libswift_Concurrency.so", "swift_task_switch"),
    # Generic code the optimizer did not specialize looks type metadata up at run time.
    ("libswiftCore.so", "swift_getGenericMetadata"),
]
PREFIX = "pdcount_"


def shared_libraries(binary):
    """Library file name -> path, as the binary loads them."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    return {m.group(1): m.group(2) for m in re.finditer(r"^\s*(\S+) => (\S+)", out, re.M)}


def add_probes(binary, events):
    """Adds one uprobe per PROBES entry, appending each perf event name to `events` as soon as it
    exists, so that a failure halfway still leaves the caller the ones to remove."""
    libraries = shared_libraries(binary)
    for library, symbol in PROBES:
        path = next((p for name, p in libraries.items() if name.startswith(library)), None)
        if path is None:
            raise SystemExit(f"{binary} does not load {library}")
        out = subprocess.run(["perf", "probe", "-x", path, "-a", f"{PREFIX}{symbol}={symbol}"],
                             capture_output=True, text=True)
        event = re.search(r"(probe_\S+:" + PREFIX + symbol + r")", out.stdout + out.stderr)
        if out.returncode != 0 or not event:
            raise SystemExit(f"perf probe failed for {symbol}: {out.stderr.strip()}")
        events.append(event.group(1))


def remove_probes(events):
    for event in events:
        subprocess.run(["perf", "probe", "-q", "-d", event], capture_output=True)


def count(pid, events, url, script, seconds):
    """Per-answer counts of `events` in process `pid` during one wrk run."""
    perf = subprocess.run(
        ["perf", "stat", "-x,", "-e", ",".join(events), "-p", str(pid), "--",
         "wrk", "-t1", "-c64", f"-d{seconds}s", "-s", script, url],
        capture_output=True, text=True, timeout=seconds + 60)
    answers = int(re.search(r"(\d+) requests in", perf.stdout).group(1))
    totals = {}
    for line in perf.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2] in events and fields[0].isdigit():
            totals[fields[2].split(":")[1][len(PREFIX):]] = int(fields[0])
    return answers, {name: value / max(1, answers) for name, value in totals.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release"))
    parser.add_argument("--scenario", choices=["hot", "healthz", "miss", "fill", "l2"], default="hot")
    parser.add_argument("--seconds", type=int, default=2)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    service_binary = os.path.join(args.dir, "product-details")
    work = tempfile.mkdtemp(prefix="pd-counts-")
    # nginx's worker drops to an unprivileged user: it must be able to read the export.
    os.chmod(work, 0o755)
    started, events = [], []
    try:
        stub, stub_port = start_stub({"CATALOG_SIZE": "20000"}, binary=os.path.join(args.dir, "catalog-stub"))
        started.append(stub)
        ids = [f"p{i}" for i in range(1, {"miss": 1001, "fill": 1001, "l2": 5001}.get(args.scenario, 101))]
        upstream = {"UPSTREAM_URL": f"http://127.0.0.1:{stub_port}", "CACHE_TTL_SECONDS": "3600"}
        if args.scenario in ("miss", "fill"):
            export_upstream(stub_port, work, ids)
            nginx, nginx_port = start_nginx(work)
            started.append(nginx)
            upstream = {"UPSTREAM_URL": f"http://127.0.0.1:{nginx_port}/upstream",
                        "CACHE_TTL_SECONDS": "0" if args.scenario == "miss" else "3600"}
        if args.scenario == "l2":
            redis, redis_port = start_redis(work)
            started.append(redis)
            upstream.update({**L2_READER, "REDIS_URL": f"redis://127.0.0.1:{redis_port}"})
        service, port = start_service({"LOOPS": "1", **upstream}, binary=service_binary)
        started.append(service)
        paths = ["/healthz"] if args.scenario == "healthz" else [f"/products/{i}" for i in ids]
        if args.scenario == "hot":
            for path in paths:  # all cached before counting
                urllib.request.urlopen(f"http://127.0.0.1:{port}{path}").read()
        if args.scenario == "l2":
            fill_shared(port, ids)
        script = fill_script(work, len(ids)) if args.scenario == "fill" else lua_paths(work, "paths.lua", paths)
        add_probes(service_binary, events)
        for run in range(args.runs):
            answers, per_answer = count(service.popen.pid, events, f"http://127.0.0.1:{port}", script, args.seconds)
            figures = ", ".join(f"{name} {value:.2f}" for name, value in per_answer.items())
            print(f"{args.scenario} run {run + 1}: per answer {figures} ({answers} answers)", flush=True)
    finally:
        remove_probes(events)
        for process in reversed(started):
            process.stop()


if __name__ == "__main__":
    main()
