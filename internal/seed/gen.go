package seed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Doc is one generated document with what the loader and the probe need to address it.
type Doc struct {
	Type      string
	Container string
	// Seq is the 0-based sequence number of the document within its type (the {seq} placeholder).
	Seq int64
	ID  string
	// PK holds the partition-key values in level order (string, int64, float64, bool or nil).
	PK []any
	// Body is the document's JSON.
	Body []byte
}

// splitmix64 finaliser: a cheap, well-mixed hash used to derive independent per-document seeds.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func mix2(a, b uint64) uint64    { return splitmix(splitmix(a) ^ b) }
func mix3(a, b, c uint64) uint64 { return splitmix(mix2(a, b) ^ c) }

// Salts that keep the streams of different purposes apart.
const (
	saltDoc   = 0xd0c
	saltPer   = 0x9e7
	saltUUID  = 0x0a1d
	saltCard  = 0xca7d
	saltFresh = 0xf7e5
)

// rngPool hands out reseedable generators so that generation does not allocate one per field.
type rngPool struct {
	free []*pooled
}

type pooled struct {
	pcg rand.PCG
	r   *rand.Rand
}

func (p *rngPool) get(a, b uint64) *pooled {
	var x *pooled
	if n := len(p.free); n > 0 {
		x = p.free[n-1]
		p.free = p.free[:n-1]
	} else {
		x = &pooled{}
		x.r = rand.New(&x.pcg)
	}
	x.pcg.Seed(a, b)
	return x
}

func (p *rngPool) put(x *pooled) { p.free = append(p.free, x) }

// docState is the lazily evaluated state of one document being generated.
type docState struct {
	p      *Plan
	t      *typePlan
	seq    int64
	seed   uint64
	fresh  string // non-empty for probe-time documents: a tag that keeps ids and unique values apart
	parent func(path []string) (any, bool)
	pool   *rngPool
	vals   []any
	st     []uint8 // 0 pending, 1 in progress, 2 done, 3 absent
	id     string
	idSt   uint8
	uuid   string
}

var errCycle = errors.New("fields refer to each other in a cycle")

func (g *docState) reset(p *Plan, t *typePlan, seq int64, seed uint64) {
	g.p, g.t, g.seq, g.seed = p, t, seq, seed
	if cap(g.vals) < len(t.fields) {
		g.vals = make([]any, len(t.fields))
		g.st = make([]uint8, len(t.fields))
	}
	g.vals = g.vals[:len(t.fields)]
	g.st = g.st[:len(t.fields)]
	clear(g.vals)
	clear(g.st)
	g.id, g.idSt, g.uuid = "", 0, ""
}

func (g *docState) field(i int) (any, bool, error) {
	switch g.st[i] {
	case 1:
		return nil, false, errCycle
	case 2:
		return g.vals[i], true, nil
	case 3:
		return nil, false, nil
	}
	g.st[i] = 1
	f := g.t.fields[i]
	x := g.pool.get(g.seed, f.salt)
	v, ok, err := g.value(f, x.r)
	g.pool.put(x)
	if err != nil {
		return nil, false, fmt.Errorf("field %q: %w", f.name, err)
	}
	if !ok {
		g.st[i] = 3
		return nil, false, nil
	}
	g.vals[i], g.st[i] = v, 2
	return v, true, nil
}

func (g *docState) getID() (string, error) {
	switch g.idSt {
	case 1:
		return "", errCycle
	case 2:
		return g.id, nil
	}
	g.idSt = 1
	s, err := g.render(g.t.idTmpl)
	if err != nil {
		return "", fmt.Errorf("id: %w", err)
	}
	if g.fresh != "" {
		s += "~" + g.fresh
	}
	g.id, g.idSt = s, 2
	return s, nil
}

func (g *docState) getUUID() string {
	if g.uuid == "" {
		x := g.pool.get(g.seed, saltUUID)
		if g.fresh != "" {
			g.uuid = g.freshUUID(x.r)
		} else {
			g.uuid = uuidFrom(x.r)
		}
		g.pool.put(x)
	}
	return g.uuid
}

