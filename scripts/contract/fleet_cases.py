"""Fleet-mode answers, checked against openapi.yaml: two replicas sharing one redis-server.

The shared cache's member of Cache-Status, X-Invalidation-Receivers on DELETE, an invalidation
reaching the other replica, and, once Redis is killed, pages still served (the shared cache
bypassed) and DELETE answered 503 (the fleet could not be told). Every answer also goes through
schemathesis's checks and is written to EXCHANGES for openapi-core (core_validate.py).

    fleet_cases.py SPEC BASE OTHER TOKEN REDIS_PID EXCHANGES
      BASE, OTHER  two replicas with REDIS_URL set (ADMIN_TOKEN=TOKEN on BASE)
      REDIS_PID    the redis-server they share; killed (SIGKILL) by the last cases
"""

import json
import os
import signal
import sys
import time

import requests
import schemathesis

import fault_cases
from fault_cases import check, header


def metric(base, name):
    for line in requests.get(f"{base}/metrics", timeout=5).text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.split()[-1])
    return None


def wait_for(description, condition, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    fault_cases.failures.append(f"timed out waiting for {description}")
    return False


def receivers(count):
    return header("X-Invalidation-Receivers", lambda v: v == str(count), str(count))


def run(spec, base, other, token, redis_pid):
    schema = schemathesis.openapi.from_path(spec)
    detail = schema["/products/{id}"]["GET"]
    forget = schema["/cache/products/{id}"]["DELETE"]
    forget_all = schema["/cache"]["DELETE"]
    auth = {"Authorization": f"Bearer {token}"}

    for replica in (base, other):
        wait_for(f"{replica} subscribed", lambda: metric(replica, "product_details_redis_subscriber_connected") == 1)
    check("fleet: DELETE all -> 204 received by both replicas", forget_all, base, 204, headers=auth, expect=receivers(2))
    check("fleet: first read loads and shares", detail, base, 200, path={"id": "p9201"},
          expect=header("Cache-Status", lambda v: v.startswith("product-details-shared; fwd=miss; stored, "), "a shared store"))
    check("fleet: the other replica reads it from the shared cache", detail, other, 200, path={"id": "p9201"},
          expect=header("Cache-Status", lambda v: v.startswith("product-details-shared; hit; "), "a shared hit"))
    check("fleet: then from its own cache, Redis untouched", detail, other, 200, path={"id": "p9201"},
          expect=header("Cache-Status", lambda v: v.startswith("product-details; hit; "), "a local hit"))
    before = metric(other, 'product_details_invalidations_received_total{scope="product"}') or 0
    check("fleet: DELETE one product -> 204 received by both", forget, base, 204, path={"id": "p9201"}, headers=auth,
          expect=receivers(2))
    wait_for("the other replica to receive it",
             lambda: (metric(other, 'product_details_invalidations_received_total{scope="product"}') or 0) > before)
    check("fleet: the other replica forgot it", detail, other, 200, path={"id": "p9201"},
          expect=header("Cache-Status", lambda v: "product-details-shared; fwd=miss" in v, "loaded again"))

    os.kill(int(redis_pid), signal.SIGKILL)
    check("fleet: Redis gone -> pages still served", detail, base, 200, path={"id": "p9202"},
          expect=header("Cache-Status", lambda v: "product-details-shared; fwd=bypass; detail=unavailable" in v, "bypass"))
    check("fleet: Redis gone -> DELETE is 503, the fleet was not told", forget, base, 503, path={"id": "p9201"},
          headers=auth, server_error=True)
    check("fleet: Redis gone -> DELETE all is 503", forget_all, base, 503, headers=auth, server_error=True)


def main(spec, base, other, token, redis_pid, exchanges_path):
    try:
        run(spec, base, other, token, redis_pid)
    finally:
        with open(exchanges_path, "w") as file:
            for exchange in fault_cases.exchanges:
                file.write(json.dumps(exchange) + "\n")
    for failure in fault_cases.failures:
        print("FAILED:", failure)
    print(f"fleet cases: {fault_cases.passed} passed, {len(fault_cases.failures)} failed")
    return 1 if fault_cases.failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
