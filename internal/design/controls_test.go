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

// TestText_OneRuleForNames (#42 defects 6, 7): a bidirectional override or a zero-width character
// is refused in any string, and a line break or tab anywhere but a description, a query or a
// condition; each with its field path and line.
func TestText_OneRuleForNames(t *testing.T) {
	base, err := os.ReadFile("../../designs/ecommerce.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, path, want string }{
		{"name: Get user profile at login", "name: \"Get user \u202eprofile\"", "accessPatterns[0].name", "U+202E"},
		{"name: Get user profile at login", "name: \"Get\u200buser\"", "accessPatterns[0].name", "U+200B"},
		{"name: Get user profile at login", `name: "Get user\n# Injected heading"`, "accessPatterns[0].name", "a line break"},
		{"- id: AP1", `- id: "AP1\u2028"`, "accessPatterns[0].id", "a line break"},
		{"name: ecommerce", `name: "eco\tmmerce"`, "name", "a tab"},
	} {
		if !strings.Contains(string(base), tc.from) {
			t.Fatalf("the example design no longer has %q", tc.from)
		}
		_, err := Parse([]byte(strings.Replace(string(base), tc.from, tc.to, 1)), "ecommerce.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), "ecommerce.yaml:") {
			t.Errorf("%s: err = %v, want %s named at %s with its line", tc.to, err, tc.want, tc.path)
		}
	}
}
