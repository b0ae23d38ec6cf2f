#!/usr/bin/env python3
"""Side-by-side benchmarks of product-details against nginx on this machine (not a test).

Starts everything it needs on 127.0.0.1 (ephemeral ports), runs wrk scenarios, prints one table
with requests per second, p50/p99 latency, server CPU microseconds per request and peak RSS, each
also as a ratio to the nginx ceiling measured in the same run, and stops everything it started.

Both servers get the same number of worker threads (LOOPS, default 1, against nginx's
worker_processes): wrk needs a core of its own, and a third busy thread on two cores measures the
scheduler, not the server. Throughput figures are medians of BENCH_ROUNDS short runs that
alternate between nginx and us, so a noisy neighbour hits both sides alike; a round in which the
hypervisor stole more than BENCH_MAX_STEAL (default 5%) of the CPU time is measured again.

Usage: bench/bench.py [--duration SECONDS] [--rounds N] [--loops N] [--fleet-backend single,cluster]
                      [--scenarios healthz,hot,hot-gzip,miss,fill,herd,memory,logged,stub-miss,
                                   l2,fleet-herd,invalidation,dependent,bulk,redis-down]

The binaries are $BUILD_DIR/release's (BUILD_DIR defaults to .build): `BUILD_DIR=/some/dir` with
copies of another build's product-details and catalog-stub in /some/dir/release measures that one.

The `hot-gzip` row is the hot row (100 cached ids, c64) with `Accept-Encoding: gzip` on every
request, against a second nginx serving the same gzip bytes as files beside the pages
(`gzip_static on`; each `.json.gz` is our own gzip answer for that page, made at store).
Its setup fails the run unless both sides answer each page with the same bytes and `Content-Encoding:
gzip` (identity for pages under GZIP_MIN_BYTES, 512, on both). Its note gives the bytes on the
wire: the median hot page's body and one 100-id batch's (`GET /products?ids=...`, gzipped on the
fly at level 1), identity against gzip.

The `logged` rows turn logs on for both sides: ours at LOG_LEVEL=info with standard output to a
file, nginx with its default access_log (combined format) to a file, next to the unlogged rows.

The fleet rows (l2, fleet-herd, invalidation, dependent, bulk, redis-down: bench/fleet.py) run replicas with
REDIS_URL set against a redis-server started here, and print a table of their own;
`--fleet-backend cluster` (or `single,cluster`, BENCH_FLEET_BACKEND) runs them on a loopback Redis
Cluster too, and prints the two side by side.
"""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The binaries measured: $BUILD_DIR/release (BUILD_DIR, as for scripts/soak.py and bench/gray.py,
# defaults to .build; relative to the tree). A folder holding another build's two binaries in
# release/ measures that build with this script, e.g. a build before a change against one after.
RELEASE = os.path.join(ROOT, os.environ.get("BUILD_DIR", ".build"), "release")
SERVICE = os.path.join(RELEASE, "product-details")
STUB = os.path.join(RELEASE, "catalog-stub")
# What the Dockerfile and compose.yaml give the service (Sources/App/AllocatorTuning.swift): the
# service does not set it itself, so every measurement starts it with it.
ALLOCATOR_TUNABLES = "glibc.malloc.tcache_count=128"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                r.read()
                return
        except Exception:
            time.sleep(0.05)
    raise RuntimeError(f"{url} did not come up")


def get(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as r:
        return r.status, dict(r.headers), r.read()


class Process:
    """A child process whose CPU time and peak RSS we can read."""

    def __init__(self, argv, env=None, cwd=None, stdout_path=None):
        stdout = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
        self.popen = subprocess.Popen(argv, env={**os.environ, **(env or {})}, cwd=cwd,
                                      stdout=stdout, stderr=subprocess.DEVNULL)
        if stdout_path:
            stdout.close()
        self.pids = [self.popen.pid]

    def add_children(self):
        try:
            out = subprocess.run(["pgrep", "-P", str(self.popen.pid)], capture_output=True, text=True).stdout
            self.pids = [self.popen.pid] + [int(p) for p in out.split()]
        except Exception:
            pass

    def cpu_seconds(self):
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for pid in self.pids:
            try:
                fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / tick
            except FileNotFoundError:
                pass
        return total

    def rss_kib(self, key="VmRSS"):
        total = 0
        for pid in self.pids:
            try:
                for line in open(f"/proc/{pid}/status"):
                    if line.startswith(key + ":"):
                        total += int(line.split()[1])
            except FileNotFoundError:
                pass
        return total

    def stop(self):
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


def wrk(url, connections, duration, script=None, threads=1):
    argv = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency", "--timeout", "5s"]
    if script:
        argv += ["-s", script]
    # wrk's voluntary context switches: each is wrk going to sleep until some answer arrives, and
    # then the server's next write pays for waking it (an expensive trip on this guest).
    switches_before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw
    out = subprocess.run(argv + [url], capture_output=True, text=True, timeout=duration + 60).stdout
    wrk_sleeps = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw - switches_before
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))

    def latency(label):
        m = re.search(rf"\s{label}%\s+([\d.]+)(us|ms|s)", out)
        if not m:
            return float("nan")
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value if unit == "ms" else value * 1000

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    return {"rps": rps, "requests": total, "p50": latency("50"), "p99": latency("99"),
            "wrk_sleeps": wrk_sleeps * 1000 / max(1, total),
            "non2xx": int(errors.group(1)) if errors else 0,
            "socket_errors": socket_errors.group(1) if socket_errors else ""}


