package extender

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	. "netscore.io/conformance/wire"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"
)

var urlPrefix string

// The same rules table_helper publishes masks for: only node-cold is labelled edge there.
const labelRules = "type=space:kubernetes.io/role=edge"

func TestMain(m *testing.M) {
	bin, helper := os.Getenv("NETSCORE_EXTENDER_BIN"), os.Getenv("NETSCORE_TABLE_HELPER")
	if bin == "" || helper == "" {
		fmt.Fprintln(os.Stderr, "NETSCORE_EXTENDER_BIN and NETSCORE_TABLE_HELPER must be set (run through ctest)")
		os.Exit(2)
	}
	shm := fmt.Sprintf("netscore-conformance-%d", os.Getpid())
	if out, err := exec.Command(helper, "publish", shm).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "table helper: %v %s\n", err, out)
		os.Exit(1)
	}

	// The table is published once: a max age far beyond any run keeps a slow run (a loaded
	// machine) from meeting a stale table and neutral scores.
	cmd, address, err := StartExtender(bin, "NETSCORE_LISTEN=127.0.0.1:0", "NETSCORE_SHM_NAME="+shm,
		"NETSCORE_THREADS=2", "NETSCORE_MAX_AGE=24h", "NETSCORE_LABEL_RULES="+labelRules)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	urlPrefix = "http://" + address + "/scheduler/"
	code := m.Run()
	defer func() {
		// os.Exit skips deferred calls: remove the table explicitly, then exit.
		exec.Command(helper, "remove", shm).Run()
		os.Exit(code)
	}()

	if err := Stop(cmd); err != nil {
		fmt.Fprintln(os.Stderr, "extender did not exit cleanly on SIGTERM:", err)
		code = 1
	}
}

func waitReady(t *testing.T) {
	if err := WaitReady(strings.TrimSuffix(urlPrefix, "/scheduler/"), 60*time.Second); err != nil {
		t.Fatal(err)
	}
}

func nodes(names ...string) []*Node {
	out := []*Node{}
	for _, n := range names {
		out = append(out, &Node{
			ObjectMeta: ObjectMeta{Name: n, UID: "uid-" + n, Labels: map[string]string{"kubernetes.io/hostname": n},
				Annotations: map[string]string{"note": "<b> & </b> \u2028"}},
			Status: NodeStatus{Capacity: map[string]string{"cpu": "8"}, DaemonEndpoints: NodeDaemonEndpoints{KubeletEndpoint: DaemonEndpoint{Port: 10250}}},
		})
	}
	return out
}

func pod(annotations map[string]string) *Pod {
	return &Pod{ObjectMeta: ObjectMeta{Name: "web", Namespace: "default", Annotations: annotations},
		Spec: PodSpec{Containers: []Container{{Name: "web", Image: "nginx"}}, SchedulerName: "default-scheduler"}}
}

func extenders() []*HTTPExtender {
	client := &http.Client{Timeout: 30 * time.Second}
	return []*HTTPExtender{{URLPrefix: urlPrefix, NodeCacheCapable: true, Client: client}, {URLPrefix: urlPrefix, NodeCacheCapable: false, Client: client}}
}

func TestPrioritizeScoresTheBusiestNodeLowest(t *testing.T) {
	waitReady(t)
	for _, h := range extenders() {
		list, err := h.Prioritize(pod(nil), nodes("node-hot", "node-mid", "node-cold", "node-unknown", "node-bad"))
		if err != nil {
			t.Fatalf("nodeCacheCapable=%v: %v", h.NodeCacheCapable, err)
		}
		got := map[string]int64{}
		for _, hp := range list {
			if hp.Score < MinExtenderPriority || hp.Score > MaxExtenderPriority {
				t.Errorf("score %d of %s outside [0,10]", hp.Score, hp.Host)
			}
			got[hp.Host] = hp.Score
		}
		// raw 1000/500/0 over max 1000: NormalizeScore 0/50/100 → 0/5/10; unknown and invalid → neutral 5.
		want := map[string]int64{"node-hot": 0, "node-mid": 5, "node-cold": 10, "node-unknown": 5, "node-bad": 5}
		if fmt.Sprint(got) != fmt.Sprint(want) || len(list) != len(want) {
			t.Errorf("nodeCacheCapable=%v: got %v want %v", h.NodeCacheCapable, list, want)
		}
	}
}

func TestFilterPassesAllWithoutAnnotation(t *testing.T) {
	waitReady(t)
	for _, h := range extenders() {
		passed, failed, err := h.Filter(pod(map[string]string{"other": "1"}), nodes("node-hot", "node-cold", "node-x"))
		if err != nil {
			t.Fatalf("nodeCacheCapable=%v: %v", h.NodeCacheCapable, err)
		}
		if fmt.Sprint(passed) != "[node-hot node-cold node-x]" || len(failed) != 0 {
			t.Errorf("nodeCacheCapable=%v: passed %v failed %v", h.NodeCacheCapable, passed, failed)
		}
	}
}

