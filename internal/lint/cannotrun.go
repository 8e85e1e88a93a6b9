package lint

// cannotRun are the codes of findings that say a pattern cannot run as written: the service refuses
// it (a patch of the partition key), or it finds nothing (a filter no document matches, a key value
// taken from another field or given in the wrong order, a field no type has), or it does not parse,
// or a document type lacks the key. A figure for such a pattern prices something that cannot
// happen: `validate advise` refuses a design with any of them (#37 point 5).
var cannotRun = map[string]bool{
	"partition-key-patch":    true,
	"filter-unmatched":       true,
	"unknown-field":          true,
	"query-syntax":           true,
	"missing-key":            true,
	"partition-key-template": true,
	"partition-key-order":    true,
}

// CannotRun reports whether the finding says a pattern cannot run as written (a note never does).
func (f Finding) CannotRun() bool { return !f.Note && cannotRun[f.Code] }

// CannotRun returns the findings of fs that say a pattern cannot run as written.
func CannotRun(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.CannotRun() {
			out = append(out, f)
		}
	}
	return out
}
