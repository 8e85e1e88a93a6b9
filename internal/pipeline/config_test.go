package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target"
)

// TestConfigCheck: each wrong setting is an ErrUsage naming its flag; a sound one passes.
func TestConfigCheck(t *testing.T) {
	good := func() Config {
		return Config{Target: target.Config{Kind: record.KindEmbedded}, Samples: 10, Concurrency: 8, Formats: []string{"text"}}
	}
	if c := good(); c.Check() != nil {
		t.Fatalf("a sound configuration: %v", c.Check())
	}
	for flag, spoil := range map[string]func(*Config){
		"--target: want":  func(c *Config) { c.Target.Kind = "cloud" },
		"--endpoint URL":  func(c *Config) { c.Target.Kind = "account" },
		"--samples":       func(c *Config) { c.Samples = 0 },
		"--concurrency":   func(c *Config) { c.Concurrency = 300 },
		"--partitions":    func(c *Config) { c.Partitions = -1 },
		"run --format":    func(c *Config) { c.Formats = []string{"pdf"} },
		"without --out":   func(c *Config) { c.Formats = []string{"json", "md"} },
		"--baseline FILE": func(c *Config) { c.UpdateBaseline = true },
		"--tolerance-ru":  func(c *Config) { c.Tolerance.MinRU = -1 },
		"--regression-pct": func(c *Config) {
			c.Compare.Pct = -5
		},
	} {
		c := good()
		spoil(&c)
		err := c.Check()
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), flag) {
			t.Errorf("%s: Check() = %v, want ErrUsage naming it", flag, err)
		}
	}
	c := good()
	c.Formats = []string{"json", "text"}
	if err := c.Check(); err != nil {
		t.Errorf("json with text beside it on standard error: %v", err)
	}
	if err := c.SetProgress(nil, "sometimes"); !errors.Is(err, ErrUsage) {
		t.Errorf("SetProgress(sometimes) = %v, want ErrUsage", err)
	}
}
