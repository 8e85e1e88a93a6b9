package target

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	cerrdefs "github.com/containerd/errdefs"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
)

// Emulator images. The vNext tag is pinned so runs are repeatable and prefix-query and MultiHash
// fixes of 2025–2026 are in. EN20260810 is the newest build that Microsoft's own tracker shows to
// exist: Azure/azure-cosmos-db-emulator-docker issue #347 (2026-08-31) reports emulator version
// EN20260810, image build 20260807.1, digest sha256:6ce44ed4…; the dated tags of that repository's
// issues (#131 vnext-EN20251223, #329 vnext-EN20260430) follow the same vnext-EN<date> form.
// Override with --emulator-image (`vnext-latest` for the moving tag, `classic` for the classic image).
const (
	// DefaultEmulatorImage is the Microsoft vNext emulator, pinned.
	DefaultEmulatorImage = "mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator:vnext-EN20260810"
	// ClassicEmulatorImage is the Microsoft classic emulator (HTTPS only, amd64, slow to start).
	ClassicEmulatorImage = "mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator:latest"
)

// ImageLabelServe marks an image built from docker/Dockerfile (`validate serve` in a scratch image).
// The emulator target reads it to pass serve's flags and to label charges as modeled.
const ImageLabelServe = "io.cosmosdv.validate.image"

// gatewayPort is the port every supported image listens on inside the container.
const gatewayPort = "8081/tcp"

// Startup bounds per image family: the classic emulator is the Windows emulator under a
// compatibility layer and takes 30–60 s or more (EMULATORS.md).
const (
	vnextStartTimeout   = 120 * time.Second
	classicStartTimeout = 300 * time.Second
	serveStartTimeout   = 60 * time.Second
)

// flavor is the family of an emulator image: it decides settings, readiness and charge source.
type flavor int

const (
	flavorVNext   flavor = iota // Microsoft vNext (and unknown images: same settings)
	flavorClassic               // Microsoft classic :latest
	flavorServe                 // our own `validate serve` image
)

// imageFlavor tells the family from the image's label or name.
func imageFlavor(image string, labels map[string]string) flavor {
	if labels[ImageLabelServe] == "serve" {
		return flavorServe
	}
	name, tag := splitImage(image)
	if strings.HasSuffix(name, "azure-cosmos-emulator") && !strings.Contains(strings.ToLower(tag), "vnext") {
		return flavorClassic
	}
	return flavorVNext
}

// splitImage splits "repo/name:tag@digest" into name and tag ("latest" when absent).
func splitImage(image string) (name, tag string) {
	image, _, _ = strings.Cut(image, "@")
	slash := strings.LastIndex(image, "/")
	if colon := strings.LastIndex(image, ":"); colon > slash {
		return image[:colon], image[colon+1:]
	}
	return image, "latest"
}

// describe returns the engine description and charge source of a flavor.
func (f flavor) describe(image string) (engineName string, chargeSource record.ChargeSource) {
	switch f {
	case flavorClassic:
		return "Azure Cosmos DB emulator, classic (" + image + ")", record.ChargeEmulatorIndicative
	case flavorServe:
		return "validate serve, embedded engine in a container (" + image + ")", record.ChargeModel
	default:
		return "Azure Cosmos DB emulator vNext (" + image + ")", record.ChargeEmulatorPlaceholder
	}
}

func (f flavor) defaultProtocol() string {
	if f == flavorClassic {
		return "https"
	}
	return "http"
}

