package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

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

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of validate, Go and the azcosmos SDK",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(a.stdout, "validate %s\ngo %s %s/%s\nazcosmos %s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH, sdkVersion())
			return nil
		},
	}
}
