// Package targettest holds test helpers for code that needs a Docker image of this project: it
// builds the `validate serve` image (docker/Dockerfile, FROM scratch, nothing pulled) and skips
// tests cleanly where Docker is not reachable. End-to-end tests of the CLI use it like this:
//
//	image := targettest.ServeImage(t)       // skips without Docker; builds cdv-serve:test once
//	code := run([]string{"run", "--target", "emulator", "--emulator-image", image, "designs/x.yaml"})
package targettest

import (
	"archive/tar"
	"bytes"
	"context"
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
)

// ServeTag is the tag of the image ServeImage builds. It is left in place after the tests (a
// rebuild reuses its layers); nothing else is.
const ServeTag = "cdv-serve:test"

// Bounds of the helpers.
const (
	pingTimeout  = 2 * time.Second
	buildTimeout = 5 * time.Minute
)

// DockerReason returns "" when a Docker engine answers within two seconds, and otherwise why not.
func DockerReason(ctx context.Context) string {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return "docker client: " + err.Error()
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		return fmt.Sprintf("docker not reachable at %s: %v", cli.DaemonHost(), err)
	}
	return ""
}

// RequireDocker skips the test, saying why, when no Docker engine answers.
func RequireDocker(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped in -short mode: starts Docker containers")
	}
	if reason := DockerReason(context.Background()); reason != "" {
		t.Skip("needs Docker: " + reason)
	}
}

var (
	serveOnce sync.Once
	serveErr  error
)

// ServeImage builds the `validate serve` image once per test process and returns its tag. It
// skips when Docker is not reachable and fails the test when the build fails.
func ServeImage(t testing.TB) string {
	t.Helper()
	RequireDocker(t)
	serveOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		root, err := ModuleRoot()
		if err != nil {
			serveErr = err
			return
		}
		serveErr = BuildServeImage(ctx, root, ServeTag)
	})
	if serveErr != nil {
		t.Fatalf("build %s: %v", ServeTag, serveErr)
	}
	return ServeTag
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
	return nil
}

// RemoveImage removes an image this test process built (not ServeTag, which is kept).
func RemoveImage(ctx context.Context, tag string) error {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return err
	}
	defer cli.Close()
	_, err = cli.ImageRemove(ctx, tag, client.ImageRemoveOptions{Force: true, PruneChildren: true})
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
