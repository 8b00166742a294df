package chaos

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// auditPolicy logs (at Metadata level: who, what, when, the answer) every
// write of the ksched ServiceAccount, and nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  users: ["system:serviceaccount:ksched-system:ksched"]
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: None
`

// auditEvent is the part of an audit.k8s.io/v1 Event the checks read.
type auditEvent struct {
	AuditID   string `json:"auditID"`
	Stage     string `json:"stage"`
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Received time.Time `json:"requestReceivedTimestamp"`
}

func readAudit(path string) ([]auditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4<<20), 4<<20)
	for sc.Scan() {
		var e auditEvent
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Stage == "ResponseComplete" {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

// fencingResult is what checkFencing found.
type fencingResult struct {
	Bindings     int            // successful bindings in the audit log
	BindingsBy   map[string]int // per process
	Writes       int            // successful leader-only writes checked
	Untagged     int            // ksched writes that did not come through a proxy
	LeaseRecords int
	BoundPods    map[string]bool // namespace/name of every successful binding
	// namespace/name of every binding answered 5xx: its outcome is open (a
	// replica killed mid-request leaves kube-apiserver answering 504 after
	// it stored the binding)
	OpenBindings  map[string]bool
	ViolationText []string
}

// checkFencing joins the audit log (what kube-apiserver accepted, by whom)
// with the proxies' records (when each replica sent the write, and which
// Lease states the API server accepted from each replica). At the moment a
// replica sent a write, the Lease record with the latest renewTime not
// after that moment must be its own, and not expired (renewTime +
// leaseDuration). Lease and Event writes are exempt: they are how a
// candidate acquires, and what any replica may report.
func checkFencing(events []auditEvent, proxies []*proxy) fencingResult {
	res := fencingResult{BindingsBy: map[string]int{}, BoundPods: map[string]bool{}, OpenBindings: map[string]bool{}}
	writes := map[string]write{}
	var leases []leaseSeen
	for _, p := range proxies {
		for _, w := range p.Writes() {
			writes[w.AuditID] = w
		}
		leases = append(leases, p.Leases()...)
	}
	sort.Slice(leases, func(i, j int) bool { return leases[i].Renew.Before(leases[j].Renew) })
	res.LeaseRecords = len(leases)
	identity := map[string]string{} // process -> holder identity it wrote
	for _, l := range leases {
		if l.Holder != "" {
			identity[l.Replica] = l.Holder
		}
	}
	boundPods := map[string]int{}
	for _, e := range events {
		if e.ObjectRef != nil && e.ResponseStatus != nil && e.ResponseStatus.Code >= 500 &&
			e.ObjectRef.Resource == "pods" && e.ObjectRef.Subresource == "binding" {
			res.OpenBindings[e.ObjectRef.Namespace+"/"+e.ObjectRef.Name] = true
		}
		if e.ObjectRef == nil || e.ResponseStatus == nil || e.ResponseStatus.Code >= 300 {
			continue
		}
		if e.ObjectRef.Resource == "leases" || e.ObjectRef.Resource == "events" {
			continue
		}
		w, ok := writes[e.AuditID]
		if !ok {
			res.Untagged++
			res.ViolationText = append(res.ViolationText, fmt.Sprintf("write %s %s/%s/%s by %q not sent through a proxy (audit ID %s)",
				e.Verb, e.ObjectRef.Resource, e.ObjectRef.Name, e.ObjectRef.Subresource, e.UserAgent, e.AuditID))
			continue
		}
		if e.ObjectRef.Resource == "pods" && e.ObjectRef.Subresource == "binding" {
			res.Bindings++
			res.BindingsBy[w.Replica]++
			key := e.ObjectRef.Namespace + "/" + e.ObjectRef.Name
			boundPods[key]++
			res.BoundPods[key] = true
			if boundPods[key] == 2 {
				res.ViolationText = append(res.ViolationText, fmt.Sprintf("pod %s: two successful bindings in the audit log", key))
			}
		}
		res.Writes++
		// The latest accepted Lease state at the send time.
		i := sort.Search(len(leases), func(i int) bool { return leases[i].Renew.After(w.Received) })
		what := fmt.Sprintf("%s %s %s", w.Replica, strings.ToLower(e.Verb), strings.TrimPrefix(w.Path, "/api/v1/namespaces/"))
		if i == 0 {
			res.ViolationText = append(res.ViolationText, fmt.Sprintf("%s at %s before any Lease was held",
				what, w.Received.Format("15:04:05.000")))
			continue
		}
		l := leases[i-1]
		switch {
		case l.Holder != identity[w.Replica]:
			res.ViolationText = append(res.ViolationText, fmt.Sprintf("%s at %s while %s (%q) held the Lease (renewed %s)",
				what, w.Received.Format("15:04:05.000"), l.Replica, l.Holder, l.Renew.Format("15:04:05.000")))
		case w.Received.After(l.Renew.Add(l.Duration)):
			res.ViolationText = append(res.ViolationText, fmt.Sprintf("%s at %s after its Lease expired (renewed %s, duration %v)",
				what, w.Received.Format("15:04:05.000"), l.Renew.Format("15:04:05.000"), l.Duration))
		}
	}
	return res
}
