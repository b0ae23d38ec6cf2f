#!/usr/bin/env python3
"""Gray-failure scenarios (issue 27): how the service behaves when an upstream hangs, is slow only
now and then, or heals (`make bench-gray`; run by hand, not part of `make test`).

Builds nothing: it runs the release binaries ($BUILD_DIR/release, BUILD_DIR defaults to .build).
It starts one catalog-stub and, for each scenario, a fresh product-details on 127.0.0.1 with ports
the kernel picks (PORT=0, read back from each process's JSON start-up line), the service with
UPSTREAM_URL at the stub and its documented defaults UPSTREAM_TIMEOUT_MS=1000,
REQUEST_DEADLINE_MS=3000 and RETRY_ATTEMPTS=3. Every scenario asks for product ids no earlier
scenario asked for, scripts its fault at the stub (PUT /control/faults/{route}) and clears it
(DELETE /control/faults) afterwards. Everything it starts is stopped on exit.

Scenarios (aims in brackets):
  reviews-hang    reviews hang; 60 uncached pages in a row, each 200 with "reviews" in
                  `missing` [p50 <= 50 ms, none over 1,100 ms]
  product-hang    product hangs; 40 uncached pages in a row, each 503 or 504 as
                  application/problem+json [p50 <= 50 ms, none over 3,100 ms]
  product-herd    product hangs; 300 uncached pages at once, and a /healthz 0.5 s into them
                  [every page answered within 3.5 s, /healthz within 200 ms]
  stale           CACHE_TTL_SECONDS=1, STALE_IF_ERROR_SECONDS=300,
                  STALE_WHILE_REVALIDATE_SECONDS=0: 20 pages loaded, 1.5 s later product hangs
                  and the 20 are asked again, each 200 with `fwd=stale` in Cache-Status
                  [p50 <= 50 ms]
  batch           reviews hang; one GET /products?ids= of 24 uncached ids, every item a page
                  with reviews missing [<= 1,200 ms]
  reviews-heals   reviews hang; 30 failing pages (10 at a time), then
                  product_details_upstream_breaker_state{upstream="reviews"} is read; the fault
                  is cleared and new ids are asked in a row until a page is complete (no
                  `missing`) and the next 5 are too [breaker state 1; complete again within
                  15 s, the same process]
  slow-first      the stub's products route makes the first call of every 20th product 800 ms
                  slow (slowFirstEvery); 200 uncached pages in a row, each 200 [p99 <= 250 ms,
                  product calls at the stub at most 15% over one per page]

A run of pages in a row stops early once at least 10 pages were asked and the run can no longer
meet its aim (a bad answer, one over the limit, or more than half of the planned pages over the
p50 aim), since against a service that waits out the whole deadline each page takes 3 s; --full
asks them all.

Usage: bench/gray.py [--full] [--only NAME,...] [KEY=VALUE ...]
  KEY=VALUE pairs are added to (or override) every service's environment, for example
  HEDGE=off or UPSTREAM_BREAKER_OPEN_MS=2000.

Prints the command, the commit and one row per scenario with its figures and PASS or FAIL;
exits 0 when every scenario passed, 1 otherwise.
"""
import argparse
import collections
import http.client
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# soak.py's process and HTTP helpers; bench/ (fleet.py) is on the path already, as this script's
# own folder.
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from fleet import percentile
from soak import BIN, Child, call, metrics

SERVICE_DEFAULTS = {"UPSTREAM_TIMEOUT_MS": "1000", "REQUEST_DEADLINE_MS": "3000", "RETRY_ATTEMPTS": "3"}
CATALOG_SIZE = 10_000
EARLY_STOP_AFTER = 10
SCENARIOS = ("reviews-hang", "product-hang", "product-herd", "stale", "batch", "reviews-heals", "slow-first")


class Answer:
    """One answer as the client saw it: status 0 when none came (the error says why)."""

    def __init__(self, status, headers, body, ms, error=""):
        self.status, self.headers, self.body, self.ms, self.error = status, headers, body, ms, error

    def document(self):
        try:
            value = json.loads(self.body)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def missing(self):
        return (self.document() or {}).get("missing", [])


