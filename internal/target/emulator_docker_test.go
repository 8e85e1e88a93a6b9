package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/engine/enginetest"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target/targettest"
)

// These tests start real containers from images built here (nothing is pulled). They skip with
// the reason when Docker is not reachable, and every container they start is removed. Their
// contexts have no deadline of the test's own: building and starting containers on a busy machine
// is slow, not wrong; the target's own start bounds are part of what is tested, and a hang is ended
// by go test's -timeout with every goroutine's stack.

// flakyTag is this test process's own tag (never shared with another run on the same engine).
var flakyTag = targettest.Tag("cdv-flaky")

var (
	flakyOnce sync.Once
	flakyErr  error
)

// flakyImage builds testdata/flaky into a scratch image: it prints the vNext emulator's ready
// lines a second before it listens and then answers 503 three times. TestMain removes it.
func flakyImage(t *testing.T) string {
	t.Helper()
	targettest.RequireDocker(t)
	flakyOnce.Do(func() {
		ctx := context.Background()
		root, err := targettest.ModuleRoot()
		if err != nil {
			flakyErr = err
			return
		}
		bin, err := targettest.GoBuild(ctx, root, "./internal/target/testdata/flaky")
		if err != nil {
			flakyErr = err
			return
		}
		dockerfile := "FROM scratch\nCOPY flaky /flaky\nEXPOSE 8081\n" +
			`ENTRYPOINT ["/flaky", "-listen-delay", "1s", "-unavailable", "3"]` + "\n"
		flakyErr = targettest.BuildImage(ctx, flakyTag, map[string][]byte{"Dockerfile": []byte(dockerfile), "flaky": bin})
	})
	if flakyErr != nil {
		t.Fatalf("build %s: %v", flakyTag, flakyErr)
	}
	return flakyTag
}

// TestMain removes the images this process built (its own tags) after all tests.
func TestMain(m *testing.M) { os.Exit(targettest.Main(m)) }

// containerGone reports whether Docker no longer knows the container.
func containerGone(t *testing.T, id string) bool {
	t.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	_, err = cli.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
	return cerrdefs.IsNotFound(err)
}

