#!/usr/bin/env python3
"""Renders deploy/overlays/* (kustomize_lite; also `kubectl kustomize` when a kubectl is given, and
the two renderings must agree) and checks the result against the code:
the variables and defaults come from netscore-env-doc (the config loader itself), and the
scheduler configuration's urlPrefix and verbs are also exercised against a running
netscore-extender started with the manifest's settings.

    check_manifests.py --repo . [--kubectl kubectl] [--descheduler BIN] --env-doc BIN --extender BIN
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

import descheduler_checks
import kustomize_lite
import live_extender
import manifest_checks as mc

SECOND_SCHEDULER = "netscore-scheduler"


def render_with_kubectl(kubectl, overlay):
    """kubectl's rendering, or None when its kustomize cannot render Components (kubectl < 1.21,
    e.g. Debian bookworm's kubernetes-client 1.20)."""
    result = subprocess.run([kubectl, "kustomize", overlay], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        print(f"check_manifests: {kubectl} kustomize {overlay} failed, not compared:\n{result.stderr}")
        return None
    return [d for d in yaml.safe_load_all(result.stdout) if d is not None]


def compare(ours, theirs):
    ours, theirs = kustomize_lite.normalized(ours), kustomize_lite.normalized(theirs)
    return [f"kustomize_lite and kubectl render {key} differently" for key in sorted(ours.keys() | theirs.keys())
            if ours.get(key) != theirs.get(key)]


def render(overlay):
    try:
        docs = kustomize_lite.build(overlay)
    except (OSError, ValueError, KeyError) as e:
        raise SystemExit(f"check_manifests: rendering {overlay} failed: {e}")
    for doc in docs:
        if not (isinstance(doc, dict) and doc.get("apiVersion") and doc.get("kind") and doc.get("metadata", {}).get("name")):
            raise SystemExit(f"check_manifests: {overlay} rendered an object without apiVersion/kind/name: {doc}")
    return docs


def find(docs, kind, name=None):
    return [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]


def netscore_workload(docs):
    found = [d for d in docs if d["kind"] in ("DaemonSet", "Deployment")
             and {"collector", "extender"} <= mc.containers_by_name(d).keys()]
    if len(found) != 1:
        raise SystemExit(f"check_manifests: expected one workload with collector + extender, found {len(found)}")
    return found[0]


def common_checks(workload, variables, by_component):
    return (mc.check_env(workload, by_component) + mc.check_shm(workload) + mc.check_security(workload)
            + mc.check_probes(workload, variables))


def control_plane(repo, docs, variables, by_component):
    ds = netscore_workload(docs)
    errors = common_checks(ds, variables, by_component)
    spec = mc.pod_spec(ds)
    if ds["kind"] != "DaemonSet" or spec.get("hostNetwork") is not True:
        errors.append("control-plane: expected a DaemonSet with hostNetwork: true")
    if "node-role.kubernetes.io/control-plane" not in spec.get("nodeSelector", {}):
        errors.append("control-plane: no control-plane nodeSelector")
    if not any(t.get("key") == "node-role.kubernetes.io/control-plane" for t in spec.get("tolerations", [])):
        errors.append("control-plane: no toleration for the control-plane taint")
    errors += mc.check_api_access(docs, ds, {"collector"})
    extender = mc.containers_by_name(ds)["extender"]
    for probe in ("livenessProbe", "readinessProbe"):
        if extender[probe]["httpGet"].get("host") != "127.0.0.1":
            errors.append(f"control-plane: extender {probe} must probe 127.0.0.1 (loopback listener, host network)")
    with open(os.path.join(repo, "deploy/overlays/control-plane/kube-scheduler-config.yaml"), encoding="utf-8") as f:
        config = yaml.safe_load(f)
    errors += mc.check_scheduler_config(config, extender, variables, "default-scheduler", filter_verb=False)
    variant = "deploy/overlays/control-plane/kube-scheduler-config-filter.yaml"
    with open(os.path.join(repo, variant), encoding="utf-8") as f:
        filter_config = yaml.safe_load(f)
    errors += [f"{variant}: {e}" for e in mc.check_scheduler_config(filter_config, extender, variables,
                                                                      "default-scheduler", filter_verb=True)]
    return errors, [config, filter_config], extender


# The second scheduler's documented switch to the filter verb: one line of its kustomization.
SCORING_ONLY_ENTRY = "      - scheduler-config.yaml\n"
FILTER_ENTRY = "      - scheduler-config.yaml=scheduler-config-filter.yaml\n"


def render_second_scheduler_with_filter(repo):
    """The second-scheduler overlay rendered after the documented edit, in a copy of deploy/."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(repo, "deploy"), os.path.join(tmp, "deploy"))
        path = os.path.join(tmp, "deploy", "overlays", "second-scheduler", "kustomization.yaml")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if text.count(SCORING_ONLY_ENTRY) != 1 or FILTER_ENTRY.strip() not in text:
            raise SystemExit("check_manifests: second-scheduler kustomization.yaml no longer has the scoring-only "
                             "entry and the commented filter entry this check switches between")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(SCORING_ONLY_ENTRY, FILTER_ENTRY))
        return render(os.path.dirname(path))


# As docs/rebalancing.md says: the descheduler overlay's collector component added after the base.
BASE_COMPONENT = "  - ../../base\n"
NOMINATING_COMPONENT = "  - ../descheduler/collector\n"


def render_with_nominating_collector(repo, overlay):
    """`overlay` rendered with the descheduler's collector component, in a copy of deploy/."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(repo, "deploy"), os.path.join(tmp, "deploy"))
        path = os.path.join(tmp, "deploy", "overlays", overlay, "kustomization.yaml")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if text.count(BASE_COMPONENT) != 1:
            raise SystemExit(f"check_manifests: {overlay} kustomization.yaml no longer lists the base component")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(BASE_COMPONENT, BASE_COMPONENT + NOMINATING_COMPONENT))
        return render(os.path.dirname(path))


