package design

import "strings"

// SplitPath splits a property path such as "/address/zip" into its segments ["address" "zip"];
// "" and "/" have none. It is the one place the design's paths (partition keys, unique keys,
// indexing paths without their wildcard) are split.
func SplitPath(p string) []string {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// KeyPaths returns the segments of each of the container's partition-key paths, in level order:
// [/tenantId /address/city] gives [[tenantId] [address city]].
func (c *Container) KeyPaths() [][]string {
	out := make([][]string, len(c.PartitionKey))
	for i, p := range c.PartitionKey {
		out[i] = SplitPath(p)
	}
	return out
}
