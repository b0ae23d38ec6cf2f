"""Answers that random test data cannot reach, checked against openapi.yaml.

schemathesis's generated cases only see a healthy upstream. Here catalog-stub's scripted faults
(PUT /control/faults/...) make the service answer degraded pages, 502, 504 and 503, and a second
service without ADMIN_TOKEN answers 403. Each answer goes through schemathesis's own checks
(status documented, content type, headers, body schema) plus the exact expectation below.

Every exchange is also written to EXCHANGES (JSON lines), for scripts/contract/core_validate.py
to check the same answers with openapi-core. A `405` has no operation of its own: it is checked
against the shared `#/components/responses/MethodNotAllowed` here.

    fault_cases.py SPEC BASE STUB TOKEN OVERLOAD_BASE EXCHANGES
      BASE           the service under test (ADMIN_TOKEN=TOKEN, upstream = STUB)
      OVERLOAD_BASE  a second service on the same STUB with MAX_INFLIGHT_LOADS=1,
                     MAX_INFLIGHT_REQUESTS=2, no ADMIN_TOKEN
"""

import base64
import json
import re
import sys
import threading
import urllib.request

import jsonschema
import requests
import schemathesis
import yaml

# not_a_server_error fails any 5xx by design; the 502/503/504 cases below provoke 5xx on purpose,
# so only for those answers is that one check left out (every other check still runs).
from schemathesis.checks import not_a_server_error

failures = []
passed = 0
exchanges = []


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
    record(response)
    request_line = f"{case.method} {response.request.url}"
    problems = []
    if response.status_code != expect_status:
        problems.append(f"status {response.status_code}, expected {expect_status}")
    if method is None:
        try:
            case.validate_response(response, excluded_checks=[not_a_server_error] if server_error else None)
        except (Exception, BaseExceptionGroup) as error:  # schemathesis' FailureGroup is a group
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


def record(response):
    """Keeps the exchange for the second validator (core_validate.py)."""
    request = response.request
    exchanges.append({
        "method": request.method, "url": request.url, "requestHeaders": dict(request.headers),
        "status": response.status_code,
        "headers": [[name, value] for name, values in response.headers.items() for value in values],
        "body": base64.b64encode(response.content or b"").decode(),
    })


def method_not_allowed(spec, allowed):
    """Checks a 405 against the shared MethodNotAllowed response: Allow, X-Request-ID, the body."""
    documented = spec["components"]["responses"]["MethodNotAllowed"]
    headers = spec["components"]["headers"]
    problem = spec["components"]["schemas"]["Problem"]

    def expectation(response):
        for name in documented["headers"]:
            value = hdr(response, name)
            pattern = headers[name.replace("-", "")]["schema"]["pattern"]
            assert value is not None and re.search(pattern, value), f"{name}: {value!r}, want /{pattern}/"
        assert allowed in [m.strip() for m in hdr(response, "Allow").split(",")], f"Allow lacks {allowed}"
        assert hdr(response, "Content-Type") == "application/problem+json", hdr(response, "Content-Type")
        try:
            jsonschema.validate(response.json(), problem)
        except jsonschema.ValidationError as error:
            raise AssertionError(f"body: {error.message}") from error
    return expectation


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


def main(spec, base, stub, token, overload_base, exchanges_path):
    with open(spec) as file:
        document = yaml.safe_load(file)
    try:
        return run(spec, document, base, stub, token, overload_base)
    finally:
        with open(exchanges_path, "w") as file:
            for exchange in exchanges:
                file.write(json.dumps(exchange) + "\n")