def second_scheduler(docs, variables, by_component, filter_verb=False):
    deploy = netscore_workload(docs)
    errors = common_checks(deploy, variables, by_component)
    spec = mc.pod_spec(deploy)
    containers = mc.containers_by_name(deploy)
    scheduler = containers.get("kube-scheduler")
    if deploy["kind"] != "Deployment" or scheduler is None:
        return errors + ["second-scheduler: expected a Deployment with a kube-scheduler container"], None, None
    if spec.get("hostNetwork"):
        errors.append("second-scheduler: must not use the host network")
    errors += mc.check_api_access(docs, deploy, {"collector", "kube-scheduler"})

    sa = spec.get("serviceAccountName")
    if not find(docs, "ServiceAccount", sa):
        errors.append(f"second-scheduler: ServiceAccount {sa} is not rendered")
    bound = {(b["kind"], b["roleRef"]["name"]) for b in docs if b["kind"] in ("ClusterRoleBinding", "RoleBinding")
             and any(s.get("kind") == "ServiceAccount" and s.get("name") == sa for s in b.get("subjects", []))}
    for want in (("ClusterRoleBinding", "system:kube-scheduler"), ("ClusterRoleBinding", "system:volume-scheduler"),
                 ("RoleBinding", "extension-apiserver-authentication-reader")):
        if want not in bound:
            errors.append(f"second-scheduler: no {want[0]} of {sa} to {want[1]}")
    for b in find(docs, "RoleBinding"):
        if b["roleRef"]["name"] == "extension-apiserver-authentication-reader" and b["metadata"].get("namespace") != "kube-system":
            errors.append("second-scheduler: the authentication-reader RoleBinding must be in kube-system")

    flags = [a for a in scheduler.get("command", []) + scheduler.get("args", []) if a.startswith("--config=")]
    if len(flags) != 1:
        return errors + ["second-scheduler: kube-scheduler has no single --config flag"], None, None
    path = flags[0].split("=", 1)[1]
    mount = next((m for m in scheduler.get("volumeMounts", []) if path.startswith(m["mountPath"].rstrip("/") + "/")), None)
    volume = next((v for v in spec.get("volumes", []) if mount and v["name"] == mount["name"]), {})
    maps = find(docs, "ConfigMap", volume.get("configMap", {}).get("name"))
    key = os.path.relpath(path, mount["mountPath"]) if mount else None
    if not maps or key not in maps[0].get("data", {}):
        return errors + [f"second-scheduler: --config {path} is not a key of a rendered ConfigMap mounted there"], None, None
    config = yaml.safe_load(maps[0]["data"][key])
    extender = containers["extender"]
    errors += mc.check_scheduler_config(config, extender, variables, SECOND_SCHEDULER, filter_verb)
    return errors, [config], extender


