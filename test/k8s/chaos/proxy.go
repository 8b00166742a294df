package chaos

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// A proxy fault: what the proxy does to requests (and streams in flight)
// while it lasts.
type fault string

const (
	faultNone      fault = ""
	faultDelay     fault = "proxy-delay"      // hold each request a while, then forward it
	faultDrop      fault = "proxy-drop"       // close each new connection's request unanswered
	faultResetBody fault = "proxy-reset-body" // cut responses (lists, watches) mid-body
	faultHalfOpen  fault = "proxy-half-open"  // stop forwarding bytes, keep connections open
	fault429       fault = "proxy-429"        // answer 429 with Retry-After
	fault5xx       fault = "proxy-5xx"        // answer 500 / 503
)

// write is one mutating request a replica sent through its proxy: Audit-ID
// joins it to kube-apiserver's audit log; Delivered is the status the
// replica received in full (0: the proxy cut or dropped the answer).
type write struct {
	AuditID   string
	Replica   string // process name, e.g. "a-2"
	Method    string
	Path      string
	Received  time.Time // when the proxy got the request from the replica
	Delivered int
}

// leaseSeen is a Lease state kube-apiserver accepted from a replica
// (a 200/201 answer to its write of the Lease).
type leaseSeen struct {
	Replica   string
	Holder    string
	Renew     time.Time
	Duration  time.Duration
	Transfers int32
}

// proxy is a TLS-terminating reverse proxy between one ksched replica slot
// and kube-apiserver that injects faults on command. It forwards the
// replica's bearer token unchanged, tags each request with its own Audit-ID
// and User-Agent suffix, and records every write and every Lease the API
// server accepted. Safe for concurrent use.
type proxy struct {
	slot      string
	upstream  *url.URL
	transport *http.Transport
	server    *http.Server
	URL       string

	seq     atomic.Int64
	mu      sync.Mutex
	mode    fault
	until   time.Time
	delay   time.Duration
	changed chan struct{} // closed and replaced on every Set
	process string        // the slot's current process name
	writes  []*write
	leases  []leaseSeen
}

func newProxy(slot, upstream, pkiDir string) (*proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(filepath.Join(pkiDir, "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cert, err := serveCert(pkiDir)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{
		slot:     slot,
		upstream: u,
		transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool},
			ForceAttemptHTTP2:   true,
			MaxIdleConnsPerHost: 50,
			IdleConnTimeout:     30 * time.Second,
		},
		changed: make(chan struct{}),
		URL:     "https://" + ln.Addr().String(),
	}
	// HTTP/1.1 only towards ksched: a cut is a closed connection.
	tl := tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
	p.server = &http.Server{Handler: p, ErrorLog: nil}
	go func() { _ = p.server.Serve(tl) }()
	return p, nil
}

// serveCert is a certificate for 127.0.0.1 signed by the cluster CA that
// k8s-up.sh wrote, so ksched verifies the proxy as it would the API server.
func serveCert(pkiDir string) (tls.Certificate, error) {
	ca, err := tls.LoadX509KeyPair(filepath.Join(pkiDir, "ca.crt"), filepath.Join(pkiDir, "ca.key"))
	if err != nil {
		return tls.Certificate{}, err
	}
	caCert, err := x509.ParseCertificate(ca.Certificate[0])
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "chaos-proxy"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, ca.PrivateKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
}

// SetProcess names the process now behind this slot (for the records).
func (p *proxy) SetProcess(name string) {
	p.mu.Lock()
	p.process = name
	p.mu.Unlock()
}

// Set starts fault f for d (delay: each request held `delay`).
func (p *proxy) Set(f fault, d, delay time.Duration) {
	p.mu.Lock()
	p.mode, p.until, p.delay = f, time.Now().Add(d), delay
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

func (p *proxy) current() (fault, time.Duration, <-chan struct{}, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode != faultNone && time.Now().After(p.until) {
		p.mode = faultNone
	}
	return p.mode, p.delay, p.changed, p.process
}

// Writes and Leases are copies of the records so far.
func (p *proxy) Writes() []write {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]write, len(p.writes))
	for i, w := range p.writes {
		out[i] = *w
	}
	return out
}

func (p *proxy) Leases() []leaseSeen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]leaseSeen(nil), p.leases...)
}

func (p *proxy) Close() { _ = p.server.Close() }

