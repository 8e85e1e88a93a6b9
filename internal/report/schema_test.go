package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/record"
)

// TestSchema_DescribesReports checks the golden JSON reports against schema/report.schema.json with
// a small validator (type, const, enum, required, properties, items, $ref): every field the Go code
// writes must be documented there, so the schema cannot fall behind the code.
func TestSchema_DescribesReports(t *testing.T) {
	schema := reportSchema(t)
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

// TestSchema_DescribesLoadBands: the bands of a container's production load and of its monthly cost
// (docs/cost-model.md, "Rules with alternatives and the band") are in the schema; the golden reports
// have none, their designs resting on no unpinned rule.
func TestSchema_DescribesLoadBands(t *testing.T) {
	schema := reportSchema(t)
	r := record.NewRange(139, 52025, []string{"aggregate-without-filter"}, fmtRate)
	usdRange := record.NewRange(12.31, 3112.85, []string{"aggregate-without-filter"}, fmtRate)
	defs := schema["$defs"].(map[string]any)
	for name, v := range map[string]any{
		"load": Load{Source: "model", Avg: 1, Peak: 1, ProductionAvg: 16404, ProductionPeak: 16404, Scale: VerdictOnProjected, AvgBand: r, PeakBand: r},
		"monthlyCost": MonthlyCost{Currency: "USD", RateCard: "x", DesignedUSD: 23.49, RequiredUSD: 981.25, DesignedBand: usdRange, RequiredBand: usdRange,
			Containers: []ContainerCost{{Name: "Events", Source: "model", Scale: VerdictOnProjected, Designed: "manual 400", Formula: "f", RequiredBand: usdRange, DesignedBand: usdRange}}},
	} {
		data, _ := json.Marshal(v)
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "Band") {
			t.Fatalf("%s: no band written: %s", name, data)
		}
		for _, e := range validate(schema, defs[name].(map[string]any), doc, "$."+name) {
			t.Errorf("%s", e)
		}
	}
}

// reportSchema is schema/report.schema.json, parsed.
func reportSchema(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("../../schema/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("schema does not parse: %v", err)
	}
	return schema
}
