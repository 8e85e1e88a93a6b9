package design

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// locateSyntaxError finds the line and column of a YAML syntax error. The YAML library reports the
// line where the enclosing construct started (a mapping that "did not find expected key" names its
// first line, which may be far above the mistake) and no column; the mistake is on the first line
// whose inclusion makes the text fail the same way, so the text is parsed up to each line from the
// reported one on. The column is that line's first non-blank character, where the offending token
// starts. Design files are small (MaxFileSize), and this runs only for a file that does not parse.
func locateSyntaxError(data []byte, line int, msg string) (int, int) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return line, 0
	}
	found := line
	for n := line; n <= len(lines) && n < line+2000; n++ {
		prefix := bytes.Join(lines[:n], nil)
		var node yaml.Node
		err := yaml.Unmarshal(prefix, &node)
		if err != nil && strings.HasSuffix(err.Error(), msg) {
			found = n
			break
		}
	}
	text := string(lines[found-1])
	col := len(text) - len(strings.TrimLeft(text, " ")) + 1
	// An unclosed flow collection: point at its opening bracket.
	for _, b := range [][2]string{{"']'", "["}, {"'}'", "{"}} {
		if strings.Contains(msg, b[0]) {
			for n := found; n >= 1 && n > found-50; n-- {
				if i := strings.LastIndex(string(lines[n-1]), b[1]); i >= 0 {
					return n, len([]rune(string(lines[n-1])[:i])) + 1
				}
			}
		}
	}
	if strings.TrimSpace(text) == "" {
		col = 0
	}
	return found, col
}
