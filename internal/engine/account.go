package engine

import (
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/cosmosdv/validate/internal/cost"
)

// The account as configured: its default consistency and the certificate clients trust.

// ParseConsistency reads a consistency level as people write it ("Strong", "bounded",
// "Bounded Staleness", "consistent-prefix", ...) and returns the service's name for it.
func ParseConsistency(s string) (cost.Consistency, error) {
	k := strings.NewReplacer(" ", "", "-", "", "_", "").Replace(strings.ToLower(s))
	switch k {
	case "strong":
		return cost.Strong, nil
	case "bounded", "boundedstaleness":
		return cost.BoundedStaleness, nil
	case "session", "":
		return cost.Session, nil
	case "consistentprefix", "prefix":
		return cost.ConsistentPrefix, nil
	case "eventual":
		return cost.Eventual, nil
	}
	return "", fmt.Errorf("consistency %q: want Strong, Bounded, Session, Consistent Prefix or Eventual", s)
}

// strength orders the levels, strongest highest (consistency-levels.md).
func strength(c cost.Consistency) int {
	switch c {
	case cost.Strong:
		return 5
	case cost.BoundedStaleness:
		return 4
	case cost.Session:
		return 3
	case cost.ConsistentPrefix:
		return 2
	case cost.Eventual:
		return 1
	}
	return 0
}

// defaultConsistency is the account's default level.
func (s *Server) defaultConsistency() cost.Consistency {
	if s.consistency == "" {
		return cost.Session
	}
	return s.consistency
}

// requestConsistency is the level a request reads at: its x-ms-consistency-level, which may only
// relax the account's default (consistency-levels.md: a request can weaken, never strengthen,
// the account's level; the service answers 400 otherwise), or the default.
func (s *Server) requestConsistency(q *request) (cost.Consistency, error) {
	h := q.header("X-Ms-Consistency-Level")
	if h == "" {
		return s.defaultConsistency(), nil
	}
	c := cost.Consistency(h)
	if s.consistency != "" && strength(c) > strength(s.consistency) {
		return "", errf(400, "The consistency level %s specified in the request is stronger than the account's default %s.", h, s.consistency)
	}
	return c, nil
}

// CertificatePEM is the server's HTTPS certificate in PEM form (nil over http): the file clients
// and CI add to their trust store.
func (s *Server) CertificatePEM() []byte {
	if s.cert == nil {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.cert.Raw})
}
