package sql

import (
	"fmt"
	"strings"

	"github.com/cosmosdv/validate/internal/engine/index"
)

// Error is a query the service would refuse with 400 Bad Request. Msg reads like the service's
// message; Code is the service's error code where it has one ("SC1001" syntax, "SC2001" unresolved
// identifier, ...). Start and End are byte offsets of the offending text, Line and Col its 1-based
// position; all four are 0 when the error has no position.
type Error struct {
	Code       string
	Msg        string
	Start, End int
	Line, Col  int
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return e.Msg
}

// errAt builds an *Error positioned at text[start:end].
func errAt(text string, start, end int, code, msg string) *Error {
	if start > len(text) {
		start = len(text)
	}
	line := 1 + strings.Count(text[:start], "\n")
	col := start - strings.LastIndexByte(text[:start], '\n')
	return &Error{Code: code, Msg: msg, Start: start, End: end, Line: line, Col: col}
}

// errPlain builds an *Error without a position.
func errPlain(code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// MissingCompositeIndexMsg is the service's message for an ORDER BY on two or more items without a
// composite index that serves them.
const MissingCompositeIndexMsg = "The order by query does not have a corresponding composite index that it can be served from."

// MissingCompositeIndexError is an ORDER BY with two or more items that no composite index of the
// policy serves. Items name the index to add.
type MissingCompositeIndexError struct {
	Items []index.OrderItem
}

func (e *MissingCompositeIndexError) Error() string { return MissingCompositeIndexMsg }

// Suggested returns the composite index that would serve the query, in policy form.
func (e *MissingCompositeIndexError) Suggested() []index.CompositePath {
	out := make([]index.CompositePath, 0, len(e.Items))
	for _, it := range e.Items {
		order := "ascending"
		if it.Desc {
			order = "descending"
		}
		p := index.FormatPath(it.Path)
		out = append(out, index.CompositePath{Path: strings.TrimSuffix(p, "/?"), Order: order})
	}
	return out
}

// ExcludedOrderByMsg is the service's message for an ORDER BY on a single path the policy excludes.
const ExcludedOrderByMsg = "The index path corresponding to the specified order-by item is excluded."

// ExcludedOrderByError is an ORDER BY on one item whose path the policy does not index.
type ExcludedOrderByError struct {
	Item index.OrderItem
}

func (e *ExcludedOrderByError) Error() string { return ExcludedOrderByMsg }

// EvalFault is an execution the evaluator failed on: a panic, recovered, with its value and stack.
// It is a fault of the engine that the query brought out; the engine answers it 400 and logs it.
type EvalFault struct {
	Value string
	Stack []byte
}

func (e *EvalFault) Error() string {
	return "The query could not be evaluated: the engine failed on it (" + e.Value + "). Please report the query with the activity id below."
}

// WorkLimitError is an execution that went past Options.MaxWork evaluation steps.
type WorkLimitError struct {
	Limit int
}

func (e *WorkLimitError) Error() string {
	return fmt.Sprintf("The query exceeded the maximum work allowed by the evaluator (%d evaluation steps). Narrow the query with a filter or a smaller JOIN.", e.Limit)
}

// AllocLimitError is an execution that built more than Options.MaxAlloc bytes of values.
type AllocLimitError struct {
	Limit int
}

func (e *AllocLimitError) Error() string {
	return fmt.Sprintf("The query built more in memory than the evaluator allows in one execution (%d MB of rows and values). Narrow the query with a filter, a smaller JOIN or fewer projected properties.", e.Limit>>20)
}

// ResultSizeError is a result past Options.MaxItemBytes for one item or Options.MaxOutputBytes for
// all the items an execution built.
type ResultSizeError struct {
	Limit int64
	Item  bool // one item past MaxItemBytes, rather than the whole result past MaxOutputBytes
}

func (e *ResultSizeError) Error() string {
	if e.Item {
		return fmt.Sprintf("A query result item is larger than the maximum response size of %d bytes. Project fewer properties or narrow the subquery.", e.Limit)
	}
	return fmt.Sprintf("The query result is larger than the engine builds in one execution (%d bytes of new values). Narrow the query or project fewer properties.", e.Limit)
}
