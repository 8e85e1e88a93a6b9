package main

import (
	"os"
	"testing"

	"github.com/cosmosdv/validate/internal/target/targettest"
)

// TestMain removes the Docker images this test process built (targettest's per-process tags).
func TestMain(m *testing.M) { os.Exit(targettest.Main(m)) }
