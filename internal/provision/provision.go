// Package provision creates a design's database and containers exactly as designed, reads them back
// and reports every difference between what was designed and what the target stored, and tears down
// only what it created.
package provision

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/indexpolicy"
	"github.com/cosmosdv/validate/internal/record"
	"github.com/cosmosdv/validate/internal/sdk"
)

// ErrDatabaseExists is returned when the database already exists and reuse was not allowed: the
// validator never writes into what it did not create unless told to.
var ErrDatabaseExists = errors.New("database already exists")

// Options tune Provision.
type Options struct {
	// Database is the database to create. Default: the design's database name.
	Database string
	// Reuse accepts an existing database (and existing containers in it).
	Reuse bool
	// Throughput decides each container's throughput; nil = as designed. A zero ThroughputProperties
	// means no dedicated throughput (serverless).
	Throughput func(c *design.Container) azcosmos.ThroughputProperties
}

// Provisioned is what Provision created or found.
type Provisioned struct {
	client *azcosmos.Client
	// Database is the database name.
	Database string
	// CreatedDatabase is true when this run created the database.
	CreatedDatabase bool
	// Created lists the containers this run created (all of them when it created the database).
	Created []string
	// Reused lists the containers that existed before this run.
	Reused []string
	// Containers maps a container name to its client.
	Containers map[string]*azcosmos.ContainerClient
	// Findings are the differences between designed and stored, and other observations.
	Findings []record.Finding
}

// Provision creates the database and containers of d. A failure of the target is returned wrapped as
// sdk.ErrInfrastructure. On error, what was already created is still described by the returned
// Provisioned (when non-nil) so that the caller can tear it down.
func Provision(ctx context.Context, client *azcosmos.Client, d *design.Design, o Options) (*Provisioned, error) {
	name := o.Database
	if name == "" {
		name = d.Database
	}
	if name == "" {
		name = d.Name
	}
	if name == "" {
		return nil, errors.New("provision: no database name")
	}
	p := &Provisioned{client: client, Database: name, Containers: map[string]*azcosmos.ContainerClient{}}
	_, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: name}, nil)
	switch {
	case err == nil:
		p.CreatedDatabase = true
	case sdk.StatusOf(err) == http.StatusConflict:
		if !o.Reuse {
			return nil, fmt.Errorf("provision %s: %w: run with --reuse-database to run in it (never deleted), or give another --run-id or database name", name, ErrDatabaseExists)
		}
	default:
		return nil, wrap("create database "+name, err)
	}
	db, err := client.NewDatabase(name)
	if err != nil {
		return p, fmt.Errorf("database %s: %w", name, err)
	}
	for i := range d.Containers {
		c := &d.Containers[i]
		props := ContainerProperties(c)
		tp := designedThroughput(c)
		if o.Throughput != nil {
			tp = o.Throughput(c)
		}
		var opts *azcosmos.CreateContainerOptions
		if hasThroughput(tp) {
			opts = &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}
		}
		created := false
		_, err := db.CreateContainer(ctx, props, opts)
		switch {
		case err == nil:
			created = true
			p.Created = append(p.Created, c.Name)
		case sdk.StatusOf(err) == http.StatusConflict && o.Reuse:
			p.Reused = append(p.Reused, c.Name)
		default:
			return p, wrap("create container "+c.Name, err)
		}
		cc, err := db.NewContainer(c.Name)
		if err != nil {
			return p, fmt.Errorf("container %s: %w", c.Name, err)
		}
		p.Containers[c.Name] = cc
		fs, err := readBack(ctx, cc, c, props, tp, created)
		if err != nil {
			return p, err
		}
		p.Findings = append(p.Findings, fs...)
		if o.Throughput != nil && !sameThroughput(tp, designedThroughput(c)) {
			p.Findings = append(p.Findings, record.Finding{Stage: "provision", Level: "info", Subject: "container " + c.Name,
				Message: fmt.Sprintf("provisioned with %s instead of the designed %s", describeThroughput(tp), describeThroughput(designedThroughput(c)))})
		}
	}
	return p, nil
}

