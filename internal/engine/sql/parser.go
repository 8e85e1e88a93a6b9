package sql

import (
	"fmt"
	"sort"
	"strings"
)

// Limits of the parser. MaxQueryLength is the service's: "Maximum length of SQL query: 512 KB"
// (learn.microsoft.com/azure/cosmos-db/concepts-limits, "SQL query limits"). MaxJoins is the
// service's "Maximum JOINs per query: 10" from the same table. MaxDepth and MaxParams are this
// engine's own guards against pathological input; the service documents no figure for them.
//
// MaxLogicalAnd, MaxLogicalOr and MaxInItems are the term limits the service's account advertises to
// SDKs in its queryEngineConfiguration (maxLogicalAndPerSqlQuery 500, maxLogicalOrPerSqlQuery 500,
// maxInExpressionItemsCount 16000: the values the engine's own GET / returns, as the emulators and
// the .NET SDK's query-plan tests carry them); the service refuses a query past them.
const (
	MaxQueryLength = 512 * 1024
	MaxJoins       = 10
	MaxDepth       = 128
	MaxParams      = 10000
	MaxLogicalAnd  = 500
	MaxLogicalOr   = 500
	MaxInItems     = 16000
)

type parser struct {
	text  string
	toks  []token
	pos   int
	depth int
	refs  map[string]bool
	terms map[string]int // ANDs and ORs so far, against MaxLogicalAnd and MaxLogicalOr
}

// Parse parses and binds a query. Errors are *Error values in the service's 400 style.
func Parse(text string) (*Query, error) {
	if len(text) > MaxQueryLength {
		return nil, errPlain("SC1002", "The SQL query text exceeded the maximum limit of %d characters.", MaxQueryLength)
	}
	toks, err := lex(text)
	if err != nil {
		return nil, err
	}
	p := &parser{text: text, toks: toks, refs: map[string]bool{}, terms: map[string]int{}}
	q, err := p.parseQuery(false)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.syntaxErr(t)
	}
	q.text = text
	if len(p.refs) > MaxParams {
		return nil, errPlain("SC1003", "The query references %d parameters; the maximum is %d.", len(p.refs), MaxParams)
	}
	b := &binder{text: text, slotPaths: map[int][]string{}}
	if err := b.bindQuery(q, nil); err != nil {
		return nil, err
	}
	q.nslots = b.next
	q.params = p.refs
	q.slotPaths = b.slotPaths
	q.fields, q.whole = docFields(q)
	q.walkFields, q.walkWhole = walkFields(q)
	return q, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) syntaxErr(t token) error {
	if t.kind == tEOF {
		return errAt(p.text, t.start, t.end, "SC1001", "Syntax error, unexpected end-of-file.")
	}
	near := p.text[t.start:t.end]
	return errAt(p.text, t.start, t.end, "SC1001", fmt.Sprintf("Syntax error, incorrect syntax near '%s'.", near))
}

// isKw reports whether t is the keyword kw (case-insensitive).
func isKw(t token, kw string) bool {
	return t.kind == tIdent && len(t.text) == len(kw) && strings.EqualFold(t.text, kw)
}

