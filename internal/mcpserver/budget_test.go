package mcpserver

import (
	"strings"
	"testing"
)

// Issue 30, item 5: an MCP run of 4,000 documents of 2 MB passed the document cap (50,000) and
// took 6 GB of memory in 17 s. A run is bounded by the bytes it seeds too, refused before anything
// is seeded.
func TestRun_SeedBytesBounded(t *testing.T) {
	cs := connect(t, t.TempDir())
	heavy := strings.Replace(strings.Replace(tiny, "count: 20", "count: 4000", 1), "        id: \"user-{seq}\"", "        id: \"user-{seq}\"\n        targetBytes: 2000000", 1)
	res, text := call(t, cs, "run", map[string]any{"design": heavy, "samples": 1})
	if !res.IsError || !strings.Contains(text, "MB of documents") || !strings.Contains(text, "limited to 256 MB") {
		t.Fatalf("run of 4,000 × 2 MB: error %v, %q; want it refused by the seed-bytes budget", res.IsError, text)
	}
}
