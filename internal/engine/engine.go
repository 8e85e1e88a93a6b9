// Package engine is an embedded Cosmos DB NoSQL server that the real azcosmos SDK talks to over
// HTTP or HTTPS on loopback: databases, containers with Hash and MultiHash partition keys, simulated
// physical partitions, indexing-policy semantics, items, patch, transactional batch, queries through
// the sql package, TTL, optional throttling, and request charges from the cost model.
package engine

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
)

// EmulatorKey is the well-known master key every Microsoft Cosmos DB emulator accepts (published in
// the emulator documentation), the default Key. It guards nothing, which is why it may appear in code;
// it is the one copy of it in this project.
const EmulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// Options configure Start. The zero value serves HTTP on a random loopback port with the emulator key.
type Options struct {
	// Addr is the listen address; default "127.0.0.1:0" (random free port, loopback).
	Addr string
	// Protocol is "http" (default) or "https" (a self-signed certificate is generated at start).
	Protocol string
	// Key is the master key (base64); default EmulatorKey.
	Key string
	// Logger receives request and lifecycle logs; nil discards. Keys and signatures are never logged.
	Logger *slog.Logger
	// PersistPath is "" for memory only; otherwise the snapshot loaded at start and saved on Close
	// and periodically.
	PersistPath string
	// PersistMode is PersistLog ("" too: every acknowledged write is in an fsynced log first) or
	// PersistSnapshot (snapshots only; a crash loses the writes since the last one). See persistlog.go.
	PersistMode string
	// Partitions decides the number of simulated physical partitions of a new container; nil means
	// the rate card's cost.PhysicalPartitions for its throughput (ceil(throughput/6000), at least 1).
	Partitions func(database, container string, throughputRU int) int
	// Throttle enforces RU/s budgets per physical partition: 429 with x-ms-retry-after-ms.
	Throttle bool
	// Now is the clock for TTL, _ts and throttling windows; nil = time.Now.
	Now func() time.Time
	// PublicURL is the address the account advertises to SDKs as its read and write location,
	// for clients that reach the server through another address than it listens on (a
	// container's published port). Default: the listen address. The vNext emulator's
	// GATEWAY_PUBLIC_ENDPOINT setting serves the same purpose.
	PublicURL string
	// Consistency is the account's default consistency level (ParseConsistency): reported on
	// GET /, the level of requests that name none, and the strongest a request may ask for.
	// "" = Session, and requests may ask for any level.
	Consistency string
	// AllowAAD accepts Microsoft Entra ID bearer tokens ("type=aad&ver=1.0&sig=<JWT>") besides
	// master-key signatures: their form, claims and lifetime are checked, not their signature.
	AllowAAD bool
	// ComputeAddr, when set, is the listen address of a second endpoint serving the same account
	// as the emulator's compute gateway does (its port 8903): addresses are split into segments
	// before they are decoded and signed over as sent, so item ids that the routing gateway refuses
	// (ending in white space, holding '/', '\', '#' or a control character) are served
	// (gateway.go). It speaks Protocol and advertises itself as the account's location.
	ComputeAddr string
	// RateCard prices every charge; nil = cost.Current, the built-in card. `validate serve
	// --rate-card` and `--calibration` set another.
	RateCard *cost.RateCard
	// Rules chooses the alternative of each rule with alternatives (cost.Rules); nil = each rule's
	// default. `validate serve --rules NAME=ALT` sets another.
	Rules *cost.Selection
	// Observe, when set, receives the facts behind every charged point operation and query page,
	// with the response's activity id, before the response is written: `validate calibrate` pairs
	// them with an account's measured charges. It is called from request goroutines.
	Observe func(Observation)
}

// Observation is what the engine priced for one request: the point operations or the query page's
// facts, and the charge.
type Observation struct {
	// ActivityID is the response's x-ms-activity-id.
	ActivityID string
	Point      []cost.PointOp
	Query      []cost.QueryFacts
	Charge     float64
}

