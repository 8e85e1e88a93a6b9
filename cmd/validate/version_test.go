package main

import (
	"runtime/debug"
	"testing"
)

// TestBuildVersion: a build is never "dev" when it carries a version: -ldflags wins, then the module
// version `go install …@v1.2.3` stamps, then the checkout's VCS revision (with +dirty); "dev" only
// when there is none of these.
func TestBuildVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name    string
		ldflags string
		bi      *debug.BuildInfo
		want    string
	}{
		{"ldflags", "v1.4.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}}, "v1.4.0"},
		{"go install from a tag", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}}, "v1.3.0"},
		{"go build in a checkout (Go 1.24+ pseudo-version)", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128174000-0ddd0a6c1d2e+dirty"}}, "v0.0.0-20261128174000-0ddd0a6c1d2e+dirty"},
		{"devel with a clean revision", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0ddd0a6c1d2e4f5a6b7c8d9e0f1a2b3c4d5e6f7a", "false")}, "0ddd0a6c1d2e"},
		{"devel with local changes", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0ddd0a6c1d2e4f5a6b7c8d9e0f1a2b3c4d5e6f7a", "true")}, "0ddd0a6c1d2e+dirty"},
		{"nothing recorded", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no build information", "", nil, "dev"},
	}
	for _, tc := range tests {
		if got := buildVersion(tc.ldflags, tc.bi); got != tc.want {
			t.Errorf("%s: buildVersion = %q, want %q", tc.name, got, tc.want)
		}
	}
}
