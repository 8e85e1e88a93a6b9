package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSchema_DescribesReports checks the golden JSON reports against schema/report.schema.json with
// a small validator (type, const, enum, required, properties, items, $ref): every field the Go code
// writes must be documented there, so the schema cannot fall behind the code.
func TestSchema_DescribesReports(t *testing.T) {
	raw, err := os.ReadFile("../../schema/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("schema does not parse: %v", err)
	}
	for _, name := range []string{"embedded.json", "service.json", "placeholder.json", "nightly.json"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, e := range validate(schema, schema, doc, "$") {
			t.Errorf("%s: %s", name, e)
		}
	}
	// The validator itself must catch an undocumented field and a missing required one.
	bad := map[string]any{"schemaVersion": 1.0, "surprise": true}
	errs := strings.Join(validate(schema, schema, bad, "$"), "\n")
	if !strings.Contains(errs, "$.surprise: not in the schema") || !strings.Contains(errs, "missing required patterns") {
		t.Errorf("validator missed problems: %s", errs)
	}
}

func validate(root, s map[string]any, v any, path string) []string {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		def, ok := root["$defs"].(map[string]any)[name].(map[string]any)
		if !ok {
			return []string{path + ": unknown $ref " + ref}
		}
		return validate(root, def, v, path)
	}
	var errs []string
	if c, ok := s["const"]; ok && c != v {
		errs = append(errs, fmt.Sprintf("%s: %v, want %v", path, v, c))
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		errs = append(errs, fmt.Sprintf("%s: %v not in %v", path, v, enum))
	}
	if typ, ok := s["type"].(string); ok && !hasType(v, typ) {
		return append(errs, fmt.Sprintf("%s: %T is not %s", path, v, typ))
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := x[r.(string)]; !ok {
					errs = append(errs, fmt.Sprintf("%s: missing required %s", path, r))
				}
			}
		}
		if props != nil {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				ps, ok := props[k].(map[string]any)
				if !ok {
					errs = append(errs, fmt.Sprintf("%s.%s: not in the schema", path, k))
					continue
				}
				errs = append(errs, validate(root, ps, x[k], path+"."+k)...)
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, it := range x {
				errs = append(errs, validate(root, items, it, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return errs
}

func hasType(v any, typ string) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	}
	return true
}
