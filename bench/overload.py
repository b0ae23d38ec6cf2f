#!/usr/bin/env python3
"""Overload (issue 51): uncached pages offered open-loop beyond what the upstream can serve, and
cached pages beside them (`make bench-overload`; run by hand, not part of `make test`).

Builds nothing Swift: it runs the release binaries ($BUILD_DIR/release, BUILD_DIR defaults to
.build; `make bench-overload` builds them first). It compiles bench/openloop.c, the open-loop load
generator (Poisson arrivals at a constant mean rate, latency from each request's scheduled send
time, a client time-out of BENCH_CLIENT_TIMEOUT_MS, 5,000, up to 4,000 connections per
generator), with gcc into $BUILD_DIR/bench-overload/.

One catalog-stub for the whole run with STUB_WORKERS=16 STUB_SERVICE_MS=20: each route (product,
reviews, suggested) has 16 workers of 20 ms and a FIFO queue, and like a thread-pool backend it
finishes work whose caller has gone, so it serves 800 pages a second. Its CATALOG_SIZE is
10,000,000 (the catalog is computed when asked, so its size costs nothing) and every uncached
page asks an id no earlier request of the run asked. For each scenario a fresh product-details
with its documented defaults, given only UPSTREAM_URL, HOST=127.0.0.1, PORT=0 (read back from
its start-up line), GLIBC_TUNABLES as the Dockerfile sets it, and its log (LOG_LEVEL's default,
a line per request) in a file; KEY=VALUE arguments add to its environment.

Each row offers its load for BENCH_WARMUP_SECONDS (5) and then BENCH_SECONDS (20): the generator
sends from its start at the row's rate and leaves out of every figure the requests scheduled
during the warm-up, and the stub's counters are read at the warm-up's end and again once the
generators are done and the stub's queues are empty. Rows (--only picks some):

  0.5x        400 uncached pages/s
  2x          1,600 uncached pages/s
  4x          3,200 uncached pages/s
  4x-cached   3,200 uncached pages/s, and from a second generator process 3,200 cached
              pages/s: 1,000 ids loaded before the row, asked again in a loop
  slow-first  a fresh service, the stub's products route making the first call of every 20th
              product 800 ms slow (slowFirstEvery); the first 200 uncached pages, offered at
              400/s, numbered as on a fresh catalog (the 20th is the first slow one): their
              p99 and product calls at the stub beyond one per page

A row prints: offered, complete pages/s (a 200 whose JSON has no "missing" member) and their
p50/p99, the other answers by status, partial pages, 503s with Retry-After (share) and their p99,
client time-outs, and the stub's work for callers that had gone (served after the caller's
connection closed) as a share of all it served; then the generator's own figures (achieved send
rate, send lag, its CPU, connections) and the service's /metrics lines starting with
product_details_upstream_concurrency_limit or product_details_load_admission, if it has any.
Then a PASS/FAIL line per aim of issue 51's "What done means":

  0.5x        >= 97% of the answers complete pages, their p99 <= 150 ms
  2x, 4x      >= 680 complete pages/s, their p99 <= 300 ms; every other answer a 503 with
              Retry-After, their p99 <= 50 ms; no client time-out; gone work <= 5%
  4x-cached   every cached answer a 200, p99 <= 20 ms
  slow-first  all 200 pages 200, p99 <= 250 ms, product calls <= 15% over one per page

--verify-generator instead checks the generator itself: against a catalog-stub with no workers
(answers in well under a millisecond), alone, it offers 3,200 and then 6,400 requests a second
for BENCH_SECONDS each (after the warm-up), and passes when the achieved send rate is within 2%
of the offered rate (the Poisson count of a 20 s row has a spread of about 0.4%); it prints the
send lag and the generator's own CPU.

Usage: bench/overload.py [--only NAME,...] [--verify-generator] [KEY=VALUE ...]
Exits 0 when every aim of the rows run was met, 1 otherwise. Two cores carry the service, the
stub and the generators at once, so figures move between runs; the header gives the load and
each row the hypervisor's steal.
"""
import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# soak.py's process and HTTP helpers (gray.py does the same); bench/ is on the path already.
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from soak import BIN, BUILD_DIR, Child, call

