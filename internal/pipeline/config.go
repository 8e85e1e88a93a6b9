package pipeline

import (
	"io"
	"os"
	"slices"
	"strings"
)

// Formats of the reports `validate run` writes (Config.Formats).
var Formats = []string{"text", "md", "json", "junit", "html", "sarif"}

// Check refuses a configuration Validate cannot run, with ErrUsage errors that name the flag at
// fault and what it wants; the CLI calls it before it reads any design, so a wrong flag costs
// nothing. Validate assumes a checked Config.
func (c *Config) Check() error {
	switch c.Target.Kind {
	case "auto", "embedded", "emulator", "account", "endpoint":
	default:
		return usage("--target: want auto, embedded, emulator, account or endpoint (got %q)", c.Target.Kind)
	}
	if (c.Target.Kind == "account" || c.Target.Kind == "endpoint") && c.Target.Endpoint == "" && c.Target.ConnectionString == "" {
		return usage("--target %s needs --endpoint URL (or CDV_CONNECTION_STRING)", c.Target.Kind)
	}
	if c.Samples < 1 || c.Samples > 10000 {
		return usage("--samples: want 1..10000 (got %d)", c.Samples)
	}
	if c.Concurrency < 1 || c.Concurrency > 256 {
		return usage("--concurrency: want 1..256 (got %d)", c.Concurrency)
	}
	if c.Partitions < 0 || c.Partitions > 1000 {
		return usage("--partitions: want 0..1000 (got %d)", c.Partitions)
	}
	for _, f := range c.Formats {
		if !slices.Contains(Formats, f) {
			return usage("run --format: want %s (got %q)", strings.Join(Formats, ", "), f)
		}
	}
	if c.Out == "" && slices.Contains(c.Formats, "sarif") {
		return usage("run --format sarif: give --out DIR (each design's findings go to DIR/<design>.sarif)")
	}
	if c.Out == "" {
		if err := stdoutFormats(c.Formats); err != nil {
			return err
		}
	}
	if c.UpdateBaseline && c.Baseline == "" {
		return usage("--update-baseline needs --baseline FILE (or a directory for several designs)")
	}
	for _, f := range []struct {
		flag string
		v    float64
	}{
		{"tolerance-point", c.Tolerance.PointPct}, {"tolerance-query", c.Tolerance.QueryPct}, {"tolerance-ru", c.Tolerance.MinRU},
		{"regression-pct", c.Compare.Pct}, {"regression-ru", c.Compare.RU}, {"regression-usd", c.Compare.USD},
	} {
		if f.v < 0 {
			return usage("--%s: must not be negative", f.flag)
		}
	}
	return nil
}

// stdoutFormats checks the formats of a run without Out, whose reports all go to standard output:
// JSON Lines (text beside it goes to standard error), or one other format.
func stdoutFormats(formats []string) error {
	json := slices.Contains(formats, "json")
	var others []string
	for _, f := range formats {
		if f != "json" && (f != "text" || !json) {
			others = append(others, f)
		}
	}
	if len(others) > 1 || (json && len(others) > 0) {
		return usage("--format %s: without --out, standard output takes one format (json, with text beside it on standard error); give --out DIR to write each format to a file",
			strings.Join(formats, ","))
	}
	return nil
}

// SetProgress points the run's progress at w by mode: "none", "bar" (redrawn in place), "lines"
// (one line per update) or "auto" (a bar when w is a terminal, else lines).
func (c *Config) SetProgress(w io.Writer, mode string) error {
	switch mode {
	case "none":
		c.Progress = nil
	case "bar":
		c.Progress, c.TTY = w, true
	case "lines":
		c.Progress, c.TTY = w, false
	case "auto":
		c.Progress, c.TTY = w, isTerminal(w)
	default:
		return usage("--progress: want auto, bar, lines or none (got %q)", mode)
	}
	return nil
}

// isTerminal reports whether w is a character device (a terminal), for the progress bar.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