// customize returns the container settings of a flavor.
func (f flavor) customize(protocol string) []testcontainers.ContainerCustomizer {
	switch f {
	case flavorClassic:
		return []testcontainers.ContainerCustomizer{
			testcontainers.WithEnv(map[string]string{
				"AZURE_COSMOS_EMULATOR_PARTITION_COUNT":         "10",
				"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE": "false",
				"AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE":     "127.0.0.1",
			}),
			// The classic image logs "Started N/N partitions" when its partitions are up.
			testcontainers.WithWaitStrategy(wait.ForLog(`Started \d+/\d+ partitions`).AsRegexp().
				WithStartupTimeout(classicStartTimeout).WithPollInterval(500 * time.Millisecond)),
		}
	case flavorServe:
		return []testcontainers.ContainerCustomizer{
			testcontainers.WithCmd("--bind", "0.0.0.0", "--port", "8081", "--protocol", protocol,
				"--key", engine.EmulatorKey),
		}
	default:
		return []testcontainers.ContainerCustomizer{
			testcontainers.WithEnv(map[string]string{
				"PORT":             "8081",
				"PROTOCOL":         protocol,
				"ENABLE_TELEMETRY": "false",
				"ENABLE_EXPLORER":  "false",
			}),
			// "Started" alone has been printed too early; this line comes when storage is up. The
			// data-plane wait that follows is what decides readiness.
			testcontainers.WithWaitStrategy(wait.ForLog("PostgreSQL and pgcosmos extension are ready").
				WithStartupTimeout(vnextStartTimeout).WithPollInterval(200 * time.Millisecond)),
		}
	}
}

func (f flavor) startTimeout() time.Duration {
	switch f {
	case flavorClassic:
		return classicStartTimeout
	case flavorServe:
		return serveStartTimeout
	}
	return vnextStartTimeout
}

// openEmulator starts the emulator image in a container and connects to it.
func openEmulator(ctx context.Context, cfg Config, allowPull bool) (*Target, error) {
	d, err := dialDocker(ctx)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return startEmulator(ctx, cfg, d, allowPull)
}