def undocumented_names(repo, variables):
    """NETSCORE_* names anywhere under deploy/ that the config loader does not know."""
    errors = []
    for path in sorted(glob.glob(os.path.join(repo, "deploy", "**", "*"), recursive=True)):
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                for name in sorted(set(re.findall(r"\bNETSCORE_[A-Z0-9_]+\b", f.read())) - variables.keys()):
                    errors.append(f"{os.path.relpath(path, repo)}: {name} is not a netscore variable")
    return errors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", required=True)
    parser.add_argument("--kubectl", help="also render with this kubectl and compare")
    parser.add_argument("--descheduler", help="also have this descheduler (v0.33.0) binary load the overlay's policy")
    parser.add_argument("--env-doc", required=True)
    parser.add_argument("--extender", required=True)
    args = parser.parse_args()

    by_component, variables = mc.load_variables(args.env_doc)

    errors = undocumented_names(args.repo, variables)
    stanzas = []
    for overlay, check in (("control-plane", lambda d: control_plane(args.repo, d, variables, by_component)),
                           ("second-scheduler", lambda d: second_scheduler(d, variables, by_component)),
                           ("descheduler",
                            lambda d: (descheduler_checks.check(args.repo, d, args.descheduler), None, None))):
        path = os.path.join(args.repo, "deploy", "overlays", overlay)
        rendered = render(path)
        by_kubectl = render_with_kubectl(args.kubectl, path) if args.kubectl else None
        if by_kubectl is not None:
            errors += [f"{overlay}: {e}" for e in compare(rendered, by_kubectl)]
        found, configs, extender = check(rendered)
        errors += [f"{overlay}: {e}" for e in found]
        stanzas += [(overlay, config["extenders"][0], extender) for config in configs or []]
        print(f"check_manifests: {overlay} rendered {len(rendered)} objects")
    found, configs, extender = second_scheduler(render_second_scheduler_with_filter(args.repo), variables,
                                                by_component, filter_verb=True)
    errors += [f"second-scheduler with the filter verb: {e}" for e in found]
    stanzas += [("second-scheduler with the filter verb", config["extenders"][0], extender) for config in configs or []]
    policy = descheduler_checks.policy_of(render(os.path.join(args.repo, "deploy", "overlays", "descheduler")))
    for overlay in ("control-plane", "second-scheduler"):
        docs = render_with_nominating_collector(args.repo, overlay)
        errors += [f"{overlay} with the descheduler's collector component: {e}"
                   for e in descheduler_checks.check_nominating_collector(
                       docs, policy, descheduler_checks.recorded_window(args.repo))]
    if not errors:
        for overlay, stanza, extender in stanzas:
            errors += [f"{overlay}: {e}" for e in live_extender.check(args.extender, stanza, mc.env_of(extender), variables)]
    for e in errors:
        print(f"check_manifests: {e}")
    print("check_manifests: ok" if not errors else f"check_manifests: {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