SECONDS = float(os.environ.get("BENCH_SECONDS", "20"))
WARMUP = float(os.environ.get("BENCH_WARMUP_SECONDS", "5"))
CLIENT_TIMEOUT_MS = int(os.environ.get("BENCH_CLIENT_TIMEOUT_MS", "5000"))
MAX_CONNECTIONS = 4000
CATALOG_SIZE = 10_000_000
WORKERS, SERVICE_MS = 16, 20
CAPACITY = WORKERS * 1000 // SERVICE_MS  # pages a second: each page takes one worker per route
CACHED_IDS = 1000
SLOW_FIRST_PAGES = 200
METRIC_PREFIXES = ("product_details_upstream_concurrency_limit", "product_details_load_admission")
SCENARIOS = ("0.5x", "2x", "4x", "4x-cached", "slow-first")
GENERATOR_SOURCE = os.path.join(ROOT, "bench", "openloop.c")
GENERATOR = os.path.join(BUILD_DIR if os.path.isabs(BUILD_DIR) else os.path.join(ROOT, BUILD_DIR),
                         "bench-overload", "openloop")


def build_generator():
    """Compiles bench/openloop.c unless the binary is newer than the source."""
    if os.path.exists(GENERATOR) and os.path.getmtime(GENERATOR) >= os.path.getmtime(GENERATOR_SOURCE):
        return
    os.makedirs(os.path.dirname(GENERATOR), exist_ok=True)
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", GENERATOR, GENERATOR_SOURCE, "-lm"], check=True)


class Ids:
    """Blocks of product numbers never handed out before in this run."""

    def __init__(self):
        self.next = 1

    def take(self, count, align=1):
        """`count` numbers from one that is 1 more than a multiple of `align`."""
        self.next += (1 - self.next) % align
        if self.next + count - 1 > CATALOG_SIZE:
            raise RuntimeError(f"the stub's catalog has only {CATALOG_SIZE} products")
        first = self.next
        self.next += count
        return first


def block_for(rate, requests=None):
    """Numbers enough for a generator at `rate` over the warm-up and the row, with room for the
    Poisson count's spread (its standard deviation is about 0.5% of a row)."""
    return requests if requests else int(rate * (WARMUP + SECONDS) * 1.2) + 1000


class Generator:
    """One openloop process; `result()` waits for its JSON line."""

    def __init__(self, label, port, rate, first, *, cycle=0, requests=None, warmup=WARMUP, seed=1):
        argv = [GENERATOR, "--port", str(port), "--rate", str(rate), "--label", label,
                "--timeout-ms", str(CLIENT_TIMEOUT_MS), "--max-connections", str(MAX_CONNECTIONS),
                "--prefix", "/products/p", "--first", str(first), "--seed", str(seed)]
        argv += ["--cycle", str(cycle)] if cycle else []
        argv += ["--requests", str(requests)] if requests else ["--seconds", str(SECONDS), "--warmup", str(warmup)]
        self.label = label
        self.popen = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)

    def result(self):
        out, err = self.popen.communicate()
        if self.popen.returncode != 0:
            raise RuntimeError(f"generator {self.label} exited {self.popen.returncode}: {err.decode(errors='replace')[-400:]}")
        return json.loads(out.decode().strip().splitlines()[-1])

    def stop(self):
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait()


def cpu_ticks():
    """(steal, total) jiffies of all CPUs so far, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return fields[7] if len(fields) > 7 else 0, sum(fields[:8])


def process_cpu_seconds(pid):
    """utime + stime of a process so far."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


