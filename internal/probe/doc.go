// Package probe executes a design's access patterns against a provisioned and seeded target through
// the azcosmos SDK and records what each execution cost and returned. It renders nothing.
package probe
