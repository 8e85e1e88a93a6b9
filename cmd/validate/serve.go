package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/outfile"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/replay"
	"github.com/cosmosdv/validate/internal/target"
	"github.com/spf13/cobra"
)

func (a *app) serveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded Cosmos DB engine as a standalone local emulator",
		Long: `Serve runs the embedded engine — the default target of 'validate run' — as a standalone server that any
Cosmos DB SDK or tool can use as a local emulator of the NoSQL API. It computes request charges with
the cost model (labelled "model"), honours indexing policies and hierarchical partition keys.

Flags mirror the Microsoft vNext emulator where they overlap (--port 8081, --protocol http, --key).
The default key is the emulator's well-known key. It binds to loopback unless --bind says otherwise.
Stop it with Ctrl-C; with --persist it saves its data to the file and loads it at the next start.
Durability with --persist is a choice (--persist-mode): "log", the default, appends every write to
FILE.log and fsyncs it before the response, so a crash (even kill -9) loses nothing acknowledged;
the log is compacted into the file at checkpoints, at stop and at the next start. "snapshot" saves
the file every 30 seconds and at stop only: faster on slow disks, but a crash loses what was
acknowledged since the last save. One process serves a file at a time: FILE.lock holds the
owner's process id, and a second server on the same file is refused naming it (exit 3).

A second port (--compute-port, 8903 as the emulator's) serves the compute gateway: item ids that the
routing gateway on --port refuses, as the service does (ending in white space, holding '/', '\', '#',
an escape or a control character), are served there. -1 serves no compute gateway.

SDKs connect to the address the account advertises, which is the listen address. In a container
whose port 8081 is published elsewhere, say where with --public-endpoint (as GATEWAY_PUBLIC_ENDPOINT
does for the vNext emulator).

Accounts as configured: --consistency sets the account's default consistency (reported on GET /;
Strong and Bounded Staleness reads are charged twice; a request may relax it, never strengthen it).
--cert-out writes the HTTPS certificate so clients can trust it instead of skipping verification:
Go on Linux: SSL_CERT_FILE=FILE; Node: NODE_EXTRA_CA_CERTS=FILE; Python: REQUESTS_CA_BUNDLE=FILE;
Java: keytool -importcert -file FILE -keystore ... ; .NET and system-wide (Debian/Ubuntu): copy it to
/usr/local/share/ca-certificates/validate.crt and run update-ca-certificates.
--allow-aad also accepts Microsoft Entra ID tokens, so code using DefaultAzureCredential runs
unchanged (give the client the audience https://cosmos.azure.com). Their signatures are not checked,
so with a --bind beyond loopback it is refused unless --allow-aad-remote accepts that risk.

Rate cards: --calibration FILE charges with a profile written by 'validate calibrate' (a team's
emulator calibrated to its own account); --rate-card FILE with a card file whose figures replace the
built-in ones ({"queryMin": {"value": 2.6}}), to test a calibration without an account. Charges stay
labelled as modeled (docs/calibration.md).

Load test: --replay DESIGN replays the design's traffic shape (traffic: in the design) against the
engine instead of serving until Ctrl-C. It is a mode of serve, not a command of its own, because it
is this server under load: the engine starts as above (same port, keys, rate card) with its RU/s
budgets enforced per physical partition (429 with x-ms-retry-after-ms, as 'run --throttle'); the
design's containers are provisioned and seeded as 'validate run' does, and each access pattern is
executed as run executes it, through the SDK, at rps.avg × the hour's factor (events included),
paced evenly over each hour. --speed compresses the clock (3600: an hour a second), --hours bounds
the replay (default 24), --replay-scale sends a share of the load against the same share of the
throughput. Each hour prints the requests sent, the RU the engine charged (model) and the 429s the
SDK met, beside plan's forecast for that hour at the designed throughput (model; plan judges the
hour's busiest second, intraHourPeak, where the replay paces the average). When the replay ends or
Ctrl-C stops it, what it created is removed and the server stops. Exit 2 when the design has no
traffic shape or no pattern states rps.avg.`,
		Example: `  validate serve
  validate serve --protocol https --port 8081 --persist ./cosmos.json
  validate serve --bind 0.0.0.0 --public-endpoint http://localhost:8083/   # in a container published on 8083
  validate serve --protocol https --cert-out cosmos.pem --allow-aad --consistency Strong
  validate serve --calibration calibration/mydev.json
  validate serve --port 0 --replay designs/game.yaml --speed 3600 --hours 24 --replay-scale 0.1`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			proto := v.GetString("protocol")
			if proto != "http" && proto != "https" {
				return usageErr("--protocol: want http or https (got %q)", proto)
			}
			port := v.GetInt("port")
			if port < 0 || port > 65535 {
				return usageErr("--port: want 0..65535 (got %d)", port)
			}
			computePort := v.GetInt("compute-port")
			if computePort < -1 || computePort > 65535 {
				return usageErr("--compute-port: want 0..65535, or -1 for none (got %d)", computePort)
			}
			if computePort > 0 && computePort == port {
				return usageErr("--compute-port: %d is --port already; give the compute gateway another port, or -1 for none", computePort)
			}
			logger, err := newLogger(a.stderr, v.GetString("log-level"))
			if err != nil {
				return err
			}
			if pub := v.GetString("public-endpoint"); pub != "" {
				if _, err := engine.CheckPublicURL(pub, proto); err != nil {
					return usageErr("--public-endpoint: %v", err)
				}
			}
			if m := v.GetString("persist-mode"); m != engine.PersistLog && m != engine.PersistSnapshot {
				return usageErr("--persist-mode: want %s or %s (got %q)", engine.PersistLog, engine.PersistSnapshot, m)
			}
			if _, err := engine.ParseConsistency(v.GetString("consistency")); err != nil {
				return usageErr("--consistency: %v", err)
			}
			card, rules, err := rateCard(v, true)
			if err != nil {
				return err
			}
			if set := v.GetStringSlice("rules"); len(set) > 0 {
				if rules, err = cost.ParseSelection(set); err != nil {
					return usageErr("--rules: %v", err)
				}
				if s := rules.String(); s != "" {
					fmt.Fprintf(a.stderr, "validate serve: rules %s (not the defaults: a stand-in, not the service)\n", s)
				}
			}
			certOut := v.GetString("cert-out")
			if certOut != "" && proto != "https" {
				return usageErr("--cert-out: the server has a certificate only with --protocol https")
			}
			bind := v.GetString("bind")
			if err := aadBindCheck(bind, v.GetBool("allow-aad"), v.GetBool("allow-aad-remote")); err != nil {
				return err
			}
			if w := bindWarning(bind); w != "" {
				fmt.Fprintln(a.stderr, w)
			}
			var replayDesign *design.Design
			var replayOpts replay.Options
			if path := v.GetString("replay"); path != "" {
				designs, err := loadDesigns(a.stderr, []string{path})
				if err != nil {
					return err
				}
				replayDesign = designs[0]
				replayOpts = replay.Options{Speed: v.GetFloat64("speed"), Hours: v.GetInt("hours"), Scale: v.GetFloat64("replay-scale"), Out: a.stdout, Progress: a.stderr}
				if err := replayOpts.Check(replayDesign); err != nil {
					if strings.HasPrefix(err.Error(), "--") {
						return usageErr("%v", err) // a flag's value
					}
					return usageErr("--replay %s: %v", path, err)
				}
				if replayOpts.Plan, err = pipeline.Plan(replayDesign, plan.Options{RateCard: card, Rules: rules}); err != nil {
					return usageErr("--replay %s: plan: %v", path, err)
				}
			}
			setStopping("stopping the server")
			defer setStopping("")
			computeAddr := ""
			if computePort >= 0 {
				computeAddr = net.JoinHostPort(bind, strconv.Itoa(computePort))
			}
			srv, err := engine.Start(a.ctx, engine.Options{
				Addr:        net.JoinHostPort(bind, strconv.Itoa(port)),
				ComputeAddr: computeAddr,
				Protocol:    proto,
				Key:         v.GetString("key"),
				Logger:      logger,
				PersistPath: v.GetString("persist"),
				PersistMode: v.GetString("persist-mode"),
				PublicURL:   v.GetString("public-endpoint"),
				Throttle:    replayDesign != nil, // a load test meets the RU/s budgets
				Consistency: v.GetString("consistency"),
				AllowAAD:    v.GetBool("allow-aad"),
				RateCard:    card,
				Rules:       rules,
			})
			if errors.Is(err, engine.ErrComputeListen) {
				return infraErr(fmt.Errorf("%w (--compute-port %d is taken: give another port, 0 for any free one, or -1 to serve no compute gateway)", err, computePort))
			}
			if err != nil {
				return infraErr(err) // the engine names the stage ("start engine: ...")
			}
			if certOut != "" {
				if err := outfile.Replace(certOut, srv.CertificatePEM(), 0o644); err != nil {
					_ = srv.Close(context.Background())
					return infraErr(fmt.Errorf("--cert-out: %w", err))
				}
				fmt.Fprintf(a.stdout, "validate serve: certificate written to %s\n", certOut)
			}
			// The ready line: scripts and container health checks wait for it.
			if srv.ComputeURL() != "" {
				fmt.Fprintf(a.stdout, "validate serve: compute gateway on %s\n", srv.ComputeURL())
			}
			fmt.Fprintf(a.stdout, "validate serve: listening on %s (charges: %s)\n", srv.URL(), cost.ChargesLabel(card))
			if replayDesign != nil {
				return a.serveReplay(srv, proto, replayDesign, replayOpts)
			}
			<-a.ctx.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := srv.Close(ctx); err != nil {
				return infraErr(fmt.Errorf("stop engine: %w", err))
			}
			fmt.Fprintln(a.stdout, "validate serve: stopped")
			return nil
		},
	}
	addFlags(cmd, "serve")
	return cmd
}