// freshUUID draws a UUID for a probe-time document from r mixed with the run's tag: a UUID is
// meant to be unique, and the document's seed no longer depends on the tag (docSeed), so two runs
// would otherwise write the same ones. The length is fixed, so charges do not change.
func (g *docState) freshUUID(r *rand.Rand) string {
	var pcg rand.PCG
	pcg.Seed(r.Uint64(), hashString(g.fresh))
	return uuidFrom(rand.New(&pcg))
}

func (g *docState) resolve(r ref) (any, bool, error) {
	switch r.special {
	case "id":
		id, err := g.getID()
		return id, err == nil, err
	case "seq":
		return g.seq, true, nil
	case "now":
		// Seeded documents must be byte-identical between runs, so "now" is a fixed instant there;
		// probe-time documents get the real clock.
		if g.fresh != "" {
			return time.Now().UTC().Format(time.RFC3339), true, nil
		}
		return fixedNow.Format(time.RFC3339), true, nil
	case "type":
		return g.t.name, true, nil
	case "uuid":
		return g.getUUID(), true, nil
	}
	if r.parent {
		if g.parent == nil {
			return nil, false, nil
		}
		v, ok := g.parent(r.path)
		return v, ok, nil
	}
	i, ok := g.t.fieldIdx[r.path[0]]
	if !ok {
		return nil, false, fmt.Errorf("no field %q", r.path[0])
	}
	v, ok, err := g.field(i)
	if err != nil || !ok {
		return nil, false, err
	}
	if len(r.path) == 1 {
		return v, true, nil
	}
	v, ok = lookup(v, r.path[1:])
	return v, ok, nil
}

func (g *docState) render(parts []tmplPart) (string, error) {
	if len(parts) == 1 && !parts[0].isRef {
		return parts[0].lit, nil
	}
	var sb strings.Builder
	for _, part := range parts {
		if !part.isRef {
			sb.WriteString(part.lit)
			continue
		}
		v, _, err := g.resolve(part.ref)
		if err != nil {
			return "", err
		}
		sb.WriteString(toText(v))
	}
	return sb.String(), nil
}

// value generates one value of f from r; ok=false means the (optional) field is absent.
func (g *docState) value(f *cfield, r *rand.Rand) (any, bool, error) {
	if f.optional > 0 && r.Float64() < f.optional {
		return nil, false, nil
	}
	switch f.kind {
	case kConst:
		return f.constVal, true, nil
	case kCopy:
		v, ok, err := g.resolve(f.ref)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, true, nil
		}
		return v, true, nil
	case kTemplate:
		s, err := g.render(f.tmpl)
		return s, err == nil, err
	case kOneOf:
		x := r.Float64() * f.cum[len(f.cum)-1]
		for i, c := range f.cum {
			if x < c {
				return f.oneOf[i], true, nil
			}
		}
		return f.oneOf[len(f.oneOf)-1], true, nil
	case kArray:
		n := f.arrMin + r.IntN(f.arrMax-f.arrMin+1)
		out := make([]any, 0, n)
		for range n {
			v, ok, err := g.value(f.of, r)
			if err != nil {
				return nil, false, err
			}
			if ok {
				out = append(out, v)
			}
		}
		return out, true, nil
	case kObject:
		o := &object{keys: make([]string, 0, len(f.obj)), vals: make([]any, 0, len(f.obj))}
		for _, sub := range f.obj {
			v, ok, err := g.value(sub, r)
			if err != nil {
				return nil, false, fmt.Errorf("%s: %w", sub.name, err)
			}
			if ok {
				o.add(sub.name, v)
			}
		}
		return o, true, nil
	case kGen:
		if f.card > 0 {
			k := drawIndex(r, f.card, f.dist, f.skew, f.hot)
			if f.gen == "int" && f.dist != "" && f.dist != "uniform" && float64(f.card) == f.max-f.min+1 {
				return int64(f.min) + int64(k), true, nil
			}
			// The k-th distinct value is the same in every document: it comes from a stream seeded
			// by the field and k only.
			x := g.pool.get(mix2(g.p.seed, saltCard), mix2(f.salt, uint64(k)))
			v := g.basic(f, x.r, false)
			g.pool.put(x)
			return v, true, nil
		}
		return g.basic(f, r, f.unique), true, nil
	}
	return nil, false, fmt.Errorf("field %q: no generator", f.name)
}

