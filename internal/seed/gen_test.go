package seed

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

func fp(v float64) *float64 { return &v }
func ip(v int) *int         { return &v }

// shopDesign is a small design that uses every kind of generator.
func shopDesign(users int) *design.Design {
	return &design.Design{
		Version: 1, Name: "shop",
		Containers: []design.Container{{
			Name:         "UserOrders",
			PartitionKey: []string{"/userId"},
			UniqueKeys:   [][]string{{"/email"}},
			Documents: []design.DocType{
				{
					Type: "user", Count: users, ID: "user-{seq}", TargetBytes: 1024,
					Fields: design.Fields{
						{Name: "userId", Field: design.Field{Copy: "id"}},
						{Name: "type", Field: design.Field{Const: "user"}},
						{Name: "name", Field: design.Field{Gen: "fullName"}},
						{Name: "email", Field: design.Field{Gen: "email", Unique: true}},
						{Name: "tenant", Field: design.Field{Gen: "code", Prefix: "T", Cardinality: 20, Dist: "zipf"}},
						{Name: "region", Field: design.Field{Gen: "city", Cardinality: 10, Dist: "hot", HotShare: 0.6}},
						{Name: "createdAt", Field: design.Field{Gen: "isoTime", From: "2024-01-01", To: "2025-01-01"}},
						{Name: "age", Field: design.Field{Gen: "int", Min: fp(18), Max: fp(90)}},
						{Name: "score", Field: design.Field{Gen: "decimal", Min: fp(0), Max: fp(5), Decimals: ip(1)}},
						{Name: "balance", Field: design.Field{Gen: "money", Min: fp(5), Max: fp(900)}},
						{Name: "vip", Field: design.Field{Gen: "bool"}},
						{Name: "nick", Field: design.Field{Gen: "word", Optional: 0.5}},
						{Name: "tier", Field: design.Field{OneOf: []any{"gold", "silver", "bronze"}, Weights: []float64{1, 2, 7}}},
						{Name: "key", Field: design.Field{Template: "{tenant}_{userId}"}},
						{Name: "address", Field: design.Field{Object: design.Fields{
							{Name: "city", Field: design.Field{Gen: "city"}},
							{Name: "country", Field: design.Field{Gen: "country"}},
							{Name: "phone", Field: design.Field{Gen: "phone"}},
						}}},
						{Name: "tags", Field: design.Field{Array: &design.ArraySpec{Min: 1, Max: 4}, Of: &design.Field{Gen: "word"}}},
						{Name: "meta", Field: design.Field{Const: map[string]any{"b": 1, "a": []any{"x", true}}}},
						{Name: "bio", Field: design.Field{Gen: "text", Bytes: 120}},
					},
				},
				{
					Type: "order", ID: "order-{uuid}",
					Parent: &design.Parent{Type: "user", Per: design.Per{Min: 0, Max: 6}},
					Fields: design.Fields{
						{Name: "type", Field: design.Field{Const: "order"}},
						{Name: "owner", Field: design.Field{Copy: "parent.name"}},
						{Name: "total", Field: design.Field{Gen: "money", Min: fp(5), Max: fp(900)}},
						{Name: "lines", Field: design.Field{Array: &design.ArraySpec{Min: 1, Max: 3}, Of: &design.Field{Object: design.Fields{
							{Name: "sku", Field: design.Field{Gen: "sku"}},
							{Name: "qty", Field: design.Field{Gen: "int", Min: fp(1), Max: fp(4)}},
						}}}},
						{Name: "placed", Field: design.Field{Gen: "epoch"}},
						{Name: "ref", Field: design.Field{Gen: "uuid"}},
					},
				},
			},
		}},
	}
}

func walkAll(t *testing.T, p *Plan) []*Doc {
	t.Helper()
	var docs []*Doc
	if err := p.Walk(context.Background(), func(d *Doc) error { docs = append(docs, d); return nil }); err != nil {
		t.Fatalf("walk: %v", err)
	}
	return docs
}

