package studio

import (
	"reflect"
	"strings"
	"testing"
)

func TestLineDiff(t *testing.T) {
	split := func(s string) []string { return strings.Split(s, "\n") }
	if d := lineDiff(split("a\nb"), split("a\nb")); len(d) != 0 {
		t.Errorf("equal texts: %q", d)
	}
	got := lineDiff(split("a\nb\nc\nd\ne\nf\ng"), split("a\nb\nc\nD\ne\nf\ng"))
	want := []string{"@@ line 2", "  b", "  c", "- d", "+ D", "  e", "  f"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("one changed line:\n got %q\nwant %q", got, want)
	}
	got = lineDiff(split("x"), split("new\nx"))
	want = []string{"@@ line 1", "+ new", "  x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a line added at the top:\n got %q\nwant %q", got, want)
	}
}
