package design

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// repoRoot is where designs/ and testdata/designs/ live, relative to this package.
const repoRoot = "../.."

func exampleFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "designs", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example designs found: %v", err)
	}
	return append(files, filepath.Join(repoRoot, "testdata", "designs", "broken.yaml"))
}

func TestLoad_Examples(t *testing.T) {
	for _, f := range exampleFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(data), "# yaml-language-server: $schema=") {
				t.Errorf("first line must be the yaml-language-server schema comment")
			}
			d, err := Load(f)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if len(d.Containers) == 0 || len(d.AccessPatterns) == 0 {
				t.Fatalf("empty design")
			}
			for _, c := range d.Containers {
				for _, typ := range c.Documents {
					if !hasWritePattern(d, c.Name, typ.Type) && typ.Parent == nil && filepath.Base(f) != "broken.yaml" {
						t.Errorf("container %s type %s: no pattern writes it", c.Name, typ.Type)
					}
				}
			}
			if d.Positions["containers[0].partitionKey[0]"].Line == 0 {
				t.Errorf("positions not recorded: %v", d.Positions["containers[0].partitionKey[0]"])
			}
		})
	}
}

func hasWritePattern(d *Design, container, typ string) bool {
	for _, p := range d.AccessPatterns {
		if p.Container != container || p.Op == OpRead || p.Op == OpQuery {
			continue
		}
		if p.Document == typ || p.Sample == typ {
			return true
		}
	}
	return false
}

// TestLoad_Invalid checks each testdata/designs/invalid file: it must fail, every "# want:" line
// must appear in the error text, and every error must carry a line number.
func TestLoad_Invalid(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot, "testdata", "designs", "invalid", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no invalid designs found")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var wants []string
			wantCount := 0 // "# want-count: N": exactly N errors, no follow-on ones
			for _, line := range strings.Split(string(data), "\n") {
				if w, ok := strings.CutPrefix(line, "# want: "); ok {
					wants = append(wants, w)
				}
				if n, ok := strings.CutPrefix(line, "# want-count: "); ok {
					wantCount, _ = strconv.Atoi(n)
				}
			}
			if len(wants) == 0 {
				t.Fatal("file has no # want: lines")
			}
			_, err = Load(f)
			if err == nil {
				t.Fatal("Load succeeded; want errors")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(err, ErrInvalid) = false")
			}
			got := err.Error()
			for _, w := range wants {
				if !strings.Contains(got, w) {
					t.Errorf("missing error %q\ngot:\n%s", w, got)
				}
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error is %T, want Errors", err)
			}
			if wantCount > 0 && len(es) != wantCount {
				t.Errorf("%d errors, want %d:\n%s", len(es), wantCount, got)
			}
			for _, e := range es {
				if e.Line == 0 {
					t.Errorf("error without a line: %v", e)
				}
				if !strings.HasPrefix(e.Error(), f+":") {
					t.Errorf("error does not start with the file name: %v", e)
				}
			}
			for i := 1; i < len(es); i++ {
				if es[i].Line < es[i-1].Line {
					t.Errorf("errors not sorted by line: %v before %v", es[i-1], es[i])
				}
			}
		})
	}
}

const minimal = `version: 1
name: mini
containers:
  - name: C
    partitionKey: [/pk]
    documents:
      - type: t
        count: 3
        fields:
          pk: {gen: code, cardinality: 2}
accessPatterns:
  - {id: AP1, name: read, container: C, op: read, sample: t, rps: {avg: 5}, estimate: {ru: 1}}
`

// aliasBomb nests anchors ten wide and nine deep: 10^9 strings once expanded.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString(strings.Replace(minimal, "          pk: {gen: code, cardinality: 2}\n", "          pk: {gen: code, cardinality: 2}\n          a: {const: &a [x, x, x, x, x, x, x, x, x, x]}\n", 1))
	s := b.String()
	var extra strings.Builder
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		extra.WriteString("          " + name + ": {const: &" + name + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				extra.WriteString(", ")
			}
			extra.WriteString("*" + prev)
		}
		extra.WriteString("]}\n")
		prev = name
	}
	return strings.Replace(s, "accessPatterns:", extra.String()+"accessPatterns:", 1)
}