func TestEmulator_FlakyStartAndDeath(t *testing.T) {
	image := flakyImage(t)
	ctx := context.Background()

	var status bytes.Buffer
	tgt, err := Open(ctx, Config{Kind: record.KindEmulator, EmulatorImage: image, Status: &status})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	id := tgt.containerID
	t.Cleanup(func() {
		_ = tgt.Close(context.Background())
		if !containerGone(t, id) {
			t.Errorf("container %s left behind", id)
		}
	})
	if tgt.Info.Kind != record.KindEmulator || tgt.Info.ChargeSource != record.ChargeEmulatorPlaceholder || tgt.Info.SDKVersion != SDKVersion {
		t.Errorf("info = %+v", tgt.Info)
	}
	if !strings.Contains(status.String(), "target: emulator ready at http://") {
		t.Errorf("status lines: %q", status.String())
	}

	// The gateway advertises 127.0.0.1:8081 (its in-container address); only the host rewrite
	// gets the SDK to the mapped port, where the server answers 404 for an unknown database.
	db, _ := tgt.Client.NewDatabase("absent")
	_, err = db.Read(ctx, nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusNotFound {
		t.Fatalf("read through the mapped port: err = %v, want 404", err)
	}
	if re.RawResponse.Header.Get("x-ms-served-by") != "flaky" {
		t.Errorf("404 did not come from the container")
	}

	// The emulator dies mid-run: the next request must say so, and classify as infrastructure.
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.ContainerKill(ctx, id, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		t.Fatalf("kill: %v", err)
	}
	_, err = db.Read(ctx, nil)
	if !errors.Is(err, ErrEmulatorDied) || !IsInfrastructure(err) {
		t.Fatalf("after kill: err = %v, want ErrEmulatorDied", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || ne.Timeout() {
		t.Errorf("a dead container must read as a transport failure to other stages: %v", err)
	}
	if msg := Explain(err); !strings.Contains(msg, "crashed") || strings.Count(msg, "\n") > 0 {
		t.Errorf("Explain = %q", msg)
	}
	if err := tgt.Close(context.Background()); err != nil {
		t.Errorf("close: %v", err)
	}
	if !containerGone(t, id) {
		t.Errorf("container %s not removed by Close", id)
	}
}

func TestEmulator_CancelDuringStartRemovesContainer(t *testing.T) {
	image := flakyImage(t)
	// Cancel (as Ctrl-C does) while the target waits for the data plane: the container exists
	// and the flaky server is not answering yet.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(&cancelHandler{match: "waiting for the emulator's data plane", cancel: cancel})
	_, err := Open(ctx, Config{Kind: record.KindEmulator, EmulatorImage: image, Log: log})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	cli, err := client.New(client.FromEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	res, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", labelManaged+"=1").Add("ancestor", image).
			// This process's containers only: another checkout's tests may share the Docker engine.
			Add("label", labelPID+"="+strconv.Itoa(os.Getpid()))})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 0 {
		t.Errorf("%d container(s) left after a cancelled start", len(res.Items))
	}
}

// cancelHandler is a slog handler that cancels a context when a record with this message arrives.
type cancelHandler struct {
	match  string
	cancel context.CancelFunc
}

func (h *cancelHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *cancelHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.match {
		h.cancel()
	}
	return nil
}
func (h *cancelHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *cancelHandler) WithGroup(string) slog.Handler      { return h }

func TestEmulator_ImageMissingNeverPulls(t *testing.T) {
	targettest.RequireDocker(t)
	ctx := context.Background()
	_, err := Open(ctx, Config{Kind: record.KindEmulator, EmulatorImage: "cdv-absent:never"})
	if !errors.Is(err, ErrImageMissing) || !IsInfrastructure(err) {
		t.Fatalf("err = %v, want ErrImageMissing", err)
	}
	if !strings.Contains(Explain(err), "docker pull cdv-absent:never") {
		t.Errorf("Explain = %q", Explain(err))
	}
}

func TestAuto_ChoosesEmbeddedWithoutImage(t *testing.T) {
	ctx := context.Background()
	tgt, err := Open(ctx, Config{EmulatorImage: "cdv-absent:never"})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close(context.Background())
	if tgt.Info.Kind != record.KindEmbedded || tgt.Info.ChargeSource != record.ChargeModel {
		t.Errorf("info = %+v", tgt.Info)
	}
	if !strings.Contains(tgt.Reason, "docker pull cdv-absent:never") {
		t.Errorf("reason = %q", tgt.Reason)
	}
}

func TestAuto_ChoosesEmulatorWhenImagePresent(t *testing.T) {
	image := flakyImage(t)
	ctx := context.Background()
	tgt, err := Open(ctx, Config{Kind: KindAuto, EmulatorImage: image})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close(context.Background())
	if tgt.Info.Kind != record.KindEmulator || !strings.Contains(tgt.Reason, "--target embedded") {
		t.Errorf("info = %+v, reason %q", tgt.Info, tgt.Reason)
	}
}

// TestEmulator_ServeImageConformance builds the `validate serve` image from docker/Dockerfile and
// runs the engine's conformance suite through the emulator target, over http and https (the
// certificate fetched from the container and pinned).
func TestEmulator_ServeImageConformance(t *testing.T) {
	image := targettest.ServeImage(t)
	for _, proto := range []string{"http", "https"} {
		t.Run(proto, func(t *testing.T) {
			ctx := context.Background()
			tgt, err := Open(ctx, Config{Kind: record.KindEmulator, EmulatorImage: image, EmulatorProtocol: proto})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			id := tgt.containerID
			t.Cleanup(func() {
				if err := tgt.Close(context.Background()); err != nil {
					t.Errorf("close: %v", err)
				}
				if !containerGone(t, id) {
					t.Errorf("container %s left behind", id)
				}
			})
			if tgt.Info.ChargeSource != record.ChargeModel || !strings.HasPrefix(tgt.Info.Endpoint, proto+"://") {
				t.Errorf("info = %+v", tgt.Info)
			}
			// The emulator target signs with the well-known key; giving it to the suite runs the
			// subtests that sign requests themselves (RIDLinks) instead of skipping them.
			enginetest.Run(t, tgt.Client, enginetest.Options{Prefix: fmt.Sprintf("cdvtarget-%s", proto),
				Key: engine.EmulatorKey, NewClient: tgt.newClient})
		})
	}
}

func TestEndpoint_EmbeddedServer(t *testing.T) {
	// The endpoint target against a running server: the embedded engine stands in for "any
	// emulator given by URL"; no key given means the well-known key.
	ctx := context.Background()
	emb, err := Open(ctx, Config{Kind: record.KindEmbedded})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close(context.Background())
	tgt, err := Open(ctx, Config{Kind: record.KindEndpoint, Endpoint: emb.Info.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close(context.Background())
	if tgt.Info.Kind != record.KindEndpoint || tgt.Shared || tgt.Info.ChargeSource != record.ChargeModel {
		t.Errorf("info = %+v shared=%v; want an unshared endpoint with modeled charges", tgt.Info, tgt.Shared)
	}
	if _, err := Open(ctx, Config{Kind: record.KindEndpoint, Endpoint: emb.Info.Endpoint, Key: "d3Jvbmcta2V5LXdyb25nLWtleQ=="}); !errors.Is(err, ErrAuth) {
		t.Errorf("wrong key: err = %v, want ErrAuth", err)
	} else if strings.Contains(err.Error(), "d3Jvbmcta2V5") {
		t.Errorf("error leaks the key: %v", err)
	}
}

// TestEndpoint_AdvertisedAddressUnreachable stands in for an emulator behind a published port: the
// account advertises an address the client cannot reach, and the endpoint target must keep every
// request on the address it was given.
func TestEndpoint_AdvertisedAddressUnreachable(t *testing.T) {
	ctx := context.Background()
	srv, err := engine.Start(ctx, engine.Options{PublicURL: "http://127.0.0.1:1/"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())
	tgt, err := Open(ctx, Config{Kind: record.KindEndpoint, Endpoint: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close(context.Background())
	if _, err := tgt.Client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "advertised"}, nil); err != nil {
		t.Fatalf("create database through the advertised address: %v", err)
	}
}

func TestEndpoint_Unreachable(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, Config{Kind: record.KindEndpoint, Endpoint: "http://127.0.0.1:1/"})
	if !errors.Is(err, ErrUnreachable) || !IsInfrastructure(err) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
}

func TestAccount_KeyAndConnectionString(t *testing.T) {
	// The embedded engine stands in for an account (the real service needs network access).
	ctx := context.Background()
	emb, err := Open(ctx, Config{Kind: record.KindEmbedded})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close(context.Background())
	for name, cfg := range map[string]Config{
		"key":               {Kind: record.KindAccount, Endpoint: emb.Info.Endpoint, Key: engine.EmulatorKey},
		"connection string": {Kind: record.KindAccount, ConnectionString: "AccountEndpoint=" + emb.Info.Endpoint + ";AccountKey=" + engine.EmulatorKey + ";"},
	} {
		t.Run(name, func(t *testing.T) {
			tgt, err := Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer tgt.Close(context.Background())
			// Given as an account, the engine still says what it is: its charges are modeled, and
			// labelling them measured would be the one thing the reports must never do.
			if tgt.Info.Kind != record.KindAccount || tgt.Info.ChargeSource != record.ChargeModel || !tgt.Shared {
				t.Errorf("info = %+v shared=%v; want a shared account with modeled charges", tgt.Info, tgt.Shared)
			}
			if strings.Contains(fmt.Sprintf("%+v", tgt.Info), engine.EmulatorKey) {
				t.Error("target info holds the key")
			}
			exists, err := DatabaseExists(ctx, tgt.Client, "cdv-absent")
			if err != nil || exists {
				t.Errorf("DatabaseExists = %v, %v", exists, err)
			}
		})
	}
}
