"""What ties the deployment files together, checked offline (scripts/deploy-check.sh runs it).

    check_manifests.py ROOT              check the files under ROOT; exit 1 listing every problem
    check_manifests.py ROOT --self-test  also check that broken copies (a shorter grace period,
                                         probes on other paths...) are refused

deploy/kubernetes/*.yaml:
  - the product-details Deployment runs 3 replicas; its readiness probe is GET /readyz and its
    liveness probe GET /healthz, both on the container's port;
  - terminationGracePeriodSeconds >= preStop sleep + SHUTDOWN_DELAY_SECONDS + SHUTDOWN_GRACE_SECONDS
    + the time the last writes have after the grace period (the container's values, else the
    defaults read from Sources/App/AppConfiguration.swift; that time from
    Sources/HTTPServer/ServerConfiguration.swift's shutdownWriteTimeout, rounded up to seconds);
  - every container has CPU and memory requests and limits, runs as non-root, without privilege
    escalation, on a read-only root file system;
  - every Service and PodDisruptionBudget selects the pods of a Deployment, and REDIS_URL and
    UPSTREAM_URL name a Service and its port;
  - Redis runs with no persistence, maxmemory and allkeys-lru.
compose.yaml, deploy/nginx/fleet.conf, deploy/prometheus/prometheus.yml, deploy/grafana/:
  - the nginx upstream and the Prometheus targets are exactly the product-details replicas of
    compose.yaml, on the port each listens on; every replica has REDIS_URL naming the redis service;
  - the replicas' stop_grace_period >= SHUTDOWN_DELAY_SECONDS + SHUTDOWN_GRACE_SECONDS + that time;
  - Redis as above; the load balancer mounts deploy/nginx/fleet.conf, Prometheus the folder
    deploy/prometheus/ (its configuration and the rule files it names) where --config.file says;
  - Grafana mounts deploy/grafana/provisioning/ and the dashboard in the folder its dashboard
    provider reads, and its datasource is the compose prometheus service, under the uid the
    dashboard's panels name.
Dockerfile, .dockerignore:
  - every file or folder the build stage copies from the build context exists and is not left out
    of the context by .dockerignore (patterns per path segment, `!` exceptions, the last match
    deciding, as Docker reads them).
Needs PyYAML (in .venv-deploy).
"""

import copy
import fnmatch
import glob
import json
import os
import re
import sys
from urllib.parse import urlsplit

import yaml

SERVICE = "product-details"


class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, message):
        self.items.append(f"{where}: {message}")

    def check(self, condition, where, message):
        if not condition:
            self.add(where, message)
        return condition


# ---------------------------------------------------------------------------------------------
# Inputs

def swift_defaults(root):
    """The integer defaults of the shutdown settings, as the service reads them."""
    path = os.path.join(root, "Sources/App/AppConfiguration.swift")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    defaults = {}
    for name in ("SHUTDOWN_DELAY_SECONDS", "SHUTDOWN_GRACE_SECONDS"):
        match = re.search(r'"%s",\s*default:\s*(\d+)' % name, text)
        if not match:
            raise SystemExit(f"check_manifests: no default for {name} in {path}")
        defaults[name] = int(match.group(1))
    defaults["SHUTDOWN_WRITE_SECONDS"] = shutdown_write_seconds(root)
    return defaults


