package importer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cosmosdv/validate/internal/design"
)

// Queries in modeling documents carry example literals (`WHERE c.userId = "user_123"`). The draft
// turns a literal compared with a generated field into a parameter filled from the sampled document,
// so that every execution finds data; enum values and the type discriminator stay literals.

type sqlTok struct {
	kind       byte // i ident, s string, n number, p @param, o operator, . dot, x other
	s          string
	start, end int
}

func sqlTokens(q string) []sqlTok {
	var out []sqlTok
	for i := 0; i < len(q); {
		r, w := utf8.DecodeRuneInString(q[i:])
		switch {
		case unicode.IsSpace(r):
			i += w
		case r == '\'' || r == '"':
			j := i + 1
			for j < len(q) && q[j] != byte(r) {
				if q[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(q))
			out = append(out, sqlTok{'s', q[i+1 : min(j, len(q))], i, end})
			i = end
		case r == '@':
			j := i + 1
			for j < len(q) && isIdentByte(q[j]) {
				j++
			}
			out = append(out, sqlTok{'p', q[i:j], i, j})
			i = j
		case r >= '0' && r <= '9' || r == '-' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9' && lastIsOp(out):
			j := i + 1
			for j < len(q) && (q[j] >= '0' && q[j] <= '9' || q[j] == '.') {
				j++
			}
			out = append(out, sqlTok{'n', q[i:j], i, j})
			i = j
		case unicode.IsLetter(r) || r == '_' || r == '$':
			j := i
			for j < len(q) {
				r2, w2 := utf8.DecodeRuneInString(q[j:])
				if !(unicode.IsLetter(r2) || unicode.IsDigit(r2) || r2 == '_' || r2 == '$') {
					break
				}
				j += w2
			}
			out = append(out, sqlTok{'i', q[i:j], i, j})
			i = j
		case r == '.':
			out = append(out, sqlTok{'.', ".", i, i + 1})
			i++
		case strings.ContainsRune("=<>!", r):
			j := i + 1
			for j < len(q) && strings.IndexByte("=<>", q[j]) >= 0 {
				j++
			}
			out = append(out, sqlTok{'o', q[i:j], i, j})
			i = j
		default:
			out = append(out, sqlTok{'x', string(r), i, i + w})
			i += w
		}
	}
	return out
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func lastIsOp(ts []sqlTok) bool {
	return len(ts) == 0 || ts[len(ts)-1].kind == 'o' || ts[len(ts)-1].kind == 'x'
}

// sqlFilter is one comparison of a property path with a literal or a parameter.
type sqlFilter struct {
	path   []string
	op     string
	lit    string
	litTok int // index of the literal token, -1 for a parameter
	isStr  bool
	param  string
}

func sqlFilters(q string) []sqlFilter {
	ts := sqlTokens(q)
	var out []sqlFilter
	// alias.path op value | value op alias.path
	readPath := func(i int) ([]string, int) {
		if i >= len(ts) || ts[i].kind != 'i' || i+2 >= len(ts) || ts[i+1].kind != '.' {
			return nil, i
		}
		var p []string
		j := i + 1
		for j+1 < len(ts) && ts[j].kind == '.' && ts[j+1].kind == 'i' {
			p = append(p, ts[j+1].s)
			j += 2
		}
		return p, j
	}
	for i := 0; i < len(ts); i++ {
		p, j := readPath(i)
		if p != nil && j+1 < len(ts) && ts[j].kind == 'o' {
			v := ts[j+1]
			f := sqlFilter{path: p, op: ts[j].s, litTok: -1}
			switch v.kind {
			case 's', 'n':
				f.lit, f.litTok, f.isStr = v.s, j+1, v.kind == 's'
			case 'p':
				f.param = v.s
			default:
				continue
			}
			out = append(out, f)
			i = j + 1
			continue
		}
		if (ts[i].kind == 'p' || ts[i].kind == 's') && i+2 < len(ts) && ts[i+1].kind == 'o' {
			if p, _ := readPath(i + 2); p != nil {
				f := sqlFilter{path: p, op: ts[i+1].s, litTok: -1}
				if ts[i].kind == 'p' {
					f.param = ts[i].s
				} else {
					f.lit, f.litTok, f.isStr = ts[i].s, i, true
				}
				out = append(out, f)
			}
		}
	}
	return out
}

func fieldAt(t *design.DocType, path []string) *design.Field {
	fs := t.Fields
	var f *design.Field
	for _, seg := range path {
		g, ok := fs.Lookup(seg)
		if !ok {
			return nil
		}
		f, fs = g, g.Object
	}
	return f
}

func (b *builder) query(path string, ap *design.AccessPattern, r *row, sql string, t *design.DocType, c *design.Container) {
	if sql == "" {
		first := strings.TrimPrefix(c.PartitionKey[0], "/")
		sql = fmt.Sprintf("SELECT * FROM c WHERE c.%s = @%s", strings.ReplaceAll(first, "/", "."), lastSeg(first))
		b.gap(path+".query", "the row gives no SQL; this query by the partition key is a placeholder")
	}
	sql = strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(sql), ";")), " ")
	filters := sqlFilters(sql)
	// The sample should have the fields the query filters on.
	score := func(d *design.DocType) int {
		n := 0
		for _, f := range filters {
			if fieldAt(d, f.path) != nil {
				n++
			}
		}
		return n
	}
	if best := score(t); best < len(filters) {
		for i := range c.Documents {
			if s := score(&c.Documents[i]); s > best && !pinsOtherType(filters, c.Documents[i].Type) {
				t, best = &c.Documents[i], s
			}
		}
	}
	ap.Sample = t.Type
	params := map[string]any{}
	ts := sqlTokens(sql)
	repl := map[int]string{}
	var unknown []string
	bound := map[string]string{} // path → template, for '=' filters
	taken := map[string]bool{}
	for _, f := range filters {
		if f.param != "" {
			taken[f.param] = true
		}
	}
	for _, f := range filters {
		fld := fieldAt(t, f.path)
		tpl := "{" + strings.Join(f.path, ".") + "}"
		for _, seg := range f.path {
			if !placeholderName(seg) {
				fld = nil // a name a template cannot hold: treated as unknown
			}
		}
		switch {
		case f.param != "":
			if _, done := params[f.param]; done {
				continue
			}
			if fld != nil {
				params[f.param] = tpl
				if f.op == "=" {
					bound[strings.Join(f.path, "/")] = tpl
				}
			} else {
				params[f.param] = "TODO"
				unknown = append(unknown, f.param)
			}
		case f.op == "=" && f.isStr && fld != nil && (isKey(c, f.path) && fld.Const == nil || !keepLiteral(fld, f.lit)):
			name := "@" + lastSeg(strings.Join(f.path, "/"))
			for i := 2; taken[name]; i++ {
				name = "@" + lastSeg(strings.Join(f.path, "/")) + strconv.Itoa(i)
			}
			taken[name] = true
			repl[f.litTok] = name
			params[name] = tpl
			bound[strings.Join(f.path, "/")] = tpl
		}
	}
	// Parameters the filters did not explain (in functions, IN lists, ...).
	for _, tk := range ts {
		if tk.kind == 'p' {
			if _, ok := params[tk.s]; !ok {
				name := strings.TrimPrefix(tk.s, "@")
				if f, ok := t.Fields.Lookup(name); ok && f != nil && placeholderName(name) {
					params[tk.s] = "{" + name + "}"
				} else {
					params[tk.s] = "TODO"
					unknown = append(unknown, tk.s)
				}
			}
		}
	}
	if len(repl) > 0 {
		var sb strings.Builder
		last := 0
		for i, tk := range ts {
			if name, ok := repl[i]; ok {
				sb.WriteString(sql[last:tk.start])
				sb.WriteString(name)
				last = tk.end
			}
		}
		sb.WriteString(sql[last:])
		b.todo(path+".query", "example literals compared with generated fields became parameters filled from the sampled %q", t.Type)
		sql = sb.String()
	}
	ap.Query = sql
	// The design reads parameters its own way; agree with it exactly.
	used := design.QueryParams(sql)
	for k := range params {
		if !slicesContains(used, k) {
			delete(params, k)
		}
	}
	for _, k := range used {
		if _, ok := params[k]; !ok {
			params[k] = "TODO"
			unknown = append(unknown, k)
		}
	}
	if len(params) > 0 {
		ap.Params = params
	}
	if len(unknown) > 0 {
		b.gap(path+".params", "%s: no field of %q to fill from; set a value", strings.Join(dedupe(unknown), ", "), t.Type)
	}
	// The partition key, when the query pins it.
	var key []string
	for _, kp := range c.PartitionKey {
		tpl, ok := bound[strings.TrimPrefix(kp, "/")]
		if !ok {
			break
		}
		key = append(key, tpl)
	}
	switch {
	case len(key) == len(c.PartitionKey):
		ap.PartitionKey = key
	case len(key) > 0:
		ap.PartitionKey = key
		b.note(path+".partitionKey", "a prefix of the hierarchical key: the query reaches the partitions of that prefix")
	default:
		b.todo(path+".query", "the query does not pin the partition key: it runs across partitions")
	}
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func pinsOtherType(filters []sqlFilter, typ string) bool {
	for _, f := range filters {
		if len(f.path) == 1 && hasAny(strings.ToLower(f.path[0]), "type", "kind") && f.lit != "" && !strings.EqualFold(identifier(f.lit, "-"), typ) {
			return true
		}
	}
	return false
}

// keepLiteral: a literal that is a value of the field's enum (or its constant) stays in the query.
func keepLiteral(f *design.Field, lit string) bool {
	if f.Const != nil {
		return true
	}
	for _, v := range f.OneOf {
		if s, ok := v.(string); ok && s == lit {
			return true
		}
	}
	return false
}

func lastSeg(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	return identifier(p, "_")
}

func isKey(c *design.Container, path []string) bool {
	p := "/" + strings.Join(path, "/")
	for _, k := range c.PartitionKey {
		if k == p {
			return true
		}
	}
	return false
}
