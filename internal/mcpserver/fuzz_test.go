package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cosmosdv/validate/internal/testenv"
)

// FuzzToolArguments calls a tool with arbitrary JSON arguments on a fresh server whose root holds
// a design and a data-model markdown. A call answers (a result, an error result, or a protocol
// error for arguments the tool's schema refuses) within a bound, never panics (the SDK does not
// recover handlers' panics: one would end the test binary), never writes outside the root and
// never echoes an absolute path outside it.
//
//	go test ./internal/mcpserver -run '^$' -fuzz FuzzToolArguments -fuzztime 60s
func FuzzToolArguments(f *testing.F) {
	design := strings.Replace(tiny, "count: 20", "count: 5", 1)
	seeds := []struct{ tool, args string }{
		{"lint", `{"design":` + quote(design) + `}`},
		{"lint", `{"path":"d.yaml"}`},
		{"lint", `{"path":"../outside.yaml"}`},
		{"lint", `{"path":"/etc/passwd"}`},
		{"lint", `{"design":"x","path":"d.yaml"}`},
		{"plan", `{"path":"d.yaml","seed":-9223372036854775808}`},
		{"plan", `{"path":"d.yaml","seed":1e300}`},
		{"plan", `{"design":"version: 1\nname: \u0000"}`},
		{"run", `{"path":"d.yaml","samples":-1,"seed":0}`},
		{"run", `{"path":"d.yaml","samples":9223372036854775807}`},
		{"run", `{"path":"d.yaml","samples":1e300}`},
		{"run", `{"path":"d.yaml","samples":-0}`},
		{"explain", `{"path":"d.yaml","pattern":"AP1","samples":2}`},
		{"explain", `{"path":"d.yaml","pattern":""}`},
		{"import", `{"path":"m.md"}`},
		{"import", `{"path":"m.md","output":"out.yaml"}`},
		{"import", `{"path":"m.md","output":"../escape.yaml","overwrite":true}`},
		{"import", `{"path":"m.md","output":"d.yaml"}`},
		{"import", `{"markdown":"# T\n\n## Containers\n\n### c\n\n| Field | Type |\n|---|---|\n| id | string |\n"}`},
		{"import", `{"markdown":"","requirements":"\u0000"}`},
		{"nosuchtool", `{}`},
		{"run", `null`},
		{"run", `[]`},
		{"run", `{"path":{"x":1}}`},
	}
	for _, s := range seeds {
		f.Add(s.tool, []byte(s.args))
	}
	markdown, err := os.ReadFile(filepath.Join("..", "importer", "testdata", "corpus", "saas.md"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		if !json.Valid(args) || len(args) > 1<<16 {
			return
		}
		parent := t.TempDir()
		root := filepath.Join(parent, "root")
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "d.yaml"), []byte(design), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "m.md"), markdown, 0o644); err != nil {
			t.Fatal(err)
		}
		cs := connect(t, root)
		ctx, cancel := testenv.FuzzHangBound(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if ctx.Err() != nil {
			t.Fatalf("%s %s: no answer within two minutes while fuzzing", tool, args)
		}
		entries, _ := os.ReadDir(parent)
		if len(entries) != 1 {
			t.Fatalf("%s %s: wrote outside the root: %v", tool, args, entries)
		}
		if err != nil || res == nil {
			return // a protocol error: arguments the schema refuses, an unknown tool
		}
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok && strings.Contains(tc.Text, parent) && !strings.Contains(tc.Text, root) {
				t.Fatalf("%s %s: the answer names a path outside the root: %q", tool, args, tc.Text)
			}
		}
	})
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
