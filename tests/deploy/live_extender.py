"""Starts the built netscore-extender with a manifest's environment and calls the scheduler
configuration's urlPrefix + verbs on it, so a prefix or verb the extender does not serve fails.
Only 127.0.0.1 is used; the listen port is a free one instead of the manifest's 8888, and the
table name is unique to this process (no table exists, so answers are the neutral ones)."""
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from local_http import free_port, wait_until_ok  # noqa: E402

START_DEADLINE_S = 30.0
STOP_DEADLINE_S = 30.0
NODES = ["node-a", "node-b"]


def request(url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def call_verbs(url_prefix, stanza):
    errors = []
    args = {"Pod": {"metadata": {"name": "p", "namespace": "default"}}, "Nodes": None, "NodeNames": NODES}
    status, body = request(f"{url_prefix}/{stanza['prioritizeVerb']}", args)
    hosts = sorted(h.get("Host") for h in json.loads(body)) if status == 200 else None
    if hosts != NODES:
        errors.append(f"POST {url_prefix}/{stanza['prioritizeVerb']} answered {status} {body[:200]!r}")
    if "filterVerb" in stanza:
        status, body = request(f"{url_prefix}/{stanza['filterVerb']}", args)
        passed = sorted(json.loads(body).get("NodeNames") or []) if status == 200 else None
        if passed != NODES:
            errors.append(f"POST {url_prefix}/{stanza['filterVerb']} answered {status} {body[:200]!r}")
    status, _ = request(f"{url_prefix}/no-such-verb", args)
    if status != 404:
        errors.append(f"POST {url_prefix}/no-such-verb answered {status}, expected 404 (is the check blind?)")
    return errors


def check_metrics_listener(base, path_prefix, stanza):
    """The probes' and Prometheus's listener answers them, and never the scheduler's verbs."""
    errors = []
    for path in ("/healthz", "/readyz", "/metrics"):
        status, _ = request(base + path)
        if status not in (200, 503) or (path != "/readyz" and status != 200):
            errors.append(f"metrics listener GET {path} answered {status}")
    status, _ = request(f"{base}{path_prefix}/{stanza['prioritizeVerb']}", {"Pod": {}, "NodeNames": NODES})
    if status != 404:
        errors.append(f"metrics listener answered the prioritize verb with {status}, expected 404")
    return errors


def check(binary, stanza, manifest_env, variables):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NETSCORE_")}
    env.update({k: v for k, v in manifest_env.items() if k in variables})
    env["NETSCORE_LISTEN"] = f"127.0.0.1:{port}"
    env["NETSCORE_SHM_NAME"] = f"netscore-deploytest-{os.getpid()}"
    metrics_port = None
    if env.get("NETSCORE_METRICS_LISTEN"):
        metrics_port = free_port()
        env["NETSCORE_METRICS_LISTEN"] = f"127.0.0.1:{metrics_port}"
    prefix = urllib.parse.urlsplit(stanza["urlPrefix"].rstrip("/"))
    url_prefix = urllib.parse.urlunsplit((prefix.scheme, f"127.0.0.1:{port}", prefix.path, "", ""))

    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([binary], env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            if not wait_until_ok(f"http://127.0.0.1:{port}/healthz", process, START_DEADLINE_S):
                errors = [f"extender did not answer /healthz within {START_DEADLINE_S}s"]
            else:
                errors = call_verbs(url_prefix, stanza)
                if metrics_port is not None:
                    errors += check_metrics_listener(f"http://127.0.0.1:{metrics_port}", prefix.path, stanza)
        finally:
            process.terminate()
            try:
                process.wait(timeout=STOP_DEADLINE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if errors:
            log.seek(0)
            errors.append("extender output:\n" + log.read().decode(errors="replace")[-2000:])
    return errors
