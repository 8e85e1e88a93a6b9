package sarif

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// TestBuild_FollowsTheSchema holds the log to SARIF 2.1.0's schema for every object it writes
// (sarif-schema-2.1.0.json: the properties each object allows, the required ones, the level and
// suppression enums, line and column minimums of 1, ruleIndex pointing into the driver's rules) and
// to what code scanning reads: a relative uri under %SRCROOT% with the finding's line and column.
func TestBuild_FollowsTheSchema(t *testing.T) {
	log := Build("v1.2.3", "https://example.test/rules", []Finding{
		{Rule: "hpk-order", Level: LevelError, Message: "order the levels", File: "./designs/payments.yaml", Line: 12, Col: 5, Path: "containers[0].partitionKey"},
		{Rule: "ttl-zero", Level: LevelNote, Message: "a remark", File: "designs/payments.yaml"},
		{Rule: "hpk-order", Level: LevelError, Message: "accepted", File: "designs/other.yaml", Line: 3, Col: 1, Waived: "deliberate (owner @team, until 2030-01-01)"},
	})
	var buf bytes.Buffer
	if err := log.Write(&buf); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// The properties the schema allows (and requires) for each object this package writes.
	type object struct{ allowed, required []string }
	objects := map[string]object{
		"log":              {[]string{"$schema", "version", "runs", "inlineExternalProperties", "properties"}, []string{"version", "runs"}},
		"run":              {[]string{"tool", "results", "artifacts", "invocations", "originalUriBaseIds", "properties"}, []string{"tool"}},
		"tool":             {[]string{"driver", "extensions", "properties"}, []string{"driver"}},
		"driver":           {[]string{"name", "version", "informationUri", "rules", "semanticVersion", "properties"}, []string{"name"}},
		"rule":             {[]string{"id", "shortDescription", "fullDescription", "helpUri", "help", "properties"}, []string{"id"}},
		"message":          {[]string{"text", "markdown", "id", "arguments", "properties"}, nil},
		"result":           {[]string{"ruleId", "ruleIndex", "level", "message", "locations", "suppressions", "partialFingerprints", "properties"}, []string{"message"}},
		"location":         {[]string{"physicalLocation", "id", "message", "properties"}, nil},
		"physicalLocation": {[]string{"artifactLocation", "region", "properties"}, nil},
		"artifactLocation": {[]string{"uri", "uriBaseId", "index", "properties"}, nil},
		"region":           {[]string{"startLine", "startColumn", "endLine", "endColumn", "properties"}, nil},
		"suppression":      {[]string{"kind", "status", "justification", "properties"}, []string{"kind"}},
	}
	check := func(kind string, v any) map[string]any {
		t.Helper()
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: %T, want an object", kind, v)
		}
		o := objects[kind]
		for k := range m {
			if !slices.Contains(o.allowed, k) {
				t.Errorf("%s: property %q is not in the schema", kind, k)
			}
		}
		for _, k := range o.required {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: required %q missing", kind, k)
			}
		}
		return m
	}
	root := check("log", doc)
	if root["version"] != "2.1.0" {
		t.Errorf("version %v", root["version"])
	}
	runs := root["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	run := check("run", runs[0])
	driver := check("driver", check("tool", run["tool"])["driver"])
	var ruleIDs []string
	for _, r := range driver["rules"].([]any) {
		rm := check("rule", r)
		check("message", rm["shortDescription"])
		ruleIDs = append(ruleIDs, rm["id"].(string))
	}
	if !slices.Equal(ruleIDs, []string{"hpk-order", "ttl-zero"}) {
		t.Errorf("rules %v, want each code once, sorted", ruleIDs)
	}
	results := run["results"].([]any)
	if len(results) != 3 {
		t.Fatalf("%d results, want 3", len(results))
	}
	for i, r := range results {
		rm := check("result", r)
		check("message", rm["message"])
		if idx := int(rm["ruleIndex"].(float64)); idx < 0 || idx >= len(ruleIDs) || ruleIDs[idx] != rm["ruleId"] {
			t.Errorf("result %d: ruleIndex %d does not name %v", i, idx, rm["ruleId"])
		}
		if !slices.Contains([]string{"none", "note", "warning", "error"}, rm["level"].(string)) {
			t.Errorf("result %d: level %v", i, rm["level"])
		}
		for _, l := range rm["locations"].([]any) {
			pl := check("physicalLocation", check("location", l)["physicalLocation"])
			al := check("artifactLocation", pl["artifactLocation"])
			if al["uriBaseId"] != "%SRCROOT%" || al["uri"] == "" || al["uri"].(string)[0] == '.' {
				t.Errorf("result %d: artifact %v, want a relative uri under %%SRCROOT%%", i, al)
			}
			if reg, ok := pl["region"]; ok {
				rg := check("region", reg)
				if rg["startLine"].(float64) < 1 || rg["startColumn"].(float64) < 1 {
					t.Errorf("result %d: region %v below 1", i, rg)
				}
			}
		}
		sups, _ := rm["suppressions"].([]any)
		for _, s := range sups {
			sm := check("suppression", s)
			if sm["kind"] != "external" || sm["status"] != "accepted" || sm["justification"] == "" {
				t.Errorf("result %d: suppression %v", i, sm)
			}
		}
	}
	first := results[0].(map[string]any)
	loc := first["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
	if uri := loc["artifactLocation"].(map[string]any)["uri"]; uri != "designs/payments.yaml" {
		t.Errorf("uri %v, want designs/payments.yaml", uri)
	}
	if reg := loc["region"].(map[string]any); reg["startLine"] != 12.0 || reg["startColumn"] != 5.0 {
		t.Errorf("region %v, want 12:5", reg)
	}
	if _, ok := results[1].(map[string]any)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["region"]; ok {
		t.Error("a finding without a position has no region")
	}
	if _, ok := results[0].(map[string]any)["suppressions"]; ok {
		t.Error("an unwaived finding has no suppression")
	}
}
