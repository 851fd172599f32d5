"""Checks on the rendered descheduler overlay (deploy/overlays/descheduler) against what
kubernetes-sigs/descheduler v0.33.0 reads and what netscore records. Each function returns a list of
error strings, so the self-test can feed it broken documents and see the errors it must report."""
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse

import yaml

import manifest_checks as mc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from local_http import free_port  # noqa: E402

# A kubeconfig for an address where nothing listens: the descheduler loads and validates its policy
# before its first API request, so a policy it accepts fails at that request instead.
UNREACHABLE_KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
users: [{name: none, user: {token: none}}]
"""

IMAGE = "registry.k8s.io/descheduler/descheduler:v0.33.0"
POLICY_API = "descheduler/v1alpha2"
# The JSON names of v0.33.0's argument structs (pkg/framework/plugins/defaultevictor/types.go,
# nodeutilization/types.go) and policy (pkg/api/v1alpha2/types.go). The descheduler decodes its
# policy strictly and would not start with another name; this says so without its binary.
POLICY_KEYS = {"apiVersion", "kind", "profiles", "nodeSelector", "maxNoOfPodsToEvictPerNode",
               "maxNoOfPodsToEvictPerNamespace", "maxNoOfPodsToEvictTotal", "evictionFailureEventNotification",
               "metricsCollector", "metricsProviders", "gracePeriodSeconds"}
DEFAULT_EVICTOR_KEYS = {"nodeSelector", "evictLocalStoragePods", "evictDaemonSetPods", "evictSystemCriticalPods",
                        "ignorePvcPods", "evictFailedBarePods", "labelSelector", "priorityThreshold", "nodeFit",
                        "minReplicas", "minPodAge", "ignorePodsWithoutPDB"}
LOW_NODE_UTILIZATION_KEYS = {"useDeviationThresholds", "thresholds", "targetThresholds", "numberOfNodes",
                             "metricsUtilization", "evictableNamespaces", "evictionLimits"}
METRIC_RESOURCE = "MetricResource"
# What a user would not expect evicted: DefaultEvictor settings that must stay off.
NEVER_EVICT = ("evictSystemCriticalPods", "evictDaemonSetPods", "evictLocalStoragePods", "evictFailedBarePods")
# The most this overlay may grant cluster-wide: the chart's ClusterRole rules (v0.33.0) without pods
# delete, which would bypass PodDisruptionBudgets (the descheduler evicts through the Eviction API).
CLUSTER_GRANTS = {("events.k8s.io", "events"): {"create", "update"}, ("", "nodes"): mc.READ_VERBS,
                  ("", "namespaces"): mc.READ_VERBS, ("", "pods"): mc.READ_VERBS,
                  ("", "pods/eviction"): {"create"}, ("scheduling.k8s.io", "priorityclasses"): mc.READ_VERBS,
                  ("policy", "poddisruptionbudgets"): mc.READ_VERBS}
# The series the collector's thresholds are points of, per NETSCORE_REBALANCE_UTILISATION
# (common/model/domain.h's RebalanceFigure, collector/pipeline/print_rules.h's records).
FIGURE_RECORDS = {"relative": "node:netscore_link_utilisation:relative",
                  "absolute": "node:netscore_link_utilisation:ratio"}
# The label netscore's collector sets on the one pod per over-utilised node it nominates
# (NETSCORE_REBALANCE_LABEL, common/pod_annotations.h): the policy's evictor must select it alone.
REBALANCE_SELECTOR = {"matchLabels": {"netscore.io/rebalance": "evict"}}


def descheduler_rules(repo):
    with open(os.path.join(repo, "deploy", "monitoring", "netscore-descheduler-rules.yaml"), encoding="utf-8") as f:
        return [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]


def recorded_series(repo):
    """The series deploy/monitoring's descheduler rule records."""
    return [r["record"] for r in descheduler_rules(repo) if "record" in r]


def recorded_window(repo):
    """The one range of the rates in deploy/monitoring's descheduler rule, or None if not one."""
    ranges = {m for r in descheduler_rules(repo) for m in re.findall(r"\[([0-9]+[smhd])\]", r.get("expr", ""))}
    return ranges.pop() if len(ranges) == 1 else None


def seconds(duration):
    """A single-unit Prometheus duration ("15s", "5m") in seconds."""
    number, unit = re.fullmatch(r"([0-9]+)(ms|s|m|h|d)", duration).groups()
    return int(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}[unit]


