package target

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
)

// maxDatabaseID is the longest database id the service accepts (concepts-limits.md: resource
// names up to 255 characters).
const maxDatabaseID = 255

// RunPrefix marks every database a run creates on an account or endpoint: `validate cleanup` removes
// only databases whose name carries it and a run id (ParseRunScoped).
const RunPrefix = "cdv-"

// RunScopedName is the database a run uses on an account or endpoint: "cdv-<database>-<run id>".
// Characters the service forbids in ids ('/', '\', '?', '#') become '-', and the name is cut to
// the service's length limit keeping the mark and the run id. An empty runID uses this process's
// run id (ProcessRunID), so every call of one run agrees.
func RunScopedName(database, runID string) string {
	if runID == "" {
		runID = ProcessRunID()
	}
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch r {
			case '/', '\\', '?', '#':
				return '-'
			}
			if r < 0x20 || r == 0x7f {
				return '-'
			}
			return r
		}, strings.TrimSpace(s))
	}
	database, runID = clean(database), clean(runID)
	if database == "" {
		database = "validate"
	}
	if room := maxDatabaseID - len(RunPrefix) - len(runID) - 1; len(database) > room {
		database = strings.TrimRight(truncateUTF8(database, max(room, 1)), " ")
	}
	return truncateUTF8(RunPrefix+database+"-"+runID, maxDatabaseID)
}

// generatedRunID is the tail of a run-scoped name whose run id NewRunID made: its UTC start.
var generatedRunID = regexp.MustCompile(`-(\d{8}t\d{6})-[0-9a-f]{4}$`)

// ParseRunScoped tells whether name is a database a run created (RunPrefix and a run id NewRunID
// made) and when that run started. A name with another run id (--run-id) is marked but has no
// start: started is zero and ok is true only when runID names it exactly.
func ParseRunScoped(name, runID string) (started time.Time, ok bool) {
	if !strings.HasPrefix(name, RunPrefix) {
		return time.Time{}, false
	}
	if runID != "" {
		return time.Time{}, strings.HasSuffix(name, "-"+runID) && len(name) > len(RunPrefix)+len(runID)+1
	}
	m := generatedRunID.FindStringSubmatch(name)
	if m == nil || len(name) <= len(RunPrefix)+len(m[0]) {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102t150405", m[1])
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// NewRunID returns a fresh run id: UTC time to the second and 4 random hex digits, e.g.
// "20261121t054346-a1b2". It sorts by time and is safe in a database id.
func NewRunID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return strings.ToLower(now.UTC().Format("20060102T150405")) + "-" + hex.EncodeToString(b[:])
}

var processRunID = sync.OnceValue(func() string { return NewRunID(time.Now()) })

// ProcessRunID is one run id per process, made on first use.
func ProcessRunID() string { return processRunID() }

// RunCost is what one run on an account is expected to cost, from the design and the rate card.
type RunCost struct {
	// Containers is the number of containers the run creates.
	Containers int
	// RUPerSecond is the throughput each container is created with (the service minimum).
	RUPerSecond int
	// Documents and SeedRU estimate the seeding; ProbeRU the probing (estimates × samples).
	Documents int
	SeedRU    float64
	ProbeRU   float64
	// Hours is how many hours are billed: provisioned throughput is billed per started hour.
	Hours int
	// USD is the expected bill at the rate card's manual price.
	USD float64
	// Formula shows the arithmetic.
	Formula string
}

// EstimateRunCost computes what a run of d with this many samples per pattern costs on an account
// at minimal manual throughput: every container at the service minimum (cost rate card
// ManualMinRU), billed per started hour (ManualPrice per 100 RU/s per hour, one region; a run-scoped
// database is deleted at the end). The hours come from the request units the run consumes —
// seeding writes modeled with cost.Point, probing at each pattern's own estimate — divided by the
// throughput; at least one hour.
//
// counts are the documents the run seeds per type: the seed plan's own (seed.Plan.Counts), so the
// line says what the run will write, not a second estimate of it.
func EstimateRunCost(d *design.Design, samples int, counts map[string]int) RunCost {
	rc := cost.Current
	ru := int(rc.ManualMinRU.Value)
	out := RunCost{Containers: len(d.Containers), RUPerSecond: ru}
	if samples < 1 {
		samples = 1
	}
	// Seeding: expected documents per type times the modeled create charge.
	busiest := 0.0 // RU the busiest container consumes: it bounds the run's length
	perContainer := map[string]float64{}
	for ci := range d.Containers {
		c := &d.Containers[ci]
		for ti := range c.Documents {
			t := &c.Documents[ti]
			n := counts[t.Type]
			size := t.TargetBytes
			if size <= 0 {
				size = 200 + 40*len(t.Fields) // rough JSON size of a generated document
			}
			charge := cost.Point(cost.PointOp{Kind: cost.Create, SizeBytes: size,
				IndexedTerms: 2 * (len(t.Fields) + 2), Regions: 1})
			out.Documents += n
			out.SeedRU += float64(n) * charge
			perContainer[c.Name] += float64(n) * charge
		}
	}
	for _, p := range d.AccessPatterns {
		n := samples
		if p.Samples > 0 {
			n = p.Samples
		}
		if p.Op == design.OpQuery {
			n++ // the probe's warm-up execution (probe.RunPatterns)
		}
		ru := float64(n) * math.Max(p.Estimate.RU, 1)
		out.ProbeRU += ru
		perContainer[p.Container] += ru
	}
	for _, v := range perContainer {
		busiest = math.Max(busiest, v)
	}
	seconds := busiest / float64(max(ru, 1))
	out.Hours = max(1, int(math.Ceil(seconds/3600)))
	price := rc.ManualPrice.Value
	out.USD = float64(out.Containers) * float64(ru) / 100 * price * float64(out.Hours)
	out.Formula = fmt.Sprintf("%d container(s) × %d RU/s ÷ 100 × $%g per hour × %d h", out.Containers, ru, price, out.Hours)
	return out
}

// RunCostSummary is the line printed before a run on an account starts.
func RunCostSummary(d *design.Design, samples int, counts map[string]int) string {
	c := EstimateRunCost(d, samples, counts)
	return fmt.Sprintf("expected cost of this run on the account: about $%.2f (%s; ~%d documents seeded, ~%.0f RU to seed, ~%.0f RU to probe; list prices, one region)",
		c.USD, c.Formula, c.Documents, c.SeedRU, c.ProbeRU)
}
