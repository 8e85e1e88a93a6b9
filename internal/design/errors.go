package design

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrInvalid matches (with errors.Is) every error Load and Parse return: the design could not be
// read or is not valid. The CLI maps it to its "bad input" exit code.
var ErrInvalid = errors.New("invalid design")

// maxErrorLines bounds how many errors Errors.Error prints; garbage input can produce thousands.
const maxErrorLines = 50

// Error is one problem found in a design file, with where it stands.
type Error struct {
	// File is the design file's path as given to Load or Parse.
	File string
	// Line and Col are 1-based; 0 when unknown.
	Line, Col int
	// Path is the field path, e.g. "containers[0].partitionKey[1]"; "" for file-level problems.
	Path string
	// Msg says what is wrong and, where it can, what to do.
	Msg string
	// Err is an underlying cause (an I/O error), if any.
	Err error
}

// Error formats the problem as "file:line:col: path: message".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Errors is every problem found in one design file, sorted by position.
type Errors []*Error

// Error prints one line per problem (at most 50, then a count of the rest).
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i == maxErrorLines {
			fmt.Fprintf(&b, "\n... and %d more errors", len(es)-i)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (es Errors) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the individual errors, so errors.As finds an *Error and errors.Is an I/O cause.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// sortErrors orders errors by position; errors without a line keep their relative order first.
func sortErrors(es Errors) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Col < es[j].Col
	})
}
