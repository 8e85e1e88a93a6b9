package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azruntime "github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
)

func TestDetectPlaceholder(t *testing.T) {
	tests := []struct {
		name    string
		charges []float64
		want    bool
	}{
		{"none", nil, false},
		{"one non-zero", []float64{5.3}, false},
		{"one zero", []float64{0}, true},
		{"all ones", []float64{1, 1, 1, 1}, true},
		{"all zeros", []float64{0, 0}, true},
		{"varied", []float64{1, 2.38, 1}, false},
		{"real reads", []float64{1, 1.02, 1}, false},
		{"NaN", []float64{1, 1, nanValue()}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DetectPlaceholder(tt.charges); got != tt.want {
				t.Errorf("DetectPlaceholder(%v) = %v, want %v", tt.charges, got, tt.want)
			}
		})
	}
}

func nanValue() float64 { var z float64; return z / z }

func TestChargeSourceFor(t *testing.T) {
	if got := ChargeSourceFor(record.ChargeEmulatorIndicative, record.KindEndpoint, []float64{1, 1}); got != record.ChargeEmulatorPlaceholder {
		t.Errorf("endpoint with constant charges: got %s", got)
	}
	if got := ChargeSourceFor(record.ChargeService, record.KindAccount, []float64{1, 1}); got != record.ChargeService {
		t.Errorf("account keeps its label: got %s", got)
	}
	if got := ChargeSourceFor(record.ChargeEmulatorIndicative, record.KindEndpoint, []float64{1, 2}); got != record.ChargeEmulatorIndicative {
		t.Errorf("varied charges keep the label: got %s", got)
	}
}

