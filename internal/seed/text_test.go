package seed

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// TestTextHas_MatchesTheGenerator draws texts from the text generator and compares the share that
// holds a word or a substring with the derived probability. 4,000 draws put the standard error
// below 0.008; the derivation must be within 0.03.
func TestTextHas_MatchesTheGenerator(t *testing.T) {
	const draws = 4000
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	tests := []struct {
		name  string
		n     int
		want  func() float64
		holds func(text string) bool
	}{
		{"word in 500 bytes", 500, func() float64 { return TextHasWord(500, "bridge") },
			func(s string) bool { return contains(words(s), "bridge") }},
		{"word in 100 bytes", 100, func() float64 { return TextHasWord(0, "cloud") },
			func(s string) bool { return contains(words(s), "cloud") }},
		{"word outside the vocabulary", 500, func() float64 { return TextHasWord(500, "kubernetes") },
			func(s string) bool { return contains(words(s), "kubernetes") }},
		{"substring, case-sensitive", 300, func() float64 { p, _ := TextHasSubstring(300, "ri", false); return p },
			func(s string) bool { return strings.Contains(s, "ri") }},
		{"substring at a word's start, case-sensitive", 300, func() float64 { p, _ := TextHasSubstring(300, "sp", false); return p },
			func(s string) bool { return strings.Contains(s, "sp") }},
		{"substring, ignoring case", 300, func() float64 { p, _ := TextHasSubstring(300, "SP", true); return p },
			func(s string) bool { return strings.Contains(strings.ToLower(s), "sp") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 11))
			hit := 0
			for range draws {
				if tt.holds(text(r, tt.n)) {
					hit++
				}
			}
			got, want := float64(hit)/draws, tt.want()
			t.Logf("generator %.3f, derived %.3f", got, want)
			if math.Abs(got-want) > 0.03 {
				t.Errorf("generator share %.3f, derived %.3f", got, want)
			}
		})
	}
}

func TestTextHasSubstring_AcrossWordsIsUnknown(t *testing.T) {
	if _, known := TextHasSubstring(500, "oak tree", false); known {
		t.Error("a substring with a space spans words: the generator does not tell")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
