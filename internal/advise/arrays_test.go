package advise

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
)

// newSearch is the state Advise starts from, for tests of one step of the search.
func newSearch(t *testing.T, d *design.Design) *search {
	t.Helper()
	s := &search{d: d, max: DefaultMaxCandidates, variants: map[string]priced{}, a: &Advice{}}
	base, err := s.build(d)
	if err != nil {
		t.Fatal(err)
	}
	s.base, s.baseT = base, totalsOf(base)
	return s
}

// splitOf builds the element variant of the array field of type dt in d.
func splitOf(t *testing.T, d *design.Design, dt, field string, oneQuery bool) (*elementSplit, string) {
	t.Helper()
	s := newSearch(t, d)
	for ci := range d.Containers {
		for ti := range d.Containers[ci].Documents {
			x := &d.Containers[ci].Documents[ti]
			if x.Type != dt {
				continue
			}
			for _, nf := range x.Fields {
				if nf.Name == field {
					return s.elements(ci, x, nf, oneQuery)
				}
			}
		}
	}
	t.Fatalf("no field %s in type %s", field, dt)
	return nil, ""
}

func pattern(t *testing.T, d *design.Design, id string) design.AccessPattern {
	t.Helper()
	for _, ap := range d.AccessPatterns {
		if ap.ID == id {
			return ap
		}
	}
	t.Fatalf("no pattern %s in %v", id, vdPatterns(d))
	return design.AccessPattern{}
}

func docType(t *testing.T, c *design.Container, name string) *design.DocType {
	t.Helper()
	for i := range c.Documents {
		if c.Documents[i].Type == name {
			return &c.Documents[i]
		}
	}
	t.Fatalf("no type %s in %s", name, c.Name)
	return nil
}

func fieldNames(fs design.Fields) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestElements_Board: a board's cards become card documents in the board's partition, keyed and
// typed like the board; the board's read is one query of its partition, a card move a patch of one
// card, the JOIN query a query of the cards, and a board's creation creates its 150 cards too.
func TestElements_Board(t *testing.T) {
	d := load(t, "testdata/board-cards.yaml")
	sp, why := splitOf(t, d, "board", "cards", true)
	if sp == nil {
		t.Fatal(why)
	}
	c := &sp.v.Containers[0]
	if got := []string{c.Documents[0].Type, c.Documents[1].Type}; !slices.Equal(got, []string{"board", "card"}) {
		t.Fatalf("types %v, want board then card", got)
	}
	board, card := docType(t, c, "board"), docType(t, c, "card")
	if _, ok := board.Fields.Lookup("cards"); ok {
		t.Error("board keeps its cards")
	}
	if got, want := fieldNames(card.Fields), []string{"boardId", "type", "title", "column", "assignee", "points"}; !slices.Equal(got, want) {
		t.Errorf("card fields %v, want %v", got, want)
	}
	if f, _ := card.Fields.Lookup("boardId"); f.Copy != "parent.boardId" {
		t.Errorf("card boardId %+v, want a copy of the parent's", f)
	}
	if f, _ := card.Fields.Lookup("type"); f.Const != "card" {
		t.Errorf("card type %+v, want const card", f)
	}
	if card.Parent == nil || card.Parent.Type != "board" || card.Parent.Per.Min != 100 || card.Parent.Per.Max != 200 || card.Production != 150_000_000 {
		t.Errorf("card parent %+v, production %v; want board, 100..200, 150,000,000", card.Parent, card.Production)
	}
	if ex := c.Indexing.Excluded; !slices.Equal(ex, []string{"/title/?", "/column/?", "/assignee/?", "/points/?"}) {
		t.Errorf("excluded %v, want the card fields that /cards/* excluded", ex)
	}

	ap1 := pattern(t, sp.v, "AP1")
	if ap1.Op != design.OpQuery || ap1.Query != "SELECT * FROM c WHERE c.boardId = @boardId" || ap1.Params["@boardId"] != "{boardId}" || len(ap1.PartitionKey) != 1 {
		t.Errorf("AP1 %+v, want one query of the board's partition", ap1)
	}
	ap2 := pattern(t, sp.v, "AP2")
	if ap2.Op != design.OpPatch || ap2.Sample != "card" || len(ap2.Patch) != 1 || ap2.Patch[0].Path != "/column" || ap2.RPS.Avg != 100 {
		t.Errorf("AP2 %+v, want a patch of /column of one card at 100 a second", ap2)
	}
	ap3 := pattern(t, sp.v, "AP3")
	if want := "SELECT c.title, c.column FROM c WHERE c.boardId = @boardId AND c.type = 'card' AND c.assignee = @who"; ap3.Query != want {
		t.Errorf("AP3 query %q, want %q", ap3.Query, want)
	}
	ap4, ap4c := pattern(t, sp.v, "AP4"), pattern(t, sp.v, "AP4-cards")
	if ap4.Document != "board" || ap4c.Op != design.OpCreate || ap4c.Document != "card" || ap4c.Sample != "board" || ap4c.RPS.Avg != 75 || ap4c.RPS.Peak != 300 {
		t.Errorf("AP4 %+v and AP4-cards %+v, want the board and 150 cards a board", ap4, ap4c)
	}
	if got := keys(sp.touched); !slices.Equal(got, []string{"AP1", "AP2", "AP3", "AP4"}) {
		t.Errorf("touched %v", got)
	}
	if got := keys(sp.childOps); !slices.Equal(got, []string{"AP1", "AP2", "AP3", "AP4-cards"}) {
		t.Errorf("element patterns %v", got)
	}
	if !slices.Equal(sp.updatedApart, []string{"AP2"}) || !slices.Equal(sp.readTogether, []string{"AP1", "AP3"}) {
		t.Errorf("updated apart %v, read together %v", sp.updatedApart, sp.readTogether)
	}
	if v, err := design.Clone(sp.v); err != nil {
		t.Fatalf("the variant does not parse: %v", err)
	} else if fs := lint.Check(v); len(fs) > 0 {
		t.Errorf("lint finds %v", fs)
	}

	// Without one query of the partition (the separate container's variant), the read stays and a
	// query of the cards, typed since the board carries the key too, follows it.
	sp, why = splitOf(t, d, "board", "cards", false)
	if sp == nil {
		t.Fatal(why)
	}
	ap1, q := pattern(t, sp.v, "AP1"), pattern(t, sp.v, "AP1-cards")
	if ap1.Op != design.OpRead || q.Op != design.OpQuery || q.Sample != "board" ||
		q.Query != "SELECT c.title, c.column, c.assignee, c.points FROM c WHERE c.boardId = @boardId AND c.type = 'card'" || q.Params["@boardId"] != "{id}" {
		t.Errorf("AP1 %+v and AP1-cards %+v, want the read and a query of the cards", ap1, q)
	}
}

