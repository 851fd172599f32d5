"""deploy/monitoring against the tools and the binary it describes: promtool checks and unit-tests
every rule file (the alerting rules, the descheduler's recording rule), each recorded series is
sampled by its test, and lints the /metrics of a real netscore-extender (127.0.0.1, a published
table, one prioritize call); every netscore metric the rules and the Grafana dashboard use must
appear there; the PodMonitor scrapes the container port the manifests name."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from local_http import free_port, wait_until_ok  # noqa: E402

DEADLINE_S = 20.0
METRIC = re.compile(r"\bnetscore_[a-z0-9_]+")


def get(url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def exposed_metrics(extender, fixture):
    """The /metrics text of a real extender once it serves a table and has answered the scheduler."""
    shm = f"netscore-monitoring-{os.getpid()}"
    port = free_port()
    subprocess.run([fixture, "publish", shm, "", "node-a", "100", "50", "1"], check=True, timeout=30)
    env = {"PATH": os.environ.get("PATH", ""), "NETSCORE_SHM_NAME": shm, "NETSCORE_LISTEN": f"127.0.0.1:{port}"}
    env.update({k: v for k, v in os.environ.items() if k.endswith("SAN_OPTIONS")})
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([extender], env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            if not wait_until_ok(base + "/readyz", process, DEADLINE_S):
                log.seek(0)
                sys.exit(f"FAIL: extender not ready within {DEADLINE_S}s; output:\n{log.read().decode(errors='replace')}")
            get(base + "/prioritize", {"Pod": {}, "NodeNames": ["node-a", "node-unknown"]})
            status, text = get(base + "/metrics")
        finally:
            process.terminate()
            process.wait(timeout=DEADLINE_S)
            subprocess.run([fixture, "remove", shm], timeout=30)
        if status != 200:
            log.seek(0)
            sys.exit(f"FAIL: /metrics answered {status}; extender output:\n{log.read().decode(errors='replace')}")
    return text


def metric_names(text):
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}


def unsampled_records(monitoring, rule_file, test_file):
    """Recorded series that no promql_expr_test of the rule file's test expects a sample of."""
    with open(os.path.join(monitoring, rule_file), encoding="utf-8") as f:
        records = {r["record"] for g in yaml.safe_load(f)["groups"] for r in g["rules"] if "record" in r}
    with open(os.path.join(monitoring, test_file), encoding="utf-8") as f:
        sampled = {s["labels"].split("{")[0] for case in yaml.safe_load(f)["tests"]
                   for t in case.get("promql_expr_test", []) for s in t.get("exp_samples", [])}
    return [f"recording rule {r} never expected to give a sample in {test_file}" for r in sorted(records - sampled)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repo", required=True)
    p.add_argument("--promtool", required=True)
    p.add_argument("--extender", required=True)
    p.add_argument("--fixture", required=True)
    args = p.parse_args()
    monitoring = os.path.join(args.repo, "deploy", "monitoring")
    errors = []

    rule_files = sorted(f for f in os.listdir(monitoring) if f.endswith("-rules.yaml"))
    for rule_file in rule_files:
        test_file = rule_file.replace(".yaml", "_test.yaml")
        for cmd in (["check", "rules", rule_file], ["test", "rules", test_file]):
            result = subprocess.run([args.promtool] + cmd, cwd=monitoring, capture_output=True, text=True,
                                    timeout=120)
            print(result.stdout + result.stderr)
            if result.returncode != 0:
                errors.append(f"promtool {' '.join(cmd)} failed")
        errors += unsampled_records(monitoring, rule_file, test_file)

    with open(os.path.join(monitoring, "netscore-rules.yaml"), encoding="utf-8") as f:
        rules = [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]
    alerts = [r for r in rules if "alert" in r]
    if len(alerts) < 3:
        errors.append(f"{len(alerts)} alerts, expected at least 3")
    if not any("netscore_extender_table_age_seconds" in r["expr"] for r in alerts):
        errors.append("no alert on netscore_extender_table_age_seconds")
    with open(os.path.join(monitoring, "netscore-rules_test.yaml"), encoding="utf-8") as f:
        tested = {t["alertname"] for case in yaml.safe_load(f)["tests"] for t in case.get("alert_rule_test", [])
                  if t.get("exp_alerts")}
    errors += [f"alert {a['alert']} never expected to fire in netscore-rules_test.yaml"
               for a in alerts if a["alert"] not in tested]

    with open(os.path.join(monitoring, "netscore-dashboard.json"), encoding="utf-8") as f:
        dashboard = json.load(f)
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel.get("targets", [])]
    exprs += [v.get("definition", "") for v in dashboard.get("templating", {}).get("list", [])]
    if len(exprs) < 5:
        errors.append(f"dashboard has only {len(exprs)} queries")
    text = exposed_metrics(args.extender, args.fixture)
    result = subprocess.run([args.promtool, "check", "metrics"], input=text, capture_output=True, text=True,
                            timeout=120)
    print(result.stdout + result.stderr)
    if result.returncode != 0:
        errors.append("promtool check metrics rejects the extender's /metrics")
    exposed = metric_names(text)
    used = {("dashboard", m) for e in exprs for m in METRIC.findall(e)}
    used |= {("rules", m) for r in rules for m in METRIC.findall(r["expr"])}
    errors += [f"{where} uses {m}, which the extender's /metrics does not expose" for where, m in sorted(used)
               if m not in exposed]

    with open(os.path.join(monitoring, "podmonitor.yaml"), encoding="utf-8") as f:
        monitor = yaml.safe_load(f)
    with open(os.path.join(args.repo, "deploy", "base", "pod-template.yaml"), encoding="utf-8") as f:
        containers = yaml.safe_load(f)["spec"]["template"]["spec"]["containers"]
    extender = next(c for c in containers if c["name"] == "extender")
    ports = {p["name"]: p["containerPort"] for p in extender.get("ports", [])}
    env = {e["name"]: e.get("value", "") for e in extender.get("env", [])}
    endpoint = monitor["spec"]["podMetricsEndpoints"][0]
    if endpoint.get("port") not in ports or endpoint.get("path") != "/metrics":
        errors.append(f"PodMonitor scrapes {endpoint}, but the extender's ports are {ports}")
    elif not env.get("NETSCORE_METRICS_LISTEN", "").endswith(f":{ports[endpoint['port']]}"):
        errors.append(f"port {endpoint['port']} is not NETSCORE_METRICS_LISTEN ({env.get('NETSCORE_METRICS_LISTEN')})")

    for e in errors:
        print("FAIL:", e)
    if errors:
        sys.exit(1)
    print(f"ok: {len(rule_files)} rule files, {len(alerts)} alerts, {len(exprs)} dashboard queries, {len({m for _, m in used})} metric names checked")


if __name__ == "__main__":
    main()
