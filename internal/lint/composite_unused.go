package lint

import (
	"fmt"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/querycheck"
)

// unusedComposites flags a composite index no query of its container uses (querycheck.
// CompositeNeeded, the rule advise's drop-composite follows too): every write of a document with
// its paths pays the index's terms for no reader (#37 point 7). advise prices dropping it, per
// second and per month.
func (l *linter) unusedComposites() {
	for ci := range l.d.Containers {
		c := &l.d.Containers[ci]
		if c.Indexing == nil || (c.Indexing.Mode != "" && !strings.EqualFold(c.Indexing.Mode, "consistent")) {
			continue
		}
		for i, comp := range c.Indexing.Composite {
			ids, ok := querycheck.CompositeNeeded(l.d, ci, comp)
			if !ok || len(ids) > 0 {
				continue
			}
			l.add(fmt.Sprintf("containers[%d].indexing.composite[%d]", ci, i), "index-unused",
				"composite index %s is used by no query of %s (none orders by it, none filters on all of its paths): every write of a document with its paths pays its index terms for no reader; remove it (validate advise prices dropping it, per second and per month)",
				compositeText(comp), c.Name)
		}
	}
}

func compositeText(comp []design.CompositePath) string {
	parts := make([]string, len(comp))
	for i, p := range comp {
		parts[i] = p.Path + " " + strings.ToLower(cmpOr(p.Order, "asc"))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
