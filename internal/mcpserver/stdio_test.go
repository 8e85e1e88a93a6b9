package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
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
	// The deadline only keeps a broken server from hanging the test; the verdict is the answers.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := srv.Run(ctx, Stdio(strings.NewReader(in), &out)); err != nil && ctx.Err() != nil {
		t.Fatalf("the session did not end when its input did: %v", err)
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
