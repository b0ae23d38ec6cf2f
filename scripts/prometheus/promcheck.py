"""Helpers for scripts/prometheus-check.sh (standard library plus PyYAML from .venv-deploy).

    promcheck.py runbooks RULES DOC    every alert in RULES has a `runbook` annotation naming a
                                       section (heading anchor) of DOC

Every failure exits non-zero with a message on stderr.
"""

import os
import re
import sys

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


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "runbooks":
        runbooks(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
