package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// writeJSONLine writes v as one line of JSON: machine output of several designs on standard output
// is JSON Lines (https://jsonlines.org), one document per design, each valid on its own.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}
