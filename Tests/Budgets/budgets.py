#!/usr/bin/env python3
"""Allocation budgets: heap allocations per request, checked by `make test` against allocations.json.

Run on a release build (the one `make test` already made for the contract checks), the service
gets Tests/Budgets/malloc_count.c by LD_PRELOAD, which counts every malloc, calloc, realloc and
aligned allocation into a file this script maps. Each scenario sends its requests one at a time
on one keep-alive connection to a service on one loop, so the count per answer repeats to a
hundredth between runs on the cached paths and to a tenth on the miss (which read half an
allocation apart on two machines): unlike a time, it may be a test. A count above its budget
by more than the tolerance fails, and so does one below it by more: a budget is lowered with the
change that earns it (`--update` writes the measured counts), so that it keeps guarding.

    python3 Tests/Budgets/budgets.py [--build DIR] [--only NAME ...] [--update]

DIR holds the release binaries (product-details, catalog-stub; default .build/release). The
scenarios:
  healthz    GET /healthz
  hot        100 cached pages, cycled
  hot-gzip   those of them with a stored gzip variant, asked with Accept-Encoding: gzip
  miss       the cache off (CACHE_TTL_SECONDS=0), 1,000 ids: three upstream calls to catalog-stub
             a page; hedging off, because it arms a race after any slow attempt, and whether one
             was slow is a matter of time
  l2         5,000 pages in a redis-server and an L1 of one page: every answer an L2 hit
Each scenario is measured twice and the lower count is kept: what else the process does while
it is measured (a timer, a metrics window) can only add.
"""
import argparse
import http.client
import json
import mmap
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from bench import start_service, start_stub
from fleet import L2_READER, fill_shared, start_redis

BUDGETS = os.path.join(HERE, "allocations.json")
SCENARIOS = ("healthz", "hot", "hot-gzip", "miss", "l2")
RUNS = 2


class Counter:
    """The preload library's two counters (allocations, frees), read from a shared mapping."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "malloc-count")
        with open(self.path, "wb") as f:
            f.write(bytes(mmap.PAGESIZE))
        self.file = open(self.path, "r+b")
        self.mapping = mmap.mmap(self.file.fileno(), mmap.PAGESIZE)

    def read(self):
        return struct.unpack_from("<QQ", self.mapping, 0)

    def close(self):
        self.mapping.close()
        self.file.close()


def build_library(directory):
    library = os.path.join(directory, "malloc_count.so")
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror", "-o", library,
                    os.path.join(HERE, "malloc_count.c"), "-ldl"], check=True)
    return library


def requests(port, paths, headers, expect):
    """Sends each path in turn on one connection; fails unless every answer is 200 and `expect`
    (header -> prefix) holds, so that a scenario measures what it says."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        for path in paths:
            connection.request("GET", path, headers=headers)
            answer = connection.getresponse()
            answer.read()
            if answer.status != 200:
                raise SystemExit(f"budgets: {path} answered {answer.status}")
            for name, prefix in expect.items():
                value = answer.getheader(name) or ""
                if not value.startswith(prefix):
                    raise SystemExit(f"budgets: {path}: {name} is {value!r}, not {prefix!r}...")
    finally:
        connection.close()