func TestRunScopedName(t *testing.T) {
	tests := []struct {
		name, db, run, want string
	}{
		{"plain", "shop", "20261121t054346-a1b2", "cdv-shop-20261121t054346-a1b2"},
		{"forbidden characters", "a/b\\c?d#e", "r1", "cdv-a-b-c-d-e-r1"},
		{"empty database", "", "r1", "cdv-validate-r1"},
		{"long", strings.Repeat("x", 300), "run", "cdv-" + strings.Repeat("x", 247) + "-run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RunScopedName(tt.db, tt.run)
			if got != tt.want {
				t.Errorf("RunScopedName(%q, %q) = %q, want %q", tt.db, tt.run, got, tt.want)
			}
			if len(got) > maxDatabaseID {
				t.Errorf("length %d over %d", len(got), maxDatabaseID)
			}
		})
	}
	if got := RunScopedName(strings.Repeat("é", 200), "r1"); len(got) > maxDatabaseID || !utf8.ValidString(got) || !strings.HasSuffix(got, "-r1") {
		t.Errorf("multi-byte name cut badly: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
	a, b := RunScopedName("shop", ""), RunScopedName("shop", "")
	if a != b || !strings.HasPrefix(a, "cdv-shop-") {
		t.Errorf("process run id not stable: %q, %q", a, b)
	}
}

// TestParseRunScoped: only a name with the mark and a run id is a run's database; its start comes
// from a generated run id; a --run-id names its own.
func TestParseRunScoped(t *testing.T) {
	at := time.Date(2026, 11, 21, 5, 43, 46, 0, time.UTC)
	tests := []struct {
		name, runID string
		ok          bool
		started     time.Time
	}{
		{RunScopedName("shop", NewRunID(at)), "", true, at},
		{"cdv-calibrate-20261121t054346-a1b2", "", true, at},
		{"shop-20261121t054346-a1b2", "", false, time.Time{}},     // no mark: someone else's
		{"cdv-shop", "", false, time.Time{}},                      // marked, no run id
		{"cdv-20261121t054346-a1b2", "", false, time.Time{}},      // no database part
		{"cdv-shop-20261121t054346-A1B2", "", false, time.Time{}}, // not what NewRunID writes
		{"cdv-shop-job7", "job7", true, time.Time{}},
		{"cdv-shop-job7", "job8", false, time.Time{}},
		{"shop-job7", "job7", false, time.Time{}},
	}
	for _, tt := range tests {
		started, ok := ParseRunScoped(tt.name, tt.runID)
		if ok != tt.ok || !started.Equal(tt.started) {
			t.Errorf("ParseRunScoped(%q, %q) = %v, %v; want %v, %v", tt.name, tt.runID, started, ok, tt.started, tt.ok)
		}
	}
}

func TestNewRunID(t *testing.T) {
	now := time.Date(2026, 11, 21, 5, 43, 46, 0, time.UTC)
	id := NewRunID(now)
	if !strings.HasPrefix(id, "20261121t054346-") || len(id) != len("20261121t054346-")+4 {
		t.Errorf("NewRunID = %q", id)
	}
}

func TestEstimateRunCost(t *testing.T) {
	d := &design.Design{
		Containers: []design.Container{
			{Name: "users", Documents: []design.DocType{
				{Type: "user", Count: 1000, TargetBytes: 1024},
				{Type: "order", Parent: &design.Parent{Type: "user", Per: design.Per{Min: 1, Max: 3}}},
			}},
			{Name: "audit", Documents: []design.DocType{{Type: "event", Count: 10}}},
		},
		AccessPatterns: []design.AccessPattern{
			{ID: "1", Container: "users", Estimate: design.Estimate{RU: 10}},
			{ID: "2", Container: "audit", Estimate: design.Estimate{RU: 3}, Samples: 5},
		},
	}
	counts := map[string]int{"user": 1000, "order": 2000, "event": 10} // the seed plan's
	c := EstimateRunCost(d, 20, counts)
	if c.Containers != 2 || c.RUPerSecond != 400 {
		t.Errorf("containers/RU = %d/%d", c.Containers, c.RUPerSecond)
	}
	if c.Documents != 1000+2000+10 {
		t.Errorf("documents = %d, want 3010", c.Documents)
	}
	if c.ProbeRU != 20*10+5*3 {
		t.Errorf("probe RU = %v, want 215", c.ProbeRU)
	}
	if c.Hours != 1 {
		t.Errorf("hours = %d, want 1", c.Hours)
	}
	// 2 containers × 400 RU/s ÷ 100 × price × 1 h.
	if want := 2 * 4 * 0.008; c.USD < want-1e-9 || c.USD > want+1e-9 {
		t.Errorf("USD = %v, want %v", c.USD, want)
	}
	if s := RunCostSummary(d, 20, counts); !strings.Contains(s, "$0.06") {
		t.Errorf("summary %q lacks the amount", s)
	}
}

func TestResolveCredentials(t *testing.T) {
	const key = "c2VjcmV0LWtleS1ieXRlcw=="
	tests := []struct {
		name         string
		cfg          Config
		wantEndpoint string
		wantKey      string
		wantErr      error
	}{
		{"endpoint and key", Config{Endpoint: "https://acct.documents.azure.com:443", Key: key},
			"https://acct.documents.azure.com:443/", key, nil},
		{"connection string", Config{ConnectionString: "AccountEndpoint=https://acct.documents.azure.com:443/;AccountKey=" + key + ";"},
			"https://acct.documents.azure.com:443/", key, nil},
		{"entra id", Config{Endpoint: "https://acct.documents.azure.com/"}, "https://acct.documents.azure.com/", "", nil},
		{"no endpoint", Config{Key: key}, "", "", ErrConfig},
		{"bad scheme", Config{Endpoint: "ftp://x"}, "", "", ErrConfig},
		{"connection string without key", Config{ConnectionString: "AccountEndpoint=https://a.documents.azure.com/;"}, "", "", ErrConfig},
		{"connection string garbage", Config{ConnectionString: "AccountKey" + key}, "", "", ErrConfig},
		{"endpoints differ", Config{Endpoint: "https://b.documents.azure.com/",
			ConnectionString: "AccountEndpoint=https://a.documents.azure.com/;AccountKey=" + key}, "", "", ErrConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveCredentials(tt.cfg)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), key) || strings.Contains(Explain(err), key) {
					t.Fatalf("error leaks the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.endpoint != tt.wantEndpoint || got.key != tt.wantKey {
				t.Errorf("got (%q, key set %v), want (%q, key set %v)", got.endpoint, got.key != "", tt.wantEndpoint, tt.wantKey != "")
			}
		})
	}
}

