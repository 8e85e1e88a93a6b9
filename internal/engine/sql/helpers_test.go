package sql

import (
	"encoding/json"
	"testing"
)

// sliceSource is a Source over decoded documents, in slice order.
type sliceSource []*Document

func (s sliceSource) Scan(fn func(d *Document) bool) {
	for _, d := range s {
		if !fn(d) {
			return
		}
	}
}

func (s sliceSource) Len() int { return len(s) }

// docs decodes a JSON array of objects into a sliceSource.
func docs(t testing.TB, js string) sliceSource {
	t.Helper()
	if js == "" {
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		t.Fatalf("bad test documents: %v", err)
	}
	out := make(sliceSource, 0, len(raw))
	for _, r := range raw {
		var m map[string]any
		if err := json.Unmarshal(r, &m); err != nil {
			t.Fatalf("bad test document %s: %v", r, err)
		}
		out = append(out, &Document{Body: m, Size: len(r)})
	}
	return out
}

// canon re-encodes JSON so that semantically equal values compare equal as strings.
func canon(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var back any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	out, _ := json.Marshal(back)
	return string(out)
}

func canonJSON(t testing.TB, js string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("bad expected JSON %s: %v", js, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
