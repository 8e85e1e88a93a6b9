package design

import (
	"regexp"
)

// Built-in placeholders, resolvable in every template.
const (
	// PlaceholderSeq is the document's 0-based sequence number within its type.
	PlaceholderSeq = "seq"
	// PlaceholderUUID is a fresh random (seeded) UUID.
	PlaceholderUUID = "uuid"
	// PlaceholderNow is the current time, RFC 3339 in UTC.
	PlaceholderNow = "now"
	// PlaceholderType is the document type's name.
	PlaceholderType = "type"
)

// BuiltinPlaceholders lists the placeholders every template may use.
var BuiltinPlaceholders = []string{PlaceholderSeq, PlaceholderUUID, PlaceholderNow, PlaceholderType}

func isBuiltin(name string) bool {
	switch name {
	case PlaceholderSeq, PlaceholderUUID, PlaceholderNow, PlaceholderType:
		return true
	}
	return false
}

var placeholderRe = regexp.MustCompile(`\{([^{}]*)\}`)

// Placeholders returns the names inside {braces} in a template, each once, in order of first
// appearance: Placeholders("{tenantId}_{userId}") = [tenantId userId]. A name may be a built-in
// (seq, uuid, now, type), "id", a top-level field name, or "parent.<field>" for child types.
func Placeholders(template string) []string {
	var out []string
	for _, m := range placeholderRe.FindAllStringSubmatch(template, -1) {
		name := m[1]
		dup := false
		for _, o := range out {
			if o == name {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, name)
		}
	}
	return out
}

var placeholderNameRe = regexp.MustCompile(`^(parent\.)?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// QueryParams returns the @parameters a query text uses, each once, in order of first appearance.
// Text inside string literals ('...' or "...") is skipped.
func QueryParams(query string) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			// Skip the literal; a backslash escapes the next character.
			for i++; i < len(query) && query[i] != c; i++ {
				if query[i] == '\\' {
					i++
				}
			}
		case c == '@':
			j := i + 1
			for j < len(query) && isIdentByte(query[j], j == i+1) {
				j++
			}
			if j > i+1 {
				name := query[i:j]
				if !seen[name] {
					seen[name] = true
					out = append(out, name)
				}
			}
			i = j - 1
		}
	}
	return out
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9')
}