class Bench:
    """The stub, the scratch folder, the generators and the services of the rows."""

    def __init__(self, directory, extra_env):
        self.directory, self.extra_env = directory, extra_env
        self.children, self.generators = [], []
        self.ids = Ids()
        self.stub = None

    def start(self, name, binary, env, marker):
        child = Child(name, [os.path.join(BIN, binary)], {"HOST": "127.0.0.1", "PORT": "0", **env}, self.directory)
        self.children.append(child)
        child.port = int(child.wait_for_line(marker)["port"])
        return child

    def start_stub(self):
        self.stub = self.start("catalog-stub", "catalog-stub", {
            "CATALOG_SIZE": str(CATALOG_SIZE), "STUB_WORKERS": str(WORKERS), "STUB_SERVICE_MS": str(SERVICE_MS)},
            "catalog-stub listening")
        line = self.stub.wait_for_line("catalog-stub listening")
        if line.get("workers") != WORKERS or line.get("serviceMs") != SERVICE_MS:
            raise RuntimeError(f"this catalog-stub has no worker pools (its start-up line: {line}); rebuild it")

    def service(self, name):
        return self.start(f"product-details-{name}", "product-details", {
            "UPSTREAM_URL": f"http://127.0.0.1:{self.stub.port}",
            # As the Dockerfile sets it (Sources/App/AllocatorTuning.swift).
            "GLIBC_TUNABLES": "glibc.malloc.tcache_count=128", **self.extra_env}, "listening")

    def generator(self, *args, **kwargs):
        generator = Generator(*args, **kwargs)
        self.generators.append(generator)
        return generator

    def stop_services(self):
        for generator in self.generators:
            generator.stop()
        self.generators.clear()
        for child in reversed(self.children):
            if child is not self.stub:
                child.stop()
        self.children = [child for child in self.children if child is self.stub]

    def stop_all(self):
        self.stop_services()
        for child in reversed(self.children):
            child.stop()
        self.children.clear()

    def stub_stats(self):
        status, body = call(self.stub.port, "GET", "/stats")
        if status != 200:
            raise RuntimeError(f"the stub's /stats answered {status}")
        return json.loads(body)

    def wait_for_idle_stub(self, limit=60):
        """Until no route of the stub has a request on a worker or in its queue."""
        deadline = time.monotonic() + limit
        while True:
            stats = self.stub_stats()
            pools = stats["workers"].values()
            if all(p["busy"] == 0 and p["queued"] == 0 for p in pools):
                return stats
            if time.monotonic() > deadline:
                raise RuntimeError(f"the stub's queues did not empty in {limit} s: {stats['workers']}")
            time.sleep(0.05)

    def fault(self, route, plan):
        status, body = call(self.stub.port, "PUT", f"/control/faults/{route}", json.dumps(plan),
                            {"Content-Type": "application/json"})
        if status != 204:
            raise RuntimeError(f"the stub refused {plan} on {route}: {status} {body.decode(errors='replace')}")

    def clear_faults(self):
        call(self.stub.port, "DELETE", "/control/faults")


def service_metrics(port):
    """The /metrics lines of the new overload series, if the service has them."""
    try:
        status, body = call(port, "GET", "/metrics")
    except OSError:
        return []
    if status != 200:
        return []
    return [line for line in body.decode(errors="replace").splitlines() if line.startswith(METRIC_PREFIXES)]


def gone_share(before, after):
    """Work the stub did for callers that had gone, and all it served, between two /stats."""
    served = sum(after["workers"][r]["served"] - before["workers"][r]["served"] for r in after["workers"])
    gone = sum(after["workers"][r]["servedForGone"] - before["workers"][r]["servedForGone"] for r in after["workers"])
    return gone, served


class Row:
    """One generator's figures in the row's terms."""

    def __init__(self, result):
        self.r = result
        kinds = result["kinds"]
        self.seconds = result["seconds"] or float("nan")
        self.answers = sum(kinds.values())
        self.complete = kinds["complete"]
        self.partial = kinds["partial"]
        self.timeouts = kinds["timeout"]
        self.errors = kinds["error"]
        self.n503 = kinds["503"]
        self.with_ra = result["retry_after"]["with"]
        self.complete_rate = self.complete / self.seconds
        lat = result["latency_ms"]
        self.complete_p50, self.complete_p99 = lat["complete"]["p50"], lat["complete"]["p99"]
        self.p503 = lat["503"]["p99"]
        self.all_p99 = lat["all"]["p99"]
        # Everything that is not a complete page, by status; time-outs and errors apart.
        self.others = {s: n for s, n in result["statuses"].items() if s != "200"}
        self.other_count = self.answers - self.complete

    def other_text(self):
        parts = [f"{n} x {s}" for s, n in sorted(self.others.items())]
        if self.partial:
            parts.append(f"{self.partial} partial 200")
        if self.errors:
            parts.append(f"{self.errors} client errors {self.r['errors']}")
        return ", ".join(parts) or "none"

    def ra_text(self):
        if not self.n503:
            return "-"
        return f"{self.with_ra / self.n503:.0%} with Retry-After, p99 {self.p503:.0f} ms"

    def generator_text(self):
        r = self.r
        c = r["connections"]
        return (f"{r['label']}: scheduled {r['scheduled_rate']:.0f}/s, sent {r['send_rate']:.0f}/s (offered "
                f"{r['offered_rate']:.0f}), send lag p99 {r['send_lag_ms']['p99']:.2f} ms max {r['send_lag_ms']['max']:.1f}; "
                f"CPU {r['cpu']['share']:.1%} of a core; connections opened {c['opened']}, at most {c['max_open']} open, "
                f"cap {c['cap']} hit {c['cap_hits']} times; unfinished {r['unfinished']}")


