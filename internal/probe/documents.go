// Package probe executes a design's access patterns against a provisioned and seeded target through
// the azcosmos SDK and records what each execution cost and returned. It renders nothing.
package probe

import (
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// Documents is what the probe needs from the seeding stage: seeded documents to draw parameters from,
// and fresh documents for writes. Implementations must be deterministic: the same arguments give the
// same document.
type Documents interface {
	// Sample returns a seeded document of docType chosen by n (any integer; implementations reduce it
	// modulo their sample size), decoded from JSON. ok is false when the type has no documents.
	Sample(docType string, n int) (doc map[string]any, ok bool)
	// Fresh returns document number n of docType that was not seeded, with an id no seeded document
	// (and no other n) has. parent is the document it is a child of, for child types; nil otherwise.
	Fresh(docType string, n int, parent map[string]any) (map[string]any, error)
	// ParentType returns the parent type of docType, or "" for a root type.
	ParentType(docType string) string
}

// PartitionKey builds a partition key from its values in level order. It builds the key from scratch
// every time because PartitionKey.Append* may share a backing array between keys derived from the
// same prefix. Values are strings, numbers (any Go integer or float type), booleans or nil (null).
func PartitionKey(values []any) azcosmos.PartitionKey {
	pk := azcosmos.NewPartitionKey()
	for _, v := range values {
		switch x := v.(type) {
		case string:
			pk = pk.AppendString(x)
		case bool:
			pk = pk.AppendBool(x)
		case float64:
			pk = pk.AppendNumber(x)
		case float32:
			pk = pk.AppendNumber(float64(x))
		case int:
			pk = pk.AppendNumber(float64(x))
		case int64:
			pk = pk.AppendNumber(float64(x))
		case int32:
			pk = pk.AppendNumber(float64(x))
		case nil:
			pk = pk.AppendNull()
		default:
			pk = pk.AppendNull()
		}
	}
	return pk
}
