package target

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// emulatorRepo is the repository of Microsoft's Linux emulator images, vNext and classic.
const emulatorRepo = "mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator"

// VNextLatestImage is the moving tag of the vNext emulator (the docs' tag; formerly vnext-preview):
// `--emulator-image vnext-latest` selects it.
const VNextLatestImage = emulatorRepo + ":vnext-latest"

// ExpandEmulatorImage turns the short names of Microsoft's emulator images into image references:
// "vnext-latest" (or "vnext"), any "vnext-EN…" dated tag, and "classic" (the classic image,
// ":latest"). Anything else is an image reference already and is returned unchanged.
func ExpandEmulatorImage(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case s == "vnext" || s == "vnext-latest":
		return VNextLatestImage
	case s == "classic":
		return ClassicEmulatorImage
	case strings.HasPrefix(s, "vnext-") && !strings.ContainsAny(s, "/:@"):
		return emulatorRepo + ":" + s
	}
	return s
}

// ErrImagePull: --pull was given and the image could not be pulled.
var ErrImagePull = errors.New("could not pull the emulator image")

// pullFailure explains a start that failed because the image could not be pulled: the image is
// still not on the machine after the attempt.
func pullFailure(ctx context.Context, d *docker, image string, err error) error {
	if present, _, perr := d.imagePresent(context.WithoutCancel(ctx), image); perr != nil || present {
		return nil
	}
	return &pullError{image: image, cause: firstLine(err.Error())}
}

// pullError is ErrImagePull for one image.
type pullError struct{ image, cause string }

func (e *pullError) Error() string { return fmt.Sprintf("could not pull %s: %s", e.image, e.cause) }
func (e *pullError) Unwrap() error { return ErrImagePull }

// saveLoadAdvice says how to bring an image to a machine without a registry.
func saveLoadAdvice(image string) string {
	return fmt.Sprintf("this machine cannot reach the registry: on one that can, run `docker pull %s && docker save -o emulator.tar %s`, "+
		"copy emulator.tar here and run `docker load -i emulator.tar`; or run with --target embedded", image, image)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
