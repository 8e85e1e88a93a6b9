package lint

import (
	"fmt"
	"math"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/plan"
)

// arrayHorizon is how far ahead lint looks for an array to reach the item limit, in seconds:
// beyond it the growth is a note, not a finding (assumed: three years, the longest term Azure sells
// reserved capacity for — reserved-capacity.md — as the longest a design's rates are planned for).
const arrayHorizon = 3 * 365 * 86400

// arrayAppend is one pattern's appends to one array of one document type.
type arrayAppend struct {
	pattern int    // index of the access pattern
	opPath  string // field path of the first append op, for the finding's position
	perExec int    // elements appended per execution
}

// unboundedArrays names an array embedded in a document that grows without bound: patches append
// to it ("add" at /arr/- or an index) faster than any pattern removes from it or rewrites it, and
// its documents live long enough at the design's rates (no TTL, no delete, or one too slow) to
// reach the item limit (2 MB, concepts-limits.md). It states the size it reaches and when, and what
// each append costs as the item grows: a patch rewrites the whole item, so its charge follows the
// item's size (the rate card's write-by-size table, cost.RateCard.Point). The figures are the plan's (document sizes and
// production counts) and the rate card's.
func (l *linter) unboundedArrays() {
	if l.plan == nil {
		return
	}
	rc := cost.Current
	limit := rc.ItemMaxKB.Value * 1024
	for ci := range l.d.Containers {
		c := &l.d.Containers[ci]
		pc := l.planContainer(c.Name)
		if pc == nil {
			continue
		}
		for ti := range c.Documents {
			dt := &c.Documents[ti]
			pd := planDoc(pc, dt.Type)
			if pd == nil {
				continue
			}
			for _, nf := range arrayFields(dt.Fields, "") {
				f := nf.f
				elem, ok := plan.ElementBytes(l.d, c, dt, f)
				if !ok {
					continue
				}
				// A generator that alone makes items over the limit is a design error (design.Load).
				fp := fmt.Sprintf("containers[%d].documents[%d].fields.%s", ci, ti, nf.path)
				l.arrayGrowth(c, dt, pd, nf.path, fp, elem, limit)
			}
		}
	}
}

// arrayGrowth checks the appends to array path of dt against its removals and its documents' life.
func (l *linter) arrayGrowth(c *design.Container, dt *design.DocType, pd *plan.Document, path, fp string, elem, limit float64) {
	slash := "/" + strings.ReplaceAll(path, ".", "/")
	var appends []arrayAppend
	var addRate, removeRate float64
	rewritten := false
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		if ap.Container != c.Name {
			continue
		}
		target := ap.Sample
		if (ap.Op == design.OpReplace || ap.Op == design.OpUpsert) && (ap.Document == dt.Type || target == dt.Type) {
			rewritten = true // the whole item is written fresh from its generator
			continue
		}
		if target != dt.Type {
			continue
		}
		scan := func(opsPath string, ops []design.PatchOp) {
			a := arrayAppend{pattern: i}
			for j, op := range ops {
				p := strings.TrimRight(op.Path, "/")
				parent, last := p, ""
				if k := strings.LastIndex(p, "/"); k >= 0 {
					parent, last = p[:k], p[k+1:]
				}
				isElem := last == "-" || (last != "" && strings.Trim(last, "0123456789") == "")
				switch {
				case op.Op == "add" && parent == slash && isElem:
					if a.perExec == 0 {
						a.opPath = fmt.Sprintf("%s[%d].path", opsPath, j)
					}
					a.perExec++
				case op.Op == "remove" && parent == slash && isElem:
					removeRate += ap.RPS.Avg
				case (op.Op == "set" || op.Op == "replace" || op.Op == "remove") && p == slash:
					rewritten = true
				}
			}
			if a.perExec > 0 {
				appends = append(appends, a)
				addRate += ap.RPS.Avg * float64(a.perExec)
			}
		}
		base := fmt.Sprintf("accessPatterns[%d]", i)
		scan(base+".patch", ap.Patch)
		for bi, b := range ap.Batch {
			scan(fmt.Sprintf("%s.batch[%d].patch", base, bi), b.Patch)
		}
	}
	if len(appends) == 0 || rewritten || removeRate >= addRate {
		return
	}
	docs := math.Max(pd.Production, pd.Count)
	if docs <= 0 {
		return
	}
	perItem := (addRate - removeRate) / docs // elements a second, on an average item
	grow := perItem * (elem + 1)             // bytes a second
	toLimit := (limit - pd.Bytes) / grow     // seconds
	life, lifeWords := l.lifetime(c, dt, docs)
	if life > 0 && life < toLimit {
		return // its documents go before the array reaches the limit
	}
	first := appends[0]
	ap := &l.d.AccessPatterns[first.pattern]
	pp := l.planPattern(ap.ID)
	today := 0.0
	if pp != nil {
		today = pp.ModelRU
	}
	nOps := len(ap.Patch)
	at := func(size float64) float64 {
		return cost.Current.Point(cost.PointOp{Kind: cost.Patch, SizeBytes: int(size), OldSizeBytes: int(size - float64(first.perExec)*(elem+1)), PatchOps: nOps})
	}
	note := toLimit > arrayHorizon
	l.addAt(first.opPath, design.Pos{}, "unbounded-array",
		"%s appends to %s of %s (%s) and no pattern removes from it or rewrites it, %s: the array grows without bound — at %.3g element(s)/s over %.0f %s documents, ~%.0f B each, an average %s reaches the %s item limit in %s (one that gets more of the appends sooner), and then every append fails (413); each append rewrites the whole item: %.1f RU today (the plan's figure), %.0f RU at 1 MB, %.0f RU near 2 MB; keep the elements as documents of their own under the same partition key (one create each, ~constant charge), or cap the array and move old elements out (a remove with each add, or a bin per period)",
		ap.ID, path, dt.Type, fp, lifeWords, addRate-removeRate, docs, dt.Type, elem, dt.Type, kb(limit), days(toLimit),
		today, at(1024*1024), at(limit-1024))
	if note {
		f := &l.out[len(l.out)-1]
		f.Note = true
		f.Message += fmt.Sprintf(" — a note: at the design's rates the limit is %s away, beyond the %s lint looks ahead (reserved capacity's longest term)", days(toLimit), days(arrayHorizon))
	}
}

