package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// HTTPExtender mirrors kube-scheduler's HTTPExtender (pkg/scheduler/extender.go): POST of
// json.Marshal(args) to strings.TrimRight(urlPrefix, "/") + "/" + verb, any status but 200 is an
// error, the body is decoded with json.NewDecoder into the v1 types.
type HTTPExtender struct {
	URLPrefix        string
	NodeCacheCapable bool
	Client           *http.Client
}

// Send posts args to the verb and decodes the answer into result.
func (h *HTTPExtender) Send(verb string, args interface{}, result interface{}) error {
	out, err := json.Marshal(args)
	if err != nil {
		return err
	}
	url := strings.TrimRight(h.URLPrefix, "/") + "/" + verb
	req, err := http.NewRequest("POST", url, bytes.NewReader(out))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.Client.Do(req)
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

// Args builds ExtenderArgs the way nodeCacheCapable decides: names only, or full Nodes.
func (h *HTTPExtender) Args(pod *Pod, nodes []*Node) *ExtenderArgs {
	args := &ExtenderArgs{Pod: pod}
	if h.NodeCacheCapable {
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

// Filter follows HTTPExtender.Filter's choice of node list, including its subset check. Reasons from
// FailedAndUnresolvableNodes come back prefixed "unresolvable: ".
func (h *HTTPExtender) Filter(pod *Pod, nodes []*Node) ([]string, FailedNodesMap, error) {
	var result ExtenderFilterResult
	if err := h.Send("filter", h.Args(pod, nodes), &result); err != nil {
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
	if h.NodeCacheCapable && result.NodeNames != nil {
		for _, name := range *result.NodeNames {
			if !input[name] {
				return nil, nil, fmt.Errorf("extender %q claims a filtered node %q which is not found in the input node list", h.URLPrefix, name)
			}
			passed = append(passed, name)
		}
	} else if result.Nodes != nil {
		for _, n := range result.Nodes.Items {
			passed = append(passed, n.Name)
		}
	}
	// findNodesThatPassExtenders: an unresolvable entry wins over a plain failed one for the same node.
	failed := FailedNodesMap{}
	for name, reason := range result.FailedNodes {
		failed[name] = reason
	}
	for name, reason := range result.FailedAndUnresolvableNodes {
		failed[name] = "unresolvable: " + reason
	}
	return passed, failed, nil
}

// Prioritize returns the HostPriorityList as the scheduler decodes it.
func (h *HTTPExtender) Prioritize(pod *Pod, nodes []*Node) (HostPriorityList, error) {
	var result HostPriorityList
	err := h.Send("prioritize", h.Args(pod, nodes), &result)
	return result, err
}