// TestElements_IoT: the readings of a chunk become reading documents with the chunk's key and a
// reference to it (indexed, since the policy indexes only what queries filter on); the patch that
// appends nine readings is a patch of the chunk's counter and nine reading creates.
func TestElements_IoT(t *testing.T) {
	d := load(t, "../../designs/iot.yaml")
	sp, why := splitOf(t, d, "chunk", "readings", true)
	if sp == nil {
		t.Fatal(why)
	}
	ci := containerIndex(sp.v, "Readings")
	c := &sp.v.Containers[ci]
	r := docType(t, c, "reading")
	if got, want := fieldNames(r.Fields), []string{"pk", "chunkId", "type", "t", "temp", "hum"}; !slices.Equal(got, want) {
		t.Errorf("reading fields %v, want %v", got, want)
	}
	if f, _ := r.Fields.Lookup("chunkId"); f.Copy != "parent.id" {
		t.Errorf("chunkId %+v, want a copy of the parent's id", f)
	}
	if r.Production != 133_000_000*50.5 {
		t.Errorf("production %v", r.Production)
	}
	if !slices.Contains(c.Indexing.Included, "/chunkId/?") {
		t.Errorf("included %v, want /chunkId/? for the query of the readings", c.Indexing.Included)
	}
	ap1, ap1r := pattern(t, sp.v, "AP1"), pattern(t, sp.v, "AP1-readings")
	if ap1.Op != design.OpPatch || len(ap1.Patch) != 1 || ap1.Patch[0].Op != "incr" || ap1.Sample != "chunk" {
		t.Errorf("AP1 %+v, want the patch of the chunk's counter", ap1)
	}
	if ap1r.Op != design.OpCreate || ap1r.Document != "reading" || ap1r.Sample != "chunk" || ap1r.RPS.Avg != 330*9 || ap1r.RPS.Peak != 800*9 {
		t.Errorf("AP1-readings %+v, want nine reading creates per append", ap1r)
	}
	ap3, q := pattern(t, sp.v, "AP3"), pattern(t, sp.v, "AP3-readings")
	if ap3.Op != design.OpRead || q.Query != "SELECT c.t, c.temp, c.hum FROM c WHERE c.chunkId = @chunkId" || q.Params["@chunkId"] != "{id}" || !slices.Equal(q.PartitionKey, []string{"{pk}"}) {
		t.Errorf("AP3 %+v and AP3-readings %+v, want the read and a query of its readings in its partition", ap3, q)
	}
	if ap2r := pattern(t, sp.v, "AP2-readings"); ap2r.RPS.Avg != 35*50.5 {
		t.Errorf("AP2-readings at %v a second, want 35 × 50.5", ap2r.RPS.Avg)
	}
	for _, id := range []string{"AP4", "AP5", "AP6", "AP7", "AP8"} {
		if sp.touched[id] || sp.childOps[id] {
			t.Errorf("%s does not read the readings but is counted", id)
		}
	}
	if _, err := design.Clone(sp.v); err != nil {
		t.Fatalf("the variant does not parse: %v", err)
	}
}

