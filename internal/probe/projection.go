package probe

import (
	"fmt"

	"github.com/cosmosdv/validate/internal/design"
)

// ParamsFor resolves pattern ap's query parameters and partition-key values (its partitionKey
// templates, or the sample's own key when it names none) from a sample document, as the probe does
// for every execution.
func ParamsFor(c *design.Container, ap *design.AccessPattern, sample map[string]any) (map[string]any, []any, error) {
	x := &exec{ap: ap, c: c, sample: sample}
	key, err := x.key()
	if err != nil {
		return nil, nil, err
	}
	if len(ap.PartitionKey) == 0 {
		key = nil // the probe sends no key: the query's scope is every partition
	}
	params := make(map[string]any, len(ap.Params))
	for _, name := range sortedParamNames(ap.Params) {
		v, err := resolve(ap.Params[name], sample)
		if err != nil {
			return nil, nil, fmt.Errorf("parameter %s: %w", name, err)
		}
		params[name] = v
	}
	return params, key, nil
}
