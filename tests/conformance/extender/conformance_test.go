package extender

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// httpExtender mirrors kube-scheduler's HTTPExtender (pkg/scheduler/extender.go): POST of
// json.Marshal(args) to strings.TrimRight(urlPrefix, "/") + "/" + verb, any status but 200 is an
// error, the body is decoded with json.NewDecoder into the v1 types.
type httpExtender struct {
	urlPrefix        string
	nodeCacheCapable bool
	client           *http.Client
}

func (h *httpExtender) send(verb string, args interface{}, result interface{}) error {
	out, err := json.Marshal(args)
	if err != nil {
		return err
	}
	url := strings.TrimRight(h.urlPrefix, "/") + "/" + verb
	req, err := http.NewRequest("POST", url, bytes.NewReader(out))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("failed %v with extender at URL %v, code %v", verb, url, resp.StatusCode)
	}
	// Stricter than the scheduler (which ignores it): the answer must say it is JSON.
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		return fmt.Errorf("content type %q", ct)
	}
	return json.NewDecoder(resp.Body).Decode(result)
}

func (h *httpExtender) args(pod *Pod, nodes []*Node) *ExtenderArgs {
	args := &ExtenderArgs{Pod: pod}
	if h.nodeCacheCapable {
		names := make([]string, 0, len(nodes))
		for _, n := range nodes {
			names = append(names, n.Name)
		}
		args.NodeNames = &names
	} else {
		list := &NodeList{}
		for _, n := range nodes {
			list.Items = append(list.Items, *n)
		}
		args.Nodes = list
	}
	return args
}

// Filter follows HTTPExtender.Filter's choice of node list, including its subset check.
func (h *httpExtender) Filter(pod *Pod, nodes []*Node) ([]string, FailedNodesMap, error) {
	var result ExtenderFilterResult
	if err := h.send("filter", h.args(pod, nodes), &result); err != nil {
		return nil, nil, err
	}
	if result.Error != "" {
		return nil, nil, fmt.Errorf(result.Error)
	}
	input := map[string]bool{}
	for _, n := range nodes {
		input[n.Name] = true
	}
	var passed []string
	if h.nodeCacheCapable && result.NodeNames != nil {
		for _, name := range *result.NodeNames {
			if !input[name] {
				return nil, nil, fmt.Errorf("extender %q claims a filtered node %q which is not found in the input node list", h.urlPrefix, name)
			}
			passed = append(passed, name)
		}
	} else if result.Nodes != nil {
		for _, n := range result.Nodes.Items {
			passed = append(passed, n.Name)
		}
	}
	return passed, result.FailedNodes, nil
}

func (h *httpExtender) Prioritize(pod *Pod, nodes []*Node) (HostPriorityList, error) {
	var result HostPriorityList
	err := h.send("prioritize", h.args(pod, nodes), &result)
	return result, err
}

var urlPrefix string

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

	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "NETSCORE_LISTEN=127.0.0.1:0", "NETSCORE_SHM_NAME="+shm,
		"NETSCORE_URL_PREFIX=/scheduler", "NETSCORE_THREADS=2")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start extender:", err)
		os.Exit(1)
	}
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`listening address=(127\.0\.0\.1:\d+)`)
		scanner := bufio.NewScanner(stderr)
		for scanner.Scan() {
			fmt.Fprintln(os.Stderr, "extender:", scanner.Text())
			if m := re.FindStringSubmatch(scanner.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		urlPrefix = "http://" + a + "/scheduler/"
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		fmt.Fprintln(os.Stderr, "extender did not report its address")
		os.Exit(1)
	}
	code := m.Run()
	defer func() {
		// os.Exit skips deferred calls: remove the table explicitly, then exit.
		exec.Command(helper, "remove", shm).Run()
		os.Exit(code)
	}()

	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			fmt.Fprintln(os.Stderr, "extender did not exit cleanly on SIGTERM:", err)
			code = 1
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		fmt.Fprintln(os.Stderr, "extender did not stop within 20s of SIGTERM")
		code = 1
	}
}

func waitReady(t *testing.T) {
	base := strings.TrimSuffix(urlPrefix, "/scheduler/")
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("extender never became ready")
}