// drawIndex draws one of n distinct values: uniform, zipf (rank k with probability ∝ 1/(k+1)^s) or
// hot (value 0 with probability hot, the rest uniform).
func drawIndex(r *rand.Rand, n int, dist string, skew, hot float64) int {
	if n <= 1 {
		return 0
	}
	switch dist {
	case "zipf":
		if skew <= 1 {
			skew = 1.2
		}
		return int(rand.NewZipf(r, skew, 1, uint64(n-1)).Uint64())
	case "hot":
		if r.Float64() < hot {
			return 0
		}
		return 1 + r.IntN(n-1)
	default:
		return r.IntN(n)
	}
}

// basic runs a named generator. unique makes string values distinct per document by the sequence
// number (and the fresh tag for probe-time documents).
func (g *docState) basic(f *cfield, r *rand.Rand, unique bool) any {
	suffix := ""
	if unique {
		suffix = strconv.FormatInt(g.seq, 10)
		if g.fresh != "" {
			suffix += "-" + g.fresh
		}
	}
	withSuffix := func(s, sep string) string {
		if suffix == "" {
			return s
		}
		return s + sep + suffix
	}
	switch f.gen {
	case "firstName":
		return withSuffix(pick(r, firstNames), " ")
	case "lastName":
		return withSuffix(pick(r, lastNames), " ")
	case "fullName":
		return withSuffix(pick(r, firstNames)+" "+pick(r, lastNames), " ")
	case "email":
		local := strings.ToLower(pick(r, firstNames) + "." + pick(r, lastNames))
		if suffix != "" {
			local += "." + suffix
		} else {
			local += strconv.Itoa(r.IntN(100))
		}
		return local + "@" + pick(r, emailDomains)
	case "word":
		return withSuffix(pick(r, words), "-")
	case "text":
		n := f.bytes
		if n == 0 {
			n = defaultTextBytes
		}
		return text(r, n)
	case "code":
		n := f.bytes
		if n == 0 {
			n = 8
		}
		s := randomCode(r, n)
		if f.prefix != "" {
			s = f.prefix + "-" + s
		}
		return withSuffix(s, "-")
	case "sku":
		prefix := f.prefix
		if prefix == "" {
			prefix = "SKU"
		}
		return withSuffix(prefix+"-"+strconv.Itoa(100000+r.IntN(900000)), "-")
	case "uuid":
		if g.fresh != "" {
			return g.freshUUID(r)
		}
		return uuidFrom(r)
	case "vector":
		return vectorValue(r, f.dims)
	case "int":
		if unique {
			return int64(f.min) + g.seq
		}
		lo, hi := math.Ceil(f.min), math.Floor(f.max)
		if hi < lo {
			return int64(lo)
		}
		span := uint64(hi - lo + 1)
		return int64(lo) + int64(r.Uint64N(span))
	case "decimal", "money":
		v := f.min + r.Float64()*(f.max-f.min)
		scale := math.Pow(10, float64(f.decimals))
		v = math.Round(v*scale) / scale
		return math.Min(math.Max(v, f.min), f.max)
	case "bool":
		return r.IntN(2) == 1
	case "isoTime":
		return randomTime(r, f.from, f.to).Format("2006-01-02T15:04:05Z")
	case "epoch":
		return randomTime(r, f.from, f.to).Unix()
	case "city":
		return pick(r, cities)
	case "country":
		return pick(r, countries)
	case "phone":
		return fmt.Sprintf("+1-555-%03d-%04d", r.IntN(1000), r.IntN(10000))
	case "seq":
		return g.seq
	}
	return nil
}

