package advise

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/plan"
)

// TestAdvise_TightKeyRankedBelowKeysWithHeadroom (#37 point 1): orders keyed by a status with six
// values, the commonest weighted 3 of 10. At production (scale.storageGB 60) that status holds
// 60 GB × 3/10 = 18 GB, by hand: within the 20 GB limit but over half of it (the default headroom,
// 50%). plan warns hot-partition for it and advise ranks it below every key that fits with
// headroom, says why, and recommends a key with headroom — the same rule (cost.Hot) in both.
func TestAdvise_TightKeyRankedBelowKeysWithHeadroom(t *testing.T) {
	d := load(t, "../../testdata/advise/orders-status-tight.yaml")
	p, err := plan.Build(d, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hot := 0
	for _, w := range p.Warnings {
		if w.Code == "hot-partition" && w.Subject == "Orders" {
			hot++
		}
	}
	if hot == 0 {
		t.Fatalf("plan gives no hot-partition warning for Orders: %+v", p.Warnings)
	}
	a, err := Advise(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ka := a.Keys[0]
	var own KeyCandidate
	for _, c := range ka.Candidates {
		if c.Kind == "design" {
			own = c
		}
	}
	const wantGB = 60 * 3.0 / 10 // by hand: the commonest status's share of the stated storage
	if math.Abs(own.BusiestGB-wantGB) > 0.05*wantGB {
		t.Errorf("busiest status holds %.2f GB, want %.1f (60 GB × 3/10)", own.BusiestGB, wantGB)
	}
	if !own.Fits || own.Headroom || !strings.Contains(own.Why, "20 GB") {
		t.Fatalf("design key %+v: want fits, no headroom, and why naming the 20 GB", own)
	}
	for _, c := range ka.Candidates {
		if c.Headroom && c.Rank > own.Rank {
			t.Errorf("%v (headroom) ranked %d, below the design's tight key at %d", c.Key, c.Rank, own.Rank)
		}
	}
	cust := slices.IndexFunc(ka.Candidates, func(c KeyCandidate) bool { return slices.Equal(c.Key, []string{"/customerId"}) })
	if cust < 0 || !ka.Candidates[cust].Headroom || ka.Candidates[cust].Rank >= own.Rank {
		t.Errorf("/customerId: %+v, want it with headroom above the design's key", ka.Candidates[cust])
	}
	if len(ka.Recommended) == 0 || slices.Equal(ka.Recommended, []string{"/status"}) {
		t.Errorf("recommended %v, want a key with headroom", ka.Recommended)
	}
	// Configurable: at a 95% headroom the same 18 GB (90% of 20) leaves room, and the design's key
	// is not called tight.
	a, err = Advise(d, Options{Headroom: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Keys[0].Candidates {
		if c.Kind == "design" && (!c.Headroom || c.HeadroomShare != 0.95) {
			t.Errorf("at 95%% headroom the design key is %+v", c)
		}
	}
}
