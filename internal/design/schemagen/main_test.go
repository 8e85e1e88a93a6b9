package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

const committed = "../../../schema/design.schema.json"

// TestSchemaUpToDate proves the committed schema is what the generator produces from the types.
// Regenerate with: go generate ./internal/design
func TestSchemaUpToDate(t *testing.T) {
	want, err := Generate("..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Fatalf("read committed schema: %v (regenerate with: go generate ./internal/design)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("schema/design.schema.json is stale; regenerate with: go generate ./internal/design")
	}
}

func TestGenerate_Shape(t *testing.T) {
	b, err := Generate("..")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Schema   string                     `json:"$schema"`
		Required []string                   `json:"required"`
		Defs     map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %q", s.Schema)
	}
	for _, want := range []string{"version", "name", "containers", "accessPatterns"} {
		found := false
		for _, r := range s.Required {
			found = found || r == want
		}
		if !found {
			t.Errorf("required lacks %q: %v", want, s.Required)
		}
	}
	for _, def := range []string{"Container", "Field", "AccessPattern", "PatchOp", "BatchOp"} {
		if _, ok := s.Defs[def]; !ok {
			t.Errorf("$defs lacks %s", def)
		}
	}
}
