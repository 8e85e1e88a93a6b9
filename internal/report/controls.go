package report

import (
	"encoding/json"
	"fmt"

	"github.com/cosmosdv/validate/internal/design"
)

// checkControls refuses a report or baseline with a control character (other than tab and line
// breaks, which service messages carry) in any string: compare prints names, ids and messages from
// it to the terminal and into text and Markdown, where an ANSI or OSC escape would act. Designs
// are checked when loaded; a report file can come from anywhere.
func checkControls(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil // the caller reports the JSON error
	}
	var what string
	var walk func(v any) bool
	walk = func(v any) bool {
		switch t := v.(type) {
		case string:
			// The design's rule (design.BadRune) with line breaks allowed: messages span lines.
			if _, w, bad := design.BadRune(t, true); bad {
				what = w
				return false
			}
		case []any:
			for _, e := range t {
				if !walk(e) {
					return false
				}
			}
		case map[string]any:
			for k, e := range t {
				if !walk(k) || !walk(e) {
					return false
				}
			}
		}
		return true
	}
	if !walk(v) {
		return fmt.Errorf("contains %s in a string; a report or baseline written by validate has none", what)
	}
	return nil
}