func TestMasterKeyAuthMatchesSDK(t *testing.T) {
	// Capture the Authorization header the SDK itself sends for GET /dbs/x and check that our
	// signer produces the same value for the same verb, resource and date.
	var mu sync.Mutex
	var gotAuth, gotDate string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			fmt.Fprintf(w, `{"writableLocations":[{"name":"L","databaseAccountEndpoint":%q}],"readableLocations":[{"name":"L","databaseAccountEndpoint":%q}]}`,
				"http://"+r.Host+"/", "http://"+r.Host+"/")
			return
		}
		mu.Lock()
		gotAuth, gotDate = r.Header.Get("Authorization"), r.Header.Get("x-ms-date")
		mu.Unlock()
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"code":"NotFound","message":"no"}`)
	}))
	defer srv.Close()
	cred, err := azcosmos.NewKeyCredential(engine.EmulatorKey)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := azcosmos.NewClientWithKey(srv.URL+"/", cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	db, _ := cl.NewDatabase("x")
	_, _ = db.Read(context.Background(), nil)
	mu.Lock()
	defer mu.Unlock()
	if gotAuth == "" {
		t.Fatal("the SDK sent no Authorization header")
	}
	ours, err := masterKeyAuth(engine.EmulatorKey, "GET", "dbs", "dbs/x", gotDate)
	if err != nil {
		t.Fatal(err)
	}
	if ours != gotAuth {
		t.Errorf("masterKeyAuth = %q, SDK sent %q", ours, gotAuth)
	}
	if _, err := masterKeyAuth("not base64!", "GET", "dbs", "", gotDate); !errors.Is(err, ErrConfig) || strings.Contains(err.Error(), "not base64!") {
		t.Errorf("bad key: err = %v", err)
	}
}

// flakyServer answers 503 to list databases n times, then 200; it counts requests.
func flakyServer(t *testing.T, n int64, status int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/dbs" || r.Header.Get("Authorization") == "" || r.Header.Get("x-ms-date") == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if calls.Add(1) <= n {
			w.WriteHeader(status)
			return
		}
		fmt.Fprint(w, `{"Databases":[]}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestWaitDataPlane(t *testing.T) {
	ctx := context.Background()
	// The subtests that do not test the wait's bound give it one no busy machine reaches (a hang is
	// ended by go test's -timeout); "never ready is bounded" tests the bound itself.
	const unbounded = time.Hour
	t.Run("503 first, then ready", func(t *testing.T) {
		srv, calls := flakyServer(t, 3, http.StatusServiceUnavailable)
		if err := waitDataPlane(ctx, srv.Client(), srv.URL+"/", engine.EmulatorKey, unbounded, nil); err != nil {
			t.Fatal(err)
		}
		if calls.Load() != 4 {
			t.Errorf("calls = %d, want 4 (three 503 then 200)", calls.Load())
		}
	})
	t.Run("401 ends at once", func(t *testing.T) {
		srv, calls := flakyServer(t, 100, http.StatusUnauthorized)
		err := waitDataPlane(ctx, srv.Client(), srv.URL+"/", engine.EmulatorKey, unbounded, nil)
		if !errors.Is(err, ErrAuth) || !IsInfrastructure(err) {
			t.Fatalf("err = %v, want ErrAuth", err)
		}
		if calls.Load() != 1 {
			t.Errorf("calls = %d, want 1", calls.Load())
		}
	})
	t.Run("never ready is bounded", func(t *testing.T) {
		srv, calls := flakyServer(t, 1<<40, http.StatusServiceUnavailable)
		err := waitDataPlane(ctx, srv.Client(), srv.URL+"/", engine.EmulatorKey, 300*time.Millisecond, nil)
		if !errors.Is(err, ErrEmulatorStart) {
			t.Fatalf("err = %v, want ErrEmulatorStart", err)
		}
		// A second call means the first 503 reached the wait; on a machine so busy that no answer
		// came back within the bound there is no status to name, and that is not a failure.
		if calls.Load() >= 2 && !strings.Contains(err.Error(), "HTTP 503") {
			t.Fatalf("err = %v, want it to name the last status (HTTP 503) after %d calls", err, calls.Load())
		}
	})
	t.Run("port answers late", func(t *testing.T) {
		// Reserve a port, release it, and start listening on it only after a few refused attempts.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		var attempts atomic.Int64
		alive := func(context.Context) error {
			if attempts.Add(1) == 3 {
				l, err := net.Listen("tcp", addr)
				if err != nil {
					return err
				}
				srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{}`) })}
				go srv.Serve(l)
				t.Cleanup(func() { srv.Close() })
			}
			return nil
		}
		if err := waitDataPlane(ctx, http.DefaultClient, "http://"+addr+"/", engine.EmulatorKey, unbounded, alive); err != nil {
			t.Fatal(err)
		}
		if attempts.Load() < 3 {
			t.Errorf("ready after %d failed attempts, want at least 3", attempts.Load())
		}
	})
	t.Run("container died", func(t *testing.T) {
		srv, _ := flakyServer(t, 1<<40, http.StatusServiceUnavailable)
		died := func(context.Context) error { return fmt.Errorf("%w (exit code 137)", ErrEmulatorDied) }
		err := waitDataPlane(ctx, srv.Client(), srv.URL+"/", engine.EmulatorKey, unbounded, died)
		if !errors.Is(err, ErrEmulatorDied) {
			t.Fatalf("err = %v, want ErrEmulatorDied", err)
		}
	})
	t.Run("caller cancels", func(t *testing.T) {
		srv, _ := flakyServer(t, 1<<40, http.StatusServiceUnavailable)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		err := waitDataPlane(cctx, srv.Client(), srv.URL+"/", engine.EmulatorKey, unbounded, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

// advertisingServer is a minimal gateway that advertises an address the client cannot reach,
// like an emulator behind Docker's port mapping.
func advertisingServer(t *testing.T, advertised string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			fmt.Fprintf(w, `{"writableLocations":[{"name":"L","databaseAccountEndpoint":%q}],"readableLocations":[{"name":"L","databaseAccountEndpoint":%q}]}`,
				advertised, advertised)
			return
		}
		w.Header().Set("x-ms-request-charge", "1")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"code":"NotFound","message":"no such database"}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestHostRewrite(t *testing.T) {
	// An address nothing listens on: reserve a port and close it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/"
	ln.Close()
	srv := advertisingServer(t, dead)
	endpoint, _ := url.Parse(srv.URL + "/")
	cred, _ := azcosmos.NewKeyCredential(engine.EmulatorKey)

	ctx := context.Background() // no deadline: a hang is ended by go test's -timeout
	cl, err := azcosmos.NewClientWithKey(endpoint.String(), cred, clientOptions(srv.Client(), nil, endpoint))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	db, _ := cl.NewDatabase("nope")
	_, err = db.Read(ctx, nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusNotFound {
		t.Fatalf("with the rewrite: err = %v, want a 404 from the real server", err)
	}
}

func TestClassifyingTransport(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/", nil)

	tr := &classifyingTransport{base: http.DefaultClient}
	if _, err := tr.Do(req); !errors.Is(err, ErrUnreachable) || !IsInfrastructure(err) {
		t.Errorf("refused connection: err = %v, want ErrUnreachable", err)
	}
	tr.died = func(context.Context) error { return fmt.Errorf("%w (exit code 137)", ErrEmulatorDied) }
	_, err = tr.Do(req)
	if !errors.Is(err, ErrEmulatorDied) {
		t.Errorf("dead container: err = %v, want ErrEmulatorDied", err)
	}
	if !strings.Contains(Explain(err), "crashed") {
		t.Errorf("Explain = %q", Explain(err))
	}
}

func TestIsInfrastructureAndExplain(t *testing.T) {
	resp := func(code int, sub string) error {
		r := &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"code":"x","message":"y"}`)),
			Request: &http.Request{Method: "GET", URL: &url.URL{Scheme: "https", Host: "a.documents.azure.com", Path: "/dbs"}}}
		if sub != "" {
			r.Header.Set("x-ms-substatus", sub)
		}
		return fmt.Errorf("create database: %w", azruntime.NewResponseError(r))
	}
	tests := []struct {
		name      string
		err       error
		infra     bool
		wantInMsg string
	}{
		{"docker", fmt.Errorf("%w at unix:///var/run/docker.sock: no such file", ErrDockerUnavailable), true, "--target embedded"},
		{"image", fmt.Errorf("%w: x", ErrImageMissing), true, "--pull"},
		{"401", resp(401, ""), true, "key was refused"},
		{"403 rbac", resp(403, "5301"), true, "Cosmos DB Built-in Data Contributor"},
		{"403 other", resp(403, ""), true, "Cosmos DB Built-in Data Contributor"},
		{"429", resp(429, ""), true, "throttling"},
		{"503", resp(503, ""), true, "HTTP 503 x — the service was unavailable"},
		{"404 is not infrastructure", resp(404, ""), false, "404"},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, true, "check the URL"},
		{"config", fmt.Errorf("%w: no endpoint", ErrConfig), false, "no endpoint"},
		{"canceled", context.Canceled, false, "canceled"},
		{"plain", errors.New("bad design"), false, "bad design"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsInfrastructure(tt.err); got != tt.infra {
				t.Errorf("IsInfrastructure = %v, want %v", got, tt.infra)
			}
			msg := Explain(tt.err)
			if !strings.Contains(msg, tt.wantInMsg) {
				t.Errorf("Explain = %q, want it to contain %q", msg, tt.wantInMsg)
			}
		})
	}
	if Explain(nil) != "" {
		t.Error("Explain(nil) not empty")
	}
}