func pick(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

func randomTime(r *rand.Rand, from, to time.Time) time.Time {
	span := to.Unix() - from.Unix()
	if span <= 0 {
		return from
	}
	return time.Unix(from.Unix()+r.Int64N(span), 0).UTC()
}

const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

func randomCode(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = codeAlphabet[r.IntN(len(codeAlphabet))]
	}
	return string(b)
}

// uuidFrom draws a version-4 UUID from r.
func uuidFrom(r *rand.Rand) string {
	var u [16]byte
	a, b := r.Uint64(), r.Uint64()
	for i := range 8 {
		u[i] = byte(a >> (8 * i))
		u[8+i] = byte(b >> (8 * i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var out [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out[j] = '-'
			j++
		}
		out[j], out[j+1] = hexDigits[c>>4], hexDigits[c&0xf]
		j += 2
	}
	return string(out[:])
}

// defaultTextBytes is the length of a text generator's value without bytes.
const defaultTextBytes = 100

// text returns exactly n bytes of sentence-like ASCII text.
func text(r *rand.Rand, n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]byte, 0, n+16)
	start := true
	inSentence := 0
	for len(b) < n {
		w := pick(r, words)
		if len(b) > 0 {
			b = append(b, ' ')
		}
		if start {
			b = append(b, w[0]-'a'+'A')
			b = append(b, w[1:]...)
			start = false
		} else {
			b = append(b, w...)
		}
		inSentence++
		if inSentence >= sentenceMin+r.IntN(sentenceSpread) {
			b = append(b, '.')
			start, inSentence = true, 0
		}
	}
	b = b[:n]
	if b[n-1] == ' ' {
		b[n-1] = '.'
	}
	return string(b)
}

// A sentence of the text generator ends after sentenceMin + IntN(sentenceSpread) words.
const (
	sentenceMin    = 6
	sentenceSpread = 8
)

// TextHasWord is the probability that a value of the text generator of n bytes holds word among
// its words (FullTextContains tokenizes a text into lower-case words of letters and digits; word is
// one of them). It is derived from text: each word is drawn uniformly and independently from the
// vocabulary (V words), a word takes its letters, a space and, once a sentence of 9.5 words on
// average, a full stop (μ bytes on average), and the text is cut at n bytes, which loses the word
// the cut falls in: about k = n/μ − 1/2 whole words (the renewal count of words ending within n
// bytes). A word of the vocabulary is among them with probability 1 − (1 − 1/V)^k; a word outside
// it with none (a cut last word's prefix aside).
func TextHasWord(n int, word string) float64 {
	m := 0
	for _, w := range words {
		if w == word {
			m++
		}
	}
	return textShare(n, float64(m)/float64(len(words)))
}

// TextHasSubstring is the probability that a value of the text generator of n bytes contains sub
// (CONTAINS; ignoreCase compares lower case), derived from text as TextHasWord is: each whole word
// holds sub with the share of vocabulary words that do, a sentence's first word (one in 9.5) in
// its capitalised form. known is false for a substring text draws across words (one holding a
// space or a full stop): the generator then does not tell.
func TextHasSubstring(n int, sub string, ignoreCase bool) (share float64, known bool) {
	if sub == "" {
		return 1, true
	}
	if strings.ContainsAny(sub, " .") {
		return 1, false
	}
	if ignoreCase {
		sub = strings.ToLower(sub)
	}
	capital := 1 / (sentenceMin + float64(sentenceSpread-1)/2)
	p := 0.0
	for _, w := range words {
		capd := strings.ToUpper(w[:1]) + w[1:]
		if ignoreCase {
			capd = w
		}
		if strings.Contains(w, sub) {
			p += 1 - capital
		}
		if strings.Contains(capd, sub) {
			p += capital
		}
	}
	return textShare(n, p/float64(len(words))), true
}

