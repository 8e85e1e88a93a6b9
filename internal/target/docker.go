package target

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/cosmosdv/validate/internal/target/procwalk"
)

// testcontainers-go's bootstrap init has run by now (this package imports it); see procwalk.
func init() { procwalk.Restore() }

// Timeouts of the Docker side. The probe is short because auto must decide quickly on machines
// without Docker; cleanup is generous because it must finish even after Ctrl-C.
const (
	dockerProbeTimeout = 2 * time.Second
	cleanupTimeout     = 30 * time.Second
)

// Labels put on every container this package starts, so that a later run can find containers a
// killed run (kill -9, power loss) left behind when Ryuk was not there to reap them.
const (
	labelManaged = "io.cosmosdv.validate"
	labelPID     = "io.cosmosdv.validate.pid"
	labelHost    = "io.cosmosdv.validate.host"
)

// docker is a plain Docker API client, used before testcontainers-go is touched: testcontainers
// reads its configuration (Ryuk on or off) once per process, so the decision must come first.
type docker struct {
	cli  *client.Client
	host string
}

// dialDocker connects to the engine named by DOCKER_HOST (and the other DOCKER_* variables, read
// by the Docker client library itself) or the default socket, and pings it within
// dockerProbeTimeout. Any failure is ErrDockerUnavailable.
func dialDocker(ctx context.Context) (*docker, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDockerUnavailable, err)
	}
	pctx, cancel := context.WithTimeout(ctx, dockerProbeTimeout)
	defer cancel()
	if _, err := cli.Ping(pctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("%w at %s: %v", ErrDockerUnavailable, cli.DaemonHost(), shortDockerError(err))
	}
	return &docker{cli: cli, host: cli.DaemonHost()}, nil
}

func (d *docker) Close() error { return d.cli.Close() }

// imagePresent reports whether image is in the local image store.
func (d *docker) imagePresent(ctx context.Context, image string) (bool, map[string]string, error) {
	res, err := d.cli.ImageInspect(ctx, image)
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return false, nil, nil
		}
		return false, nil, fmt.Errorf("inspect image %s: %w", image, err)
	}
	var labels map[string]string
	if res.Config != nil {
		labels = res.Config.Labels
	}
	return true, labels, nil
}

// sweepOrphans removes containers that an earlier run on this host started and could not remove
// because its process died. A container is an orphan when its owner PID no longer runs.
func (d *docker) sweepOrphans(ctx context.Context) int {
	hostname, _ := os.Hostname()
	res, err := d.cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", labelManaged+"=1"),
	})
	if err != nil {
		return 0
	}
	removed := 0
	for _, c := range res.Items {
		if c.Labels[labelHost] != hostname {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(c.Labels[labelPID], &pid); err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		if _, err := d.cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err == nil {
			removed++
		}
	}
	return removed
}

// shortDockerError keeps the useful part of a Docker client error.
func shortDockerError(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", dockerProbeTimeout)
	}
	msg := err.Error()
	if i := strings.Index(msg, ": dial "); i >= 0 {
		msg = strings.TrimSpace(msg[i+2:])
	}
	return msg
}

// ryukEnv is the variable testcontainers-go reads to turn its reaper off.
const ryukEnv = "TESTCONTAINERS_RYUK_DISABLED"

var (
	ryukOnce     sync.Once
	ryukDisabled bool
)

// configureRyuk decides once per process whether testcontainers-go may use Ryuk: only when its
// image is already present (nothing is ever pulled for it). When it is absent, Ryuk is disabled
// through the environment variable for exactly as long as testcontainers-go takes to read its
// configuration, and the variable is then restored to what the user had, so it never leaks into
// processes this one starts. Our own cleanup (Close, the orphan sweep) covers the reaper's job.
// It returns true when Ryuk is disabled for this process.
func configureRyuk(ctx context.Context, d *docker) bool {
	ryukOnce.Do(func() {
		present, _, err := d.imagePresent(ctx, testcontainers.ReaperDefaultImage)
		disable := err != nil || !present
		read := func() { ryukDisabled = testcontainers.ReadConfig().Config.RyukDisabled }
		if disable {
			withEnv(ryukEnv, "true", read)
		} else {
			read()
		}
	})
	return ryukDisabled
}

// withEnv runs fn with the environment variable name set to value, then restores it exactly:
// its previous value, or unset if it was unset.
func withEnv(name, value string, fn func()) {
	prev, had := os.LookupEnv(name)
	_ = os.Setenv(name, value)
	defer func() {
		if had {
			_ = os.Setenv(name, prev)
		} else {
			_ = os.Unsetenv(name)
		}
	}()
	fn()
}
