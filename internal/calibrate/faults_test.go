package calibrate

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target"
)

// faultProxy stands between calibrate and an engine. Once every container of the workload exists
// it applies fault to each request (nil passes it on): the account that starts throttling, or
// answering nonsense, after calibrate has created billed resources.
type faultProxy struct {
	mu         sync.Mutex
	containers int
	fault      func(w http.ResponseWriter, r *http.Request, next http.Handler) bool
}

func startFaultProxy(t *testing.T, fault func(w http.ResponseWriter, r *http.Request, next http.Handler) bool) (proxyURL, engineURL string) {
	t.Helper()
	engineURL = serve(t, nil)
	u, _ := url.Parse(engineURL)
	next := httputil.NewSingleHostReverseProxy(u)
	p := &faultProxy{fault: fault}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		armed := p.containers >= len(containers)
		p.mu.Unlock()
		if armed && p.fault(w, r, next) {
			return
		}
		next.ServeHTTP(w, r)
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/colls") && strings.Contains(r.URL.Path, "cdv-calibrate-") {
			p.mu.Lock()
			p.containers++
			p.mu.Unlock()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, engineURL
}

// throttle answers 429 with a short retry-after, as a throttled account does.
func throttle(w http.ResponseWriter) {
	w.Header().Set("x-ms-retry-after-ms", "1")
	w.Header().Set("x-ms-substatus", "3200")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write([]byte(`{"code":"TooManyRequests","message":"Request rate is large."}`))
}

func runAgainst(t *testing.T, url string, cfg Config) (error, string) {
	t.Helper()
	var status strings.Builder
	cfg.Target = target.Config{Kind: record.KindEndpoint, Endpoint: url, Key: engine.EmulatorKey}
	cfg.Yes, cfg.RunID, cfg.Status = true, "faults", &status
	cfg.Now = func() time.Time { return time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC) }
	_, err := Run(context.Background(), cfg)
	return err, status.String()
}

// databases lists the databases the engine behind the proxy holds, read directly.
func databases(t *testing.T, engineURL string) []string {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(engine.EmulatorKey)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := azcosmos.NewClientWithKey(engineURL, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	pager := cl.NewQueryDatabasesPager("SELECT * FROM d", nil)
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Databases {
			out = append(out, d.ID)
		}
	}
	return out
}

// Issue 41: a throttling storm that starts once the containers exist and never ends. calibrate
// fails (no profile), retries the deletion within its bound, and names what it left and how to
// delete it on its status output; the error says the same.
func TestRun_ThrottledForeverNamesWhatIsLeft(t *testing.T) {
	proxy, eng := startFaultProxy(t, func(w http.ResponseWriter, r *http.Request, _ http.Handler) bool {
		throttle(w)
		return true
	})
	// The bound is what is tested (the storm never ends, so it is always reached); it is wide
	// enough that the first deletion attempt, ten throttled requests, ends with room for a retry
	// (0.5 s later) on a busy machine, so "trying again" never depends on the machine's speed.
	err, status := runAgainst(t, proxy, Config{CleanupWithin: 4 * time.Second})
	var left *LeftBehindError
	if !errors.As(err, &left) || left.Database != "cdv-calibrate-faults" {
		t.Fatalf("err = %v, want a LeftBehindError naming cdv-calibrate-faults\n%s", err, status)
	}
	for _, want := range []string{"cdv-calibrate-faults", "NOT deleted", "az cosmosdb sql database delete", "trying again"} {
		if !strings.Contains(status, want) {
			t.Errorf("status does not say %q:\n%s", want, status)
		}
	}
	if got := databases(t, eng); len(got) != 1 || got[0] != "cdv-calibrate-faults" {
		t.Errorf("the engine holds %v: the test's premise (the database stayed) does not hold", got)
	}
}

// A storm that passes while calibrate is cleaning up: the deletion is retried until it succeeds and
// nothing is left behind.
func TestRun_ThrottledThenDeleted(t *testing.T) {
	var mu sync.Mutex
	deletes := 0
	proxy, eng := startFaultProxy(t, func(w http.ResponseWriter, r *http.Request, _ http.Handler) bool {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodDelete {
			deletes++
			if deletes > 3 {
				return false
			}
		}
		throttle(w)
		return true
	})
	err, status := runAgainst(t, proxy, Config{CleanupWithin: time.Minute})
	if err == nil {
		t.Fatalf("a throttled calibration wrote a profile\n%s", status)
	}
	var left *LeftBehindError
	if errors.As(err, &left) {
		t.Fatalf("left behind although the deletion could succeed: %v\n%s", err, status)
	}
	if !strings.Contains(status, "deleted database cdv-calibrate-faults") {
		t.Errorf("status does not say the database was deleted:\n%s", status)
	}
	if got := databases(t, eng); len(got) != 0 {
		t.Errorf("the engine still holds %v", got)
	}
}

// A target whose successful operations report a charge of zero, a negative charge or NaN is
// faulty: no profile, and the database is deleted.
func TestRun_ImpossibleChargesAreFaulty(t *testing.T) {
	for _, tc := range []struct{ charge, method string }{
		{"-3.5", ""}, {"NaN", ""}, {"Inf", ""},
		{"0", http.MethodGet}, // point reads charged nothing beside writes and queries that are charged
	} {
		charge := tc.charge
		t.Run(charge+tc.method, func(t *testing.T) {
			proxy, eng := startFaultProxy(t, func(w http.ResponseWriter, r *http.Request, next http.Handler) bool {
				if !strings.Contains(r.URL.Path, "/docs") || tc.method != "" && r.Method != tc.method {
					return false
				}
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, r)
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.Header().Set("x-ms-request-charge", charge)
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
				return true
			})
			err, status := runAgainst(t, proxy, Config{})
			if !errors.Is(err, ErrFaultyCharges) || !strings.Contains(err.Error(), "request charge of") {
				t.Fatalf("err = %v, want ErrFaultyCharges\n%s", err, status)
			}
			if got := databases(t, eng); len(got) != 0 {
				t.Errorf("the engine still holds %v", got)
			}
		})
	}
}

// An endpoint that stops answering: each operation has a deadline, and the database is still
// deleted (deletes are answered).
func TestRun_RequestDeadline(t *testing.T) {
	proxy, eng := startFaultProxy(t, func(w http.ResponseWriter, r *http.Request, _ http.Handler) bool {
		if r.Method == http.MethodDelete {
			return false
		}
		<-r.Context().Done() // never answers; the client's deadline ends the request
		return true
	})
	// The deadline is what is tested: the hung operation always reaches it. It also bounds the
	// database and container creations before the hang (one deadline over them all), so it is
	// wide enough that a busy machine never reaches it there.
	err, status := runAgainst(t, proxy, Config{RequestTimeout: 3 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "no answer within 3s") {
		t.Fatalf("err = %v, want the request deadline named\n%s", err, status)
	}
	if got := databases(t, eng); len(got) != 0 {
		t.Errorf("the engine still holds %v", got)
	}
}
