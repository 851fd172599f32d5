"""A real netscore-extender on 127.0.0.1, a table with ordinary and hostile node names, and the
operator's views of it: prioritize for pod ns1/p1 then /explain for that pod, the HTML table
loaded in headless Chromium (the rendered DOM is checked, a screenshot kept), the read-only
metrics listener, and JSON log lines. Chromium that is missing or cannot start fails the test."""
import argparse
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
from local_http import free_port, wait_until_ok  # noqa: E402

DEADLINE_S = 20.0
HOSTILE = ['<img src=x onerror=alert(1)>', 'node-"quote"&amp', "node-'</td><script>alert(2)</script>"]
# name, raw bytes, cluster node_score, valid
NODES = [("node-hot", 1000, 0, 1), ("node-mid", 500, 50, 1), ("node-cold", 0, 100, 1), ("node-bad", 0, 0, 0)]
NODES += [(name, 250, 75, 1) for name in HOSTILE]
GHOST = "node-ghost<i>"  # asked about, absent from the table
COLLECTOR_ERROR = 'query failed: <b>"boom"</b> & more'
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
    return ok


def request(url, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class Dom(html.parser.HTMLParser):
    """Collects what the rendered page holds: elements by tag, data-node rows, the state banner."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = {}
        self.rows = []
        self.state = None
        self.missing = []
        self._in_missing = False
        self.collector = None
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "tr" and "data-node" in a:
            self.rows.append(a["data-node"])
        if a.get("id") == "state":
            self.state = a.get("data-state")
        if a.get("id") == "missing":
            self._in_missing = True
        if tag == "li" and self._in_missing:
            self.missing.append("")
        if "data-collector" in a:
            self.collector = a["data-collector"]

    def handle_endtag(self, tag):
        if tag == "div":
            self._in_missing = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_missing and self.missing and self.lasttag == "li":
            self.missing[-1] += data


def chromium(binary, args, profile):
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}"]
    try:
        return subprocess.run(cmd + args, capture_output=True, timeout=90)
    except FileNotFoundError:
        sys.exit(f"FAIL: Chromium not found at {binary!r}: install Debian's chromium (scripts/install-deps.sh)")
    except subprocess.TimeoutExpired:
        sys.exit(f"FAIL: Chromium {binary!r} did not finish within 90s: it cannot run on this machine")


def check_explain(base, answer):
    status, _, body = request(base + "/explain?pod=ns1/p1")
    if not check(status == 200, f"/explain?pod=ns1/p1 answered {status} {body[:300]!r}"):
        return
    decisions = json.loads(body)["decisions"]
    check(len(decisions) == 1 and decisions[0]["verb"] == "prioritize", f"one prioritize decision: {decisions}")
    d = decisions[0]
    check(d["table"]["state"] == "fresh" and d["normalisation"] == "request", f"table/normalisation in {d}")
    explained = {n["name"]: n for n in d["nodes"]}
    check(sorted(explained) == sorted(answer), f"/explain nodes {sorted(explained)} != asked {sorted(answer)}")
    for name, score in answer.items():
        n = explained.get(name, {})
        check(n.get("extender_score") == score, f"{name}: explain says {n.get('extender_score')}, prioritize {score}")
    # request mode: 100 - raw*100/max(raw), max 1000: node-hot 0, node-mid 50, node-cold 100.
    for name, expected in (("node-hot", 0), ("node-mid", 50), ("node-cold", 100), ("node-bad", None), (GHOST, None)):
        check(explained.get(name, {}).get("score") == expected, f"{name}: 0..100 score {explained.get(name)}")
    check(explained.get("node-mid", {}).get("seed_raw") == 500, f"node-mid seed_raw {explained.get('node-mid')}")

    status, headers, body = request(base + "/explain?pod=ns1/nobody")
    check(status == 404 and "error" in json.loads(body), f"unknown pod: {status} {body!r}")
    status, _, body = request(base + "/explain?pod=ns1%2Fp1&format=text")
    check(status == 200 and b"node-mid" in body and b"prioritize" in body, f"text explain: {status} {body[:300]!r}")


def check_html(base, args, profile):
    status, headers, body = request(base + "/table?format=html")
    csp = headers.get("Content-Security-Policy", "")
    check(status == 200 and headers.get("Content-Type", "").startswith("text/html"), f"/table html: {status} {headers}")
    check("default-src 'none'" in csp and "script-src" not in csp, f"CSP header: {csp!r}")
    check(b"<script" not in body and b"<img" not in body, "hostile names reached the page unescaped")
    status, headers, _ = request(base + "/table", headers={"Accept": "text/html,application/xhtml+xml"})
    check(headers.get("Content-Type", "").startswith("text/html"), f"Accept: text/html gave {headers}")

    url = base + "/table?format=html&refresh=30"
    result = chromium(args.chromium, ["--dump-dom", url], profile)
    if result.returncode != 0 or b"<html" not in result.stdout:
        sys.exit(f"FAIL: Chromium cannot run on this machine (exit {result.returncode}): "
                 f"{result.stderr.decode(errors='replace')[-2000:]}")
    dom = Dom()
    dom.feed(result.stdout.decode())
    expected = sorted(n[0] for n in NODES)
    check(sorted(dom.rows) == expected, f"DOM rows {sorted(dom.rows)} != table nodes {expected}")
    check(dom.missing == [GHOST], f"missing nodes {dom.missing}, expected [{GHOST!r}]")
    check(dom.state == "fresh", f"state banner {dom.state!r}, expected fresh")
    check(dom.collector == "failing", f"collector status {dom.collector!r}, expected failing")
    check("script" not in dom.tags and "img" not in dom.tags, f"hostile markup became elements: {dom.tags}")
    check(COLLECTOR_ERROR in "".join(dom.text), "collector error text not rendered as text")
    scores = [dict(NODES_BY_NAME)[name] for name in dom.rows if NODES_BY_NAME[name][1]]
    check(scores == sorted(scores, reverse=True), f"rows not sorted by score: {dom.rows}")

    shot = os.path.join(args.artifacts, "table.png")
    if os.path.exists(shot):
        os.remove(shot)
    result = chromium(args.chromium, ["--window-size=1280,900", f"--screenshot={shot}", url], profile)
    with open(shot, "rb") if os.path.exists(shot) else open(os.devnull, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", f"no PNG screenshot at {shot}: {result.stderr[-500:]!r}")
    print(f"screenshot: {shot}")


NODES_BY_NAME = {n[0]: (n[2], n[3]) for n in NODES}


def check_metrics_listener(metrics_base):
    status, headers, body = request(metrics_base + "/metrics")
    check(status == 200 and b"netscore_extender_table_age_seconds" in body, f"metrics listener /metrics: {status}")
    for path in ("/healthz", "/readyz", "/table"):
        check(request(metrics_base + path)[0] == 200, f"metrics listener {path} not 200")
    for path, body in (("/prioritize", {"Pod": {}, "NodeNames": ["node-hot"]}), ("/explain?pod=ns1/p1", None)):
        status, _, answer = request(metrics_base + path, body)
        check(status == 404 and b"NETSCORE_METRICS_LISTEN" in answer, f"metrics listener {path}: {status} {answer!r}")


def check_json_logs(log_path):
    with open(log_path, encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line]
    check(len(lines) >= 2, f"too few log lines: {lines}")
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            check(False, f"log line is not JSON: {line!r}")
            continue
        check(set(record) == {"time", "level", "logger", "msg"}, f"log fields: {record}")
        check(record.get("logger") == "netscore-extender", f"logger: {record}")
    check(any("metrics listening" in json.loads(line).get("msg", "") for line in lines if line.startswith("{")),
          "no 'metrics listening' log line")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--extender", required=True)
    p.add_argument("--fixture", required=True)
    p.add_argument("--chromium", default="chromium")
    p.add_argument("--artifacts", required=True)
    args = p.parse_args()
    os.makedirs(args.artifacts, exist_ok=True)
    if shutil.which(args.chromium) is None:
        sys.exit(f"FAIL: Chromium not found ({args.chromium!r}): install Debian's chromium (scripts/install-deps.sh)")

    shm = f"netscore-see-{os.getpid()}"
    port, metrics_port = free_port(), free_port()
    publish = [args.fixture, "publish", shm, COLLECTOR_ERROR]
    for name, raw, score, valid in NODES:
        publish += [name, str(raw), str(score), str(valid)]
    subprocess.run(publish, check=True, timeout=30)
    workdir = tempfile.mkdtemp(prefix="netscore-see-")
    log_path = os.path.join(workdir, "extender.log")
    env = {"PATH": os.environ.get("PATH", ""), "NETSCORE_SHM_NAME": shm, "NETSCORE_LISTEN": f"127.0.0.1:{port}",
           "NETSCORE_METRICS_LISTEN": f"127.0.0.1:{metrics_port}", "NETSCORE_LOG_FORMAT": "json",
           "NETSCORE_THREADS": "2"}
    env.update({k: v for k, v in os.environ.items() if k.endswith("SAN_OPTIONS")})
    with open(log_path, "wb") as log:
        process = subprocess.Popen([args.extender], env=env, stdout=log, stderr=log)
    try:
        base = f"http://127.0.0.1:{port}"
        if not wait_until_ok(base + "/readyz", process, DEADLINE_S):
            sys.exit(f"FAIL: extender not ready: {open(log_path, errors='replace').read()[-2000:]}")
        names = [n[0] for n in NODES] + [GHOST]
        pod = {"metadata": {"namespace": "ns1", "name": "p1", "uid": "uid-p1"}}
        status, _, body = request(base + "/prioritize", {"Pod": pod, "Nodes": None, "NodeNames": names})
        if check(status == 200, f"prioritize answered {status} {body!r}"):
            check_explain(base, {h["Host"]: h["Score"] for h in json.loads(body)})
        check_html(base, args, os.path.join(workdir, "chromium"))
        check_metrics_listener(f"http://127.0.0.1:{metrics_port}")
    finally:
        process.terminate()
        try:
            process.wait(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        subprocess.run([args.fixture, "remove", shm], timeout=30)
    check(process.returncode == 0, f"extender exit status {process.returncode}")
    check_json_logs(log_path)
    shutil.rmtree(workdir, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
