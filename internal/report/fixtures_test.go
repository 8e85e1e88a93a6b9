package report

import (
	"time"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

func ptr[T any](v T) *T { return &v }

// shopDesign is a small design with one pattern per verdict rule the fixtures exercise.
func shopDesign() *design.Design {
	return &design.Design{
		Version: 1,
		Name:    "shop",
		File:    "designs/shop.yaml",
		Containers: []design.Container{
			{Name: "Users", PartitionKey: []string{"/userId"}, Throughput: design.Throughput{Manual: 400}},
			{Name: "Orders", PartitionKey: []string{"/tenantId", "/userId"}, Throughput: design.Throughput{AutoscaleMax: 1000},
				Indexing: &design.Indexing{Included: []string{"/*"}, Excluded: []string{"/notes/?"},
					Composite: [][]design.CompositePath{{{Path: "/userId"}, {Path: "/createdAt", Order: "desc"}}}}},
		},
		AccessPatterns: []design.AccessPattern{
			{ID: "AP1", Name: "get user", Container: "Users", Op: design.OpRead, ItemID: "{id}", PartitionKey: []string{"{userId}"},
				RPS: design.RPS{Avg: 100, Peak: 400}, Estimate: design.Estimate{RU: 1}},
			{ID: "AP2", Name: "orders of user", Container: "Orders", Op: design.OpQuery,
				Query:        "SELECT * FROM c WHERE c.userId = @u ORDER BY c.createdAt DESC",
				PartitionKey: []string{"{tenantId}", "{userId}"},
				Expect:       &design.Expect{SinglePartition: ptr(true), MinResults: ptr(1)},
				RPS:          design.RPS{Avg: 20, Peak: 60}, Estimate: design.Estimate{RU: 3}},
			{ID: "AP3", Name: "orders by status", Container: "Orders", Op: design.OpQuery,
				Query: "SELECT * FROM c WHERE c.status = @s", RPS: design.RPS{Avg: 2}, Estimate: design.Estimate{RU: 4}},
			{ID: "AP4", Name: "latest orders", Container: "Orders", Op: design.OpQuery,
				Query: "SELECT TOP 10 * FROM c ORDER BY c.createdAt DESC", RPS: design.RPS{Avg: 1}, Estimate: design.Estimate{RU: 10}},
			{ID: "AP5", Name: "create order", Container: "Orders", Op: design.OpCreate, Document: "order",
				RPS: design.RPS{Avg: 10, Peak: 30}, Estimate: design.Estimate{RU: 8}},
			{ID: "AP6", Name: "cancel pending", Container: "Orders", Op: design.OpPatch, ItemID: "{id}",
				Condition: "FROM c WHERE c.status = 'pending'", Expect: &design.Expect{Status: 412},
				RPS: design.RPS{Avg: 1}, Estimate: design.Estimate{RU: 10}, Tolerance: &design.Band{Pct: 20}},
		},
	}
}

// execs builds n executions with the given charges (repeated cyclically).
func execs(n int, status, results, partitions int, ru ...float64) []record.Execution {
	out := make([]record.Execution, n)
	for i := range out {
		out[i] = record.Execution{RU: ru[i%len(ru)], Latency: time.Duration(2+i) * time.Millisecond,
			Results: results, Pages: 1, Partitions: partitions, Status: status}
	}
	return out
}

func failed(n, status int, msg, expl string) []record.Execution {
	out := make([]record.Execution, n)
	for i := range out {
		out[i] = record.Execution{Status: status, Error: msg, Explanation: expl, Latency: time.Millisecond}
	}
	return out
}

// embeddedRun is what the embedded engine observed for shopDesign.
func embeddedRun() *record.Run {
	return &record.Run{
		Target:   record.TargetInfo{Kind: "embedded", Engine: "cosmosdv-engine", ChargeSource: record.ChargeModel, SDKVersion: "azcosmos v1.5.0"},
		Seed:     42,
		Samples:  5,
		Database: "shop",
		Findings: []record.Finding{{Stage: "provision", Level: "info", Subject: "container Orders", Message: "created with 1 physical partition"}},
		Patterns: []record.Pattern{
			{ID: "AP1", Executions: execs(5, 200, 1, 1, 1)},
			{ID: "AP2", Executions: execs(5, 200, 4, 1, 4.3, 4.4)},
			{ID: "AP3", Executions: execs(5, 200, 12, 1, 14.6, 15.2)},
			{ID: "AP4", Executions: failed(5, 400, "Cross partition query with TOP/ORDER BY is not supported by the gateway",
				"the Go SDK cannot run this query across partitions; give a partition key or use an SDK with a query engine")},
			{ID: "AP5", Executions: execs(5, 201, 1, 1, 7.6, 7.8)},
			{ID: "AP6", Executions: append(execs(4, 412, 0, 1, 1.2), record.Execution{RU: 1.2, Status: 200, Partitions: 1})},
		},
	}
}

func embeddedReport() *Report {
	run := embeddedRun()
	return Build(Input{Design: shopDesign(), Measured: run, Modeled: run, Version: "v0.1.0-test",
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Duration: 1500 * time.Millisecond})
}

// serviceReport is the same design measured on an account, with the embedded run as the model.
func serviceReport() *Report {
	meas := &record.Run{
		Target:  record.TargetInfo{Kind: "account", Engine: "Azure Cosmos DB", Endpoint: "https://example.documents.azure.com:443/", ChargeSource: record.ChargeService},
		Seed:    42,
		Samples: 5,
		Patterns: []record.Pattern{
			{ID: "AP1", Executions: execs(5, 200, 1, 1, 1)},
			{ID: "AP2", Executions: execs(5, 200, 4, 1, 5.6, 5.9)},
			{ID: "AP3", Executions: execs(5, 200, 12, 3, 16.1)},
			{ID: "AP4", Executions: failed(5, 400, "Cross partition query with TOP/ORDER BY is not supported by the gateway",
				"the Go SDK cannot run this query across partitions; give a partition key or use an SDK with a query engine")},
			{ID: "AP5", Executions: execs(5, 201, 1, 1, 7.43)},
			{ID: "AP6", Executions: execs(5, 412, 0, 1, 1.24)},
		},
	}
	return Build(Input{Design: shopDesign(), Measured: meas, Modeled: embeddedRun(), Version: "v0.1.0-test"})
}

// placeholderReport is the same design on the vNext emulator, whose charges are placeholders.
func placeholderReport() *Report {
	meas := &record.Run{
		Target:  record.TargetInfo{Kind: "emulator", Engine: "vnext-preview", Endpoint: "http://localhost:8081", ChargeSource: record.ChargeEmulatorPlaceholder},
		Seed:    42,
		Samples: 5,
		Findings: []record.Finding{{Stage: "provision", Level: "warn", Subject: "container Orders",
			Message: "the emulator ignored the indexing policy (excluded /notes/? missing on read-back)"}},
		Patterns: []record.Pattern{
			{ID: "AP1", Executions: execs(5, 200, 1, 1, 1)},
			{ID: "AP2", Executions: execs(5, 200, 4, 1, 1)},
			{ID: "AP3", Executions: execs(5, 200, 12, 1, 1)},
			{ID: "AP4", Executions: execs(5, 200, 10, 1, 1)},
			{ID: "AP5", Executions: execs(5, 201, 1, 1, 1)},
			{ID: "AP6", Executions: execs(5, 412, 0, 1, 1)},
		},
	}
	return Build(Input{Design: shopDesign(), Measured: meas, Modeled: embeddedRun(), Version: "v0.1.0-test"})
}