func TestLoad_BadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	huge := filepath.Join(dir, "huge.yaml")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(50 << 20); err != nil { // sparse: nothing is written or read
		t.Fatal(err)
	}
	f.Close()

	tests := []struct {
		name string
		path string
		want string
	}{
		{"missing path", filepath.Join(dir, "nope.yaml"), "no such file"},
		{"directory", dir, "is a directory"},
		{"empty file", write("empty.yaml", nil), "file is empty"},
		{"only comments", write("comments.yaml", []byte("# nothing\n# here\n")), "no YAML content"},
		{"syntax error", write("syntax.yaml", []byte("version: 1\nname: [unclosed\n")), ":2:7: YAML syntax:"},
		{"tab indentation", write("tabs.yaml", []byte("version: 1\ncontainers:\n\t- name: x\n")), "YAML syntax"},
		{"unquoted /? in a flow list", write("flow.yaml", []byte("version: 1\nx:\n  included: [/a/?, /b/?]\n")), "quote index paths"},
		{"50 MB file", huge, "design files are limited to"},
		{"NUL bytes", write("nul.yaml", []byte("version: 1\nname: a\x00b\n")), "2:8: file holds a NUL byte"},
		{"invalid UTF-8", write("utf8.yaml", []byte("version: 1\nname: \xff\xfe\n")), "2:7: file is not valid UTF-8"},
		{"binary garbage", write("bin.yaml", []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0}), "NUL byte"},
		{"deep flow nesting", write("deep.yaml", []byte("version: 1\nname: "+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+"\n")), "nesting is deeper than"},
		{"too deep for the YAML library", write("deeper.yaml", []byte("version: 1\nname: "+strings.Repeat("[", 20000)+"\n")), "YAML syntax"},
		{"alias bomb", write("bomb.yaml", []byte(aliasBomb())), "alias bomb"},
		{"two documents", write("two.yaml", []byte(minimal+"---\n"+minimal)), "more than one YAML document"},
		{"top-level list", write("list.yaml", []byte("- version: 1\n")), "top level must be a mapping"},
		{"top-level scalar", write("scalar.yaml", []byte("hello\n")), "top level must be a mapping"},
		{"no version", write("nover.yaml", []byte(strings.Replace(minimal, "version: 1\n", "", 1))), "version: missing"},
		{"future version", write("v2.yaml", []byte(strings.Replace(minimal, "version: 1", "version: 2", 1))), "unsupported version 2"},
		{"version not a number", write("vstr.yaml", []byte(strings.Replace(minimal, "version: 1", "version: one", 1))), "must be an integer"},
		{"merge key", write("merge.yaml", []byte(strings.Replace(minimal, "name: mini", "name: mini\nscale: {<<: {storageGB: 1}}", 1))), "merge keys"},
		{"non-string key", write("key.yaml", []byte(strings.Replace(minimal, "name: mini", "name: mini\nscale: {[a]: 1}", 1))), "keys must be plain strings"},
		{"NaN estimate", write("nan.yaml", []byte(strings.Replace(minimal, "ru: 1", "ru: .nan", 1))), "finite number"},
		{"huge integer", write("bigint.yaml", []byte(strings.Replace(minimal, "count: 3", "count: 99999999999999999999999", 1))), "must be an integer"},
		{"storage past any production", write("storage.yaml", []byte(strings.Replace(minimal, "name: mini", "name: mini\nscale: {storageGB: 1e30}", 1))), "scale.storageGB: must be at most 2.097e+09 GB"},
		{"trillion documents", write("trillion.yaml", []byte(strings.Replace(minimal, "count: 3", "count: 1000000000000", 1))), "must be at most 2000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Load(tt.path)
			if err == nil {
				t.Fatalf("Load succeeded (%+v); want error containing %q", d, tt.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(err, ErrInvalid) = false for %v", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error = %q; want it to contain %q", msg, tt.want)
			}
			if !strings.HasPrefix(msg, tt.path) {
				t.Errorf("error = %q; want it to start with the path", msg)
			}
			if len(msg) > 2000 {
				t.Errorf("error is %d bytes long", len(msg))
			}
		})
	}
}

