package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --bind "" listens on every interface: it warns like any other non-loopback address.
func TestServe_BindWarning(t *testing.T) {
	for bind, warn := range map[string]bool{
		"": true, "0.0.0.0": true, "::": true, "192.168.1.2": true, "myhost": true,
		"127.0.0.1": false, "::1": false, "localhost": false, "127.0.0.2": false,
	} {
		got := bindWarning(bind)
		if (got != "") != warn || (warn && !strings.Contains(got, "beyond this machine")) {
			t.Errorf("bindWarning(%q) = %q, want a warning: %v", bind, got, warn)
		}
	}
}

// --allow-aad accepts tokens whose signature is not checked (an alg "none" token passes): with a
// --bind beyond loopback it is a usage error unless --allow-aad-remote accepts the risk (issue 30).
func TestServe_AllowAADBeyondLoopbackRefused(t *testing.T) {
	for _, tc := range []struct {
		bind           string
		remote, refuse bool
	}{
		{"0.0.0.0", false, true}, {"", false, true}, {"192.168.1.2", false, true},
		{"0.0.0.0", true, false}, {"127.0.0.1", false, false}, {"localhost", false, false},
	} {
		err := aadBindCheck(tc.bind, true, tc.remote)
		if (err != nil) != tc.refuse || (err != nil && !strings.Contains(err.Error(), "--allow-aad-remote")) {
			t.Errorf("bind %q, remote %v: %v; want refused: %v", tc.bind, tc.remote, err, tc.refuse)
		}
	}
	if err := aadBindCheck("0.0.0.0", false, false); err != nil {
		t.Errorf("without --allow-aad: %v", err)
	}
	code, _, stderr := runCLI(t, "serve", "--allow-aad", "--bind", "0.0.0.0", "--port", "0")
	if code != 2 || !strings.Contains(stderr, "--allow-aad-remote") {
		t.Errorf("serve --allow-aad --bind 0.0.0.0: exit %d, %q; want exit 2 naming --allow-aad-remote", code, stderr)
	}
}

// TestServe_Replay (#40 point 6): serve --replay provisions, replays the hours asked for beside
// plan's forecast, removes what it created and stops with exit 0 (counts, not time).
func TestServe_Replay(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(path, []byte(`version: 1
name: replay-cli
containers:
  - name: Scores
    partitionKey: [/playerId]
    documents:
      - type: score
        count: 5
        fields:
          playerId: {gen: uuid, unique: true}
traffic: {shape: evening}
accessPatterns:
  - {id: AP1, name: read a score, container: Scores, op: read, sample: score, itemId: "{id}", partitionKey: ["{playerId}"], rps: {avg: 2}, estimate: {ru: 1}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "serve", "--port", "0", "--compute-port", "-1", "--replay", path, "--speed", "360000", "--hours", "3")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"d1 00:00  Scores", "d1 02:00  Scores", "req/s throttled", "replayed 3 hours of replay-cli", "validate serve: stopped"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout does not say %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "teardown: removed what this run created") {
		t.Errorf("stderr does not say the replay removed what it created:\n%s", errOut)
	}
}
