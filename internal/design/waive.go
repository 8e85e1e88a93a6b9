package design

import (
	"fmt"
	"strings"
	"time"
)

// Waive is a finding the team accepts, written next to what it is about: on the design (any
// finding of the code), a container or an access pattern (that one's findings of the code). A
// waived finding is still reported, marked waived with the reason; it no longer fails lint or plan.
// An expired waiver waives nothing and is itself a failing finding at its line, so every
// acceptance is revisited. A waivers file (--waivers) holds the same for designs a team does not
// edit.
type Waive struct {
	// Code is the finding's code (lost-partition-key, hot-partition, …).
	Code string `yaml:"code" json:"code"`
	// Reason says why the finding is accepted; required.
	Reason string `yaml:"reason" json:"reason"`
	// Owner is who answers for it (optional).
	Owner string `yaml:"owner,omitempty" json:"owner,omitempty"`
	// Expires is the last day the waiver holds, YYYY-MM-DD (UTC; optional: without it, never).
	Expires string `yaml:"expires,omitempty" json:"expires,omitempty"`
}

// checkWaives validates the waivers at path.
func (v *validator) checkWaives(path string, ws []Waive) {
	for i, w := range ws {
		p := fmt.Sprintf("%s[%d]", path, i)
		if strings.TrimSpace(w.Code) == "" {
			v.errf(p+".code", "is required: the code of the finding accepted (e.g. lost-partition-key)")
		}
		if strings.TrimSpace(w.Reason) == "" {
			v.errf(p+".reason", "is required: say why the finding is accepted")
		}
		if w.Expires != "" {
			if _, err := time.Parse(time.DateOnly, w.Expires); err != nil {
				v.errf(p+".expires", "%q is not a date YYYY-MM-DD", w.Expires)
			}
		}
	}
}
