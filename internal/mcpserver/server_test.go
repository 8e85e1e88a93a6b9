package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/report"
)

// tiny is a design small enough to run in well under a second.
const tiny = `version: 1
name: tiny
containers:
  - name: Users
    partitionKey: [/userId]
    documents:
      - type: user
        count: 20
        id: "user-{seq}"
        fields:
          userId: {copy: id}
          email: {gen: email}
accessPatterns:
  - id: AP1
    name: Read a user
    container: Users
    op: read
    sample: user
    rps: {avg: 10}
    estimate: {ru: 1}
`

func connect(t *testing.T, root string) *mcp.ClientSession {
	t.Helper()
	srv, err := New(Options{Root: root, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background()) // no deadline: go test's -timeout ends a hang
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return res, text.String()
}

func TestToolsListAndRun(t *testing.T) {
	cs := connect(t, t.TempDir())
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: want input and output schemas", tl.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"advise", "explain", "import", "lint", "plan", "run"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	res, text := call(t, cs, "run", map[string]any{"design": tiny, "samples": 3})
	if res.IsError {
		t.Fatalf("run: %s", text)
	}
	var rep report.Report
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Target.Kind != "embedded" || rep.Target.ChargeSource != "model" || len(rep.Patterns) != 1 {
		t.Fatalf("report: target %+v, %d patterns", rep.Target, len(rep.Patterns))
	}
	p := rep.Patterns[0]
	if p.ID != "AP1" || p.Modeled == nil || p.Modeled.Samples != 3 || p.Verdict != report.Pass {
		t.Fatalf("AP1: %+v", p)
	}
}

func TestToolErrorsAreTheCLIText(t *testing.T) {
	cs := connect(t, t.TempDir())
	bad := strings.Replace(tiny, "op: read", "op: reed", 1)
	_, want := design.Parse([]byte(bad), "design.yaml")
	res, text := call(t, cs, "lint", map[string]any{"design": bad})
	if !res.IsError || text != want.Error() {
		t.Fatalf("lint error = %v %q, want %q", res.IsError, text, want)
	}
	res, text = call(t, cs, "lint", map[string]any{"design": "# Data model\n\n## Containers\n"})
	if !res.IsError || !strings.Contains(text, "markdown") || !strings.Contains(text, "import") {
		t.Fatalf("markdown to lint: %v %q", res.IsError, text)
	}
	res, text = call(t, cs, "plan", map[string]any{"design": "designs/saas.yaml"})
	if !res.IsError || !strings.Contains(text, "give it as path") {
		t.Fatalf("a file name given as design: %v %q, want the hint to give it as path", res.IsError, text)
	}
	res, text = call(t, cs, "explain", map[string]any{"design": tiny, "pattern": "AP9"})
	if !res.IsError || !strings.Contains(text, `no access pattern "AP9" (have AP1)`) {
		t.Fatalf("explain AP9: %q", text)
	}
}

func TestNothingOutsideTheRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "d.yaml"), []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, root)
	for _, p := range []string{"../" + filepath.Base(outside) + "/d.yaml", filepath.Join(outside, "d.yaml"), "link/d.yaml"} {
		res, text := call(t, cs, "lint", map[string]any{"path": p})
		if !res.IsError || !strings.Contains(text, "outside the server's root") {
			t.Errorf("lint %s: %v %q", p, res.IsError, text)
		}
	}
	md := "# Shop\n\n### Users Container\n\n- **Partition Key**: `/userId`\n"
	res, text := call(t, cs, "import", map[string]any{"markdown": md, "output": "../escape.yaml"})
	if !res.IsError || !strings.Contains(text, "outside") {
		t.Fatalf("import to ../: %v %q", res.IsError, text)
	}
	res, text = call(t, cs, "import", map[string]any{"markdown": md, "output": "designs/users.yaml"})
	if res.IsError {
		t.Fatalf("import: %s", text)
	}
	if _, err := os.Stat(filepath.Join(root, "designs", "users.yaml")); err != nil {
		t.Fatal(err)
	}
	res, text = call(t, cs, "lint", map[string]any{"path": "designs/users.yaml"})
	if res.IsError {
		t.Fatalf("lint of the draft: %s", text)
	}
	res, text = call(t, cs, "import", map[string]any{"markdown": md, "output": "designs/users.yaml"})
	if !res.IsError || !strings.Contains(text, "exists") {
		t.Fatalf("import over an existing file: %v %q", res.IsError, text)
	}
}

func TestExplain(t *testing.T) {
	cs := connect(t, t.TempDir())
	res, text := call(t, cs, "explain", map[string]any{"design": tiny, "pattern": "ap1", "samples": 2})
	if res.IsError {
		t.Fatal(text)
	}
	var out ExplainOutput
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if out.Result.ID != "AP1" || len(out.Executions) != 2 || out.Plan == nil || out.Plan.FloorRU <= 0 {
		t.Fatalf("explain: %+v", out)
	}
}