func nodes(names ...string) []*Node {
	out := []*Node{}
	for _, n := range names {
		out = append(out, &Node{
			ObjectMeta: ObjectMeta{Name: n, UID: "uid-" + n, Labels: map[string]string{"kubernetes.io/hostname": n},
				Annotations: map[string]string{"note": "<b> & </b> \u2028"}},
			Status: NodeStatus{Capacity: map[string]string{"cpu": "8"}, DaemonEndpoints: NodeDaemonEndpoints{DaemonEndpoint{10250}}},
		})
	}
	return out
}

func pod(annotations map[string]string) *Pod {
	return &Pod{ObjectMeta: ObjectMeta{Name: "web", Namespace: "default", Annotations: annotations},
		Spec: PodSpec{Containers: []Container{{Name: "web", Image: "nginx"}}, SchedulerName: "default-scheduler"}}
}

func extenders() []*httpExtender {
	client := &http.Client{Timeout: 5 * time.Second}
	return []*httpExtender{{urlPrefix, true, client}, {urlPrefix, false, client}}
}

func TestPrioritizeScoresTheBusiestNodeLowest(t *testing.T) {
	waitReady(t)
	for _, h := range extenders() {
		list, err := h.Prioritize(pod(nil), nodes("node-hot", "node-mid", "node-cold", "node-unknown", "node-bad"))
		if err != nil {
			t.Fatalf("nodeCacheCapable=%v: %v", h.nodeCacheCapable, err)
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
			t.Errorf("nodeCacheCapable=%v: got %v want %v", h.nodeCacheCapable, list, want)
		}
	}
}

func TestFilterPassesAllWithoutAnnotation(t *testing.T) {
	waitReady(t)
	for _, h := range extenders() {
		passed, failed, err := h.Filter(pod(map[string]string{"other": "1"}), nodes("node-hot", "node-cold", "node-x"))
		if err != nil {
			t.Fatalf("nodeCacheCapable=%v: %v", h.nodeCacheCapable, err)
		}
		if fmt.Sprint(passed) != "[node-hot node-cold node-x]" || len(failed) != 0 {
			t.Errorf("nodeCacheCapable=%v: passed %v failed %v", h.nodeCacheCapable, passed, failed)
		}
	}
}

func TestFilterRejectsNodesAboveTheCeiling(t *testing.T) {
	waitReady(t)
	for _, h := range extenders() {
		passed, failed, err := h.Filter(pod(map[string]string{"netscore.io/max-receive-bytes": "600"}),
			nodes("node-hot", "node-mid", "node-cold"))
		if err != nil {
			t.Fatalf("nodeCacheCapable=%v: %v", h.nodeCacheCapable, err)
		}
		sort.Strings(passed)
		if fmt.Sprint(passed) != "[node-cold node-mid]" {
			t.Errorf("nodeCacheCapable=%v: passed %v", h.nodeCacheCapable, passed)
		}
		if reason := failed["node-hot"]; !strings.Contains(reason, "1000") || !strings.Contains(reason, "600") || len(failed) != 1 {
			t.Errorf("nodeCacheCapable=%v: failed %v", h.nodeCacheCapable, failed)
		}
	}
}

func TestFullNodesComeBackIntact(t *testing.T) {
	waitReady(t)
	h := extenders()[1]
	in := nodes("node-cold")
	var result ExtenderFilterResult
	if err := h.send("filter", h.args(pod(nil), in), &result); err != nil {
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
	if result.NodeNames != nil || result.FailedAndUnresolvableNodes != nil || result.Error != "" {
		t.Errorf("unexpected fields %+v", result)
	}
}

func TestSchedulerSeesErrorsForBadRequests(t *testing.T) {
	waitReady(t)
	h := extenders()[0]
	var list HostPriorityList
	if err := h.send("prioritize", &ExtenderArgs{Pod: pod(nil)}, &list); err == nil || !strings.Contains(err.Error(), "code 400") {
		t.Errorf("both node fields null: got %v", err)
	}
	if err := h.send("nosuchverb", h.args(pod(nil), nodes("a")), &list); err == nil || !strings.Contains(err.Error(), "code 404") {
		t.Errorf("unknown verb: got %v", err)
	}
}