// textShare is the probability that at least one of a text's whole words matches, each with
// probability p (see TextHasWord).
func textShare(n int, p float64) float64 {
	if n <= 0 {
		n = defaultTextBytes
	}
	letters := 0
	for _, w := range words {
		letters += len(w)
	}
	perSentence := sentenceMin + float64(sentenceSpread-1)/2
	mu := float64(letters)/float64(len(words)) + 1 + 1/perSentence
	k := math.Max(float64(n)/mu-0.5, 0)
	return 1 - math.Pow(1-p, k)
}

// generator carries the reusable state of one goroutine's generation.
type generator struct {
	p    *Plan
	pool rngPool
	st   docState
	buf  []byte
}

func (p *Plan) newGenerator() *generator {
	g := &generator{p: p}
	g.st.pool = &g.pool
	return g
}

// docSeed is the independent seed of one document.
// The fresh tag changes a document's id and unique values only, not its seed: a run's tag is random
// (so that runs never collide on a shared account), and seeding from it made the content, the size
// and so the charge of every probe-time write differ from run to run with the same seed.
func (p *Plan) docSeed(t *typePlan, seq int64, fresh string) uint64 {
	s := mix3(p.seed^saltDoc, uint64(t.index)+1, uint64(seq))
	if fresh != "" {
		s = mix2(s^saltFresh, 1)
	}
	return s
}

// childCount is how many children of type c the parent with sequence number parentSeq gets.
func (p *Plan) childCount(c *typePlan, parentSeq int64) int {
	per := c.per
	if per.Max <= per.Min {
		return per.Min
	}
	var pcg rand.PCG
	pcg.Seed(mix3(p.seed^saltPer, uint64(c.index)+1, uint64(parentSeq)), saltPer)
	r := rand.New(&pcg)
	span := per.Max - per.Min
	switch per.Dist {
	case "zipf":
		return per.Min + int(rand.NewZipf(r, 1.2, 1, uint64(span)).Uint64())
	case "hot":
		// The first parent is the hot one and gets the maximum; the others stay in the lowest tenth.
		if parentSeq == 0 {
			return per.Max
		}
		return per.Min + r.IntN(span/10+1)
	default:
		return per.Min + r.IntN(span+1)
	}
}

// gen builds one document. The returned Doc owns its Body; obj is the generator's view of the
// top-level values, valid until the next call.
func (g *generator) gen(t *typePlan, seq int64, fresh string, parent func([]string) (any, bool)) (*Doc, error) {
	st := &g.st
	st.reset(g.p, t, seq, g.p.docSeed(t, seq, fresh))
	st.fresh, st.parent = fresh, parent
	id, err := st.getID()
	if err != nil {
		return nil, err
	}
	for i := range t.fields {
		if _, _, err := st.field(i); err != nil {
			return nil, err
		}
	}
	b := g.buf[:0]
	b = append(b, `{"id":`...)
	b = appendString(b, id)
	for i, f := range t.fields {
		if st.st[i] != 2 || f.name == "id" {
			continue
		}
		b = append(b, ',')
		b = appendString(b, f.name)
		b = append(b, ':')
		b = appendJSON(b, st.vals[i])
	}
	// Pad with filler text to the target size: ,"pad":"…" costs 10 bytes besides the text.
	if t.targetB > 0 {
		if room := t.targetB - (len(b) + 1) - 10; room > 0 {
			x := g.pool.get(st.seed, 0x9ad)
			b = append(b, `,"pad":`...)
			b = appendString(b, text(x.r, room))
			g.pool.put(x)
		}
	}
	b = append(b, '}')
	g.buf = b
	d := &Doc{Type: t.name, Container: t.container, Seq: seq, ID: id, Body: append([]byte(nil), b...)}
	d.PK = make([]any, len(t.pkPaths))
	for i, path := range t.pkPaths {
		v, _ := st.lookupPath(path)
		d.PK[i] = v
	}
	return d, nil
}

