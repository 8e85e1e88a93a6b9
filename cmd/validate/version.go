package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/spf13/cobra"
)

// version is what `validate version` prints and every report and baseline records (tool.version).
// A release build may set it with -ldflags "-X main.version=..."; otherwise init takes it from the
// build's own information (buildVersion): the module version `go install …/cmd/validate@v1.2.3`
// stamps, or the commit of the checkout `go build` ran in.
var version string

func init() {
	bi, _ := debug.ReadBuildInfo()
	version = buildVersion(version, bi)
}

// buildVersion is the version of this build: the -ldflags value when one was given; else the module
// version Go stamped (a tag for `go install …@v1.2.3`; since Go 1.24 a pseudo-version such as
// v0.0.0-20261128174000-0ddd0a6c1d2e+dirty for `go build` in a git checkout); else the VCS revision
// the toolchain recorded (its first 12 hex digits, "+dirty" for uncommitted changes); "dev" only
// when the build carries none of these (go build -buildvcs=false outside a module proxy, go run,
// a test binary).
func buildVersion(ldflags string, bi *debug.BuildInfo) string {
	if ldflags != "" {
		return ldflags
	}
	if bi == nil {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}

// sdkVersion returns the azcosmos module version compiled in.
func sdkVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos" {
				return m.Version
			}
		}
	}
	return "unknown"
}

// rateCardVersion names the built-in rate card the model prices with: its version and date.
func rateCardVersion() string { return cost.Current.Version + " (" + cost.Current.Date + ")" }

// buildCommit is the VCS revision and time of this build, when the toolchain recorded them.
func buildCommit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, at string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		}
	}
	return strings.TrimSpace(rev + " " + at)
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of validate, its rate card, Go and the azcosmos SDK",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(a.stdout, "validate %s\n", version)
			if c := buildCommit(); c != "" {
				fmt.Fprintf(a.stdout, "commit %s\n", c)
			}
			fmt.Fprintf(a.stdout, "rate card %s\ngo %s %s/%s\nazcosmos %s\n", rateCardVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH, sdkVersion())
			return nil
		},
	}
}