def cpu_ticks():
    """(steal, total) jiffies of all CPUs so far, from /proc/stat."""
    fields = [int(v) for v in open("/proc/stat").readline().split()[1:9]]
    return fields[7], sum(fields)


def measure(process, url, connections, duration, script=None):
    """Runs wrk against `url` and attributes the server's CPU time to the requests served.

    Also notes the share of CPU time the hypervisor stole meanwhile: on a virtual machine, runs
    with a few percent of steal serve markedly less, the miss scenario most."""
    before = process.cpu_seconds()
    steal_before, total_before = cpu_ticks()
    result = wrk(url, connections, duration, script)
    after = process.cpu_seconds()
    steal_after, total_after = cpu_ticks()
    result["cpu_us"] = (after - before) * 1e6 / max(1, result["requests"])
    result["rss_mib"] = process.rss_kib("VmHWM") / 1024
    result["steal"] = (steal_after - steal_before) / max(1, total_after - total_before)
    return result


def median_of(results):
    """One result standing for several runs: the median of each figure."""
    merged = {key: statistics.median(r[key] for r in results) for key in ("rps", "p50", "p99", "cpu_us", "wrk_sleeps")}
    merged["requests"] = sum(r["requests"] for r in results)
    merged["non2xx"] = sum(r["non2xx"] for r in results)
    merged["socket_errors"] = "; ".join(r["socket_errors"] for r in results if r["socket_errors"])
    merged["rss_mib"] = max(r["rss_mib"] for r in results)
    merged["steal"] = max(r["steal"] for r in results)
    merged["p99_runs"] = [r["p99"] for r in results]
    merged["runs"] = results
    return merged


# A round in which the hypervisor stole more than this share of the CPU time is measured again
# (at most `rounds` times per row): on this guest such a round reads the host, not the servers.
MAX_STEAL = float(os.environ.get("BENCH_MAX_STEAL", "0.05"))


def alternate(sides, duration, rounds, connections=64):
    """Measures each (process, url, script) side `rounds` times with `connections` connections,
    taking turns and swapping who goes first every round; returns each side's medians. Rounds with
    more steal than MAX_STEAL are measured again, up to `rounds` times."""
    runs = [[] for _ in sides]
    repeated = 0
    round_index = 0
    while len(runs[0]) < rounds:
        order = list(range(len(sides)))
        if round_index % 2:
            order.reverse()
        round_index += 1
        results = {}
        for index in order:
            process, url, script = sides[index]
            results[index] = measure(process, url, connections, duration, script)
        if max(result["steal"] for result in results.values()) > MAX_STEAL and repeated < rounds:
            repeated += 1
            continue
        for index, result in results.items():
            runs[index].append(result)
    medians = [median_of(results) for results in runs]
    for median in medians:
        median["repeated"] = repeated
    return medians


def lua_paths(directory, name, paths, headers=None):
    """A wrk script cycling through `paths`, each request with `headers` (a dict) if given."""
    path = os.path.join(directory, name)
    fields = ", {" + ", ".join(f"[{json.dumps(k)}] = {json.dumps(v)}" for k, v in headers.items()) + "}" if headers else ""
    with open(path, "w") as f:
        f.write("paths = {" + ",".join(json.dumps(p) for p in paths) + "}\n")
        f.write(f"i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(\"GET\", paths[i]{fields})\nend\n")
    return path


