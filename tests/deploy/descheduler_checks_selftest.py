#!/usr/bin/env python3
"""Proves the descheduler overlay's checks are not blind: each case breaks one thing in the real
rendered overlay and expects an error naming it."""
import argparse
import copy
import os
import sys

import yaml

import check_manifests
import descheduler_checks as dc
import kustomize_lite
import manifest_checks as mc


def workload(docs):
    return dc.descheduler_workload(docs)


def container(docs):
    return mc.containers_by_name(workload(docs))["descheduler"]


def policy_map(docs):
    return next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].startswith("descheduler-policy"))


def edit_policy(change):
    def apply(docs):
        cm = policy_map(docs)
        key = next(iter(cm["data"]))
        policy = yaml.safe_load(cm["data"][key])
        change(policy)
        cm["data"][key] = yaml.safe_dump(policy)
    return apply


def profile(policy):
    return policy["profiles"][0]


def args_of(policy, name):
    return next(c["args"] for c in profile(policy)["pluginConfig"] if c["name"] == name)


def role(docs, kind):
    return next(d for d in docs if d["kind"] == kind)


CASES = [
    ("the image", lambda d: container(d).update(image="registry.k8s.io/descheduler/descheduler:v0.32.0"), "image"),
    ("no interval", lambda d: container(d).update(args=[a for a in container(d)["args"]
                                                        if not a.startswith("--descheduling-interval")]),
     "--descheduling-interval"),
    ("the kubelet's token", lambda d: mc.pod_spec(workload(d)).pop("automountServiceAccountToken"),
     "automountServiceAccountToken"),
    ("no CA in the projection", lambda d: next(v for v in mc.pod_spec(workload(d))["volumes"]
                                               if "projected" in v)["projected"]["sources"].pop(1), "ca.crt"),
    ("pods delete", lambda d: role(d, "ClusterRole")["rules"].append(
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"]}), "['delete'] on core/pods"),
    ("no eviction", lambda d: role(d, "ClusterRole")["rules"].__setitem__(
        slice(None), [r for r in role(d, "ClusterRole")["rules"] if r["resources"] != ["pods/eviction"]]),
     "pods/eviction"),
    ("secrets cluster-wide", lambda d: role(d, "ClusterRole")["rules"].append(
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}), "on core/secrets"),
    ("http", edit_policy(lambda p: p["metricsProviders"][0]["prometheus"].update(
        url="http://prometheus-k8s.monitoring.svc:9090")), "is not https"),
    ("a port", edit_policy(lambda p: p["metricsProviders"][0]["prometheus"].update(
        url="https://prometheus-k8s.monitoring.svc:9091")), "has a port"),
    ("another query", edit_policy(lambda p: args_of(p, "LowNodeUtilization")["metricsUtilization"]["prometheus"].update(
        query="instance:node_cpu:ratio")), "must read a series"),
    ("a misspelt arg", edit_policy(lambda p: args_of(p, "DefaultEvictor").update(evictDaemonsetPods=False)),
     "no key evictDaemonsetPods"),
    ("DaemonSet pods", edit_policy(lambda p: args_of(p, "DefaultEvictor").update(evictDaemonSetPods=True)),
     "evictDaemonSetPods must be false"),
    ("bare pods", edit_policy(lambda p: args_of(p, "DefaultEvictor").update(evictFailedBarePods=True)),
     "evictFailedBarePods must be false"),
    ("cpu thresholds", edit_policy(lambda p: args_of(p, "LowNodeUtilization")["thresholds"].update(cpu=20)),
     "MetricResource alone"),
    ("inverted thresholds", edit_policy(lambda p: args_of(p, "LowNodeUtilization")["thresholds"].update(
        MetricResource=80)), "thresholds < targetThresholds"),
    ("static thresholds", edit_policy(lambda p: args_of(p, "LowNodeUtilization").pop("useDeviationThresholds")),
     "useDeviationThresholds must be true"),
    ("no eviction limit", edit_policy(lambda p: args_of(p, "LowNodeUtilization").pop("evictionLimits")),
     "evictionLimits.node"),
    ("one a node", edit_policy(lambda p: args_of(p, "LowNodeUtilization")["evictionLimits"].update(node=1)),
     "evictionLimits.node must be 2"),
    ("every pod evictable", edit_policy(lambda p: args_of(p, "DefaultEvictor").pop("labelSelector")),
     "labelSelector must be"),
]


def collector_env(docs):
    workload = next(d for d in docs if d["kind"] in ("DaemonSet", "Deployment") and "collector" in mc.containers_by_name(d))
    return mc.containers_by_name(workload)["collector"]["env"]


def set_env(name, value):
    def change(docs):
        env = collector_env(docs)
        found = [e for e in env if e["name"] == name]
        if found:
            found[0].update(value=value)
        else:
            env.append({"name": name, "value": value})
    return change


# The control-plane overlay with the descheduler's collector component, broken one way each.
COLLECTOR_CASES = [
    ("labelling off", set_env("NETSCORE_REBALANCE_LABEL", "false"), "NETSCORE_REBALANCE_LABEL is not true"),
    ("another target", set_env("NETSCORE_REBALANCE_TARGET_POINTS", "30"), "NETSCORE_REBALANCE_TARGET_POINTS=30"),
    ("another figure", set_env("NETSCORE_REBALANCE_UTILISATION", "absolute"),
     "NETSCORE_REBALANCE_UTILISATION=absolute but the policy reads node:netscore_link_utilisation:relative"),
    ("another age", set_env("NETSCORE_REBALANCE_MIN_POD_AGE", "5m"), "NETSCORE_REBALANCE_MIN_POD_AGE=5m"),
    ("the scores' window", set_env("NETSCORE_REBALANCE_WINDOW", "5m"), "NETSCORE_REBALANCE_WINDOW is 5m"),
    ("a slower refresh", set_env("NETSCORE_REFRESH_INTERVAL", "30s"), "NETSCORE_REBALANCE_WINDOW is 120s"),
    ("no patch", lambda docs: [d for d in docs if d["kind"] == "ClusterRole"
                               and d["metadata"]["name"] == "netscore-collector-rebalance"][0].update(rules=[]),
     "may not patch pods"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--descheduler", help="a descheduler v0.33.0 binary: it must refuse broken policies too")
    args = parser.parse_args()
    rendered = kustomize_lite.build(os.path.join(args.repo, "deploy", "overlays", "descheduler"))
    failures = [f"the real overlay: {e}" for e in dc.check(args.repo, rendered)]
    for name, breaks, expected in CASES:
        docs = copy.deepcopy(rendered)
        breaks(docs)
        errors = dc.check(args.repo, docs)
        if not any(expected in e for e in errors):
            failures.append(f"{name}: no error containing {expected!r}, got {errors}")
    policy = dc.policy_of(rendered)
    nominating = check_manifests.render_with_nominating_collector(args.repo, "control-plane")
    window = dc.recorded_window(args.repo)
    failures += [f"the real collector component: {e}"
                 for e in dc.check_nominating_collector(nominating, policy, window)]
    for name, breaks, expected in COLLECTOR_CASES:
        docs = copy.deepcopy(nominating)
        breaks(docs)
        errors = dc.check_nominating_collector(docs, policy, window)
        if not any(expected in e for e in errors):
            failures.append(f"{name}: no error containing {expected!r}, got {errors}")
    if args.descheduler:
        policy = yaml.safe_load(next(iter(policy_map(rendered)["data"].values())))
        failures += [f"the real policy: {e}" for e in dc.check_with_descheduler(args.descheduler, policy)]
        for name, change in (
                ("a misspelt arg", lambda p: args_of(p, "DefaultEvictor").update(evictDaemonsetPods=False)),
                ("http", lambda p: p["metricsProviders"][0]["prometheus"].update(url="http://p:9090"))):
            broken = copy.deepcopy(policy)
            change(broken)
            if not dc.check_with_descheduler(args.descheduler, broken):
                failures.append(f"{name}: the descheduler binary accepted it")
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print(f"ok: {len(CASES) + len(COLLECTOR_CASES)} broken overlays refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