// Teardown deletes what this run created: the database when it created it, else the containers it
// created in a database it reused. It is safe to call on a nil receiver and more than once.
func (p *Provisioned) Teardown(ctx context.Context) error {
	if p == nil || p.client == nil {
		return nil
	}
	db, err := p.client.NewDatabase(p.Database)
	if err != nil {
		return fmt.Errorf("teardown %s: %w", p.Database, err)
	}
	if p.CreatedDatabase {
		if _, err := db.Delete(ctx, nil); err != nil && sdk.StatusOf(err) != http.StatusNotFound {
			return wrap("delete database "+p.Database, err)
		}
		p.CreatedDatabase, p.Created = false, nil
		return nil
	}
	var errs []error
	for _, name := range p.Created {
		cc, err := db.NewContainer(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := cc.Delete(ctx, nil); err != nil && sdk.StatusOf(err) != http.StatusNotFound {
			errs = append(errs, wrap("delete container "+name, err))
		}
	}
	p.Created = nil
	return errors.Join(errs...)
}

// TeardownTimeout bounds a teardown that runs after the run's context was cancelled.
const TeardownTimeout = 60 * time.Second

func wrap(op string, err error) error {
	if sdk.TargetFailed(err) {
		return sdk.Infrastructure(op, errors.New(sdk.ServiceMessage(err)))
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("%s: %s", op, sdk.ServiceMessage(err))
}

// ContainerProperties translates a designed container into the SDK's properties. The indexing policy
// always sets Automatic: a zero IndexingPolicy marshals "automatic": false, which the service
// rejects for consistent indexing.
func ContainerProperties(c *design.Container) azcosmos.ContainerProperties {
	props := azcosmos.ContainerProperties{
		ID: c.Name,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{
			Kind:  azcosmos.PartitionKeyKindHash,
			Paths: slices.Clone(c.PartitionKey),
		},
		IndexingPolicy: IndexingPolicy(c.Indexing),
	}
	if c.IsHierarchical() {
		props.PartitionKeyDefinition.Kind = azcosmos.PartitionKeyKindMultiHash
		props.PartitionKeyDefinition.Version = 2
	} else {
		props.PartitionKeyDefinition.Version = 2
	}
	if c.DefaultTTL != nil {
		ttl := int32(*c.DefaultTTL)
		props.DefaultTimeToLive = &ttl
	}
	if len(c.UniqueKeys) > 0 {
		u := &azcosmos.UniqueKeyPolicy{}
		for _, paths := range c.UniqueKeys {
			u.UniqueKeys = append(u.UniqueKeys, azcosmos.UniqueKey{Paths: slices.Clone(paths)})
		}
		props.UniqueKeyPolicy = u
	}
	searchProperties(c, &props)
	return props
}

// IndexingPolicy translates the design's compact indexing policy (nil = the service default: consistent,
// everything included); see indexpolicy.FromDesign.
func IndexingPolicy(ix *design.Indexing) *azcosmos.IndexingPolicy { return indexpolicy.FromDesign(ix) }

func designedThroughput(c *design.Container) azcosmos.ThroughputProperties {
	switch {
	case c.Throughput.Serverless:
		return azcosmos.ThroughputProperties{}
	case c.Throughput.AutoscaleMax > 0:
		return azcosmos.NewAutoscaleThroughputProperties(int32(c.Throughput.AutoscaleMax))
	case c.Throughput.Manual > 0:
		return azcosmos.NewManualThroughputProperties(int32(c.Throughput.Manual))
	default:
		return azcosmos.NewManualThroughputProperties(design.DefaultManualThroughput)
	}
}

// serverless reports whether tp is the zero ThroughputProperties designedThroughput gives a
// serverless container: its accessors dereference an offer it does not have.
func serverless(tp azcosmos.ThroughputProperties) bool {
	return reflect.ValueOf(tp).IsZero()
}

func hasThroughput(tp azcosmos.ThroughputProperties) bool {
	if serverless(tp) {
		return false
	}
	_, manual := tp.ManualThroughput()
	_, auto := tp.AutoscaleMaxThroughput()
	return manual || auto
}

func sameThroughput(a, b azcosmos.ThroughputProperties) bool {
	return describeThroughput(a) == describeThroughput(b)
}

func describeThroughput(tp azcosmos.ThroughputProperties) string {
	if serverless(tp) {
		return "no dedicated throughput (serverless)"
	}
	if v, ok := tp.AutoscaleMaxThroughput(); ok {
		return fmt.Sprintf("autoscale max %d RU/s", v)
	}
	if v, ok := tp.ManualThroughput(); ok {
		return fmt.Sprintf("manual %d RU/s", v)
	}
	return "no dedicated throughput (serverless)"
}