// TestElements_Unpriced: a pattern that cannot be redone on element documents leaves the option
// unpriced, with the reason.
func TestElements_Unpriced(t *testing.T) {
	tests := []struct {
		name, from, to, want string
	}{
		{"whole parent", "SELECT x.title, x.column FROM c JOIN x IN c.cards\n      WHERE c.boardId = @boardId AND c.type = 'board' AND x.assignee = @who",
			"SELECT * FROM c WHERE c.boardId = @boardId AND c.type = 'board' AND c.name = @who", "returns whole board documents"},
		{"array contains", "SELECT x.title, x.column FROM c JOIN x IN c.cards\n      WHERE c.boardId = @boardId AND c.type = 'board' AND x.assignee = @who",
			"SELECT c.name FROM c WHERE c.boardId = @boardId AND ARRAY_CONTAINS(c.cards, {assignee: @who}, true)", "ARRAY_CONTAINS"},
		{"parent field through a join", "SELECT x.title, x.column FROM c", "SELECT c.name, x.column FROM c", "names /name of the parent"},
		{"whole array", "path: /cards/7/column, value: done", "path: /cards, value: []", "writes the whole /cards"},
		{"different elements", "- {op: set, path: /cards/7/column, value: done}", "- {op: set, path: /cards/7/column, value: done}\n      - {op: set, path: /cards/8/points, value: 3}", "changes elements 7, 8 differently"},
		{"keyed by id", "partitionKey: [/boardId]", "partitionKey: [/id]", "keyed by /id"},
	}
	src := readFile(t, "testdata/board-cards.yaml")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(src, tc.from) {
				t.Fatalf("the design has no %q", tc.from)
			}
			d, err := design.Parse([]byte(strings.Replace(src, tc.from, tc.to, 1)), "board-cards.yaml")
			if err != nil {
				t.Fatal(err)
			}
			sp, why := splitOf(t, d, "board", "cards", true)
			if sp != nil || !strings.Contains(why, tc.want) {
				t.Errorf("why %q, want it to say %q", why, tc.want)
			}
			// The relation still answers, from the rules, with the option unpriced and why.
			a, err := Advise(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := a.Relations[0]
			if r.Options[arraySplit].Priced || !strings.Contains(r.Options[arraySplit].Note, tc.want) || !strings.HasPrefix(r.Answer, "keep /cards") {
				t.Errorf("option %+v, answer %q", r.Options[arraySplit], r.Answer)
			}
		})
	}
}

// TestSplitPatch: each patch operation on an element is one write of an element document.
func TestSplitPatch(t *testing.T) {
	ops := func(specs ...string) []design.PatchOp {
		var out []design.PatchOp
		for _, s := range specs {
			op, path, _ := strings.Cut(s, " ")
			out = append(out, design.PatchOp{Op: op, Path: path, Value: 1})
		}
		return out
	}
	tests := []struct {
		name                               string
		patch                              []design.PatchOp
		parent, creates, deletes, replaces int
		patched                            int
		wantNil                            bool
	}{
		{name: "no element", patch: ops("set /name", "incr /count"), wantNil: true},
		{name: "appends and a counter", patch: ops("add /lines/-", "add /lines/-", "incr /count"), parent: 1, creates: 2},
		{name: "remove and replace", patch: ops("remove /lines/2", "set /lines/0"), deletes: 1, replaces: 1},
		{name: "one element's fields", patch: ops("set /lines/3/qty", "incr /lines/3/price"), patched: 1},
		{name: "two elements alike", patch: ops("set /lines/3/qty", "set /lines/4/qty"), patched: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, why := splitPatch(&design.AccessPattern{ID: "AP1", Patch: tc.patch}, "lines")
			if why != "" {
				t.Fatal(why)
			}
			if tc.wantNil {
				if ws != nil {
					t.Errorf("got %+v, want nil", ws)
				}
				return
			}
			if len(ws.parentOps) != tc.parent || ws.creates != tc.creates || ws.deletes != tc.deletes || ws.replaces != tc.replaces || ws.patched != tc.patched {
				t.Errorf("got %+v", ws)
			}
			for _, op := range ws.elemOps {
				if strings.Contains(op.Path, "lines") || strings.Count(op.Path, "/") != 1 {
					t.Errorf("element op %+v: want a path of the element document", op)
				}
			}
		})
	}
}

