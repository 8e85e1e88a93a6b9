package design

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Limits on the input, so that hostile or broken files fail fast with a clear message.
const (
	// MaxFileSize is the largest design file Load and Parse accept (4 MiB); real designs are a few KB.
	MaxFileSize = 4 << 20
	// maxDepth bounds how deeply mappings and sequences may nest in a design.
	maxDepth = 40
	// maxNodes bounds the YAML nodes visited while decoding, aliases expanded: it defuses alias
	// bombs ("billion laughs") without refusing ordinary anchors. Real designs have a few thousand.
	maxNodes = 200_000
)

// Load reads and parses the design file at path. Every error it returns matches ErrInvalid.
func Load(path string) (*Design, error) {
	fail := func(msg string, err error) (*Design, error) {
		return nil, Errors{{File: path, Msg: msg, Err: err}}
	}
	f, err := os.Open(path)
	if err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist):
			return fail("no such file", err)
		case errors.Is(err, os.ErrPermission):
			return fail("permission denied", err)
		}
		return fail("cannot open file", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fail("cannot stat file", err)
	}
	if st.IsDir() {
		return fail(fmt.Sprintf("is a directory, not a design file: give its design files (%s)", filepath.Join(path, "*.yaml")), nil)
	}
	if st.Size() > MaxFileSize {
		return fail(fmt.Sprintf("file is %d bytes; design files are limited to %d bytes", st.Size(), MaxFileSize), nil)
	}
	// Read at most one byte past the cap: the size can change, and special files have no size.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return fail("read file", err)
	}
	return Parse(data, path)
}

// Parse parses a design from YAML. file names the source in errors ("" is allowed). It decodes
// strictly (unknown keys are errors), checks the version, applies defaults and validates; on
// failure it returns Errors holding every problem found, sorted by position.
func Parse(data []byte, file string) (d *Design, err error) {
	defer func() {
		// The YAML library reports most problems as errors; this is a last line of defence so that
		// no input can crash the caller.
		if r := recover(); r != nil {
			d, err = nil, Errors{{File: file, Msg: fmt.Sprintf("internal error while parsing: %v", r)}}
		}
	}()
	root, es := parseYAML(data, file)
	if es != nil {
		return nil, es
	}
	dec := &decoder{file: file, pos: map[string]Pos{}, styles: map[string]yaml.Style{}, bad: map[string]bool{}, budget: maxNodes}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, Errors{{File: file, Line: top.Line, Col: top.Column,
			Msg: "the top level must be a mapping (version: 1, name: ..., containers: ..., accessPatterns: ...)"}}
	}
	if es := dec.checkVersion(top); es != nil {
		return nil, es
	}
	if dec.tooDeep(top, 0) {
		return nil, dec.errs
	}
	d = &Design{File: file}
	dec.decode(top, reflect.ValueOf(d).Elem(), "", 0)
	d.Positions = dec.pos
	d.src = &source{lines: strings.Split(string(data), "\n"), styles: dec.styles}
	if dec.aborted {
		return nil, dec.errs
	}
	applyDefaults(d)
	v := &validator{d: d, file: file, pos: dec.pos, badKey: map[string]bool{}}
	v.run()
	all := dec.errs
	for _, e := range v.errs {
		if !dec.tainted(e.Path) {
			all = append(all, e)
		}
	}
	if len(all) > 0 {
		sortErrors(all)
		return nil, all
	}
	return d, nil
}

var yamlLineRe = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML checks the raw bytes and parses exactly one YAML document into a node tree.
func parseYAML(data []byte, file string) (*yaml.Node, Errors) {
	one := func(line, col int, msg string) Errors {
		return Errors{{File: file, Line: line, Col: col, Msg: msg}}
	}
	if len(data) > MaxFileSize {
		return nil, one(0, 0, fmt.Sprintf("file is %d bytes; design files are limited to %d bytes", len(data), MaxFileSize))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, one(0, 0, "file is empty; a design starts with \"version: 1\"")
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		l, c := lineCol(data, i)
		return nil, one(l, c, "file holds a NUL byte: not a text file")
	}
	if !utf8.Valid(data) {
		i := firstInvalidUTF8(data)
		l, c := lineCol(data, i)
		return nil, one(l, c, "file is not valid UTF-8 text")
	}
	yd := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := yd.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, one(0, 0, "file holds no YAML content (only comments?); a design starts with \"version: 1\"")
		}
		return nil, syntaxError(file, data, err)
	}
	var extra yaml.Node
	switch err := yd.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, syntaxError(file, data, err)
	default:
		return nil, one(extra.Line, extra.Column, "file holds more than one YAML document (\"---\"); put one design per file")
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return nil, one(0, 0, "file holds no YAML document")
	}
	return &root, nil
}

