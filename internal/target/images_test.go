package target

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target/targettest"
)

func TestExpandEmulatorImage(t *testing.T) {
	for in, want := range map[string]string{
		"vnext-latest":       "mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator:vnext-latest",
		"vnext":              "mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator:vnext-latest",
		"vnext-EN20260430":   "mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator:vnext-EN20260430",
		"classic":            ClassicEmulatorImage,
		"cdv-serve:dev":      "cdv-serve:dev",
		DefaultEmulatorImage: DefaultEmulatorImage,
	} {
		if got := ExpandEmulatorImage(in); got != want {
			t.Errorf("ExpandEmulatorImage(%q) = %q, want %q", in, got, want)
		}
	}
	if c := (Config{EmulatorImage: "vnext-latest"}).withDefaults(); c.EmulatorImage != VNextLatestImage {
		t.Errorf("--emulator-image vnext-latest resolves to %q", c.EmulatorImage)
	}
	if !strings.Contains(DefaultEmulatorImage, ":vnext-EN") {
		t.Errorf("the default image is not pinned to a dated vNext tag: %s", DefaultEmulatorImage)
	}
}

// With --pull, an image that cannot be pulled (no registry reachable here) says so, and how to
// bring the image over with docker save and load.
func TestEmulator_PullFailureSaysCouldNotPull(t *testing.T) {
	targettest.RequireDocker(t)
	ctx := context.Background()
	image := "registry.cdv.invalid/cosmos/emulator:none"
	_, err := Open(ctx, Config{Kind: record.KindEmulator, EmulatorImage: image, AllowPull: true})
	if !errors.Is(err, ErrImagePull) || !IsInfrastructure(err) {
		t.Fatalf("err = %v, want ErrImagePull", err)
	}
	msg := Explain(err)
	for _, want := range []string{"could not pull " + image, "docker save", "docker load"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Explain = %q, want it to say %q", msg, want)
		}
	}
}
