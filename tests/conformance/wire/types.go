package wire

// Wire types copied from k8s.io/kube-scheduler/extender/v1 types.go: no json tags, exactly as
// kube-scheduler encodes and decodes them.

const (
	MinExtenderPriority int64 = 0
	MaxExtenderPriority int64 = 10
)

type ExtenderArgs struct {
	Pod       *Pod
	Nodes     *NodeList
	NodeNames *[]string
}

type FailedNodesMap map[string]string

type ExtenderFilterResult struct {
	Nodes                      *NodeList
	NodeNames                  *[]string
	FailedNodes                FailedNodesMap
	FailedAndUnresolvableNodes FailedNodesMap
	Error                      string
}

type HostPriority struct {
	Host  string
	Score int64
}

type HostPriorityList []HostPriority

// Minimal stand-ins for k8s.io/api/core/v1 with the real json tags (the embedded objects use
// Kubernetes' camelCase names). Time encodes a zero value as null, like metav1.Time before 1.34.

type Time struct{ S string }

func (t Time) MarshalJSON() ([]byte, error) {
	if t.S == "" {
		return []byte("null"), nil
	}
	return []byte(`"` + t.S + `"`), nil
}

func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.S = ""
		return nil
	}
	t.S = string(b[1 : len(b)-1])
	return nil
}

type ObjectMeta struct {
	Name              string            `json:"name,omitempty"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	CreationTimestamp Time              `json:"creationTimestamp"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
}

type ListMeta struct {
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

type Container struct {
	Name  string `json:"name"`
	Image string `json:"image,omitempty"`
}

type PodSpec struct {
	Containers    []Container `json:"containers"`
	SchedulerName string      `json:"schedulerName,omitempty"`
}

type Pod struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec `json:"spec,omitempty"`
}

type DaemonEndpoint struct {
	Port int32 // capital P on the wire, as in Kubernetes
}

type NodeDaemonEndpoints struct {
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty"`
}

type NodeStatus struct {
	Capacity        map[string]string   `json:"capacity,omitempty"`
	DaemonEndpoints NodeDaemonEndpoints `json:"daemonEndpoints,omitempty"`
}

type Node struct {
	ObjectMeta `json:"metadata,omitempty"`
	Status     NodeStatus `json:"status,omitempty"`
}

type NodeList struct {
	ListMeta `json:"metadata"`
	Items    []Node `json:"items"`
}