func startEmulator(ctx context.Context, cfg Config, d *docker, allowPull bool) (*Target, error) {
	image := cfg.EmulatorImage
	present, labels, err := d.imagePresent(ctx, image)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDockerUnavailable, err)
	}
	if !present && !allowPull {
		return nil, fmt.Errorf("%w: %s (`docker pull %s`)", ErrImageMissing, image, image)
	}
	fl := imageFlavor(image, labels)
	protocol := cfg.EmulatorProtocol
	if protocol == "" {
		protocol = fl.defaultProtocol()
	}
	if protocol != "http" && protocol != "https" {
		return nil, fmt.Errorf("%w: emulator protocol %q (want http or https)", ErrConfig, protocol)
	}

	if n := d.sweepOrphans(ctx); n > 0 {
		cfg.Log.Info("removed emulator containers left by earlier runs", "count", n)
	}
	ryukOff := configureRyuk(ctx, d)
	ryukNote := "Ryuk on"
	if ryukOff {
		ryukNote = "Ryuk off, own cleanup"
	}
	cfg.status("target: emulator %s (%s, %s) — starting container…", image, protocol, ryukNote)
	cfg.Log.Info("starting emulator", "image", image, "protocol", protocol, "ryukDisabled", ryukOff, "docker", d.host)

	// testcontainers-go prints a banner through its process-wide logger when it first connects;
	// keep it off the user's terminal. The CLI opens one emulator per process.
	tclog.SetDefault(slogPrintf{cfg.Log})
	hostname, _ := os.Hostname()
	opts := []testcontainers.ContainerCustomizer{
		// testcontainers-go prints to stderr by default; its lines belong in our debug log.
		testcontainers.WithLogger(slogPrintf{cfg.Log}),
		testcontainers.WithExposedPorts(gatewayPort),
		testcontainers.WithLabels(map[string]string{
			labelManaged: "1",
			labelPID:     strconv.Itoa(os.Getpid()),
			labelHost:    hostname,
		}),
	}
	opts = append(opts, fl.customize(protocol)...)

	started := time.Now()
	ctr, err := testcontainers.Run(ctx, image, opts...)
	terminate := func(c context.Context) error {
		if ctr == nil {
			return nil
		}
		if err := ctr.Terminate(c); err != nil {
			return fmt.Errorf("remove emulator container: %w", err)
		}
		return nil
	}
	fail := func(err error) (*Target, error) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		if cerr := terminate(cctx); cerr != nil {
			cfg.Log.Warn("emulator cleanup failed", "err", cerr)
		}
		return nil, err
	}
	if err != nil {
		if ctx.Err() != nil {
			return fail(ctx.Err())
		}
		if !present {
			if perr := pullFailure(ctx, d, image, err); perr != nil {
				return fail(perr)
			}
		}
		return fail(fmt.Errorf("%w: %s: %v%s", ErrEmulatorStart, image, err, containerTail(ctx, ctr)))
	}

	hostPort, err := reachableAddr(ctx, ctr, d.host)
	if err != nil {
		return fail(fmt.Errorf("%w: mapped port: %v", ErrEmulatorStart, err))
	}
	endpoint := &url.URL{Scheme: protocol, Host: hostPort, Path: "/"}

	died := func(c context.Context) error { return containerDied(c, ctr) }

	var tlsConfig *tls.Config
	if protocol == "https" {
		tlsConfig, err = emulatorTLS(ctx, endpoint, fl, cfg.Insecure, fl.startTimeout(), died)
		if err != nil {
			return fail(err)
		}
	}
	hc := httpClient(tlsConfig)
	cfg.Log.Info("waiting for the emulator's data plane", "endpoint", endpoint.String())
	if err := waitDataPlane(ctx, hc, endpoint.String(), engine.EmulatorKey, fl.startTimeout(), died); err != nil {
		if errors.Is(err, context.Canceled) {
			return fail(err)
		}
		return fail(fmt.Errorf("%w%s", err, containerTail(ctx, ctr)))
	}

	cred, err := azcosmos.NewKeyCredential(engine.EmulatorKey)
	if err != nil {
		return fail(fmt.Errorf("emulator key: %w", err))
	}
	cl, err := azcosmos.NewClientWithKey(endpoint.String(), cred, clientOptions(hc, died, endpoint))
	if err != nil {
		return fail(fmt.Errorf("emulator client: %w", err))
	}
	engineName, charge := fl.describe(image)
	cfg.status("target: emulator ready at %s in %s (charges: %s)", endpoint, time.Since(started).Round(100*time.Millisecond), charge)
	return &Target{
		Client: cl,
		Info: record.TargetInfo{
			Kind:         record.KindEmulator,
			Engine:       engineName,
			Endpoint:     endpoint.String(),
			ChargeSource: charge,
			SDKVersion:   SDKVersion,
		},
		Close:       closer(func(context.Context) error { cl.Close(); return nil }, terminate),
		containerID: ctr.GetContainerID(),
		newClient: func(perRetry ...policy.Policy) (*azcosmos.Client, error) {
			o := clientOptions(hc, died, endpoint)
			o.PerRetryPolicies = append(o.PerRetryPolicies, perRetry...)
			return azcosmos.NewClientWithKey(endpoint.String(), cred, o)
		},
	}, nil
}

// containerDied returns ErrEmulatorDied when the container is no longer running.
func containerDied(ctx context.Context, ctr *testcontainers.DockerContainer) error {
	if ctx.Err() != nil {
		return nil // cannot tell; the caller's own cancellation will surface
	}
	st, err := ctr.State(ctx)
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			return fmt.Errorf("%w: the container was removed", ErrEmulatorDied)
		}
		return nil
	}
	if st.Running {
		return nil
	}
	detail := fmt.Sprintf("exit code %d", st.ExitCode)
	if st.OOMKilled {
		detail += ", killed for lack of memory"
	}
	return fmt.Errorf("%w (%s)", ErrEmulatorDied, detail)
}

// containerTail returns the last lines of the container's log, for start errors.
func containerTail(ctx context.Context, ctr *testcontainers.DockerContainer) string {
	if ctr == nil {
		return ""
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	rc, err := ctr.Logs(lctx)
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 1<<20))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return "\ncontainer log (last lines):\n  " + strings.Join(lines, "\n  ")
}

