package design

import (
	"fmt"
	"unicode"
)

// The one rule for the text of a design, which flows as it stands to the terminal, the text,
// Markdown, HTML and JUnit reports, CI job summaries and MCP answers. Every string is visible
// text: no C0 or C1 control character or DEL (an ANSI or OSC escape rewrites the screen), no
// invisible format character (a bidirectional override such as U+202E reorders what the reader
// sees; zero-width characters hide a difference between two names), and — except where a value
// may span lines — no line break (a name with a line break writes a heading into a Markdown report
// or a job summary). The fields that may span lines are the ones that hold prose or SQL.
var multiLineFields = map[string]bool{"description": true, "query": true, "condition": true}

// BadRune returns the first character of s a design may not hold, and what it is; multiLine
// allows tabs and line breaks.
func BadRune(s string, multiLine bool) (r rune, what string, bad bool) {
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			if !multiLine {
				if r == '\t' {
					return r, "a tab", true
				}
				return r, "a line break", true
			}
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			return r, fmt.Sprintf("the control character %U", r), true
		case unicode.Is(unicode.Cf, r):
			return r, fmt.Sprintf("the invisible format character %U (a bidirectional override or a zero-width character)", r), true
		}
	}
	return 0, "", false
}