def fetch(port, path, timeout=10.0):
    """GET `path` on a connection of its own, timed from connect to the last body byte."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        headers = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, headers, body, (time.monotonic() - started) * 1000)
    except (OSError, http.client.HTTPException) as error:
        return Answer(0, {}, b"", (time.monotonic() - started) * 1000, f"{type(error).__name__}: {error}")
    finally:
        connection.close()


class Ids:
    """Product ids never handed out before in this run, so no cache and no stub memory knows them."""

    def __init__(self):
        self.next = 1

    def take(self, count):
        if self.next + count - 1 > CATALOG_SIZE:
            raise RuntimeError(f"the demo catalog has only {CATALOG_SIZE} products")
        ids = [f"p{n}" for n in range(self.next, self.next + count)]
        self.next += count
        return ids


class Bench:
    """The stub, the scratch folder and what every scenario needs to start its service."""

    def __init__(self, directory, extra_env, full):
        self.directory, self.extra_env, self.full = directory, extra_env, full
        self.children = []
        self.ids = Ids()
        self.stub = None

    def start_stub(self):
        self.stub = self.start("catalog-stub", {"CATALOG_SIZE": str(CATALOG_SIZE)}, "catalog-stub listening")
        self.stub_port = self.stub.port

    def start(self, name, env, marker):
        binary = "catalog-stub" if name == "catalog-stub" else "product-details"
        child = Child(name, [os.path.join(BIN, binary)], {"HOST": "127.0.0.1", "PORT": "0", **env}, self.directory)
        self.children.append(child)
        child.port = int(child.wait_for_line(marker)["port"])
        return child

    def service(self, name, env=None):
        """A fresh service on the stub with the defaults, then `env`, then the command line's."""
        return self.start(f"product-details-{name}", {
            "UPSTREAM_URL": f"http://127.0.0.1:{self.stub_port}", "LOG_LEVEL": "warn",
            # As the Dockerfile sets it (Sources/App/AllocatorTuning.swift).
            "GLIBC_TUNABLES": "glibc.malloc.tcache_count=128",
            **SERVICE_DEFAULTS, **(env or {}), **self.extra_env}, "listening")

    def stop_services(self):
        """Stops every child but the stub."""
        for child in reversed(self.children):
            if child is not self.stub:
                child.stop()
        self.children = [child for child in self.children if child is self.stub]

    def stop_all(self):
        for child in reversed(self.children):
            child.stop()
        self.children.clear()

    def fault(self, route, plan):
        status, body = call(self.stub_port, "PUT", f"/control/faults/{route}", json.dumps(plan),
                            {"Content-Type": "application/json"})
        if status != 204:
            raise RuntimeError(f"the stub refused {plan} on {route}: {status} {body.decode(errors='replace')}")

    def clear_faults(self):
        status, _ = call(self.stub_port, "DELETE", "/control/faults")
        if status != 204:
            raise RuntimeError(f"the stub did not clear its faults: {status}")

    def stub_stats(self):
        status, body = call(self.stub_port, "GET", "/stats")
        if status != 200:
            raise RuntimeError(f"the stub's /stats answered {status}")
        return json.loads(body)


