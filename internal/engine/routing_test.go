package engine

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/cosmosdv/validate/internal/engine/sql"
)

func TestQuery_KeyEqualities(t *testing.T) {
	paths := [][]string{{"tenantId"}, {"userId"}, {"address", "city"}}
	tests := []struct {
		name   string
		query  string
		params map[string]any
		want   [][]any
	}{
		{"no where", "SELECT * FROM c", nil, [][]any{nil, nil, nil}},
		{"literal", "SELECT * FROM c WHERE c.tenantId = 't1'", nil, [][]any{{"t1"}, nil, nil}},
		{"reversed", "SELECT * FROM c WHERE 't1' = c.tenantId", nil, [][]any{{"t1"}, nil, nil}},
		{"param", "SELECT * FROM c WHERE c.tenantId = @t AND c.userId = @u", map[string]any{"@t": "t1", "@u": 7.0},
			[][]any{{"t1"}, {7.0}, nil}},
		{"negative number", "SELECT * FROM c WHERE c.userId = -3", nil, [][]any{nil, {-3.0}, nil}},
		{"nested path", "SELECT * FROM c WHERE c.address.city = 'Oslo'", nil, [][]any{nil, nil, {"Oslo"}}},
		{"other alias", "SELECT * FROM orders o WHERE o.tenantId = null", nil, [][]any{{nil}, nil, nil}},
		{"in list", "SELECT * FROM c WHERE c.tenantId IN ('a', 'b', 'a')", nil, [][]any{{"a", "b"}, nil, nil}},
		{"intersection", "SELECT * FROM c WHERE c.tenantId IN ('a', 'b') AND c.tenantId = 'b'", nil, [][]any{{"b"}, nil, nil}},
		{"contradiction", "SELECT * FROM c WHERE c.tenantId = 'a' AND c.tenantId = 'b'", nil, [][]any{{}, nil, nil}},
		{"or does not pin", "SELECT * FROM c WHERE c.tenantId = 'a' OR c.tenantId = 'b'", nil, [][]any{nil, nil, nil}},
		{"range does not pin", "SELECT * FROM c WHERE c.tenantId > 'a'", nil, [][]any{nil, nil, nil}},
		{"not in does not pin", "SELECT * FROM c WHERE c.tenantId NOT IN ('a')", nil, [][]any{nil, nil, nil}},
		{"missing param", "SELECT * FROM c WHERE c.tenantId = @nope", nil, [][]any{nil, nil, nil}},
		{"object constant", "SELECT * FROM c WHERE c.tenantId = {\"a\": 1}", nil, [][]any{nil, nil, nil}},
		{"two paths compared", "SELECT * FROM c WHERE c.tenantId = c.userId", nil, [][]any{nil, nil, nil}},
		{"function around path", "SELECT * FROM c WHERE LOWER(c.tenantId) = 'a'", nil, [][]any{nil, nil, nil}},
		{"nested in subquery only", "SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'x')", nil, [][]any{nil, nil, nil}},
		{"among other filters", "SELECT * FROM c WHERE c.n > 3 AND c.tenantId = 't' AND c.userId IN (1, 2)", nil, [][]any{{"t"}, {1.0, 2.0}, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := sql.Parse(tt.query)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			got := q.KeyEqualities(paths, tt.params)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("KeyEqualities = %#v, want %#v", got, tt.want)
			}
		})
	}
}

// testContainer builds a container with n partitions without a server.
func testContainer(t *testing.T, kind string, paths []string, n int) *container {
	t.Helper()
	raw := map[string]any{"kind": kind, "paths": toAny(paths), "version": 2.0}
	pk, err := parsePKDef(raw)
	if err != nil {
		t.Fatal(err)
	}
	c := &container{pk: pk}
	newPartitions(c, n)
	return c
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func ids(parts []*partition) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.id
	}
	return out
}

func TestContainer_RouteByWhere(t *testing.T) {
	hier := testContainer(t, kindMultiHash, []string{"/tenantId", "/userId"}, 8)
	single := testContainer(t, kindHash, []string{"/pk"}, 8)
	owner := func(c *container, vals ...any) string {
		return c.partitionFor(effectivePartitionKey(c.pk.Kind, c.pk.Version, vals)).id
	}
	prefix := func(c *container, vals ...any) []string {
		lo := effectivePartitionKey(c.pk.Kind, c.pk.Version, vals)
		return ids(c.partitionsOverlapping(lo, lo+"FF"))
	}
	all := ids(hier.parts)
	// Two Hash keys that land on different ranges, found by search so the test does not depend on
	// particular hash values.
	var k1, k2 string
	for i := 0; k2 == ""; i++ {
		k := fmt.Sprintf("k%d", i)
		switch {
		case k1 == "":
			k1 = k
		case owner(single, k) != owner(single, k1):
			k2 = k
		}
	}
	pair := []string{owner(single, k1), owner(single, k2)}
	if pair[0] > pair[1] {
		pair[0], pair[1] = pair[1], pair[0]
	}
	tests := []struct {
		name  string
		c     *container
		query string
		want  []string
	}{
		{"no filter fans out", hier, "SELECT * FROM c", all},
		{"full hierarchical key", hier, "SELECT * FROM c WHERE c.tenantId = 't1' AND c.userId = 'u1'", []string{owner(hier, "t1", "u1")}},
		{"prefix", hier, "SELECT * FROM c WHERE c.tenantId = 't1'", prefix(hier, "t1")},
		{"second level alone fans out", hier, "SELECT * FROM c WHERE c.userId = 'u1'", all},
		{"hash key", single, "SELECT * FROM c WHERE c.pk = '" + k1 + "'", []string{owner(single, k1)}},
		{"hash IN list", single, "SELECT * FROM c WHERE c.pk IN ('" + k1 + "', '" + k2 + "')", pair},
		{"contradiction reads one range", single, "SELECT * FROM c WHERE c.pk = 'a' AND c.pk = 'b'", []string{"0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := sql.Parse(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(tt.c.routeByWhere(q, nil)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("routed to %v, want %v", got, tt.want)
			}
		})
	}
	if got := prefix(hier, "t1"); len(got) != 1 {
		t.Errorf("a one-level prefix spans %v; the range bounds split on the first level only", got)
	}
}

func TestParsePKHeader_FastPathAgrees(t *testing.T) {
	tests := []struct {
		header string
		want   []any
		canon  string
	}{
		{`["abc"]`, []any{"abc"}, `["abc"]`},
		{`["a\"b"]`, []any{`a"b`}, `["a\"b"]`},
		{`["<x>&"]`, []any{"<x>&"}, `["\u003cx\u003e\u0026"]`},
		{`["é"]`, []any{"é"}, `["é"]`},
		{`["a\\"]`, []any{`a\`}, `["a\\"]`},
		{`["t1","u1"]`, []any{"t1", "u1"}, `["t1","u1"]`},
		{`[1]`, []any{1.0}, `[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			got, ok, err := parsePKHeader(tt.header)
			if err != nil || !ok || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("parsePKHeader = %#v, %v, %v; want %#v", got, ok, err, tt.want)
			}
			if c := canonicalPK(got); c != tt.canon {
				t.Errorf("canonicalPK = %s, want %s", c, tt.canon)
			}
		})
	}
}