// card is the rate card the server prices with.
func (s *Server) card() *cost.RateCard {
	if s.opts.RateCard != nil {
		return s.opts.RateCard
	}
	return cost.Current
}

// observe hands what request q was charged for to Options.Observe.
func (s *Server) observe(q *request, ops []cost.PointOp, facts []cost.QueryFacts, charge float64) {
	if s.opts.Observe == nil {
		return
	}
	s.opts.Observe(Observation{ActivityID: headerValue(q.out, "x-ms-activity-id"), Point: ops, Query: facts, Charge: charge})
}

// CheckPublicURL parses a public URL for Options.PublicURL: http(s)://host[:port]/, with the
// scheme the server speaks and nothing after the host.
func CheckPublicURL(raw, protocol string) (*url.URL, error) {
	pu, err := url.Parse(raw)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || pu.User != nil ||
		strings.Trim(pu.Path, "/") != "" || pu.RawQuery != "" || pu.Fragment != "" {
		return nil, fmt.Errorf("public URL %q: want %s://host:port/ and nothing more", raw, protocol)
	}
	if pu.Scheme != protocol {
		return nil, fmt.Errorf("public URL %q: the server speaks %s", raw, protocol)
	}
	return pu, nil
}

// EngineHeader is the response header by which the engine identifies itself, on the account
// (GET /) and the database feed (GET /dbs): the targets read it to label an endpoint's charges
// "model" rather than an emulator's.
const EngineHeader = "x-cdv-engine"

// ChargesHeader carries, beside EngineHeader, the label of the charges the engine answers
// (cost.ChargesLabel of Options.RateCard: "model", "model (calibrated: <account>, <date>)" or
// "model (rate card: <file>)"): a run against `validate serve` labels the serve's charges with it.
const ChargesHeader = "x-cdv-charges"

// Server is a running engine. Its methods are safe for concurrent use.
type Server struct {
	opts    Options
	log     *slog.Logger
	debug   bool // request logging wanted: decided once, it costs allocations per request
	now     func() time.Time
	key     []byte
	keyText string
	auth    *authCache
	url     string // where the server listens
	public  string // what the account advertises (Options.PublicURL)
	ln      net.Listener
	http    *http.Server
	compute *http.Server // the compute gateway (Options.ComputeAddr); nil when not served
	// computeURL is the compute gateway's address, advertised on its own GET /; "" when not served.
	computeURL string
	client     *tls.Config
	cert       *x509.Certificate // the HTTPS certificate; nil over http

	consistency cost.Consistency // Options.Consistency parsed; "" when not set

	mu  sync.RWMutex // guards dbs and the offers index
	dbs map[string]*database

	seq     atomic.Uint64 // resource ids, etags, activity ids
	lsn     atomic.Int64
	queries queryCache
	parsed  parseCache

	stop      chan struct{}
	bg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
	dirty     atomic.Bool
	idPrefix  string
	wal       *wal         // the persist log in PersistLog mode, else nil
	plock     *persistLock // FILE.lock, held from Start to Close when PersistPath is set
	tokenKey  []byte       // the key continuation tokens are bound with (tokenBinding)
	ckpt      sync.Mutex   // one checkpoint at a time
	metaMu    sync.Mutex   // one durable change of databases, containers or offers at a time (routeDurably)
	// commitGate is held for reading around every commit of item writes (before the partition's
	// lock) and for writing while an undo of unwritten log records runs (undoFailed).
	commitGate sync.RWMutex
}

// handlerWrap is what a started server serves: the Server itself. Benchmarks replace it (before
// Start) to time the handler alone, without the TLS and HTTP/2 around it (export_test.go).
var handlerWrap = func(h http.Handler) http.Handler { return h }

