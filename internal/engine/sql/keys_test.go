package sql

import (
	"reflect"
	"testing"
)

func TestSingleKey(t *testing.T) {
	paths := [][]string{{"tenantId"}, {"userId"}}
	tests := []struct {
		query  string
		params map[string]any
		want   []any // nil: not a single key
	}{
		{"SELECT * FROM c WHERE c.tenantId = 't' AND c.userId = @u", map[string]any{"@u": "{userId}"}, []any{"t", "{userId}"}},
		{"SELECT * FROM c WHERE c.userId = 2 AND c.tenantId = @t", map[string]any{"@t": 1}, []any{1.0, 2.0}},
		{"SELECT * FROM c WHERE c.tenantId IN ('t') AND c.userId = 'u'", nil, []any{"t", "u"}},
		{"SELECT * FROM c WHERE c.tenantId = 't'", nil, nil},                                         // a prefix
		{"SELECT * FROM c WHERE c.tenantId IN ('t', 's') AND c.userId = 'u'", nil, nil},              // two keys
		{"SELECT * FROM c WHERE c.tenantId = 't' OR c.userId = 'u'", nil, nil},                       // not AND-ed
		{"SELECT * FROM c WHERE c.tenantId = 't' AND c.tenantId = 's' AND c.userId = 'u'", nil, nil}, // contradiction
		{"SELECT * FROM c WHERE c.tenantId = @missing AND c.userId = 'u'", nil, nil},
		{"SELECT * FROM c", nil, nil},
	}
	for _, tt := range tests {
		q, err := Parse(tt.query)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		got, ok := q.SingleKey(paths, tt.params)
		if ok != (tt.want != nil) || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: SingleKey = %v, %v; want %v", tt.query, got, ok, tt.want)
		}
	}
}
