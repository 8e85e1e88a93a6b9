package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/probe/fanout"
)

// TestQueryPlan: the gateway's query-plan request is answered in the service's format, with the
// query ranges the filter pins (a full key a point, a hierarchical prefix its descendants' range,
// anything else the whole key space), and the 400/1004 of an unservable cross-partition query
// carries the same plan in additionalErrorInfo.
func TestQueryPlan(t *testing.T) {
	_, client := start(t, engine.Options{Partitions: func(string, string, int) int { return 4 }})
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	pk := azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2, Paths: []string{"/tenant", "/user"}}
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: pk}, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	b := fanout.NewContainer(c)
	plan := func(q string) *fanout.Plan {
		t.Helper()
		raw, charge, err := b.QueryPlan(ctx, q, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		p, err := fanout.ParsePlan(raw)
		if err != nil || charge != 0 || p.Version != 2 {
			t.Fatalf("%s: plan %s, charge %v, err %v", q, raw, charge, err)
		}
		return p
	}
	p := plan("SELECT TOP 5 c.id FROM c WHERE c.tenant = 't1' ORDER BY c.ts DESC")
	qi := p.QueryInfo
	if *qi.Top != 5 || qi.OrderBy[0] != "Descending" || qi.OrderByExpressions[0] != "c.ts" ||
		!strings.Contains(qi.RewrittenQuery, "{documentdb-formattableorderbyquery-filter}") || !strings.Contains(qi.RewrittenQuery, "orderByItems") {
		t.Errorf("ORDER BY plan: %+v", qi)
	}
	if r := p.QueryRanges; len(r) != 1 || r[0].Min == "" || r[0].Max != r[0].Min+"FF" || r[0].IsMaxInclusive {
		t.Errorf("a prefix is its descendants' range: %+v", r)
	}
	if r := plan("SELECT VALUE COUNT(1) FROM c WHERE c.tenant = 't1' AND c.user IN ('a', 'b')").QueryRanges; len(r) != 2 || r[0].Min != r[0].Max || !r[0].IsMaxInclusive {
		t.Errorf("two full keys are two points: %+v", r)
	}
	if r := plan("SELECT c.id FROM c WHERE c.user = 'a'").QueryRanges; len(r) != 1 || r[0].Min != "" || r[0].Max != "FF" {
		t.Errorf("a later level alone pins nothing: %+v", r)
	}
	g := plan("SELECT c.tenant, COUNT(1) AS n, AVG(c.x) AS a FROM c GROUP BY c.tenant").QueryInfo
	if len(g.GroupByExpressions) != 1 || *g.GroupByAliasToAggregateType["n"] != "Count" || *g.GroupByAliasToAggregateType["a"] != "Average" || g.GroupByAliasToAggregateType["tenant"] != nil {
		t.Errorf("GROUP BY plan: %+v", g)
	}
	// A client that does not declare a feature the plan needs is refused, as the service does.
	h := http.Header{}
	h.Set("x-ms-cosmos-is-query-plan-request", "True")
	h.Set("x-ms-cosmos-supported-query-features", "OrderBy, Top")
	_, err := c.NewQueryItemsPager("SELECT DISTINCT VALUE c.tenant FROM c", azcosmos.NewPartitionKey(), nil).NextPage(policy.WithHTTPHeader(ctx, h))
	if err == nil || !strings.Contains(err.Error(), "Query contained Distinct") {
		t.Errorf("undeclared DISTINCT: %v", err)
	}
	// The older SDKs' way: the refused query itself.
	_, err = c.NewQueryItemsPager("SELECT VALUE MAX(c.x) FROM c", azcosmos.NewPartitionKey(), nil).NextPage(ctx)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 400 || re.RawResponse.Header.Get("x-ms-substatus") != "1004" {
		t.Fatalf("want 400/1004, got %v", err)
	}
	body, _ := runtime.Payload(re.RawResponse)
	var e struct {
		Info string `json:"additionalErrorInfo"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Info == "" {
		t.Fatalf("no additionalErrorInfo: %s", body)
	}
	var info fanout.Plan
	if err := json.Unmarshal([]byte(e.Info), &info); err != nil || info.QueryInfo.Aggregates[0] != "Max" ||
		info.QueryInfo.RewrittenQuery != `SELECT VALUE [{"item": MAX(c.x)}] FROM c` {
		t.Errorf("additionalErrorInfo: %s (%v)", e.Info, err)
	}
}
