// Package index holds the semantics of a container's indexing policy: which paths are indexed, how
// many index terms a document has, and which composite indexes exist.
package index

// Policy is the service's indexingPolicy resource, JSON-compatible with what azcosmos sends.
type Policy struct {
	Automatic        bool              `json:"automatic"`
	IndexingMode     string            `json:"indexingMode"`
	IncludedPaths    []Path            `json:"includedPaths"`
	ExcludedPaths    []Path            `json:"excludedPaths"`
	CompositeIndexes [][]CompositePath `json:"compositeIndexes,omitempty"`
}

// Path is an included or excluded path such as "/userId/?" or "/*".
type Path struct {
	Path string `json:"path"`
}

// CompositePath is one path of a composite index; Order is "ascending" or "descending".
type CompositePath struct {
	Path  string `json:"path"`
	Order string `json:"order,omitempty"`
}

// OrderItem is one ORDER BY item: a property path from the document root and its direction.
type OrderItem struct {
	Path []string
	Desc bool
}

// Compiled is a validated policy ready for fast path checks.
// PROVISIONAL: replaced by the real implementation.
type Compiled struct{ p Policy }

// Compile validates p and prepares it for lookups. Errors read like the service's 400 messages.
func Compile(p Policy) (*Compiled, error) { return &Compiled{p: p}, nil }

// Indexed reports whether the scalar value at path (property names from the root; array elements as
// "[]") is indexed.
func (c *Compiled) Indexed(path []string) bool { return c.p.IndexingMode != "none" }

// Terms counts the index terms of a document under the policy.
func (c *Compiled) Terms(body map[string]any) int { return len(body) }

// HasComposite reports whether a composite index serves these ORDER BY items.
func (c *Compiled) HasComposite(items []OrderItem) bool { return false }