// Start listens and serves until Close. It returns once the listener is bound.
func Start(ctx context.Context, o Options) (_ *Server, err error) {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.Protocol == "" {
		o.Protocol = "http"
	}
	if o.Protocol != "http" && o.Protocol != "https" {
		return nil, fmt.Errorf("start engine: protocol %q: want http or https", o.Protocol)
	}
	if o.Key == "" {
		o.Key = EmulatorKey
	}
	var level cost.Consistency
	if o.Consistency != "" {
		l, err := ParseConsistency(o.Consistency)
		if err != nil {
			return nil, fmt.Errorf("start engine: %w", err)
		}
		level = l
	}
	key, err := base64.StdEncoding.DecodeString(o.Key)
	if err != nil {
		return nil, errors.New("start engine: key is not valid base64")
	}
	s := &Server{
		opts:        o,
		log:         o.Logger,
		now:         o.Now,
		key:         key,
		keyText:     o.Key,
		auth:        newAuthCache(key),
		consistency: level,
		dbs:         map[string]*database{},
		stop:        make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.debug = s.log.Enabled(ctx, slog.LevelDebug)
	var rb [4]byte
	_, _ = rand.Read(rb[:])
	s.idPrefix = fmt.Sprintf("%08x", rb)
	s.queries.init()
	tk := hmac.New(sha256.New, key)
	tk.Write([]byte("validate engine: continuation tokens"))
	s.tokenKey = tk.Sum(nil)
	if o.PersistPath != "" {
		if o.PersistMode == "" {
			o.PersistMode = PersistLog
			s.opts.PersistMode = PersistLog
		}
		if o.PersistMode != PersistLog && o.PersistMode != PersistSnapshot {
			return nil, fmt.Errorf("start engine: persist mode %q: want %s or %s", o.PersistMode, PersistLog, PersistSnapshot)
		}
		lock, lerr := lockPersist(o.PersistPath)
		if lerr != nil {
			return nil, fmt.Errorf("start engine: %w", lerr)
		}
		s.plock = lock
		defer func() {
			if err != nil {
				s.plock.release()
			}
		}()
		removeTemps(o.PersistPath)
		if err := s.load(o.PersistPath); err != nil {
			return nil, fmt.Errorf("start engine: %w", err)
		}
		if o.PersistMode == PersistLog {
			if err := s.openDurable(o.PersistPath); err != nil {
				return nil, fmt.Errorf("start engine: %w", err)
			}
		}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("start engine: %w", err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	advertised := host
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		advertised = "127.0.0.1"
	}
	s.url = fmt.Sprintf("%s://%s/", o.Protocol, net.JoinHostPort(advertised, port))
	s.public = s.url
	certHosts := []string{advertised}
	if o.PublicURL != "" {
		pu, err := CheckPublicURL(o.PublicURL, o.Protocol)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("start engine: %w", err)
		}
		s.public = pu.Scheme + "://" + pu.Host + "/"
		certHosts = append(certHosts, pu.Hostname())
	}
	s.http = &http.Server{Handler: handlerWrap(s), ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	if o.Protocol == "https" {
		cert, pool, err := selfSigned(certHosts...)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("start engine: %w", err)
		}
		s.client = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		s.cert = cert.Leaf
		s.http.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
		ln = tls.NewListener(ln, s.http.TLSConfig)
	}
	s.ln = ln
	var cln net.Listener
	if o.ComputeAddr != "" {
		if cln, err = s.listenCompute(ctx, lc, o, advertised); err != nil {
			ln.Close()
			return nil, fmt.Errorf("start engine: %w: %w", ErrComputeListen, err)
		}
	}
	s.bg.Add(2)
	go func() {
		defer s.bg.Done()
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("engine serve", "err", err)
		}
	}()
	if cln != nil {
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			if err := s.compute.Serve(cln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				s.log.Error("engine compute gateway", "err", err)
			}
		}()
	}
	go func() {
		defer s.bg.Done()
		s.background()
	}()
	s.log.Info("engine started", "url", s.url)
	return s, nil
}

// URL is the endpoint to give azcosmos, e.g. "http://127.0.0.1:40123/".
func (s *Server) URL() string { return s.url }

