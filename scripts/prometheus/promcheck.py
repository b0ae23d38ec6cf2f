"""Helpers for scripts/prometheus-check.sh (standard library plus PyYAML from .venv-deploy).

    promcheck.py runbooks RULES DOC    every alert in RULES has a `runbook` annotation naming a
                                       section (heading anchor) of DOC
    promcheck.py prom-port LOG TIMEOUT the port Prometheus logged it listens on (it was given :0)
    promcheck.py live PROM STUB A B TOKEN ROOT EXPECTED
                                       traffic with a short fault through the replicas A and B,
                                       then every expression of the dashboard, the alert rules and
                                       the PromQL blocks of README.md and docs/*.md evaluated by
                                       the Prometheus at PROM: each must return data, or be listed
                                       in EXPECTED (with its reason) and return none

Every failure exits non-zero with a message on stderr.
"""

import concurrent.futures
import glob
import json
import math
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import yaml


def fail(message):
    print(f"prometheus-check: {message}", file=sys.stderr)
    sys.exit(1)


def anchor(heading):
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces to -."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    found, in_fence = set(), False
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("```"):
                in_fence = not in_fence
            elif not in_fence and line.startswith("#"):
                found.add(anchor(line.lstrip("#")))
    return found


def alert_rules(path):
    with open(path, encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    for group in document.get("groups") or []:
        for rule in group.get("rules") or []:
            if "alert" in rule:
                yield rule


def runbooks(rules_path, doc_path):
    known = anchors(doc_path)
    doc = os.path.normpath(doc_path)
    problems, count = [], 0
    for rule in alert_rules(rules_path):
        count += 1
        runbook = (rule.get("annotations") or {}).get("runbook", "")
        target, _, fragment = runbook.partition("#")
        if os.path.normpath(target) != doc or not fragment:
            problems.append(f"{rule['alert']}: runbook {runbook!r} is not {doc}#<section>")
        elif fragment not in known:
            problems.append(f"{rule['alert']}: {doc} has no section #{fragment}")
    if problems or not count:
        fail("; ".join(problems) or f"no alerts in {rules_path}")
    print(f"prometheus-check: {count} alerts, each with a runbook section of {doc}")


def prom_port(log, timeout):
    deadline = time.monotonic() + float(timeout)
    while time.monotonic() < deadline:
        try:
            with open(log, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    match = re.search(r'msg="Listening on" address=\S*:(\d+)', line)
                    if match:
                        print(match.group(1))
                        return
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    fail(f"Prometheus logged no listening address in {log} after {timeout}s")


# ---------------------------------------------------------------------------------------------
# HTTP

def call(url, method="GET", body=None, headers=None, timeout=10):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def stub_faults(stub, route, settings):
    status, body = call(f"{stub}/control/faults/{route}", "PUT", settings, {"Content-Type": "application/json"})
    if status != 204:
        fail(f"the catalog stub refused faults for {route}: {status} {body[:200]!r}")


def clear_faults(stub):
    call(f"{stub}/control/faults", "DELETE")


def query(prom, expr, at):
    """Prometheus's /api/v1/query at time `at`: (data, None) or (None, the error)."""
    form = urllib.parse.urlencode({"query": expr, "time": f"{at:.3f}"}).encode()
    status, body = call(f"{prom}/api/v1/query", "POST", form, {"Content-Type": "application/x-www-form-urlencoded"})
    try:
        answer = json.loads(body)
    except ValueError:
        return None, f"HTTP {status}: {body[:200]!r}"
    if answer.get("status") != "success":
        return None, f"{answer.get('errorType')}: {answer.get('error')}"
    return answer["data"], None


def values(data):
    """The sample values of a query's answer (vector, matrix or scalar)."""
    if data["resultType"] == "scalar":
        return [float(data["result"][1])]
    if data["resultType"] == "vector":
        return [float(item["value"][1]) for item in data["result"]]
    if data["resultType"] == "matrix":
        return [float(v[1]) for item in data["result"] for v in item["values"]]
    return []


def breaker_states(base, name):
    """{upstream or "": value} of a breaker-state gauge, read from the replica's /metrics."""
    status, body = call(f"{base}/metrics")
    if status != 200:
        fail(f"{base}/metrics answered {status}")
    found = {}
    for line in body.decode().splitlines():
        match = re.match(r'%s(?:\{upstream="(\w+)"\})? (\S+)$' % name, line)
        if match:
            found[match.group(1) or ""] = float(match.group(2))
    return found


def wait_until(what, condition, timeout, pause=0.1, step=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if step:
            step()
        if condition():
            return
        time.sleep(pause)
    fail(f"{what}: not after {timeout}s")


def prometheus_sees(prom, expr):
    data, error = query(prom, expr, time.time())
    return error is None and any(not math.isnan(v) for v in values(data))


# ---------------------------------------------------------------------------------------------
# The traffic: healthy, a short fault, healed

def traffic(prom, stub, replicas, token):
    a, b = replicas
    auth = {"Authorization": f"Bearer {token}"}
    wait_until("Prometheus scraping both replicas", lambda: prometheus_sees(prom, 'sum(up{job="product-details"}) == 2'), 20)
    # Healthy: misses on a, the same pages on b (shared-cache hits), hits, every route and answer kind.
    for base in (a, b):
        for n in range(1, 21):
            call(f"{base}/products/p{n}")
        call(f"{base}/products/p1", headers={"If-None-Match": '"x"'})
        call(f"{base}/products/p1", headers={"Cache-Control": "no-cache"})
        call(f"{base}/products?ids=p1,p2,p3,bad!")
        for path in ("/products/no-such-product", "/products/bad!id", "/nope", "/healthz", "/readyz"):
            call(base + path)
        call(f"{base}/products/p1", "POST")
    call(f"{a}/cache/products/p2", "DELETE", headers=auth)
    # Gray failure: the first call for each new page is slow, a second one answers at once; once
    # a has its 20 samples and saw a slow call, its products calls are hedged and the hedge wins.
    stub_faults(stub, "product", {"slowFirstEvery": 1, "slowFirstMs": 400})
    for n in range(50, 54):
        call(f"{a}/products/p{n}")
    clear_faults(stub)
    # Slow products: eight requests for one new page join one load on a (coalescing, a hedge);
    # four for distinct new pages on b, which runs MAX_INFLIGHT_LOADS=1 (load refusals).
    stub_faults(stub, "product", {"latencyMs": 300})
    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        list(pool.map(lambda url: call(url), [f"{a}/products/p100"] * 8 + [f"{b}/products/p10{n}" for n in range(1, 5)]))
    clear_faults(stub)
    # The fault: products and reviews fail until every replica's products breaker is open and
    # Prometheus has seen it.
    stub_faults(stub, "product", {"errorRate": 1})
    stub_faults(stub, "reviews", {"errorRate": 1})
    fresh = iter(range(200, 100000))

    def misses():
        for base in (a, b):
            call(f"{base}/products/p{next(fresh)}")

    wait_until("the products breaker open on both replicas",
               lambda: all(breaker_states(base, "product_details_upstream_breaker_state").get("products") == 1 for base in (a, b)),
               15, step=misses)
    # Misses while the breakers are open: answered 503 at once, they put the 5xx share well over
    # the alert's budget whatever the timing of the failures before.
    for _ in range(20):
        misses()
    wait_until("Prometheus seeing the products breaker open, and its rule evaluated",
               lambda: prometheus_sees(prom, 'min(product_details_upstream_breaker_state{upstream="products"}) == 1')
               and prometheus_sees(prom, 'ALERTS{alertname="ProductDetailsUpstreamBreakerOpen", upstream="products"}')
               and prometheus_sees(prom, 'ALERTS{alertname="ProductDetailsErrorBudget"}'), 10)
    at_fault = time.time()
    # Healed: misses until every breaker is closed again (a trial call after UPSTREAM_BREAKER_OPEN_MS).
    clear_faults(stub)
    wait_until("every upstream breaker closed again",
               lambda: all(set(breaker_states(base, "product_details_upstream_breaker_state").values()) == {0.0} for base in (a, b)),
               20, pause=0.2, step=misses)
    for base in (a, b):
        for n in range(1, 21):
            call(f"{base}/products/p{n}")
    wait_until("Prometheus seeing every breaker closed",
               lambda: prometheus_sees(prom, "max(product_details_upstream_breaker_state) == 0"), 10)
    time.sleep(2)  # two more scrapes of the healed state
    return at_fault, time.time()


# ---------------------------------------------------------------------------------------------
# The expressions, read from the files at run time

# Grafana's own variables, as they would be for a panel over the last 15 minutes.
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "15m"}


def normalized(expr):
    return " ".join(expr.split())


def dashboard_expressions(path):
    with open(path, encoding="utf-8") as handle:
        dashboard = json.load(handle)
    found = []

    def walk(panels):
        for panel in panels:
            walk(panel.get("panels") or [])
            for target in panel.get("targets") or []:
                expr = target.get("expr", "")
                for name, value in GRAFANA_VARIABLES.items():
                    expr = expr.replace(name, value)
                if "$" in expr:
                    fail(f"{path}: panel {panel.get('title')!r} uses a variable this check cannot fill: {expr}")
                found.append((f"{os.path.basename(path)}: {panel.get('title')} ({target.get('refId')})", expr))

    walk(dashboard.get("panels") or [])
    return found


def alert_expressions(path):
    return [(f"{os.path.basename(path)}: alert {rule['alert']}", rule["expr"]) for rule in alert_rules(path)]


def markdown_expressions(path, root):
    """Every expression of the ```promql blocks: `#` lines are comments, a line indented further
    than the fence goes on the expression before it."""
    found, block, indent = [], None, 0
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if block is None:
                if line.strip() == "```promql":
                    block, indent = [], len(line) - len(line.lstrip())
                continue
            line = line[indent:] if not line[:indent].strip() else line
            if line.strip().startswith("```"):
                found.extend(block)
                block = None
            elif not line.strip() or line.lstrip().startswith("#"):
                continue
            elif line[0] in " \t" and block:
                block[-1] = (block[-1][0], block[-1][1] + " " + line.strip())
            else:
                block.append((f"{os.path.relpath(path, root)}:{number}", line.strip()))
    return found


# Selector and grouping syntax stripped before the metric names are read.
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset",
            "inf", "nan"}


def metric_names(expr):
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", "", text)
    text = re.sub(r"\[[^\]]*\]", "", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        name = match.group(0)
        after = text[match.end():].lstrip()
        if name.lower() in KEYWORDS or after.startswith("(") or re.match(r"\d", name):
            continue
        names.add(name)
    return names


def rule_problems(prom, rules_path, at_fault):
    """Prometheus's rule manager loaded every alert of the file and evaluates each without error,
    and during the fault the alerts active (pending or firing, the ALERTS series) are those whose
    expression returns data then."""
    names = [rule["alert"] for rule in alert_rules(rules_path)]
    status, body = call(f"{prom}/api/v1/rules?type=alert")
    loaded = {rule["name"]: rule for group in json.loads(body)["data"]["groups"] for rule in group["rules"]} if status == 200 else {}
    problems = [f"alerts.yml: alert {name}: not loaded by Prometheus" for name in names if name not in loaded]
    problems += [f"alerts.yml: alert {name}: Prometheus evaluates it with {rule.get('health')}: {rule.get('lastError')}"
                 for name, rule in loaded.items() if rule.get("health") != "ok"]
    data, error = query(prom, "ALERTS", at_fault)
    active = {item["metric"]["alertname"] for item in data["result"]} if not error else set()
    for rule in alert_rules(rules_path):
        data, error = query(prom, rule["expr"], at_fault)
        fired = not error and any(not math.isnan(v) for v in values(data))
        if fired != (rule["alert"] in active):
            problems.append(f"alerts.yml: alert {rule['alert']}: its expression {'returned' if fired else 'did not return'} data "
                            f"during the fault, but Prometheus {'did not' if fired else 'did'} make it active")
    print(f"prometheus-check: {len(loaded)} alerts loaded by Prometheus; active during the fault: {', '.join(sorted(active))}")
    return problems


def live(prom, stub, a, b, token, root, expected_path):
    started = time.monotonic()
    at_fault, at_end = traffic(prom, stub, (a, b), token)
    print(f"prometheus-check: traffic with a fault served in {time.monotonic() - started:.1f}s")
    expressions = dashboard_expressions(os.path.join(root, "deploy/grafana/product-details.json"))
    expressions += alert_expressions(os.path.join(root, "deploy/prometheus/alerts.yml"))
    for path in [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs/*.md"))):
        expressions += markdown_expressions(path, root)
    with open(expected_path, encoding="utf-8") as handle:
        expected = {normalized(item["expr"]) if "expr" in item else "alert " + item["alert"]: item["reason"]
                    for item in yaml.safe_load(handle) or []}
    data, error = query(prom, "count by (__name__) ({__name__=~\".+\"})", at_end)
    if error:
        fail(f"listing the metric names: {error}")
    known = {item["metric"]["__name__"] for item in data["result"]}

    problems = rule_problems(prom, os.path.join(root, "deploy/prometheus/alerts.yml"), at_fault)
    used, counts = set(), {"data": 0, "empty": 0}
    for where, expr in expressions:
        key = "alert " + where.split("alert ", 1)[1] if ": alert " in where else normalized(expr)
        unknown = sorted(metric_names(expr) - known)
        if unknown:
            problems.append(f"{where}: no such metric in Prometheus: {', '.join(unknown)}\n    {normalized(expr)}")
            continue
        answers = []
        for at in (at_fault, at_end):
            data, error = query(prom, expr, at)
            if error:
                problems.append(f"{where}: {error}\n    {normalized(expr)}")
                break
            answers.append([v for v in values(data) if not math.isnan(v)])
        else:
            has_data = any(answers)
            if key in expected:
                used.add(key)
                if has_data:
                    problems.append(f"{where}: listed as expected-empty ({expected[key]}) but returned {answers}\n    {normalized(expr)}")
                else:
                    counts["empty"] += 1
                    print(f"  empty, as expected: {where}: {expected[key]}")
            elif has_data:
                counts["data"] += 1
            else:
                problems.append(f"{where}: no data (NaN or nothing) during the fault nor after it; list it in "
                                f"{os.path.relpath(expected_path, root)} with the reason if that is right\n    {normalized(expr)}")
    for key in sorted(set(expected) - used):
        problems.append(f"{os.path.relpath(expected_path, root)}: {key!r} is no expression of the files checked")
    if problems:
        fail(f"{len(problems)} of {len(expressions)} expressions:\n  " + "\n  ".join(problems))
    print(f"prometheus-check: {len(expressions)} expressions evaluated: {counts['data']} returned data, "
          f"{counts['empty']} empty as listed")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "runbooks":
        runbooks(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "prom-port":
        prom_port(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 9 and sys.argv[1] == "live":
        live(*sys.argv[2:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