// lookupPath reads a generated top-level value by path (valid after gen).
func (g *docState) lookupPath(path []string) (any, bool) {
	if len(path) == 0 {
		return nil, false
	}
	if path[0] == "id" && len(path) == 1 {
		return g.id, true
	}
	i, ok := g.t.fieldIdx[path[0]]
	if !ok || g.st[i] != 2 {
		return nil, false
	}
	if len(path) == 1 {
		return g.vals[i], true
	}
	return lookup(g.vals[i], path[1:])
}

// snapshot copies the top-level values so children can read their parent after the generator moved on.
func (g *docState) snapshot() *object {
	o := &object{}
	o.add("id", g.id)
	for i, f := range g.t.fields {
		if g.st[i] == 2 {
			o.add(f.name, g.vals[i])
		}
	}
	return o
}

func objectLookup(o *object) func([]string) (any, bool) {
	return func(path []string) (any, bool) { return lookup(o, path) }
}

func mapLookup(m map[string]any) func([]string) (any, bool) {
	return func(path []string) (any, bool) { return lookup(m, path) }
}

// dryRun generates the first document of t (with a synthetic parent when it has one).
func (p *Plan) dryRun(t *typePlan) (*Doc, error) {
	var parent func([]string) (any, bool)
	if t.parent != nil {
		pd, err := p.dryRun(t.parent)
		if err != nil {
			return nil, fmt.Errorf("parent %q: %w", t.parent.name, err)
		}
		parent = func(path []string) (any, bool) {
			var m map[string]any
			if err := jsonUnmarshal(pd.Body, &m); err != nil {
				return nil, false
			}
			return lookup(m, path)
		}
	}
	g := p.newGenerator()
	return g.gen(t, 0, "", parent)
}

// Walk generates every document of the design in a fixed order (each root document followed by its
// descendants, depth first) and calls fn for each. It stops at the first error fn returns or when
// ctx is done. Memory does not grow with the number of documents.
func (p *Plan) Walk(ctx context.Context, fn func(*Doc) error) error {
	g := p.newGenerator()
	seqs := make([]int64, len(p.types))
	var emit func(t *typePlan, parent func([]string) (any, bool)) error
	emit = func(t *typePlan, parent func([]string) (any, bool)) error {
		seq := seqs[t.index]
		seqs[t.index]++
		d, err := g.gen(t, seq, "", parent)
		if err != nil {
			return fmt.Errorf("%s #%d: %w", t.name, seq, err)
		}
		var self func([]string) (any, bool)
		if len(t.children) > 0 {
			self = objectLookup(g.st.snapshot())
		}
		if err := fn(d); err != nil {
			return err
		}
		for _, c := range t.children {
			n := p.childCount(c, seq)
			for range n {
				if err := emit(c, self); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, t := range p.types {
		if t.parent != nil {
			continue
		}
		for range t.count {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := emit(t, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// Fresh generates a document of docType that the seeding did not write: number n of this run, tagged
// with tag so that its id and unique values differ from every seeded document and from other runs'.
// parent is the decoded parent document for a child type (nil otherwise).
func (p *Plan) Fresh(docType string, n int64, tag string, parent map[string]any) (*Doc, error) {
	t, ok := p.byName[docType]
	if !ok {
		return nil, fmt.Errorf("unknown document type %q", docType)
	}
	if tag == "" {
		tag = "fresh"
	}
	var pl func([]string) (any, bool)
	if parent != nil {
		pl = mapLookup(parent)
	}
	g := p.newGenerator()
	return g.gen(t, n, tag, pl)
}

// vectorValue is a unit-length vector of n numbers with four decimals (an embedding's shape:
// cosine, dot product and euclidean agree on its nearest neighbours), from r alone.
func vectorValue(r *rand.Rand, n int) []any {
	if n <= 0 {
		n = 1
	}
	xs := make([]float64, n)
	var norm float64
	for i := range xs {
		xs[i] = r.NormFloat64()
		norm += xs[i] * xs[i]
	}
	norm = math.Sqrt(norm)
	out := make([]any, n)
	for i, x := range xs {
		if norm > 0 {
			x /= norm
		}
		out[i] = math.Round(x*1e4) / 1e4
	}
	return out
}
