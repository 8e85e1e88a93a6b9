package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/provision"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/target"
)

// TestDiffDeployed: `validate diff --deployed` reads what is deployed and compares it with the
// design: a deployment made from the design matches (exit 0); a design that moved its indexing, TTL,
// unique keys and throughput, or its partition key, or gained a container, differs, each named
// (exit 1); a missing database is an error; nothing is written on the target.
func TestDiffDeployed(t *testing.T) {
	url := startServeEndpoint(t)
	ctx := context.Background()
	tgt, err := target.Open(ctx, target.Config{Kind: record.KindEndpoint, Endpoint: url})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close(ctx)
	base := repo("testdata", "designs", "tiny.yaml")
	d, err := design.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provision.Provision(ctx, tgt.Client, d, provision.Options{Database: "deployed"}); err != nil {
		t.Fatal(err)
	}
	diff := func(file string, extra ...string) (int, string) {
		t.Helper()
		code, out, errOut := runCLI(t, append([]string{"diff", "--deployed", "--target", "endpoint", "--endpoint", url, "--database", "deployed", file}, extra...)...)
		return code, out + errOut
	}
	if code, out := diff(base); code != ExitOK || !strings.Contains(out, "tiny: database deployed on ") || !strings.Contains(out, "matches the design") {
		t.Errorf("as deployed: exit %d\n%s", code, out)
	}

	raw, _ := os.ReadFile(base)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	moved := strings.NewReplacer(
		`excluded: ["/body/?"]`, `excluded: ["/body/?", "/status/?"]`,
		"throughput: {manual: 400}", "throughput: {manual: 1000}\n    defaultTtl: 3600\n    uniqueKeys: [[/status]]",
	).Replace(string(raw))
	code, out := diff(write("moved.yaml", moved))
	for _, want := range []string{"WARN: container Items: indexing", "/status/?", "WARN: container Items: default TTL: designed 3600", "WARN: container Items: unique keys",
		"WARN: container Items: throughput: designed manual 1000 RU/s, stored manual 400 RU/s", "differs from the design"} {
		if !strings.Contains(out, want) {
			t.Errorf("moved design: want %q\n%s", want, out)
		}
	}
	if code != ExitFindings {
		t.Errorf("moved design: exit %d, want 1", code)
	}
	rekeyed := strings.Replace(string(raw), "partitionKey: [/tenantId]", "partitionKey: [/status]", 1)
	rekeyed = strings.Replace(rekeyed, `partitionKey: ["{tenantId}"]`, `partitionKey: ["{status}"]`, 1)
	rekeyed = strings.Replace(rekeyed, "c.tenantId = @t AND c.status = 'new'", "c.status = @t", 1)
	rekeyed = strings.Replace(rekeyed, `params: {"@t": "{tenantId}"}`, `params: {"@t": "{status}"}`, 1)
	if code, out := diff(write("rekeyed.yaml", rekeyed)); code != ExitFindings || !strings.Contains(out, "ERROR: container Items: partition key: designed [/status], stored [/tenantId]") {
		t.Errorf("another partition key: exit %d\n%s", code, out)
	}
	if code, out := diff(base, "--database", "nowhere"); code != ExitFindings || !strings.Contains(out, "ERROR: database nowhere: is not deployed") {
		t.Errorf("missing database: exit %d\n%s", code, out)
	}
	if code, out, errOut := runCLI(t, "diff", base); code != ExitUsage || !strings.Contains(errOut, "--deployed") {
		t.Errorf("without --deployed: exit %d\n%s%s", code, out, errOut)
	}
}

// TestRun_DatabaseExistsIsUsage: a run whose database is already there (a kept run's, the same
// --run-id) is the user's to resolve: exit 2, naming --reuse-database and --run-id.
func TestRun_DatabaseExistsIsUsage(t *testing.T) {
	url := startServeEndpoint(t)
	design := repo("testdata", "designs", "tiny.yaml")
	args := []string{"run", "--target", "endpoint", "--endpoint", url, "--samples", "1", "--run-id", "same"}
	if code, _, errOut := runCLI(t, append(args, "--keep", design)...); code != ExitOK && code != ExitFindings {
		t.Fatalf("first run: exit %d\n%s", code, errOut)
	}
	code, _, errOut := runCLI(t, append(args, design)...)
	if code != ExitUsage || !strings.Contains(errOut, "database already exists") || !strings.Contains(errOut, "--reuse-database") || !strings.Contains(errOut, "--run-id") {
		t.Errorf("second run into the kept database: exit %d, want 2 naming --reuse-database and --run-id\n%s", code, errOut)
	}
}
