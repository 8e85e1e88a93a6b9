package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target"
)

// TestCleanup: what a killed run left on an endpoint (here a run kept with --keep under an old run
// id, as kill -9 would leave it) is found by `validate cleanup` and, with --yes, deleted; a young
// run's database, databases without the mark and a name that only resembles it are never touched;
// --run-id picks one run's database whatever its age.
func TestCleanup(t *testing.T) {
	url := startServeEndpoint(t)
	ctx := context.Background()
	tgt, err := target.Open(ctx, target.Config{Kind: record.KindEndpoint, Endpoint: url})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close(ctx)
	young := target.RunScopedName("shop", target.NewRunID(time.Now()))
	for _, name := range []string{"cdv-shop-20000101t000000-abcd", young, "shop", "cdv-shop", "cdv-shop-job7", "orders-20000101t000000-abcd"} {
		if _, err := tgt.Client.CreateDatabase(ctx, azcosmosDB(name), nil); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	// A run that did not clean up after itself.
	design := repo("testdata", "designs", "tiny.yaml")
	if code, _, errOut := runCLI(t, "run", "--target", "endpoint", "--endpoint", url, "--samples", "1", "--keep", "--run-id", "20000102t030405-beef", design); code != ExitOK && code != ExitFindings {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	list := func() []string {
		t.Helper()
		var names []string
		pager := tgt.Client.NewQueryDatabasesPager("SELECT * FROM c", nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, db := range page.Databases {
				names = append(names, db.ID)
			}
		}
		slices.Sort(names)
		return names
	}
	if !slices.Contains(list(), "cdv-tiny-20000102t030405-beef") {
		t.Fatalf("the kept run's database is not there: %v", list())
	}

	code, out, errOut := runCLI(t, "cleanup", "--target", "endpoint", "--endpoint", url)
	if code != ExitFindings || strings.Count(out, "left behind: database ") != 2 ||
		!strings.Contains(out, "left behind: database cdv-shop-20000101t000000-abcd (run started 2000-01-01T00:00:00Z") ||
		!strings.Contains(out, "left behind: database cdv-tiny-20000102t030405-beef") || !strings.Contains(out, "--yes") {
		t.Errorf("listing: exit %d, want 1 and the two old marked databases\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "cleanup", "--target", "endpoint", "--endpoint", url, "--yes"); code != ExitOK || strings.Count(out, "deleted: database ") != 2 {
		t.Errorf("--yes: exit %d\n%s%s", code, out, errOut)
	}
	want := []string{"cdv-shop", "cdv-shop-job7", young, "orders-20000101t000000-abcd", "shop"}
	slices.Sort(want)
	if got := list(); !slices.Equal(got, want) {
		t.Errorf("after cleanup: %v, want %v (only the old marked databases gone)", got, want)
	}
	if code, out, _ := runCLI(t, "cleanup", "--target", "endpoint", "--endpoint", url, "--run-id", "job7", "--yes"); code != ExitOK || !strings.Contains(out, "deleted: database cdv-shop-job7 (run job7)") {
		t.Errorf("--run-id job7: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "cleanup", "--target", "endpoint", "--endpoint", url); code != ExitOK || !strings.Contains(out, "no database left behind") {
		t.Errorf("nothing left: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "cleanup", "--target", "embedded"); code != ExitUsage || !strings.Contains(errOut, "account or an endpoint") {
		t.Errorf("--target embedded: exit %d, %s", code, errOut)
	}
}

func azcosmosDB(name string) azcosmos.DatabaseProperties {
	return azcosmos.DatabaseProperties{ID: name}
}