func (p *parser) acceptKw(kw string) bool {
	if isKw(p.peek(), kw) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expectKw(kw string) error {
	if !p.acceptKw(kw) {
		return p.syntaxErr(p.peek())
	}
	return nil
}

func isOp(t token, op string) bool { return t.kind == tOp && t.text == op }

func (p *parser) acceptOp(op string) bool {
	if isOp(p.peek(), op) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expectOp(op string) error {
	if !p.acceptOp(op) {
		return p.syntaxErr(p.peek())
	}
	return nil
}

// aliasName reads a non-keyword identifier.
func (p *parser) aliasName() (string, error) {
	t := p.peek()
	if t.kind != tIdent || keywords[strings.ToUpper(t.text)] {
		return "", p.syntaxErr(t)
	}
	p.pos++
	return t.text, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		t := p.peek()
		return errAt(p.text, t.start, t.end, "SC1004", fmt.Sprintf("The query is nested too deeply; the maximum nesting depth is %d.", MaxDepth))
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) parseQuery(sub bool) (*Query, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	q := &Query{sub: sub}
	start := p.peek().start
	if err := p.expectKw("SELECT"); err != nil {
		return nil, err
	}
	for {
		if p.acceptKw("DISTINCT") {
			q.distinct = true
			continue
		}
		if q.top == nil && p.acceptKw("TOP") {
			e, err := p.parseCount()
			if err != nil {
				return nil, err
			}
			q.top = e
			continue
		}
		break
	}
	lstart := p.peek().start
	defer func() { q.spans.list = p.text[lstart:max(lstart, q.spans.listEnd)] }()
	switch {
	case p.acceptOp("*"):
		q.star = true
	case p.acceptKw("VALUE"):
		vstart := p.peek().start
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		q.value = true
		q.items = []selectItem{{e: e, text: p.since(vstart)}}
	default:
		for {
			istart := p.peek().start
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			it := selectItem{e: e, text: p.since(istart)}
			if p.acceptKw("AS") {
				if it.alias, err = p.aliasName(); err != nil {
					return nil, err
				}
			} else if t := p.peek(); t.kind == tIdent && !keywords[strings.ToUpper(t.text)] {
				it.alias = t.text
				p.pos++
			}
			q.items = append(q.items, it)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	q.spans.listEnd = p.toks[p.pos-1].end
	if fstart := p.peek().start; p.acceptKw("FROM") {
		f, err := p.parseFrom()
		if err != nil {
			return nil, err
		}
		q.from = f
		for p.acceptKw("JOIN") {
			j, err := p.parseJoin()
			if err != nil {
				return nil, err
			}
			q.joins = append(q.joins, j)
			if len(q.joins) > MaxJoins {
				t := p.toks[p.pos-1]
				return nil, errAt(p.text, t.start, t.end, "SC1005", fmt.Sprintf("The query has more than %d JOINs, the maximum the service allows.", MaxJoins))
			}
		}
		q.spans.from = p.since(fstart)
	}
	if p.acceptKw("WHERE") {
		wstart := p.peek().start
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		q.where = e
		q.spans.where = p.since(wstart)
	}
	if p.acceptKw("GROUP") {
		if err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		for {
			gstart := p.peek().start
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			q.groupBy = append(q.groupBy, e)
			q.spans.groupBy = append(q.spans.groupBy, p.since(gstart))
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKw("ORDER") {
		if err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		q.orderByAt = p.peek().start
		for {
			// RANK is a keyword only before a function call (ORDER BY RANK FullTextScore(...)); a
			// property named rank (ORDER BY c.rank) is still a path.
			rank := isKw(p.peek(), "RANK") && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == tIdent
			if rank {
				p.pos++
			}
			ostart := p.peek().start
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			it := orderItem{e: e, rank: rank, text: p.since(ostart)}
			if p.acceptKw("DESC") {
				it.desc = true
			} else {
				p.acceptKw("ASC")
			}
			q.orderBy = append(q.orderBy, it)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKw("OFFSET") {
		e, err := p.parseCount()
		if err != nil {
			return nil, err
		}
		q.offset = e
		if err := p.expectKw("LIMIT"); err != nil {
			return nil, err
		}
		if q.limit, err = p.parseCount(); err != nil {
			return nil, err
		}
	}
	end := p.peek().start
	q.text = strings.TrimSpace(p.text[start:end])
	return q, nil
}

// since returns the query text from start to the end of the last token consumed.
func (p *parser) since(start int) string {
	end := start
	if p.pos > 0 {
		end = max(p.toks[p.pos-1].end, start)
	}
	return strings.TrimSpace(p.text[start:end])
}

// parseCount reads the operand of TOP, OFFSET or LIMIT: an integer literal or a parameter.
func (p *parser) parseCount() (expr, error) {
	t := p.next()
	switch t.kind {
	case tNumber:
		if t.num < 0 || t.num != float64(int64(t.num)) {
			return nil, errAt(p.text, t.start, t.end, "SC1001", fmt.Sprintf("Syntax error, incorrect syntax near '%s'.", t.text))
		}
		return &literal{val: t.num}, nil
	case tParam:
		p.refs[t.text] = true
		return &param{name: t.text}, nil
	}
	return nil, p.syntaxErr(t)
}

func (p *parser) parseFrom() (*fromClause, error) {
	t := p.peek()
	if t.kind == tIdent && !keywords[strings.ToUpper(t.text)] && isKw(p.toks[p.pos+1], "IN") {
		p.pos += 2
		src, err := p.parsePostfix()
		if err != nil {
			return nil, err
		}
		return &fromClause{alias: t.text, src: src, in: true}, nil
	}
	if isOp(t, "(") {
		return nil, errAt(p.text, t.start, t.end, "SC2010", "Subqueries in the FROM clause are not supported by this engine; use JOIN or a subquery in the SELECT list.")
	}
	src, err := p.parsePostfix()
	if err != nil {
		return nil, err
	}
	f := &fromClause{src: src}
	if p.acceptKw("AS") {
		if f.alias, err = p.aliasName(); err != nil {
			return nil, err
		}
	} else if t := p.peek(); t.kind == tIdent && !keywords[strings.ToUpper(t.text)] {
		f.alias = t.text
		p.pos++
	}
	if f.alias == "" {
		switch s := src.(type) {
		case *ident:
			f.alias = s.name
		case *member:
			f.alias = s.name
		default:
			return nil, errAt(p.text, t.start, p.peek().start, "SC1001", "Syntax error, the FROM source needs an alias (AS name).")
		}
	}
	return f, nil
}

func (p *parser) parseJoin() (joinClause, error) {
	t := p.peek()
	if isOp(t, "(") && isKw(p.toks[p.pos+1], "SELECT") {
		p.pos++
		q, err := p.parseQuery(true)
		if err != nil {
			return joinClause{}, err
		}
		if err := p.expectOp(")"); err != nil {
			return joinClause{}, err
		}
		p.acceptKw("AS")
		alias, err := p.aliasName()
		if err != nil {
			return joinClause{}, err
		}
		return joinClause{alias: alias, sub: q}, nil
	}
	alias, err := p.aliasName()
	if err != nil {
		return joinClause{}, err
	}
	if err := p.expectKw("IN"); err != nil {
		return joinClause{}, err
	}
	src, err := p.parsePostfix()
	if err != nil {
		return joinClause{}, err
	}
	if s, ok := src.(*subquery); ok && s.kind == subScalar {
		return joinClause{alias: alias, sub: s.q}, nil
	}
	return joinClause{alias: alias, src: src}, nil
}

func (p *parser) parseExpr() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	c, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if p.acceptOp("?") {
		then, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(":"); err != nil {
			return nil, err
		}
		els, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		return &ternary{cond: c, then: then, els: els}, nil
	}
	if p.acceptOp("??") {
		r, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		return &binary{op: "??", l: c, r: r}, nil
	}
	return c, nil
}

func (p *parser) parseOr() (expr, error) { return p.parseKeywordChain("OR", p.parseAnd) }

func (p *parser) parseAnd() (expr, error) { return p.parseKeywordChain("AND", p.parseNot) }

// parseKeywordChain parses operands joined by a keyword operator (OR, AND), left-associative.
func (p *parser) parseKeywordChain(kw string, operand func() (expr, error)) (expr, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	limit := MaxLogicalAnd
	if kw == "OR" {
		limit = MaxLogicalOr
	}
	for p.acceptKw(kw) {
		p.terms[kw]++
		if p.terms[kw] > limit {
			t := p.toks[p.pos-1]
			return nil, errAt(p.text, t.start, t.end, "SC1004", fmt.Sprintf("The query has more than %d logical %ss, the maximum the service allows.", limit, kw))
		}
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = &binary{op: kw, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseNot() (expr, error) {
	if p.acceptKw("NOT") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &unary{op: "NOT", x: x}, nil
	}
	return p.parseCompare()
}

var compareOps = map[string]bool{"=": true, "!=": true, "<>": true, "<": true, ">": true, "<=": true, ">=": true}

func (p *parser) parseCompare() (expr, error) {
	l, err := p.parseConcat()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind == tOp && compareOps[t.text] {
			p.pos++
			r, err := p.parseConcat()
			if err != nil {
				return nil, err
			}
			op := t.text
			if op == "<>" {
				op = "!="
			}
			l = &binary{op: op, l: l, r: r}
			continue
		}
		not := false
		if isKw(t, "NOT") {
			nt := p.toks[p.pos+1]
			if !isKw(nt, "IN") && !isKw(nt, "BETWEEN") && !isKw(nt, "LIKE") {
				return l, nil
			}
			p.pos++
			not = true
			t = p.peek()
		}
		switch {
		case isKw(t, "IN"):
			p.pos++
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			in := &inExpr{x: l, not: not}
			if !p.acceptOp(")") {
				for {
					e, err := p.parseExpr()
					if err != nil {
						return nil, err
					}
					in.list = append(in.list, e)
					if len(in.list) > MaxInItems {
						return nil, errAt(p.text, t.start, t.end, "SC1004", fmt.Sprintf("The IN expression has more than %d items, the maximum the service allows.", MaxInItems))
					}
					if p.acceptOp(")") {
						break
					}
					if err := p.expectOp(","); err != nil {
						return nil, err
					}
				}
			}
			l = in
		case isKw(t, "BETWEEN"):
			p.pos++
			lo, err := p.parseConcat()
			if err != nil {
				return nil, err
			}
			if err := p.expectKw("AND"); err != nil {
				return nil, err
			}
			hi, err := p.parseConcat()
			if err != nil {
				return nil, err
			}
			l = &between{x: l, lo: lo, hi: hi, not: not}
		case isKw(t, "LIKE"):
			p.pos++
			pat, err := p.parseConcat()
			if err != nil {
				return nil, err
			}
			lk := &likeExpr{x: l, pattern: pat, not: not}
			if p.acceptKw("ESCAPE") {
				if lk.escape, err = p.parseConcat(); err != nil {
					return nil, err
				}
			}
			l = lk
		default:
			return l, nil
		}
	}
}

// binaryLevels are the left-associative binary operator levels from loosest to tightest.
var binaryLevels = [][]string{
	{"||"},
	{"|"},
	{"^"},
	{"&"},
	{"<<", ">>", ">>>"},
	{"+", "-"},
	{"*", "/", "%"},
}

func (p *parser) parseConcat() (expr, error) { return p.parseLevel(0) }

func (p *parser) parseLevel(level int) (expr, error) {
	if level == len(binaryLevels) {
		return p.parseUnary()
	}
	l, err := p.parseLevel(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		matched := false
		if t.kind == tOp {
			for _, op := range binaryLevels[level] {
				if t.text == op {
					matched = true
					break
				}
			}
		}
		if !matched {
			return l, nil
		}
		p.pos++
		r, err := p.parseLevel(level + 1)
		if err != nil {
			return nil, err
		}
		l = &binary{op: t.text, l: l, r: r}
	}
}

func (p *parser) parseUnary() (expr, error) {
	t := p.peek()
	if isOp(t, "-") || isOp(t, "+") || isOp(t, "~") || isKw(t, "NOT") {
		p.pos++
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		op := t.text
		if isKw(t, "NOT") {
			op = "NOT"
		}
		if lit, ok := x.(*literal); ok && op == "-" {
			if f, ok := lit.val.(float64); ok {
				return &literal{val: -f}, nil
			}
		}
		return &unary{op: op, x: x}, nil
	}
	return p.parsePostfix()
}

func (p *parser) parsePostfix() (expr, error) {
	x, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.acceptOp("."):
			t := p.next()
			if t.kind != tIdent {
				return nil, p.syntaxErr(t)
			}
			x = &member{x: x, name: t.text, pos: t.start}
		case p.acceptOp("["):
			at := p.peek().start
			idx, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp("]"); err != nil {
				return nil, err
			}
			if lit, ok := idx.(*literal); ok {
				if s, ok := lit.val.(string); ok {
					x = &member{x: x, name: s, pos: at}
					continue
				}
			}
			x = &indexExpr{x: x, idx: idx}
		default:
			return x, nil
		}
	}
}

func (p *parser) parsePrimary() (expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.next()
	switch t.kind {
	case tNumber:
		return &literal{val: t.num}, nil
	case tString:
		return &literal{val: t.text}, nil
	case tParam:
		p.refs[t.text] = true
		return &param{name: t.text}, nil
	case tIdent:
		up := strings.ToUpper(t.text)
		switch up {
		case "TRUE":
			return &literal{val: true}, nil
		case "FALSE":
			return &literal{val: false}, nil
		case "NULL":
			return &literal{val: nil}, nil
		case "UNDEFINED":
			return &literal{val: Undefined}, nil
		case "EXISTS", "ARRAY":
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			q, err := p.parseQuery(true)
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			kind := subExists
			if up == "ARRAY" {
				kind = subArray
			}
			return &subquery{q: q, kind: kind}, nil
		case "UDF":
			if !p.acceptOp(".") {
				return nil, p.syntaxErr(p.peek())
			}
			nt := p.next()
			if nt.kind != tIdent {
				return nil, p.syntaxErr(nt)
			}
			args, err := p.parseArgs()
			if err != nil {
				return nil, err
			}
			return &call{name: nt.text, args: args, udf: true, pos: t.start}, nil
		}
		if isOp(p.peek(), "(") {
			args, err := p.parseArgs()
			if err != nil {
				return nil, err
			}
			return &call{name: up, args: args, pos: t.start}, nil
		}
		if keywords[up] {
			return nil, p.syntaxErr(t)
		}
		return &ident{name: t.text, pos: t.start}, nil
	case tOp:
		switch t.text {
		case "(":
			if isKw(p.peek(), "SELECT") {
				q, err := p.parseQuery(true)
				if err != nil {
					return nil, err
				}
				if err := p.expectOp(")"); err != nil {
					return nil, err
				}
				return &subquery{q: q, kind: subScalar}, nil
			}
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return e, nil
		case "[":
			a := &arrayLit{}
			if p.acceptOp("]") {
				return a, nil
			}
			for {
				e, err := p.parseExpr()
				if err != nil {
					return nil, err
				}
				a.elems = append(a.elems, e)
				if p.acceptOp("]") {
					return a, nil
				}
				if err := p.expectOp(","); err != nil {
					return nil, err
				}
			}
		case "{":
			o := &objectLit{}
			if p.acceptOp("}") {
				return o, nil
			}
			for {
				kt := p.next()
				if kt.kind != tIdent && kt.kind != tString {
					return nil, p.syntaxErr(kt)
				}
				if err := p.expectOp(":"); err != nil {
					return nil, err
				}
				v, err := p.parseExpr()
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, kt.text)
				o.vals = append(o.vals, v)
				if p.acceptOp("}") {
					return o, nil
				}
				if err := p.expectOp(","); err != nil {
					return nil, err
				}
			}
		}
	}
	return nil, p.syntaxErr(t)
}

func (p *parser) parseArgs() ([]expr, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var args []expr
	if p.acceptOp(")") {
		return args, nil
	}
	for {
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		args = append(args, e)
		if p.acceptOp(")") {
			return args, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

func sortStrings(s []string) { sort.Strings(s) }