def fill_script(directory, count):
    """A wrk script asking for an id never asked before on every request: `p<n>-<run>-<lap>`, n
    cycling through 1..count (the upstream export answers it with p<n>'s documents, see
    NGINX_CONF), `run` the time (in seconds) its wrk started, so no id repeats across runs."""
    path = os.path.join(directory, "fill-new.lua")
    with open(path, "w") as f:
        f.write("run = os.time()\ni = 0\nrequest = function()\n  i = i + 1\n"
                f"  return wrk.format(\"GET\", \"/products/p\" .. (i % {count} + 1) .. \"-\" .. run .. \"-\" .. math.floor(i / {count}))\n"
                "end\n")
    return path


NGINX_CONF = """
worker_processes {workers};
daemon off;
error_log {dir}/error.log warn;
pid {dir}/nginx.pid;
events {{ worker_connections 4096; }}
http {{
  log_format conn '$connection $connection_requests';
  access_log {access_log};
  open_file_cache max=20000 inactive=60s;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  {gzip}
  server {{
    listen 127.0.0.1:{port} reuseport;
    location = /healthz {{ default_type application/json; add_header Cache-Control no-store; return 200 '{{"status":"ok"}}'; }}
    location ~ ^/products/([A-Za-z0-9_-]+)$ {{ default_type application/json; alias {dir}/www/pages/$1.json; }}
    location ~ ^/upstream/products/(p[0-9]+)-[0-9-]+$ {{ default_type application/json; alias {dir}/www/product/$1.json; }}
    location ~ ^/upstream/products/(p[0-9]+)-[0-9-]+/reviews$ {{ default_type application/json; alias {dir}/www/reviews/$1.json; }}
    location ~ ^/upstream/products/(p[0-9]+)-[0-9-]+/suggested$ {{ default_type application/json; alias {dir}/www/suggested/$1.json; }}
    location ~ ^/upstream/products/([A-Za-z0-9_-]+)$ {{ default_type application/json; alias {dir}/www/product/$1.json; }}
    location ~ ^/upstream/products/([A-Za-z0-9_-]+)/reviews$ {{ default_type application/json; alias {dir}/www/reviews/$1.json; }}
    location ~ ^/upstream/products/([A-Za-z0-9_-]+)/suggested$ {{ default_type application/json; alias {dir}/www/suggested/$1.json; }}
  }}
}}
"""


def start_nginx(directory, workers=1, access_log="off", gzip_static=False):
    """nginx on `directory`'s exported files. With `gzip_static`, a client sending `Accept-Encoding:
    gzip` gets `<file>.gz` where there is one, with `Content-Encoding: gzip` and `Vary` (nginx compresses
    nothing itself: `gzip` stays off)."""
    port = free_port()
    gzip = "gzip_static on; gzip_vary on;" if gzip_static else ""
    with open(os.path.join(directory, "nginx.conf"), "w") as f:
        f.write(NGINX_CONF.format(dir=directory, port=port, access_log=access_log, workers=workers, gzip=gzip))
    process = Process(["nginx", "-c", os.path.join(directory, "nginx.conf"), "-p", directory])
    wait_until_up(f"http://127.0.0.1:{port}/healthz")
    process.add_children()
    return process, port


def start_second_nginx(work, name, workers, **options):
    """Another nginx (`start_nginx`'s `options`) on the files exported in `work`, from a folder
    `name` of its own beside them: the main one's configuration stays as every other row has it."""
    directory = os.path.join(work, name)
    os.makedirs(directory)
    os.symlink(os.path.join(work, "www"), os.path.join(directory, "www"))
    process, port = start_nginx(directory, workers=workers, **options)
    return directory, process, port


def start_service(env, binary=None, prefix=(), log_path=None):
    """Starts the service (`binary`, default this tree's release build; `prefix` such as a
    `taskset` command goes before it) on a free loopback port and waits until it answers. With
    `log_path` its standard output (the log) goes to that file."""
    port = free_port()
    process = Process([*prefix, binary or SERVICE], stdout_path=log_path, env={"HOST": "127.0.0.1", "PORT": str(port), "LOG_LEVEL": "warn",
                                                         "GLIBC_TUNABLES": ALLOCATOR_TUNABLES, **env})
    wait_until_up(f"http://127.0.0.1:{port}/healthz")
    return process, port


def start_stub(env=None, binary=None, prefix=()):
    """Starts catalog-stub like ``start_service``."""
    port = free_port()
    process = Process([*prefix, binary or STUB], env={"HOST": "127.0.0.1", "PORT": str(port), **(env or {})})
    wait_until_up(f"http://127.0.0.1:{port}/healthz")
    return process, port


