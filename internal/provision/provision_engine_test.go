package provision

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/sdk"
)

// client starts the embedded engine and returns a client for it and a function that stops it.
func client(t *testing.T) (*azcosmos.Client, func()) {
	t.Helper()
	srv, err := engine.Start(context.Background(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stop := func() {
		// Close bounds its own grace (engine.closeGrace) and then closes every connection; a
		// deadline of the caller's would leave connections open once a busy machine reached it.
		_ = srv.Close(context.Background())
	}
	t.Cleanup(stop)
	cred, err := azcosmos.NewKeyCredential(srv.Key())
	if err != nil {
		t.Fatal(err)
	}
	// No retries: a stopped engine must fail the next call at once.
	c, err := azcosmos.NewClientWithKey(srv.URL(), cred, &azcosmos.ClientOptions{ClientOptions: policy.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	return c, stop
}

func twoContainers() *design.Design {
	ttl := 3600
	return &design.Design{Name: "shop", Database: "shop", Containers: []design.Container{
		*designed(),
		{Name: "Events", PartitionKey: []string{"/deviceId"}, DefaultTTL: &ttl, Throughput: design.Throughput{AutoscaleMax: 4000},
			Indexing: &design.Indexing{Mode: "consistent", Included: []string{"/*"}}},
	}}
}

func containerExists(t *testing.T, c *azcosmos.Client, db, name string) bool {
	t.Helper()
	cc, err := c.NewContainer(db, name)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cc.Read(context.Background(), nil)
	if err != nil && sdk.StatusOf(err) != 404 {
		t.Fatalf("read %s: %v", name, err)
	}
	return err == nil
}

// TestProvision_CreatesExactlyAndTearsDown: every container is created as designed (no findings on
// an engine that stores what it is given), and teardown removes the database it created.
func TestProvision_CreatesExactlyAndTearsDown(t *testing.T) {
	c, _ := client(t)
	ctx := context.Background()
	d := twoContainers()
	p, err := Provision(ctx, c, d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.CreatedDatabase || p.Database != "shop" || strings.Join(p.Created, ",") != "Orders,Events" || len(p.Reused) != 0 {
		t.Fatalf("provisioned %+v", p)
	}
	if len(p.Findings) != 0 {
		t.Errorf("findings on a faithful target: %+v", p.Findings)
	}
	if len(p.Containers) != 2 || p.Containers["Orders"] == nil || p.Containers["Events"] == nil {
		t.Fatalf("container clients: %v", p.Containers)
	}
	tr, err := p.Containers["Events"].ReadThroughput(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := tr.ThroughputProperties.AutoscaleMaxThroughput(); !ok || v != 4000 {
		t.Errorf("Events throughput: autoscale %d, %v; want autoscale max 4000", v, ok)
	}
	if err := p.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("shop")
	if _, err := db.Read(ctx, nil); sdk.StatusOf(err) != 404 {
		t.Errorf("database after teardown: %v, want 404", err)
	}
	if err := p.Teardown(ctx); err != nil {
		t.Errorf("second teardown: %v", err)
	}
	var nilP *Provisioned
	if err := nilP.Teardown(ctx); err != nil {
		t.Errorf("teardown of nil: %v", err)
	}
}

// TestProvision_ReuseTouchesOnlyWhatItCreated: an existing database is refused unless reuse is
// allowed; with reuse, existing containers are kept (and noted), new ones created, and teardown
// removes only the new ones.
func TestProvision_ReuseTouchesOnlyWhatItCreated(t *testing.T) {
	c, _ := client(t)
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("shop")
	// Orders exists already, with a different TTL than designed.
	existing := ContainerProperties(designed())
	existing.DefaultTimeToLive = nil
	if _, err := db.CreateContainer(ctx, existing, nil); err != nil {
		t.Fatal(err)
	}
	d := twoContainers()

	if _, err := Provision(ctx, c, d, Options{}); !errors.Is(err, ErrDatabaseExists) {
		t.Fatalf("without reuse: err = %v, want ErrDatabaseExists", err)
	}

	p, err := Provision(ctx, c, d, Options{Reuse: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.CreatedDatabase || strings.Join(p.Created, ",") != "Events" || strings.Join(p.Reused, ",") != "Orders" {
		t.Fatalf("reuse: created db %v, created %v, reused %v", p.CreatedDatabase, p.Created, p.Reused)
	}
	found := false
	for _, f := range p.Findings {
		if f.Subject == "container Orders" && strings.HasPrefix(f.Message, "existing container: default TTL") {
			found = true
		}
	}
	if !found {
		t.Errorf("the existing container's TTL difference is not reported as such: %+v", p.Findings)
	}
	if err := p.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if !containerExists(t, c, "shop", "Orders") || containerExists(t, c, "shop", "Events") {
		t.Error("teardown must remove Events (created) and keep Orders (reused)")
	}
}

// TestProvision_ThroughputOverrideIsNoted: a throughput decided by the caller (minimal throughput on
// shared accounts) is used and said.
func TestProvision_ThroughputOverrideIsNoted(t *testing.T) {
	c, _ := client(t)
	ctx := context.Background()
	d := twoContainers()
	p, err := Provision(ctx, c, d, Options{Database: "scoped", Throughput: func(*design.Container) azcosmos.ThroughputProperties {
		return azcosmos.NewManualThroughputProperties(400)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Teardown(ctx)
	if p.Database != "scoped" {
		t.Errorf("database %q, want the one asked for", p.Database)
	}
	var msgs []string
	for _, f := range p.Findings {
		msgs = append(msgs, f.Subject+": "+f.Message)
	}
	joined := strings.Join(msgs, "\n")
	if !strings.Contains(joined, "container Events: provisioned with manual 400 RU/s instead of the designed autoscale max 4000 RU/s") {
		t.Errorf("override not noted:\n%s", joined)
	}
	if strings.Contains(joined, "container Orders: provisioned with") {
		t.Errorf("Orders is designed at 400 RU/s; nothing to note:\n%s", joined)
	}
}

// TestProvision_TargetFailureIsInfrastructure: a target that went away is a target failure, not a
// design problem.
func TestProvision_TargetFailureIsInfrastructure(t *testing.T) {
	c, stop := client(t)
	stop()
	_, err := Provision(context.Background(), c, twoContainers(), Options{})
	if err == nil || !sdk.IsInfrastructure(err) {
		t.Fatalf("err = %v, want an infrastructure error", err)
	}
}

func TestProvision_NoName(t *testing.T) {
	if _, err := Provision(context.Background(), nil, &design.Design{}, Options{}); err == nil {
		t.Fatal("a design without a name provisioned")
	}
}

func TestDescribeThroughput(t *testing.T) {
	for tp, want := range map[*azcosmos.ThroughputProperties]string{
		ptr(azcosmos.NewManualThroughputProperties(400)):     "manual 400 RU/s",
		ptr(azcosmos.NewAutoscaleThroughputProperties(4000)): "autoscale max 4000 RU/s",
		{}: "no dedicated throughput (serverless)",
	} {
		if got := describeThroughput(*tp); got != want {
			t.Errorf("describeThroughput = %q, want %q", got, want)
		}
	}
	for c, want := range map[*design.Container]string{
		{Throughput: design.Throughput{Serverless: true}}: "no dedicated throughput (serverless)",
		{}: "manual 400 RU/s",
		{Throughput: design.Throughput{Manual: 1000}}:       "manual 1000 RU/s",
		{Throughput: design.Throughput{AutoscaleMax: 1000}}: "autoscale max 1000 RU/s",
	} {
		if got := describeThroughput(designedThroughput(c)); got != want {
			t.Errorf("designedThroughput(%+v) = %q, want %q", c.Throughput, got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestProvision_Serverless: a serverless container is created without throughput (it used to panic
// in the SDK's accessors of the zero ThroughputProperties).
func TestProvision_Serverless(t *testing.T) {
	c, _ := client(t)
	ctx := context.Background()
	d := &design.Design{Name: "sl", Containers: []design.Container{
		{Name: "Items", PartitionKey: []string{"/k"}, Throughput: design.Throughput{Serverless: true}},
	}}
	p, err := Provision(ctx, c, d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Teardown(ctx)
	for _, f := range p.Findings {
		if strings.Contains(f.Message, "throughput") {
			t.Errorf("throughput finding for a serverless container: %+v", f)
		}
	}
}
