"""Answers that random test data cannot reach, checked against openapi.yaml.

schemathesis's generated cases only see a healthy upstream. Here catalog-stub's scripted faults
(PUT /control/faults/...) make the service answer degraded pages, 502, 504 and 503, and a second
service without ADMIN_TOKEN answers 403. Each answer goes through schemathesis's own checks
(status documented, content type, headers, body schema) plus the exact expectation below.

    fault_cases.py SPEC BASE STUB TOKEN OVERLOAD_BASE
      BASE           the service under test (ADMIN_TOKEN=TOKEN, upstream = STUB)
      OVERLOAD_BASE  a second service on the same STUB with MAX_INFLIGHT_LOADS=1, no ADMIN_TOKEN
"""

import json
import sys
import threading
import urllib.request

import requests
import schemathesis

# not_a_server_error fails any 5xx by design; the 502/503/504 cases below provoke 5xx on purpose,
# so only for those answers is that one check left out (every other check still runs).
from schemathesis.checks import not_a_server_error

failures = []
passed = 0


def stub_faults(stub, target, settings):
    request = urllib.request.Request(
        f"{stub}/control/faults/{target}", data=json.dumps(settings).encode(), method="PUT",
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.status == 204, response.status


def clear_faults(stub):
    request = urllib.request.Request(f"{stub}/control/faults", method="DELETE")
    with urllib.request.urlopen(request, timeout=5):
        pass


def check(name, operation, base, expect_status, *, path=None, query=None, headers=None, method=None,
          expect=None, server_error=False):
    """Sends one request for `operation`, validates the answer with schemathesis, then `expect`."""
    global passed
    case = operation.Case(path_parameters=path or {}, query=query or {}, headers=headers or {})
    if method:
        case.method = method
    try:
        response = case.call(base_url=base, timeout=10)
    except Exception as error:  # connection refused, timeout
        failures.append(f"{name}: {error!r}")
        return None
    request_line = f"{case.method} {response.request.url}"
    problems = []
    if response.status_code != expect_status:
        problems.append(f"status {response.status_code}, expected {expect_status}")
    if method is None:
        try:
            case.validate_response(response, excluded_checks=[not_a_server_error] if server_error else None)
        except Exception as error:
            problems.append(f"schemathesis: {error}")
    if expect and not problems:
        try:
            expect(response)
        except AssertionError as error:
            problems.append(f"expectation: {error}")
    if problems:
        failures.append(
            f"{name}\n    request:  {request_line} headers={headers or {}}\n"
            f"    response: {response.status_code} {dict(response.headers)} {response.text[:300]!r}\n    "
            + "\n    ".join(problems))
    else:
        passed += 1
    return response


def missing(*parts):
    def expectation(response):
        body = response.json()
        assert sorted(body.get("missing", [])) == sorted(parts), f"missing={body.get('missing')}"
        for part in parts:
            assert body[part] == [], f"{part} should be empty when missing"
    return expectation


def hdr(response, name):
    """One header of a schemathesis Response (its headers are lower-case names to lists)."""
    values = response.headers.get(name.lower()) or []
    return values[0] if values else None


def header(name, predicate, description):
    def expectation(response):
        value = hdr(response, name)
        assert value is not None and predicate(value), f"{name}: {value!r}, want {description}"
    return expectation


def main(spec, base, stub, token, overload_base):
    schema = schemathesis.openapi.from_path(spec)
    detail = schema["/products/{id}"]["GET"]
    batch = schema["/products"]["GET"]
    forget = schema["/cache/products/{id}"]["DELETE"]
    forget_all = schema["/cache"]["DELETE"]
    auth = {"Authorization": f"Bearer {token}"}

    try:
        # Start from an empty cache, so the first read of each id below is a miss.
        check("DELETE all with token -> 204", forget_all, base, 204, headers=auth)
        clear_faults(stub)
        # Optional parts fail: still 200, the part empty and listed in `missing`.
        stub_faults(stub, "reviews", {"errorRate": 1, "errorStatus": 500})
        check("reviews upstream down -> degraded 200", detail, base, 200, path={"id": "p9101"},
              expect=missing("reviews"))
        clear_faults(stub)
        stub_faults(stub, "suggested", {"malformed": True})
        check("suggestions upstream malformed -> degraded 200", detail, base, 200, path={"id": "p9102"},
              expect=missing("suggested"))
        clear_faults(stub)
        stub_faults(stub, "reviews", {"errorRate": 1, "errorStatus": 503})
        stub_faults(stub, "suggested", {"errorRate": 1, "errorStatus": 503})
        check("both optional upstreams down -> degraded 200", detail, base, 200, path={"id": "p9103"},
              expect=missing("reviews", "suggested"))
        clear_faults(stub)

        # The product upstream fails: 502 after retries, 504 past the deadline, never cached.
        stub_faults(stub, "product", {"errorRate": 1, "errorStatus": 500})
        check("product upstream 500 -> 502 problem", detail, base, 502, path={"id": "p9104"}, server_error=True)
        check("batch item of a failing product -> 502 item", batch, base, 200, query={"ids": "p9105,bad!"},
              expect=lambda r: _assert_items(r, [502, 400]))
        clear_faults(stub)
        stub_faults(stub, "product", {"hang": True})
        check("product upstream hangs -> 504 problem", detail, base, 504, path={"id": "p9106"}, server_error=True)
        clear_faults(stub)

        # Validators and metadata on a healthy page.
        first = check("detail page", detail, base, 200, path={"id": "p9107"},
                      expect=header("Cache-Status", lambda v: "fwd=miss" in v, "fwd=miss"))
        if first is not None and first.status_code == 200:
            etag = hdr(first, "ETag")
            check("If-None-Match -> 304", detail, base, 304, path={"id": "p9107"}, headers={"If-None-Match": etag},
                  expect=header("ETag", lambda v: v == etag, etag))
            check("weak If-None-Match -> 304", detail, base, 304, path={"id": "p9107"},
                  headers={"If-None-Match": f'"nope", W/{etag}'})
            check("second read is a hit", detail, base, 200, path={"id": "p9107"},
                  expect=header("Cache-Status", lambda v: "; hit" in v, "hit"))
        check("X-Request-ID is echoed", detail, base, 200, path={"id": "p9107"}, headers={"X-Request-ID": "contract-42"},
              expect=header("X-Request-ID", lambda v: v == "contract-42", "contract-42"))
        check("unusable X-Request-ID is replaced", detail, base, 200, path={"id": "p9107"},
              headers={"X-Request-ID": "has space"},
              expect=header("X-Request-ID", lambda v: v != "has space", "a fresh id"))
        check("upstream 404 -> 404 problem", detail, base, 404, path={"id": "no-such-product"})
        check("invalid id -> 400 problem", detail, base, 400, path={"id": "x" * 65})

        # Batches.
        check("batch in request order", batch, base, 200, query={"ids": "p1,no-such-product,p2"},
              expect=lambda r: _assert_items(r, [200, 404, 200]))
        check("101 ids -> 400", batch, base, 400, query={"ids": ",".join(f"p{i}" for i in range(1, 102))})
        check("empty ids -> 400", batch, base, 400, query={"ids": ""})

        # Admin routes.
        check("DELETE one with token -> 204", forget, base, 204, path={"id": "p9107"}, headers=auth)
        check("after DELETE the page is loaded again", detail, base, 200, path={"id": "p9107"},
              expect=header("Cache-Status", lambda v: "fwd=miss" in v, "fwd=miss"))
        check("DELETE all with token -> 204", forget_all, base, 204, headers=auth)
        bearer = lambda v: v.startswith("Bearer ")  # noqa: E731
        check("DELETE without token -> 401", forget_all, base, 401,
              expect=header("WWW-Authenticate", bearer, "a Bearer challenge"))
        check("DELETE with a wrong token -> 401", forget, base, 401, path={"id": "p1"},
              headers={"Authorization": "Bearer wrong"},
              expect=header("WWW-Authenticate", bearer, "a Bearer challenge"))
        check("DELETE invalid id -> 400", forget, base, 400, path={"id": "bad!"}, headers=auth)
        check("admin off -> 403", forget_all, overload_base, 403, headers=auth)

        # 405 with Allow on every path.
        for operation, path, allowed in [(detail, {"id": "p1"}, "GET"), (batch, {}, "GET"),
                                         (forget, {"id": "p1"}, "DELETE"), (forget_all, {}, "DELETE")]:
            check(f"POST {operation.path} -> 405 with Allow", operation, base, 405, path=path, method="POST",
                  query={"ids": "p1"} if operation is batch else None,
                  expect=header("Allow", lambda v, a=allowed: a in [m.strip() for m in v.split(",")], allowed))

        # Overload: one load may run (MAX_INFLIGHT_LOADS=1); while it hangs, another id is shed.
        stub_faults(stub, "product", {"hang": True})
        hanging = threading.Thread(target=lambda: _quiet_get(f"{overload_base}/products/p9108"))
        hanging.start()
        _wait_inflight(overload_base)
        check("too many loads -> 503 with Retry-After", detail, overload_base, 503, path={"id": "p9109"},
              server_error=True, expect=header("Retry-After", str.isdigit, "seconds"))
        clear_faults(stub)
        hanging.join(15)
    finally:
        try:
            clear_faults(stub)
        except OSError:
            pass

    print(f"fault cases: {passed} as documented, {len(failures)} not", flush=True)
    for failure in failures:
        print(f"FAILED {failure}", file=sys.stderr)
    return 1 if failures else 0


def _assert_items(response, statuses):
    items = response.json()["items"]
    got = [200 if "product" in item else item.get("status") for item in items]
    assert got == statuses, f"item statuses {got}, want {statuses}"


def _quiet_get(url):
    try:
        requests.get(url, timeout=15)
    except requests.RequestException:
        pass


def _wait_inflight(base):
    import time

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        text = requests.get(f"{base}/metrics", timeout=5).text
        for line in text.splitlines():
            if line.startswith("product_details_inflight_loads ") and float(line.split()[1]) >= 1:
                return
        time.sleep(0.02)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