def collector_rebalance_window(env):
    """The range the collector's nomination reads (common/config's rebalance_window): its
    NETSCORE_REBALANCE_WINDOW, else four NETSCORE_REFRESH_INTERVALs, at most NETSCORE_TIME_RANGE
    (the loader's defaults where unset)."""
    window = str(env.get("NETSCORE_REBALANCE_WINDOW", "auto"))
    if window != "auto":
        return window
    derived = min(4 * seconds(str(env.get("NETSCORE_REFRESH_INTERVAL", "15s"))),
                  seconds(str(env.get("NETSCORE_TIME_RANGE", "5m"))))
    return f"{derived:g}s"


def descheduler_workload(docs):
    found = [d for d in docs if d["kind"] == "Deployment" and "descheduler" in mc.containers_by_name(d)]
    return found[0] if len(found) == 1 else None


def mounted_policy(docs, workload):
    """The policy the container's --policy-config-file names, from the rendered ConfigMap mounted
    there; (policy, errors)."""
    container = mc.containers_by_name(workload)["descheduler"]
    flags = [a.split("=", 1)[1] for a in container.get("args", []) if a.startswith("--policy-config-file=")]
    if len(flags) != 1:
        return None, ["descheduler: no single --policy-config-file flag"]
    path = flags[0]
    mount = next((m for m in container.get("volumeMounts", [])
                  if path.startswith(m["mountPath"].rstrip("/") + "/")), None)
    volumes = {v["name"]: v for v in mc.pod_spec(workload).get("volumes", [])}
    name = volumes.get(mount["name"], {}).get("configMap", {}).get("name") if mount else None
    maps = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == name]
    key = os.path.relpath(path, mount["mountPath"]) if mount else None
    if not maps or key not in maps[0].get("data", {}):
        return None, [f"descheduler: --policy-config-file {path} is not a key of a rendered ConfigMap mounted there"]
    return yaml.safe_load(maps[0]["data"][key]), []


def check_workload(workload):
    errors = mc.check_security(workload)
    container = mc.containers_by_name(workload)["descheduler"]
    if container.get("image") != IMAGE:
        errors.append(f"descheduler: image {container.get('image')}, expected {IMAGE}")
    if not any(a.startswith("--descheduling-interval=") for a in container.get("args", [])):
        errors.append("descheduler: no --descheduling-interval (a Deployment runs once without it)")
    if workload["spec"].get("replicas", 1) != 1:
        errors.append("descheduler: more than one replica needs leader election, which this overlay does not grant")
    return errors


def check_ca_and_token(workload):
    """The descheduler reads the Prometheus CA from the service-account directory's ca.crt, so that
    directory is projected with a token and a ca.crt from a CA bundle."""
    spec = mc.pod_spec(workload)
    container = mc.containers_by_name(workload)["descheduler"]
    if spec.get("automountServiceAccountToken") is not False:
        return ["descheduler: automountServiceAccountToken must be false, or the kubelet's ca.crt hides the bundle"]
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    mount = next((m for m in container.get("volumeMounts", []) if m["mountPath"].rstrip("/") == mc.TOKEN_PATH), None)
    sources = volumes.get(mount["name"], {}).get("projected", {}).get("sources", []) if mount else []
    paths = {s["serviceAccountToken"]["path"] for s in sources if "serviceAccountToken" in s}
    for s in sources:
        paths |= {i["path"] for kind in ("configMap", "secret", "downwardAPI")
                  for i in s.get(kind, {}).get("items", [])}
    missing = {"token", "ca.crt", "namespace"} - paths
    return [f"descheduler: {mc.TOKEN_PATH} lacks {sorted(missing)}"] if missing else []


def check_rbac(docs, workload):
    """Cluster-wide, at most CLUSTER_GRANTS; the eviction API is granted;
    the token Secret is readable in the descheduler's namespace."""
    errors = []
    sa = mc.pod_spec(workload).get("serviceAccountName")
    namespace = workload["metadata"].get("namespace")
    bound = {(b["kind"], b["roleRef"]["name"]) for b in docs if b["kind"] in ("ClusterRoleBinding", "RoleBinding")
             and any(s.get("kind") == "ServiceAccount" and s.get("name") == sa and s.get("namespace") == namespace
                     for s in b.get("subjects", []))}
    granted = {}
    for d in docs:
        if d["kind"] not in ("ClusterRole", "Role") or ({"ClusterRole": "ClusterRoleBinding", "Role": "RoleBinding"}[
                d["kind"]], d["metadata"]["name"]) not in bound:
            continue
        for rule in d.get("rules", []):
            for group in rule.get("apiGroups", []):
                for resource in rule.get("resources", []):
                    granted.setdefault((d["kind"], group, resource), set()).update(rule.get("verbs", []))
    for (kind, group, resource), verbs in sorted(granted.items()):
        if kind == "Role":
            allowed = mc.READ_VERBS if (group, resource) == ("", "secrets") else set()
        else:
            allowed = CLUSTER_GRANTS.get((group, resource), set())
        if not verbs <= allowed:
            errors.append(f"{kind} grants {sorted(verbs - allowed)} on {group or 'core'}/{resource}")
    if "create" not in granted.get(("ClusterRole", "", "pods/eviction"), set()):
        errors.append(f"{sa} may not create pods/eviction")
    if not mc.READ_VERBS <= granted.get(("Role", "", "secrets"), set()):
        errors.append(f"{sa} may not get, list and watch the Secrets of {namespace} (the Prometheus token)")
    return errors


