#!/usr/bin/env python3
"""Soak test: product-details under mixed traffic and scripted upstream faults, with its memory
watched (`make soak`; not part of `make test`).

Builds nothing: it runs the release binaries `make soak` has just built ($BUILD_DIR/release,
BUILD_DIR defaults to .build). It starts catalog-stub and product-details on 127.0.0.1 with ports
the kernel picks (PORT=0, read back from each process's JSON start-up line), then for
SOAK_SECONDS (default 60):

- SOAK_WORKERS (default 8) threads, each on one keep-alive http.client connection, send a mix of
  single pages (a hot set that hits, and ids from the whole catalog that miss and make the small
  cache evict), batches, If-None-Match revalidations, admin DELETEs of single pages, unknown ids
  (404) and invalid ids (400);
- a fault thread toggles faults on the stub (PUT /control/faults/{route}, DELETE
  /control/faults): error bursts, a latency spike beyond the attempt time-out, resets mid-body,
  a products outage, malformed bodies — each for a few seconds, with healthy time in between;
- the service's VmRSS (/proc/<pid>/status) is sampled every second.

It prints the requests by kind and status, the faults applied, the RSS curve (at the end of
warm-up = the first 20% of the run, peak, end, and the growth since warm-up) and exits 1 when:
- the service died or stopped answering;
- RSS grew more than SOAK_RSS_MARGIN_PCT (10) % + SOAK_RSS_MARGIN_MIB (8) MiB after warm-up;
- an answer is an error the faults do not explain: a 5xx is explained only while a fault was on
  or within SOAK_FAULT_GRACE (1) s after it ended (for the request's start; it may end later,
  by up to the request deadline), and a `503` with `Retry-After` (an upstream's open breaker,
  issue 27) also for the breaker's open time after that (UPSTREAM_BREAKER_OPEN_MS, set here),
  when its trial call closes it; a 4xx only for the requests built to get it;
- after the traffic stops, loads or requests are still in flight.

Everything it starts is stopped on exit (SIGTERM, then SIGKILL after 10 s).

    SOAK_SECONDS=600 make soak
"""
import collections
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_DIR = os.environ.get("BUILD_DIR", os.path.join(ROOT, ".build"))
BIN = os.path.join(BUILD_DIR if os.path.isabs(BUILD_DIR) else os.path.join(ROOT, BUILD_DIR), "release")

SECONDS = float(os.environ.get("SOAK_SECONDS", "60"))
WORKERS = int(os.environ.get("SOAK_WORKERS", "8"))
MARGIN_PCT = float(os.environ.get("SOAK_RSS_MARGIN_PCT", "10"))
MARGIN_MIB = float(os.environ.get("SOAK_RSS_MARGIN_MIB", "8"))
FAULT_GRACE = float(os.environ.get("SOAK_FAULT_GRACE", "1"))
SEED = int(os.environ.get("SOAK_SEED", "1"))
CATALOG_SIZE = 10_000
CACHE_MAX_ENTRIES = 2_000
ADMIN_TOKEN = "soak-admin-token"
REQUEST_DEADLINE_MS = 3_000
# An upstream's breaker refuses calls this long after it opens (the service's default, set
# explicitly so the two cannot drift apart), then lets one trial call through.
UPSTREAM_BREAKER_OPEN_MS = 5_000

# Faults, in rotation: (name, route, control JSON, seconds on).
FAULTS = [
    ("error burst 50% (all)", "all", {"errorRate": 0.5}, 3),
    ("latency spike 1500 ms (product)", "product", {"latencyMs": 1500}, 3),
    ("reset mid-body (all)", "all", {"reset": True}, 2),
    ("products down 503 (product)", "product", {"errorRate": 1, "errorStatus": 503}, 3),
    ("reviews errors (reviews)", "reviews", {"errorRate": 1}, 3),
    ("malformed bodies (product)", "product", {"malformed": True}, 2),
]
HEALTHY_SECONDS = 5

