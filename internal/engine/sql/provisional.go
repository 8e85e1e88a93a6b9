package sql

import "errors"

// PROVISIONAL: replaced by the parser and evaluator.

// Query is a parsed query.
type Query struct{ text string }

// Parse parses a query.
func Parse(text string) (*Query, error) { return nil, errors.New("query language not built yet") }

// Shape reports the query's clauses.
func (q *Query) Shape() Shape { return Shape{} }

// Execute runs q over src.
func Execute(q *Query, src Source, opts Options) (*Result, error) {
	return nil, errors.New("query language not built yet")
}