// serveReplay replays d against the server srv just started (replay.Run through a client of the
// endpoint kind, the one SDK path), then stops the server. Ctrl-C stops the replay between
// requests; what it created is removed and the server stops, exit 0.
func (a *app) serveReplay(srv *engine.Server, proto string, d *design.Design, o replay.Options) (err error) {
	setStopping("stopping the replay, removing what it created and stopping the server")
	defer func() {
		if cerr := srv.Close(context.Background()); cerr != nil && err == nil {
			err = infraErr(fmt.Errorf("stop engine: %w", cerr))
		}
		if err == nil {
			fmt.Fprintln(a.stdout, "validate serve: stopped")
		}
	}()
	tgt, err := target.Open(a.ctx, target.Config{Kind: record.KindEndpoint, Endpoint: srv.URL(), Key: srv.Key(), Insecure: proto == "https"})
	if err != nil {
		return infraErr(fmt.Errorf("replay: %w", err))
	}
	defer func() { _ = tgt.Close(context.Background()) }()
	hours, err := replay.Run(a.ctx, d, tgt.Client, tgt.Info, o)
	switch {
	case a.ctx.Err() != nil:
		done := 0
		for _, h := range hours {
			if !h.Partial {
				done++
			}
		}
		fmt.Fprintf(a.stdout, "validate serve: replay interrupted after %s\n", design.Count(done/max(len(d.Containers), 1), "full hour"))
		return nil
	case err != nil:
		return infraErr(fmt.Errorf("replay: %w", err))
	}
	fmt.Fprintf(a.stdout, "validate serve: replayed %s of %s\n", design.Count(o.Hours, "hour"), d.Name)
	return nil
}

