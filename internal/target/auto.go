package target

import (
	"context"
	"fmt"
)

// openAuto chooses the emulator when Docker answers within the probe bound and the emulator image
// is already on this machine, the embedded engine otherwise. It never pulls. Target.Reason says why
// and names the one command that would change the choice.
func openAuto(ctx context.Context, cfg Config) (*Target, error) {
	d, err := dialDocker(ctx)
	if err != nil {
		cfg.Log.Info("auto: docker not reachable", "err", err)
		return openEmbedded(ctx, cfg, fmt.Sprintf(
			"auto chose embedded: Docker is not reachable; to use the emulator start Docker, then `docker pull %s`",
			cfg.EmulatorImage))
	}
	defer d.Close()
	present, _, err := d.imagePresent(ctx, cfg.EmulatorImage)
	if err != nil || !present {
		cfg.Log.Info("auto: emulator image absent", "image", cfg.EmulatorImage, "err", err)
		return openEmbedded(ctx, cfg, fmt.Sprintf(
			"auto chose embedded: the emulator image is not on this machine; to use it: `docker pull %s`",
			cfg.EmulatorImage))
	}
	t, err := startEmulator(ctx, cfg, d, false)
	if err != nil {
		return nil, err
	}
	t.Reason = fmt.Sprintf("auto chose the emulator: Docker is up and %s is present; for modeled charges: --target embedded",
		cfg.EmulatorImage)
	return t, nil
}
