package plan

import (
	"github.com/cosmosdv/validate/internal/engine/index"
)

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
