package extender

import (
	"fmt"
	"net"
	"net/http"
	. "netscore.io/conformance/wire"
	"sync/atomic"
	"testing"
	"time"
)

// What one pod costs the scheduler in extender calls, for the two shipped configurations: with
// filterVerb (filter, then prioritize on the nodes that passed) and prioritize-only. Run with
// `go test -run '^$' -bench .` (reproduce command in bench/RESULTS.md); not part of the default run.

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
