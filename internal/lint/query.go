package lint

import (
	"fmt"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/querycheck"
)

// queryProblems reports what the service would refuse in each query (and patch condition) for a
// reason of the design — a syntax error, an unknown function, an ORDER BY no index serves — read
// with the engine's parser and planner (querycheck), the same words run uses for the 400. The
// finding points at the offending character in the design file.
func (l *linter) queryProblems() {
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		ci, c := l.container(ap.Container)
		if c == nil {
			continue
		}
		if ap.Op == design.OpQuery {
			path := fmt.Sprintf("accessPatterns[%d].query", i)
			for _, p := range querycheck.Check(l.d, ci, ap.Query).Problems {
				l.addAt(path, l.valuePos(path, ap.Query, p.Offset, 0), p.Code, "%s", p.Message)
			}
		}
		if ap.Condition != "" {
			path := fmt.Sprintf("accessPatterns[%d].condition", i)
			r := querycheck.Check(l.d, ci, conditionPrefix+ap.Condition)
			for _, p := range r.Problems {
				if p.Code == "query-syntax" {
					l.addAt(path, l.valuePos(path, ap.Condition, p.Offset, len(conditionPrefix)), p.Code, "%s", p.Message)
				}
			}
		}
	}
}

// SyntaxErrors returns the query-syntax findings of d alone: the queries (and patch conditions)
// the engine's parser refuses. They are design errors rather than findings, so run, plan and advise
// refuse the design with them (pipeline.LoadDesigns) before anything is provisioned, in the words
// and at the positions lint gives them.
func SyntaxErrors(d *design.Design) []Finding {
	l := &linter{d: d}
	l.queryProblems()
	var out []Finding
	for _, f := range l.out {
		if f.Code == "query-syntax" {
			out = append(out, f)
		}
	}
	return out
}

// valuePos maps offset off of a query made of prefix bytes and then value (the text at path) into
// the design file; zero when off is -1 or falls in the prefix.
func (l *linter) valuePos(path, value string, off, prefix int) design.Pos {
	if off < prefix {
		return design.Pos{}
	}
	return l.d.ValuePos(path, value, off-prefix)
}

func (l *linter) container(name string) (int, *design.Container) {
	for i := range l.d.Containers {
		if l.d.Containers[i].Name == name {
			return i, &l.d.Containers[i]
		}
	}
	return -1, nil
}