// syntaxError turns a YAML library error into an Error; the library reports a line, not a column.
func syntaxError(file string, data []byte, err error) Errors {
	msg := err.Error()
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		// Parser errors ("did not find expected ...") carry the 0-based line of their context mark,
		// one less than the line to look at; scanner errors are already 1-based.
		if strings.HasPrefix(m[2], "did not find expected") {
			line++
		}
		text := "YAML syntax: " + m[2]
		col := 0
		line, col = locateSyntaxError(data, line, m[2])
		// The YAML library cannot read a plain "/?" right before "," or "]" in a [flow, list]; the
		// reported line is often where the list starts, so look at the next lines too.
		lines := strings.Split(string(data), "\n")
		for l := line; l >= 1 && l <= len(lines) && l < line+4; l++ {
			if strings.Contains(lines[l-1], "/?,") || strings.Contains(lines[l-1], "/?]") {
				text += fmt.Sprintf(" (line %d: quote index paths inside [ ], e.g. [\"/status/?\"])", l)
				break
			}
		}
		return Errors{{File: file, Line: line, Col: col, Msg: text}}
	}
	return Errors{{File: file, Msg: "YAML syntax: " + strings.TrimPrefix(msg, "yaml: ")}}
}

func lineCol(data []byte, off int) (int, int) {
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// decoder maps a YAML node tree onto the design types, recording positions and collecting errors.
type decoder struct {
	file    string
	errs    Errors
	pos     map[string]Pos
	styles  map[string]yaml.Style // style of each scalar, for ValuePos
	bad     map[string]bool       // paths with a decoding error: semantic errors there are noise
	budget  int
	aborted bool
}

func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	e := &Error{File: d.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
	d.bad[path] = true
}

// tainted reports whether path or one of its ancestors had a decoding error.
func (d *decoder) tainted(path string) bool {
	for p := path; ; p = parentPath(p) {
		if d.bad[p] {
			return true
		}
		if p == "" {
			return false
		}
	}
}

// checkVersion requires a known version before anything else is read: another version may use
// other keys, and reporting those as unknown would only confuse.
func (d *decoder) checkVersion(top *yaml.Node) Errors {
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != "version" {
			continue
		}
		n, err := strconv.Atoi(v.Value)
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || err != nil {
			return Errors{{File: d.file, Line: v.Line, Col: v.Column, Path: "version",
				Msg: fmt.Sprintf("must be an integer (got %q); this build reads version %d", v.Value, CurrentVersion)}}
		}
		if n != CurrentVersion {
			return Errors{{File: d.file, Line: v.Line, Col: v.Column, Path: "version",
				Msg: fmt.Sprintf("unsupported version %d; this build reads version %d", n, CurrentVersion)}}
		}
		return nil
	}
	return Errors{{File: d.file, Line: top.Line, Col: top.Column, Path: "version",
		Msg: fmt.Sprintf("missing; add \"version: %d\" at the top of the file", CurrentVersion)}}
}

// tooDeep rejects nesting beyond maxDepth before decoding; aliases are not followed here.
func (d *decoder) tooDeep(n *yaml.Node, depth int) bool {
	if depth > maxDepth {
		d.errorf(n, "", "nesting is deeper than %d levels", maxDepth)
		return true
	}
	for _, c := range n.Content {
		if d.tooDeep(c, depth+1) {
			return true
		}
	}
	return false
}

var (
	fieldsType = reflect.TypeOf(Fields(nil))
	anyType    = reflect.TypeOf((*any)(nil)).Elem()
)