def plugin_args(profile, name):
    return next((c.get("args") or {} for c in profile.get("pluginConfig", []) if c.get("name") == name), None)


def check_prometheus(policy, namespace):
    providers = [p for p in policy.get("metricsProviders", []) if p.get("source") == "Prometheus"]
    if len(providers) != 1:
        return ["policy: expected one Prometheus metrics provider"]
    prometheus = providers[0].get("prometheus", {})
    url = urllib.parse.urlsplit(prometheus.get("url", ""))
    errors = []
    if url.scheme != "https":
        errors.append(f"policy: Prometheus URL {prometheus.get('url')!r} is not https (refused by the descheduler)")
    if url.port is not None:
        errors.append(f"policy: Prometheus URL {prometheus.get('url')!r} has a port, which the descheduler puts in "
                      "the TLS server name, so no certificate matches")
    ref = prometheus.get("authToken", {}).get("secretReference", {})
    if not ref.get("name") or ref.get("namespace") != namespace:
        errors.append(f"policy: the token Secret must be named and in {namespace}, found {ref}")
    return errors


def check_policy(policy, namespace, records):
    if policy.get("apiVersion") != POLICY_API or policy.get("kind") != "DeschedulerPolicy":
        return [f"policy: expected {POLICY_API} DeschedulerPolicy"]
    errors = [f"policy: unknown key {k}" for k in sorted(policy.keys() - POLICY_KEYS)]
    errors += check_prometheus(policy, namespace)
    profiles = [p for p in policy.get("profiles", [])
                if "LowNodeUtilization" in p.get("plugins", {}).get("balance", {}).get("enabled", [])]
    if len(profiles) != 1:
        return errors + ["policy: expected one profile with LowNodeUtilization enabled in balance"]
    evictor = plugin_args(profiles[0], "DefaultEvictor")
    low = plugin_args(profiles[0], "LowNodeUtilization")
    if evictor is None or low is None:
        return errors + ["policy: DefaultEvictor and LowNodeUtilization need their args in the profile"]
    errors += [f"policy: DefaultEvictor has no key {k}" for k in sorted(evictor.keys() - DEFAULT_EVICTOR_KEYS)]
    errors += [f"policy: LowNodeUtilization has no key {k}" for k in sorted(low.keys() - LOW_NODE_UTILIZATION_KEYS)]
    errors += [f"policy: DefaultEvictor {k} must be false" for k in NEVER_EVICT if evictor.get(k, False) is not False]
    if evictor.get("nodeFit") is not True:
        errors.append("policy: DefaultEvictor nodeFit must be true (evict only what fits elsewhere)")
    if evictor.get("labelSelector") != REBALANCE_SELECTOR:
        errors.append(f"policy: DefaultEvictor labelSelector must be {REBALANCE_SELECTOR} (the collector's "
                      f"nominees), found {evictor.get('labelSelector')}")
    metrics = low.get("metricsUtilization", {})
    query = metrics.get("prometheus", {}).get("query")
    if metrics.get("source") != "Prometheus" or query not in records:
        errors.append(f"policy: LowNodeUtilization must read a series deploy/monitoring records {records}, "
                      f"found {metrics}")
    low_t, high_t = low.get("thresholds", {}), low.get("targetThresholds", {})
    if set(low_t) != {METRIC_RESOURCE} or set(high_t) != {METRIC_RESOURCE}:
        errors.append(f"policy: thresholds and targetThresholds must name {METRIC_RESOURCE} alone")
    elif not 0 <= low_t[METRIC_RESOURCE] < high_t[METRIC_RESOURCE] <= 100:
        errors.append(f"policy: expected 0 <= thresholds < targetThresholds <= 100, found {low_t} and {high_t}")
    # The thresholds are points around the cluster's mean utilisation (docs/rebalancing.md): read as
    # absolute percentages they would make every node above 20% of its link a source.
    if low.get("useDeviationThresholds") is not True:
        errors.append("policy: LowNodeUtilization useDeviationThresholds must be true (thresholds around the mean)")
    # With a Prometheus metric the descheduler evicts up to the limit whatever the first eviction
    # freed, so the collector's nominations are what stop it: it nominates up to two pods a node
    # (model::RebalanceSettings::per_node), a second only while the first would leave it hot.
    if low.get("evictionLimits", {}).get("node") != 2:
        errors.append("policy: LowNodeUtilization evictionLimits.node must be 2 (the collector nominates "
                      "up to two pods per node)")
    return errors


