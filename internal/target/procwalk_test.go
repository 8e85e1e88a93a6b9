package target

import (
	"os"
	"regexp"
	"testing"

	"github.com/testcontainers/testcontainers-go"
)

// TestProcWalkSkipped: testcontainers-go's session id is random (bootstrap did not find its parent
// process by walking /proc; a found parent gives a 64-hex sha256) and HOST_PROC is as it was.
func TestProcWalkSkipped(t *testing.T) {
	if v, ok := os.LookupEnv("HOST_PROC"); ok && v == "/nonexistent/validate-skips-proc-walk" {
		t.Fatalf("HOST_PROC=%q left set after start-up: procwalk.Restore did not run", v)
	} else if ok {
		t.Skipf("HOST_PROC=%q set by the environment: the walk is the user's choice", v)
	}
	id := testcontainers.SessionID()
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("testcontainers session id %q: want a random UUID (the /proc walk was not skipped)", id)
	}
}
