"""Small helpers for scripts/contract-test.sh (standard library plus prometheus_client and PyYAML).

    tools.py port LOG TIMEOUT             wait for the JSON start-up line with a "port" in LOG; print it
    tools.py wait-ready URL TIMEOUT       poll URL until it answers 200
    tools.py traffic BASE                 a little traffic of every kind, so /metrics has series
    tools.py scrape URL OUT               save the metrics text to OUT
    tools.py parse-metrics FILE           parse with prometheus_client; require the documented families
    tools.py gzip-check BASE              every gzip answer inflates (Python's gzip) to the identity bytes
    tools.py ldd-check FILE...            every shared library the binaries need is in the runtime image
    tools.py schema-names OPENAPI         no inline enum takes a component schema's generated name

Every failure exits non-zero with a message on stderr.
"""

import json
import re
import sys
import time
import urllib.error
import urllib.request


def fail(message):
    print(f"contract: {message}", file=sys.stderr)
    sys.exit(1)


def get(url, headers=None, method="GET", timeout=10):
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def json_records(path):
    """The JSON objects of a log file, one a line; other lines are passed over."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                yield record


def port(log, timeout):
    deadline = time.monotonic() + float(timeout)
    while time.monotonic() < deadline:
        try:
            for record in json_records(log):
                if "port" in record and "listening" in str(record.get("msg")):
                    print(int(record["port"]))
                    return
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    fail(f"no start-up line with a port in {log} after {timeout}s")


def wait_ready(url, timeout):
    deadline = time.monotonic() + float(timeout)
    last = None
    while time.monotonic() < deadline:
        try:
            status, _, _ = get(url, timeout=2)
            if status == 200:
                return
            last = status
        except OSError as error:
            last = error
        time.sleep(0.1)
    fail(f"{url} not ready after {timeout}s (last: {last})")


def traffic(base):
    """Hits, misses, a collapsed herd is not needed: just every route and a few outcomes."""
    for path in ["/products/p1", "/products/p1", "/products/p2", "/products/nope-404",
                 "/products/bad!id", "/products?ids=p1,p2,p3", "/healthz", "/readyz"]:
        get(base + path)
    get(base + "/products/p1", headers={"If-None-Match": '"x"'})
    get(base + "/cache", method="DELETE")
    get(base + "/products/p1", method="POST")


def gzip_check(base):
    """Pages, a 100-id batch, a 404 and /metrics, each asked for with and without
    `Accept-Encoding: gzip` (urllib inflates nothing): a gzip answer must inflate with Python's
    gzip module to the identity answer's bytes, carry the identity ETag with -gz, and have a HEAD
    with its Content-Length; every answer carries `Vary: Accept-Encoding`."""
    import gzip

    def lowered(headers):
        return {name.lower(): value for name, value in headers.items()}

    paths = [f"/products/p{n}" for n in range(1, 21)] + [
        "/products?ids=" + ",".join(f"p{n}" for n in range(1, 101)), "/products/nope-404"]
    gzipped = 0
    for path in paths:
        get(base + path)  # loaded and cached: both asks below see the same page
        status, plain_headers, plain = get(base + path, headers={"Accept-Encoding": "identity"})
        packed_status, headers, body = get(base + path, headers={"Accept-Encoding": "gzip, deflate, br"})
        plain_headers, headers = lowered(plain_headers), lowered(headers)
        if status != packed_status:
            fail(f"{path}: {status} identity, {packed_status} with gzip accepted")
        for name, answer in (("identity", plain_headers), ("gzip", headers)):
            if answer.get("vary") != "Accept-Encoding":
                fail(f"{path} ({name}): Vary is {answer.get('vary')!r}")
        if "content-encoding" in plain_headers:
            fail(f"{path}: Content-Encoding {plain_headers['content-encoding']!r} without gzip accepted")
        if headers.get("content-encoding") != "gzip":
            if body != plain:
                fail(f"{path}: an identity answer to a gzip client differs from the identity one")
            continue
        gzipped += 1
        try:
            inflated = gzip.decompress(body)
        except (OSError, EOFError) as error:
            fail(f"{path}: the gzip body does not inflate: {error!r}")
        if inflated != plain:
            fail(f"{path}: the gzip body inflates to {len(inflated)} bytes, not the identity {len(plain)}")
        if "etag" in plain_headers and headers.get("etag") != plain_headers["etag"][:-1] + '-gz"':
            fail(f"{path}: gzip ETag {headers.get('etag')!r} for identity {plain_headers['etag']!r}")
        _, head_headers, _ = get(base + path, headers={"Accept-Encoding": "gzip"}, method="HEAD")
        if lowered(head_headers).get("content-length") != str(len(body)):
            fail(f"{path}: HEAD Content-Length {lowered(head_headers).get('content-length')!r}, GET sent {len(body)}")
    _, headers, body = get(base + "/metrics", headers={"Accept-Encoding": "gzip"})
    if lowered(headers).get("content-encoding") != "gzip" or not gzip.decompress(body).startswith(b"# HELP "):
        fail("/metrics is not gzipped for a scraper that accepts it")
    if gzipped < len(paths) // 2:
        fail(f"only {gzipped} of {len(paths)} answers were gzipped")
    print(f"gzip: {gzipped} of {len(paths)} answers and /metrics gzipped, each inflated to its identity bytes")


# Families the README and DESIGN promise (without the product_details_ prefix and _total suffix,
# as prometheus_client names them).
REQUIRED_FAMILIES = [
    "http_requests", "http_request_duration_seconds", "upstream_requests", "upstream_request_duration_seconds",
    "retry_budget_exhausted", "cache_requests", "cache_entries", "cache_bytes", "cache_evictions",
    "inflight_loads", "coalesced_requests", "load_cancellations", "loads", "load_refusals", "build_info",
    "http_encoded_responses", "http_response_body_bytes",
]
# The process series every Prometheus client library exports, unprefixed (see ProcessMetrics).
PROCESS_FAMILIES = [
    "process_cpu_seconds", "process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds",
    "process_max_fds", "process_start_time_seconds",
]


def parse_metrics(path):
    from prometheus_client.parser import text_string_to_metric_families

    text = open(path, encoding="utf-8").read()
    try:
        families = {family.name: family for family in text_string_to_metric_families(text)}
    except Exception as error:  # the parser raises ValueError and friends on any malformed line
        fail(f"prometheus_client cannot parse {path}: {error!r}")
    missing = ["product_details_" + name for name in REQUIRED_FAMILIES if "product_details_" + name not in families]
    missing += [name for name in PROCESS_FAMILIES if name not in families]
    if missing:
        fail(f"metrics missing: {', '.join(missing)}")
    for family in families.values():
        if not family.name.startswith("product_details_") and family.name not in PROCESS_FAMILIES:
            fail(f"metric without the application prefix: {family.name}")
        for sample in family.samples:
            for label in sample.labels:
                if label in ("id", "product", "product_id"):
                    fail(f"{sample.name} has a product id label")
    samples = sum(len(family.samples) for family in families.values())
    print(f"prometheus_client: {len(families)} families, {samples} samples parsed")


def scrape(url, out):
    status, headers, body = get(url)
    if status != 200:
        fail(f"{url} answered {status}")
    content_type = {k.lower(): v for k, v in headers.items()}.get("content-type", "")
    if not content_type.startswith("text/plain") or "version=0.0.4" not in content_type:
        fail(f"/metrics Content-Type is {content_type!r}, want text/plain; version=0.0.4")
    with open(out, "wb") as handle:
        handle.write(body)


# What debian:bookworm-slim has without any extra package (libc6, libgcc-s1, libstdc++6 come with
# apt), plus libuv1, libisal2 and libdeflate0 that the Dockerfile installs. Not zlib: only the tests inflate.
ALLOWED_LIBRARIES = re.compile(
    r"^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1|libc\.so\.6|libm\.so\.6|libpthread\.so\.0"
    r"|libdl\.so\.2|librt\.so\.1|libutil\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libuv\.so\.1"
    r"|libisal\.so\.2|libdeflate\.so\.0)$"
)


def ldd_check(paths):
    import subprocess

    bad = []
    for path in paths:
        output = subprocess.run(["ldd", path], check=True, capture_output=True, text=True).stdout
        names = []
        for line in output.splitlines():
            line = line.strip()
            if not line:
                continue
            name = line.split()[0].rsplit("/", 1)[-1]
            names.append(name)
            if "not found" in line or not ALLOWED_LIBRARIES.match(name):
                bad.append(f"{path}: {line}")
        print(f"ldd {path.rsplit('/', 1)[-1]}: {' '.join(names)}")
    if bad:
        fail("libraries the runtime image does not have:\n  " + "\n  ".join(bad))


def free_port():
    """Prints a loopback port the kernel just handed out (bound, read back, closed)."""
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        print(probe.getsockname()[1])


def inline_enums(schema, path):
    """(property name, where) of every property under `schema` with an enum of its own."""
    for name, prop in (schema.get("properties") or {}).items():
        if "enum" in prop:
            yield name, f"{path}.{name}"
        yield from inline_enums(prop, f"{path}.{name}")
        if isinstance(prop.get("items"), dict):
            yield from inline_enums(prop["items"], f"{path}.{name}[]")


def schema_names(path):
    """Client generators (datamodel-code-generator, openapi-generator) name an inline enum after
    its property, in PascalCase; when that is a component schema's name, one of the two becomes
    `Name1`, and clients get a name nobody chose. Each such enum belongs under a name of its own."""
    import yaml

    with open(path, encoding="utf-8") as file:
        schemas = yaml.safe_load(file)["components"]["schemas"]
    clashes = []
    for schema_name, schema in schemas.items():
        for prop, where in inline_enums(schema, schema_name):
            generated = "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", prop) if part)
            if generated in schemas:
                clashes.append(f"{where}: its inline enum would be generated as {generated}, a component schema's name")
    if clashes:
        fail("schema names clash in " + path + ":\n  " + "\n  ".join(clashes))
    print(f"schema names: {len(schemas)} component schemas, no inline enum takes one's name")


def main(argv):
    if len(argv) < 2:
        fail(__doc__)
    command, args = argv[1], argv[2:]
    if command == "port":
        port(*args)
    elif command == "wait-ready":
        wait_ready(*args)
    elif command == "traffic":
        traffic(*args)
    elif command == "scrape":
        scrape(*args)
    elif command == "parse-metrics":
        parse_metrics(*args)
    elif command == "gzip-check":
        gzip_check(*args)
    elif command == "free-port":
        free_port()
    elif command == "ldd-check":
        ldd_check(args)
    elif command == "schema-names":
        schema_names(*args)
    else:
        fail(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv)