def export_pages(service_port, directory, ids, gzipped=False):
    """The ceiling serves exactly the bytes our service answers. With `gzipped`, each page is asked
    for again (cached by then) with `Accept-Encoding: gzip`, and where the answer is gzip its bytes
    go beside the page as `<id>.json.gz`, for nginx's `gzip_static`; returns the ids written so."""
    os.makedirs(os.path.join(directory, "www/pages"), exist_ok=True)
    written = []
    for product in ids:
        path = os.path.join(directory, "www/pages", product + ".json")
        _, _, body = get(f"http://127.0.0.1:{service_port}/products/{product}")
        with open(path, "wb") as f:
            f.write(body)
        if not gzipped:
            continue
        _, headers, body = get(f"http://127.0.0.1:{service_port}/products/{product}", {"Accept-Encoding": "gzip"})
        if headers.get("Content-Encoding") == "gzip":
            with open(path + ".gz", "wb") as f:
                f.write(body)
            written.append(product)
    return written


def export_upstream(stub_port, directory, ids):
    for kind, suffix in (("product", ""), ("reviews", "/reviews"), ("suggested", "/suggested")):
        os.makedirs(os.path.join(directory, "www", kind), exist_ok=True)
        for product in ids:
            _, _, body = get(f"http://127.0.0.1:{stub_port}/products/{product}{suffix}")
            with open(os.path.join(directory, "www", kind, product + ".json"), "wb") as f:
                f.write(body)


def check_gzip_pages(service_port, nginx_port, ids, gzipped):
    """Asks both sides for each page with `Accept-Encoding: gzip` and fails unless they answer the
    same bytes, `Content-Encoding: gzip` exactly for the `gzipped` ids (and at least one is), and
    identity for the rest. Returns each id's body bytes, identity and as sent with gzip."""
    if not gzipped:
        raise RuntimeError("hot-gzip: the service answered no page with Content-Encoding: gzip")
    identity_bytes, gzip_bytes = {}, {}
    for product in ids:
        answers = {}
        for side, port in (("ours", service_port), ("nginx", nginx_port)):
            _, headers, body = get(f"http://127.0.0.1:{port}/products/{product}", {"Accept-Encoding": "gzip"})
            answers[side] = headers.get("Content-Encoding", "identity"), body
        expected = "gzip" if product in gzipped else "identity"
        if answers["ours"] != answers["nginx"] or answers["ours"][0] != expected:
            raise RuntimeError(f"hot-gzip: {product} with Accept-Encoding: gzip: ours {answers['ours'][0]}, "
                               f"{len(answers['ours'][1])} bytes; nginx {answers['nginx'][0]}, "
                               f"{len(answers['nginx'][1])} bytes; expected the same {expected} bytes")
        _, _, identity = get(f"http://127.0.0.1:{service_port}/products/{product}")
        identity_bytes[product] = len(identity)
        gzip_bytes[product] = len(answers["ours"][1])
    return identity_bytes, gzip_bytes