def in_a_row(port, paths, good, p50_ms, max_ms, full):
    """Asks `paths` one after another. Stops early (unless `full`) once at least
    EARLY_STOP_AFTER were asked and the run can no longer meet its aim: a bad answer, one over
    `max_ms`, or more than half of all the planned pages over `p50_ms` already. Not on the p50 of
    those asked so far: a breaker opens only after its first failures, so the first pages of a
    passing run are the slow ones."""
    answers = []
    for path in paths:
        answers.append(fetch(port, path))
        if full or len(answers) < EARLY_STOP_AFTER:
            continue
        if (any(not good(a) or (max_ms is not None and a.ms > max_ms) for a in answers)
                or sum(1 for a in answers if a.ms > p50_ms) > len(paths) // 2):
            break
    return answers


def timings(answers, planned):
    """p50 and max of the answers, and how many of those planned were asked."""
    times = [a.ms for a in answers]
    asked = f"stopped after {len(answers)} of {planned}, aim missed; " if len(answers) < planned else ""
    return percentile(times, 0.5), max(times), asked


def statuses(answers):
    tally = collections.Counter(a.status if a.status else "none" for a in answers)
    return ", ".join(f"{status}: {count}" for status, count in sorted(tally.items(), key=str))


def first_error(answers):
    errors = [a.error for a in answers if a.error]
    return f"; first client error: {errors[0]}" if errors else ""


def pages(ids):
    return [f"/products/{product}" for product in ids]


def reviews_hang(bench):
    service = bench.service("reviews-hang")
    bench.fault("reviews", {"hang": True})
    planned = 60
    answers = in_a_row(service.port, pages(bench.ids.take(planned)),
                       lambda a: a.status == 200 and "reviews" in a.missing(), 50, 1100, bench.full)
    good = sum(1 for a in answers if a.status == 200 and "reviews" in a.missing())
    p50, worst, asked = timings(answers, planned)
    figures = f"{asked}{good} of {len(answers)} 200 with reviews missing ({statuses(answers)}); p50 {p50:.0f} ms, max {worst:.0f} ms"
    return figures, "p50 <= 50 ms, none over 1,100 ms", len(answers) == planned and good == planned and p50 <= 50 and worst <= 1100


def is_problem(answer):
    return answer.status in (503, 504) and answer.headers.get("content-type", "").startswith("application/problem+json")


def product_hang(bench):
    service = bench.service("product-hang")
    bench.fault("product", {"hang": True})
    planned = 40
    answers = in_a_row(service.port, pages(bench.ids.take(planned)), is_problem, 50, 3100, bench.full)
    good = sum(1 for a in answers if is_problem(a))
    p50, worst, asked = timings(answers, planned)
    figures = f"{asked}{good} of {len(answers)} 503/504 problem+json ({statuses(answers)}); p50 {p50:.0f} ms, max {worst:.0f} ms"
    return figures, "p50 <= 50 ms, none over 3,100 ms", len(answers) == planned and good == planned and p50 <= 50 and worst <= 3100


def product_herd(bench):
    service = bench.service("product-herd")
    bench.fault("product", {"hang": True})
    ids = bench.ids.take(300)
    answers = [None] * len(ids)
    health = []
    ready = threading.Barrier(len(ids) + 1)

    def page(index):
        ready.wait()
        answers[index] = fetch(service.port, f"/products/{ids[index]}", timeout=10)

    def healthz():
        ready.wait()
        time.sleep(0.5)
        health.append(fetch(service.port, "/healthz", timeout=10))

    threads = [threading.Thread(target=page, args=(i,), daemon=True) for i in range(len(ids))]
    threads.append(threading.Thread(target=healthz, daemon=True))
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    whole = time.monotonic() - started
    answers = [a for a in answers if a is not None]
    answered = sum(1 for a in answers if a.status)
    worst = max((a.ms for a in answers), default=float("nan"))
    check = health[0] if health else Answer(0, {}, b"", float("nan"), "no answer")
    figures = (f"{answered} of {len(ids)} answered ({statuses(answers)}), slowest {worst:.0f} ms, all done in "
               f"{whole:.1f} s; /healthz {check.status or 'none'} in {check.ms:.0f} ms{first_error(answers)}")
    passed = answered == len(ids) and worst <= 3500 and check.status == 200 and check.ms <= 200
    return figures, "every page within 3.5 s, /healthz within 200 ms", passed


def stale(bench):
    service = bench.service("stale", {"CACHE_TTL_SECONDS": "1", "STALE_IF_ERROR_SECONDS": "300",
                                      "STALE_WHILE_REVALIDATE_SECONDS": "0"})
    paths = pages(bench.ids.take(20))
    loaded = [fetch(service.port, path) for path in paths]
    if any(a.status != 200 for a in loaded):
        raise RuntimeError(f"the healthy loads were not all 200: {statuses(loaded)}")
    time.sleep(1.5)
    bench.fault("product", {"hang": True})

    def served_stale(answer):
        return answer.status == 200 and "fwd=stale" in answer.headers.get("cache-status", "")

    answers = in_a_row(service.port, paths, served_stale, 50, None, bench.full)
    good = sum(1 for a in answers if served_stale(a))
    p50, worst, asked = timings(answers, len(paths))
    figures = f"{asked}{good} of {len(answers)} 200 with fwd=stale ({statuses(answers)}); p50 {p50:.0f} ms, max {worst:.0f} ms"
    return figures, "p50 <= 50 ms", len(answers) == len(paths) and good == len(paths) and p50 <= 50


def batch(bench):
    service = bench.service("batch")
    bench.fault("reviews", {"hang": True})
    ids = bench.ids.take(24)
    answer = fetch(service.port, "/products?ids=" + ",".join(ids), timeout=30)
    items = (answer.document() or {}).get("items", [])
    good = sum(1 for item in items if isinstance(item, dict) and "product" in item and "reviews" in item.get("missing", []))
    figures = f"{answer.status or 'no answer'} in {answer.ms:.0f} ms; {good} of {len(ids)} items pages with reviews missing{first_error([answer])}"
    return figures, "<= 1,200 ms, every item a page with reviews missing", answer.status == 200 and good == len(ids) and answer.ms <= 1200


def reviews_heals(bench):
    service = bench.service("reviews-heals")
    bench.fault("reviews", {"hang": True})
    failing = bench.ids.take(30)
    answers = []
    lock = threading.Lock()

    def worker(chunk):
        for product in chunk:
            answer = fetch(service.port, f"/products/{product}")
            with lock:
                answers.append(answer)

    threads = [threading.Thread(target=worker, args=(failing[i::10],), daemon=True) for i in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    degraded = sum(1 for a in answers if a.status == 200 and "reviews" in a.missing())
    # The pages come back after the optional part's grace, before their reviews calls time out:
    # the breaker opens when those time-outs happen (an attempt time-out later), so look for it.
    failed_at = time.monotonic()
    breaker = None
    while time.monotonic() - failed_at < 5:
        breaker = metrics(service.port).get('product_details_upstream_breaker_state{upstream="reviews"}')
        if breaker == 1:
            break
        time.sleep(0.05)
    opened_after = time.monotonic() - failed_at

    bench.clear_faults()
    healed = time.monotonic()
    asked, recovered, after = 0, None, []
    while time.monotonic() - healed < 15:
        answer = fetch(service.port, f"/products/{bench.ids.take(1)[0]}")
        asked += 1
        if answer.status == 200 and not answer.missing():
            recovered = time.monotonic() - healed
            after = [fetch(service.port, path) for path in pages(bench.ids.take(5))]
            break
        # Paced: while the breaker is open a page answers at once, and unpaced polling can use up
        # the catalog's ids before the breaker's open time ends (bench/HISTORY.md).
        time.sleep(0.02)
    complete_after = sum(1 for a in after if a.status == 200 and not a.missing())
    alive = service.alive()
    breaker_text = "absent" if breaker is None else f"{breaker:.0f} ({opened_after:.1f} s after the 30th page)"
    healed_text = (f"complete after {recovered:.1f} s ({asked} asked), the next 5: {complete_after} complete"
                   if recovered is not None else f"no complete page in 15 s ({asked} asked)")
    figures = (f"{degraded} of {len(answers)} failing pages degraded ({statuses(answers)}); breaker state "
               f"{breaker_text}; {healed_text}; {'same process' if alive else 'the service died'}")
    passed = breaker == 1 and recovered is not None and recovered <= 15 and complete_after == 5 and alive
    return figures, "breaker state 1; complete pages again within 15 s, no restart", passed


def slow_first(bench):
    service = bench.service("slow-first")
    bench.fault("product", {"slowFirstEvery": 20, "slowFirstMs": 800})
    planned = 200
    before = bench.stub_stats()
    answers = [fetch(service.port, path) for path in pages(bench.ids.take(planned))]
    after = bench.stub_stats()
    calls = after["requests"]["product"] - before["requests"]["product"]
    slowed = after.get("slowFirstCalls", 0) - before.get("slowFirstCalls", 0)
    extra = (calls - planned) / planned
    ok = sum(1 for a in answers if a.status == 200)
    p99 = percentile([a.ms for a in answers], 0.99)
    figures = (f"{ok} of {planned} 200 ({statuses(answers)}); p50 {percentile([a.ms for a in answers], 0.5):.0f} ms, "
               f"p99 {p99:.0f} ms, max {max(a.ms for a in answers):.0f} ms; {calls} product calls "
               f"({extra:+.1%}), {slowed} slowed by the stub")
    passed = ok == planned and p99 <= 250 and extra <= 0.15 and slowed > 0
    return figures, "p99 <= 250 ms, at most 15% extra product calls", passed


RUNS = {"reviews-hang": reviews_hang, "product-hang": product_hang, "product-herd": product_herd, "stale": stale,
        "batch": batch, "reviews-heals": reviews_heals, "slow-first": slow_first}


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
        self.exit(1, f"gray.py: {message}\n")


def main():
    parser = Parser(description="Gray-failure scenarios against the release build (see the module's text).")
    parser.add_argument("--full", action="store_true", help="ask every page even once a scenario's aim is missed")
    parser.add_argument("--only", default=",".join(SCENARIOS), help="scenarios to run, comma-separated")
    parser.add_argument("settings", nargs="*", metavar="KEY=VALUE", help="extra service environment")
    args = parser.parse_args()
    extra_env = {}
    for setting in args.settings:
        key, sep, value = setting.partition("=")
        if not sep or not key:
            parser.error(f"not KEY=VALUE: {setting!r}")
        extra_env[key] = value
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in RUNS]
    if unknown or not chosen:
        parser.error(f"unknown scenarios {unknown}; known: {', '.join(SCENARIOS)}")
    for binary in ("catalog-stub", "product-details"):
        if not os.access(os.path.join(BIN, binary), os.X_OK):
            print(f"gray.py: {os.path.join(BIN, binary)} is missing; run `make bench-gray` (it builds release first)",
                  file=sys.stderr)
            return 1

    print(f"command: {shlex.join([sys.argv[0], *sys.argv[1:]])}")
    print(f"commit: {commit()}; binaries: {BIN}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("service: " + " ".join(f"{k}={v}" for k, v in {**SERVICE_DEFAULTS, **extra_env}.items()), flush=True)
    directory = tempfile.mkdtemp(prefix="gray-")
    results = []
    bench = Bench(directory, extra_env, args.full)
    try:
        bench.start_stub()
        print(f"logs in {directory}\n")
        print("| scenario | figures | aim | verdict |")
        print("|---|---|---|---|", flush=True)
        for name in chosen:
            started = time.monotonic()
            try:
                figures, aim, passed = RUNS[name](bench)
            except Exception as error:  # a scenario that cannot run is a failed row, not a traceback
                # One table row: the child's log tail that an error may carry is several lines.
                reason = " ".join(str(error).split())[:400]
                figures, aim, passed = f"did not run to the end: {type(error).__name__}: {reason}", "-", False
            finally:
                bench.stop_services()
                try:
                    bench.clear_faults()
                except (OSError, RuntimeError):
                    pass
            results.append(passed)
            print(f"| {name} | {figures} ({time.monotonic() - started:.0f} s) | {aim} | {'PASS' if passed else 'FAIL'} |",
                  flush=True)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 1
    except Exception as error:
        print(f"gray.py: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        bench.stop_all()
    print(f"\n{sum(results)} of {len(chosen)} scenarios passed")
    return 0 if len(results) == len(chosen) and all(results) else 1


def interrupted(signum, frame):
    raise KeyboardInterrupt()


if __name__ == "__main__":
    # SIGTERM goes the way of Ctrl-C: through main's finally, which stops the children.
    signal.signal(signal.SIGTERM, interrupted)
    sys.exit(main())
