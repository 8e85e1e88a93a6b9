package lint

import (
	"errors"

	"github.com/cosmosdv/validate/internal/design"
)

// Problem is one error or finding of a design file in lint's JSON output.
type Problem struct {
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Path    string `json:"path,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	// Note marks a remark that is not a mistake: lint still passes.
	Note bool `json:"note,omitempty"`
	// Waived is the waiver that accepts the finding (validate lint --waivers): it is reported and
	// does not fail.
	Waived *Waived `json:"waived,omitempty"`
}

// Waived is a waiver in lint's JSON output.
type Waived struct {
	Reason  string `json:"reason"`
	Owner   string `json:"owner"`
	Expires string `json:"expires"`
	// At is the waiver's file:line:col.
	At string `json:"at"`
}

// Doc is lint's JSON document for one design file: what `validate lint --format json` prints and
// what `validate studio` shows beside the editor.
type Doc struct {
	File string `json:"file"`
	// Valid is false when the file cannot be read, parsed or validated (Errors say why).
	Valid    bool      `json:"valid"`
	Errors   []Problem `json:"errors,omitempty"`
	Findings []Problem `json:"findings,omitempty"`
	// Mistakes counts the findings that are not notes: lint fails when it is above 0.
	Mistakes int `json:"-"`
}

// Document is the lint document of the design file at path: its load error's problems when
// design.Load or design.Parse failed (loadErr), else d's findings (CheckWith opts).
func Document(path string, d *design.Design, loadErr error, opts Options) Doc {
	doc := Doc{File: path, Valid: loadErr == nil}
	if loadErr != nil {
		var es design.Errors
		var e *design.Error
		switch {
		case errors.As(loadErr, &es):
			for _, e := range es {
				doc.Errors = append(doc.Errors, Problem{Line: e.Line, Col: e.Col, Path: e.Path, Message: e.Msg})
			}
		case errors.As(loadErr, &e):
			doc.Errors = append(doc.Errors, Problem{Line: e.Line, Col: e.Col, Path: e.Path, Message: e.Msg})
		default:
			doc.Errors = append(doc.Errors, Problem{Message: loadErr.Error()})
		}
		return doc
	}
	for _, f := range CheckWith(d, opts) {
		doc.Findings = append(doc.Findings, Problem{Line: f.Pos.Line, Col: f.Pos.Col, Path: f.Path, Code: f.Code, Message: f.Message, Note: f.Note})
		if !f.Note {
			doc.Mistakes++
		}
	}
	return doc
}
