#!/usr/bin/env python3
"""Before/after ratio of two builds of the service, robust to a noisy host.

Both services run at the same time on the SAME core (LOOPS=1, pinned to CPU 0), each driven by
its own wrk (both pinned to CPU 1), against one catalog-stub. Whatever the host does to CPU 0
hits both alike; the scheduler splits the core fairly between them, so the ratio of what each
served is the inverse ratio of their CPU cost per request.

Neither position is neutral: the service started second and the wrk started second were each
served about 1-2% more (or less) than their twins, a build against itself reading 0.99 on hot and
1.02 on l2 with one start order. So the wrks take turns starting first, round by round, and the
rounds run twice, the services started in one order and then, restarted, in the other (--rounds
per order); --no-swap keeps one order (BEFORE's service first), in half the time.

    python3 bench/duel.py BEFORE_DIR AFTER_DIR [--rounds 5] [--seconds 5] [--scenario hot|healthz|miss|fill|l2]
                          [--logged] [--no-swap]   (SCENARIO: hot, healthz, miss, fill or l2)

miss: cache off, 1,000 ids cycled, three upstream calls each to one nginx serving a static export
of the stub's catalog (nginx pinned to CPU 1 with the wrks).

fill: as miss, but the cache on and every request an id never asked before (`p<n>-<run>-<lap>`,
which the export answers with p<n>'s documents): each answer is a load, a store into L1 (which
evicts once full) and the page's one compression.

l2: every answer an L2 hit: both services share a redis-server (pinned to CPU 1 with the wrks),
each keeps one page in its L1 (bench/fleet.py's L2_READER), and every one of 5,000 pages is put in
Redis before measuring; the cycle over the 5,000 ids then misses L1 every time.

--logged: both services log every request (LOG_LEVEL=info, standard output to a file each), so
the ratio is that of the whole request path with its log line; the log writer threads share
CPU 0 with their loops.

Each DIR holds `product-details` and `catalog-stub` (e.g. a copy of .build/release). Prints one
line per round and the median AFTER/BEFORE throughput ratio (> 1: the second build is cheaper).

It also prints each side's CPU time per request (user + system, from /proc) and their ratio
BEFORE/AFTER (> 1: the second build is cheaper). The throughput ratio is the cost ratio only while
the shared core is saturated; in the miss scenario the services wait on nginx and wrk (CPU 1), so
there the CPU ratio is the one that measures cost.
Needs wrk and taskset (util-linux) and two cores; starts and stops everything itself.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import urllib.request

from bench import export_upstream, fill_script, lua_paths, start_nginx, start_service, start_stub
from fleet import L2_READER, fill_shared, start_redis


def cpu_seconds(pid):
    """User plus system CPU time of process `pid` so far (clock-tick resolution)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def duel_round(args, ports, pids, script, first, round_index):
    """One round: both wrks at once, the one of side `first` started first (it alternates, as
    the wrk started second was served a little more). Returns the AFTER/BEFORE throughput ratio
    and the BEFORE/AFTER CPU-per-request ratio."""
    runs = {}
    cpu_at_start = {side: cpu_seconds(pid) for side, pid in pids.items()}
    for side in (first, "after" if first == "before" else "before"):
        argv = ["taskset", "-c", "1", "wrk", "-t1", "-c32", f"-d{args.seconds}s"]
        url = f"http://127.0.0.1:{ports[side]}"
        if args.scenario != "healthz":
            argv += ["-s", script]
        else:
            url += "/healthz"
        runs[side] = subprocess.Popen(argv + [url], stdout=subprocess.PIPE, text=True)
    outputs = {side: run.communicate()[0] for side, run in runs.items()}
    served = {side: float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)) for side, out in outputs.items()}
    answered = {side: int(re.search(r"(\d+) requests in", out).group(1)) for side, out in outputs.items()}
    # A side that answers errors (a 503 it sheds, a 502) is not cheaper for it: say so loudly.
    for side, out in outputs.items():
        errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
        if errors:
            print(f"round {round_index}: WARNING {side} answered {errors.group(1)} of {answered[side]} requests with an error status: "
                  "its ratio is not a cost ratio", flush=True)
    cost = {side: (cpu_seconds(pids[side]) - cpu_at_start[side]) * 1e6 / answered[side] for side in pids}
    ratio = served["after"] / served["before"]
    cost_ratio = cost["before"] / cost["after"]
    print(f"round {round_index}: before {served['before']:.0f} req/s, after {served['after']:.0f} req/s, "
          f"after/before {ratio:.3f}; CPU per request before {cost['before']:.1f} us, "
          f"after {cost['after']:.1f} us, before/after {cost_ratio:.3f}", flush=True)
    return ratio, cost_ratio


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--scenario", choices=["hot", "healthz", "miss", "fill", "l2"], default="hot")
    parser.add_argument("--logged", action="store_true", help="both sides log every request to a file")
    parser.add_argument("--no-swap", dest="swap", action="store_false",
                        help="one start order only (BEFORE's service first): half the time, and a bias of about 1%%")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="pd-duel-")
    started = []
    try:
        stub, stub_port = start_stub({"CATALOG_SIZE": "20000"}, binary=os.path.join(args.before, "catalog-stub"),
                                     prefix=("taskset", "-c", "1"))
        started.append(stub)
        upstream = {"UPSTREAM_URL": f"http://127.0.0.1:{stub_port}"}
        ids = [f"p{i}" for i in range(1, {"miss": 1001, "fill": 1001, "l2": 5001}.get(args.scenario, 101))]
        if args.scenario in ("miss", "fill"):
            # nginx's worker drops to an unprivileged user: it must be able to read the export.
            os.chmod(work, 0o755)
            export_upstream(stub_port, work, ids)
            nginx, nginx_port = start_nginx(work)
            started.append(nginx)
            for pid in nginx.pids:
                os.sched_setaffinity(pid, {1})
            upstream = {"UPSTREAM_URL": f"http://127.0.0.1:{nginx_port}/upstream"}
            if args.scenario == "miss":
                upstream["CACHE_TTL_SECONDS"] = "0"
        if args.scenario == "l2":
            redis, redis_port = start_redis(work)
            started.append(redis)
            os.sched_setaffinity(redis.popen.pid, {1})
            upstream.update({**L2_READER, "REDIS_URL": f"redis://127.0.0.1:{redis_port}"})
        paths = [f"/products/{i}" for i in ids]
        script = fill_script(work, len(ids)) if args.scenario == "fill" else lua_paths(work, "paths.lua", paths)
        directories = {"before": args.before, "after": args.after}
        # Each start order in turn: the service started first and the one started second do not
        # cost the same even when they are one binary (a build against itself read 0.99 on hot and
        # 1.02 on l2 in one order), so a change is measured in both and the bias cancels.
        orders = [("before", "after"), ("after", "before")] if args.swap else [("before", "after")]
        ratios = []
        cost_ratios = []
        for order in orders:
            services = {}
            ports = {}
            for side in order:
                logging = {"LOG_LEVEL": "info"} if args.logged else {}
                service, port = start_service({"LOOPS": "1", **upstream, **logging},
                                              binary=os.path.join(directories[side], "product-details"),
                                              prefix=("taskset", "-c", "0"),
                                              log_path=os.path.join(work, f"{side}.log") if args.logged else None)
                started.append(service)
                services[side] = service
                ports[side] = port
            if args.scenario == "hot":
                for side in order:
                    for path in paths:  # all cached before measuring
                        urllib.request.urlopen(f"http://127.0.0.1:{ports[side]}{path}").read()
            if args.scenario == "l2":
                for side in order:
                    fill_shared(ports[side], ids)
            pids = {side: service.popen.pid for side, service in services.items()}
            print(f"{order[0]} started first", flush=True)
            for round_index in range(args.rounds):
                ratio, cost_ratio = duel_round(args, ports, pids, script, first=order[round_index % 2], round_index=round_index)
                ratios.append(ratio)
                cost_ratios.append(cost_ratio)
            for service in services.values():
                service.stop()
                started.remove(service)
        label = f"{args.scenario}, logged" if args.logged else args.scenario
        print(f"{label}: after/before throughput on a shared core: median {statistics.median(ratios):.3f} "
              f"(min {min(ratios):.3f}, max {max(ratios):.3f}, {len(ratios)} rounds of {args.seconds} s)")
        print(f"{label}: before/after CPU time per request: median {statistics.median(cost_ratios):.3f} "
              f"(min {min(cost_ratios):.3f}, max {max(cost_ratios):.3f})")
    finally:
        for process in started:
            process.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