// emulatorTLS returns a TLS configuration that trusts exactly the emulator's own certificate,
// fetched from the container that was just started: the classic image publishes it at
// /_explorer/emulator.pem, any image presents it in the TLS handshake. Fetching it is trust on
// first use of a container this process started, on a loopback or Docker-host address. insecure
// skips verification altogether and is only used when the user asked for it.
func emulatorTLS(ctx context.Context, endpoint *url.URL, fl flavor, insecure bool, timeout time.Duration, died func(context.Context) error) (*tls.Config, error) {
	if insecure {
		return &tls.Config{InsecureSkipVerify: true}, nil //nolint:gosec // explicit --insecure
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pause := readyFirstPause
	for {
		var cert *x509.Certificate
		var err error
		if fl == flavorClassic {
			cert, err = fetchPEM(ctx, endpoint)
		}
		if cert == nil {
			cert, err = handshakeCert(ctx, endpoint.Host)
		}
		if err == nil {
			return pinnedTLS(cert), nil
		}
		if derr := died(ctx); derr != nil {
			return nil, derr
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: fetch the emulator's TLS certificate: %v", ErrEmulatorStart, err)
		case <-time.After(pause):
		}
		pause = min(pause*2, readyMaxPause)
	}
}

// fetchPEM downloads the classic emulator's certificate.
func fetchPEM(ctx context.Context, endpoint *url.URL) (*x509.Certificate, error) {
	hc := httpClient(&tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the certificate is what we fetch
	u := endpoint.JoinPath("_explorer", "emulator.pem")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u.Path, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, errors.New("emulator.pem holds no PEM block")
	}
	return x509.ParseCertificate(block.Bytes)
}

// handshakeCert returns the leaf certificate the server at hostPort presents.
func handshakeCert(ctx context.Context, hostPort string) (*x509.Certificate, error) {
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // capturing the certificate
	conn, err := d.DialContext(ctx, "tcp", hostPort)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	certs := conn.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return nil, errors.New("the server presented no certificate")
	}
	return certs[0], nil
}

// pinnedTLS trusts chains that end in cert, whatever host name the mapped address has: behind
// Docker the emulator is reached as localhost:<random port> while its certificate names the
// container. Verification is done in VerifyConnection, so it is not skipped, only re-rooted.
func pinnedTLS(cert *x509.Certificate) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{
		InsecureSkipVerify: true, //nolint:gosec // replaced by VerifyConnection below
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("no peer certificate")
			}
			if cs.PeerCertificates[0].Equal(cert) {
				return nil
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter})
			return err
		},
	}
}

// reachableAddr returns host:port at which this process reaches the container's gateway port.
// testcontainers-go guesses the host from the Docker host setting, and inside a container it takes
// the default gateway, which is wrong when the Docker engine runs in the same container or VM
// (Docker in Docker, sandboxes). With a local socket, loopback is tried first; the first
// candidate that accepts a TCP connection wins (Docker's port proxy accepts as soon as the
// container starts, before the emulator listens).
func reachableAddr(ctx context.Context, ctr *testcontainers.DockerContainer, dockerHost string) (string, error) {
	port, err := ctr.MappedPort(ctx, gatewayPort)
	if err != nil {
		return "", err
	}
	tcHost, err := ctr.Host(ctx)
	if err != nil {
		return "", err
	}
	var candidates []string
	if strings.HasPrefix(dockerHost, "unix://") || strings.HasPrefix(dockerHost, "npipe://") {
		candidates = append(candidates, "127.0.0.1")
	}
	if tcHost != "" && tcHost != "127.0.0.1" {
		candidates = append(candidates, tcHost)
	}
	for _, h := range candidates {
		addr := net.JoinHostPort(h, port.Port())
		d := net.Dialer{Timeout: time.Second}
		if conn, err := d.DialContext(ctx, "tcp", addr); err == nil {
			_ = conn.Close()
			return addr, nil
		}
	}
	if len(candidates) == 0 {
		return "", errors.New("no host to reach the container on")
	}
	return net.JoinHostPort(candidates[len(candidates)-1], port.Port()), nil
}

// slogPrintf adapts a slog.Logger to testcontainers-go's Printf logger, at debug level.
type slogPrintf struct{ l *slog.Logger }

func (p slogPrintf) Printf(format string, v ...any) {
	p.l.Debug(strings.TrimSpace(fmt.Sprintf(format, v...)), "component", "testcontainers")
}
