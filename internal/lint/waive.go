package lint

import (
	"cmp"
	"fmt"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/waiver"
)

// DesignWaivers are the waivers a design writes next to what they are about (waive: on the design,
// a container or an access pattern), each at its line in the design file: the one reading of them
// for lint, plan and run.
func DesignWaivers(d *design.Design) []*waiver.Waiver {
	if d == nil {
		return nil
	}
	var out []*waiver.Waiver
	add := func(path, pattern, containerPath string, list []design.Waive) {
		for i, w := range list {
			pos := d.Positions[fmt.Sprintf("%s[%d]", path, i)]
			nw, err := waiver.New(waiver.Waiver{Code: w.Code, Design: d.Name, Pattern: pattern, Path: containerPath,
				Reason: w.Reason, Owner: cmp.Or(w.Owner, "(no owner)"), Expires: w.Expires, File: d.File, Line: pos.Line, Col: pos.Col})
			if err == nil { // the design's validation refused a bad date already
				out = append(out, nw)
			}
		}
	}
	add("waive", "", "", d.Waive)
	for i := range d.Containers {
		add(fmt.Sprintf("containers[%d].waive", i), "", fmt.Sprintf("containers[%d]", i), d.Containers[i].Waive)
	}
	for i := range d.AccessPatterns {
		add(fmt.Sprintf("accessPatterns[%d].waive", i), d.AccessPatterns[i].ID, "", d.AccessPatterns[i].Waive)
	}
	return out
}
