"""A short live check of the local fleet (scripts/fleet.sh with FLEET_CHECK=1); standard library
and scripts/contract/tools.py.

    fleet_check.py LOG_DIR ADMIN_TOKEN LB_URL REPLICA_URL...

  - every replica answers /readyz with 200;
  - through the load balancer (deploy/nginx/fleet.conf), pages answer 200 with the product asked
    for, the X-Request-ID sent comes back, and every replica served some of them (its log has
    their request ids) with the trace id of the traceparent sent;
  - the replicas share one cache: a page one replica loaded is a shared hit on the others;
  - DELETE /cache/products/{id} through the load balancer answers 204, received by every replica
    (X-Invalidation-Receivers).
Exits 1 with a message on the first failure.
"""

import glob
import json
import os
import secrets
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "contract"))
from tools import get, json_records  # noqa: E402


def fail(message):
    print(f"fleet check: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def header(headers, name):
    return next((value for key, value in headers.items() if key.lower() == name.lower()), None)


def served(log, sent, trace_id):
    """None when the replica's log has some of the sent request ids, all with trace_id."""
    seen = [record for record in json_records(log) if record.get("requestId") in sent]
    name = os.path.basename(log)
    if not seen:
        return f"{name}: the load balancer sent it none of {len(sent)} requests"
    if any(record.get("traceId") != trace_id for record in seen):
        return f"{name}: the traceparent's trace id did not reach the replica"
    return None


def main():
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    log_dir, token, balancer, replicas = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    for replica in replicas:
        status, _, _ = get(replica + "/readyz")
        if status != 200:
            fail(f"{replica}/readyz answered {status}")
        wait_subscribed(replica)

    # One cache for the fleet: loaded by the first replica, read from Redis by the others.
    for index, replica in enumerate(replicas):
        status, headers, _ = get(f"{replica}/products/p9999")
        cache_status = header(headers, "Cache-Status") or ""
        want = "product-details-shared; fwd=miss; stored" if index == 0 else "product-details-shared; hit"
        if status != 200 or not cache_status.startswith(want):
            fail(f"{replica}/products/p9999 answered {status} with Cache-Status {cache_status!r}, want {want!r}")

    trace_id = secrets.token_hex(16)
    traceparent = f"00-{trace_id}-{secrets.token_hex(8)}-01"
    sent = []
    for n in range(3 * len(replicas)):
        request_id = f"fleet-check-{secrets.token_hex(6)}"
        product = f"p{n + 1}"
        status, headers, body = get(f"{balancer}/products/{product}",
                                     headers={"traceparent": traceparent, "X-Request-ID": request_id})
        if status != 200:
            fail(f"GET {balancer}/products/{product} answered {status}: {body[:200]!r}")
        if json.loads(body)["product"]["id"] != product:
            fail(f"GET {balancer}/products/{product} answered another product")
        if header(headers, "X-Request-ID") != request_id:
            fail(f"X-Request-ID {request_id} did not come back through the load balancer")
        sent.append(request_id)

    logs = sorted(glob.glob(os.path.join(log_dir, "product-details-*.log")))
    if len(logs) != len(replicas):
        fail(f"expected {len(replicas)} replica logs in {log_dir}, found {len(logs)}")
    # The replicas write their request lines a moment later (buffered): look for a few seconds.
    deadline = time.monotonic() + 5
    while True:
        problems = [problem for problem in map(lambda log: served(log, sent, trace_id), logs) if problem]
        if not problems or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    if problems:
        fail(problems[0])

    status, headers, body = get(f"{balancer}/cache/products/p1", method="DELETE",
                                 headers={"Authorization": f"Bearer {token}"})
    if status != 204:
        fail(f"DELETE {balancer}/cache/products/p1 answered {status}: {body[:200]!r}")
    receivers = header(headers, "X-Invalidation-Receivers")
    if receivers != str(len(replicas)):
        fail(f"DELETE /cache/products/p1: X-Invalidation-Receivers {receivers!r}, want {len(replicas)}")
    print(f"fleet check: {len(replicas)} replicas ready and sharing one cache; {len(sent)} pages through nginx "
          f"reached all {len(replicas)} with X-Request-ID and traceparent; DELETE /cache/products/p1: 204, "
          f"received by {receivers}")


def wait_subscribed(replica):
    """Waits until the replica's invalidation subscription is up (it connects after start)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        _, _, body = get(replica + "/metrics")
        if "product_details_redis_subscriber_connected 1" in body.decode():
            return
        time.sleep(0.05)
    fail(f"{replica} never subscribed to invalidations (is REDIS_URL set?)")


if __name__ == "__main__":
    main()
