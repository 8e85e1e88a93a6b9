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

// rawDocs is docs with each document given as its JSON (Document.Raw), as the engine gives them.
func rawDocs(t testing.TB, js string) sliceSource {
	t.Helper()
	out := docs(t, js)
	for i, d := range out {
		b, err := json.Marshal(d.Body)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = &Document{Raw: b, Size: d.Size}
	}
	return out
}

// sent are res's items as a caller sends them: a stored document returned whole as its Raw JSON.
func sent(res *Result) []any {
	out := make([]any, len(res.Items))
	for i, it := range res.Items {
		out[i] = it
		if res.Stored != nil && res.Stored[i] != nil && res.Stored[i].Raw != nil {
			out[i] = json.RawMessage(res.Stored[i].Raw)
		}
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
