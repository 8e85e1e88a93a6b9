package main

import (
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
