package seed

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/sdk"
	"github.com/cosmosdv/validate/internal/testenv"
)

// With the SDK's own retries on (as every target's client has them), the 429s never reach the
// loader's code: the per-retry policy still counts each one, per document type, with the waits
// asked, and every planned document lands exactly once.
func TestLoad_CountsSDKRetried429sPerType(t *testing.T) {
	d := shopDesign(15)
	d.Containers[0].UniqueKeys = nil
	// A clock that stands still until a 429 asks for a wait (see TestLoad_BacksOffOn429), so that
	// the burst of writes meets one 400 RU/s budget and exceeds it.
	clk := testenv.NewThrottleClock()
	opts := &azcosmos.ClientOptions{}
	opts.PerRetryPolicies = []policy.Policy{sdk.ThrottlePolicy{}, clk.Policy()}
	containers := loadTargetWith(t, d, engine.Options{Throttle: true, Now: clk.Now}, opts)
	p, err := Compile(d, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Load(context.Background(), p, containers, Options{Concurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	var throttled int64
	var waited float64
	counts := p.Counts()
	want := 0
	for _, s := range res.Stats {
		throttled += s.Throttled
		waited += s.RetryWaitMs
		if s.Throttled > 0 && s.RetryWaitMs <= 0 {
			t.Errorf("%s: %d 429s but no retry wait recorded", s.Type, s.Throttled)
		}
		if s.Documents != counts[s.Type] {
			t.Errorf("%s: %d documents written, %d planned", s.Type, s.Documents, counts[s.Type])
		}
		want += counts[s.Type]
	}
	if throttled == 0 {
		t.Fatal("no 429 counted: the engine never throttled or the policy did not see it")
	}
	if throttled < res.Throttled {
		t.Errorf("policy counted %d 429s, fewer than the %d the loader itself waited out", throttled, res.Throttled)
	}
	// The note counts what the Throttling section counts (every 429), and says how many reached
	// the loader when the SDK retried some itself.
	note := ""
	for _, f := range res.Findings {
		if f.Level != "info" {
			t.Fatalf("finding: %+v", f)
		}
		if f.Subject == "seeding" {
			note = f.Message
		}
	}
	if want := fmt.Sprintf("with 429 (throttled) %d time(s)", throttled); !strings.Contains(note, want) {
		t.Errorf("seeding note %q does not give the %d 429s the policy counted", note, throttled)
	}
	if throttled > res.Throttled && !strings.Contains(note, fmt.Sprintf("%d reached the loader", res.Throttled)) {
		t.Errorf("seeding note %q does not say that %d of %d reached the loader", note, res.Throttled, throttled)
	}
	// No loss, no duplicate: the container holds exactly the planned documents, with distinct ids.
	pager := containers["UserOrders"].NewQueryItemsPager("SELECT VALUE c.id FROM c", azcosmos.NewPartitionKey(), nil)
	ids := map[string]int{}
	n := 0
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range page.Items {
			ids[string(raw)]++
			n++
		}
	}
	if n != want || len(ids) != want {
		t.Fatalf("container holds %d documents (%d distinct ids), want %d", n, len(ids), want)
	}
}

func TestThrottleNote(t *testing.T) {
	for _, tc := range []struct {
		name        string
		all, loader int64
		want, not   string
	}{
		{"none", 0, 0, "", ""},
		{"all retried by the SDK", 12, 0, "429 (throttled) 12 time(s): the SDK retried 12 of them itself and 0 reached the loader", "lowered"},
		{"some reached the loader", 12, 5, "12 time(s): the SDK retried 7 of them itself and 5 reached the loader; the loader waited", ""},
		{"client without the policy", 0, 5, "429 (throttled) 5 time(s); the loader waited as asked, retried, and lowered the writes in flight from 16 to as few as 4", "SDK retried"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := throttleNote(tc.all, tc.loader, 16, 4)
			if ok != (tc.want != "") || !strings.Contains(f.Message, tc.want) || (tc.not != "" && strings.Contains(f.Message, tc.not)) {
				t.Errorf("note = %q (ok %v), want it to contain %q and not %q", f.Message, ok, tc.want, tc.not)
			}
		})
	}
}
