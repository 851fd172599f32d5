// End to end: a real Prometheus with synthetic node traffic → netscore-collector → the shared
// memory table → netscore-extender → a client speaking kube-scheduler's HTTPExtender protocol.
// The expected scores are computed here, independently, from the original plugin's per-node
// query and its NormalizeScore, so the whole chain is checked against the Go plugin's semantics.
package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	. "netscore.io/conformance/wire"
)

func bin(t *testing.T, name string) string {
	path := os.Getenv(name)
	if path == "" {
		t.Fatalf("%s must be set (run through ctest)", name)
	}
	return path
}

// startPrometheus backfills the synthetic traffic and returns Prometheus' URL.
func startPrometheus(t *testing.T, openmetrics string) string {
	cmd := exec.Command(bin(t, "NETSCORE_PROMETHEUS_BIN"), "--openmetrics", openmetrics, "--print-url")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := StartLogged(cmd, "prometheus"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := Stop(cmd); err != nil {
			t.Errorf("prometheus: %v", err)
		}
	})
	line := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		if scanner.Scan() {
			line <- scanner.Text()
		}
	}()
	select {
	case u := <-line:
		return u
	case <-time.After(90 * time.Second):
		t.Fatal("prometheus did not start within 90s")
		return ""
	}
}

// originalQuery is the Go plugin's per-node query, evaluated at the snapshot's evaluation time.
func originalQuery(t *testing.T, prometheus, node string, at time.Time) float64 {
	q := fmt.Sprintf(`sum_over_time(node_network_receive_bytes_total{kubernetes_node=%q,device="eth0"}[5m])`, node)
	resp, err := http.PostForm(prometheus+"/api/v1/query",
		url.Values{"query": {q}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64)}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Data struct {
			Result []struct {
				Value [2]interface{} `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || len(answer.Data.Result) != 1 {
		t.Fatalf("per-node query for %s: %v %+v", node, err, answer)
	}
	v, err := strconv.ParseFloat(answer.Data.Result[0].Value[1].(string), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type table struct {
	Table struct {
		EvalTimeMs int64 `json:"eval_time_ms"`
	} `json:"table"`
	Nodes []struct {
		Name string `json:"name"`
	} `json:"nodes"`
}

func readTable(t *testing.T, base string) table {
	resp, err := http.Get(base + "/table")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tbl table
	if err := json.NewDecoder(resp.Body).Decode(&tbl); err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestBusiestNodeScoresLowestThroughTheWholeChain(t *testing.T) {
	dir := t.TempDir()
	traffic := filepath.Join(dir, "traffic.om")
	const nodeCount = 30
	if out, err := exec.Command(bin(t, "NETSCORE_SYNTH_BIN"), "--nodes", strconv.Itoa(nodeCount), "--hours", "2",
		"--out", traffic).CombinedOutput(); err != nil {
		t.Fatalf("netscore-synth: %v %s", err, out)
	}
	prometheus := startPrometheus(t, traffic)

	shm := fmt.Sprintf("netscore-e2e-%d", os.Getpid())
	// One refresh only (the next is an hour away), so the snapshot cannot move under the test.
	collector := exec.Command(bin(t, "NETSCORE_COLLECTOR_BIN"))
	collector.Env = append(os.Environ(), "NETSCORE_PROMETHEUS_URL="+prometheus, "NETSCORE_INTERFACE=eth0",
		"NETSCORE_TIME_RANGE=5m", "NETSCORE_REFRESH_INTERVAL=1h", "NETSCORE_SHM_NAME="+shm)
	if err := StartLogged(collector, "collector"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := Stop(collector); err != nil {
			t.Errorf("collector: %v", err)
		}
		os.Remove("/dev/shm/" + shm)
	})
	// That one snapshot must stay fresh however slowly the run goes: a max age beyond the refresh
	// interval and any run.
	extender, address, err := StartExtender(bin(t, "NETSCORE_EXTENDER_BIN"), "NETSCORE_LISTEN=127.0.0.1:0",
		"NETSCORE_SHM_NAME="+shm, "NETSCORE_MAX_AGE=24h")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := Stop(extender); err != nil {
			t.Errorf("extender: %v", err)
		}
	})
	base := "http://" + address
	if err := WaitReady(base, 60*time.Second); err != nil {
		t.Fatal(err)
	}

	tbl := readTable(t, base)
	if len(tbl.Nodes) != nodeCount {
		t.Fatalf("table has %d nodes, want %d", len(tbl.Nodes), nodeCount)
	}
	at := time.UnixMilli(tbl.Table.EvalTimeMs)
	var names []string
	raw := map[string]int64{}
	var max int64
	for _, n := range tbl.Nodes {
		names = append(names, n.Name)
		raw[n.Name] = int64(originalQuery(t, prometheus, n.Name, at)) // Go's int64(float64)
		if raw[n.Name] > max {
			max = raw[n.Name]
		}
	}
	if max == 0 {
		t.Fatal("synthetic traffic is all zero: the test would prove nothing")
	}

	t.Logf("%d nodes, busiest receives %d bytes over the window", len(names), max)
	client := &http.Client{Timeout: 30 * time.Second}
	for _, cacheCapable := range []bool{true, false} {
		h := &HTTPExtender{URLPrefix: base, NodeCacheCapable: cacheCapable, Client: client}
		var nodes []*Node
		for _, n := range names {
			nodes = append(nodes, &Node{ObjectMeta: ObjectMeta{Name: n}})
		}
		list, err := h.Prioritize(&Pod{ObjectMeta: ObjectMeta{Name: "web", Namespace: "default"}}, nodes)
		if err != nil {
			t.Fatalf("nodeCacheCapable=%v: %v", cacheCapable, err)
		}
		if len(list) != len(names) {
			t.Fatalf("nodeCacheCapable=%v: %d scores for %d nodes", cacheCapable, len(list), len(names))
		}
		for _, hp := range list {
			normalized := 100 - raw[hp.Host]*100/max // the plugin's NormalizeScore
			want := (normalized*10 + 50) / 100       // 0..100 → 0..10, half up
			if hp.Score != want {
				t.Errorf("nodeCacheCapable=%v: %s (raw %d, max %d) scored %d, want %d", cacheCapable, hp.Host,
					raw[hp.Host], max, hp.Score, want)
			}
			if raw[hp.Host] == max && hp.Score != 0 {
				t.Errorf("busiest node %s scored %d, want 0", hp.Host, hp.Score)
			}
		}
	}
}