// ComputeURL is the compute gateway's endpoint (Options.ComputeAddr), "" when it is not served.
func (s *Server) ComputeURL() string { return s.computeURL }

// Key is the master key the server verifies signatures with.
func (s *Server) Key() string { return s.keyText }

// TLSConfig is a client configuration trusting the generated certificate (nil for http).
func (s *Server) TLSConfig() *tls.Config {
	if s.client == nil {
		return nil
	}
	return s.client.Clone()
}

// Close stops accepting requests, lets in-flight ones finish (until ctx ends), stops background work
// and saves the snapshot when PersistPath is set. Calling it again returns the first result.
// closeGrace is how long Close lets in-flight requests finish before it closes connections.
const closeGrace = 500 * time.Millisecond

func (s *Server) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		// In-flight requests get a short grace; then connections still open are closed. (Shutdown alone
		// waits for connections the client opened but never used, which net/http treats as active for
		// five seconds.)
		grace, cancel := context.WithTimeout(ctx, closeGrace)
		err := s.http.Shutdown(grace)
		if s.compute != nil {
			if cerr := s.compute.Shutdown(grace); cerr != nil && ctx.Err() == nil {
				_ = s.compute.Close()
			}
		}
		cancel()
		if err != nil && ctx.Err() == nil {
			err = s.http.Close()
		}
		close(s.stop)
		s.bg.Wait()
		if s.opts.PersistPath != "" {
			if perr := s.closePersist(); perr != nil {
				err = errors.Join(err, perr)
			}
			s.plock.release()
		}
		if err != nil {
			s.closeErr = fmt.Errorf("close engine: %w", err)
		}
		s.log.Info("engine stopped")
	})
	return s.closeErr
}

// background removes expired items and saves snapshots until Close.
func (s *Server) background() {
	sweep := time.NewTicker(time.Second)
	defer sweep.Stop()
	save := time.NewTicker(30 * time.Second)
	defer save.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-sweep.C:
			s.sweepExpired()
		case <-save.C:
			if s.opts.PersistPath != "" && s.dirty.Load() {
				save := func() error { return s.save(s.opts.PersistPath) }
				if s.wal != nil {
					save = s.checkpoint // compacts the log into the snapshot
				}
				if err := save(); err != nil {
					s.log.Warn("engine snapshot", "err", err)
				}
			}
		}
	}
}

// selfSigned makes an ECDSA certificate for loopback names and the given hosts.
func selfSigned(hosts ...string) (tls.Certificate, *x509.CertPool, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("generate key: %w", err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "cosmosdv embedded engine"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	for _, host := range hosts {
		if ip := net.ParseIP(host); ip != nil {
			tpl.IPAddresses = append(tpl.IPAddresses, ip)
		} else if host != "" {
			tpl.DNSNames = append(tpl.DNSNames, host)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &priv.PublicKey, priv)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("create certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("parse certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv, Leaf: leaf}, pool, nil
}

// nextID returns a process-unique number.
func (s *Server) nextID() uint64 { return s.seq.Add(1) }

// newETag returns a quoted etag as the service formats them.
func (s *Server) newETag() string {
	return formatETag(s.idPrefix, s.nextID())
}

// formatETag renders "prefix-0000-0000-hhhh-hhhhhhhhhhhh" (with the quotes), the 16 hex digits
// being n.
func formatETag(prefix string, n uint64) string {
	const hexDigits = "0123456789abcdef"
	b := make([]byte, 0, len(prefix)+31)
	b = append(b, '"')
	b = append(b, prefix...)
	b = append(b, "-0000-0000-"...)
	for i := 15; i >= 0; i-- {
		if i == 11 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[(n>>(4*uint(i)))&0xf])
	}
	return string(append(b, '"'))
}

// activityID returns a fresh activity id in UUID form.
func (s *Server) activityID() string {
	n := s.nextID()
	return s.idPrefix + "-0000-4000-8000-" + leftPad(strconv.FormatUint(n, 16), 12)
}

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}