def fmt_ms(value):
    return "-" if value < 0 else f"{value:.1f}" if value < 10 else f"{value:.0f}"


def run_rows(bench, name, rate, cached_rate=0):
    """A row at `rate` uncached pages a second (and `cached_rate` cached ones beside them)."""
    service = bench.service(name)
    cached_first = None
    if cached_rate:
        cached_first = bench.ids.take(CACHED_IDS)
        load = bench.generator("load", service.port, CAPACITY // 2, cached_first, requests=CACHED_IDS, seed=7).result()
        if load["kinds"]["complete"] + load["kinds"]["partial"] != CACHED_IDS:
            raise RuntimeError(f"loading the cached set: {load['statuses']}, {load['kinds']}")
        bench.wait_for_idle_stub()
    steal_before, total_before = cpu_ticks()
    cpu_before = {c.name: process_cpu_seconds(c.pid) for c in (service, bench.stub)}
    first = bench.ids.take(block_for(rate))
    generators = [bench.generator("uncached", service.port, rate, first, seed=11)]
    if cached_rate:
        generators.append(bench.generator("cached", service.port, cached_rate, cached_first, cycle=CACHED_IDS, seed=13))
    started = time.monotonic()
    time.sleep(max(0.0, WARMUP - (time.monotonic() - started)))
    before = bench.stub_stats()
    results = [g.result() for g in generators]
    after = bench.wait_for_idle_stub()
    steal_after, total_after = cpu_ticks()
    cpu = {c.name: process_cpu_seconds(c.pid) - cpu_before[c.name] for c in (service, bench.stub)}
    elapsed = time.monotonic() - started
    return {"rows": [Row(r) for r in results], "gone": gone_share(before, after), "metrics": service_metrics(service.port),
            "steal": (steal_after - steal_before) / max(1, total_after - total_before),
            "cpu": {k: v / elapsed for k, v in cpu.items()}}


def slow_first(bench):
    service = bench.service("slow-first")
    bench.fault("product", {"slowFirstEvery": 20, "slowFirstMs": 800})
    # As after a start on a fresh catalog (p1, p2, ...): the 20th page is the first slow one,
    # with 19 samples taken before it.
    first = bench.ids.take(SLOW_FIRST_PAGES, align=20)
    before = bench.wait_for_idle_stub()
    result = bench.generator("slow-first", service.port, CAPACITY // 2, first, requests=SLOW_FIRST_PAGES, seed=17).result()
    after = bench.wait_for_idle_stub()
    bench.clear_faults()
    calls = after["requests"]["product"] - before["requests"]["product"]
    slowed = after.get("slowFirstCalls", 0) - before.get("slowFirstCalls", 0)
    return {"rows": [Row(result)], "gone": gone_share(before, after), "metrics": service_metrics(service.port),
            "calls": calls, "slowed": slowed}


def print_row(name, offered, row, gone, rate=True):
    gone_n, served = gone
    share = f"{gone_n / served:.1%} ({gone_n} of {served})" if served else "-"
    print(f"| {name} | {offered} | {f'{row.complete_rate:.0f}' if rate else f'{row.complete} pages'} | "
          f"{fmt_ms(row.complete_p50)} / {fmt_ms(row.complete_p99)} ms | "
          f"{row.other_text()} | {row.ra_text()} | {row.timeouts} | {share} |", flush=True)


def aims_for(name, outcome):
    """(aim, figures, met) for each aim of the row."""
    rows, (gone, served) = outcome["rows"], outcome["gone"]
    row = rows[0]
    gone_share_value = gone / served if served else 0.0
    if name == "0.5x":
        share = row.complete / row.answers if row.answers else 0
        return [("0.5x: >= 97% complete pages, their p99 <= 150 ms",
                 f"{share:.1%} complete, p99 {fmt_ms(row.complete_p99)} ms",
                 share >= 0.97 and 0 <= row.complete_p99 <= 150)]
    if name in ("2x", "4x"):
        others_ok = row.other_count == row.n503 and row.with_ra == row.n503
        return [
            (f"{name}: >= {CAPACITY * 85 // 100} complete pages/s, their p99 <= 300 ms",
             f"{row.complete_rate:.0f}/s, p99 {fmt_ms(row.complete_p99)} ms",
             row.complete_rate >= CAPACITY * 0.85 and 0 <= row.complete_p99 <= 300),
            (f"{name}: every other answer a 503 with Retry-After, their p99 <= 50 ms",
             f"{row.other_count} others: {row.other_text()}; {row.ra_text()}",
             others_ok and (row.n503 == 0 or row.p503 <= 50)),
            (f"{name}: no client time-out", f"{row.timeouts} time-outs", row.timeouts == 0),
            (f"{name}: upstream work for callers that had gone <= 5%", f"{gone_share_value:.1%} ({gone} of {served})",
             gone_share_value <= 0.05),
        ]
    if name == "4x-cached":
        cached = rows[1]
        all_200 = cached.answers > 0 and cached.r["statuses"].get("200", 0) == cached.answers
        return [("4x-cached: every cached answer a 200, p99 <= 20 ms",
                 f"{cached.r['statuses']} of {cached.answers} answers, time-outs {cached.timeouts}, p99 {cached.all_p99:.1f} ms",
                 all_200 and 0 <= cached.all_p99 <= 20)]
    if name == "slow-first":
        extra = (outcome["calls"] - SLOW_FIRST_PAGES) / SLOW_FIRST_PAGES
        ok = row.r["statuses"].get("200", 0)
        return [("slow-first: p99 <= 250 ms, <= 15% extra product calls",
                 f"{ok} of {SLOW_FIRST_PAGES} 200, p99 {row.all_p99:.0f} ms, {outcome['calls']} product calls "
                 f"({extra:+.1%}), {outcome['slowed']} slowed",
                 ok == SLOW_FIRST_PAGES and row.answers == SLOW_FIRST_PAGES and row.all_p99 <= 250 and extra <= 0.15
                 and outcome["slowed"] > 0)]
    return []


def verify_generator(bench):
    """The generator against a stub with no workers: (aim, figures, met) per rate."""
    stub = bench.start("catalog-stub-alone", "catalog-stub", {"CATALOG_SIZE": str(CATALOG_SIZE)}, "catalog-stub listening")
    verdicts = []
    try:
        for rate in (CAPACITY * 4, CAPACITY * 8):
            result = bench.generator(f"alone-{rate}", stub.port, rate, bench.ids.take(block_for(rate)), seed=rate).result()
            row = Row(result)
            print(row.generator_text())
            print(f"  answers: {result['statuses']}, p50 {result['latency_ms']['all']['p50']:.2f} ms, "
                  f"p99 {result['latency_ms']['all']['p99']:.2f} ms, time-outs {row.timeouts}, errors {result['errors']}",
                  flush=True)
            off = result["send_rate"] / rate - 1
            verdicts.append((f"generator at {rate}/s against the stub alone: sent within 2% of offered",
                             f"sent {result['send_rate']:.0f}/s ({off:+.2%}; scheduled {result['scheduled_rate']:.0f}/s), "
                             f"CPU {result['cpu']['share']:.1%} of a core", abs(off) <= 0.02 and row.timeouts == 0))
    finally:
        bench.children.remove(stub)
        stub.stop()
    return verdicts


RATES = {"0.5x": CAPACITY // 2, "2x": CAPACITY * 2, "4x": CAPACITY * 4, "4x-cached": CAPACITY * 4}


def commit():
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown (no git)"
    return (head or "unknown") + (" with uncommitted changes" if dirty else "")


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(1, f"overload.py: {message}\n")


def main():
    parser = Parser(description="Overload rows against the release build (see the module's text).")
    parser.add_argument("--only", default=",".join(SCENARIOS), help="rows to run, comma-separated")
    parser.add_argument("--verify-generator", action="store_true",
                        help="check the generator against the stub alone at 3,200 and 6,400 requests/s instead")
    parser.add_argument("settings", nargs="*", metavar="KEY=VALUE", help="extra service environment")
    args = parser.parse_args()
    extra_env = {}
    for setting in args.settings:
        key, sep, value = setting.partition("=")
        if not sep or not key:
            parser.error(f"not KEY=VALUE: {setting!r}")
        extra_env[key] = value
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in SCENARIOS]
    if unknown or not chosen:
        parser.error(f"unknown rows {unknown}; known: {', '.join(SCENARIOS)}")
    for binary in ("catalog-stub", "product-details"):
        if not os.access(os.path.join(BIN, binary), os.X_OK):
            print(f"overload.py: {os.path.join(BIN, binary)} is missing; run `make bench-overload` (it builds release first)",
                  file=sys.stderr)
            return 1
    build_generator()

    print(f"command: {shlex.join([sys.argv[0], *sys.argv[1:]])}")
    print(f"commit: {commit()}; binaries: {BIN}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"stub: STUB_WORKERS={WORKERS} STUB_SERVICE_MS={SERVICE_MS} (capacity {CAPACITY} pages/s), "
          f"CATALOG_SIZE={CATALOG_SIZE}; service: documented defaults"
          + ("".join(f" {k}={v}" for k, v in extra_env.items()) if extra_env else ""))
    print(f"rows: {WARMUP:g} s warm-up (not counted) + {SECONDS:g} s; client time-out {CLIENT_TIMEOUT_MS} ms, "
          f"at most {MAX_CONNECTIONS} connections per generator", flush=True)
    directory = tempfile.mkdtemp(prefix="overload-")
    bench = Bench(directory, extra_env)
    verdicts = []
    notes = []
    try:
        if args.verify_generator:
            print(f"logs in {directory}\n")
            verdicts = verify_generator(bench)
            chosen = []
        else:
            bench.start_stub()
            print(f"logs in {directory}\n")
            print("| row | offered/s | complete pages/s | their p50 / p99 | other answers | 503s | client time-outs | gone work |")
            print("|---|---|---|---|---|---|---|---|", flush=True)
        for name in chosen:
            try:
                if name == "slow-first":
                    outcome = slow_first(bench)
                    row = outcome["rows"][0]
                    print_row(name, f"{CAPACITY // 2} (first {SLOW_FIRST_PAGES} pages)", row, outcome["gone"], rate=False)
                    every = row.r["latency_ms"]["all"]
                    notes.append(f"{name}: all {every['count']} answers p50 {every['p50']:.0f} ms, p99 {every['p99']:.0f} ms, "
                                 f"max {every['max']:.0f} ms; {outcome['calls']} product calls at the stub, "
                                 f"{outcome['slowed']} slowed by it")
                    notes.append(f"{name}: {row.generator_text()}")
                else:
                    outcome = run_rows(bench, name, RATES[name], cached_rate=CAPACITY * 4 if name == "4x-cached" else 0)
                    print_row(name, RATES[name], outcome["rows"][0], outcome["gone"])
                    if len(outcome["rows"]) > 1:
                        cached = outcome["rows"][1]
                        print(f"| {name}: cached | {CAPACITY * 4} | {cached.complete_rate:.0f} | "
                              f"{fmt_ms(cached.complete_p50)} / {fmt_ms(cached.complete_p99)} ms | {cached.other_text()} | "
                              f"{cached.ra_text()} | {cached.timeouts} | - |", flush=True)
                    cpu = ", ".join(f"{k} {v:.0%}" for k, v in outcome["cpu"].items())
                    notes.append(f"{name}: steal {outcome['steal']:.1%}; CPU of a core: {cpu}")
                    notes.extend(f"{name}: {row.generator_text()}" for row in outcome["rows"])
                notes.extend(f"{name}: metric {line}" for line in outcome["metrics"])
                if not outcome["metrics"]:
                    notes.append(f"{name}: no {' or '.join(METRIC_PREFIXES)} series in /metrics")
                verdicts.extend(aims_for(name, outcome))
            except Exception as error:  # a row that cannot run is a failed aim, not a traceback
                reason = " ".join(str(error).split())[:400]
                print(f"| {name} | did not run to the end: {type(error).__name__}: {reason} |", flush=True)
                verdicts.append((f"{name}: ran", reason, False))
            finally:
                bench.stop_services()
                try:
                    bench.clear_faults()
                except (OSError, RuntimeError):
                    pass
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 1
    except Exception as error:
        print(f"overload.py: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        bench.stop_all()
    print()
    for note in notes:
        print(note)
    print()
    for aim, figures, met in verdicts:
        print(f"{'PASS' if met else 'FAIL'}  {aim}: {figures}")
    passed = sum(1 for _, _, met in verdicts if met)
    print(f"\n{passed} of {len(verdicts)} aims met")
    return 0 if verdicts and passed == len(verdicts) else 1


def interrupted(signum, frame):
    raise KeyboardInterrupt()


if __name__ == "__main__":
    # SIGTERM goes the way of Ctrl-C: through main's finally, which stops the children.
    signal.signal(signal.SIGTERM, interrupted)
    sys.exit(main())