// decode stores node n into v. path is the field path of v, depth the nesting level.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string, depth int) {
	if d.aborted {
		return
	}
	d.budget--
	if d.budget < 0 {
		d.aborted = true
		d.errorf(n, path, "the document expands to more than %d nodes (alias bomb?)", maxNodes)
		return
	}
	if depth > maxDepth {
		d.aborted = true
		d.errorf(n, path, "nesting is deeper than %d levels (recursive aliases?)", maxDepth)
		return
	}
	if _, ok := d.pos[path]; !ok {
		d.pos[path] = Pos{Line: n.Line, Col: n.Column}
		if n.Kind == yaml.ScalarNode && d.styles != nil {
			d.styles[path] = n.Style
		}
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			d.errorf(n, path, "unknown alias %q", n.Value)
			return
		}
		d.decode(n.Alias, v, path, depth+1)
		return
	}
	t := v.Type()
	if t == fieldsType {
		d.decodeFields(n, v, path, depth)
		return
	}
	if isNull(n) {
		v.Set(reflect.Zero(t))
		return
	}
	switch t.Kind() {
	case reflect.Interface:
		if x, ok := d.toAny(n, path, depth); ok {
			v.Set(reflect.ValueOf(&x).Elem())
		}
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		d.decode(n, p.Elem(), path, depth)
		v.Set(p)
	case reflect.Struct:
		d.decodeStruct(n, v, path, depth)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.errorf(n, path, "must be a list (got %s)", describe(n))
			return
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.errorf(n, path, "must be a mapping (got %s)", describe(n))
			return
		}
		m := reflect.MakeMapWithSize(t, len(n.Content)/2)
		d.eachKey(n, path, func(k, val *yaml.Node, kp string) {
			ev := reflect.New(t.Elem()).Elem()
			d.decode(val, ev, kp, depth+1)
			m.SetMapIndex(reflect.ValueOf(k.Value), ev)
		})
		v.Set(m)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			hint := ""
			if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle != 0 {
				hint = "; quote templates: \"{id}\""
			}
			d.errorf(n, path, "must be a string (got %s)%s", describe(n), hint)
			return
		}
		v.SetString(n.Value)
	case reflect.Int:
		var i int64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil || int64(int(i)) != i {
			d.errorf(n, path, "must be an integer (got %s)", describe(n))
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		var f float64
		tag := n.ShortTag()
		if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || n.Decode(&f) != nil {
			d.errorf(n, path, "must be a number (got %s)", describe(n))
			return
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			d.errorf(n, path, "must be a finite number (got %s)", n.Value)
			return
		}
		v.SetFloat(f)
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
			d.errorf(n, path, "must be true or false (got %s)", describe(n))
			return
		}
		v.SetBool(b)
	default:
		d.errorf(n, path, "cannot decode into %s", t)
	}
}

// eachKey calls fn for every key of mapping n, rejecting non-string and duplicate keys.
func (d *decoder) eachKey(n *yaml.Node, path string, fn func(k, v *yaml.Node, keyPath string)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" {
			d.errorf(k, path, "merge keys (\"<<\") are not supported; repeat the keys instead")
			continue
		}
		if k.Kind != yaml.ScalarNode || (k.ShortTag() != "!!str" && k.ShortTag() != "!!int") {
			d.errorf(k, path, "keys must be plain strings (got %s)", describe(k))
			continue
		}
		kp := joinPath(path, k.Value)
		if line, dup := seen[k.Value]; dup {
			d.errorf(k, kp, "duplicate key %q (first at line %d)", k.Value, line)
			continue
		}
		seen[k.Value] = k.Line
		fn(k, val, kp)
	}
}

type structField struct {
	index    int
	name     string
	required bool
}

var structFieldsCache sync.Map // reflect.Type -> []structField

// yamlFields lists a struct's YAML keys; a key without ",omitempty" is required.
func yamlFields(t reflect.Type) []structField {
	if c, ok := structFieldsCache.Load(t); ok {
		return c.([]structField)
	}
	var out []structField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if !f.IsExported() || tag == "-" || tag == "" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		out = append(out, structField{index: i, name: name, required: !strings.Contains(opts, "omitempty")})
	}
	structFieldsCache.Store(t, out)
	return out
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string, depth int) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "must be a mapping (got %s)", describe(n))
		return
	}
	fields := yamlFields(v.Type())
	byName := make(map[string]structField, len(fields))
	names := make([]string, len(fields))
	for i, f := range fields {
		byName[f.name] = f
		names[i] = f.name
	}
	present := map[string]bool{}
	d.eachKey(n, path, func(k, val *yaml.Node, kp string) {
		f, ok := byName[k.Value]
		if !ok {
			msg := fmt.Sprintf("unknown field %q", k.Value)
			if s := Suggest(k.Value, names); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			d.errorf(k, path, "%s", msg)
			d.bad[kp] = true
			return
		}
		present[k.Value] = true
		d.decode(val, v.Field(f.index), kp, depth+1)
	})
	for _, f := range fields {
		if f.required && !present[f.name] {
			d.errorf(n, path, "missing required field %q", f.name)
			d.bad[joinPath(path, f.name)] = true
		}
	}
}