// lifetime is how long a document of dt lives at the design's rates, in seconds (0: for ever), and
// why: its TTL, or the delete patterns' rate over the documents.
func (l *linter) lifetime(c *design.Container, dt *design.DocType, docs float64) (float64, string) {
	if c.DefaultTTL != nil {
		if f, ok := dt.Fields.Lookup("ttl"); ok {
			if v, ok := number(f.Const); ok && v > 0 {
				return v, fmt.Sprintf("and its documents expire after %s (ttl), too late", days(v))
			}
		} else if *c.DefaultTTL > 0 {
			return float64(*c.DefaultTTL), fmt.Sprintf("and its documents expire after %s (defaultTtl), too late", days(float64(*c.DefaultTTL)))
		}
	}
	var deletes float64
	for i := range l.d.AccessPatterns {
		ap := &l.d.AccessPatterns[i]
		if ap.Container == c.Name && ap.Op == design.OpDelete && ap.Sample == dt.Type {
			deletes += ap.RPS.Avg
		}
	}
	if deletes > 0 {
		life := docs / deletes
		return life, fmt.Sprintf("and its documents are deleted after about %s on average (delete rate), too late", days(life))
	}
	return 0, "and its documents never expire nor are deleted"
}

type namedArray struct {
	path string
	f    *design.Field
}

// arrayFields lists the array fields of fs, nested objects included, by dotted path.
func arrayFields(fs design.Fields, prefix string) []namedArray {
	var out []namedArray
	for i := range fs {
		nf := &fs[i]
		p := prefix + nf.Name
		switch {
		case nf.Field.Array != nil:
			out = append(out, namedArray{p, &nf.Field})
		case len(nf.Field.Object) > 0:
			out = append(out, arrayFields(nf.Field.Object, p+".")...)
		}
	}
	return out
}

func (l *linter) planContainer(name string) *plan.Container {
	for i := range l.plan.Containers {
		if l.plan.Containers[i].Name == name {
			return &l.plan.Containers[i]
		}
	}
	return nil
}

func planDoc(pc *plan.Container, typ string) *plan.Document {
	for i := range pc.Documents {
		if pc.Documents[i].Type == typ {
			return &pc.Documents[i]
		}
	}
	return nil
}

func kb(b float64) string {
	if b >= 1024*1024 {
		return fmt.Sprintf("%.3g MB", b/1024/1024)
	}
	return fmt.Sprintf("%.0f KB", b/1024)
}

func days(s float64) string {
	d := s / 86400
	switch {
	case d >= 730:
		return fmt.Sprintf("%.0f years", d/365)
	case d >= 2:
		return fmt.Sprintf("%.0f days", d)
	}
	return fmt.Sprintf("%.0f hours", s/3600)
}
