package engine

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/cosmosdv/validate/internal/engine/jsondoc"
)

// Transactional batch limits (transactional-batch.md, concepts-limits.md): at most 100 operations
// and 2 MB, all in one logical partition.
const (
	maxBatchOps   = 100
	maxBatchBytes = 2 * 1024 * 1024
)

type batchOp struct {
	OperationType string          `json:"operationType"`
	ID            string          `json:"id"`
	IfMatch       string          `json:"ifMatch"`
	ResourceBody  json.RawMessage `json:"resourceBody"`
}

// batch executes a transactional batch atomically: every operation is staged, and the staged
// state is committed only when all succeed. On failure the response is 207 with the failing
// operation's status and 424 for the others.
func (s *Server) batch(q *request, c *container) (int, error) {
	ops, vals, err := decodeBatch(q, c)
	if err != nil {
		return 0, err
	}
	// Decode bodies before taking the lock.
	lpk := canonicalPK(vals)
	prep := prepareBatch(c, ops, lpk)
	p := c.partitionFor(effectivePartitionKey(c.pk.Kind, c.pk.Version, vals))
	if err := s.admit(c, p); err != nil {
		return 0, err
	}
	results, failed, failure, total, o := func() ([]map[string]any, int, *apiError, float64, *overlay) {
		s.commitGate.RLock()
		defer s.commitGate.RUnlock()
		p.mu.Lock()
		defer p.mu.Unlock() // deferred: a panic in an operation must not leave the partition locked
		return s.applyBatch(q, c, p, lpk, vals, ops, prep)
	}()
	if failed < 0 {
		if err := s.durable(o); err != nil { // acknowledged only once it is on disk
			return 0, err
		}
	}
	q.charge = total
	s.consume(c, p, total)
	status := 200
	if failed >= 0 {
		status = 207
		failBatch(results, failed, failure)
		setHeader(q.out, "x-ms-substatus", strconv.Itoa(failure.sub))
	}
	body, _ := json.Marshal(results)
	s.itemHeaders(q, p, nil)
	return s.reply(q, status, body)
}

// decodeBatch reads a batch request: its operations within the service's limits, and the full
// partition key of the logical partition it runs in.
func decodeBatch(q *request, c *container) ([]batchOp, []any, error) {
	if len(q.body) > maxBatchBytes {
		return nil, nil, errf(413, "The batch request is larger than 2 MB.")
	}
	var ops []batchOp
	if err := json.Unmarshal(q.body, &ops); err != nil {
		return nil, nil, errf(400, "The batch request body is invalid: %v", err)
	}
	if len(ops) == 0 {
		return nil, nil, errf(400, "The batch request has no operations.")
	}
	if len(ops) > maxBatchOps {
		return nil, nil, errf(400, "The batch request has %d operations; at most %d are allowed.", len(ops), maxBatchOps)
	}
	vals, present, err := parsePKHeader(q.header("X-Ms-Documentdb-Partitionkey"))
	if err != nil || !present || len(vals) != len(c.pk.Paths) {
		return nil, nil, errf(400, "A batch request must give the full partition key of its logical partition.")
	}
	return ops, vals, nil
}

// preparedOp is a batch operation decoded and checked, or the error it fails with when its turn
// comes.
type preparedOp struct {
	kind  string
	id    string
	body  map[string]any
	raw   []byte
	patch *patchSpec
	err   error
}

// prepareBatch decodes and checks every operation of a batch in logical partition lpk.
func prepareBatch(c *container, ops []batchOp, lpk string) []preparedOp {
	prep := make([]preparedOp, len(ops))
	for i, op := range ops {
		pr := preparedOp{kind: op.OperationType, id: op.ID}
		switch op.OperationType {
		case "Create", "Upsert", "Replace":
			body, err := jsondoc.DecodeItem(op.ResourceBody) // buildDoc wants it decoded from raw
			if err != nil {
				pr.err = errf(400, "The operation's resource body is not a valid JSON object: %v.", err)
				break
			}
			pr.body = body
			id, err := validItemID(pr.body["id"])
			if err != nil {
				pr.err = err
				break
			}
			if op.OperationType == "Replace" && op.ID != "" && op.ID != id {
				pr.err = errf(400, "The id in the body does not match the operation's id.")
				break
			}
			pr.id, pr.raw = id, op.ResourceBody
			if canonicalPK(c.pkFromBody(pr.body)) != lpk {
				pr.err = &apiError{status: 400, sub: subPKMismatch, msg: "PartitionKey extracted from document doesn't match the one specified in the header."}
			}
		case "Patch":
			pr.patch, pr.err = decodePatch(op.ResourceBody)
		case "Read", "Delete":
		default:
			pr.err = errf(400, "Unknown batch operation type %q.", op.OperationType)
		}
		if pr.err == nil && pr.id == "" {
			pr.err = errf(400, "The operation has no id.")
		}
		prep[i] = pr
	}
	return prep
}

// applyBatch stages the operations in order on an overlay of partition p (whose lock the caller
// holds) and commits them only when all succeed. It returns the per-operation results, the index
// of the failed operation (-1 when none) and its error, the total charge, and the overlay, whose
// commit (when it was committed) durable waits for.
func (s *Server) applyBatch(q *request, c *container, p *partition, lpk string, vals []any, ops []batchOp, prep []preparedOp) ([]map[string]any, int, *apiError, float64, *overlay) {
	results := make([]map[string]any, len(ops))
	failed := -1
	var failure *apiError
	total := 0.0
	o := s.newOverlay(c, p, lpk, vals)
	for i, pr := range prep {
		var res itemResult
		err := pr.err
		if err == nil {
			res, err = s.stage(o, pr.kind, pr.id, ops[i].IfMatch, pr.body, pr.raw, pr.patch, q.consistency())
		}
		total += res.charge
		if err != nil {
			if !errors.As(err, &failure) {
				failure = &apiError{status: 500, msg: err.Error()}
			}
			failed = i
			break
		}
		r := map[string]any{"statusCode": res.status, "requestCharge": res.charge}
		if res.doc != nil {
			r["eTag"] = res.doc.etag
			if pr.kind == "Read" || !minimal(q) {
				r["resourceBody"] = json.RawMessage(res.doc.raw)
			}
		}
		results[i] = r
	}
	if failed < 0 {
		s.commit(o)
	}
	return results, failed, failure, total, o
}

// failBatch replaces the results of a failed batch: the failed operation's status, and 424 (failed
// dependency) for every other, none of which was applied.
func failBatch(results []map[string]any, failed int, failure *apiError) {
	for i := range results {
		switch {
		case i == failed:
			r := map[string]any{"statusCode": failure.status, "requestCharge": 0}
			if failure.sub != 0 {
				r["subStatusCode"] = failure.sub
			}
			results[i] = r
		default:
			results[i] = map[string]any{"statusCode": 424, "requestCharge": 0}
		}
	}
}