func TestLoad_MissingFileUnwraps(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.yaml"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(err, fs.ErrNotExist) = false for %v", err)
	}
}

func TestParse_Defaults(t *testing.T) {
	d, err := Parse([]byte(minimal), "mini.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := d.Containers[0]
	p := d.AccessPatterns[0]
	tests := []struct {
		name      string
		got, want any
	}{
		{"database", d.Database, "mini"},
		{"regions", d.Regions, 1},
		{"consistency", d.Consistency, "Session"},
		{"throughput", c.Throughput, Throughput{Manual: 400}},
		{"indexing", *c.Indexing, Indexing{Mode: "consistent", Included: []string{"/*"}}},
		{"id template", c.Documents[0].ID, "{type}-{seq}"},
		{"dist", c.Documents[0].Fields[0].Field.Dist, "uniform"},
		{"peak", p.RPS.Peak, 5.0},
		{"itemId", p.ItemID, "{id}"},
		{"partitionKey", p.PartitionKey, []string{"{pk}"}},
		{"file", d.File, "mini.yaml"},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s = %#v; want %#v", tt.name, tt.got, tt.want)
		}
	}
}

func TestParse_ErrorFormat(t *testing.T) {
	src := strings.Replace(minimal, "partitionKey: [/pk]", "partitionKey: [pk]", 1)
	src = strings.Replace(src, "estimate: {ru: 1}", "estimate: {ru: 1}, extra: 1", 1)
	_, err := Parse([]byte(src), "designs/shop.yaml")
	if err == nil {
		t.Fatal("want errors")
	}
	want := `designs/shop.yaml:5:20: containers[0].partitionKey[0]: must start with "/" (got "pk")
designs/shop.yaml:12:96: accessPatterns[0]: unknown field "extra"`
	if got := err.Error(); got != want {
		t.Errorf("error =\n%s\nwant\n%s", got, want)
	}
}