def gzipped(port, paths):
    """The cached pages among `paths` that have a gzip variant (one too small to gain has none)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    chosen = []
    try:
        for path in paths:
            connection.request("GET", path, headers={"Accept-Encoding": "gzip"})
            answer = connection.getresponse()
            answer.read()
            if answer.getheader("Content-Encoding") == "gzip":
                chosen.append(path)
    finally:
        connection.close()
    if len(chosen) < len(paths) // 2:
        raise SystemExit(f"budgets: only {len(chosen)} of {len(paths)} pages have a gzip variant")
    return chosen


def measure(counter, port, paths, headers, expect, rounds):
    """Allocations per answer over `rounds` passes of `paths`, after one pass to warm up (which
    fills the cache where the scenario has one)."""
    requests(port, paths, headers, {})
    best = None
    for _ in range(RUNS):
        before = counter.read()[0]
        requests(port, paths * rounds, headers, expect)
        per_answer = (counter.read()[0] - before) / (len(paths) * rounds)
        best = per_answer if best is None else min(best, per_answer)
    return best


def run(scenarios, build, work):
    library = build_library(work)
    counter = Counter(work)
    preload = {"LD_PRELOAD": library, "MALLOC_COUNT_FILE": counter.path, "LOOPS": "1"}
    service_binary = os.path.join(build, "product-details")
    started, measured = [], {}

    def service(env):
        process, port = start_service({**preload, **env}, binary=service_binary)
        started.append(process)
        if counter.read()[0] == 0:
            raise SystemExit("budgets: the preload library counted nothing: is malloc interposed?")
        return port

    try:
        stub, stub_port = start_stub({"CATALOG_SIZE": "20000"}, binary=os.path.join(build, "catalog-stub"))
        started.append(stub)
        upstream = f"http://127.0.0.1:{stub_port}"
        hot_paths = [f"/products/p{i}" for i in range(1, 101)]
        if {"healthz", "hot", "hot-gzip"} & set(scenarios):
            port = service({"UPSTREAM_URL": upstream, "CACHE_TTL_SECONDS": "3600"})
            if "healthz" in scenarios:
                measured["healthz"] = measure(counter, port, ["/healthz"], {}, {}, 2000)
            if "hot" in scenarios:
                measured["hot"] = measure(counter, port, hot_paths, {}, {"Cache-Status": "product-details; hit"}, 20)
            if "hot-gzip" in scenarios:
                paths = gzipped(port, hot_paths)
                measured["hot-gzip"] = measure(counter, port, paths, {"Accept-Encoding": "gzip"},
                                               {"Cache-Status": "product-details; hit", "Content-Encoding": "gzip"}, 20)
        if "miss" in scenarios:
            port = service({"UPSTREAM_URL": upstream, "CACHE_TTL_SECONDS": "0", "HEDGE": "off"})
            paths = [f"/products/p{i}" for i in range(1, 1001)]
            measured["miss"] = measure(counter, port, paths, {}, {"Cache-Status": "product-details; fwd=miss"}, 1)
        if "l2" in scenarios:
            redis, redis_port = start_redis(work)
            started.append(redis)
            ids = [f"p{i}" for i in range(1, 5001)]
            port = service({**L2_READER, "UPSTREAM_URL": upstream, "REDIS_URL": f"redis://127.0.0.1:{redis_port}"})
            fill_shared(port, ids)
            measured["l2"] = measure(counter, port, [f"/products/{i}" for i in ids], {},
                                     {"Cache-Status": "product-details-shared; hit"}, 1)
    finally:
        for process in reversed(started):
            process.stop()
        counter.close()
    return measured


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--update", action="store_true", help="write the measured counts as the budgets")
    args = parser.parse_args()
    with open(BUDGETS) as f:
        budgets = json.load(f)
    with tempfile.TemporaryDirectory(prefix="pd-budgets-") as work:
        measured = run(args.only, args.build, work)
    tolerance = budgets["tolerance"]
    failed = []
    for name in args.only:
        value, budget = measured[name], budgets["allocations"].get(name)
        allowed = None if budget is None else max(tolerance["absolute"], budget * tolerance["relative"])
        if budget is None:
            verdict = "no budget"
            failed.append(name)
        elif value > budget + allowed:
            verdict = f"FAIL: over its budget {budget} by more than {allowed:.2f}"
            failed.append(name)
        elif value < budget - allowed:
            verdict = f"FAIL: under its budget {budget} by more than {allowed:.2f}: lower the budget (--update)"
            failed.append(name)
        else:
            verdict = f"ok (budget {budget} +- {allowed:.2f})"
        print(f"budgets: {name:9} {value:8.2f} allocations an answer  {verdict}", flush=True)
    if args.update:
        budgets["allocations"].update({name: round(measured[name], 1) for name in args.only})
        with open(BUDGETS, "w") as f:
            json.dump(budgets, f, indent=2)
            f.write("\n")
        print(f"budgets: wrote {BUDGETS}")
    elif failed:
        raise SystemExit(f"budgets: {', '.join(failed)} off budget (Tests/Budgets/budgets.py explains)")


if __name__ == "__main__":
    main()
