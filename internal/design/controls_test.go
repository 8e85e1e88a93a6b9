package design

import (
	"os"
	"strings"
	"testing"
)

// Control characters (ANSI/OSC escapes, BEL) in names, ids and types are refused with the field
// they stand in: they reached the terminal and the text and Markdown reports as they were.
func TestControls_Refused(t *testing.T) {
	base, err := os.ReadFile("../../designs/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, path string }{
		{"name: ecommerce", `name: "eco\e]0;pwned\amerce"`, "name"},
		{"- id: AP1", `- id: "AP1\e[2J"`, "accessPatterns[0].id"},
		{"name: Get user profile at login", "name: \"Get user\\x9b31m profile\"", "accessPatterns[0].name"},
	} {
		if !strings.Contains(string(base), tc.from) {
			t.Fatalf("the example design no longer has %q", tc.from)
		}
		text := strings.Replace(string(base), tc.from, tc.to, 1)
		_, err := Parse([]byte(text), "ecommerce.yaml")
		if err == nil || !strings.Contains(err.Error(), "control character") || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s: err = %v, want the control character named at %s", tc.to, err, tc.path)
		}
	}
	// Line breaks and tabs in a description stay allowed.
	text := strings.Replace(string(base), "description: Users with their orders in one container, partitioned by user",
		`description: "Users\n\twith their orders"`, 1)
	if _, err := Parse([]byte(text), "ecommerce.yaml"); err != nil {
		t.Errorf("a description with a line break and a tab: %v", err)
	}
}