def run(spec, document, base, stub, token, overload_base):
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
        check("every batch item names its id", batch, base, 200, query={"ids": "p2,bad!,p2"},
              expect=lambda r: _assert_item_ids(r, ["p2", "bad!", "p2"]))
        check("101 ids -> 400", batch, base, 400, query={"ids": ",".join(f"p{i}" for i in range(1, 102))})
        check("empty ids -> one invalid item", batch, base, 200, query={"ids": ""},
              expect=lambda r: _assert_items(r, [400]))

        # Admin routes.
        check("DELETE one with token -> 204", forget, base, 204, path={"id": "p9107"}, headers=auth)
        check("after DELETE the page is loaded again", detail, base, 200, path={"id": "p9107"},
              expect=header("Cache-Status", lambda v: "fwd=miss" in v, "fwd=miss"))
        check("DELETE all with token -> 204", forget_all, base, 204, headers=auth)
        # RFC 6750 §3.1: no error code when no credentials were sent; invalid_token for a wrong one.
        challenge = 'Bearer realm="product-details"'
        check("DELETE without token -> 401, no error code", forget_all, base, 401,
              expect=header("WWW-Authenticate", lambda v: v == challenge, challenge))
        check("DELETE with a wrong token -> 401 invalid_token", forget, base, 401, path={"id": "p1"},
              headers={"Authorization": "Bearer wrong"},
              expect=header("WWW-Authenticate", lambda v: v == challenge + ', error="invalid_token"', "invalid_token"))
        check("DELETE invalid id -> 400", forget, base, 400, path={"id": "bad!"}, headers=auth)
        check("admin off -> 403", forget_all, overload_base, 403, headers=auth)

        # HEAD is an operation of its own wherever GET is.
        head = schema["/products/{id}"]["HEAD"]
        check("HEAD of a page -> 200 without a body", head, base, 200, path={"id": "p9107"},
              expect=lambda r: _assert_no_body(r))

        # 405 with Allow on every path, checked against the shared MethodNotAllowed response.
        for operation, path, allowed in [(detail, {"id": "p1"}, "GET"), (batch, {}, "GET"),
                                         (forget, {"id": "p1"}, "DELETE"), (forget_all, {}, "DELETE")]:
            check(f"POST {operation.path} -> 405 with Allow", operation, base, 405, path=path, method="POST",
                  query={"ids": "p1"} if operation is batch else None,
                  expect=method_not_allowed(document, allowed))

        # Overload: one load may run (MAX_INFLIGHT_LOADS=1); while it hangs, another id is shed.
        stub_faults(stub, "product", {"hang": True})
        hanging = threading.Thread(target=lambda: _quiet_get(f"{overload_base}/products/p9108"))
        hanging.start()
        _wait_inflight(overload_base)
        check("too many loads -> 503 with Retry-After", detail, overload_base, 503, path={"id": "p9109"},
              server_error=True, expect=header("Retry-After", str.isdigit, "seconds"))
        # A second request joins the hanging load: MAX_INFLIGHT_REQUESTS=2 are running, so every
        # route that needs a handler is refused at once.
        joining = threading.Thread(target=lambda: _quiet_get(f"{overload_base}/products/p9108"))
        joining.start()
        _wait_metric(overload_base, "product_details_inflight_requests", 2)
        check("too many requests: batch -> 503", batch, overload_base, 503, query={"ids": "p1"},
              server_error=True, expect=header("Retry-After", str.isdigit, "seconds"))
        check("too many requests: DELETE one -> 503", forget, overload_base, 503, path={"id": "p1"},
              headers=auth, server_error=True, expect=header("Retry-After", str.isdigit, "seconds"))
        check("too many requests: DELETE all -> 503", forget_all, overload_base, 503,
              headers=auth, server_error=True, expect=header("Retry-After", str.isdigit, "seconds"))
        clear_faults(stub)
        hanging.join(15)
        joining.join(15)
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


def _assert_item_ids(response, ids):
    got = [item.get("id") for item in response.json()["items"]]
    assert got == ids, f"item ids {got}, want {ids}"


def _assert_no_body(response):
    assert not response.content, f"a HEAD answer with {len(response.content)} body bytes"


def _quiet_get(url):
    try:
        requests.get(url, timeout=15)
    except requests.RequestException:
        pass


def _wait_inflight(base):
    _wait_metric(base, "product_details_inflight_loads", 1)


def _wait_metric(base, name, at_least):
    import time

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        text = requests.get(f"{base}/metrics", timeout=5).text
        for line in text.splitlines():
            if line.startswith(name + " ") and float(line.split()[1]) >= at_least:
                return
        time.sleep(0.02)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
