#!/usr/bin/env python3
"""Proves the manifest checks are not blind: each case breaks one thing in the real
deploy/base pod template or the real scheduler configuration and expects a matching error."""
import argparse
import copy
import os
import sys

import yaml

import manifest_checks as mc


def load(repo, path):
    with open(os.path.join(repo, path), encoding="utf-8") as f:
        return yaml.safe_load(f)


def container(workload, name):
    return mc.containers_by_name(workload)[name]


def set_env(workload, name, var, value):
    env = container(workload, name).setdefault("env", [])
    env[:] = [e for e in env if e["name"] != var] + [{"name": var, "value": value}]


def load_all(repo, path):
    with open(os.path.join(repo, path), encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--env-doc", required=True)
    args = parser.parse_args()
    by_component, variables = mc.load_variables(args.env_doc)
    pod = load(args.repo, "deploy/base/pod-template.yaml")
    config = load(args.repo, "deploy/overlays/control-plane/kube-scheduler-config.yaml")
    filter_config = load(args.repo, "deploy/overlays/control-plane/kube-scheduler-config-filter.yaml")

    def workload_errors(w):
        return (mc.check_env(w, by_component) + mc.check_shm(w) + mc.check_security(w)
                + mc.check_probes(w, variables))

    def config_errors(c, w=pod, filter_verb=False):
        return mc.check_scheduler_config(c, container(w, "extender"), variables, "default-scheduler", filter_verb)

    def broken_filter_config(edit):
        c = copy.deepcopy(filter_config)
        edit(c)
        return config_errors(c, filter_verb=True)

    def broken_pod(edit):
        w = copy.deepcopy(pod)
        edit(w)
        return workload_errors(w)

    def broken_config(edit, w=pod):
        c = copy.deepcopy(config)
        edit(c)
        return config_errors(c, w)

    # The control-plane overlay's API access, assembled from the real files without kustomize.
    rbac = load_all(args.repo, "deploy/base/rbac.yaml") + load_all(args.repo, "deploy/overlays/control-plane/rbac.yaml")
    daemonset = load(args.repo, "deploy/overlays/control-plane/daemonset.yaml")
    with_sa = copy.deepcopy(pod)
    mc.pod_spec(with_sa)["serviceAccountName"] = mc.pod_spec(daemonset)["serviceAccountName"]

    def access_errors(edit_docs=lambda d: None, edit_pod=lambda w: None):
        docs, w = copy.deepcopy(rbac), copy.deepcopy(with_sa)
        edit_docs(docs)
        edit_pod(w)
        return mc.check_api_access(docs, w, {"collector"})

    def role(docs):
        return next(d for d in docs if d["kind"] == "ClusterRole")

    def other_port(w):
        set_env(w, "extender", "NETSCORE_LISTEN", "127.0.0.1:9999")
        return w

    def other_metrics_port(w):
        set_env(w, "extender", "NETSCORE_METRICS_LISTEN", "0.0.0.0:9999")
        return w

    cases = {
        "the real files pass": (workload_errors(pod) + config_errors(config), None),
        "the real filter variant passes": (config_errors(filter_config, filter_verb=True), None),
        "filter verb in the scoring-only configuration": (
            broken_config(lambda c: c["extenders"][0].update(filterVerb="filter")), "verbs"),
        "filter variant without its verb": (
            broken_filter_config(lambda c: c["extenders"][0].pop("filterVerb")), "verbs"),
        "filter variant seeing only the first feasible nodes": (
            broken_filter_config(lambda c: c.pop("percentageOfNodesToScore")), "percentageOfNodesToScore"),
        "renamed variable": (broken_pod(lambda w: set_env(w, "collector", "NETSCORE_REFRESH", "15s")), "NETSCORE_REFRESH"),
        "extender variable on the collector": (
            broken_pod(lambda w: set_env(w, "collector", "NETSCORE_LISTEN", "127.0.0.1:1")), "NETSCORE_LISTEN"),
        "shm not shared": (broken_pod(lambda w: container(w, "extender")["volumeMounts"].clear()), "/dev/shm"),
        "shm on disk": (broken_pod(lambda w: mc.pod_spec(w)["volumes"][0]["emptyDir"].pop("medium")), "medium Memory"),
        "writable root": (broken_pod(lambda w: container(w, "collector")["securityContext"].update(
            readOnlyRootFilesystem=False)), "readOnlyRootFilesystem"),
        "different UIDs": (broken_pod(lambda w: container(w, "collector")["securityContext"].update(runAsUser=1000)), "UID"),
        "probe on the wrong port": (broken_pod(other_metrics_port), "livenessProbe"),
        "KEP casing enableHttps": (broken_config(lambda c: c["extenders"][0].update(enableHttps=False)), "enableHttps"),
        "url prefix on a host the extender is not on": (
            broken_config(lambda c: c["extenders"][0].update(urlPrefix="http://10.0.0.1:8888/netscore")), "urlPrefix"),
        "port the extender does not listen on": (broken_config(lambda c: None, other_port(copy.deepcopy(pod))), "urlPrefix"),
        "verb typo": (broken_config(lambda c: c["extenders"][0].update(prioritizeVerb="priorities")), "verbs"),
        "zero weight": (broken_config(lambda c: c["extenders"][0].update(weight=0)), "weight"),
        "not ignorable": (broken_config(lambda c: c["extenders"][0].update(ignorable=False)), "ignorable"),
        "the real RBAC passes": (access_errors(), None),
        "no watch on pods": (access_errors(lambda d: role(d)["rules"][0].update(verbs=["get", "list"])), "pods"),
        "nodes not granted": (access_errors(lambda d: role(d)["rules"][0].update(resources=["pods"])), "nodes"),
        "role can write": (access_errors(lambda d: role(d)["rules"][0]["verbs"].append("delete")), "delete"),
        "role not bound": (access_errors(lambda d: d.remove(next(x for x in d if x["kind"] == "ClusterRoleBinding"))),
                           "not bound"),
        "ServiceAccount missing": (access_errors(lambda d: d.remove(next(x for x in d if x["kind"] == "ServiceAccount"))),
                                   "ServiceAccount"),
        "token automounted into the extender": (
            access_errors(edit_pod=lambda w: mc.pod_spec(w).pop("automountServiceAccountToken")), "extender"),
        "collector without a token": (
            access_errors(edit_pod=lambda w: container(w, "collector")["volumeMounts"].pop()), "collector"),
        "bad timeout": (broken_config(lambda c: c["extenders"][0].update(httpTimeout="2 seconds")), "httpTimeout"),
        "timeout over half a second": (broken_config(lambda c: c["extenders"][0].update(httpTimeout="2s")), "over 0.5s"),
    }
    failures = 0
    for name, (errors, expected) in cases.items():
        ok = not errors if expected is None else any(expected in e for e in errors)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {errors if errors else 'no errors'}")
        failures += not ok
    print(f"manifest_checks_selftest: {len(cases) - failures}/{len(cases)} cases behave")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