// aadBindCheck refuses --allow-aad on an address beyond loopback unless --allow-aad-remote accepts
// the risk: a token's signature is not checked, so an unsigned one (alg "none") passes, and anyone
// who reaches the port has the key's rights (issue 30).
func aadBindCheck(bind string, allowAAD, remote bool) error {
	if !allowAAD || remote || bindWarning(bind) == "" {
		return nil
	}
	return usageErr("--allow-aad with --bind %q: Entra ID tokens are accepted without checking their signature, so anyone who can reach this address could forge one and act with the key's rights. Keep --bind on loopback, or add --allow-aad-remote to accept that risk", bind)
}

// bindWarning is the warning for a listen host that reaches beyond this machine: a non-loopback
// address, a host name other than localhost, or "" (every interface, like 0.0.0.0); "" when the
// host is loopback.
func bindWarning(bind string) string {
	switch ip := net.ParseIP(bind); {
	case bind == "":
		return `warning: --bind "" listens on every interface and exposes the engine beyond this machine`
	case ip != nil && ip.IsLoopback(), strings.EqualFold(bind, "localhost"):
		return ""
	}
	return fmt.Sprintf("warning: binding %s exposes the engine beyond this machine", bind)
}

// newLogger returns a text logger on w at the named level.
func newLogger(w interface{ Write([]byte) (int, error) }, level string) (*slog.Logger, error) {
	var l slog.Level
	switch strings.ToLower(level) {
	case "debug":
		l = slog.LevelDebug
	case "info":
		l = slog.LevelInfo
	case "warn", "warning", "":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		return nil, usageErr("--log-level: want debug, info, warn or error (got %q)", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}