def policy_of(docs):
    """The policy the rendered overlay mounts, or None."""
    workload = descheduler_workload(docs)
    return mounted_policy(docs, workload)[0] if workload is not None else None


def check_nominating_collector(docs, policy, window):
    """An overlay running netscore with the component deploy/overlays/descheduler/collector: its
    collector nominates with the policy's numbers and the rule's rate range (`window`), and may
    patch pods."""
    workloads = [d for d in docs if d["kind"] in ("DaemonSet", "Deployment") and "collector" in mc.containers_by_name(d)]
    if len(workloads) != 1:
        return ["expected one workload with a collector container"]
    env = mc.env_of(mc.containers_by_name(workloads[0])["collector"])
    profile = next(p for p in policy["profiles"] if "LowNodeUtilization" in p["plugins"]["balance"]["enabled"])
    low, evictor = plugin_args(profile, "LowNodeUtilization"), plugin_args(profile, "DefaultEvictor")
    errors = [] if env.get("NETSCORE_REBALANCE_LABEL") == "true" else ["collector: NETSCORE_REBALANCE_LABEL is not true"]
    for name, want in (("NETSCORE_REBALANCE_TARGET_POINTS", low["targetThresholds"][METRIC_RESOURCE]),
                       ("NETSCORE_REBALANCE_LOW_POINTS", low["thresholds"][METRIC_RESOURCE]),
                       ("NETSCORE_REBALANCE_MIN_POD_AGE", evictor["minPodAge"])):
        if str(env.get(name)) != str(want):
            errors.append(f"collector: {name}={env.get(name)} but the policy says {want}")
    figure = env.get("NETSCORE_REBALANCE_UTILISATION", "relative")
    query = low.get("metricsUtilization", {}).get("prometheus", {}).get("query")
    if FIGURE_RECORDS.get(figure) != query:
        errors.append(f"collector: NETSCORE_REBALANCE_UTILISATION={figure} but the policy reads {query}")
    if seconds(collector_rebalance_window(env)) != seconds(window):
        errors.append(f"collector: NETSCORE_REBALANCE_WINDOW is {collector_rebalance_window(env)} "
                      f"but the rule's rates run over {window}")
    account = mc.pod_spec(workloads[0]).get("serviceAccountName")
    roles = {b["roleRef"]["name"] for b in docs if b["kind"] == "ClusterRoleBinding"
             and any(s.get("kind") == "ServiceAccount" and s.get("name") == account for s in b.get("subjects", []))}
    patches = [r for d in docs if d["kind"] == "ClusterRole" and d["metadata"]["name"] in roles
               for r in d.get("rules", []) if "pods" in r.get("resources", []) and "patch" in r.get("verbs", [])]
    if not patches:
        errors.append(f"collector: ServiceAccount {account} may not patch pods")
    return errors


def check(repo, docs, descheduler=None):
    """Every check of the overlay; with a descheduler binary, also its own reading of the policy."""
    workload = descheduler_workload(docs)
    if workload is None:
        return ["expected one Deployment with a descheduler container"]
    errors = check_workload(workload) + check_ca_and_token(workload) + check_rbac(docs, workload)
    policy, found = mounted_policy(docs, workload)
    errors += found
    if policy is not None:
        errors += check_policy(policy, workload["metadata"].get("namespace"), recorded_series(repo))
        if descheduler:
            errors += check_with_descheduler(descheduler, policy)
    return errors


def check_with_descheduler(binary, policy):
    """The descheduler binary's own decoding and validation of the policy (strict field names,
    argument validators, the Prometheus URL): accepted when it gets as far as the API server."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in (("kubeconfig", UNREACHABLE_KUBECONFIG), ("policy.yaml", yaml.safe_dump(policy))):
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        result = subprocess.run([binary, "--kubeconfig", os.path.join(tmp, "kubeconfig"),
                                 "--policy-config-file", os.path.join(tmp, "policy.yaml"), "--dry-run",
                                 "--bind-address=127.0.0.1", f"--secure-port={free_port()}"],
                                capture_output=True, text=True, timeout=60)
    failed = [line for line in result.stderr.splitlines() if "command failed" in line]
    if len(failed) == 1 and "127.0.0.1:1" in failed[0]:
        return []
    return [f"{binary} refuses the policy: {failed or result.stderr[-2000:]}"]
