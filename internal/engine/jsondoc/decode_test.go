package jsondoc

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// same reports whether Decode and encoding/json agree on b: both fail, or both give equal values.
func same(t *testing.T, b []byte) {
	t.Helper()
	var want any
	wantErr := json.Unmarshal(b, &want)
	got, err := Decode(b)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: Decode error %v, encoding/json error %v", b, err, wantErr)
	}
	if err == nil && !equal(got, want) {
		t.Fatalf("%q: Decode gives %#v, encoding/json %#v", b, got, want)
	}
}

// equal is reflect.DeepEqual that also tells -0 from 0, as the engine's output does.
func equal(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && x == y && math.Signbit(x) == math.Signbit(y)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

var cases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `-0.0`, `1`, `-1`, `123456789012345`, `1234567890123456789`,
	`1.5`, `1e3`, `1E-3`, `-1.25e+10`, `1e400`, `-1e400`, `1e-400`, `01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`,
	`true`, `false`, `null`, `tru`, `nul`, `truex`, ` {"a" : 1 } `, "\t\n\r{}\n",
	`{"a":1,"a":2}`, `{"a":{"b":[1,2,{"c":null}]}}`, `{"a":1,}`, `{"a":1 "b":2}`, `{,}`, `{"a"}`, `{1:2}`,
	`[1,]`, `[,1]`, `[1 2]`, `[`, `{`, `{"a":`, `"abc`, ``, ` `, `{} {}`, `{}x`, `[]]`,
	`"\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`,
	`"\u12"`, `"\uZZZZ"`, `"\x"`, `"\/\b\f\n\r\t\"\\"`, "\"a\x01b\"", "\"tab\there\"", `"\"`,
	"\"\xff\"", "\"a\xc3\"", "\"\xc3\xa9\"", "\"\xef\xbf\xbd\"", "\"\\n\xff\"", "{\"\xff\":1}",
	`{"id":"x","pad":"` + strings.Repeat("y", 900) + `"}`,
	// Every byte class at every position of an eight-byte block (the fast path reads eight at once).
	`"abcdefg\\hijklmnop"`, `"abcdefgh\\ijklmnop"`, `"\\nabcdefghijklmnop"`, `"abcdefghijklmno\\n"`,
	"\"abcdefg\x01hijklmnop\"", "\"abcdefgh\x1fijklmnop\"", "\"abcdefgh\x7fijklmnop\"", "\"abcdefghijklmnop\x00\"",
	"\"abcdefg\xc3\xa9hijklmnop\"", "\"abcdefghijklmno\xff\"", "\"abcdefgh ~!#$%&'()*+,-./\"",
}

func TestDecode_AgreesWithEncodingJSON(t *testing.T) {
	for _, c := range cases {
		same(t, []byte(c))
	}
}

func TestDecode_Depth(t *testing.T) {
	same(t, []byte(strings.Repeat("[", MaxDepth)+strings.Repeat("]", MaxDepth)))
	same(t, []byte(strings.Repeat("[", MaxDepth+1)+strings.Repeat("]", MaxDepth+1)))
	same(t, []byte(strings.Repeat(`{"a":`, MaxDepth+1)+"1"+strings.Repeat("}", MaxDepth+1)))
}

// TestDecode_StringsPointIntoInput checks the point of the package: plain strings and keys are not
// copied; strings with escapes or invalid UTF-8 are.
func TestDecode_StringsPointIntoInput(t *testing.T) {
	b := []byte(`{"plain":"` + strings.Repeat("p", 100) + `","esc":"a\nb","bad":"a` + "\xff" + `"}`)
	m, err := DecodeObject(b)
	if err != nil {
		t.Fatal(err)
	}
	inside := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		lo := uintptr(unsafe.Pointer(&b[0]))
		return p >= lo && p < lo+uintptr(len(b))
	}
	if !inside(m["plain"].(string)) {
		t.Error("a plain string was copied")
	}
	for k := range m {
		if !inside(k) {
			t.Errorf("key %q was copied", k)
		}
	}
	if inside(m["esc"].(string)) || m["esc"] != "a\nb" {
		t.Errorf("escaped string: %q", m["esc"])
	}
	if inside(m["bad"].(string)) || m["bad"] != "a\uFFFD" {
		t.Errorf("invalid UTF-8: %q", m["bad"])
	}
}

func TestDecodeObject_RejectsOtherValues(t *testing.T) {
	for _, c := range []string{`[]`, `"x"`, `1`, `null`, `true`} {
		if _, err := DecodeObject([]byte(c)); err != ErrNotObject {
			t.Errorf("%s: %v, want ErrNotObject", c, err)
		}
	}
	if _, err := DecodeObject([]byte(`{"a":}`)); err == nil {
		t.Error("a syntax error decoded")
	} else if se, ok := err.(*SyntaxError); !ok || se.Offset != 5 {
		t.Errorf("error %v, want a SyntaxError at offset 5", err)
	}
}