# Request kinds, their weights, and the statuses each may get when no fault explains more.
KINDS = [
    ("hot", 40, {200}),          # single page from a hot set: mostly hits
    ("cold", 25, {200}),         # single page from the whole catalog: misses, evictions
    ("batch", 8, {200}),         # ?ids= of 2 to 10 ids (per-item problems stay inside the 200)
    ("revalidate", 10, {200, 304}),
    ("delete", 3, {204}),
    ("unknown", 7, {404}),
    ("invalid", 5, {400}),
    ("health", 2, {200}),
]
HOT_SET = 300


class Child:
    """A process we started, its output in a file, stopped on exit."""

    def __init__(self, name, argv, env, directory):
        self.name = name
        self.log_path = os.path.join(directory, name + ".log")
        self.log = open(self.log_path, "wb")
        self.popen = subprocess.Popen(argv, env={**os.environ, **env}, stdout=self.log, stderr=subprocess.STDOUT,
                                      start_new_session=True)

    @property
    def pid(self):
        return self.popen.pid

    def alive(self):
        return self.popen.poll() is None

    def wait_for_line(self, marker, timeout=30):
        """The first JSON line of the output whose "msg" is `marker`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.log_path, "rb") as f:
                for raw in f:
                    try:
                        line = json.loads(raw)
                    except ValueError:
                        continue
                    if isinstance(line, dict) and line.get("msg") == marker:
                        return line
            if not self.alive():
                break
            time.sleep(0.02)
        raise RuntimeError(f"{self.name} did not print {marker!r}:\n{self.tail()}")

    def tail(self, lines=20):
        try:
            with open(self.log_path, "rb") as f:
                return b"".join(f.readlines()[-lines:]).decode(errors="replace")
        except OSError:
            return ""

    def stop(self):
        if self.alive():
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self.log.close()


def call(port, method, path, body=None, headers=None, timeout=5):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


class Faults:
    """Toggles stub faults and remembers when each was on (monotonic seconds)."""

    def __init__(self, stub_port):
        self.stub_port = stub_port
        self.windows = []  # [start, end or None, name]
        self.lock = threading.Lock()
        self.applied = collections.Counter()

    def set(self, name, route, plan):
        status, body = call(self.stub_port, "PUT", f"/control/faults/{route}", json.dumps(plan),
                            {"Content-Type": "application/json"})
        if status != 204:
            raise RuntimeError(f"stub refused fault {plan}: {status} {body[:200]!r}")
        with self.lock:
            self.windows.append([time.monotonic(), None, name])
        self.applied[name] += 1

    def clear(self):
        # The window closes once the stub has confirmed: every request it answers from now on is clean.
        status, _ = call(self.stub_port, "DELETE", "/control/faults")
        if status != 204:
            raise RuntimeError(f"stub refused to clear faults: {status}")
        with self.lock:
            for window in self.windows:
                if window[1] is None:
                    window[1] = time.monotonic()

    def explains(self, started, ended, breaker_open=False):
        """Whether a fault was on at some point while a request ran, or ended just before it began
        (for an open breaker's answer, up to the breaker's open time before)."""
        after = FAULT_GRACE + (UPSTREAM_BREAKER_OPEN_MS / 1000 if breaker_open else 0)
        with self.lock:
            for start, end, _ in self.windows:
                if start <= ended and (end is None or started <= end + after):
                    return True
        return False

    def run(self, stop, first_delay):
        if stop.wait(first_delay):
            return
        index = 0
        while not stop.is_set():
            name, route, plan, seconds = FAULTS[index % len(FAULTS)]
            index += 1
            self.set(name, route, plan)
            stop.wait(seconds)
            self.clear()
            if stop.wait(HEALTHY_SECONDS):
                return


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.by_kind = collections.defaultdict(collections.Counter)
        self.unexplained = []
        self.explained_errors = collections.Counter()
        self.transport_errors = []
        self.total = 0

    def record(self, kind, status, explained):
        with self.lock:
            self.total += 1
            self.by_kind[kind][status] += 1
            if explained:
                self.explained_errors[status] += 1


class Worker(threading.Thread):
    def __init__(self, index, port, faults, stats, stop, etags):
        super().__init__(daemon=True, name=f"worker-{index}")
        self.port = port
        self.faults = faults
        self.stats = stats
        self.stop = stop
        self.etags = etags
        self.random = random.Random(SEED * 1000 + index)
        self.connection = None
        self.kinds = [kind for kind, weight, _ in KINDS for _ in range(weight)]
        self.expected = {kind: statuses for kind, _, statuses in KINDS}

    def connect(self):
        if self.connection is not None:
            self.connection.close()
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)

    def request(self, kind):
        r = self.random
        headers = {}
        method = "GET"
        if kind == "hot":
            path = f"/products/p{r.randint(1, HOT_SET)}"
        elif kind == "cold":
            path = f"/products/p{r.randint(1, CATALOG_SIZE)}"
        elif kind == "batch":
            ids = [f"p{r.randint(1, CATALOG_SIZE)}" for _ in range(r.randint(2, 10))]
            path = "/products?ids=" + ",".join(ids)
        elif kind == "revalidate":
            known = self.etags.get(r.randint(1, HOT_SET))
            product = r.randint(1, HOT_SET)
            if known:
                product, etag = known
                headers["If-None-Match"] = etag
            path = f"/products/p{product}"
        elif kind == "delete":
            method = "DELETE"
            path = f"/cache/products/p{r.randint(1, CATALOG_SIZE)}"
            headers["Authorization"] = f"Bearer {ADMIN_TOKEN}"
        elif kind == "unknown":
            path = f"/products/p{r.randint(CATALOG_SIZE + 1, CATALOG_SIZE * 100)}"
        elif kind == "invalid":
            path = "/products/" + r.choice(["bad!", "p.1", "a%20b", "x" * 65, "%2e%2e"])
        else:
            path = "/healthz"
        return method, path, headers

    def run(self):
        self.connect()
        while not self.stop.is_set():
            kind = self.random.choice(self.kinds)
            method, path, headers = self.request(kind)
            started = time.monotonic()
            try:
                self.connection.request(method, path, headers=headers)
                response = self.connection.getresponse()
                body = response.read()
                status = response.status
                etag = response.getheader("ETag")
                breaker_open = status == 503 and response.getheader("Retry-After") is not None
                will_close = response.will_close
            except (OSError, http.client.HTTPException) as error:
                ended = time.monotonic()
                with self.stats.lock:
                    self.stats.transport_errors.append(f"{method} {path}: {error!r}")
                self.connect()
                continue
            ended = time.monotonic()
            if will_close:
                self.connect()
            if status == 200 and etag and path.startswith("/products/p") and kind in ("hot", "revalidate"):
                number = int(path.rsplit("p", 1)[1])
                self.etags[number] = (number, etag)
            if status in self.expected[kind]:
                self.stats.record(kind, status, False)
                continue
            # 5xx (and for pages that load, a 404 cannot come from a fault): only a fault explains it.
            explained = status >= 500 and kind not in ("invalid", "health") and self.faults.explains(started, ended, breaker_open)
            self.stats.record(kind, status, explained)
            if not explained:
                with self.stats.lock:
                    self.stats.unexplained.append(
                        f"{method} {path} -> {status} at {started - T0:.1f}s..{ended - T0:.1f}s {body[:160]!r}")


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def metrics(port):
    status, body = call(port, "GET", "/metrics")
    values = {}
    if status != 200:
        return values
    for line in body.decode().splitlines():
        if line.startswith("#") or " " not in line:
            continue
        name, value = line.rsplit(" ", 1)
        try:
            values[name] = float(value)
        except ValueError:
            pass
    return values


def metric_sum(values, prefix):
    return sum(v for k, v in values.items() if k == prefix or k.startswith(prefix + "{"))


T0 = time.monotonic()


def main():
    global T0
    for binary in ("catalog-stub", "product-details"):
        if not os.access(os.path.join(BIN, binary), os.X_OK):
            print(f"soak: {os.path.join(BIN, binary)} is missing; run `make soak` (it builds release first)",
                  file=sys.stderr)
            return 2
    directory = tempfile.mkdtemp(prefix="soak-")
    children = []
    failures = []
    stop = threading.Event()
    threads = []
    try:
        stub = Child("catalog-stub", [os.path.join(BIN, "catalog-stub")],
                     {"HOST": "127.0.0.1", "PORT": "0", "STUB_LATENCY_MS": "2", "CATALOG_SIZE": str(CATALOG_SIZE)},
                     directory)
        children.append(stub)
        stub_port = int(stub.wait_for_line("catalog-stub listening")["port"])
        service = Child("product-details", [os.path.join(BIN, "product-details")], {
            "HOST": "127.0.0.1", "PORT": "0", "UPSTREAM_URL": f"http://127.0.0.1:{stub_port}",
            "CACHE_MAX_ENTRIES": str(CACHE_MAX_ENTRIES), "LOG_LEVEL": "warn", "ADMIN_TOKEN": ADMIN_TOKEN,
            "REQUEST_DEADLINE_MS": str(REQUEST_DEADLINE_MS), "SHUTDOWN_GRACE_SECONDS": "2",
            "UPSTREAM_BREAKER_OPEN_MS": str(UPSTREAM_BREAKER_OPEN_MS),
            # As the Dockerfile sets it (Sources/App/AllocatorTuning.swift).
            "GLIBC_TUNABLES": "glibc.malloc.tcache_count=128",
        }, directory)
        children.append(service)
        port = int(service.wait_for_line("listening")["port"])
        if call(port, "GET", "/readyz")[0] != 200:
            raise RuntimeError("the service is not ready")
        print(f"soak: {SECONDS:.0f}s, {WORKERS} workers; service pid {service.pid} on :{port}, "
              f"stub on :{stub_port}; logs in {directory}", flush=True)

        faults = Faults(stub_port)
        stats = Stats()
        etags = {}
        samples = []  # (seconds since start, RSS KiB)
        T0 = time.monotonic()
        warm_up = SECONDS * 0.2
        threads = [Worker(i, port, faults, stats, stop, etags) for i in range(WORKERS)]
        fault_thread = threading.Thread(target=faults.run, args=(stop, min(warm_up, 10.0)), daemon=True)
        for thread in threads + [fault_thread]:
            thread.start()
        threads.append(fault_thread)

        next_report = 10.0
        while True:
            now = time.monotonic() - T0
            if now >= SECONDS:
                break
            if not service.alive():
                failures.append(f"the service died (exit {service.popen.returncode}):\n{service.tail()}")
                break
            rss = rss_kib(service.pid)
            if rss is not None:
                samples.append((now, rss))
            if now >= next_report:
                with stats.lock:
                    total = stats.total
                print(f"  {now:5.0f}s  {total:8d} requests  RSS {rss / 1024 if rss else 0:6.1f} MiB", flush=True)
                next_report += 10.0
            time.sleep(max(0.0, 1.0 - (time.monotonic() - T0 - now)))
        stop.set()
        for thread in threads:
            thread.join(timeout=20)
        elapsed = time.monotonic() - T0
        try:
            faults.clear()
        except (OSError, RuntimeError):
            pass

        # After the traffic: nothing may stay in flight.
        quiet = None
        if service.alive():
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                values = metrics(port)
                loads = values.get("product_details_inflight_loads", -1)
                requests = values.get("product_details_inflight_requests", -1)
                if loads == 0 and requests <= 1:
                    quiet = values
                    break
                time.sleep(0.2)
            if quiet is None:
                failures.append(f"after the traffic stopped: inflight_loads={loads}, inflight_requests={requests}")
            if call(port, "GET", "/healthz")[0] != 200:
                failures.append("/healthz is not 200 after the run")
        elif not any("died" in f for f in failures):
            failures.append(f"the service died (exit {service.popen.returncode}):\n{service.tail()}")

        # Report.
        print()
        print(f"requests: {stats.total} in {elapsed:.0f}s ({stats.total / max(elapsed, 1e-9):.0f}/s)")
        statuses = collections.Counter()
        for counter in stats.by_kind.values():
            statuses.update(counter)
        print("by status: " + ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items())))
        print("by kind:")
        for kind, _, _ in KINDS:
            counter = stats.by_kind.get(kind, {})
            print(f"  {kind:<10} " + ", ".join(f"{s}: {n}" for s, n in sorted(counter.items())))
        print("errors explained by a fault: "
              + (", ".join(f"{s}: {n}" for s, n in sorted(stats.explained_errors.items())) or "none"))
        print("faults applied: " + ", ".join(f"{name} ×{n}" for name, n in faults.applied.items()))
        if quiet:
            print("service metrics: "
                  f"cache_entries={quiet.get('product_details_cache_entries', 0):.0f}, "
                  f"evictions={metric_sum(quiet, 'product_details_cache_evictions_total'):.0f}, "
                  f"loads={quiet.get('product_details_loads_total', 0):.0f}, "
                  f"upstream_retries={metric_sum(quiet, 'product_details_upstream_retries_total'):.0f}, "
                  f"retry_budget_exhausted={metric_sum(quiet, 'product_details_retry_budget_exhausted_total'):.0f}, "
                  f"open_connections={quiet.get('product_details_open_connections', 0):.0f}")

        if samples:
            after_warm_up = [rss for t, rss in samples if t >= warm_up]
            start = after_warm_up[0] if after_warm_up else samples[-1][1]
            peak = max(rss for _, rss in samples)
            end = samples[-1][1]
            growth = end - start
            allowed = start * MARGIN_PCT / 100 + MARGIN_MIB * 1024
            mib = lambda kib: kib / 1024
            print(f"RSS: first {mib(samples[0][1]):.1f} MiB, after warm-up ({warm_up:.0f}s) {mib(start):.1f} MiB, "
                  f"peak {mib(peak):.1f} MiB, end {mib(end):.1f} MiB; growth since warm-up "
                  f"{mib(growth):+.1f} MiB (allowed {mib(allowed):.1f} MiB)")
            tenths = []
            for i in range(10):
                part = [rss for t, rss in samples if SECONDS * i / 10 <= t < SECONDS * (i + 1) / 10]
                if part:
                    tenths.append(f"{mib(max(part)):.0f}")
            print("RSS curve (max MiB per tenth of the run): " + " ".join(tenths))
            if growth > allowed:
                failures.append(f"RSS grew {mib(growth):.1f} MiB after warm-up (allowed {mib(allowed):.1f} MiB)")
        else:
            failures.append("no RSS sample")

        if stats.unexplained:
            failures.append(f"{len(stats.unexplained)} answers no fault explains, e.g.:\n    "
                            + "\n    ".join(stats.unexplained[:10]))
        if stats.transport_errors:
            failures.append(f"{len(stats.transport_errors)} requests failed on the wire, e.g.:\n    "
                            + "\n    ".join(stats.transport_errors[:10]))
        if stats.total == 0:
            failures.append("no request was answered")
    except KeyboardInterrupt:
        failures.append("interrupted")
    except Exception as error:  # start-up failures, a stub that refuses a fault
        failures.append(f"{error}")
    finally:
        stop.set()
        for child in reversed(children):
            child.stop()

    print()
    if failures:
        print("SOAK FAILED:")
        for failure in failures:
            print("  - " + failure)
        return 1
    print("SOAK PASSED")
    return 0


def interrupted(signum, frame):
    raise KeyboardInterrupt()


if __name__ == "__main__":
    # SIGTERM goes the way of Ctrl-C: through main's finally, which stops the children.
    signal.signal(signal.SIGTERM, interrupted)
    sys.exit(main())
