// Package targettest holds test helpers for code that needs a Docker image of this project: it
// builds the `validate serve` image (docker/Dockerfile, FROM scratch, nothing pulled) under a tag of
// this test process's own, removes what it built when the process ends, and skips tests cleanly
// where Docker is not reachable (fails them under CI=true). End-to-end tests of the CLI use it:
//
//	image := targettest.ServeImage(t)       // skips without Docker; builds the image once per process
//	code := run([]string{"run", "--target", "emulator", "--emulator-image", image, "designs/x.yaml"})
//
// A package that builds images calls targettest.Main from its TestMain so they are removed.
package targettest

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/build"
	"github.com/moby/moby/client"

	"github.com/cosmosdv/validate/internal/testenv"
)

// runID names this test process's images: two packages (or two checkouts) testing at once on one
// Docker engine never share, rebuild or remove each other's tags.
var runID = func() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(b))
}()

// Tag returns the per-process tag for an image named name ("cdv-serve" → "cdv-serve:test-<pid>-<rand>").
func Tag(name string) string { return name + ":test-" + runID }

// The helpers have no wall-clock bounds of their own: a ping or a build that a busy machine makes
// slow is still a ping or a build (a 5-minute bound on the build was reached with a load average of
// 16), and one that hangs is ended by go test's -timeout, which prints every goroutine's stack. A
// machine without Docker answers the ping at once (no socket, connection refused).

// DockerReason returns "" when a Docker engine answers, and otherwise why not.
func DockerReason(ctx context.Context) string {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return "docker client: " + err.Error()
	}
	defer cli.Close()
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		return fmt.Sprintf("docker not reachable at %s: %v", cli.DaemonHost(), err)
	}
	return ""
}

var (
	dockerOnce   sync.Once
	dockerReason string
)

// RequireDocker skips the test, saying why, when no Docker engine answers; under CI=true it fails
// the test instead (testenv.Need). The engine is asked once per test process.
func RequireDocker(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped in -short mode: starts Docker containers")
	}
	dockerOnce.Do(func() { dockerReason = DockerReason(context.Background()) })
	testenv.Need(t, dockerReason)
}

var (
	serveOnce sync.Once
	serveTag  string
	serveErr  error

	builtMu sync.Mutex
	built   []string
)

// ServeImage builds the `validate serve` image once per test process under a tag of its own and
// returns the tag. It skips (fails under CI) when Docker is not reachable and fails the test when
// the build fails.
func ServeImage(t testing.TB) string {
	t.Helper()
	RequireDocker(t)
	serveOnce.Do(func() {
		ctx := context.Background() // no deadline: see the helpers' bounds above
		root, err := ModuleRoot()
		if err != nil {
			serveErr = err
			return
		}
		serveTag = Tag("cdv-serve")
		serveErr = BuildServeImage(ctx, root, serveTag)
	})
	if serveErr != nil {
		t.Fatalf("build %s: %v", serveTag, serveErr)
	}
	return serveTag
}

// Main runs the tests and then removes every image this process built (by its own tag, never
// forced: an image another tag or a running container still uses stays). Call it from TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	builtMu.Lock()
	tags := built
	builtMu.Unlock()
	if len(tags) > 0 {
		// No deadline either: a removal slowed by load still removes; the verdict is already in code.
		ctx := context.Background()
		for _, tag := range tags {
			_ = RemoveImage(ctx, tag)
		}
	}
	return code
}

// BuildServeImage compiles ./cmd/validate as a static binary (CGO_ENABLED=0) and builds
// docker/Dockerfile around it as tag. Nothing is pulled.
func BuildServeImage(ctx context.Context, moduleDir, tag string) error {
	dockerfile, err := os.ReadFile(filepath.Join(moduleDir, "docker", "Dockerfile"))
	if err != nil {
		return fmt.Errorf("read Dockerfile: %w", err)
	}
	bin, err := GoBuild(ctx, moduleDir, "./cmd/validate")
	if err != nil {
		return err
	}
	return BuildImage(ctx, tag, map[string][]byte{"Dockerfile": dockerfile, "validate": bin})
}

// GoBuild compiles the package at pkg (relative to moduleDir) for linux on this machine's
// architecture as a static binary and returns its bytes.
func GoBuild(ctx context.Context, moduleDir, pkg string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "cdv-build-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "bin")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, pkg)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s: %w\n%s", pkg, err, msg)
	}
	return os.ReadFile(out)
}

// BuildImage builds an image from in-memory context files with the classic builder, never
// pulling (PullParent off; FROM scratch needs nothing).
func BuildImage(ctx context.Context, tag string, files map[string][]byte) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, b := range files {
		mode := int64(0o644)
		if name != "Dockerfile" {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(b)), ModTime: time.Unix(0, 0)}); err != nil {
			return fmt.Errorf("tar %s: %w", name, err)
		}
		if _, err := tw.Write(b); err != nil {
			return fmt.Errorf("tar %s: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return fmt.Errorf("docker client: %w", err)
	}
	defer cli.Close()
	// A rebuild moves the tag; remove the image it leaves untagged, so reruns do not pile up.
	var oldID string
	if old, err := cli.ImageInspect(ctx, tag); err == nil {
		oldID = old.ID
	}
	res, err := cli.ImageBuild(ctx, &buf, client.ImageBuildOptions{
		Tags:        []string{tag},
		Remove:      true,
		ForceRemove: true,
		PullParent:  false,
		Version:     build.BuilderV1,
	})
	if err != nil {
		return fmt.Errorf("docker build %s: %w", tag, err)
	}
	defer res.Body.Close()
	// The build reports failures in its JSON message stream, not in the HTTP status.
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("docker build %s: %w", tag, err)
	}
	if i := bytes.Index(out, []byte(`"errorDetail"`)); i >= 0 {
		return fmt.Errorf("docker build %s: %s", tag, strings.TrimSpace(string(out[i:])))
	}
	if oldID != "" {
		if cur, err := cli.ImageInspect(ctx, tag); err == nil && cur.ID != oldID {
			_, _ = cli.ImageRemove(ctx, oldID, client.ImageRemoveOptions{PruneChildren: true})
		}
	}
	builtMu.Lock()
	built = append(built, tag)
	builtMu.Unlock()
	return nil
}

// RemoveImage removes a tag this test process built. It never forces: when another tag names the
// same image only this tag goes, and an image a container still uses stays.
func RemoveImage(ctx context.Context, tag string) error {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return err
	}
	defer cli.Close()
	_, err = cli.ImageRemove(ctx, tag, client.ImageRemoveOptions{PruneChildren: true})
	return err
}

// ModuleRoot finds the directory holding go.mod, from the working directory upwards.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}
