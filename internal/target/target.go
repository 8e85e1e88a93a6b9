// Package target gives the pipeline an *azcosmos.Client and an honest description of what it talks
// to: the embedded engine, a Microsoft emulator started with testcontainers-go, an Azure account, or
// any endpoint given by URL. It provisions nothing; it connects, describes and cleans up.
package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
)

// KindAuto is the Config.Kind that chooses a target (see openAuto); the kinds of target a run
// reports are record.KindEmbedded, record.KindEmulator, record.KindAccount and record.KindEndpoint.
const KindAuto record.Kind = "auto"

// SDKVersion is the azcosmos module version this build talks through. Keep it equal to the
// require line in go.mod; TestSDKVersionMatchesGoMod checks that.
const SDKVersion = "v1.5.0"

// Config is everything Open needs. The CLI fills it from flags, environment and config file;
// this package never reads the environment itself.
type Config struct {
	// Kind is "auto" (default when empty), "embedded", "emulator", "account" or "endpoint".
	Kind record.Kind
	// EmulatorImage is the emulator image; default DefaultEmulatorImage.
	EmulatorImage string
	// EmulatorProtocol is "http" or "https"; empty chooses by image (vNext http, classic https).
	EmulatorProtocol string
	// Insecure skips TLS verification. Only honoured when explicitly set.
	Insecure bool
	// AllowPull lets the emulator target pull a missing image. Auto never pulls.
	AllowPull bool
	// Endpoint is the account or endpoint URL (account, endpoint).
	Endpoint string
	// Key is an account key. Secret: never logged, never in errors.
	Key string
	// ConnectionString is "AccountEndpoint=...;AccountKey=...;". Secret.
	ConnectionString string
	// Engine configures the embedded engine.
	Engine engine.Options
	// EnginePerRetry are extra per-retry policies on the embedded engine's client. Tests give
	// testenv.ThrottleClock's with its Now as Engine.Now, so that the engine's RU/s budgets are met
	// on a clock that moves with the 429s and not with the machine's speed.
	EnginePerRetry []policy.Policy
	// Log receives debug and info records; nil discards them.
	Log *slog.Logger
	// Status receives one-line human status messages; nil discards them.
	Status io.Writer
}

// Target is an open connection to one backend.
type Target struct {
	// Client talks to the backend through the real SDK.
	Client *azcosmos.Client
	// Info describes the backend; it never holds a key or token.
	Info record.TargetInfo
	// Reason says, for auto, why this target was chosen and the one command that would switch it.
	Reason string
	// Shared is true when the backend may hold data that is not this run's (an account, or an
	// endpoint not known to be disposable): use a run-scoped database (DatabaseName), refuse an
	// existing one, provision minimal throughput and delete only what the run created.
	Shared bool
	// Close releases the client and removes whatever Open started (server, container). It is
	// idempotent, and it finishes its cleanup even when ctx is already cancelled (Ctrl-C).
	Close func(ctx context.Context) error

	// containerID is the emulator container this target started ("" otherwise).
	containerID string
	// newClient builds another client to the emulator this target started, over the same transport
	// and with extra per-retry policies (the conformance suite signs requests itself); nil otherwise.
	newClient func(perRetry ...policy.Policy) (*azcosmos.Client, error)
}

// Open connects to the backend cfg describes. Errors are wrapped so that IsInfrastructure and
// errors.Is with this package's sentinels classify them.
func Open(ctx context.Context, cfg Config) (*Target, error) {
	cfg = cfg.withDefaults()
	switch cfg.Kind {
	case KindAuto:
		return openAuto(ctx, cfg)
	case record.KindEmbedded:
		return openEmbedded(ctx, cfg, "")
	case record.KindEmulator:
		return openEmulator(ctx, cfg, cfg.AllowPull)
	case record.KindAccount:
		return openAccount(ctx, cfg)
	case record.KindEndpoint:
		return openEndpoint(ctx, cfg)
	default:
		return nil, fmt.Errorf("unknown target %q (want auto, embedded, emulator, account or endpoint)", cfg.Kind)
	}
}

func (c Config) withDefaults() Config {
	c.Kind = record.Kind(strings.ToLower(strings.TrimSpace(string(c.Kind))))
	if c.Kind == "" {
		c.Kind = KindAuto
	}
	if c.EmulatorImage == "" {
		c.EmulatorImage = DefaultEmulatorImage
	}
	c.EmulatorImage = ExpandEmulatorImage(c.EmulatorImage)
	c.EmulatorProtocol = strings.ToLower(strings.TrimSpace(c.EmulatorProtocol))
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Status == nil {
		c.Status = io.Discard
	}
	return c
}

// status writes one human line.
func (c Config) status(format string, args ...any) {
	fmt.Fprintf(c.Status, format+"\n", args...)
}

// closer makes an idempotent Close out of cleanup steps run in order; every step runs, and the
// errors are joined. Cancellation of ctx is ignored so that Ctrl-C still cleans up; each step
// gets its own bound.
func closer(steps ...func(context.Context) error) func(context.Context) error {
	var once sync.Once
	var err error
	return func(ctx context.Context) error {
		once.Do(func() {
			if ctx == nil {
				ctx = context.Background()
			}
			ctx = context.WithoutCancel(ctx)
			var errs []error
			for _, step := range steps {
				if step == nil {
					continue
				}
				sctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
				errs = append(errs, step(sctx))
				cancel()
			}
			err = errors.Join(errs...)
		})
		return err
	}
}

// redactURL returns the endpoint without user info, query or fragment: safe for logs and reports.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(invalid URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}