func TestFilterRejectsNodesAboveTheCeiling(t *testing.T) {
	waitReady(t)
	for _, h := range extenders() {
		passed, failed, err := h.Filter(pod(map[string]string{"netscore.io/max-receive-rate": "600"}),
			nodes("node-hot", "node-mid", "node-cold"))
		if err != nil {
			t.Fatalf("nodeCacheCapable=%v: %v", h.NodeCacheCapable, err)
		}
		sort.Strings(passed)
		if fmt.Sprint(passed) != "[node-cold node-mid]" {
			t.Errorf("nodeCacheCapable=%v: passed %v", h.NodeCacheCapable, passed)
		}
		want := "unresolvable: netscore: node receive rate above the pod's netscore.io/max-receive-rate of 600"
		if reason := failed["node-hot"]; reason != want || len(failed) != 1 {
			t.Errorf("nodeCacheCapable=%v: failed %v", h.NodeCacheCapable, failed)
		}
	}
}

func TestFullNodesComeBackIntact(t *testing.T) {
	waitReady(t)
	h := extenders()[1]
	in := nodes("node-cold")
	var result ExtenderFilterResult
	if err := h.Send("filter", h.Args(pod(nil), in), &result); err != nil {
		t.Fatal(err)
	}
	if result.Nodes == nil || len(result.Nodes.Items) != 1 {
		t.Fatalf("Nodes %+v", result.Nodes)
	}
	got, _ := json.Marshal(result.Nodes.Items[0])
	want, _ := json.Marshal(in[0])
	if !bytes.Equal(got, want) {
		t.Errorf("node changed on the way back:\n got %s\nwant %s", got, want)
	}
	if result.NodeNames != nil || len(result.FailedAndUnresolvableNodes) != 0 || result.Error != "" {
		t.Errorf("unexpected fields %+v", result)
	}
}

func TestSchedulerSeesErrorsForBadRequests(t *testing.T) {
	waitReady(t)
	h := extenders()[0]
	var list HostPriorityList
	if err := h.Send("prioritize", &ExtenderArgs{Pod: pod(nil)}, &list); err == nil || !strings.Contains(err.Error(), "code 400") {
		t.Errorf("both node fields null: got %v", err)
	}
	if err := h.Send("nosuchverb", h.Args(pod(nil), nodes("a")), &list); err == nil || !strings.Contains(err.Error(), "code 404") {
		t.Errorf("unknown verb: got %v", err)
	}
}

// A second extender on an address the first one holds must not share it (the scheduler's
// connections would be split between two tables): it exits 1 naming the address.
func TestSecondExtenderOnATakenAddressExits(t *testing.T) {
	waitReady(t)
	address := strings.TrimSuffix(strings.TrimPrefix(urlPrefix, "http://"), "/scheduler/")
	cmd := exec.Command(os.Getenv("NETSCORE_EXTENDER_BIN"))
	cmd.Env = append(os.Environ(), "NETSCORE_LISTEN="+address, "NETSCORE_THREADS=2",
		fmt.Sprintf("NETSCORE_SHM_NAME=netscore-conformance-second-%d", os.Getpid()))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(out.String(), "cannot listen on "+address) {
			t.Errorf("exit %d, output %q", code, out.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("second extender still running on %s: %s", address, out.String())
	}
}

// NETSCORE_LABEL_RULES in both modes: from the collector's table when only names are sent, from
// the request's Node labels otherwise. Either way the scheduler gets one reason for every node.
func TestLabelRulesInBothModes(t *testing.T) {
	waitReady(t)
	const reason = "unresolvable: netscore: pods annotated type=space need nodes labelled kubernetes.io/role=edge"
	for _, h := range extenders() {
		in := nodes("node-hot", "node-mid", "node-cold")
		if !h.NodeCacheCapable {
			in[2].Labels["kubernetes.io/role"] = "edge" // the table's masks are not read in this mode
			in[0].Labels["kubernetes.io/role"] = "core"
		}
		passed, failed, err := h.Filter(pod(map[string]string{"type": "space"}), in)
		if err != nil {
			t.Fatalf("nodeCacheCapable=%v: %v", h.NodeCacheCapable, err)
		}
		if fmt.Sprint(passed) != "[node-cold]" || len(failed) != 2 || failed["node-hot"] != reason || failed["node-mid"] != reason {
			t.Errorf("nodeCacheCapable=%v: passed %v failed %v", h.NodeCacheCapable, passed, failed)
		}
	}
}
