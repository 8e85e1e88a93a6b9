package report

import (
	"os"
	"strings"
	"testing"
)

// A report or baseline with an escape sequence in a string is refused before compare prints it.
func TestReadBaseline_RefusesControlCharacters(t *testing.T) {
	good, err := os.ReadFile("../../baselines/embedded/ecommerce.baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBaseline(strings.NewReader(string(good))); err != nil {
		t.Fatalf("the committed baseline: %v", err)
	}
	bad := strings.Replace(string(good), `"name": "ecommerce"`, `"name": "eco\u001b]0;pwned\u0007merce"`, 1)
	if bad == string(good) {
		t.Fatal("the baseline no longer names its design ecommerce")
	}
	if _, err := ReadBaseline(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("err = %v, want the control character refused", err)
	}
}
