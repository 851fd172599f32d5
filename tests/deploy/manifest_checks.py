"""Checks on rendered netscore manifests. Each function returns a list of error strings, so the
self-test can feed it broken documents and see the errors it must report."""
import json
import re
import subprocess

# Every key of the v1 Extender struct (kubescheduler.config.k8s.io/v1); the scheduler decodes its
# configuration strictly, so any other key (e.g. the KEP's `enableHttps`) stops it from starting.
EXTENDER_KEYS = {"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb",
                 "enableHTTPS", "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources",
                 "ignorable"}
# The extender serves /filter and /prioritize under any path prefix.
FILTER_VERB = "filter"
PRIORITIZE_VERB = "prioritize"
GO_DURATION = re.compile(r"^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$")
SHM_PATH = "/dev/shm"


def load_variables(env_doc):
    """The variables netscore-env-doc reports: (names by component, description by name)."""
    docs = json.loads(subprocess.run([env_doc], check=True, capture_output=True, text=True).stdout)
    by_component = {c: {v["env"] for v in docs[c]} for c in ("collector", "extender")}
    return by_component, {v["env"]: v for v in docs["extender"] + docs["collector"]}


def pod_spec(workload):
    return workload["spec"]["template"]["spec"]


def containers_by_name(workload):
    return {c["name"]: c for c in pod_spec(workload).get("containers", [])}


def env_of(container):
    return {e["name"]: e.get("value") for e in container.get("env", [])}


def effective(container, variables, name):
    """The value a container sees: its env, else the loader's documented default."""
    return env_of(container).get(name, variables[name]["default"])


def check_env(workload, variables_by_component):
    errors = []
    for name, container in containers_by_name(workload).items():
        known = variables_by_component.get(name)
        if known is None:
            continue
        for var in env_of(container):
            if var.startswith("NETSCORE_") and var not in known:
                errors.append(f"{name}: {var} is not a variable the {name} reads")
    return errors


def check_shm(workload):
    errors = []
    spec = pod_spec(workload)
    containers = containers_by_name(workload)
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    mounted = {}
    for name in ("collector", "extender"):
        if name not in containers:
            errors.append(f"{workload['kind']}/{workload['metadata']['name']}: no {name} container")
            continue
        mounts = [m for m in containers[name].get("volumeMounts", []) if m["mountPath"] == SHM_PATH]
        if len(mounts) != 1:
            errors.append(f"{name}: {len(mounts)} volumes mounted at {SHM_PATH}, expected 1")
            continue
        mounted[name] = mounts[0]["name"]
    if len(mounted) == 2:
        if mounted["collector"] != mounted["extender"]:
            errors.append(f"collector mounts {mounted['collector']} at {SHM_PATH}, extender {mounted['extender']}")
        volume = volumes.get(mounted["collector"], {})
        empty_dir = volume.get("emptyDir") or {}
        if empty_dir.get("medium") != "Memory" or not empty_dir.get("sizeLimit"):
            errors.append(f"volume {mounted['collector']} is not an emptyDir with medium Memory and a sizeLimit")
    if {"collector", "extender"} <= containers.keys():
        images = {containers[n]["image"] for n in ("collector", "extender")}
        if len(images) != 1:
            errors.append(f"collector and extender use different images {sorted(images)}")
    return errors


