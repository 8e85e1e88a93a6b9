// Package testenv decides what a test does when something it needs is missing. On a developer's
// machine it skips, saying why; under CI (CI=true) it fails, because .ci/run installs and checks
// everything the suite needs (Docker, the Python SDK) and a missing dependency there is a broken
// machine, not a reason to test less. .ci/allowed-skips lists the skips CI accepts.
package testenv

import (
	"os"
	"testing"
)

// CI reports whether the tests run under CI (the environment variable CI is "true", as GitHub
// Actions and most CI systems set it).
func CI() bool { return os.Getenv("CI") == "true" }

// Need skips t with reason, or fails it under CI. An empty reason means the need is met.
func Need(t testing.TB, reason string) {
	t.Helper()
	if reason == "" {
		return
	}
	if CI() {
		t.Fatalf("%s (CI=true: a missing dependency fails instead of skipping; .ci/run installs and checks it)", reason)
	}
	t.Skip(reason)
}
