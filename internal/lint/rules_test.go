package lint

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

func codesOf(fs []Finding) string {
	var codes []string
	for _, f := range fs {
		codes = append(codes, f.Code)
	}
	return strings.Join(codes, ",")
}

func TestFindingString(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{File: "d.yaml", Pos: design.Pos{Line: 3, Col: 5}, Path: "containers[0]", Code: "x", Message: "m"}, "d.yaml:3:5: containers[0]: m [x]"},
		{Finding{File: "d.yaml", Pos: design.Pos{Line: 3}, Code: "x", Message: "m"}, "d.yaml:3:1: m [x]"},
		{Finding{File: "d.yaml", Code: "x", Message: "m"}, "d.yaml: m [x]"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

// TestCheck_CrossPartitionClauses: every clause the gateway cannot serve across partitions is
// named, and a hierarchical key prefix is no full key.
func TestCheck_CrossPartitionClauses(t *testing.T) {
	for query, want := range map[string]string{
		"SELECT * FROM c OFFSET 0 LIMIT 5":                      "OFFSET/LIMIT",
		"SELECT VALUE COUNT(1) FROM c":                          "aggregates",
		"SELECT DISTINCT c.email FROM c":                        "DISTINCT",
		"SELECT c.email, COUNT(1) AS n FROM c GROUP BY c.email": "aggregates, GROUP BY",
		"SELECT TOP 1 * FROM c ORDER BY c.createdAt":            "ORDER BY, TOP",
		"SELECT * FROM c WHERE c.email = 'x'":                   "",
	} {
		fs := check(t, "", "1", query)
		var msg string
		for _, f := range fs {
			if f.Code == "cross-partition-shape" {
				msg = f.Message
			}
		}
		switch {
		case want == "" && msg != "":
			t.Errorf("%s: flagged: %s", query, msg)
		case want != "" && !strings.Contains(msg, "uses "+want+":"):
			t.Errorf("%s: message %q, want it to name %s", query, msg, want)
		}
	}
}

const hierarchical = `version: 1
name: h
app: {sdk: go}
containers:
  - name: E
    partitionKey: [/tenantId, /deviceId]
    throughput: {manual: 400}
    documents:
      - type: event
        count: 100
        fields:
          tenantId: {gen: code, prefix: t-, cardinality: 3}
          deviceId: {gen: code, prefix: d-, cardinality: 10}
          ts: {gen: isoTime, from: 2025-01-01, to: 2026-01-01}
accessPatterns:
  - id: Q1
    name: Latest events
    container: E
    op: query
    sample: event
    query: QUERY
    params: PARAMS
    partitionKey: KEY
    rps: {avg: 1}
    estimate: {ru: 3}
`

func TestCheck_HierarchicalKey(t *testing.T) {
	for _, tc := range []struct {
		name, query, params, key, want string
	}{
		{"full key given", "SELECT * FROM c ORDER BY c.ts DESC", `{}`, `["{tenantId}", "{deviceId}"]`, ""},
		{"prefix given", "SELECT * FROM c WHERE c.tenantId = @t ORDER BY c.ts DESC", `{"@t": "{tenantId}"}`, `["{tenantId}"]`, "a partition-key prefix"},
		{"full key pinned by WHERE", "SELECT * FROM c WHERE c.tenantId = @t AND c.deviceId = @d ORDER BY c.ts DESC",
			`{"@t": "{tenantId}", "@d": "{deviceId}"}`, `[]`, ""},
		{"nothing given", "SELECT * FROM c ORDER BY c.ts DESC", `{}`, `[]`, "no partition key"},
	} {
		src := strings.NewReplacer("QUERY", tc.query, "PARAMS", tc.params, "KEY", tc.key).Replace(hierarchical)
		d, err := design.Parse([]byte(src), "h.yaml")
		if err != nil {
			t.Fatalf("%s: parse: %v", tc.name, err)
		}
		var msg string
		for _, f := range Check(d) {
			if f.Code == "cross-partition-shape" {
				msg = f.Message
				if f.Path != "accessPatterns[0].query" || f.Pos.Line != 21 {
					t.Errorf("%s: points at %s line %d, want accessPatterns[0].query line 21", tc.name, f.Path, f.Pos.Line)
				}
			}
		}
		if (tc.want == "") != (msg == "") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: message %q, want one with %q", tc.name, msg, tc.want)
		}
	}
}