func (d *decoder) decodeFields(n *yaml.Node, v reflect.Value, path string, depth int) {
	if isNull(n) {
		v.Set(reflect.Zero(fieldsType))
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "must be a mapping of field names to generators (got %s)", describe(n))
		return
	}
	fs := make(Fields, 0, len(n.Content)/2)
	d.eachKey(n, path, func(k, val *yaml.Node, kp string) {
		var f Field
		d.decode(val, reflect.ValueOf(&f).Elem(), kp, depth+1)
		fs = append(fs, NamedField{Name: k.Value, Field: f})
	})
	v.Set(reflect.ValueOf(fs))
}

// toAny converts a node to plain JSON-like Go values: string, int, float64, bool, nil, []any and
// map[string]any.
func (d *decoder) toAny(n *yaml.Node, path string, depth int) (any, bool) {
	if d.aborted {
		return nil, false
	}
	d.budget--
	if d.budget < 0 {
		d.aborted = true
		d.errorf(n, path, "the document expands to more than %d nodes (alias bomb?)", maxNodes)
		return nil, false
	}
	if depth > maxDepth {
		d.aborted = true
		d.errorf(n, path, "nesting is deeper than %d levels", maxDepth)
		return nil, false
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			d.errorf(n, path, "unknown alias %q", n.Value)
			return nil, false
		}
		return d.toAny(n.Alias, path, depth+1)
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, true
		case "!!bool":
			var b bool
			if n.Decode(&b) == nil {
				return b, true
			}
		case "!!int":
			var i int64
			if n.Decode(&i) == nil {
				return int(i), true
			}
			var f float64
			if n.Decode(&f) == nil {
				return f, true
			}
		case "!!float":
			var f float64
			if n.Decode(&f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f, true
			}
			d.errorf(n, path, "must be a finite number (got %s)", n.Value)
			return nil, false
		case "!!str", "!!timestamp":
			return n.Value, true
		}
		d.errorf(n, path, "unsupported value %s", describe(n))
		return nil, false
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			x, ok := d.toAny(c, fmt.Sprintf("%s[%d]", path, i), depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, x)
		}
		return out, true
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		ok := true
		d.eachKey(n, path, func(k, val *yaml.Node, kp string) {
			x, good := d.toAny(val, kp, depth+1)
			ok = ok && good
			out[k.Value] = x
		})
		return out, ok
	}
	d.errorf(n, path, "unsupported YAML node")
	return nil, false
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names a node's kind and value for error messages, shortened.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:40] + "..."
	}
	return strconv.Quote(v)
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// joinPath appends a key to a field path: "a.b" for plain names, `a["@x"]` otherwise.
func joinPath(path, key string) string {
	if identRe.MatchString(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

// parentPath removes the last segment of a field path ("a.b[2]" → "a.b", "a" → "").
func parentPath(p string) string {
	if p == "" {
		return ""
	}
	if strings.HasSuffix(p, "]") {
		// Find the '[' that opens the last segment, skipping over a quoted key.
		if strings.HasSuffix(p, "\"]") {
			for i := len(p) - 3; i >= 1; i-- {
				if p[i] == '"' && p[i-1] == '[' {
					if _, err := strconv.Unquote(p[i : len(p)-1]); err == nil {
						return p[:i-1]
					}
				}
			}
		}
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexAny(p, ".]"); i >= 0 {
		if p[i] == ']' {
			return p[:i+1]
		}
		return p[:i]
	}
	return ""
}

// Suggest returns the name closest to s if it is close enough to be a likely typo, else "".
func Suggest(s string, names []string) string {
	best, bestD := "", 1<<30
	for _, n := range names {
		if dist := levenshtein(strings.ToLower(s), strings.ToLower(n)); dist < bestD {
			best, bestD = n, dist
		}
	}
	if bestD <= 2 || (bestD <= 3 && len(s) >= 8) {
		return best
	}
	return ""
}

func levenshtein(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 20
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