// TestImportDoesNotFollowLinksOut: a dangling symbolic link under the root, as the output file or as
// one of its directories, is not a way to write outside the root (issue 30: the check resolved only
// existing paths and the write followed the link).
func TestImportDoesNotFollowLinksOut(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "planted.yaml"), filepath.Join(root, "draft.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "newdir"), filepath.Join(root, "designs")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, root)
	md := "# Shop\n\n### Users Container\n\n- **Partition Key**: `/userId`\n"
	for _, c := range []struct {
		output    string
		overwrite bool
	}{{"draft.yaml", false}, {"draft.yaml", true}, {"designs/users.yaml", false}, {"designs/users.yaml", true}} {
		res, text := call(t, cs, "import", map[string]any{"markdown": md, "output": c.output, "overwrite": c.overwrite})
		if !res.IsError {
			t.Errorf("import to %s (overwrite %v) through a dangling link: no error (%q)", c.output, c.overwrite, text)
		}
	}
	for _, p := range []string{"planted.yaml", "newdir"} {
		if _, err := os.Lstat(filepath.Join(outside, p)); err == nil {
			t.Errorf("%s was written outside the root", p)
		}
	}
}

// TestLintRefusesAFIFO: a FIFO (or a device) under the root is refused at once instead of blocking
// the call until something writes to it.
func TestLintRefusesAFIFO(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.yaml"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	cs := connect(t, root)
	// A tool that blocks on the FIFO hangs, and go test's -timeout ends it with every stack; the
	// verdict is the answer.
	ctx := context.Background()
	for _, tool := range []string{"lint", "import"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"path": "pipe.yaml"}})
		if err != nil {
			t.Fatalf("%s of a FIFO: %v", tool, err)
		}
		if !res.IsError || !strings.Contains(fmt.Sprint(res.Content[0]), "not a regular file") {
			t.Errorf("%s of a FIFO: %v", tool, res.Content[0])
		}
	}
}

// TestImportListsWhatItCouldNotMap: the import tool returns the draft and, beside it, the list of what
// the markdown does not say (here: no rate, no charge, a parameter no field fills), each naming the
// draft's field, so that an agent can ask its user about exactly those points.
func TestImportListsWhatItCouldNotMap(t *testing.T) {
	cs := connect(t, t.TempDir())
	md := "# Shop\n\n## Orders\n\nPartition key: `/customerId`\n\n```json\n{\"id\": \"o_1\", \"customerId\": \"c_1\", \"total\": 3}\n```\n\n" +
		"Orders over an amount:\n\n```sql\nSELECT * FROM c WHERE c.customerId = @customerId AND c.region = @region\n```\n"
	res, text := call(t, cs, "import", map[string]any{"markdown": md})
	if res.IsError {
		t.Fatal(text)
	}
	var out ImportOutput
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range out.Unmapped {
		got[u.Path] = u.Text
	}
	for path, want := range map[string]string{
		"accessPatterns[0].rps":      "no request rate found",
		"accessPatterns[0].estimate": "no RU figure",
		"accessPatterns[0].params":   "@region: no field",
	} {
		if !strings.Contains(got[path], want) {
			t.Errorf("unmapped[%s] = %q, want it to say %q (all: %v)", path, got[path], want, out.Unmapped)
		}
	}
	if out.Patterns != 1 || !strings.Contains(out.YAML, "SELECT * FROM c WHERE c.customerId = @customerId") {
		t.Errorf("the draft: %d patterns\n%s", out.Patterns, out.YAML)
	}
}

// TestQuerySyntaxRefusedBeforeRunning: plan, advise and run refuse a design whose query does not
// parse with lint's file:line:col line, as `validate run` does before provisioning; lint reports it.
func TestQuerySyntaxRefusedBeforeRunning(t *testing.T) {
	cs := connect(t, t.TempDir())
	data, err := os.ReadFile("../../designs/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// A design text opening with YAML comments ("# …") is a design, not markdown.
	if res, text := call(t, cs, "plan", map[string]any{"design": string(data)}); res.IsError {
		t.Fatalf("plan of ecommerce.yaml's text: %q", text)
	}
	bad := strings.Replace(string(data), "WHERE c.", "WHERE WHERE c.", 1)
	if bad == string(data) {
		t.Fatal("ecommerce.yaml has no query to break")
	}
	for _, tool := range []string{"plan", "advise", "run"} {
		res, text := call(t, cs, tool, map[string]any{"design": bad})
		if !res.IsError || !strings.Contains(text, "design.yaml:") || !strings.Contains(text, "[query-syntax]") {
			t.Errorf("%s of a design with a broken query: error %v, %q; want lint's query-syntax line", tool, res.IsError, text)
		}
	}
	if res, text := call(t, cs, "lint", map[string]any{"design": bad}); res.IsError || !strings.Contains(text, "query-syntax") {
		t.Errorf("lint of a design with a broken query: error %v, %q; want the finding", res.IsError, text)
	}
}