def wire_bytes_note(service_port, ids, identity_bytes, gzip_bytes):
    """Bytes on the wire (bodies as read: our answers have a Content-Length), identity against
    gzip: the median page of `ids` (by identity size) and one batch of all of `ids`."""
    page = sorted(ids, key=lambda product: identity_bytes[product])[(len(ids) - 1) // 2]
    batch = {}
    for encoding, headers in (("identity", {}), ("gzip", {"Accept-Encoding": "gzip"})):
        _, answer_headers, body = get(f"http://127.0.0.1:{service_port}/products?ids=" + ",".join(ids), headers)
        batch[encoding] = len(body), answer_headers.get("Content-Encoding", "identity")
    return (f"bytes on the wire, body identity / with Accept-Encoding: gzip: the median page of the {len(ids)} hot ids "
            f"({page}) {identity_bytes[page]} / {gzip_bytes[page]} bytes ({gzip_bytes[page] / identity_bytes[page]:.0%}); "
            f"one {len(ids)}-id batch GET /products?ids=... {batch['identity'][0]} / {batch['gzip'][0]} bytes "
            f"({batch['gzip'][0] / batch['identity'][0]:.0%}, sent {batch['gzip'][1]})")


def row(name, ours, ceiling, extra=""):
    for side, result in (("ours", ours), ("nginx", ceiling)):
        if result["non2xx"] or result["socket_errors"]:
            extra += f" {side}: {result['non2xx']} non-2xx, socket errors {result['socket_errors'] or 'none'}"

    def ratio(a, b):
        return f"{a / b:.2f}x" if b else "-"
    spread = p99_note(ours, ceiling)
    sleeps = f"wrk slept {ours['wrk_sleeps']:.0f} times per 1,000 answers against ours, {ceiling['wrk_sleeps']:.0f} against nginx"
    notes = "; ".join(note for note in (extra.strip(), spread, sleeps) if note)
    return (f"| {name} | {ours['rps']:.0f} ({ratio(ours['rps'], ceiling['rps'])}) | "
            f"{ours['p50']:.2f} / {ours['p99']:.2f} ms ({ratio(ours['p99'], ceiling['p99'])}) | "
            f"{ours['cpu_us']:.1f} ({ratio(ours['cpu_us'], ceiling['cpu_us'])}) | "
            f"{ours['rss_mib']:.1f} | {ceiling['rps']:.0f} | {ceiling['p50']:.2f} / {ceiling['p99']:.2f} ms | "
            f"{ceiling['cpu_us']:.1f} | {notes}{steal_note(ours, ceiling)} |")


def p99_note(ours, ceiling):
    """How the p99 ratio varied from round to round: one short run's p99 swings by a factor of two
    or more on this host, for nginx as much as for us, so the median needs its spread beside it."""
    ratios = sorted(a / b for a, b in zip(ours["p99_runs"], ceiling["p99_runs"]) if b)
    if len(ratios) < 2:
        return ""
    no_worse = sum(1 for r in ratios if r <= 1)
    return f"p99 ratio per round {ratios[0]:.2f}-{ratios[-1]:.2f}x, ours no worse in {no_worse} of {len(ratios)}"


def steal_note(*results):
    """The worst share of CPU time the hypervisor stole during any run kept for the row, and how
    many rounds were measured again for stealing more than MAX_STEAL."""
    worst = max(result["steal"] for result in results)
    repeated = max(result.get("repeated", 0) for result in results)
    parts = [f"steal up to {worst:.1%}"] if worst >= 0.001 else []
    if repeated:
        parts.append(f"{repeated} round{'s' if repeated > 1 else ''} measured again for steal over {MAX_STEAL * 100:g}%")
    return f" ({'; '.join(parts)})" if parts else ""


def main():
    import fleet  # here: it imports this module's helpers, and duel.py and counts.py import this module
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=int(os.environ.get("BENCH_SECONDS", "3")),
                        help="seconds per run (throughput scenarios run BENCH_ROUNDS runs per side)")
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "9")))
    parser.add_argument("--scenarios", default=os.environ.get("BENCH_SCENARIOS", "healthz,hot,hot-gzip,logged,miss,fill,herd,memory,"
                                                            + ",".join(fleet.FLEET_SCENARIOS)))
    parser.add_argument("--fleet-backend", default=os.environ.get("BENCH_FLEET_BACKEND", "single"),
                        help="the fleet rows' Redis: single, cluster (a loopback Redis Cluster), or single,cluster "
                             "(both in turn, then side by side)")
    parser.add_argument("--loops", type=int, default=int(os.environ.get("LOOPS", "1")),
                        help="the service's loops and nginx's workers")
    args = parser.parse_args()
    scenarios = args.scenarios.split(",")
    loops = {"LOOPS": str(args.loops)}
    work = tempfile.mkdtemp(prefix="pd-bench-")
    # nginx's worker drops to an unprivileged user: it must be able to read what we export.
    os.chmod(work, 0o755)
    started = []
    lines = []
    notes = []
    fleet_rows, fleet_notes, fleet_failed, fleet_comparison = [], [], False, []
    try:
        stub, stub_port = start_stub({"CATALOG_SIZE": "20000"})
        started.append(stub)
        ids = [f"p{i}" for i in range(1, 5001)]
        export_upstream(stub_port, work, ids)
        nginx, nginx_port = start_nginx(work, workers=args.loops)
        started.append(nginx)

        if "healthz" in scenarios:
            service, port = start_service({"UPSTREAM_URL": f"http://127.0.0.1:{stub_port}", **loops})
            started.append(service)
            ceiling, ours = alternate([(nginx, f"http://127.0.0.1:{nginx_port}/healthz", None),
                                       (service, f"http://127.0.0.1:{port}/healthz", None)], args.duration, args.rounds)
            lines.append(row("healthz (c64)", ours, ceiling))
            service.stop()
            started.remove(service)

        if "hot" in scenarios:
            service, port = start_service({"UPSTREAM_URL": f"http://127.0.0.1:{stub_port}", **loops})
            started.append(service)
            hot = ids[:100]
            export_pages(port, work, hot)
            script = lua_paths(work, "hot.lua", [f"/products/{p}" for p in hot])
            ceiling_hot, ours = alternate([(nginx, f"http://127.0.0.1:{nginx_port}", script),
                                           (service, f"http://127.0.0.1:{port}", script)], args.duration, args.rounds)
            lines.append(row("hot: 100 ids cached (c64)", ours, ceiling_hot))
            service.stop()
            started.remove(service)

        if "hot-gzip" in scenarios:
            # The hot row with `Accept-Encoding: gzip`: ours answers each cached page's gzip variant
            # (made once, when stored), a second nginx the same bytes from `.json.gz` files
            # (`gzip_static`). Pages under GZIP_MIN_BYTES are identity on both sides.
            service, port = start_service({"UPSTREAM_URL": f"http://127.0.0.1:{stub_port}", **loops})
            started.append(service)
            hot = ids[:100]
            gzipped = export_pages(port, work, hot, gzipped=True)
            gzip_dir, gzip_nginx, gzip_nginx_port = start_second_nginx(work, "gzip", args.loops, gzip_static=True)
            started.append(gzip_nginx)
            identity_bytes, gzip_bytes = check_gzip_pages(port, gzip_nginx_port, hot, gzipped)
            script = lua_paths(work, "hot-gzip.lua", [f"/products/{p}" for p in hot], headers={"Accept-Encoding": "gzip"})
            ceiling, ours = alternate([(gzip_nginx, f"http://127.0.0.1:{gzip_nginx_port}", script),
                                       (service, f"http://127.0.0.1:{port}", script)], args.duration, args.rounds)
            lines.append(row("hot-gzip: 100 ids cached, Accept-Encoding: gzip (c64)", ours, ceiling,
                             f"{len(gzipped)} of 100 pages gzip on both sides, the rest identity; "
                             f"{sum(gzip_bytes.values())} body bytes for the 100 against {sum(identity_bytes.values())} identity"))
            notes.append(wire_bytes_note(port, hot, identity_bytes, gzip_bytes))
            service.stop()
            started.remove(service)
            gzip_nginx.stop()
            started.remove(gzip_nginx)
            shutil.rmtree(gzip_dir, ignore_errors=True)

        if "logged" in scenarios:
            # A second nginx on the same files with its default access log to a file, and our
            # service at LOG_LEVEL=info with standard output to a file: each side logs every request.
            logged_dir, logged_nginx, logged_nginx_port = start_second_nginx(
                work, "logged", args.loops, access_log=os.path.join(work, "logged", "access.log"))
            started.append(logged_nginx)
            service, port = start_service({"UPSTREAM_URL": f"http://127.0.0.1:{stub_port}", "LOG_LEVEL": "info", **loops},
                                          log_path=os.path.join(logged_dir, "service.log"))
            started.append(service)
            hot = ids[:100]
            if not os.path.isdir(os.path.join(work, "www/pages")):
                export_pages(port, work, hot)
            for path in hot:
                get(f"http://127.0.0.1:{port}/products/{path}")
            ceiling, ours = alternate([(logged_nginx, f"http://127.0.0.1:{logged_nginx_port}/healthz", None),
                                       (service, f"http://127.0.0.1:{port}/healthz", None)], args.duration, args.rounds)
            lines.append(row("healthz, both logging (c64)", ours, ceiling))
            script = lua_paths(work, "hot-logged.lua", [f"/products/{p}" for p in hot])
            ceiling, ours = alternate([(logged_nginx, f"http://127.0.0.1:{logged_nginx_port}", script),
                                       (service, f"http://127.0.0.1:{port}", script)], args.duration, args.rounds)
            _, _, metrics = get(f"http://127.0.0.1:{port}/metrics")
            dropped = sum(int(v) for v in re.findall(rb'log_lines_dropped_total\{[^}]*\} (\d+)', metrics))
            log_bytes = os.path.getsize(os.path.join(logged_dir, "service.log"))
            access_bytes = os.path.getsize(os.path.join(logged_dir, "access.log"))
            lines.append(row("hot: 100 ids cached, both logging (c64)", ours, ceiling,
                             f"log lines dropped {dropped}; log {log_bytes / 1048576:.0f} MiB, "
                             f"nginx access log {access_bytes / 1048576:.0f} MiB"))
            service.stop()
            started.remove(service)
            logged_nginx.stop()
            started.remove(logged_nginx)
            shutil.rmtree(logged_dir, ignore_errors=True)

        if "miss" in scenarios:
            upstream = f"http://127.0.0.1:{nginx_port}/upstream"
            service, port = start_service({"UPSTREAM_URL": upstream, "CACHE_TTL_SECONDS": "0", **loops})
            started.append(service)
            script = lua_paths(work, "miss.lua", [f"/products/{p}" for p in ids])
            if "hot" not in scenarios:
                export_pages(port, work, ids[:100])
            hot_script = lua_paths(work, "hot.lua", [f"/products/{p}" for p in ids[:100]])
            # The ceiling (nginx's hot pages) is measured again, taking turns with these runs: this
            # host's speed drifts by tens of percent within minutes, and a ceiling taken minutes
            # earlier in the hot scenario would turn that drift into the ratio.
            ceiling_miss, ours = alternate([(nginx, f"http://127.0.0.1:{nginx_port}", hot_script),
                                            (service, f"http://127.0.0.1:{port}", script)], args.duration, args.rounds)
            _, _, metrics = get(f"http://127.0.0.1:{port}/metrics")
            opened = int(re.search(rb"upstream_connections_opened_total (\d+)", metrics).group(1))
            upstream = sum(int(v) for v in re.findall(rb'upstream_requests_total\{[^}]*\} (\d+)', metrics))
            reuse = 1 - opened / upstream if upstream else 0
            lines.append(row("miss: cache off, 5000 ids, nginx upstream (c64)", ours, ceiling_miss,
                             f"upstream requests {upstream}, connections opened {opened}, reuse {reuse:.2%}"))
            service.stop()
            started.remove(service)

        if "fill" in scenarios:
            # Cache on, every request an id never asked before (fill_script), so each answer is a
            # load and a store into L1, which evicts once CACHE_MAX_ENTRIES (10,000) pages are
            # held, and compresses the page once (libdeflate level 1, at GZIP_MIN_BYTES or more;
            # issue 32).
            # The miss side (cache off, 5,000 ids) takes turns with it for the comparison.
            upstream = f"http://127.0.0.1:{nginx_port}/upstream"
            miss_service, miss_port = start_service({"UPSTREAM_URL": upstream, "CACHE_TTL_SECONDS": "0", **loops})
            started.append(miss_service)
            service, port = start_service({"UPSTREAM_URL": upstream, **loops})
            started.append(service)
            if not os.path.isdir(os.path.join(work, "www/pages")):
                export_pages(miss_port, work, ids[:100])
            hot_script = lua_paths(work, "hot.lua", [f"/products/{p}" for p in ids[:100]])
            miss_script = lua_paths(work, "miss.lua", [f"/products/{p}" for p in ids])
            new_ids_script = fill_script(work, 5000)
            ceiling_fill, miss, ours = alternate([(nginx, f"http://127.0.0.1:{nginx_port}", hot_script),
                                                  (miss_service, f"http://127.0.0.1:{miss_port}", miss_script),
                                                  (service, f"http://127.0.0.1:{port}", new_ids_script)], args.duration, args.rounds)
            _, _, metrics = get(f"http://127.0.0.1:{port}/metrics")
            upstream_calls = sum(int(v) for v in re.findall(rb'upstream_requests_total\{[^}]*\} (\d+)', metrics))
            entries = re.search(rb"cache_entries (\d+)", metrics)
            served = sum(r["requests"] for r in ours["runs"])
            lines.append(row("fill: cache on, every id new, nginx upstream (c64)", ours, ceiling_fill,
                             f"{upstream_calls / 3 / max(1, served):.3f} loads per answer ({upstream_calls} upstream "
                             f"requests for {served} answers); {entries.group(1).decode() if entries else '?'} pages cached "
                             f"at the end; miss (cache off) in the same turns {miss['rps']:.0f} req/s, "
                             f"{miss['cpu_us']:.1f} us/page: fill/miss CPU {ours['cpu_us'] / miss['cpu_us']:.2f}x"))
            service.stop()
            started.remove(service)
            miss_service.stop()
            started.remove(miss_service)

        if "stub-miss" in scenarios:
            service, port = start_service({"UPSTREAM_URL": f"http://127.0.0.1:{stub_port}", "CACHE_TTL_SECONDS": "0", **loops})
            started.append(service)
            script = lua_paths(work, "stub-miss.lua", [f"/products/{p}" for p in ids[:1000]])
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{stub_port}/stats", method="DELETE")).read()
            ours = measure(service, f"http://127.0.0.1:{port}", 64, args.duration, script)
            _, _, stats = get(f"http://127.0.0.1:{stub_port}/stats")
            _, _, metrics = get(f"http://127.0.0.1:{port}/metrics")
            opened = int(re.search(rb"upstream_connections_opened_total (\d+)", metrics).group(1))
            notes.append(f"stub-miss (cache off, 1000 ids, catalog-stub upstream, c64): {ours['rps']:.0f} req/s, "
                         f"p50 {ours['p50']:.2f} ms, p99 {ours['p99']:.2f} ms, non-2xx {ours['non2xx']}, "
                         f"cpu {ours['cpu_us']:.1f} us/req, upstream connections opened {opened}, stub stats {stats.decode()}")
            service.stop()
            started.remove(service)

        if "herd" in scenarios:
            slow_stub, slow_port = start_stub({"CATALOG_SIZE": "20000", "STUB_LATENCY_MS": "200"})
            started.append(slow_stub)
            service, port = start_service({"UPSTREAM_URL": f"http://127.0.0.1:{slow_port}", **loops})
            started.append(service)
            for clients, product in ((200, "p4242"), (2000, "p4243")):
                urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{slow_port}/stats", method="DELETE")).read()
                result = wrk(f"http://127.0.0.1:{port}/products/{product}", clients, 2, threads=2)
                _, _, stats = get(f"http://127.0.0.1:{slow_port}/stats")
                counts = json.loads(stats)["requests"]
                notes.append(f"herd {clients} clients on {product}: {result['requests']} answers "
                             f"(non-2xx {result['non2xx']}, socket errors: {result['socket_errors'] or 'none'}), "
                             f"upstream calls product={counts['product']} reviews={counts['reviews']} "
                             f"suggested={counts['suggested']}")
            service.stop()
            started.remove(service)
            slow_stub.stop()
            started.remove(slow_stub)

        if "memory" in scenarios:
            service, port = start_service({"UPSTREAM_URL": f"http://127.0.0.1:{stub_port}", "CACHE_MAX_ENTRIES": "20000", **loops})
            started.append(service)
            base = service.rss_kib() / 1024
            script = lua_paths(work, "fill.lua", [f"/products/p{i}" for i in range(1, 10001)])
            wrk(f"http://127.0.0.1:{port}", 16, max(4, args.duration // 2), script)
            _, _, metrics = get(f"http://127.0.0.1:{port}/metrics")
            cached = re.search(rb"cache_bytes (\d+)", metrics)
            entries = re.search(rb"cache_entries (\d+)", metrics)
            rss = service.rss_kib() / 1024
            cached_mib = int(cached.group(1)) / 1048576 if cached else float("nan")
            notes.append(f"memory: {entries.group(1).decode() if entries else '?'} entries, cached bytes {cached_mib:.1f} MiB, "
                         f"RSS {rss:.1f} MiB (idle before filling {base:.1f} MiB); aim: RSS <= 1.5 x cached + 20 MiB = "
                         f"{1.5 * cached_mib + 20:.1f} MiB")
            service.stop()
            started.remove(service)

        fleet_rows, fleet_notes, fleet_failed, fleet_comparison = fleet.run(scenarios, args, work, nginx_port, stub_port, ids)
    finally:
        for process in reversed(started):
            process.stop()
        shutil.rmtree(work, ignore_errors=True)

    print()
    workers = f"{args.loops} worker{'s' if args.loops > 1 else ''}"
    print(f"product-details (LOOPS={args.loops}) vs nginx ({workers}), wrk -t1 on the same {os.cpu_count()} cores; "
          f"medians of {args.rounds} alternating runs of {args.duration}s; ratios are ours / nginx in the same run")
    print()
    print_table(["scenario", "req/s (ratio)", "p50 / p99 (p99 ratio)", "CPU us/req (ratio)", "peak RSS MiB", "nginx req/s",
                 "nginx p50 / p99", "nginx CPU us/req", "notes"], lines, notes)
    if fleet_rows or fleet_notes:
        print()
        print(f"Fleet mode (REDIS_URL set; redis-server {fleet.redis_version()} on loopback, LOOPS={args.loops} per replica); "
              f"rows taking turns are medians of {args.rounds} runs of {args.duration}s")
        print()
        print_table(["scenario", "req/s", "p50 / p99", "CPU us/req", "notes"], fleet_rows, fleet_notes)
    if fleet_comparison:
        backends = args.fleet_backend.split(",")
        print()
        print("Fleet rows by backend (single: one redis-server; cluster: six nodes, three masters with a replica "
              "each, REDIS_URL naming the first master), in this run")
        print()
        print_table(["figure", *backends], fleet_comparison, [])
    return 1 if fleet_failed else 0


def print_table(columns, lines, notes):
    """A Markdown table of `lines` under `columns`, then `notes` as a list."""
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for line in lines:
        print(line)
    for note in notes:
        print("- " + note)


if __name__ == "__main__":
    sys.exit(main())