// TestCheck_QuerySyntax: a query the language cannot parse is a finding of its own, not a crash.
func TestCheck_QuerySyntax(t *testing.T) {
	d, err := design.Parse([]byte(strings.NewReplacer("UNIQUE", "", "ESTIMATE", "1", "QUERY", "SELECT c.id FROM c").Replace(base)), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d.AccessPatterns[1].Query = "SELECT FROM WHERE"
	fs := Check(d)
	if got := codesOf(fs); !strings.Contains(got, "query-syntax") {
		t.Fatalf("codes %q, want query-syntax", got)
	}
}

// TestCheck_UniqueKeys: a type that generates the property (or the id) is fine; one that lacks it
// or generates it only sometimes is flagged once per type, at the unique key.
func TestCheck_UniqueKeys(t *testing.T) {
	src := `version: 1
name: u
containers:
  - name: C
    partitionKey: [/tenantId]
    throughput: {manual: 400}
    uniqueKeys: [[UNIQUE]]
    documents:
      - type: user
        count: 10
        fields:
          tenantId: {gen: code, prefix: t-, cardinality: 3}
          email: {gen: email, unique: true}
          address: {object: {zip: {gen: code, prefix: z, cardinality: 9}}}
      - type: guest
        count: 10
        fields:
          tenantId: {gen: code, prefix: t-, cardinality: 3}
          email: {gen: email, unique: true, optional: 0.5}
accessPatterns:
  - id: R1
    name: Read a user
    container: C
    op: read
    sample: user
    rps: {avg: 1}
    estimate: {ru: 1}
`
	for unique, want := range map[string][]string{
		"/id":          nil,
		"/email":       {"guest"},
		"/address/zip": {"guest"},
		// No type has it: an unknown field (fieldPaths, with did-you-mean), not a missing value per type.
		"/phone": nil,
	} {
		d, err := design.Parse([]byte(strings.ReplaceAll(src, "UNIQUE", unique)), "u.yaml")
		if err != nil {
			t.Fatalf("%s: parse: %v", unique, err)
		}
		var types []string
		unknown := false
		for _, f := range Check(d) {
			unknown = unknown || f.Code == "unknown-field"
			if f.Code != "unique-key-missing" {
				continue
			}
			if f.Path != "containers[0].uniqueKeys[0]" {
				t.Errorf("%s: path %s", unique, f.Path)
			}
			types = append(types, strings.Split(f.Message, `"`)[1])
		}
		if strings.Join(types, ",") != strings.Join(want, ",") {
			t.Errorf("unique key %s: flagged types %v, want %v", unique, types, want)
		}
		if unknown != (unique == "/phone") {
			t.Errorf("unique key %s: unknown-field finding %v", unique, unknown)
		}
	}
}

// TestCheck_PlanWarningsPointAtTheirField: plan warnings that are design mistakes point at the
// container or the pattern's estimate; rough static disagreements are left to validate plan.
func TestCheck_PlanWarningsPointAtTheirField(t *testing.T) {
	d, err := design.Parse([]byte(strings.NewReplacer("UNIQUE", "", "ESTIMATE", "0.5", "QUERY", "SELECT c.id FROM c WHERE c.email = 'x'").Replace(base)), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d.Containers[0].Throughput.Manual = 400
	d.AccessPatterns[0].RPS.Avg, d.AccessPatterns[0].RPS.Peak = 5000, 5000
	fs := Check(d)
	paths := map[string]string{}
	for _, f := range fs {
		paths[f.Code] = f.Path
		if f.Code == "estimate-off" || f.Code == "seed-plan" || f.Code == "indexing-policy" {
			t.Errorf("a rough plan warning reached lint: %s", f)
		}
	}
	if paths["throughput-short"] != "containers[0]" || paths["estimate-below-floor"] != "accessPatterns[0].estimate" {
		t.Errorf("paths %v; want throughput-short at containers[0], estimate-below-floor at accessPatterns[0].estimate", paths)
	}
	for i := 1; i < len(fs); i++ {
		if a, b := fs[i-1].Pos, fs[i].Pos; a.Line > b.Line || (a.Line == b.Line && a.Col > b.Col) {
			t.Errorf("findings not sorted by position: %s before %s", fs[i-1], fs[i])
		}
	}
}

// TestAdd_FallsBackToTheParentPosition: a path without a recorded position points at its nearest
// recorded parent.
func TestAdd_FallsBackToTheParentPosition(t *testing.T) {
	d := &design.Design{File: "d.yaml", Positions: map[string]design.Pos{"accessPatterns[2]": {Line: 40, Col: 5}}}
	l := &linter{d: d}
	l.add("accessPatterns[2].query.where", "x", "m")
	l.add("nowhere.at.all", "y", "m")
	if got := l.out[0].Pos; got.Line != 40 {
		t.Errorf("fallback position %+v, want line 40", got)
	}
	if got := l.out[1].Pos; got.Line != 0 {
		t.Errorf("unknown path position %+v, want none", got)
	}
}

func TestScalarParams(t *testing.T) {
	c := &design.Container{Documents: []design.DocType{{Type: "user", Fields: design.Fields{
		{Name: "tenantId", Field: design.Field{Gen: "code"}},
		{Name: "tags", Field: design.Field{Array: &design.ArraySpec{Min: 1, Max: 2}}},
		{Name: "address", Field: design.Field{Object: design.Fields{{Name: "zip", Field: design.Field{Gen: "code"}}}}},
	}}}}
	ap := &design.AccessPattern{Sample: "user", Params: map[string]any{
		"@t": "{tenantId}", "@tags": "{tags}", "@a": "{address}", "@zip": "{address.zip}", "@lit": "x-{tenantId}", "@n": 3.0,
	}}
	got := scalarParams(c, ap)
	for k, want := range map[string]any{"@t": "{tenantId}", "@zip": "{address.zip}", "@lit": "x-{tenantId}", "@n": 3.0} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v (a scalar stays)", k, got[k], want)
		}
	}
	for _, k := range []string{"@tags", "@a"} {
		if v, ok := got[k].([]any); !ok || len(v) != 0 {
			t.Errorf("%s = %v, want an empty array (not a scalar)", k, got[k])
		}
	}
	if out := scalarParams(c, &design.AccessPattern{Sample: "ghost", Params: ap.Params}); len(out) != len(ap.Params) || out["@tags"] != "{tags}" {
		t.Errorf("unknown sample type: params changed: %v", out)
	}
}