func isLeasePath(path string) bool {
	return strings.Contains(path, "/leases/") || strings.HasSuffix(path, "/leases")
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mode, delay, changed, process := p.current()
	id := fmt.Sprintf("chaos-%s-%d", process, p.seq.Add(1))
	var rec *write
	mutating := r.Method != http.MethodGet && r.Method != http.MethodHead
	if mutating {
		rec = &write{AuditID: id, Replica: process, Method: r.Method, Path: r.URL.Path, Received: time.Now()}
		p.mu.Lock()
		p.writes = append(p.writes, rec)
		p.mu.Unlock()
	}
	switch mode {
	case faultDrop:
		abort(w)
	case fault429:
		w.Header().Set("Retry-After", "1")
		status(w, http.StatusTooManyRequests, "TooManyRequests")
		p.delivered(rec, http.StatusTooManyRequests)
		return
	case fault5xx:
		code := http.StatusServiceUnavailable
		if p.seq.Load()%2 == 0 {
			code = http.StatusInternalServerError
		}
		status(w, code, "InternalError")
		p.delivered(rec, code)
		return
	case faultHalfOpen:
		// Nothing goes through; the connection stays open until the
		// client gives up or the fault ends (then it is cut, as a dead
		// peer's connection eventually is).
		p.stall(r, changed)
		abort(w)
	case faultDelay:
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			abort(w)
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		abort(w)
	}
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = p.upstream.Scheme, p.upstream.Host, p.upstream.Host, ""
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.Header.Del("Connection")
	out.Header.Set("Audit-ID", id)
	out.Header.Set("User-Agent", r.Header.Get("User-Agent")+" chaos-proxy/"+process)
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		status(w, http.StatusBadGateway, "ServiceUnavailable")
		p.delivered(rec, http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	lease := mutating && isLeasePath(r.URL.Path) && resp.StatusCode < 300
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	var leaseBody bytes.Buffer
	if p.copyBody(w, r, resp.Body, &leaseBody, lease) {
		p.delivered(rec, resp.StatusCode)
		if lease {
			p.recordLease(process, leaseBody.Bytes())
		}
		return
	}
	abort(w)
}

// copyBody streams the upstream body to the replica, flushing each chunk
// (watches), and reacts to faults started meanwhile. False: the body was
// cut (the caller aborts the connection).
func (p *proxy) copyBody(w http.ResponseWriter, r *http.Request, body io.Reader, keep *bytes.Buffer, keepIt bool) bool {
	type chunk struct {
		b   []byte
		err error
	}
	chunks := make(chan chunk)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			buf := make([]byte, 32*1024)
			n, err := body.Read(buf)
			select {
			case chunks <- chunk{buf[:n], err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	flusher, _ := w.(http.Flusher)
	for {
		mode, _, changed, _ := p.current()
		switch mode {
		case faultResetBody:
			return false
		case faultHalfOpen:
			p.stall(r, changed)
			return false
		}
		select {
		case c := <-chunks:
			if len(c.b) > 0 {
				if m, _, _, _ := p.current(); m == faultResetBody {
					// Cut in the middle of this chunk.
					_, _ = w.Write(c.b[:len(c.b)/2])
					if flusher != nil {
						flusher.Flush()
					}
					return false
				}
				if keepIt {
					keep.Write(c.b)
				}
				if _, err := w.Write(c.b); err != nil {
					return false
				}
				if flusher != nil {
					flusher.Flush()
				}
			}
			if c.err == io.EOF {
				return true
			}
			if c.err != nil {
				return false
			}
		case <-changed:
		case <-r.Context().Done():
			return false
		}
	}
}

// stall blocks while the half-open fault lasts (or the client gives up).
func (p *proxy) stall(r *http.Request, changed <-chan struct{}) {
	for {
		mode, _, ch, _ := p.current()
		if mode != faultHalfOpen {
			return
		}
		p.mu.Lock()
		left := time.Until(p.until)
		p.mu.Unlock()
		select {
		case <-r.Context().Done():
			return
		case <-ch:
		case <-time.After(left + time.Millisecond):
		}
		_ = changed
	}
}

func (p *proxy) delivered(rec *write, code int) {
	if rec == nil {
		return
	}
	p.mu.Lock()
	rec.Delivered = code
	p.mu.Unlock()
}

func (p *proxy) recordLease(process string, body []byte) {
	var l coordinationv1.Lease
	if json.Unmarshal(body, &l) != nil || l.Spec.HolderIdentity == nil || l.Spec.RenewTime == nil {
		return
	}
	s := leaseSeen{Replica: process, Holder: *l.Spec.HolderIdentity, Renew: l.Spec.RenewTime.Time}
	if l.Spec.LeaseDurationSeconds != nil {
		s.Duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	if l.Spec.LeaseTransitions != nil {
		s.Transfers = *l.Spec.LeaseTransitions
	}
	p.mu.Lock()
	p.leases = append(p.leases, s)
	p.mu.Unlock()
}

// abort ends the handler by closing the connection without a (complete)
// answer.
func abort(http.ResponseWriter) { panic(http.ErrAbortHandler) }

func status(w http.ResponseWriter, code int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"chaos proxy","reason":%q,"code":%d}`, reason, code)
}
