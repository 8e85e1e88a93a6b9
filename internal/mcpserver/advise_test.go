package mcpserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cosmosdv/validate/internal/advise"
	"github.com/cosmosdv/validate/internal/design"
)

// TestAdviseToolIsTheCLIAdvice: the MCP tool returns exactly the advice `validate advise --format
// json` prints for the same design.
func TestAdviseToolIsTheCLIAdvice(t *testing.T) {
	root := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "designs", "ecommerce.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "ecommerce.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, root)
	res, text := call(t, cs, "advise", map[string]any{"path": "ecommerce.yaml"})
	if res.IsError {
		t.Fatalf("advise: %s", text)
	}
	got, _ := json.Marshal(res.StructuredContent)

	d, err := design.Parse(data, "ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := advise.Advise(d, advise.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want, have any
	raw, _ := json.Marshal(a)
	_ = json.Unmarshal(raw, &want)
	_ = json.Unmarshal(got, &have)
	w, _ := json.Marshal(want)
	h, _ := json.Marshal(have)
	if string(w) != string(h) {
		t.Fatalf("the tool's advice differs from the CLI's:\ntool %s\ncli  %s", h, w)
	}
	if len(a.Recommended) == 0 {
		t.Fatal("ecommerce: no recommendation (its unqueried indexed paths should be)")
	}
}