// TestCheck_ScaleStorageSplitByProductionBytes: every type states its production count and
// scale.storageGB is their total: lint finds no scale-storage mistake, though the seeded volumes
// split the storage in another proportion (two containers, one seeded large and small in
// production).
func TestCheck_ScaleStorageSplitByProductionBytes(t *testing.T) {
	y := `version: 1
name: split
scale: {storageGB: 23}
containers:
  - name: Big
    partitionKey: [/id]
    documents:
      - type: doc
        count: 100
        production: 10000000
        fields:
          body: {gen: text, bytes: 2000}
  - name: Small
    partitionKey: [/id]
    documents:
      - type: note
        count: 2000
        production: 1000
        fields:
          body: {gen: text, bytes: 2000}
accessPatterns:
  - {id: AP1, name: read, container: Big, op: read, sample: doc, rps: {avg: 1}, estimate: {ru: 1.5}}
`
	d, err := design.Parse([]byte(y), "split.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Check(d) {
		if f.Code == "scale-storage" {
			t.Errorf("false finding: %s", f)
		}
	}
}

// TestCheck_ScaleStoragePartialCounts: only Big states its production count; scale.storageGB is
// filled by it first and Small takes the rest by its seeded bytes, so there is no finding (split by
// seeded bytes, Big's 50 seeded documents would get about 6 of the 230 GB and its ten million
// stated ones, 23 GB, would be "wrong"). With a figure Big alone overfills, the finding is at
// scale.storageGB and says which type to give a count.
func TestCheck_ScaleStoragePartialCounts(t *testing.T) {
	y := `version: 1
name: split
scale: {storageGB: 230}
containers:
  - name: Big
    partitionKey: [/id]
    documents:
      - type: doc
        count: 50
        production: 10000000
        fields:
          body: {gen: text, bytes: 2000}
  - name: Small
    partitionKey: [/id]
    documents:
      - type: note
        count: 2000
        fields:
          body: {gen: text, bytes: 2000}
accessPatterns:
  - {id: AP1, name: read, container: Big, op: read, sample: doc, rps: {avg: 1}, estimate: {ru: 1.5}}
`
	d, err := design.Parse([]byte(y), "split.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Check(d) {
		if f.Code == "scale-storage" {
			t.Errorf("false finding: %s", f)
		}
	}
	d, err = design.Parse([]byte(strings.Replace(y, "storageGB: 230", "storageGB: 20", 1)), "split.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range Check(d) {
		if f.Code == "scale-storage" {
			got = append(got, f.String())
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "split.yaml:3:") || !strings.Contains(got[0], "State `production` for note") {
		t.Errorf("findings %q: want one at scale.storageGB (line 3) asking for note's production count", got)
	}
}
