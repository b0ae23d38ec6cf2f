"""Fleet-mode rows of `make bench` (bench/bench.py calls `run`): replicas with REDIS_URL set,
sharing a real redis-server that this module starts on 127.0.0.1 and a probed free port (no
persistence, its --dir in the bench's scratch folder) and stops afterwards.

Scenarios:
  l2            an L2 hit (a reader replica whose L1 holds one page, so each request of a cycle
                over 5,000 ids misses L1 and reads Redis) against an L1 hit on a replica with its
                L1 warm, and an uncached load (single node, cache off) from
                the same nginx upstream as the miss row; taking turns, at 64 connections
                (throughput) and at 1 (latency without queueing).
  fleet-herd    2,000 clients spread over three replicas on a product nobody asked for, upstream
                slowed to 200 ms: upstream calls per route, a few rounds with fresh ids.
  invalidation  three replicas hold a page as an L1 hit; from the DELETE's 204 until the last
                replica stops answering it (each polled until its answer is not an L1 hit).
  dependent     three replicas hold product A's page as an L1 hit; a product S that A suggests is
                changed at the stub (its control route) and `DELETE /cache/products/S` goes to one
                replica (in turn); from the 204 until the last replica shows S's new price inside
                A's page (each polled until its answer, parsed, shows it).
  bulk          200 pages an L1 hit on three replicas, all 200 products changed at the stub, one
                `POST /cache/invalidations` of the 200 ids: its answer time, when the last poll
                answered with an old page was sent, and until every replica showed every page new
                (each round another id range, through another replica).
  redis-down    uncached pages per second of a replica whose Redis was killed after start
                (breaker open) against single-node mode, taking turns.

The dependent and bulk rows start a catalog-stub of their own (their product changes touch no
other row).

Backends (bench.py's --fleet-backend, or BENCH_FLEET_BACKEND): `single` (the default: one
redis-server), `cluster` (a loopback Redis Cluster started by scripts/redis-cluster.sh: six nodes,
three masters with a replica each; REDIS_URL names the first master), or both, comma-separated: the
rows run on each in turn, the cluster's prefixed `cluster:`, then a table of the two side by side
(L2 hit, herd calls, invalidation, Redis commands per miss, keys per master).

Settings (environment): BENCH_FLEET_HERD_ROUNDS (3), BENCH_INVALIDATION_ROUNDS (500),
BENCH_DEPENDENT_ROUNDS (500), BENCH_BULK_ROUNDS (5), BENCH_BULK_IDS (200); the
turns follow bench.py's BENCH_SECONDS and BENCH_ROUNDS.
"""
import argparse
import concurrent.futures
import json
import os
import re
import selectors
import signal
import socket
import statistics
import struct
import subprocess
import time
import urllib.request

from bench import Process, alternate, free_port, get, lua_paths, start_service, start_stub, wrk

FLEET_SCENARIOS = ("l2", "fleet-herd", "invalidation", "dependent", "bulk", "redis-down")
ADMIN_TOKEN = "bench-fleet-token"
L1_HIT = "product-details; hit"
# Linux's SO_TIMESTAMPNS (Python names no constant for it): the kernel's receive time of a packet.
SO_TIMESTAMPNS = 35


def start_redis(directory):
    """redis-server on 127.0.0.1 and a free port found by probing (`--port 0` turns TCP off), tried
    again should another process take the port first; returns (process, port)."""
    data = os.path.join(directory, "redis")
    os.makedirs(data, exist_ok=True)
    log = os.path.join(directory, "redis.log")
    for _ in range(5):
        port = free_port()
        process = Process(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                           "--appendonly", "no", "--dir", data], stdout_path=log)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and process.popen.poll() is None:
            with open(log, errors="replace") as f:
                if "Ready to accept connections" in f.read():
                    return process, port
            time.sleep(0.05)
        process.popen.kill()
        process.popen.wait()
    raise RuntimeError(f"redis-server did not start (see {log})")


# A replica whose every page request is an L2 hit once the pages are in Redis: its L1 keeps one
# page, and an hour of freshness outlasts any run (an expired page would be a load).
L2_READER = {"CACHE_MAX_ENTRIES": "1", "CACHE_TTL_SECONDS": "3600"}


def fill_shared(port, ids):
    """Asks the replica on `port` (L2_READER settings) for every id once, 16 at a time, so that
    each page is in Redis; then checks that a page is answered from there."""
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(lambda i: get(f"http://127.0.0.1:{port}/products/{i}")[0], ids))
    if any(status != 200 for status in statuses):
        raise RuntimeError(f"fill: {sum(s != 200 for s in statuses)} of {len(ids)} pages were not 200")
    _, headers, _ = get(f"http://127.0.0.1:{port}/products/{ids[0]}")
    if not headers.get("Cache-Status", "").startswith("product-details-shared; hit"):
        raise RuntimeError(f"fill: a filled page is not an L2 hit: {headers.get('Cache-Status')}")


INVALIDATION_CHANNEL = "pd:v6:{invalidations}"
CLUSTER_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts/redis-cluster.sh")


def read_reply(stream):
    """One RESP2 reply from a binary file object: str, int, bytes, list or None; an error raises."""
    line = stream.readline()
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RuntimeError(f"Redis: {rest.decode(errors='replace')}")
    if kind == b":":
        return int(rest)
    if kind == b"$":
        size = int(rest)
        return None if size < 0 else stream.read(size + 2)[:-2]
    if kind == b"*":
        size = int(rest)
        return None if size < 0 else [read_reply(stream) for _ in range(size)]
    raise RuntimeError(f"Redis: unexpected reply {line[:80]!r}")


