package provision

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
)

// DiffDeployed compares what is deployed in database with the design, read-only: it reads the
// database, each designed container's properties (partition key, indexing policy, unique keys,
// TTL, full-text and vector policies) and throughput, and lists the containers deployed there, and
// returns one finding per difference, in the words run's own read-back uses (Diff): a designed
// container that is not deployed and a partition-key difference are errors (the design's figures
// say nothing about such a container), the other differences warnings, a deployed container the
// design does not have an info. It writes nothing.
func DiffDeployed(ctx context.Context, client *azcosmos.Client, database string, d *design.Design) ([]record.Finding, error) {
	db, err := client.NewDatabase(database)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", database, err)
	}
	if _, err := db.Read(ctx, nil); err != nil {
		if sdk.StatusOf(err) == http.StatusNotFound {
			return []record.Finding{{Stage: "deployed", Level: "error", Subject: "database " + database,
				Message: "is not deployed on the target: nothing to compare (give the deployed database with --database)"}}, nil
		}
		return nil, wrap("read database "+database, err)
	}
	var fs []record.Finding
	deployed := map[string]bool{}
	pager := db.NewQueryContainersPager("SELECT * FROM c", nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, wrap("list the containers of "+database, err)
		}
		for _, c := range page.Containers {
			deployed[c.ID] = true
		}
	}
	for i := range d.Containers {
		c := &d.Containers[i]
		if !deployed[c.Name] {
			fs = append(fs, record.Finding{Stage: "deployed", Level: "error", Subject: "container " + c.Name,
				Message: "is in the design but not deployed in database " + database})
			continue
		}
		cc, err := db.NewContainer(c.Name)
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", c.Name, err)
		}
		cfs, err := readBack(ctx, cc, c, ContainerProperties(c), designedThroughput(c), true)
		if err != nil {
			return nil, err
		}
		for _, f := range cfs {
			f.Stage = "deployed"
			fs = append(fs, f)
		}
	}
	var extra []string
	for name := range deployed {
		if d.Container(name) == nil {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	for _, name := range extra {
		fs = append(fs, record.Finding{Stage: "deployed", Level: "info", Subject: "container " + name,
			Message: "is deployed in database " + database + " but not in the design"})
	}
	return fs, nil
}