func concat(docs []*Doc) []byte {
	var b bytes.Buffer
	for _, d := range docs {
		b.Write(d.Body)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestWalk_Deterministic(t *testing.T) {
	d := shopDesign(200)
	p1, err := Compile(d, 1)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := Compile(d, 1)
	p3, _ := Compile(d, 2)
	a, b, c := concat(walkAll(t, p1)), concat(walkAll(t, p2)), concat(walkAll(t, p3))
	if !bytes.Equal(a, b) {
		t.Fatal("same seed produced different documents")
	}
	if bytes.Equal(a, c) {
		t.Fatal("different seeds produced identical documents")
	}
	// Every document is valid JSON with its id first and the partition key set.
	for _, doc := range walkAll(t, p1) {
		var m map[string]any
		if err := json.Unmarshal(doc.Body, &m); err != nil {
			t.Fatalf("%s: invalid JSON: %v\n%s", doc.ID, err, doc.Body)
		}
		if m["id"] != doc.ID || m["userId"] != doc.PK[0] {
			t.Fatalf("%s: id/pk mismatch: %v %v", doc.ID, m["id"], doc.PK)
		}
	}
}

func TestWalk_CountsAndPlacement(t *testing.T) {
	p, err := Compile(shopDesign(300), 7)
	if err != nil {
		t.Fatal(err)
	}
	docs := walkAll(t, p)
	want := p.Counts()
	got := map[string]int{}
	ids := map[string]bool{}
	users := map[string]map[string]any{}
	for _, d := range docs {
		got[d.Type]++
		if ids[d.ID] {
			t.Fatalf("duplicate id %s", d.ID)
		}
		ids[d.ID] = true
		var m map[string]any
		_ = json.Unmarshal(d.Body, &m)
		switch d.Type {
		case "user":
			users[d.ID] = m
		case "order":
			// Children are generated right after their parent and live in its partition.
			u, ok := users[m["userId"].(string)]
			if !ok {
				t.Fatalf("order %s: parent %v not generated before it", d.ID, m["userId"])
			}
			if m["owner"] != u["name"] {
				t.Fatalf("order %s: owner %v, parent name %v", d.ID, m["owner"], u["name"])
			}
		}
	}
	if got["user"] != 300 || got["order"] != want["order"] || want["user"] != 300 {
		t.Fatalf("counts: got %v, Counts() %v", got, want)
	}
	if got["order"] < 300 || got["order"] > 300*6 {
		t.Fatalf("orders %d outside 0..6 per user", got["order"])
	}
}

func TestGenerators_Bounds(t *testing.T) {
	p, err := Compile(shopDesign(500), 3)
	if err != nil {
		t.Fatal(err)
	}
	emailRe := regexp.MustCompile(`^[a-z]+\.[a-z]+\.\d+@[a-z.]+$`)
	uuidRe := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	emails := map[string]bool{}
	nickAbsent, tiers := 0, map[string]int{}
	for _, d := range walkAll(t, p) {
		var m map[string]any
		_ = json.Unmarshal(d.Body, &m)
		if d.Type == "order" {
			if tot := m["total"].(float64); tot < 5 || tot > 900 || math.Abs(math.Round(tot*100)-tot*100) > 1e-6 {
				t.Fatalf("total %v", tot)
			}
			lines := m["lines"].([]any)
			if len(lines) < 1 || len(lines) > 3 {
				t.Fatalf("lines %d", len(lines))
			}
			for _, l := range lines {
				q := l.(map[string]any)["qty"].(float64)
				if q < 1 || q > 4 || q != math.Trunc(q) {
					t.Fatalf("qty %v", q)
				}
			}
			if !uuidRe.MatchString(m["ref"].(string)) || !strings.HasPrefix(d.ID, "order-") {
				t.Fatalf("uuid %v id %s", m["ref"], d.ID)
			}
			if e := m["placed"].(float64); e < 1704067200 || e >= 1767225600 {
				t.Fatalf("epoch %v", e)
			}
			continue
		}
		if a := m["age"].(float64); a < 18 || a > 90 || a != math.Trunc(a) {
			t.Fatalf("age %v", a)
		}
		if s := m["score"].(float64); s < 0 || s > 5 || math.Abs(math.Round(s*10)-s*10) > 1e-6 {
			t.Fatalf("score %v", s)
		}
		ts := m["createdAt"].(string)
		if ts < "2024-01-01T00:00:00Z" || ts >= "2025-01-01T00:00:00Z" {
			t.Fatalf("createdAt %s", ts)
		}
		e := m["email"].(string)
		if !emailRe.MatchString(e) || emails[e] {
			t.Fatalf("email %q not well-formed or not unique", e)
		}
		emails[e] = true
		if len(m["bio"].(string)) != 120 {
			t.Fatalf("bio %d bytes", len(m["bio"].(string)))
		}
		if tags := m["tags"].([]any); len(tags) < 1 || len(tags) > 4 {
			t.Fatalf("tags %d", len(tags))
		}
		if m["key"] != m["tenant"].(string)+"_"+m["userId"].(string) {
			t.Fatalf("template %v", m["key"])
		}
		if !strings.HasPrefix(m["tenant"].(string), "T-") {
			t.Fatalf("code prefix %v", m["tenant"])
		}
		if _, ok := m["nick"]; !ok {
			nickAbsent++
		}
		tiers[m["tier"].(string)]++
		if !bytes.Contains(d.Body, []byte(`"meta":{"a":["x",true],"b":1}`)) {
			t.Fatalf("const object not in sorted key order: %s", d.Body)
		}
	}
	if nickAbsent < 175 || nickAbsent > 325 {
		t.Errorf("optional 0.5: %d of 500 absent", nickAbsent)
	}
	// weights 1:2:7 → about 10% / 20% / 70%.
	if tiers["bronze"] < 300 || tiers["gold"] > 90 {
		t.Errorf("weighted choice skew not visible: %v", tiers)
	}
}

func TestDistributions_Skew(t *testing.T) {
	p, err := Compile(shopDesign(2000), 5)
	if err != nil {
		t.Fatal(err)
	}
	tenants, regions := map[string]int{}, map[string]int{}
	for _, d := range walkAll(t, p) {
		if d.Type != "user" {
			continue
		}
		var m map[string]any
		_ = json.Unmarshal(d.Body, &m)
		tenants[m["tenant"].(string)]++
		regions[m["region"].(string)]++
	}
	if len(tenants) > 20 || len(regions) > 10 {
		t.Fatalf("cardinality exceeded: %d tenants, %d regions", len(tenants), len(regions))
	}
	top := func(m map[string]int) int {
		best := 0
		for _, n := range m {
			best = max(best, n)
		}
		return best
	}
	// Uniform over 20 would give ~100 each; zipf s=1.2 gives the top value far more.
	if top(tenants) < 400 {
		t.Errorf("zipf skew not visible: top tenant has %d of 2000", top(tenants))
	}
	// hotShare 0.6: the hot value holds about 60% (plus its uniform share of the rest).
	if h := top(regions); h < 1100 || h > 1400 {
		t.Errorf("hot share: top region has %d of 2000", h)
	}
}

func TestChildDistributions(t *testing.T) {
	tests := []struct {
		name  string
		dist  string
		check func(t *testing.T, counts []int)
	}{
		{"uniform", "", func(t *testing.T, c []int) {
			if c[0] == c[len(c)-1] && c[0] == 0 {
				t.Error("no spread")
			}
		}},
		{"zipf", "zipf", func(t *testing.T, c []int) {
			low := 0
			for _, n := range c {
				if n <= 2 {
					low++
				}
			}
			if low < len(c)/2 {
				t.Errorf("zipf: only %d of %d parents have ≤ 2 children", low, len(c))
			}
		}},
		{"hot", "hot", func(t *testing.T, c []int) {
			if c[0] != 40 {
				t.Errorf("hot: first parent has %d children, want 40", c[0])
			}
			for _, n := range c[1:] {
				if n > 4 {
					t.Fatalf("hot: a cold parent has %d children", n)
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := shopDesign(300)
			d.Containers[0].Documents[1].Parent.Per = design.Per{Min: 0, Max: 40, Dist: tc.dist}
			p, err := Compile(d, 11)
			if err != nil {
				t.Fatal(err)
			}
			per := map[string]int{}
			var order []string
			for _, doc := range walkAll(t, p) {
				if doc.Type == "user" {
					order = append(order, doc.ID)
					continue
				}
				per[doc.PK[0].(string)]++
			}
			counts := make([]int, len(order))
			for i, id := range order {
				counts[i] = per[id]
				if counts[i] < 0 || counts[i] > 40 {
					t.Fatalf("count %d out of bounds", counts[i])
				}
			}
			tc.check(t, counts)
		})
	}
}

func TestTargetBytes(t *testing.T) {
	for _, target := range []int{600, 1024, 4096} {
		d := shopDesign(100)
		d.Containers[0].Documents[0].TargetBytes = target
		p, err := Compile(d, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range walkAll(t, p) {
			if doc.Type != "user" {
				continue
			}
			if diff := math.Abs(float64(len(doc.Body)-target)) / float64(target); diff > 0.03 && len(doc.Body) < target {
				t.Fatalf("target %d: document %d bytes", target, len(doc.Body))
			}
			if len(doc.Body) > target && target >= 1024 {
				t.Fatalf("target %d: document %d bytes overshoots", target, len(doc.Body))
			}
		}
	}
}

func TestFresh(t *testing.T) {
	p, err := Compile(shopDesign(10), 1)
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Fresh("user", 11, "run1-0", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.Fresh("user", 11, "run1-0", nil)
	c, _ := p.Fresh("user", 11, "run2-0", nil)
	if !bytes.Equal(a.Body, b.Body) || a.ID == c.ID {
		t.Fatalf("fresh documents: %s vs %s vs %s", a.ID, b.ID, c.ID)
	}
	// Another run's tag of the same length changes the tagged values and UUIDs, nothing else: the
	// same size, so the same charges from run to run with one seed.
	uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`)
	untag := func(b []byte) []byte {
		return uuid.ReplaceAll(bytes.ReplaceAll(b, []byte("run2"), []byte("run1")), []byte("U"))
	}
	if len(a.Body) != len(c.Body) || !bytes.Equal(untag(c.Body), untag(a.Body)) {
		t.Errorf("fresh documents of two runs differ beyond their tags and UUIDs:\n%s\n%s", a.Body, c.Body)
	}
	// Orders have a {uuid} in their id and a uuid field: another run's differ.
	parent0 := map[string]any{"id": "user-3", "userId": "user-3", "name": "Ada Berg"}
	o1, _ := p.Fresh("order", 1, "run1-0", parent0)
	o2, _ := p.Fresh("order", 1, "run2-0", parent0)
	if ua, uc := uuid.FindAll(o1.Body, -1), uuid.FindAll(o2.Body, -1); len(ua) < 2 || len(ua) != len(uc) {
		t.Errorf("fresh orders: UUIDs %s / %s", ua, uc)
	} else {
		for i := range ua {
			if bytes.Equal(ua[i], uc[i]) {
				t.Errorf("two runs' fresh orders share the UUID %s", ua[i])
			}
		}
	}
	if len(o1.Body) != len(o2.Body) || !bytes.Equal(untag(o1.Body), untag(o2.Body)) {
		t.Errorf("fresh orders of two runs differ beyond their tags and UUIDs:\n%s\n%s", o1.Body, o2.Body)
	}
	parent := map[string]any{"id": "user-3", "userId": "user-3", "name": "Ada Berg"}
	o, err := p.Fresh("order", 1, "x", parent)
	if err != nil {
		t.Fatal(err)
	}
	if o.PK[0] != "user-3" || !bytes.Contains(o.Body, []byte(`"owner":"Ada Berg"`)) {
		t.Fatalf("fresh child not placed under parent: %s", o.Body)
	}
}

func TestCompile_Errors(t *testing.T) {
	tests := []struct {
		name  string
		field design.Field
		want  string
	}{
		{"unknown generator", design.Field{Gen: "nope"}, "unknown generator"},
		{"two kinds", design.Field{Gen: "int", Const: 1}, "exactly one"},
		{"none", design.Field{}, "exactly one"},
		{"dangling copy", design.Field{Copy: "missing"}, `no field "missing"`},
		{"parent without parent", design.Field{Copy: "parent.x"}, "has none"},
		{"bad bounds", design.Field{Gen: "int", Min: fp(5), Max: fp(1)}, "below min"},
		{"weights", design.Field{OneOf: []any{"a"}, Weights: []float64{1, 2}}, "weights"},
		{"array without of", design.Field{Array: &design.ArraySpec{Min: 1, Max: 2}}, "missing of"},
		{"bad dist", design.Field{Gen: "word", Dist: "pareto"}, "dist"},
		{"cycle", design.Field{Template: "{x}"}, "cycle"},
		{"bad time", design.Field{Gen: "isoTime", From: "yesterday"}, "from"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := shopDesign(1)
			d.Containers[0].Documents = d.Containers[0].Documents[:1]
			d.Containers[0].Documents[0].Fields = append(d.Containers[0].Documents[0].Fields,
				design.NamedField{Name: "x", Field: tc.field})
			_, err := Compile(d, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("partition key not generated", func(t *testing.T) {
		d := shopDesign(1)
		d.Containers[0].PartitionKey = []string{"/tenantId"}
		if _, err := Compile(d, 1); err == nil || !strings.Contains(err.Error(), "tenantId") {
			t.Fatalf("err = %v", err)
		}
	})
}

func BenchmarkWalk(b *testing.B) {
	p, err := Compile(shopDesign(1000), 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		_ = p.Walk(context.Background(), func(d *Doc) error { n++; return nil })
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "docs/s")
}

func TestCompile_Examples(t *testing.T) {
	files, err := filepath.Glob("../../designs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example designs in ../../designs (%v): the test would pass on nothing", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d, err := design.Load(f)
			if err != nil {
				t.Fatalf("design does not load: %v", err)
			}
			p, err := Compile(d, 1)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			n := 0
			for _, c := range p.Counts() {
				n += c
			}
			if n == 0 {
				t.Fatal("no documents")
			}
		})
	}
}
