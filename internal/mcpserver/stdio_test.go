package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is written by the server's goroutines and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStdioAnswersEveryRequestBeforeEOF: requests piped in and then the end of input (printf … |
// validate mcp) are all answered, and the session then ends on its own.
func TestStdioAnswersEveryRequestBeforeEOF(t *testing.T) {
	srv, err := New(Options{Root: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"import","arguments":{"markdown":"# Shop\n\n## Orders container\n"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"lint","arguments":{"design":` + strconvQuote(tiny) + `}}}`,
	}, "\n") + "\n"
	var out lockedBuffer
	// No deadline: a session that does not end when its input does hangs, and go test's -timeout
	// ends it with every stack; the verdict is the answers.
	if err := srv.Run(context.Background(), Stdio(strings.NewReader(in), &out)); err != nil {
		t.Logf("the session ended with %v", err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID    any `json:"id"`
			Error any `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if m.Error != nil {
			t.Errorf("error answer: %s", line)
		}
		ids[jsonText(m.ID)] = true
	}
	for _, id := range []string{"1", "2", `"three"`, "4"} {
		if !ids[id] {
			t.Errorf("request %s not answered; output:\n%s", id, out.String())
		}
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestStdioAnswersBadLines: a line that is not a JSON-RPC request gets JSON-RPC's error and the
// session goes on (each of these ended `validate mcp` with exit 3): text that is not JSON, a NUL
// and nesting past the JSON reader's depth are parse errors (-32700, id null); an object as id, a
// batch array (MCP 2025-06-18 removed batching) and a bare number are invalid requests (-32600).
func TestStdioAnswersBadLines(t *testing.T) {
	srv, err := New(Options{Root: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		line string
		code float64
	}{
		{"this is not JSON", -32700},
		{"\x00", -32700},
		{strings.Repeat("[", 20000) + strings.Repeat("]", 20000), -32700},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600},
		{`[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, -32600},
		{`42`, -32600},
	}
	lines := []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for _, b := range bad {
		lines = append(lines, b.line)
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	var out lockedBuffer
	if err := srv.Run(context.Background(), Stdio(strings.NewReader(strings.Join(lines, "\n")+"\n"), &out)); err != nil {
		t.Logf("the session ended with %v", err) // no deadline: a session that never ends hangs until go test's -timeout
	}
	var codes []float64
	answered9 := false
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID    any `json:"id"`
			Error *struct {
				Code float64 `json:"code"`
			} `json:"error"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch {
		case m.Error != nil && m.ID == nil:
			codes = append(codes, m.Error.Code)
		case m.ID == float64(9) && m.Result != nil:
			answered9 = true
		}
	}
	if len(codes) != len(bad) {
		t.Fatalf("%d error answers with id null, want %d:\n%s", len(codes), len(bad), out.String())
	}
	for i, b := range bad {
		if codes[i] != b.code {
			t.Errorf("line %d (%.30q): code %v, want %v", i, b.line, codes[i], b.code)
		}
	}
	if !answered9 {
		t.Errorf("the request after the bad lines was not answered:\n%s", out.String())
	}
}

// TestStdioClientLeavesDuringRun: the input closes while a run is seeding (the client has gone):
// the run is cancelled and the session ends, instead of finishing the run first (78 s before).
func TestStdioClientLeavesDuringRun(t *testing.T) {
	srv, err := New(Options{Root: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Replace(tiny, "count: 20", "count: 50000", 1)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"design":` + strconvQuote(big) + `,"samples":50}}}`,
	}, "\n") + "\n"
	var out lockedBuffer
	// No deadline: a session that goes on after its client left hangs, and go test's -timeout ends
	// it with every stack.
	_ = srv.Run(context.Background(), StdioGrace(strings.NewReader(in), &out, 0))
	if strings.Contains(out.String(), `"verdict"`) || strings.Contains(out.String(), `"patterns"`) {
		t.Errorf("the run finished after its client left:\n%.500s", out.String())
	}
}
