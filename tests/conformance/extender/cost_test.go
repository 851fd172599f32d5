package extender

import (
	"fmt"
	"net"
	"net/http"
	. "netscore.io/conformance/wire"
	"os"
	"regexp"
	"sync/atomic"
	"testing"
	"time"
)

// What one pod costs the scheduler in extender calls, for the two shipped configurations: the
// default prioritize-only and the filter variant (filter, then prioritize on the nodes that
// passed). TestCostPerPod runs in the default run (asserting round trips, reporting times); the
// benchmarks give the figures in bench/RESULTS.md (`go test -run '^$' -bench .`).

// The shipped control-plane configurations, and whether each configures the filter verb.
var shippedConfigs = []string{"kube-scheduler-config.yaml", "kube-scheduler-config-filter.yaml"}

var filterVerbLine = regexp.MustCompile(`(?m)^\s*filterVerb:\s*"?filter"?\s*$`)

func shippedFilterVerb(t *testing.T, name string) bool {
	text, err := os.ReadFile("../../../deploy/overlays/control-plane/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return filterVerbLine.Match(text)
}

// One run, both configurations: the default makes one round trip per pod, the filter variant two,
// and the time per pod of each (and their ratio) is reported, not asserted.
func TestCostPerPod(t *testing.T) {
	waitReady(t)
	const pods = 300
	all := manyNodes(100)
	perPod := map[string]time.Duration{}
	for _, name := range shippedConfigs {
		filter := shippedFilterVerb(t, name)
		if want := name == "kube-scheduler-config-filter.yaml"; filter != want {
			t.Fatalf("%s: filterVerb configured = %v, want %v", name, filter, want)
		}
		counter := &countingTransport{next: http.DefaultTransport.(*http.Transport).Clone()}
		h := &HTTPExtender{URLPrefix: urlPrefix, NodeCacheCapable: true,
			Client: &http.Client{Timeout: shippedTimeout, Transport: counter}}
		p := pod(nil)
		start := time.Now()
		for i := 0; i < pods; i++ {
			scheduleOne(h, p, all, filter)
		}
		perPod[name] = time.Since(start) / pods
		want := int64(pods)
		if filter {
			want *= 2
		}
		if got := counter.trips.Load(); got != want {
			t.Errorf("%s: %d round trips for %d pods, want %d", name, got, pods, want)
		}
		t.Logf("%s: %.1f round trips/pod, %v/pod", name, float64(counter.trips.Load())/pods, perPod[name])
	}
	t.Logf("prioritize-only / filter+prioritize time per pod: %.2f",
		float64(perPod[shippedConfigs[0]])/float64(perPod[shippedConfigs[1]]))
}

// shippedTimeout is the httpTimeout of deploy/overlays/*/scheduler configs.
const shippedTimeout = 300 * time.Millisecond

type countingTransport struct {
	next  http.RoundTripper
	trips atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.trips.Add(1)
	return c.next.RoundTrip(r)
}

// scheduleOne makes the calls kube-scheduler makes for one pod. A failed call is skipped, as with
// ignorable: true.
func scheduleOne(h *HTTPExtender, pod *Pod, all []*Node, filter bool) {
	feasible := all
	if filter {
		if passed, _, err := h.Filter(pod, all); err == nil {
			byName := map[string]*Node{}
			for _, n := range all {
				byName[n.Name] = n
			}
			feasible = feasible[:0:0]
			for _, name := range passed {
				feasible = append(feasible, byName[name])
			}
		}
	}
	if len(feasible) > 1 {
		h.Prioritize(pod, feasible)
	}
}

func manyNodes(n int) []*Node {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("node-%03d", i)
	}
	names[0], names[1], names[2] = "node-hot", "node-mid", "node-cold"
	return nodes(names...)
}

func BenchmarkPerPod(b *testing.B) {
	if err := WaitReady(urlPrefix[:len(urlPrefix)-len("/scheduler/")], 15*time.Second); err != nil {
		b.Fatal(err)
	}
	all := manyNodes(100)
	for _, cacheCapable := range []bool{true, false} {
		for _, filter := range []bool{true, false} {
			name := fmt.Sprintf("nodeCacheCapable=%v/filter=%v", cacheCapable, filter)
			b.Run(name, func(b *testing.B) {
				counter := &countingTransport{next: http.DefaultTransport.(*http.Transport).Clone()}
				h := &HTTPExtender{URLPrefix: urlPrefix, NodeCacheCapable: cacheCapable,
					Client: &http.Client{Timeout: shippedTimeout, Transport: counter}}
				p := pod(nil)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					scheduleOne(h, p, all, filter)
				}
				b.ReportMetric(float64(counter.trips.Load())/float64(b.N), "roundtrips/pod")
			})
		}
	}
}

// A hung extender (SIGSTOPped: the kernel still accepts connections, nobody answers) costs each
// pod one httpTimeout per configured verb.
func BenchmarkHungExtender(b *testing.B) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer listener.Close()
	all := manyNodes(100)
	for _, filter := range []bool{true, false} {
		b.Run(fmt.Sprintf("filter=%v", filter), func(b *testing.B) {
			h := &HTTPExtender{URLPrefix: "http://" + listener.Addr().String(), NodeCacheCapable: true,
				Client: &http.Client{Timeout: shippedTimeout}}
			for i := 0; i < b.N; i++ {
				scheduleOne(h, pod(nil), all, filter)
			}
		})
	}
}
