package lint

import (
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

const base = `version: 1
name: t
app: {sdk: go}
containers:
  - name: C
    partitionKey: [/tenantId]
    throughput: {manual: 400}
    UNIQUE
    documents:
      - type: user
        count: 100
        fields:
          tenantId: {gen: code, prefix: t-, cardinality: 10}
          email: {gen: email, unique: true}
          createdAt: {gen: isoTime, from: 2025-01-01, to: 2026-01-01}
      - type: note
        count: 100
        fields:
          tenantId: {gen: code, prefix: t-, cardinality: 10}
          text: {gen: text, bytes: 200}
accessPatterns:
  - id: R1
    name: Read a user
    container: C
    op: read
    sample: user
    rps: {avg: 1}
    estimate: {ru: ESTIMATE}
  - id: Q1
    name: Newest users
    container: C
    op: query
    query: QUERY
    rps: {avg: 1}
    estimate: {ru: 3}
`

func check(t *testing.T, unique, estimate, query string) []Finding {
	t.Helper()
	src := strings.NewReplacer("UNIQUE", unique, "ESTIMATE", estimate, "QUERY", query).Replace(base)
	d, err := design.Parse([]byte(src), "t.yaml")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return Check(d)
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name                    string
		unique, estimate, query string
		wantCodes               []string
		wantLine                int
	}{
		{"clean", "", "1", "SELECT c.id FROM c WHERE c.email = 'x'", nil, 0},
		{"estimate below floor", "", "0.5", "SELECT c.id FROM c WHERE c.email = 'x'", []string{"estimate-below-floor"}, 28},
		{"cross-partition ORDER BY", "", "1", "SELECT * FROM c ORDER BY c.createdAt", []string{"cross-partition-shape"}, 33},
		{"cross-partition TOP", "", "1", "SELECT TOP 5 * FROM c", []string{"cross-partition-shape"}, 33},
		// The key pinned by WHERE names one logical partition: the gateway serves it (as the engine does).
		{"ORDER BY with the key in WHERE", "", "1", "SELECT * FROM c WHERE c.tenantId = 't-1' ORDER BY c.createdAt", nil, 0},
		{"ORDER BY with two keys in WHERE", "", "1", "SELECT * FROM c WHERE c.tenantId IN ('t-1', 't-2') ORDER BY c.createdAt", []string{"cross-partition-shape"}, 33},
		{"filter on an excluded path only", `indexing: {excluded: ["/text/?"]}`, "1", "SELECT c.id FROM c WHERE c.text = 'x'", []string{"query-scan"}, 33},
		{"excluded path next to an indexed filter", `indexing: {excluded: ["/text/?"]}`, "1", "SELECT c.id FROM c WHERE c.email = 'x' AND c.text = 'x'", nil, 0},
		{"unique key a type lacks", "uniqueKeys: [[/email]]", "1", "SELECT c.id FROM c WHERE c.email = 'x'", []string{"unique-key-missing"}, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := check(t, tc.unique, tc.estimate, tc.query)
			var codes []string
			for _, f := range got {
				codes = append(codes, f.Code)
				if !strings.HasPrefix(f.String(), "t.yaml:") {
					t.Errorf("finding does not point into the file: %s", f)
				}
			}
			if strings.Join(codes, ",") != strings.Join(tc.wantCodes, ",") {
				t.Fatalf("codes %v, want %v: %v", codes, tc.wantCodes, got)
			}
			if tc.wantLine > 0 && got[0].Pos.Line != tc.wantLine {
				t.Errorf("line %d, want %d: %s", got[0].Pos.Line, tc.wantLine, got[0])
			}
		})
	}
}

// TestCheck_KeyParamThatIsNotAScalar: a parameter drawn from an array field pins no key at run
// time (the engine refuses the query as cross-partition), so lint must not count it as pinning one.
func TestCheck_KeyParamThatIsNotAScalar(t *testing.T) {
	src := `version: 1
name: t
app: {sdk: go}
containers:
  - name: C
    partitionKey: [/tenantId]
    throughput: {manual: 400}
    documents:
      - type: user
        count: 10
        fields:
          tenantId: {gen: code, prefix: t-, cardinality: 3}
          tags: {array: {min: 1, max: 3}, of: {gen: word}}
          createdAt: {gen: isoTime, from: 2025-01-01, to: 2026-01-01}
accessPatterns:
  - id: Q1
    name: By tenant
    container: C
    op: query
    sample: user
    query: SELECT * FROM c WHERE c.tenantId = @t ORDER BY c.createdAt
    params: {"@t": "{PARAM}"}
    rps: {avg: 1}
    estimate: {ru: 3}
`
	// {tags} is also another field than the key it is compared with (partition-key-template).
	for param, want := range map[string]string{"tenantId": "", "tags": "cross-partition-shape,partition-key-template"} {
		d, err := design.Parse([]byte(strings.ReplaceAll(src, "PARAM", param)), "t.yaml")
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		var codes []string
		for _, f := range Check(d) {
			codes = append(codes, f.Code)
		}
		if got := strings.Join(codes, ","); got != want {
			t.Errorf("@t from {%s}: findings %q, want %q", param, got, want)
		}
	}
}

// TestCheck_AppSDK: only a Go application gets cross-partition shapes as findings; a design that
// names no SDK gets one note naming the key to set, and lint passes; any other SDK, nothing.
func TestCheck_AppSDK(t *testing.T) {
	src := strings.NewReplacer("UNIQUE", "", "ESTIMATE", "1", "QUERY", "SELECT TOP 5 * FROM c ORDER BY c.createdAt").Replace(base)
	src += `  - id: Q2
    name: Count users
    container: C
    op: query
    query: SELECT VALUE COUNT(1) FROM c
    rps: {avg: 1}
    estimate: {ru: 3}
`
	for sdk, want := range map[string]string{
		"go":     "cross-partition-shape,cross-partition-shape",
		"dotnet": "",
		"":       "app-sdk-unset",
	} {
		text := strings.Replace(src, "app: {sdk: go}\n", "", 1)
		if sdk != "" {
			text = strings.Replace(src, "sdk: go", "sdk: "+sdk, 1)
		}
		d, err := design.Parse([]byte(text), "t.yaml")
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		var codes []string
		for _, f := range Check(d) {
			codes = append(codes, f.Code)
			if f.Code == "app-sdk-unset" && (!f.Note || !strings.Contains(f.String(), "app: {sdk: go}")) {
				t.Errorf("the unset-SDK remark is a note naming the key: %s", f)
			}
		}
		if got := strings.Join(codes, ","); got != want {
			t.Errorf("app.sdk %q: findings %q, want %q", sdk, got, want)
		}
	}
	if _, err := design.Parse([]byte(strings.Replace(src, "sdk: go", "sdk: rust", 1)), "t.yaml"); err == nil || !strings.Contains(err.Error(), "app.sdk") {
		t.Errorf("app.sdk rust: want an error naming app.sdk, got %v", err)
	}
}