def redis_call(port, *words):
    """One command to the Redis node on 127.0.0.1:`port`, on a connection of its own."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        parts = [str(w).encode() for w in words]
        sock.sendall(f"*{len(parts)}\r\n".encode() + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts))
        with sock.makefile("rb") as stream:
            return read_reply(stream)


class SingleRedis:
    """One redis-server (start_redis): `port` for REDIS_URL, its only master, its subscriber node."""
    kind = "single"

    def __init__(self, directory):
        self.process, self.port = start_redis(directory)
        self.masters = [self.port]
        self.channel_port = self.port

    def cpu_seconds(self):
        return self.process.cpu_seconds()

    def kill(self):
        self.process.popen.send_signal(signal.SIGKILL)
        self.process.popen.wait()

    def stop(self):
        self.process.stop()


class ClusterRedis:
    """A loopback Redis Cluster (scripts/redis-cluster.sh: three masters with a replica each):
    `port` (the first master) for REDIS_URL, `masters`, and `channel_port`, the master owning the
    invalidation channel's slot (where a plain SSUBSCRIBE must go). Its CPU time is all six nodes'."""
    kind = "cluster"

    def __init__(self, directory):
        self.directory = os.path.join(directory, "cluster")
        os.makedirs(self.directory, exist_ok=True)
        out = subprocess.run([CLUSTER_SCRIPT, "start", self.directory], capture_output=True, text=True, timeout=120)
        ports = [int(line) for line in out.stdout.split()]
        if out.returncode != 0 or len(ports) != 6:
            self.stop()
            raise RuntimeError(f"redis-cluster.sh start failed ({out.returncode}): {out.stderr.strip()[-300:]}")
        try:
            self.masters, self.replicas = ports[:3], ports[3:]
            self.port = self.masters[0]
            self.pids = []
            for port in ports:
                with open(os.path.join(self.directory, f"node-{port}", "pid")) as f:
                    self.pids.append(int(f.read()))
            slot = redis_call(self.port, "CLUSTER", "KEYSLOT", INVALIDATION_CHANNEL)
            owners = [r[2][1] for r in redis_call(self.port, "CLUSTER", "SLOTS") if r[0] <= slot <= r[1]]
            if not owners:
                raise RuntimeError(f"no master owns slot {slot} of {INVALIDATION_CHANNEL}")
            self.channel_port = owners[0]
        except BaseException:
            self.stop()
            raise

    def cpu_seconds(self):
        return Process.cpu_seconds(self)

    def kill(self):
        self.stop()

    def stop(self):
        subprocess.run([CLUSTER_SCRIPT, "stop", self.directory], capture_output=True, timeout=60)


def start_backend(args, directory):
    """The Redis of a scenario: one redis-server or a loopback cluster, as `args.backend` says."""
    return ClusterRedis(directory) if getattr(args, "backend", "single") == "cluster" else SingleRedis(directory)


def keys_per_master(redis):
    return [redis_call(port, "DBSIZE") for port in redis.masters]


# Commands of this module's own (and the replicas' slot-map reads), left out of the masters' counts.
OWN_COMMANDS = ("info", "dbsize", "cluster", "command", "ping")


def commands_on_masters(redis):
    """Commands the masters executed so far (INFO commandstats: a script's own calls counted too),
    by name summed over the masters, without OWN_COMMANDS."""
    calls = {}
    for port in redis.masters:
        for line in redis_call(port, "INFO", "commandstats").decode().splitlines():
            name, _, stats = line.partition(":")
            if name.startswith("cmdstat_") and name[8:].split("|")[0] not in OWN_COMMANDS:
                calls[name[8:]] = calls.get(name[8:], 0) + int(re.search(r"calls=(\d+)", stats).group(1))
    return calls


def redis_get_reference(redis, requests=50_000):
    """Redis's own cost of a plain GET of a value the size of a page (1,400 bytes), the reference
    for the L2 hit's Redis CPU: redis-benchmark (its SET first fills 5,000 random keys) at one
    connection, unpipelined and pipelined 16 deep; Redis's CPU time per GET from its process and
    the unpipelined GET's p50. A single redis-server only (None on a cluster)."""
    if redis.kind != "single":
        return None
    base = ["redis-benchmark", "-p", str(redis.port), "-d", "1400", "-r", "5000", "-c", "1", "--csv"]
    subprocess.run(base + ["-t", "set", "-n", "20000"], capture_output=True, check=True)
    reference = {}
    for depth in (1, 16):
        before = redis.cpu_seconds()
        out = subprocess.run(base + ["-t", "get", "-n", str(requests), "-P", str(depth)],
                             capture_output=True, text=True, check=True).stdout
        reference[f"us_p{depth}"] = (redis.cpu_seconds() - before) * 1e6 / requests
        fields = [f.strip('"') for f in out.strip().splitlines()[-1].split(",")]
        reference[f"p50_p{depth}"] = float(fields[4])
    return reference


class WithRedis:
    """A replica for `measure` that also notes Redis's CPU time at every reading (measure reads
    before and after each run), so that Redis's share of a side's runs can be told apart."""

    def __init__(self, service, redis):
        self.service, self.redis = service, redis
        self.readings = []

    def cpu_seconds(self):
        self.readings.append(self.redis.cpu_seconds())
        return self.service.cpu_seconds()

    def redis_us_per_request(self, requests):
        """Redis's CPU during this side's runs (every run, also those measured again) per request."""
        spent = sum(after - before for before, after in zip(self.readings[::2], self.readings[1::2]))
        return spent * 1e6 / max(1, requests)

    def rss_kib(self, key="VmRSS"):
        return self.service.rss_kib(key)


def metrics(port):
    """The service's metrics as {'name{labels}': value}."""
    _, _, body = get(f"http://127.0.0.1:{port}/metrics")
    values = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def delta(after, before, name):
    return after.get(name, 0) - before.get(name, 0)


def labelled(values, family):
    """{label value: number} of a family with one label."""
    return {m.group(1): v for key, v in values.items() if (m := re.fullmatch(rf'{family}\{{\w+="(\w+)"\}}', key))}


def changes(before, after, family):
    """{label value: increase} of a family with one label."""
    old = labelled(before, family)
    return {key: value - old.get(key, 0) for key, value in labelled(after, family).items()}


def listing(values):
    return ", ".join(f"{key} {value:.0f}" for key, value in values.items())


def wait_for_metric(port, name, value, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if metrics(port).get(name) == value:
            return
        time.sleep(0.05)
    raise RuntimeError(f"replica on port {port}: {name} never reached {value}")


def start_replicas(count, env, redis_port, started):
    """`count` replicas sharing Redis, each subscribed to invalidations (appended to `started`);
    returns their (process, port) pairs."""
    replicas = []
    for _ in range(count):
        process, port = start_service({"REDIS_URL": f"redis://127.0.0.1:{redis_port}", "ADMIN_TOKEN": ADMIN_TOKEN, **env})
        started.append(process)
        replicas.append((process, port))
    for _, port in replicas:
        wait_for_metric(port, "product_details_redis_subscriber_connected", 1)
    return replicas


def reset_stub(port):
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/stats", method="DELETE")).read()


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def verdict(met):
    return "met" if met else "MISSED"


def row(name, result, extra=""):
    problems = ""
    if result["non2xx"] or result["socket_errors"]:
        problems = f"; {result['non2xx']} non-2xx, socket errors {result['socket_errors'] or 'none'}"
    steal = f"; steal up to {result['steal']:.1%}" if result.get("steal", 0) >= 0.001 else ""
    return (f"| {name} | {result['rps']:.0f} | {result['p50']:.2f} / {result['p99']:.2f} ms | "
            f"{result['cpu_us']:.1f} | {extra}{problems}{steal} |")


def nginx_upstream(args, nginx_port, ttl):
    """Settings of a service loading from the nginx export of the catalog (as the miss row)."""
    return {"UPSTREAM_URL": f"http://127.0.0.1:{nginx_port}/upstream", "CACHE_TTL_SECONDS": str(ttl), "LOOPS": str(args.loops)}


def l2_scenario(args, work, nginx_port, ids, rows, notes):
    started = []
    try:
        redis = start_backend(args, os.path.join(work, "l2"))
        redis_port = redis.port
        started.append(redis)
        # An hour of freshness: the turns take minutes, and an expired page would be a load.
        (_, filler), (replica_process, replica) = start_replicas(2, nginx_upstream(args, nginx_port, 3600), redis_port, started)
        # A client's no-cache skips the shared cache too, so the L2 side is a replica whose L1
        # keeps one page: every request of the cycle misses L1 and is answered from Redis.
        [(reader_process, reader)] = start_replicas(1, {**nginx_upstream(args, nginx_port, 3600), "CACHE_MAX_ENTRIES": "1"}, redis_port, started)
        single, single_port = start_service(nginx_upstream(args, nginx_port, 0))
        started.append(single)

        # The filler loads every page into Redis; the measured replica reads them from there.
        fill = lua_paths(work, "l2-fill.lua", [f"/products/{p}" for p in ids])
        # The fill is the filler's misses alone (its L1 holds every page after): the Redis
        # commands per miss, from its metrics and from the masters' own counts.
        fill_before, fill_on_masters = metrics(filler), commands_on_masters(redis)
        # Rounds until every page was loaded once (each round starts the id list over; a slower
        # miss path needs more of them), bounded.
        for _ in range(20):
            wrk(f"http://127.0.0.1:{filler}", 16, 2, fill)
            stored = metrics(filler).get('product_details_leases_total{result="won"}', 0)
            if stored >= len(ids):
                break
        else:
            raise RuntimeError(f"l2: the filler stored {stored:.0f} of {len(ids)} pages in Redis")
        fill_after, on_masters = metrics(filler), commands_on_masters(redis)
        fill_by_name = {name: calls - fill_on_masters.get(name, 0) for name, calls in sorted(on_masters.items())}
        fill_on_masters = sum(fill_by_name.values())
        fill_commands = changes(fill_before, fill_after, "product_details_redis_commands_total")
        fill_misses = delta(fill_after, fill_before, 'product_details_leases_total{result="won"}')
        fill_redirects = changes(fill_before, fill_after, "product_details_redis_cluster_redirects_total")
        fill_reads, fill_leases, fill_flushes = (changes(fill_before, fill_after, family) for family in (
            "product_details_l2_reads_total", "product_details_leases_total", "product_details_l1_flushes_total"))
        fill_keys = keys_per_master(redis)
        hot = ids[:100]
        for product in hot:
            get(f"http://127.0.0.1:{replica}/products/{product}")
        _, headers, _ = get(f"http://127.0.0.1:{replica}/products/{hot[0]}")
        if not headers.get("Cache-Status", "").startswith(L1_HIT):
            raise RuntimeError(f"l2: a warmed page is not an L1 hit: {headers.get('Cache-Status')}")
        _, headers, _ = get(f"http://127.0.0.1:{reader}/products/{hot[0]}")
        shared_hit = headers.get("Cache-Status", "")
        if not shared_hit.startswith("product-details-shared; hit"):
            raise RuntimeError(f"l2: the reader's first request is not an L2 hit: {shared_hit}")

        l1_script = lua_paths(work, "l2-l1.lua", [f"/products/{p}" for p in hot])
        l2_script = lua_paths(work, "l2-l2.lua", [f"/products/{p}" for p in ids])
        miss_script = lua_paths(work, "l2-miss.lua", [f"/products/{p}" for p in ids])
        before = metrics(reader)
        results = {}
        for connections in (64, 1):
            l1_side, l2_side = WithRedis(replica_process, redis), WithRedis(reader_process, redis)
            sides = [(l1_side, f"http://127.0.0.1:{replica}", l1_script),
                     (l2_side, f"http://127.0.0.1:{reader}", l2_script),
                     (single, f"http://127.0.0.1:{single_port}", miss_script)]
            results[connections] = alternate(sides, args.duration, args.rounds, connections=connections)
            for side, result in zip((l1_side, l2_side), results[connections]):
                result["redis_us"] = side.redis_us_per_request(result["requests"])
        after = metrics(reader)
        keys = keys_per_master(redis)
        reference = redis_get_reference(redis)
    finally:
        for process in reversed(started):
            process.stop()

    reads, commands, reconnects, redirects, polls = (changes(before, after, family) for family in (
        "product_details_l2_reads_total", "product_details_redis_commands_total", "product_details_redis_reconnects_total",
        "product_details_redis_cluster_redirects_total", "product_details_redis_busy_polls_total"))
    upstream_calls = sum(delta(after, before, k) for k in after if k.startswith("product_details_upstream_requests_total"))
    for connections, (l1, l2, miss) in results.items():
        label = f"c{connections}"
        rows.append(row(f"l2: L1 hit, 100 ids ({label})", l1, f"a warm replica; Redis {l1['redis_us']:.1f} us/req"))
        rows.append(row(f"l2: L2 hit, L1 of one page, 5000 ids ({label})", l2,
                        f"p50 {l2['p50'] - l1['p50']:+.2f} ms against L1; req/s {l2['rps'] / l1['rps']:.2f}x L1's; "
                        f"Redis {l2['redis_us']:.1f} us/req more"))
        rows.append(row(f"l2: uncached load, single node, cache off ({label})", miss, "nginx upstream as the miss row"))
        args.figures[f"L2 hit p50 / p99, 5000 ids ({label})"] = f"{l2['p50']:.2f} / {l2['p99']:.2f} ms"
        args.figures[f"L1 hit p50 / p99, 100 ids ({label}, same turns)"] = f"{l1['p50']:.2f} / {l1['p99']:.2f} ms"
        notes.append(f"l2 ({label}): L2 p50 {l2['p50']:.2f} ms against L1's {l1['p50']:.2f} ms "
                     f"(aim: within 0.2 ms, {verdict(l2['p50'] - l1['p50'] <= 0.2)}) and the uncached load's "
                     f"{miss['p50']:.2f} ms (aim: below, {verdict(l2['p50'] < miss['p50'])})")
    if reference:
        for connections, (_, l2, _) in results.items():
            notes.append(f"l2 (c{connections}): Redis CPU per L2 read {l2['redis_us']:.1f} us, "
                         f"{l2['redis_us'] / reference['us_p1']:.2f}x a plain GET of 1,400 bytes "
                         f"({reference['us_p1']:.1f} us unpipelined; {reference['us_p16']:.1f} us pipelined 16 deep)")
        notes.append(f"l2: redis-benchmark GET of 1,400 bytes at c1: p50 {reference['p50_p1']:.3f} ms unpipelined "
                     f"(the L2 hit's c1 p50 above is the whole request through the replica)")
        args.figures["Redis CPU per plain GET of 1,400 bytes, unpipelined / 16 deep"] = (
            f"{reference['us_p1']:.1f} / {reference['us_p16']:.1f} us")
        args.figures["plain GET p50 at c1 (redis-benchmark)"] = f"{reference['p50_p1']:.3f} ms"
    notes.append(f"l2: the reader replica during the turns: L2 reads {listing(reads)}; Redis commands {listing(commands)}; "
                 f"reconnects {listing(reconnects)}; busy polls for a lone command's reply {listing(polls)}; "
                 f"its upstream requests {upstream_calls:.0f}; the CPU column is the replica's, Redis's is in the notes "
                 f"(over every run of the side, also runs measured again for steal)")
    per_miss = sum(fill_commands.values()) / max(1, fill_misses)
    notes.append(f"l2 fill (the filler's {fill_misses:.0f} misses, each a page stored in Redis): Redis commands "
                 f"{listing(fill_commands)}, {per_miss:.2f} per miss; the masters counted {fill_on_masters} "
                 f"({fill_on_masters / max(1, fill_misses):.2f} per miss, INFO commandstats without "
                 f"{'/'.join(OWN_COMMANDS)}, a script's own calls counted: "
                 f"{', '.join(f'{k} {v / max(1, fill_misses):.2f}' for k, v in fill_by_name.items() if v)}); cluster redirects during the fill {listing(fill_redirects) or 'none'}, "
                 f"the reader's during the turns {listing(redirects) or 'none'}; keys per master after the turns "
                 f"{' / '.join(map(str, keys))}; the filler during the fill: L2 reads {listing(fill_reads)}, leases "
                 f"{listing(fill_leases)}, L1 flushes {listing(fill_flushes)}, keys per master right after it "
                 f"{' / '.join(map(str, fill_keys))}")
    args.figures["Redis commands per miss (filler's metrics; masters' commandstats)"] = (
        f"{per_miss:.2f}; {fill_on_masters / max(1, fill_misses):.2f}")
    args.figures["keys per master after l2 (5000 pages)"] = " / ".join(map(str, keys))
    args.figures["cluster redirects (fill; reader's turns)"] = (
        f"{sum(fill_redirects.values()):.0f}; {sum(redirects.values()):.0f}")


def fleet_herd_scenario(args, work, rows, notes):
    rounds = int(os.environ.get("BENCH_FLEET_HERD_ROUNDS", "3"))
    clients = 2000
    started = []
    outcomes = []
    try:
        redis = start_backend(args, os.path.join(work, "fleet-herd"))
        redis_port = redis.port
        started.append(redis)
        slow_stub, slow_port = start_stub({"CATALOG_SIZE": "20000", "STUB_LATENCY_MS": "200"})
        started.append(slow_stub)
        replicas = [port for _, port in start_replicas(
            3, {"UPSTREAM_URL": f"http://127.0.0.1:{slow_port}", "LOOPS": str(args.loops)}, redis_port, started)]
        shares = [clients // 3 + (1 if n < clients % 3 else 0) for n in range(3)]
        for index in range(rounds):
            product = f"p{14001 + index}"
            reset_stub(slow_port)
            before = [metrics(port) for port in replicas]
            with concurrent.futures.ThreadPoolExecutor(3) as pool:
                runs = list(pool.map(lambda pair: wrk(f"http://127.0.0.1:{pair[0]}/products/{product}", pair[1], 2),
                                     zip(replicas, shares)))
            _, _, stats = get(f"http://127.0.0.1:{slow_port}/stats")
            counts = json.loads(stats)["requests"]
            leases = {}
            for port, old in zip(replicas, before):
                for key, value in changes(old, metrics(port), "product_details_leases_total").items():
                    leases[key] = leases.get(key, 0) + value
            outcomes.append((product, counts, runs, leases))
        keys = keys_per_master(redis)
    finally:
        for process in reversed(started):
            process.stop()

    exact = all(all(c[route] == 1 for route in ("product", "reviews", "suggested")) for _, c, _, _ in outcomes)
    for product, counts, runs, leases in outcomes:
        answers = sum(r["requests"] for r in runs)
        non2xx = sum(r["non2xx"] for r in runs)
        errors = "; ".join(r["socket_errors"] for r in runs if r["socket_errors"]) or "none"
        notes.append(f"fleet-herd {clients} clients over 3 replicas ({'/'.join(map(str, shares))}) on {product}, upstream 200 ms: "
                     f"{answers} answers in 2 s (non-2xx {non2xx}, socket errors: {errors}), upstream calls "
                     f"product={counts['product']} reviews={counts['reviews']} suggested={counts['suggested']}; "
                     f"leases {listing(leases)}")
    notes.append(f"fleet-herd: aim exactly 1 upstream call per route in every round: {verdict(exact)}; keys per master "
                 f"after the rounds {' / '.join(map(str, keys))}")
    args.figures[f"herd upstream calls product/reviews/suggested, {clients} clients ({rounds} rounds)"] = ", ".join(
        f"{c['product']}/{c['reviews']}/{c['suggested']}" for _, c, _, _ in outcomes)


class Probe:
    """One keep-alive connection (HTTP/1.1 answers framed by Content-Length); `stamp` is the kernel's
    receive time (CLOCK_REALTIME seconds) of the last bytes read."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.buffer = b""
        self.stamp = None
        self.body = b""

    def send(self, data):
        self.sock.sendall(data)
        return time.perf_counter()

    def take(self):
        """(status, headers) of a complete response in the buffer, or None; its body is left in
        `body`."""
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        lines = self.buffer[:end].decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        total = end + 4 + int(headers.get("content-length", "0"))
        if len(self.buffer) < total:
            return None
        self.body = self.buffer[end + 4:total]
        self.buffer = self.buffer[total:]
        return int(lines[0].split()[1]), headers

    def read(self):
        """Reads what has arrived; False when the peer closed."""
        data, ancillary, _, _ = self.sock.recvmsg(65536, socket.CMSG_SPACE(16))
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                seconds, nanoseconds = struct.unpack("qq", value[:16])
                self.stamp = seconds + nanoseconds / 1e9
        self.buffer += data
        return bool(data)

    def response(self):
        while (answer := self.take()) is None:
            if not self.read():
                raise RuntimeError("connection closed mid-response")
        return answer

    def close(self):
        self.sock.close()


def request(path, method="GET", headers=()):
    return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n" + "".join(f"{h}\r\n" for h in headers) + "\r\n").encode()


def subscribe(redis_port, channel):
    """A plain subscriber on the shard channel `channel` (a Probe on Redis): when Redis delivers an
    invalidation, as a baseline for the replicas."""
    watcher = Probe(redis_port)
    watcher.send(f"*2\r\n$10\r\nSSUBSCRIBE\r\n${len(channel)}\r\n{channel}\r\n".encode())
    while b"subscribe" not in watcher.buffer or not watcher.buffer.endswith(b"\r\n:1\r\n"):
        watcher.read()
    watcher.buffer = b""
    return watcher


def invalidation_round(replicas, probes, product, sender, watcher):
    """Makes every replica hold `product` as an L1 hit, deletes it through `sender`, and polls every
    replica until its answer is not that L1 copy. Returns per replica (sent, answered, polls, old):
    seconds after the 204 of the probe that first saw the page gone and of its answer, how many
    probes it took, and when the last probe answered with the old page was sent (0 if none); the
    204's
    X-Invalidation-Receivers; and when the plain subscriber `watcher` received the message,
    seconds after the 204 (kernel receive times of both); the round trips of the probes answered
    with the old page (the resolution of the first figure)."""
    page = request(f"/products/{product}")
    for probe in probes + probes:
        probe.send(page)
        probe.response()
    for probe in probes:
        probe.send(page)
        _, headers = probe.response()
        if not headers.get("cache-status", "").startswith(L1_HIT):
            raise RuntimeError(f"invalidation: {product} is not an L1 hit before the DELETE: {headers.get('cache-status')}")
    admin = Probe(replicas[sender])
    admin.send(request(f"/cache/products/{product}", "DELETE", [f"Authorization: Bearer {ADMIN_TOKEN}"]))
    status, headers = admin.response()
    start = time.perf_counter()
    admin.close()
    if status != 204:
        raise RuntimeError(f"invalidation: DELETE answered {status}")
    selector = selectors.DefaultSelector()
    sent = {}
    polls = [1] * len(probes)
    still_old = [start] * len(probes)
    for index, probe in enumerate(probes):
        selector.register(probe.sock, selectors.EVENT_READ, index)
        sent[index] = probe.send(page)
    selector.register(watcher.sock, selectors.EVENT_READ, None)
    seen = {}
    delivered = None
    round_trips = []
    deadline = start + 5
    while len(seen) < len(probes) or delivered is None:
        if time.perf_counter() > deadline:
            raise RuntimeError(f"invalidation: replicas {sorted(set(range(len(probes))) - set(seen))} still answer "
                               f"the old page 5 s after the 204 (message delivered: {delivered is not None})")
        for key, _ in selector.select(timeout=0.5):
            index = key.data
            if index is None:
                watcher.read()
                if b"message" in watcher.buffer:
                    watcher.buffer = b""
                    # The kernel leaves a packet without its time now and then (then: nan).
                    delivered = watcher.stamp - admin.stamp if watcher.stamp and admin.stamp else float("nan")
                    watcher.stamp = None
                    selector.unregister(watcher.sock)
                continue
            probe = probes[index]
            if not probe.read():
                raise RuntimeError("invalidation: a replica closed its connection")
            answer = probe.take()
            if answer is None:
                continue
            answered = time.perf_counter()
            if answer[1].get("cache-status", "").startswith(L1_HIT):
                round_trips.append(answered - sent[index])
                still_old[index] = sent[index]
                sent[index] = probe.send(page)
                polls[index] += 1
            else:
                seen[index] = (sent[index] - start, answered - start, polls[index], still_old[index] - start)
                selector.unregister(probe.sock)
    selector.close()
    return [seen[i] for i in range(len(probes))], headers.get("x-invalidation-receivers"), delivered, round_trips


def invalidation_scenario(args, work, stub_port, rows, notes):
    rounds = int(os.environ.get("BENCH_INVALIDATION_ROUNDS", "500"))
    started = []
    try:
        redis = start_backend(args, os.path.join(work, "invalidation"))
        redis_port = redis.port
        started.append(redis)
        replicas = [port for _, port in start_replicas(
            3, {"UPSTREAM_URL": f"http://127.0.0.1:{stub_port}", "LOOPS": str(args.loops)}, redis_port, started)]
        probes = [Probe(port) for port in replicas]
        watcher = subscribe(redis.channel_port, INVALIDATION_CHANNEL)
        before = [metrics(port) for port in replicas]
        results, delivered, round_trips = [], [], []
        receivers = {}
        for index in range(rounds):
            seen, count, arrival, trips = invalidation_round(replicas, probes, f"p{15001 + index}", index % len(replicas), watcher)
            results.append(seen)
            round_trips += trips
            if arrival == arrival:
                delivered.append(arrival * 1000)
            receivers[count] = receivers.get(count, 0) + 1
        after = [metrics(port) for port in replicas]
        for probe in probes + [watcher]:
            probe.close()
        keys = keys_per_master(redis)
    finally:
        for process in reversed(started):
            process.stop()

    received = [delta(a, b, 'product_details_invalidations_received_total{scope="product"}') for a, b in zip(after, before)]
    last_sent = [max(s for s, _, _, _ in seen) * 1000 for seen in results]
    last_answered = [max(a for _, a, _, _ in seen) * 1000 for seen in results]
    # The last replica dropped the page after the last poll that still got it was sent.
    last_old = [max(old for _, _, _, old in seen) * 1000 for seen in results]
    # The replicas that did not take the DELETE learn of it from Redis alone.
    others = [seen[n] for index, seen in enumerate(results) for n in range(3) if n != index % 3]
    late = sum(1 for _, _, polls, _ in others if polls > 1)

    def spread(values):
        return f"p50 {statistics.median(values):.2f} / p99 {percentile(values, 0.99):.2f} / max {max(values):.2f} ms"
    rows.append(f"| invalidation: 204 until the last of 3 replicas stops answering the old L1 copy ({rounds} rounds) | - | "
                f"{statistics.median(last_sent):.2f} / {percentile(last_sent, 0.99):.2f} ms | - | "
                f"max {max(last_sent):.2f} ms; until that poll's answer arrived {spread(last_answered)} |")
    notes.append(f"invalidation, {rounds} rounds over 3 replicas, each holding the page as an L1 hit, the DELETE sent to each in "
                 f"turn: until the last replica stopped answering the old page (when the poll that first saw it gone was sent) "
                 f"{spread(last_sent)}; aim p99 under 5 ms: {verdict(percentile(last_sent, 0.99) < 5)}. The last poll "
                 f"that still got the old page was sent {spread(last_old)} after the 204 (so the last replica dropped "
                 f"it between the two). Until that poll's "
                 f"answer arrived (a load or a wait for another replica's) {spread(last_answered)}")
    notes.append(f"invalidation: a plain subscriber (this script) received the message {spread(delivered)} after the 204 "
                 f"(kernel receive times, known in {len(delivered)} of {rounds} rounds); the replicas that did not take the DELETE: {spread([s * 1000 for s, _, _, _ in others])}, "
                 f"answering the old page at least once after the 204 in {late} of {len(others)} cases (a poll answered with "
                 f"the old page took {spread([t * 1000 for t in round_trips]) if round_trips else 'none'}: the resolution); "
                 f"X-Invalidation-Receivers (the 3 replicas and this script) {', '.join(f'{k}: {v} times' for k, v in receivers.items())}; "
                 f"invalidations received per replica {', '.join(f'{v:.0f}' for v in received)}; keys per master after "
                 f"the rounds {' / '.join(map(str, keys))}")
    args.figures[f"invalidation, 204 to the last of 3 replicas p50 / p99 ({rounds} rounds)"] = (
        f"{statistics.median(last_sent):.2f} / {percentile(last_sent, 0.99):.2f} ms")
    args.figures["X-Invalidation-Receivers (invalidation rounds)"] = ", ".join(f"{k}: {v}" for k, v in receivers.items())


def warm_everywhere(probes, paths, label):
    """Asks every replica for every path twice, then once more, which must be an L1 hit; returns the
    replicas' last answers' bodies per path, parsed (the first replica's)."""
    pages = {}
    for index, probe in enumerate(probes):
        for path in paths:
            for _ in range(2):
                probe.send(request(path))
                probe.response()
        for path in paths:
            probe.send(request(path))
            status, headers = probe.response()
            if status != 200 or not headers.get("cache-status", "").startswith(L1_HIT):
                raise RuntimeError(f"{label}: {path} is not an L1 hit on replica {index} before the invalidation: "
                                   f"{status} {headers.get('cache-status')}")
            if index == 0:
                pages[path] = json.loads(probe.body)
    return pages


def poll_until_new(lanes, is_new, start, label, limit=5.0, watcher=None):
    """Polls over `lanes`, each (probe, replica, paths) with one request in flight on its probe,
    cycling through the lane's paths not yet seen new, until `is_new(path, body)` held for every
    path of every lane. Returns {(replica, path): (sent, answered, polls, old)}: seconds after
    `start` of the poll that first saw the path new and of its answer, how many polls it took, and
    when the last poll answered with the old page was sent (0 if none); the round trips of the
    polls answered from L1 with the old page; how many old answers were NOT L1 hits (a replica
    serving an old page it did not hold in L1: should never happen); and, with `watcher` (a plain
    subscriber, also waited for), the kernel's receive time of the message it got (or None)."""
    selector = selectors.DefaultSelector()
    pending = [list(paths) for _, _, paths in lanes]
    cursor = [0] * len(lanes)
    sent = [0.0] * len(lanes)
    polls, still_old, seen = {}, {}, {}
    round_trips = []
    old_not_l1 = 0
    delivered = None

    def send_next(lane):
        sent[lane] = lanes[lane][0].send(request(pending[lane][cursor[lane]]))

    for lane, (probe, _, _) in enumerate(lanes):
        selector.register(probe.sock, selectors.EVENT_READ, lane)
        send_next(lane)
    if watcher is not None:
        selector.register(watcher.sock, selectors.EVENT_READ, None)
    while any(pending) or (watcher is not None and delivered is None):
        if time.perf_counter() > start + limit:
            left = {}
            for lane, todo in enumerate(pending):
                left[lanes[lane][1]] = left.get(lanes[lane][1], 0) + len(todo)
            raise RuntimeError(f"{label}: pages still old {limit:.0f} s after the 204 (replica: pages) {left}; "
                               f"message delivered: {delivered is not None}")
        for key, _ in selector.select(timeout=0.5):
            lane = key.data
            if lane is None:
                watcher.read()
                if b"message" in watcher.buffer:
                    watcher.buffer = b""
                    delivered = watcher.stamp
                    watcher.stamp = None
                    selector.unregister(watcher.sock)
                continue
            probe, replica, _ = lanes[lane]
            if not probe.read():
                raise RuntimeError(f"{label}: a replica closed its connection")
            answer = probe.take()
            if answer is None:
                continue
            answered = time.perf_counter()
            path = pending[lane][cursor[lane]]
            polls[replica, path] = polls.get((replica, path), 0) + 1
            status, headers = answer
            if status == 200 and is_new(path, json.loads(probe.body)):
                seen[replica, path] = (sent[lane] - start, answered - start, polls[replica, path],
                                       still_old.get((replica, path), start) - start)
                pending[lane].pop(cursor[lane])
                if not pending[lane]:
                    selector.unregister(probe.sock)
                    continue
            else:
                if headers.get("cache-status", "").startswith(L1_HIT):
                    round_trips.append(answered - sent[lane])
                else:
                    old_not_l1 += 1
                still_old[replica, path] = sent[lane]
                cursor[lane] += 1
            cursor[lane] %= len(pending[lane])
            send_next(lane)
    selector.close()
    return seen, round_trips, old_not_l1, delivered


def change_at_stub(stub_port, product, price):
    body = json.dumps({"priceInCents": price}).encode()
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{stub_port}/control/products/{product}", data=body,
                                                  method="PUT", headers={"Content-Type": "application/json"})).read()


def spread(values):
    return f"p50 {statistics.median(values):.2f} / p99 {percentile(values, 0.99):.2f} / max {max(values):.2f} ms"


def start_fleet_with_stub(args, work, name, started):
    """A redis-server, a catalog-stub of this scenario's own (its product changes touch no other
    row) and three replicas loading from it; returns (stub port, replica ports, the port of the
    Redis node a plain subscriber to the invalidation channel connects to)."""
    redis = start_backend(args, os.path.join(work, name))
    redis_port = redis.port
    started.append(redis)
    stub, stub_port = start_stub({"CATALOG_SIZE": "20000"})
    started.append(stub)
    replicas = [port for _, port in start_replicas(
        3, {"UPSTREAM_URL": f"http://127.0.0.1:{stub_port}", "LOOPS": str(args.loops)}, redis_port, started)]
    return stub_port, replicas, redis.channel_port


def dependent_scenario(args, work, rows, notes):
    """Per round: product A's page warm on every replica, a product S that A suggests changed at
    the stub, `DELETE /cache/products/S` through one replica (in turn); from the 204 until the last
    replica shows S's new price inside A's page."""
    rounds = int(os.environ.get("BENCH_DEPENDENT_ROUNDS", "500"))
    started = []
    try:
        stub_port, replicas, channel_port = start_fleet_with_stub(args, work, "dependent", started)
        probes = [Probe(port) for port in replicas]
        watcher = subscribe(channel_port, INVALIDATION_CHANNEL)
        before = [metrics(port) for port in replicas]
        results, trips, delivered, receivers, loads = [], [], [], {}, {}
        odd = 0
        candidate = 16001
        for index in range(rounds):
            while True:
                product, candidate = f"p{candidate}", candidate + 1
                path = f"/products/{product}"
                page = warm_everywhere(probes, [path], "dependent")[path]
                shown = [s for s in page.get("suggested", []) if s["id"] != product]
                if shown:
                    break
            suggested = shown[index % len(shown)]
            shown_id, new_price = suggested["id"], suggested["priceInCents"] + 1
            change_at_stub(stub_port, shown_id, new_price)

            def is_new(_, body):
                return any(s["id"] == shown_id and s["priceInCents"] == new_price for s in body.get("suggested", []))
            reset_stub(stub_port)
            admin = Probe(replicas[index % 3])
            admin.send(request(f"/cache/products/{shown_id}", "DELETE", [f"Authorization: Bearer {ADMIN_TOKEN}"]))
            status, headers = admin.response()
            start = time.perf_counter()
            admin.close()
            if status != 204:
                raise RuntimeError(f"dependent: DELETE answered {status}")
            seen, round_trips, old_not_l1, arrival = poll_until_new(
                [(probe, n, [path]) for n, probe in enumerate(probes)], is_new, start, "dependent", watcher=watcher)
            results.append([seen[n, path] for n in range(3)])
            trips += round_trips
            odd += old_not_l1
            if arrival and admin.stamp:
                delivered.append((arrival - admin.stamp) * 1000)
            count = headers.get("x-invalidation-receivers")
            receivers[count] = receivers.get(count, 0) + 1
            watcher = resubscribe(watcher, channel_port)
            # How often the fleet loaded A again for the three replicas (1: one load, shared).
            _, _, stats = get(f"http://127.0.0.1:{stub_port}/stats")
            reloads = json.loads(stats)["requests"]["product"]
            loads[reloads] = loads.get(reloads, 0) + 1
        after = [metrics(port) for port in replicas]
        for probe in probes + [watcher]:
            probe.close()
    finally:
        for process in reversed(started):
            process.stop()

    dropped = [delta(a, b, "product_details_dependent_pages_dropped_total") for a, b in zip(after, before)]
    leases, reads = {}, {}
    for a, b in zip(after, before):
        for totals, family in ((leases, "product_details_leases_total"), (reads, "product_details_l2_reads_total")):
            for key, value in changes(b, a, family).items():
                totals[key] = totals.get(key, 0) + value
    last_sent = [max(s for s, _, _, _ in seen) * 1000 for seen in results]
    last_answered = [max(a for _, a, _, _ in seen) * 1000 for seen in results]
    last_old = [max(o for _, _, _, o in seen) * 1000 for seen in results]
    late = sum(1 for seen in results for _, _, polls, _ in seen if polls > 1)
    rows.append(f"| dependent: 204 of S's DELETE until the last of 3 replicas shows S's new price inside A ({rounds} rounds) | - | "
                f"{statistics.median(last_sent):.2f} / {percentile(last_sent, 0.99):.2f} ms | - | "
                f"max {max(last_sent):.2f} ms; until that poll's answer arrived {spread(last_answered)} |")
    notes.append(f"dependent, {rounds} rounds over 3 replicas, A's page an L1 hit on each, S (one of A's suggestions) "
                 f"changed at the stub, then DELETE /cache/products/S sent to each replica in turn: until the last replica "
                 f"showed S's new price inside A (when the poll that first saw it was sent) {spread(last_sent)}; aim p99 "
                 f"under 5 ms: {verdict(percentile(last_sent, 0.99) < 5)}. The last poll still answered with the old A was "
                 f"sent {spread(last_old)} after the 204; until the answer showing the new price arrived (a reload of A "
                 f"through the fleet) {spread(last_answered)}")
    notes.append(f"dependent: a plain subscriber received the message {spread(delivered) if delivered else 'never (no kernel times)'} "
                 f"after the 204 ({len(delivered)} of {rounds} rounds timed); replicas answering the old A at least once after "
                 f"the 204: {late} of {3 * rounds} (an old L1 answer took {spread([t * 1000 for t in trips]) if trips else 'none'}); "
                 f"old answers that were not L1 hits: {odd} (aim 0); X-Invalidation-Receivers "
                 f"{', '.join(f'{k}: {v} times' for k, v in receivers.items())}; dependent pages dropped per replica "
                 f"{', '.join(f'{v:.0f}' for v in dropped)}; upstream product calls per round for the 3 replicas' "
                 f"reloads of A (1: one load shared through Redis) {', '.join(f'{k}: {v} rounds' for k, v in sorted(loads.items()))}; "
                 f"over the run, the 3 replicas' leases {listing(leases)}, shared reads {listing(reads)}")


def resubscribe(watcher, channel_port):
    """The plain subscriber, with nothing left of the last message (a new one if a round left it mid-read)."""
    if watcher.buffer:
        watcher.close()
        return subscribe(channel_port, INVALIDATION_CHANNEL)
    return watcher


def bulk_scenario(args, work, rows, notes):
    """Per round: 200 pages warm on every replica, all 200 products changed at the stub, one
    `POST /cache/invalidations` of the 200 ids (each round another range, through another replica):
    the POST's answer time, and until every replica shows every page's new prices."""
    rounds = int(os.environ.get("BENCH_BULK_ROUNDS", "5"))
    size = int(os.environ.get("BENCH_BULK_IDS", "200"))
    started = []
    outcomes, refusals = [], []
    try:
        stub_port, replicas, channel_port = start_fleet_with_stub(args, work, "bulk", started)
        watcher = subscribe(channel_port, INVALIDATION_CHANNEL)
        probes = [Probe(port) for port in replicas]
        lanes = [[Probe(port) for _ in range(size)] for port in replicas]
        before = [metrics(port) for port in replicas]
        for index in range(rounds):
            products = [f"p{1 + (index * size + n) % 20000}" for n in range(size)]
            paths = [f"/products/{p}" for p in products]
            pages = warm_everywhere(probes, paths, "bulk")
            new_prices = {p: pages[path]["product"]["priceInCents"] + 1 for p, path in zip(products, paths)}
            for product, price in new_prices.items():
                change_at_stub(stub_port, product, price)

            def is_new(path, body):
                if body["product"]["priceInCents"] != new_prices[path[len("/products/"):]]:
                    return False
                return all(s["priceInCents"] == new_prices[s["id"]] for s in body.get("suggested", []) if s["id"] in new_prices)
            payload = json.dumps({"products": products}).encode()
            admin = Probe(replicas[index % 3])
            sent = admin.send(b"POST /cache/invalidations HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              + f"Authorization: Bearer {ADMIN_TOKEN}\r\nContent-Type: application/json\r\n"
                                f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
            status, headers = admin.response()
            start = time.perf_counter()
            admin.close()
            if status != 204:
                # Not an instrument failure: the service's answer, noted; the round's pages stay changed.
                refusals.append(f"round from {products[0]}: {status} after {(start - sent) * 1000:.1f} ms, "
                                f"{admin.body.decode(errors='replace')[:300]}")
                continue
            # One connection per page and replica, each asking at once after the 204: no page waits
            # for another's reload before its first look.
            seen, trips, odd, arrival = poll_until_new([(lane, n, [path]) for n, probes_of in enumerate(lanes)
                                                        for lane, path in zip(probes_of, paths)], is_new, start, "bulk",
                                                       limit=30, watcher=watcher)
            delivered = (arrival - admin.stamp) * 1000 if arrival and admin.stamp else float("nan")
            outcomes.append(((start - sent) * 1000, headers.get("x-invalidation-receivers"), seen, trips, odd, products[0],
                             delivered))
            watcher = resubscribe(watcher, channel_port)
        after = [metrics(port) for port in replicas]
        for probe in probes + [watcher] + [lane for probes_of in lanes for lane in probes_of]:
            probe.close()
    finally:
        for process in reversed(started):
            process.stop()

    for refusal in refusals:
        notes.append(f"bulk: the POST was refused, {refusal}")
    if not outcomes:
        raise RuntimeError(f"bulk: every POST was refused ({len(refusals)})")
    answers = [answer for answer, _, _, _, _, _, _ in outcomes]
    last_old = [max(o for _, _, _, o in seen.values()) * 1000 for _, _, seen, _, _, _, _ in outcomes]
    all_new = [max(a for _, a, _, _ in seen.values()) * 1000 for _, _, seen, _, _, _, _ in outcomes]
    bulk = [delta(a, b, 'product_details_invalidations_received_total{scope="bulk"}') for a, b in zip(after, before)]
    dropped = [delta(a, b, "product_details_dependent_pages_dropped_total") for a, b in zip(after, before)]
    rows.append(f"| bulk: POST /cache/invalidations of {size} ids warm on 3 replicas ({len(outcomes)} of {rounds} rounds "
                f"answered 204) | - | "
                f"answer {statistics.median(answers):.2f} / max {max(answers):.2f} ms | - | last old answer sent "
                f"{spread(last_old)} after the 204; the last answer showing every page new everywhere {spread(all_new)} |")
    for answer, receivers, seen, trips, odd, first, delivered in outcomes:
        old_answers = sum(1 for _, _, polls, _ in seen.values() if polls > 1)
        notes.append(f"bulk round from {first}: POST answered 204 in {answer:.2f} ms (X-Invalidation-Receivers {receivers}; "
                     f"a plain subscriber got the message {delivered:+.2f} ms from the 204, kernel times); "
                     f"the last poll answered with an old page was sent {max(o for _, _, _, o in seen.values()) * 1000:.2f} ms "
                     f"after the 204 ({old_answers} of {len(seen)} replica-pages answered old at least once, {odd} of them not "
                     f"from L1); all {len(seen) // 3} pages showed their new prices on all 3 replicas "
                     f"{max(s for s, _, _, _ in seen.values()) * 1000:.1f} ms after the 204 (when the poll that first saw the "
                     f"last one new was sent), the answer of that poll {max(a for _, a, _, _ in seen.values()) * 1000:.1f} ms "
                     f"(one connection per page and replica, all asking at once: {len(seen)} page loads or shared "
                     f"reads at once)")
    notes.append(f"bulk: aims: answered within 200 ms ({verdict(max(answers) <= 200)}, max {max(answers):.2f} ms); no old "
                 f"page served later than 50 ms after the 204 ({verdict(max(last_old) <= 50)}, latest {max(last_old):.2f} ms); "
                 f"every page's new prices answered everywhere within 50 ms of the 204 ({verdict(max(all_new) <= 50)}, "
                 f"latest {max(all_new):.1f} ms); "
                 f"bulk invalidations received per replica {', '.join(f'{v:.0f}' for v in bulk)}; dependent pages "
                 f"dropped per replica {', '.join(f'{v:.0f}' for v in dropped)}")


def redis_down_scenario(args, work, nginx_port, ids, rows, notes):
    started = []
    try:
        redis = start_backend(args, os.path.join(work, "redis-down"))
        redis_port = redis.port
        started.append(redis)
        ((fleet_process, replica),) = start_replicas(1, nginx_upstream(args, nginx_port, 0), redis_port, started)
        redis.kill()
        # Failed reads open the breaker; then requests skip Redis.
        deadline = time.monotonic() + 10
        n = 0
        while metrics(replica).get("product_details_redis_breaker_state") != 1:
            if time.monotonic() > deadline:
                raise RuntimeError("redis-down: the breaker did not open after Redis was killed")
            get(f"http://127.0.0.1:{replica}/products/{ids[n % len(ids)]}")
            n += 1
        _, headers, _ = get(f"http://127.0.0.1:{replica}/products/{ids[0]}")
        bypass = headers.get("Cache-Status", "")
        single, single_port = start_service(nginx_upstream(args, nginx_port, 0))
        started.append(single)
        script = lua_paths(work, "redis-down.lua", [f"/products/{p}" for p in ids])
        before = metrics(replica)
        down, alone = alternate([(fleet_process, f"http://127.0.0.1:{replica}", script),
                                 (single, f"http://127.0.0.1:{single_port}", script)], args.duration, args.rounds)
        after = metrics(replica)
    finally:
        for process in reversed(started):
            process.stop()

    commands, reads, transitions = (changes(before, after, family) for family in (
        "product_details_redis_commands_total", "product_details_l2_reads_total",
        "product_details_redis_breaker_transitions_total"))
    ratio = down["rps"] / alone["rps"]
    rows.append(row("redis-down: uncached, Redis killed, breaker open (c64)", down,
                    f"{ratio:.2f}x single node's pages/s; Cache-Status {bypass!r}"))
    rows.append(row("redis-down: uncached, single node (c64)", alone, "the same settings without REDIS_URL"))
    notes.append(f"redis-down: {ratio:.2f}x single node's pages per second (aim: within 10%, {verdict(ratio >= 0.9)}); "
                 f"{n} requests opened the breaker; during the turns Redis commands {listing(commands)}, "
                 f"L2 reads {listing(reads)}, breaker transitions {listing(transitions)}, state at the end "
                 f"{after.get('product_details_redis_breaker_state', float('nan')):.0f}")


def run(scenarios, args, work, nginx_port, stub_port, ids):
    """Runs the fleet scenarios named in `scenarios` on each backend of `args.fleet_backend`
    (default: single), each stopping what it started; returns (table rows, notes, failed, the
    backends side by side: table rows, empty with the single backend alone). A scenario that fails
    is a note, and the others still run."""
    backends = getattr(args, "fleet_backend", "single").split(",")
    unknown = set(backends) - {"single", "cluster"}
    if unknown:
        raise ValueError(f"unknown fleet backend(s) {', '.join(sorted(unknown))}: single, cluster")
    rows, notes = [], []
    failed = False
    figures = {}
    for backend in backends:
        label = "" if backend == "single" else f"{backend}: "
        folder = work if backend == "single" else os.path.join(work, backend)
        os.makedirs(folder, exist_ok=True)
        own = argparse.Namespace(**{**vars(args), "backend": backend, "figures": {}})
        figures[backend] = own.figures
        backend_rows, backend_notes = [], []
        runs = {"l2": lambda: l2_scenario(own, folder, nginx_port, ids, backend_rows, backend_notes),
                "fleet-herd": lambda: fleet_herd_scenario(own, folder, backend_rows, backend_notes),
                "invalidation": lambda: invalidation_scenario(own, folder, stub_port, backend_rows, backend_notes),
                "dependent": lambda: dependent_scenario(own, folder, backend_rows, backend_notes),
                "bulk": lambda: bulk_scenario(own, folder, backend_rows, backend_notes),
                "redis-down": lambda: redis_down_scenario(own, folder, nginx_port, ids, backend_rows, backend_notes)}
        for name in FLEET_SCENARIOS:
            if name in scenarios:
                try:
                    runs[name]()
                except Exception as error:
                    backend_notes.append(f"{name}: FAILED: {error!r}")
                    failed = True
        rows += [f"| {label}{line[2:]}" for line in backend_rows]
        notes += [f"{label}{note}" for note in backend_notes]
    comparison = []
    if backends != ["single"]:
        names = []
        for backend in backends:
            names += [name for name in figures[backend] if name not in names]
        comparison = [f"| {name} | " + " | ".join(figures[b].get(name, "-") for b in backends) + " |" for name in names]
    return rows, notes, failed, comparison


def redis_version():
    try:
        out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout
        return re.search(r"v=(\S+)", out).group(1)
    except Exception:
        return "?"
