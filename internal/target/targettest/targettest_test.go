package targettest

import "testing"

// TestDockerReachable is .ci/run's check that the Docker engine answers, through the same client
// the suite's Docker tests use; under CI=true it fails instead of skipping.
func TestDockerReachable(t *testing.T) {
	RequireDocker(t)
}
