package engine

import (
	"fmt"
	"time"
)

// Throughput and partition bounds. The service refuses provisioned throughput above its per-container
// and per-database maximum (concepts-limits.md, "Provisioned throughput": "Maximum RUs per container
// (dedicated throughput provisioned mode) 1,000,000", the same per database in shared mode; support can
// raise it, the engine cannot). At creation the service allocates ceil(RU/s / 6,000) physical
// partitions, so the maximum throughput makes at most 167 of them.
const (
	maxThroughputRU = 1_000_000
	// maxPartitions bounds the simulated physical partitions of one container, whoever asks for them
	// (Options.Partitions, a snapshot). The service publishes no maximum; this bound is the engine's
	// (assumed): storage-driven splits of a container at 50 GB per partition reach it at 500 TB, far
	// beyond any design the tool validates, and 10,000 empty partitions cost a few megabytes, where
	// the 5×10^7 a crafted request once asked for exhausted memory.
	maxPartitions = 10_000
)

// checkThroughput refuses a throughput over the service's maximum, with a 400 as the service answers.
func checkThroughput(manual, autoscaleMax int) error {
	if manual > maxThroughputRU || autoscaleMax > maxThroughputRU {
		return errf(400, "The offer throughput %d RU/s exceeds the maximum of %d RU/s a container or database allows (raise it with a support request on the service).", max(manual, autoscaleMax), maxThroughputRU)
	}
	return nil
}

// checkPartitions bounds a partition count from a snapshot.
func checkPartitions(n int) error {
	if n > maxPartitions {
		return fmt.Errorf("%d partitions: the engine simulates at most %d per container", n, maxPartitions)
	}
	return nil
}

// Connection timeouts: a client that sends its headers or body slowly, reads the response slowly or
// keeps an idle connection open cannot hold it for ever. The body is at most 4 MB, which a slow link
// sends within the read timeout; the write timeout leaves a query's five seconds (concepts-limits.md,
// "Maximum execution time for a single operation") far behind; an idle keep-alive is closed after
// two minutes, within the four minutes of Azure's load balancers the same page quotes (the values
// are the engine's, assumed). Variables, so that tests can shorten them.
var (
	readHeaderTimeout = 30 * time.Second
	readTimeout       = time.Minute
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
)
