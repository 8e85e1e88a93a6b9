package design

import (
	"reflect"
	"testing"
)

func TestSplitPathAndKeyPaths(t *testing.T) {
	for in, want := range map[string][]string{"": nil, "/": nil, "/a": {"a"}, "/a/b": {"a", "b"}, "a/b": {"a", "b"}} {
		if got := SplitPath(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitPath(%q) = %q, want %q", in, got, want)
		}
	}
	c := &Container{PartitionKey: []string{"/tenantId", "/address/city"}}
	if got, want := c.KeyPaths(), [][]string{{"tenantId"}, {"address", "city"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("KeyPaths = %q, want %q", got, want)
	}
}

func TestWrittenType(t *testing.T) {
	p := &AccessPattern{Sample: "order"}
	if got := p.WrittenType(); got != "order" {
		t.Errorf("WrittenType without document = %q", got)
	}
	p.Document = "item"
	if got := p.WrittenType(); got != "item" {
		t.Errorf("WrittenType with document = %q", got)
	}
	if got := p.BatchWrittenType(&BatchOp{}); got != "order" {
		t.Errorf("BatchWrittenType without document = %q", got)
	}
	if got := p.BatchWrittenType(&BatchOp{Document: "line"}); got != "line" {
		t.Errorf("BatchWrittenType with document = %q", got)
	}
}
