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
