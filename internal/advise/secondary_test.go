package advise

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/plan"
)

// TestSecondary_FanOutLookup (#37 point 2): "who added me as a friend" filters on friendId, a field
// only the friendship type has, at 70 requests a second across partitions. advise prices a secondary
// container keyed by /friendId that holds only the friendships, kept from the change feed with its
// lease container (one lease per feed range, renewed every 17 s; each drained range polled every
// 5 s: the .NET SDK's defaults), and a global secondary index that copies every type.
func TestSecondary_FanOutLookup(t *testing.T) {
	d := load(t, "../../testdata/advise/friends-fanout.yaml")
	a, err := Advise(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sc *Secondary
	for i := range a.Secondary {
		if a.Secondary[i].Pattern == "AP3" {
			sc = &a.Secondary[i]
		}
	}
	if sc == nil || sc.Key != "/friendId" || len(sc.Options) != 2 || !sc.Options[0].Priced || !sc.Options[1].Priced {
		t.Fatalf("AP3: %+v, want a copy keyed by /friendId priced two ways", sc)
	}
	own, gsi := sc.Options[0], sc.Options[1]
	if own.QueryRUs >= sc.FanOutRUs || own.UpkeepRUs <= 0 || !strings.Contains(own.Assumed, "soft delete") || !strings.Contains(own.Assumed, "lease") {
		t.Errorf("secondary container: %+v", own)
	}
	if !gsi.Preview || !strings.Contains(gsi.Assumed, "Catchup Gap") || !strings.Contains(gsi.Assumed, "continuous backup") || !strings.Contains(gsi.Assumed, "every type") {
		t.Errorf("global secondary index: %+v", gsi)
	}
	// Serverless is an account-level capacity mode (throughput-serverless, how-to-change-capacity-
	// mode): the lease container joins a provisioned account, so its cheapest mode is autoscale at
	// the least max, 1,000 RU/s, billed at its 10% floor: 100 RU/s ÷ 100 × $0.012 × 730 h = $8.76 a
	// month (manual 400 RU/s would be 4 × $0.008 × 730 = $23.36), not serverless. The copy then takes
	// fewer RU/s but costs more a month, and is not recommended as a saving.
	for _, v := range a.Recommended {
		if v.Name == "secondary-AP3" {
			t.Errorf("secondary-AP3 recommended at %+v", v.Change)
		}
	}
	if own.Change.RUs >= 0 || own.Change.MonthlyUSD <= 0 || !strings.Contains(sc.Answer, "costs +") {
		t.Errorf("secondary container: change %+v, answer %q", own.Change, sc.Answer)
	}
	s := &search{d: d, max: DefaultMaxCandidates, variants: map[string]priced{}, a: &Advice{}}
	bp, err := s.build(d)
	if err != nil {
		t.Fatal(err)
	}
	s.base = bp
	vd, _ := s.withCopy(containerIndex(d, "Social"), "AP3", "friendId", "{friendId}", false)
	vp, err := s.build(vd)
	if err != nil {
		t.Fatal(err)
	}
	lp := containerPlan(vp, "Social-by-friendId-leases")
	if lp == nil || lp.Recommended.Mode == "serverless" || lp.Recommended.RU != 1000 || math.Abs(lp.MonthlyUSD-8.76) > 0.005 {
		t.Errorf("lease container priced %+v at $%v, want autoscale 1000 at $8.76", lp.Recommended, lp.MonthlyUSD)
	}
	for _, c := range vp.Containers {
		if c.Recommended.Mode == "serverless" {
			t.Errorf("%s recommended serverless in a provisioned account", c.Name)
		}
	}
	{
		c := vd.Containers[containerIndex(vd, "Social-by-friendId")]
		if len(c.Documents) != 1 || c.Documents[0].Type != "friendshipCopy" {
			t.Errorf("the copy holds %+v, want only the friendships", c.Documents)
		}
		leases := vd.Containers[containerIndex(vd, "Social-by-friendId-leases")]
		n := float64(leases.Documents[0].Count)
		base := containerPlan(bp, "Social")
		if n != float64(base.Partitions) {
			t.Errorf("%v leases, want one per feed range of the source (%d)", n, base.Partitions)
		}
		for _, ap := range vd.AccessPatterns {
			switch ap.ID {
			case "COPY-LEASE":
				if math.Abs(ap.RPS.Avg-n/17) > 1e-9 {
					t.Errorf("lease renewals %.4f a second, want %v/17", ap.RPS.Avg, n)
				}
			case "COPY-POLL":
				if math.Abs(ap.RPS.Avg-n/5) > 1e-9 || ap.Container != "Social" {
					t.Errorf("polls %.4f a second on %s, want %v/5 on Social", ap.RPS.Avg, ap.Container, n)
				}
			case "AP3":
				if ap.Container != "Social-by-friendId" || len(ap.PartitionKey) != 1 {
					t.Errorf("AP3 not moved to the copy with its key: %+v", ap)
				}
			}
		}
	}
}

// TestSecondary_SoftDeletes (#37 point 2): latest-version change feed does not log deletes, so in
// the secondary container's variant AP5's delete of a friendship becomes a patch setting deleted
// and ttl (TTL on, /deleted declared), the copy gets the delete, and the global secondary index
// (kept by the service) keeps the delete as it is.
func TestSecondary_SoftDeletes(t *testing.T) {
	d := load(t, "../../testdata/advise/friends-fanout.yaml")
	s := &search{d: d, max: DefaultMaxCandidates, variants: map[string]priced{}, a: &Advice{}}
	base, err := s.build(d)
	if err != nil {
		t.Fatal(err)
	}
	s.base = base
	ci := containerIndex(d, "Social")
	v, _ := s.withCopy(ci, "AP3", "friendId", "{friendId}", false)
	ap := v.AccessPatterns[patternIndex(v, "AP5")]
	if ap.Op != "patch" || len(ap.Patch) != 2 || ap.Patch[1].Path != "/ttl" {
		t.Errorf("AP5 in the secondary container's variant: %+v", ap)
	}
	src := v.Containers[ci]
	if src.DefaultTTL == nil || *src.DefaultTTL != -1 {
		t.Errorf("TTL not on: %v", src.DefaultTTL)
	}
	if patternIndex(v, "COPY-AP5") < 0 || v.AccessPatterns[patternIndex(v, "COPY-AP5")].Op != "delete" {
		t.Error("the copy does not get the delete")
	}
	if d.AccessPatterns[patternIndex(d, "AP5")].Op != "delete" || d.Containers[ci].DefaultTTL != nil {
		t.Error("the design itself was changed")
	}
	g, _ := s.withCopy(ci, "AP3", "friendId", "{friendId}", true)
	if g.AccessPatterns[patternIndex(g, "AP5")].Op != "delete" {
		t.Error("the global secondary index's variant soft-deletes")
	}
}

// TestSecondary_SoftDeleteHidden (#37 point 2): a soft-deleted friendship stays in the source for
// its TTL, so in the secondary container's variant AP2 (friendships of a user, in the source) must
// leave it out: its WHERE gets AND NOT IS_DEFINED(c.deleted); AP1 (a point read of the user) and the
// moved AP3 (on the copy, where the delete is a delete) are kept.
func TestSecondary_SoftDeleteHidden(t *testing.T) {
	d := load(t, "../../testdata/advise/friends-fanout.yaml")
	s := &search{d: d, max: DefaultMaxCandidates, variants: map[string]priced{}, a: &Advice{}}
	base, err := s.build(d)
	if err != nil {
		t.Fatal(err)
	}
	s.base = base
	v, _ := s.withCopy(containerIndex(d, "Social"), "AP3", "friendId", "{friendId}", false)
	ap2 := v.AccessPatterns[patternIndex(v, "AP2")]
	want := "SELECT c.friendId FROM c WHERE (c.userId = @u AND c.type = 'friendship') AND NOT IS_DEFINED(c.deleted)"
	if ap2.Query != want {
		t.Errorf("AP2 in the variant: %q, want %q", ap2.Query, want)
	}
	if q := v.AccessPatterns[patternIndex(v, "AP3")].Query; strings.Contains(q, "deleted") {
		t.Errorf("AP3 on the copy: %q", q)
	}
	if d.AccessPatterns[patternIndex(d, "AP2")].Query == ap2.Query {
		t.Error("the design itself was changed")
	}
	vp, err := s.build(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, pp := range vp.Patterns {
		if pp.ID == "AP2" && PatternRUs(pp) <= 0 {
			t.Errorf("AP2 not priced in the variant: %+v", pp)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"SELECT * FROM c WHERE c.a = 1 OR c.b = 2 ORDER BY c.x", "SELECT * FROM c WHERE (c.a = 1 OR c.b = 2) AND NOT IS_DEFINED(c.deleted) ORDER BY c.x"},
		{"SELECT VALUE COUNT(1) FROM f", "SELECT VALUE COUNT(1) FROM f WHERE NOT IS_DEFINED(f.deleted)"},
		{"SELECT * FROM c WHERE c.type = 'user'", "SELECT * FROM c WHERE c.type = 'user'"},
		{"SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'x')", "SELECT * FROM c WHERE (EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'x')) AND NOT IS_DEFINED(c.deleted)"},
	} {
		if got, _ := hidesSoftDeleted(tc.in, map[string]bool{"friendship": true}); got != tc.want {
			t.Errorf("%q → %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAdvise_AutoscaleLowerBound (#37 point 3): with no traffic shape, plan prices autoscale on the
// average RU/s, a lower bound of a bill that takes each hour's highest; advise prints plan's own
// sentence (plan.AutoscaleBilling) beside its monthly figures when a plan behind them recommends
// autoscale (the lease container at autoscale 1000 here).
func TestAdvise_AutoscaleLowerBound(t *testing.T) {
	d := load(t, "../../testdata/advise/friends-fanout.yaml")
	a, err := Advise(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Billing != plan.AutoscaleBilling {
		t.Fatalf("billing %q", a.Billing)
	}
	var b strings.Builder
	if err := Render(&b, a, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "lower bounds: "+plan.AutoscaleBilling) {
		t.Errorf("no lower-bound caveat in\n%s", b.String()[:400])
	}
}

// TestSecondary_CopyKeyMustFit (#37 point 4): iot's dashboard (AP5) fans out over Readings and the
// copy would be keyed by /deviceId, which the key table marks as not fitting (a device's readings,
// about 120 GB at production, over the 20 GB a logical partition holds). The copy's own key is
// judged by plan's verdict on the copy container, the same rule the key table uses: both options say
// "not buildable", and neither is recommended.
func TestSecondary_CopyKeyMustFit(t *testing.T) {
	d := load(t, "../../designs/iot.yaml")
	a, err := Advise(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ka := range a.Keys {
		for _, kc := range ka.Candidates {
			if ka.Container == "Readings" && len(kc.Key) == 1 && kc.Key[0] == "/deviceId" && kc.Fits {
				t.Errorf("key table: /deviceId fits: %+v", kc)
			}
		}
	}
	var sc *Secondary
	for i := range a.Secondary {
		if a.Secondary[i].Pattern == "AP5" {
			sc = &a.Secondary[i]
		}
	}
	if sc == nil || sc.Key != "/deviceId" {
		t.Fatalf("AP5: %+v", sc)
	}
	for _, o := range sc.Options {
		if !strings.HasPrefix(o.NotBuildable, "not buildable") || !strings.Contains(o.NotBuildable, "over the 20 GB limit") {
			t.Errorf("%s: %q", o.Name, o.NotBuildable)
		}
	}
	if !strings.Contains(sc.Answer, "not buildable") {
		t.Errorf("answer %q", sc.Answer)
	}
	for _, v := range a.Recommended {
		if strings.HasPrefix(v.Name, "secondary-") {
			t.Errorf("recommended %s", v.Name)
		}
	}
}

// TestAdvise_AlternativesNotCumulative (#37 point 5): catalog's index-Products rewrites AP2's ORDER
// BY over the review documents that embed-review removes (AP2 then reads the product's array): the
// two change the same pattern, so their figures do not add. advise says its recommendations are
// alternatives, each priced alone, and marks the two moot together; index-CategoryListings changes
// another container's patterns and is marked with neither.
func TestAdvise_AlternativesNotCumulative(t *testing.T) {
	d := load(t, "../../designs/catalog.yaml")
	a, err := Advise(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	moot := map[string][]string{}
	for _, v := range a.Recommended {
		moot[v.Name] = v.MootWith
	}
	has := func(ms []string, name string) bool {
		return slices.ContainsFunc(ms, func(m string) bool { return strings.HasPrefix(m, name+": both change") && strings.Contains(m, "AP2") })
	}
	if !has(moot["index-Products"], "embed-review") || !has(moot["embed-review"], "index-Products") {
		t.Errorf("moot: %v", moot)
	}
	if m, ok := moot["index-CategoryListings"]; !ok || len(m) != 0 {
		t.Errorf("index-CategoryListings: %v (present %v)", m, ok)
	}
	var b strings.Builder
	if err := Render(&b, a, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Alternatives, not cumulative") || !strings.Contains(b.String(), "index-Products and embed-review are moot together") {
		t.Errorf("render:\n%s", b.String()[:1200])
	}
}

// TestRelations_RewriteWording (#37 point 6): friends-fanout's embedded option is not priced (AP3
// reads the children across parents), so the rewrites are "not priced", not "0.0 RU/s in all"; the
// busiest parent's rate is shown unrounded (75 child writes a second at peak, AP4 60 + AP5 15, over
// 20 million parents is a few millionths, not 0); ecommerce's embedding costs more, so the rule does
// not say it "may still pay".
func TestRelations_RewriteWording(t *testing.T) {
	for path, want := range map[string]string{
		"../../testdata/advise/friends-fanout.yaml": "(not priced)",
		"../../designs/ecommerce.yaml":              "but embedding costs more",
	} {
		d := load(t, path)
		a, err := Advise(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range a.Relations {
			for _, rule := range r.Rules {
				if !strings.Contains(rule, "such writes a second") {
					continue
				}
				if strings.Contains(rule, want) {
					found = true
				}
				if strings.Contains(rule, "takes 0 such") || strings.Contains(rule, "(0.0 RU/s in all)") {
					t.Errorf("%s: %q", path, rule)
				}
				if r.BusiestParentWrites <= 0 {
					t.Errorf("%s: busiest parent writes %v", path, r.BusiestParentWrites)
				}
				if strings.Contains(rule, "costs more") && strings.Contains(rule, "may still pay") {
					t.Errorf("%s: %q", path, rule)
				}
			}
		}
		if !found {
			t.Errorf("%s: no rule says %q", path, want)
		}
	}
}

// TestKeys_RekeyCaveats (#37 point 7): orders-status-tight's recommendation [/status, /id] must say
// that the key change needs a new container and a copy of all of the data — 60 GB at production
// (scale.storageGB: 60) — and that its first level, status, with six values (oneOf), is against the
// hierarchical-key guidance's high-cardinality first level.
func TestKeys_RekeyCaveats(t *testing.T) {
	d := load(t, "../../testdata/advise/orders-status-tight.yaml")
	a, err := Advise(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var what string
	for _, v := range a.Recommended {
		if v.Name == "key-Orders" {
			what = v.What
		}
	}
	for _, want := range []string{"/status, /id instead of /status", "new container and a copy of all of the data (60 GB at production)",
		"first level /status has 6 values", "against the hierarchical-key guidance"} {
		if !strings.Contains(what, want) {
			t.Errorf("key-Orders %q lacks %q", what, want)
		}
	}
}
