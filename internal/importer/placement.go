package importer

import (
	"fmt"
	"sort"
	"strings"
)

// A query reads the documents whose fields it names: the FROM alias's paths in its projection, WHERE,
// ORDER BY and GROUP BY, and the type value it pins. The container those documents live in is where
// the query runs, whatever heading it sits under ("Last 50 messages of a channel" under "Queries", a
// rank COUNT over leaderboard entries in a paragraph that speaks of players).

// queryReads lists the top-level properties a query reads through its FROM alias (id and system
// properties left out: every document has them) and the type values it pins (c.type = 'entry').
func queryReads(sql string) (fields []string, types []string) {
	ts := sqlTokens(sql)
	alias := ""
	for i, tk := range ts {
		if tk.kind != 'i' || !strings.EqualFold(tk.s, "from") || i+1 >= len(ts) || ts[i+1].kind != 'i' {
			continue
		}
		alias = ts[i+1].s
		j := i + 2
		if j < len(ts) && ts[j].kind == 'i' && strings.EqualFold(ts[j].s, "as") {
			j++
		}
		if j < len(ts) && ts[j].kind == 'i' && !sqlKeyword(ts[j].s) {
			alias = ts[j].s // FROM root r, FROM Orders AS o
		}
		break
	}
	if alias == "" {
		return nil, nil
	}
	seen := map[string]bool{}
	for i := 0; i+2 < len(ts); i++ {
		if ts[i].kind != 'i' || ts[i].s != alias || ts[i+1].kind != '.' || ts[i+2].kind != 'i' {
			continue
		}
		if i > 0 && ts[i-1].kind == '.' {
			continue // a deeper path's segment that happens to spell the alias
		}
		name := ts[i+2].s
		if name == "id" || strings.HasPrefix(name, "_") || seen[name] {
			continue
		}
		seen[name] = true
		fields = append(fields, name)
	}
	for _, f := range sqlFilters(sql) {
		if len(f.path) == 1 && f.lit != "" && f.isStr && f.op == "=" && hasAny(strings.ToLower(f.path[0]), "type", "kind") {
			types = append(types, f.lit)
		}
	}
	return fields, types
}

func sqlKeyword(s string) bool {
	switch strings.ToUpper(s) {
	case "WHERE", "JOIN", "ORDER", "GROUP", "OFFSET", "LIMIT", "IN":
		return true
	}
	return false
}

// queryFit is how well one container's documents hold what a query reads.
type queryFit struct {
	ci      int
	typ     string   // the type holding the most of it
	have    int      // fields that type has
	missing []string // fields it lacks
	typeOK  bool     // the pinned type value is one of the container's types (or none is pinned)
}

func (f queryFit) full(n int) bool { return f.have == n && f.typeOK }

// fits scores every container against what the query reads, best first.
func (b *builder) fits(sql string) ([]queryFit, []string) {
	fields, types := queryReads(sql)
	var out []queryFit
	for ci, c := range b.d.Containers {
		best := queryFit{ci: ci, have: -1}
		for ti := range c.Documents {
			d := &c.Documents[ti]
			f := queryFit{ci: ci, typ: d.Type, typeOK: len(types) == 0}
			for _, tv := range types {
				if strings.EqualFold(identifier(tv, "-"), d.Type) || strings.EqualFold(tv, d.Type) {
					f.typeOK = true
				}
			}
			for _, n := range fields {
				if _, ok := d.Fields.Lookup(n); ok || slicesContains(d.AppFields, "/"+n) {
					f.have++
				} else {
					f.missing = append(f.missing, n)
				}
			}
			if f.typeOK && !best.typeOK || f.typeOK == best.typeOK && f.have > best.have {
				best = f
			}
		}
		out = append(out, best)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].typeOK != out[j].typeOK {
			return out[i].typeOK
		}
		return out[i].have > out[j].have
	})
	return out, fields
}

// placeQuery checks the container a query was given (by its heading, lead-in or the table) against
// the fields and type it reads: it keeps it when its documents hold them, moves the query to the one
// container whose documents do, and says which and why when two fit. It returns the container index
// and a TODO ("" when nothing needs checking).
func (b *builder) placeQuery(ci int, how, sql string) (int, string) {
	if sql == "" || len(b.d.Containers) < 2 {
		return ci, ""
	}
	fs, fields := b.fits(sql)
	if len(fields) == 0 {
		return ci, ""
	}
	var full []queryFit
	var given *queryFit
	for i := range fs {
		if fs[i].full(len(fields)) {
			full = append(full, fs[i])
		}
		if fs[i].ci == ci {
			given = &fs[i]
		}
	}
	names := func(qs []queryFit) string {
		var ss []string
		for _, q := range qs {
			ss = append(ss, fmt.Sprintf("%s (%q)", b.d.Containers[q.ci].Name, q.typ))
		}
		if len(ss) > 1 {
			return strings.Join(ss[:len(ss)-1], ", ") + " and " + ss[len(ss)-1]
		}
		return strings.Join(ss, "")
	}
	read := strings.Join(fields, ", ")
	switch {
	case len(full) == 0:
		if ci < 0 {
			return fs[0].ci, fmt.Sprintf("no container's documents have every field the query reads (%s): %s's %q has the most; check the query and the examples", read, b.d.Containers[fs[0].ci].Name, fs[0].typ)
		}
		return ci, ""
	case ci >= 0 && given != nil && given.full(len(fields)):
		if len(full) > 1 {
			return ci, fmt.Sprintf("%s all have the fields the query reads (%s); %s kept, as %s says", names(full), read, b.d.Containers[ci].Name, how)
		}
		return ci, ""
	case len(full) == 1:
		why := fmt.Sprintf("container %s: its %q documents have every field the query reads (%s)", b.d.Containers[full[0].ci].Name, full[0].typ, read)
		if ci >= 0 && given != nil {
			why += fmt.Sprintf("; %s (from %s) lacks %s", b.d.Containers[ci].Name, how, strings.Join(given.missing, ", "))
		}
		return full[0].ci, why
	default:
		pick := full[0].ci
		return pick, fmt.Sprintf("%s all have the fields the query reads (%s): %s chosen as the first; set the container the query runs in", names(full), read, b.d.Containers[pick].Name)
	}
}
