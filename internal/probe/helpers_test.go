package probe

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

func TestResolve(t *testing.T) {
	doc := map[string]any{"id": "u1", "n": 3.0, "addr": map[string]any{"city": "Oslo"}}
	tests := []struct {
		name    string
		tmpl    any
		want    any
		wantErr bool
	}{
		{"typed value", "{n}", 3.0, false},
		{"interpolated", "{id}-{addr.city}", "u1-Oslo", false},
		{"literal", 42, 42, false},
		{"plain string", "abc", "abc", false},
		{"missing", "{nope}", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolve(tc.tmpl, doc)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	d := &design.Design{File: "d.yaml", Containers: []design.Container{{Name: "Orders", PartitionKey: []string{"/tenantId", "/userId"}}}}
	c := &d.Containers[0]
	tests := []struct {
		name   string
		ap     design.AccessPattern
		status int
		msg    string
		want   string
	}{
		{"cross-partition order by", design.AccessPattern{Op: "query", Query: "SELECT * FROM c ORDER BY c.ts"}, 400,
			"Cross partition query with ORDER BY is not supported", "query engine"},
		{"missing composite", design.AccessPattern{Op: "query", PartitionKey: []string{"{a}", "{b}"},
			Query: "SELECT * FROM c WHERE c.tenantId = @t ORDER BY c.status ASC, c.ts DESC"}, 400,
			"The order by query does not have a corresponding composite index that it can be served from.",
			`add to containers[0]: indexing: {composite: [[{path: /status, order: asc}, {path: /ts, order: desc}]]}`},
		{"syntax", design.AccessPattern{Op: "query", PartitionKey: []string{"{a}", "{b}"},
			Query: "SELECT * FROM c WHERE c.tenantId == @t"}, 400, "Syntax error, incorrect syntax near '='.",
			"d.yaml: accessPatterns[-1].query: Syntax error, incorrect syntax near '='."},
		{"not found", design.AccessPattern{Op: "read"}, 404, "", "itemId"},
		{"throttled", design.AccessPattern{Op: "read"}, 429, "", "throttled"},
		{"condition", design.AccessPattern{Op: "patch", Condition: "FROM c WHERE c.s = 'x'"}, 412, "", "FROM c WHERE c.s = 'x'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := explain(d, &tc.ap, c, tc.status, tc.msg); !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

func TestMetricsDecoding(t *testing.T) {
	acc := map[string]float64{}
	AddQueryMetrics(acc, "totalExecutionTimeInMs=0.50;retrievedDocumentCount=3;bad;x=y")
	AddQueryMetrics(acc, "totalExecutionTimeInMs=0.25;retrievedDocumentCount=2")
	if acc["totalExecutionTimeInMs"] != 0.75 || acc["retrievedDocumentCount"] != 5 || len(acc) != 2 {
		t.Fatalf("query metrics: %v", acc)
	}
	raw := `{"UtilizedSingleIndexes":[{"FilterExpression":"","IndexSpec":"/userId/?","IndexImpactScore":"High"}],` +
		`"PotentialSingleIndexes":[],"UtilizedCompositeIndexes":[],` +
		`"PotentialCompositeIndexes":[{"IndexSpecs":["/userId ASC","/ts DESC"],"IndexImpactScore":"High"}]}`
	im := decodeIndexMetrics(base64.StdEncoding.EncodeToString([]byte(raw)))
	want := &record.IndexMetrics{UtilizedSingle: []string{"/userId/?"}, PotentialComposite: [][]string{{"/userId ASC", "/ts DESC"}}}
	if !reflect.DeepEqual(im, want) {
		t.Fatalf("index metrics: %+v", im)
	}
	if decodeIndexMetrics("not json") != nil {
		t.Fatal("garbage decoded")
	}
	merged := mergeIndexMetrics(im, &record.IndexMetrics{UtilizedSingle: []string{"/userId/?", "/ts/?"}})
	if !reflect.DeepEqual(merged.UtilizedSingle, []string{"/userId/?", "/ts/?"}) {
		t.Fatalf("merge: %v", merged.UtilizedSingle)
	}
}
