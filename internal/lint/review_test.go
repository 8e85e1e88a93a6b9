package lint

import (
	"os"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

func lintSource(t *testing.T, src string) []Finding {
	t.Helper()
	d, err := design.Parse([]byte(src), "r.yaml")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return Check(d)
}

// TestReview_TTLPatchAndHotKeyShare: a patch that sets /ttl in a container with TTL off is ignored
// by the service (ttl-ignored at the patch); hotKeyShare on a query that reads across partitions is
// a note (plan ignores it), not a finding.
func TestReview_TTLPatchAndHotKeyShare(t *testing.T) {
	src := `version: 1
name: t
containers:
  - name: C
    partitionKey: [/tenantId]
    DEFAULTTTL
    documents:
      - type: item
        count: 50
        fields:
          tenantId: {gen: code, prefix: t-, cardinality: 5}
accessPatterns:
  - id: AP1
    name: Expire an item later
    container: C
    op: patch
    sample: item
    patch:
      - {op: set, path: /ttl, value: 600}
    rps: {avg: 1}
    estimate: {ru: 11}
  - id: AP2
    name: All items
    container: C
    op: query
    query: SELECT * FROM c
    rps: {avg: 1, hotKeyShare: 0.5}
    estimate: {ru: 3}
`
	for ttl, want := range map[string]string{"": "ttl-ignored,hot-key-share-unused", "defaultTtl: -1": "hot-key-share-unused"} {
		fs := lintSource(t, strings.Replace(src, "DEFAULTTTL", ttl, 1))
		if got := codesOf(fs); got != want {
			t.Errorf("%q: codes %s, want %s:\n%s", ttl, got, want, join(fs))
		}
		for _, f := range fs {
			if f.Code == "hot-key-share-unused" && !f.Note {
				t.Errorf("hot-key-share-unused must be a note: %s", f)
			}
			if f.Code == "ttl-ignored" && f.Path != "accessPatterns[0].patch[0].path" {
				t.Errorf("ttl-ignored at %s, want the patch's path", f.Path)
			}
		}
	}
}

// TestReview_KeyTemplatesThroughCopies: a template that reads the key's value under another name
// (a copy of the id, of the parent's key) is the key; a hierarchical prefix in WHERE pinned from
// the right fields is no finding; a template that reads another field is.
func TestReview_KeyTemplatesThroughCopies(t *testing.T) {
	src := `version: 1
name: t
app: {sdk: dotnet}
containers:
  - name: C
    partitionKey: [/userId]
    documents:
      - type: user
        count: 20
        id: "user-{seq}"
        fields:
          userId: {copy: id}
          type: {const: user}
          referrer: {gen: code, prefix: user-, cardinality: 20}
      - type: order
        parent: {type: user, per: {min: 1, max: 3}}
        fields:
          userId: {copy: parent.userId}
          type: {const: order}
accessPatterns:
  - id: AP1
    name: A user's orders
    container: C
    op: query
    sample: SAMPLE
    query: SELECT * FROM c WHERE c.userId = @u AND c.type = 'order'
    params: {"@u": "PARAM"}
    partitionKey: ["KEY"]
    rps: {avg: 1}
    estimate: {ru: 3}
`
	for _, tc := range []struct{ sample, param, key, want string }{
		{"user", "{id}", "{userId}", ""},
		{"user", "{userId}", "{id}", ""},
		{"order", "{userId}", "{parent.userId}", ""},
		{"order", "{parent.id}", "{userId}", ""},
		{"user", "{referrer}", "{userId}", "partition-key-template"},
		{"user", "{userId}", "{referrer}", "partition-key-template"},
	} {
		fs := lintSource(t, strings.NewReplacer("SAMPLE", tc.sample, "PARAM", tc.param, "KEY", tc.key).Replace(src))
		if got := codesOf(fs); got != tc.want {
			t.Errorf("sample %s, @u %s, key %s: codes %q, want %q:\n%s", tc.sample, tc.param, tc.key, got, tc.want, join(fs))
		}
	}
}

// TestReview_SupportWasOverProvisioned: the case, the support desk at 12,000 RU/s manual
// for its ~700 RU/s peak, is over-provisioned with the idle capacity's cost (the shipped design
// now states 800 RU/s).
func TestReview_SupportWasOverProvisioned(t *testing.T) {
	b, err := os.ReadFile("../../designs/support.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "throughput: {manual: 800}", "throughput: {manual: 12000}", 1)
	var got string
	for _, f := range lintSource(t, src) {
		if f.Code == "over-provisioned" {
			got = f.String()
		}
	}
	for _, want := range []string{"designed manual 12000 RU/s is 17× the modeled peak", "pays for idle capacity", "throughput: {manual: 700}"} {
		if !strings.Contains(got, want) {
			t.Errorf("over-provisioned %q: want %q", got, want)
		}
	}
}