func TestFields_Order(t *testing.T) {
	src := "zeta: {const: 1}\nalpha: {gen: word}\nmid: {object: {b: {const: x}, a: {const: y}}}\n"
	var fs Fields
	if err := yaml.Unmarshal([]byte(src), &fs); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(fs)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"zeta":{"const":1},"alpha":{"gen":"word"},"mid":{"object":{"b":{"const":"x"},"a":{"const":"y"}}}}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant   %s", b, want)
	}
	var back Fields
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b2) != want {
		t.Errorf("JSON round trip = %s; want %s", b2, want)
	}
	if err := yaml.Unmarshal([]byte("a: {gen: word, bogus: 1}\n"), &fs); err == nil || !strings.Contains(err.Error(), `unknown field "bogus"`) {
		t.Errorf("strict UnmarshalYAML: err = %v", err)
	}
}

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"plain", nil},
		{"{id}", []string{"id"}},
		{"{tenantId}_{userId}", []string{"tenantId", "userId"}},
		{"{a}-{b}-{a}", []string{"a", "b"}},
		{"{parent.userId}", []string{"parent.userId"}},
		{"x{}y", []string{""}},
		{"{{x}}", []string{"x"}},
	}
	for _, tt := range tests {
		if got := Placeholders(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Placeholders(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestQueryParams(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"SELECT * FROM c", nil},
		{"SELECT * FROM c WHERE c.a = @a AND c.b = @b1 OR c.a = @a", []string{"@a", "@b1"}},
		{"SELECT * FROM c WHERE c.mail = 'x@example.com' AND c.t = @t", []string{"@t"}},
		{`SELECT * FROM c WHERE c.s = "it's @no" AND c.u = @u`, []string{"@u"}},
		{"SELECT * FROM c WHERE c.s = 'a\\'@no' AND c.u=@u", []string{"@u"}},
	}
	for _, tt := range tests {
		if got := QueryParams(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("QueryParams(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestLookups(t *testing.T) {
	d, err := Parse([]byte(minimal), "")
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Container("C"); c == nil || c.DocType("t") == nil || c.DocType("x") != nil {
		t.Errorf("Container/DocType lookup failed")
	}
	if d.Container("nope") != nil || d.Pattern("AP1") == nil || d.Pattern("AP2") != nil {
		t.Errorf("Container/Pattern lookup failed")
	}
}

func TestFingerprintAndDiff(t *testing.T) {
	load := func(src string) *Design {
		t.Helper()
		d, err := Parse([]byte(src), "")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := load(minimal)
	if a.Fingerprint() != load(minimal).Fingerprint() {
		t.Error("fingerprint is not stable")
	}
	renamed := load(strings.Replace(strings.Replace(minimal, "name: read", "name: renamed", 1), "# x", "", 1))
	if a.Fingerprint() != renamed.Fingerprint() {
		t.Error("renaming a pattern changed the fingerprint")
	}
	if len(Diff(a, renamed)) != 0 {
		t.Errorf("Diff of equal designs = %q", Diff(a, renamed))
	}
	changed := strings.Replace(minimal, "    partitionKey: [/pk]\n", "    partitionKey: [/pk]\n    indexing: {excluded: [\"/status/?\"]}\n", 1)
	changed = strings.Replace(changed, "estimate: {ru: 1}", "estimate: {ru: 2}", 1)
	changed = strings.Replace(changed, "count: 3", "count: 4", 1)
	changed = strings.Replace(changed, "rps: {avg: 5}, estimate: {ru: 2}}", "rps: {avg: 5}, estimate: {ru: 2}}\n  - {id: AP2, name: q, container: C, op: query, query: SELECT * FROM c, rps: {avg: 1}, estimate: {ru: 3}}", 1)
	b := load(changed)
	if a.Fingerprint() == b.Fingerprint() {
		t.Error("fingerprint did not change")
	}
	want := []string{
		"container C: indexing.excluded added /status/?",
		"container C: type t: count: 3 -> 4",
		"pattern AP1: estimate.ru: 1 -> 2",
		"pattern AP2 added",
	}
	if got := Diff(a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("Diff =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestValidate_GoBuiltDesign(t *testing.T) {
	d := &Design{Version: 1, Name: "x"}
	err := d.Validate()
	if err == nil || !strings.Contains(err.Error(), "containers: at least one container is required") {
		t.Errorf("Validate = %v", err)
	}
}

// TestNestedKey: a nested key path gets a dotted placeholder by default, and dotted placeholders
// name fields inside objects.
func TestNestedKey(t *testing.T) {
	src := `version: 1
name: nested
containers:
  - name: C
    partitionKey: [/address/city]
    documents:
      - type: user
        count: 5
        fields:
          address:
            object:
              city: {gen: city}
          label: {template: "{address.city} office"}
accessPatterns:
  - id: R1
    name: read
    container: C
    op: read
    sample: user
    rps: {avg: 1}
    estimate: {ru: 1}
  - id: Q1
    name: query
    container: C
    op: query
    sample: user
    query: SELECT * FROM c WHERE c.address.city = @c
    params: {"@c": "PARAM"}
    rps: {avg: 1}
    estimate: {ru: 3}
`
	d, err := Parse([]byte(strings.ReplaceAll(src, "PARAM", "{address.city}")), "n.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.AccessPatterns[0].PartitionKey; len(got) != 1 || got[0] != "{address.city}" {
		t.Errorf("default key of a nested path: %q, want [{address.city}]", got)
	}
	_, err = Parse([]byte(strings.ReplaceAll(src, "PARAM", "{address.cty}")), "n.yaml")
	if err == nil || !strings.Contains(err.Error(), "{address.cty} is not a field of type user") {
		t.Errorf("a misspelt nested placeholder: %v", err)
	}
}