def check_security(workload):
    errors = []
    spec = pod_spec(workload)
    pod_ctx = spec.get("securityContext", {})
    uids = set()
    for name, container in containers_by_name(workload).items():
        ctx = container.get("securityContext", {})

        def setting(key):
            return ctx.get(key, pod_ctx.get(key))

        if ctx.get("readOnlyRootFilesystem") is not True:
            errors.append(f"{name}: readOnlyRootFilesystem is not true")
        if ctx.get("allowPrivilegeEscalation") is not False:
            errors.append(f"{name}: allowPrivilegeEscalation is not false")
        if ctx.get("capabilities", {}).get("drop") != ["ALL"]:
            errors.append(f"{name}: capabilities do not drop ALL")
        if setting("runAsNonRoot") is not True:
            errors.append(f"{name}: runAsNonRoot is not true")
        if (setting("seccompProfile") or {}).get("type") != "RuntimeDefault":
            errors.append(f"{name}: seccompProfile is not RuntimeDefault")
        if not container.get("resources", {}).get("limits", {}).get("memory"):
            errors.append(f"{name}: no memory limit")
        if name in ("collector", "extender"):
            uids.add((setting("runAsUser"), setting("runAsGroup")))
    netscore_pod = {"collector", "extender"} & containers_by_name(workload).keys()
    if netscore_pod and (len(uids) != 1 or None in next(iter(uids), (None,))):
        errors.append(f"collector and extender must run with one explicit UID/GID, found {sorted(uids, key=str)}")
    return errors


def check_probes(workload, variables):
    extender = containers_by_name(workload).get("extender")
    if extender is None:
        return ["no extender container"]
    errors = []
    # The read-only metrics listener serves /healthz and /readyz too; probes use it when it is on.
    listen = effective(extender, variables, "NETSCORE_METRICS_LISTEN") or effective(extender, variables, "NETSCORE_LISTEN")
    port = int(listen.rsplit(":", 1)[1])
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz?exclude=table")):
        get = extender.get(probe, {}).get("httpGet", {})
        if get.get("path") != path or get.get("port") != port:
            errors.append(f"extender {probe} is {get}, expected GET {path} on port {port}")
    return errors


def go_duration_seconds(text):
    units = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    return sum(float(n) * units[u] for n, _, u in re.findall(r"([0-9]+(\.[0-9]+)?)(ns|us|µs|ms|s|m|h)", text))


# A hung extender costs each pod one httpTimeout per verb; two verbs must stay under a second.
MAX_HTTP_TIMEOUT_SECONDS = 0.5


def check_scheduler_config(config, extender, variables, scheduler_name, filter_verb):
    """The extender stanza must reach the extender as its env (or defaults) configures it."""
    errors = []
    if config.get("apiVersion") != "kubescheduler.config.k8s.io/v1" or config.get("kind") != "KubeSchedulerConfiguration":
        errors.append(f"scheduler config is {config.get('apiVersion')}/{config.get('kind')}")
    names = [p.get("schedulerName") for p in config.get("profiles", [])]
    if names != [scheduler_name]:
        errors.append(f"profiles {names}, expected [{scheduler_name}]")
    extenders = config.get("extenders", [])
    if len(extenders) != 1:
        return errors + [f"{len(extenders)} extenders configured, expected 1"]
    stanza = extenders[0]
    errors += [f"extender key {key!r} is not in the v1 Extender struct" for key in sorted(stanza.keys() - EXTENDER_KEYS)]

    listen = effective(extender, variables, "NETSCORE_LISTEN")
    host, _, port = listen.rpartition(":")
    if host not in ("127.0.0.1", "0.0.0.0"):
        errors.append(f"extender listens on {listen}, which kube-scheduler cannot reach on 127.0.0.1")
    wanted = f"http://127.0.0.1:{port}"
    url_prefix = stanza.get("urlPrefix", "")
    if url_prefix.rstrip("/") != wanted and not url_prefix.startswith(wanted + "/"):
        errors.append(f"urlPrefix {stanza.get('urlPrefix')!r}, but the extender serves {wanted!r}")
    wanted_filter = FILTER_VERB if filter_verb else None
    if stanza.get("filterVerb") != wanted_filter or stanza.get("prioritizeVerb") != PRIORITIZE_VERB:
        errors.append(f"verbs {stanza.get('filterVerb')!r}/{stanza.get('prioritizeVerb')!r}, "
                      f"expected {wanted_filter!r}/{PRIORITIZE_VERB!r}")
    if filter_verb and config.get("percentageOfNodesToScore") != 100:
        errors.append(f"percentageOfNodesToScore {config.get('percentageOfNodesToScore')!r} with the filter verb: "
                      "the filter would see only the first feasible nodes the scheduler found (set 100)")
    if not isinstance(stanza.get("weight"), int) or stanza["weight"] <= 0:
        errors.append(f"weight {stanza.get('weight')!r} must be a positive integer with prioritizeVerb set")
    for key in ("nodeCacheCapable", "ignorable"):
        if stanza.get(key) is not True:
            errors.append(f"{key} is not true")
    if stanza.get("enableHTTPS", False) is not False:
        errors.append("enableHTTPS is set, but the extender serves plain HTTP")
    if not GO_DURATION.match(str(stanza.get("httpTimeout", ""))):
        errors.append(f"httpTimeout {stanza.get('httpTimeout')!r} is not a Go duration")
    elif go_duration_seconds(stanza["httpTimeout"]) > MAX_HTTP_TIMEOUT_SECONDS:
        errors.append(f"httpTimeout {stanza['httpTimeout']} is over {MAX_HTTP_TIMEOUT_SECONDS}s: a hung extender "
                      "would cost each pod over a second")
    return errors


TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
# What the collector's watcher needs, and all it may have: read pods and nodes everywhere.
WATCH_RESOURCES = ("pods", "nodes")
READ_VERBS = {"get", "list", "watch"}


def _token_mounted(spec, container):
    """True when the container gets a service-account token: its own mount of a projected token at
    the standard path, or the pod's automount (on unless switched off)."""
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for m in container.get("volumeMounts", []):
        if m["mountPath"].rstrip("/") == TOKEN_PATH:
            sources = volumes.get(m["name"], {}).get("projected", {}).get("sources", [])
            return any("serviceAccountToken" in s for s in sources)
    return spec.get("automountServiceAccountToken", True) is not False


def check_api_access(docs, workload, token_containers):
    """The pod's ServiceAccount is bound cluster-wide to a read-only role covering get/list/watch of
    pods and nodes; exactly `token_containers` hold an API token (never the extender)."""
    errors = []
    spec = pod_spec(workload)
    sa = spec.get("serviceAccountName")
    if not sa or not any(d["kind"] == "ServiceAccount" and d["metadata"]["name"] == sa for d in docs):
        errors.append(f"ServiceAccount {sa!r} of the pod is not rendered")
    roles = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ClusterRole"}
    granted = {}
    for b in docs:
        if b["kind"] != "ClusterRoleBinding" or b["roleRef"].get("kind") != "ClusterRole":
            continue
        if not any(s.get("kind") == "ServiceAccount" and s.get("name") == sa and s.get("namespace") == "kube-system"
                   for s in b.get("subjects", [])):
            continue
        role = roles.get(b["roleRef"]["name"])
        if role is None:
            continue  # a built-in role (system:kube-scheduler): not what the collector relies on
        for rule in role.get("rules", []):
            verbs = set(rule.get("verbs", []))
            if not verbs <= READ_VERBS:
                errors.append(f"ClusterRole {role['metadata']['name']} grants {sorted(verbs - READ_VERBS)}: "
                              "the collector only reads")
            if "" in rule.get("apiGroups", []):
                for resource in rule.get("resources", []):
                    granted.setdefault(resource, set()).update(verbs)
    for resource in WATCH_RESOURCES:
        if not READ_VERBS <= granted.get(resource, set()):
            errors.append(f"{sa} is not bound to a netscore ClusterRole with get, list, watch on {resource}")
    for name, container in containers_by_name(workload).items():
        has = _token_mounted(spec, container)
        if name in token_containers and not has:
            errors.append(f"{name}: no service-account token mounted at {TOKEN_PATH}")
        if name not in token_containers and has:
            errors.append(f"{name}: holds a service-account token it does not need")
    return errors