def shutdown_write_seconds(root):
    """ServerConfiguration.shutdownWriteTimeout, rounded up to whole seconds: after the grace
    period, connections close within it, so the shutdown lasts that much longer."""
    path = os.path.join(root, "Sources/HTTPServer/ServerConfiguration.swift")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    match = re.search(r"shutdownWriteTimeout:\s*Duration\s*=\s*\.(seconds|milliseconds)\((\d+)\)", text)
    if not match:
        raise SystemExit(f"check_manifests: no default for shutdownWriteTimeout in {path}")
    amount = int(match.group(2))
    return amount if match.group(1) == "seconds" else -(-amount // 1000)


def load_inputs(root):
    kubernetes = []
    for path in sorted(glob.glob(os.path.join(root, "deploy/kubernetes/*.yaml"))):
        with open(path, encoding="utf-8") as handle:
            for document in yaml.safe_load_all(handle):
                if document:
                    kubernetes.append((os.path.relpath(path, root), document))

    def read(relative, parse=True):
        with open(os.path.join(root, relative), encoding="utf-8") as handle:
            return yaml.safe_load(handle) if parse else handle.read()

    return {
        "kubernetes": kubernetes,
        "compose": read("compose.yaml"),
        "nginx": read("deploy/nginx/fleet.conf", parse=False),
        "prometheus": read("deploy/prometheus/prometheus.yml"),
        "grafana_datasources": read("deploy/grafana/provisioning/datasources/prometheus.yml"),
        "grafana_dashboards": read("deploy/grafana/provisioning/dashboards/product-details.yml"),
        "dashboard": json.loads(read("deploy/grafana/product-details.json", parse=False)),
        "defaults": swift_defaults(root),
        "dockerfile": read("Dockerfile", parse=False),
        "dockerignore": read(".dockerignore", parse=False),
        "root": root,
    }


# ---------------------------------------------------------------------------------------------
# Shared rules

def redis_flags(where, argv, problems):
    """`--save "" --appendonly no --maxmemory N --maxmemory-policy allkeys-lru` in argv."""
    argv = [str(item) for item in argv or []]

    def value(flag):
        return argv[argv.index(flag) + 1] if flag in argv and argv.index(flag) + 1 < len(argv) else None

    problems.check(value("--save") == "", where, 'Redis must run with --save "" (no snapshots)')
    problems.check(value("--appendonly") == "no", where, "Redis must run with --appendonly no")
    problems.check(bool(value("--maxmemory")) and value("--maxmemory") != "0", where, "Redis needs a --maxmemory bound")
    problems.check(value("--maxmemory-policy") == "allkeys-lru", where, "Redis needs --maxmemory-policy allkeys-lru")


def env_int(where, env, name, defaults, problems):
    raw = env.get(name)
    if raw is None:
        return defaults[name]
    try:
        return int(str(raw))
    except ValueError:
        problems.add(where, f"{name}={raw!r} is not a whole number of seconds")
        return 0


def duration_seconds(text):
    """Compose durations: 15s, 1m30s, 500ms; a bare number is seconds here."""
    text = str(text).strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    total, position = 0.0, 0
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001, "us": 1e-6}
    for match in re.finditer(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", text):
        if match.start() != position:
            return None
        total += float(match.group(1)) * units[match.group(2)]
        position = match.end()
    return total if position == len(text) and position else None


# ---------------------------------------------------------------------------------------------
# Kubernetes

def pod_spec(document):
    return ((document.get("spec") or {}).get("template") or {}).get("spec") or {}


def container_env(container):
    """Literal env values; valueFrom entries map to None."""
    return {item["name"]: item.get("value") for item in container.get("env") or []}


def check_probe(where, container, kind, path, problems):
    probe = container.get(kind) or {}
    http = probe.get("httpGet") or {}
    if not problems.check(bool(http), where, f"{kind} must be an httpGet probe"):
        return
    problems.check(http.get("path") == path, where, f"{kind} must GET {path}, not {http.get('path')}")
    ports = {p.get("name"): p.get("containerPort") for p in container.get("ports") or []}
    port = http.get("port")
    problems.check(port in ports or port in ports.values(), where,
                   f"{kind} port {port!r} is not one of the container's ports {sorted(map(str, ports))}")


def pre_stop_seconds(where, container, problems):
    pre_stop = (container.get("lifecycle") or {}).get("preStop") or {}
    if "sleep" in pre_stop:
        return int(pre_stop["sleep"].get("seconds", 0))
    command = (pre_stop.get("exec") or {}).get("command") or []
    if len(command) == 2 and command[0] in ("sleep", "/bin/sleep", "/usr/bin/sleep") and str(command[1]).isdigit():
        return int(command[1])
    problems.add(where, f"preStop must be a sleep (exec [sleep, N] or sleep.seconds), got {pre_stop or 'none'}")
    return 0


def check_container_basics(where, container, problems):
    resources = container.get("resources") or {}
    for group in ("requests", "limits"):
        for resource in ("cpu", "memory"):
            problems.check(resource in (resources.get(group) or {}), where, f"no {group}.{resource}")
    context = container.get("securityContext") or {}
    problems.check(context.get("allowPrivilegeEscalation") is False, where, "allowPrivilegeEscalation must be false")
    problems.check(context.get("readOnlyRootFilesystem") is True, where, "readOnlyRootFilesystem must be true")


def check_kubernetes(inputs, problems):
    documents = inputs["kubernetes"]
    defaults = inputs["defaults"]
    if not problems.check(bool(documents), "deploy/kubernetes", "no manifests"):
        return
    deployments = {d["metadata"]["name"]: (f, d) for f, d in documents if d.get("kind") == "Deployment"}
    services = {d["metadata"]["name"]: (f, d) for f, d in documents if d.get("kind") == "Service"}

    for name, (path, deployment) in deployments.items():
        where = f"{path} Deployment/{name}"
        spec = pod_spec(deployment)
        pod_context = spec.get("securityContext") or {}
        for container in spec.get("containers") or []:
            cwhere = f"{where} container {container.get('name')}"
            check_container_basics(cwhere, container, problems)
            non_root = (container.get("securityContext") or {}).get("runAsNonRoot", pod_context.get("runAsNonRoot"))
            problems.check(non_root is True, cwhere, "runAsNonRoot must be true")
            image = str(container.get("image", ""))
            if image.split(":")[0].split("/")[-1] == "redis":
                redis_flags(cwhere, (container.get("command") or []) + (container.get("args") or []), problems)
        labels = ((deployment["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {}
        selector = (deployment["spec"].get("selector") or {}).get("matchLabels") or {}
        problems.check(selector and all(labels.get(k) == v for k, v in selector.items()), where,
                       "selector.matchLabels must match the pod template's labels")

    def selects_a_deployment(selector):
        return any(selector and all(
            (pod_spec_labels(d)).get(k) == v for k, v in selector.items()) for _, d in deployments.values())

    for name, (path, service) in services.items():
        selector = (service.get("spec") or {}).get("selector") or {}
        problems.check(selects_a_deployment(selector), f"{path} Service/{name}", f"selector {selector} matches no Deployment's pods")

    budgets = [(f, d) for f, d in documents if d.get("kind") == "PodDisruptionBudget"]
    for path, budget in budgets:
        selector = ((budget.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
        problems.check(selects_a_deployment(selector), f"{path} PodDisruptionBudget/{budget['metadata']['name']}",
                       f"selector {selector} matches no Deployment's pods")

    if not problems.check(SERVICE in deployments, "deploy/kubernetes", f"no Deployment named {SERVICE}"):
        return
    path, deployment = deployments[SERVICE]
    where = f"{path} Deployment/{SERVICE}"
    problems.check(deployment["spec"].get("replicas") == 3, where, "the fleet runs 3 replicas")
    labels = pod_spec_labels(deployment)
    problems.check(any(all(labels.get(k) == v for k, v in
                           (((b.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}).items())
                       for _, b in budgets), where, "no PodDisruptionBudget selects its pods")
    spec = pod_spec(deployment)
    containers = [c for c in spec.get("containers") or [] if c.get("name") == SERVICE]
    if not problems.check(len(containers) == 1, where, f"one container named {SERVICE}"):
        return
    container = containers[0]
    check_probe(where, container, "readinessProbe", "/readyz", problems)
    check_probe(where, container, "livenessProbe", "/healthz", problems)

    env = container_env(container)
    pre_stop = pre_stop_seconds(where, container, problems)
    delay = env_int(where, env, "SHUTDOWN_DELAY_SECONDS", defaults, problems)
    grace = env_int(where, env, "SHUTDOWN_GRACE_SECONDS", defaults, problems)
    last_writes = defaults["SHUTDOWN_WRITE_SECONDS"]
    termination = spec.get("terminationGracePeriodSeconds", 30)
    needed = pre_stop + delay + grace + last_writes
    problems.check(
        termination >= needed, where,
        f"terminationGracePeriodSeconds {termination} < preStop {pre_stop} + SHUTDOWN_DELAY_SECONDS {delay}"
        f" + SHUTDOWN_GRACE_SECONDS {grace} + last writes {last_writes} = {needed}: SIGKILL would cut the drain short")

    for variable in ("REDIS_URL", "UPSTREAM_URL"):
        url = env.get(variable)
        if not problems.check(bool(url), where, f"{variable} must be set to a literal URL"):
            continue
        parts = urlsplit(url)
        target = services.get(parts.hostname)
        if not problems.check(target is not None, where, f"{variable} host {parts.hostname!r} is no Service here"):
            continue
        ports = [p.get("port") for p in (target[1].get("spec") or {}).get("ports") or []]
        problems.check(parts.port in ports, where, f"{variable} port {parts.port} is not a port of Service/{parts.hostname} {ports}")


def pod_spec_labels(deployment):
    return (((deployment.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}


# ---------------------------------------------------------------------------------------------
# Compose, nginx, Prometheus

def compose_env(service):
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, None) for item in env)
    return env


def check_compose(inputs, problems):
    services = inputs["compose"].get("services") or {}
    defaults = inputs["defaults"]
    replicas = {name: svc for name, svc in services.items() if re.fullmatch(SERVICE + r"-\d+", name)}
    problems.check(len(replicas) == 3, "compose.yaml", f"three {SERVICE}-N services, found {sorted(replicas)}")

    expected = set()
    for name, svc in sorted(replicas.items()):
        where = f"compose.yaml {name}"
        env = compose_env(svc)
        expected.add(f"{name}:{env.get('PORT', 8080)}")
        url = urlsplit(str(env.get("REDIS_URL", "")))
        problems.check(url.scheme == "redis" and url.hostname in services, where,
                       f"REDIS_URL must name a service of this file, got {env.get('REDIS_URL')!r}")
        delay = env_int(where, env, "SHUTDOWN_DELAY_SECONDS", defaults, problems)
        grace = env_int(where, env, "SHUTDOWN_GRACE_SECONDS", defaults, problems)
        stop = duration_seconds(svc.get("stop_grace_period", "10s"))
        last_writes = defaults["SHUTDOWN_WRITE_SECONDS"]
        problems.check(stop is not None and stop >= delay + grace + last_writes, where,
                       f"stop_grace_period {svc.get('stop_grace_period', '10s (default)')} is shorter than "
                       f"SHUTDOWN_DELAY_SECONDS {delay} + SHUTDOWN_GRACE_SECONDS {grace} + last writes {last_writes}")

    redis = services.get("redis")
    if problems.check(redis is not None, "compose.yaml", "no redis service"):
        problems.check(str(redis.get("image", "")).startswith("redis:"), "compose.yaml redis", "the official redis image")
        command = redis.get("command") or []
        redis_flags("compose.yaml redis", command if isinstance(command, list) else command.split(), problems)

    balancers = [name for name, svc in services.items() if str(svc.get("image", "")).startswith("nginx:")]
    if problems.check(len(balancers) == 1, "compose.yaml", "one load balancer on the official nginx image"):
        svc = services[balancers[0]]
        mounts = [str(v) for v in svc.get("volumes") or []]
        problems.check(any(v.startswith("./deploy/nginx/fleet.conf:") for v in mounts), f"compose.yaml {balancers[0]}",
                       "must mount ./deploy/nginx/fleet.conf")

    prometheus = services.get("prometheus")
    if problems.check(prometheus is not None, "compose.yaml", "no prometheus service"):
        mounts = [str(v).split(":") for v in prometheus.get("volumes") or []]
        folders = [m[1] for m in mounts if len(m) >= 2 and m[0].rstrip("/") == "./deploy/prometheus"]
        configs = [str(a).split("=", 1)[1] for a in prometheus.get("command") or [] if str(a).startswith("--config.file=")]
        problems.check(bool(folders) and len(configs) == 1 and configs[0] == folders[0].rstrip("/") + "/prometheus.yml",
                       "compose.yaml prometheus",
                       f"must mount ./deploy/prometheus and read prometheus.yml from it (mounts at {folders}, --config.file {configs})")

    upstream = re.search(r"upstream\s+\S+\s*\{(.*?)\}", inputs["nginx"], flags=re.S)
    servers = set(re.findall(r"^\s*server\s+([^\s;]+)", upstream.group(1), flags=re.M)) if upstream else set()
    problems.check(servers == expected, "deploy/nginx/fleet.conf",
                   f"upstream servers {sorted(servers)} must be the compose replicas {sorted(expected)}")

    targets = set()
    for job in inputs["prometheus"].get("scrape_configs") or []:
        for static in job.get("static_configs") or []:
            targets.update(static.get("targets") or [])
    problems.check(targets == expected, "deploy/prometheus/prometheus.yml",
                   f"targets {sorted(targets)} must be the compose replicas {sorted(expected)}")


def check_grafana(inputs, problems):
    services = inputs["compose"].get("services") or {}
    grafana = services.get("grafana")
    if not problems.check(grafana is not None, "compose.yaml", "no grafana service"):
        return
    mounts = dict(str(v).rsplit(":ro", 1)[0].split(":", 1) for v in grafana.get("volumes") or [] if ":" in str(v))
    problems.check(mounts.get("./deploy/grafana/provisioning") == "/etc/grafana/provisioning", "compose.yaml grafana",
                   "must mount ./deploy/grafana/provisioning on /etc/grafana/provisioning")
    folders = [p.get("options", {}).get("path") for p in inputs["grafana_dashboards"].get("providers") or []]
    target = mounts.get("./deploy/grafana/product-details.json", "")
    problems.check(target.rsplit("/", 1)[0] in folders, "compose.yaml grafana",
                   f"must mount ./deploy/grafana/product-details.json in a provider's folder {folders}, not {target!r}")
    sources = inputs["grafana_datasources"].get("datasources") or []
    prometheus = [s for s in sources if s.get("type") == "prometheus"]
    if problems.check(len(prometheus) == 1, "deploy/grafana/provisioning/datasources", "one prometheus datasource"):
        url = urlsplit(str(prometheus[0].get("url", "")))
        published = [str(p).rsplit(":", 1)[-1] for p in (services.get("prometheus") or {}).get("ports") or []]
        problems.check(url.hostname == "prometheus" and str(url.port) in published + ["9090"], "deploy/grafana/provisioning/datasources",
                       f"url {prometheus[0].get('url')!r} must be the compose prometheus service")
        uids = {(p.get("datasource") or {}).get("uid") for p in inputs["dashboard"].get("panels") or [] if p.get("type") != "row"}
        problems.check(uids == {prometheus[0].get("uid")}, "deploy/grafana/product-details.json",
                       f"panels name datasources {sorted(map(str, uids))}, provisioned is {prometheus[0].get('uid')!r}")


# ---------------------------------------------------------------------------------------------
# Dockerfile and .dockerignore

def context_copies(dockerfile):
    """The sources of each COPY that reads the build context (not `--from=` another stage)."""
    sources = []
    for line in dockerfile.replace("\\\n", " ").splitlines():
        words = line.split()
        if not words or words[0].upper() != "COPY" or any(w.startswith("--from=") for w in words):
            continue
        operands = [w for w in words[1:] if not w.startswith("--")]
        sources.extend(operands[:-1])
    return sources


def left_out_of_context(dockerignore, path):
    """Whether .dockerignore leaves `path` (relative, `/`-separated) out of the build context: a
    pattern matches the path or a folder above it segment by segment; the last match decides."""
    segments = path.strip("/").split("/")
    excluded = False
    for line in dockerignore.splitlines():
        pattern = line.strip()
        if not pattern or pattern.startswith("#"):
            continue
        keep = pattern.startswith("!")
        parts = pattern.lstrip("!").strip("/").split("/")
        if len(parts) <= len(segments) and all(fnmatch.fnmatchcase(s, p) for s, p in zip(segments, parts)):
            excluded = not keep
    return excluded


def check_docker(inputs, problems):
    sources = context_copies(inputs["dockerfile"])
    problems.check(sources, "Dockerfile", "no COPY from the build context found")
    for source in sources:
        where = f"Dockerfile: COPY {source}"
        problems.check(os.path.exists(os.path.join(inputs["root"], source)), where, "no such file or folder")
        problems.check(not left_out_of_context(inputs["dockerignore"], source), where,
                       "excluded by .dockerignore: the build would not find it")


def check(inputs):
    problems = Problems()
    check_kubernetes(inputs, problems)
    check_compose(inputs, problems)
    check_grafana(inputs, problems)
    check_docker(inputs, problems)
    return problems.items


# ---------------------------------------------------------------------------------------------
# Self-test: the check must refuse what it exists to catch.

def self_test(inputs):
    def deployment(mutated):
        for _, document in mutated["kubernetes"]:
            if document.get("kind") == "Deployment" and document["metadata"]["name"] == SERVICE:
                return document
        raise SystemExit("check_manifests: self-test found no Deployment to break")

    def container(mutated):
        return [c for c in pod_spec(deployment(mutated))["containers"] if c["name"] == SERVICE][0]

    def lower_grace(m):
        # One second below preStop + delay + grace + the last writes.
        env = container_env(container(m))
        needed = (pre_stop_seconds("", container(m), Problems())
                  + env_int("", env, "SHUTDOWN_DELAY_SECONDS", m["defaults"], Problems())
                  + env_int("", env, "SHUTDOWN_GRACE_SECONDS", m["defaults"], Problems())
                  + m["defaults"]["SHUTDOWN_WRITE_SECONDS"])
        pod_spec(deployment(m))["terminationGracePeriodSeconds"] = needed - 1

    def raise_shutdown_grace(m):
        for item in container(m)["env"]:
            if item["name"] == "SHUTDOWN_GRACE_SECONDS":
                item["value"] = str(int(item["value"]) + pod_spec(deployment(m))["terminationGracePeriodSeconds"])

    def longer_pre_stop(m):
        container(m)["lifecycle"]["preStop"] = {"exec": {"command": ["sleep", "600"]}}

    def readiness_on_healthz(m):
        container(m)["readinessProbe"]["httpGet"]["path"] = "/healthz"

    def liveness_on_readyz(m):
        container(m)["livenessProbe"]["httpGet"]["path"] = "/readyz"

    def redis_persistence(m):
        m["compose"]["services"]["redis"]["command"] = ["redis-server", "--appendonly", "yes"]

    def missing_target(m):
        m["prometheus"]["scrape_configs"][0]["static_configs"][0]["targets"].pop()

    def prometheus_mount(m):
        m["compose"]["services"]["prometheus"]["volumes"] = ["./deploy/prometheus.yml:/etc/prometheus/prometheus.yml:ro"]

    def dashboard_elsewhere(m):
        m["compose"]["services"]["grafana"]["volumes"][1] = "./deploy/grafana/product-details.json:/tmp/product-details.json:ro"

    def datasource_uid(m):
        m["grafana_datasources"]["datasources"][0]["uid"] = "other"

    def compose_grace(m):
        for name, svc in m["compose"]["services"].items():
            if name.startswith(SERVICE + "-"):
                svc["stop_grace_period"] = "5s"

    def context_without_flags(m):
        m["dockerignore"] = m["dockerignore"].replace("!scripts/release-flags", "")

    def copy_missing(m):
        m["dockerfile"] = m["dockerfile"].replace("COPY Tests ./Tests", "COPY Tests Fixtures ./")

    # Each broken copy, and words the refusal must contain (refused for the right reason).
    cases = [(lower_grace, "terminationGracePeriodSeconds"), (raise_shutdown_grace, "terminationGracePeriodSeconds"),
             (longer_pre_stop, "terminationGracePeriodSeconds"), (readiness_on_healthz, "readinessProbe must GET /readyz"),
             (liveness_on_readyz, "livenessProbe must GET /healthz"), (redis_persistence, "--appendonly no"),
             (missing_target, "deploy/prometheus/prometheus.yml"), (prometheus_mount, "./deploy/prometheus"),
             (dashboard_elsewhere, "provider's folder"), (datasource_uid, "panels name datasources"), (compose_grace, "stop_grace_period"),
             (context_without_flags, "excluded by .dockerignore"), (copy_missing, "no such file")]
    failed = []
    for case, reason in cases:
        mutated = copy.deepcopy(inputs)
        case(mutated)
        if not any(reason in problem for problem in check(mutated)):
            failed.append(case.__name__)
    return len(cases), failed


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--self-test"):
        raise SystemExit(__doc__)
    inputs = load_inputs(sys.argv[1])
    problems = check(inputs)
    for problem in problems:
        print(f"check_manifests: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    documents = len(inputs["kubernetes"])
    print(f"check_manifests: {documents} Kubernetes documents, compose.yaml, fleet.conf, prometheus/prometheus.yml, grafana, "
          "Dockerfile: OK")
    if len(sys.argv) == 3:
        count, failed = self_test(inputs)
        if failed:
            print(f"check_manifests: self-test: broken copies accepted: {', '.join(failed)}", file=sys.stderr)
            sys.exit(1)
        print(f"check_manifests: self-test: {count} broken copies refused")


if __name__ == "__main__":
    main()