// FuzzDecode is a differential fuzz test: Decode must agree with encoding/json on every input.
//
//	go test ./internal/engine/jsondoc -fuzz FuzzDecode -fuzztime 60s
func FuzzDecode(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		same(t, b)
		fieldsAgree(t, b)
	})
}

// fieldsAgree checks DecodeFields against DecodeItem on an item the engine would store: every
// subset of its keys (by position parity, the first key, all) decodes as those keys of the item.
func fieldsAgree(t *testing.T, b []byte) {
	full, err := DecodeItem(b)
	if err != nil {
		return // the engine stores only what DecodeItem accepts
	}
	keys := make([]string, 0, len(full))
	for k := range full {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for pick := range 4 {
		want, set := map[string]any{}, map[string]bool{}
		for i, k := range keys {
			if pick == 3 || (pick == 2 && i == 0) || (pick < 2 && i%2 == pick) {
				want[k], set[k] = full[k], true
			}
		}
		got, err := DecodeFields(b, set)
		if err != nil {
			t.Fatalf("DecodeFields(%q, %v): %v", b, set, err)
		}
		if len(set) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeFields(%q, %v) = %v, want %v", b, set, got, want)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	doc := []byte(`{"id":"order-000123","pk":"customer-42","type":"order","status":"shipped","total":129.95,` +
		`"items":[{"sku":"A-1","qty":2,"price":19.99},{"sku":"B-7","qty":1,"price":90}],` +
		`"address":{"street":"1 Main St","city":"Springfield","zip":"12345"},"pad":"` + strings.Repeat("x", 700) + `"}`)
	b.Run("jsondoc", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for range b.N {
			if _, err := DecodeObject(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsondoc-item", func(b *testing.B) { // DecodeItem: UTF-8 checked, duplicate keys refused
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for range b.N {
			if _, err := DecodeItem(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for range b.N {
			var m map[string]any
			if err := json.Unmarshal(doc, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// DecodeItem refuses what an item must not be stored with: invalid UTF-8 (the offset of the first
// bad byte is named) and a key named twice at any depth; otherwise it decodes as DecodeObject.
func TestDecodeItem(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{`{"id":"a","o":{"x":1,"y":[{"k":1},{"k":2}]}}`, ""},
		{`{"id":"a","id":"b"}`, `duplicate key "id" at offset 10`},
		{`{"id":"a","o":{"x":1,"x":2}}`, `duplicate key "x"`},
		{`{"id":"a","a":[{"k":1,"k":1}]}`, `duplicate key "k"`},
		{`{"a\u0062":1,"ab":2}`, `duplicate key "ab"`},
		{"{\"id\":\"a\xff\"}", "invalid UTF-8 at offset 8"},
		{`[1]`, ErrNotObject.Error()},
	} {
		m, err := DecodeItem([]byte(tc.in))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.err == "":
			want, _ := DecodeObject([]byte(tc.in))
			if !reflect.DeepEqual(m, want) {
				t.Errorf("%s: %v, want %v", tc.in, m, want)
			}
		case err == nil || !strings.Contains(err.Error(), tc.err):
			t.Errorf("%s: err = %v, want %q", tc.in, err, tc.err)
		}
	}
}

// TestDecodeFields: the kept properties decode as DecodeObject decodes them, the others are
// absent, over values of every kind and strings with escaped quotes and backslashes.
func TestDecodeFields(t *testing.T) {
	docs := []string{
		`{}`,
		`{"a":1}`,
		` { "a" : "x\"y\\" , "b" : [1,{"c":"]}"},"\\\""] , "c":{"d":[{},[]],"e":"}"}, "d":-1.5e3,"e":true,"f":null,"g":"\\"} `,
		`{"s\u0074":"escaped key","t":[["a",["b"]]],"u":{"v":{"w":"x"}}}`,
		`{"z":"é\\","y":false,"x":0}`,
	}
	keepSets := [][]string{nil, {"a"}, {"b", "c"}, {"st", "u"}, {"g", "d", "e", "f"}, {"z", "x"}, {"a", "b", "c", "d", "e", "f", "g", "st", "t", "u", "x", "y", "z"}}
	for _, doc := range docs {
		full, err := DecodeObject([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		for _, keep := range keepSets {
			keys := map[string]bool{}
			for _, k := range keep {
				keys[k] = true
			}
			got, err := DecodeFields([]byte(doc), keys)
			if err != nil {
				t.Fatalf("%s keeping %v: %v", doc, keep, err)
			}
			want := map[string]any{}
			for k, v := range full {
				if slices.Contains(keep, k) {
					want[k] = v
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s keeping %v:\n got %v\nwant %v", doc, keep, got, want)
			}
		}
	}
	if _, err := DecodeFields([]byte(`[1]`), map[string]bool{"a": true}); err == nil {
		t.Error("an array decoded as an object")
	}
}