func TestImageFlavor(t *testing.T) {
	tests := []struct {
		image  string
		labels map[string]string
		want   flavor
	}{
		{DefaultEmulatorImage, nil, flavorVNext},
		{"mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator:vnext-latest", nil, flavorVNext},
		{ClassicEmulatorImage, nil, flavorClassic},
		{"mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator", nil, flavorClassic},
		{"localhost:5000/azure-cosmos-emulator:stable", nil, flavorClassic},
		{"cdv-serve:test", map[string]string{ImageLabelServe: "serve"}, flavorServe},
		{"someone/else:1", nil, flavorVNext},
	}
	for _, tt := range tests {
		if got := imageFlavor(tt.image, tt.labels); got != tt.want {
			t.Errorf("imageFlavor(%q) = %v, want %v", tt.image, got, tt.want)
		}
	}
	if _, cs := flavorVNext.describe("x"); cs != record.ChargeEmulatorPlaceholder {
		t.Errorf("vNext charge source %s", cs)
	}
	if _, cs := flavorClassic.describe("x"); cs != record.ChargeEmulatorIndicative {
		t.Errorf("classic charge source %s", cs)
	}
}

func TestCloserIdempotentAndIgnoresCancel(t *testing.T) {
	var runs atomic.Int64
	c := closer(func(ctx context.Context) error {
		runs.Add(1)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil
	}, func(context.Context) error { return errors.New("second failed") })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err1 := c(ctx)
	err2 := c(context.Background())
	if runs.Load() != 1 {
		t.Errorf("cleanup ran %d times", runs.Load())
	}
	if err1 == nil || err1 != err2 || !strings.Contains(err1.Error(), "second failed") {
		t.Errorf("errors: %v / %v", err1, err2)
	}
	if strings.Contains(err1.Error(), "canceled") {
		t.Errorf("cleanup saw the caller's cancellation: %v", err1)
	}
}