// TestAdvise_ArrayRecommended: on the board, advise prices the three options, answers to move the
// cards into their own documents in the board's partition, and recommends that variant.
func TestAdvise_ArrayRecommended(t *testing.T) {
	a, err := Advise(load(t, "testdata/board-cards.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Relations) != 1 {
		t.Fatalf("%d relations", len(a.Relations))
	}
	r := a.Relations[0]
	if r.Kind != "array" || r.ChildType != "card" || len(r.Options) != 3 || !r.Options[arraySplit].Priced || !r.Options[arraySeparate].Priced {
		t.Fatalf("relation %+v", r)
	}
	if !strings.HasPrefix(r.Answer, "move /cards of board to card documents in board's logical partition") {
		t.Errorf("answer %q", r.Answer)
	}
	if !slices.Equal(r.UpdatedApart, []string{"AP2"}) {
		t.Errorf("updated apart %v", r.UpdatedApart)
	}
	split := r.Options[arraySplit]
	if split.WriteRU >= r.Options[arrayAsDesigned].WriteRU || split.Change.RUs >= 0 {
		t.Errorf("a card's write %.2f RU against the board's %.2f; change %+v", split.WriteRU, r.Options[arrayAsDesigned].WriteRU, split.Change)
	}
	i := slices.IndexFunc(a.Recommended, func(v Variant) bool { return v.Name == "split-board-cards" })
	if i < 0 {
		t.Fatalf("recommended %v", a.Recommended)
	}
	if a.Recommended[i].Change != split.Change {
		t.Errorf("the recommendation's change %+v is not the option's %+v", a.Recommended[i].Change, split.Change)
	}
	if fs := lint.Check(a.Recommended[i].Design); len(fs) > 0 {
		t.Errorf("lint finds %v", fs)
	}
}

// TestAdvise_ArrayKept: ecommerce's order lines (one to five, never changed alone) stay embedded;
// both ways out are priced and cost more, and the variant restates the design's storage figure for
// the line documents, so that lint finds it consistent with the production counts.
func TestAdvise_ArrayKept(t *testing.T) {
	d := load(t, "../../designs/ecommerce.yaml")
	s := newSearch(t, d)
	s.relations()
	i := slices.IndexFunc(s.a.Relations, func(r Relation) bool { return r.Kind == "array" })
	if i < 0 {
		t.Fatal("no array relation")
	}
	r := s.a.Relations[i]
	if !strings.HasPrefix(r.Answer, "keep /lines embedded in order") || r.ChildType != "line" {
		t.Errorf("answer %q, element type %q", r.Answer, r.ChildType)
	}
	for _, o := range r.Options[1:] {
		if !o.Priced || o.Change.RUs <= 0 || !strings.Contains(o.Note, "the stated storage grows") {
			t.Errorf("option %+v: want priced, dearer, with the storage it adds", o)
		}
	}
	pv := s.variants["split-order-lines"]
	if pv.d == nil {
		t.Fatal("the variant is not kept")
	}
	if pv.d.Scale.StorageGB <= d.Scale.StorageGB {
		t.Errorf("storage %v GB, want more than the design's %v", pv.d.Scale.StorageGB, d.Scale.StorageGB)
	}
	for _, f := range lint.Check(pv.d) {
		if f.Code == "scale-storage" {
			t.Errorf("lint: %v", f)
		}
	}
	if len(s.a.Recommended) != 0 && slices.ContainsFunc(s.a.Recommended, func(v Variant) bool { return strings.Contains(v.Name, "lines") }) {
		t.Errorf("recommended %v", s.a.Recommended)
	}
}
