package plan

import (
	"encoding/json"
	"fmt"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/provision"
)

// compilePolicy turns a design's compact indexing policy into the policy the engine enforces: the
// same azcosmos policy provision sends to the service, read as the engine reads it from the wire.
// The plan thereby applies exactly the engine's path precedence and composite-index rules.
func compilePolicy(ix *design.Indexing) (*index.Compiled, error) {
	b, err := json.Marshal(provision.IndexingPolicy(ix))
	if err != nil {
		return nil, fmt.Errorf("encode indexing policy: %w", err)
	}
	var p index.Policy
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("decode indexing policy: %w", err)
	}
	c, err := index.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("indexing policy: %w", err)
	}
	return c, nil
}

// systemTerms is the number of indexed terms the system properties add to a document under pol, plus
// the id when the design does not generate one as a field (withID).
func systemTerms(pol *index.Compiled, withID bool) int {
	n := 0
	for _, p := range index.SystemProperties {
		if pol.Indexed([]string{p}) {
			n++
		}
	}
	if withID && pol.Indexed([]string{"id"}) {
		n++
	}
	return n
}

// CompilePolicy is compilePolicy for the other stages that execute queries in process (the
// production-scale projection of `run`).
func CompilePolicy(ix *design.Indexing) (*index.Compiled, error) { return compilePolicy(ix) }