func TestWithEnvRestores(t *testing.T) {
	const name = "CDV_TEST_WITHENV"
	for _, tt := range []struct {
		name string
		had  bool
		prev string
	}{{"unset before", false, ""}, {"set before", true, "user-value"}, {"empty before", true, ""}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(name, "placeholder") // registers restoration of the test process's state
			if tt.had {
				os.Setenv(name, tt.prev)
			} else {
				os.Unsetenv(name)
			}
			seen := ""
			withEnv(name, "true", func() { seen = os.Getenv(name) })
			if seen != "true" {
				t.Errorf("inside: %q, want true", seen)
			}
			got, had := os.LookupEnv(name)
			if had != tt.had || got != tt.prev {
				t.Errorf("after: (%q, set %v), want (%q, set %v)", got, had, tt.prev, tt.had)
			}
		})
	}
}

func TestSDKVersionMatchesGoMod(t *testing.T) {
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal("go.mod not found: " + err.Error())
	}
	if !strings.Contains(string(b), "sdk/data/azcosmos "+SDKVersion) {
		t.Errorf("go.mod does not require azcosmos %s", SDKVersion)
	}
}

func TestOpenUnknownKind(t *testing.T) {
	if _, err := Open(context.Background(), Config{Kind: "mainframe"}); err == nil || !strings.Contains(err.Error(), "unknown target") {
		t.Errorf("err = %v", err)
	}
}

func TestIsAzureHost(t *testing.T) {
	for host, want := range map[string]bool{
		"acct.documents.azure.com":             true,
		"ACCT.Documents.Azure.COM":             true,
		"acct.documents.azure.com.":            true, // fully qualified
		"acct.documents.azure.us":              true,
		"acct.documents.azure.cn":              true,
		"localhost":                            false,
		"documents.azure.com.evil":             false,
		"acct.documents.azure.com.example.org": false,
	} {
		if got := isAzureHost(host); got != want {
			t.Errorf("isAzureHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestDefaultEmulatorImage_PinnedEverywhere keeps the files that name the emulator image on the
// tag the emulator target uses: the compose file starts it, and a workflow that pulls it must pull
// that tag (the nightly workflows run on the embedded engine and an account, and name none today).
func TestDefaultEmulatorImage_PinnedEverywhere(t *testing.T) {
	workflows, err := filepath.Glob("../../docs/workflows/*.yml")
	if err != nil {
		t.Fatal(err)
	}
	repoName, _, _ := strings.Cut(DefaultEmulatorImage, ":")
	for _, f := range append([]string{"../../docker/compose.yaml"}, workflows...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if f != "../../docker/compose.yaml" && !strings.Contains(string(b), repoName) {
			continue
		}
		if !strings.Contains(string(b), DefaultEmulatorImage) {
			t.Errorf("%s does not name %s, the image --target emulator starts", f, DefaultEmulatorImage)
		}
	}
}
