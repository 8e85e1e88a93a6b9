package design

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// UnmarshalYAML decodes a YAML mapping of field names to generators, keeping the file's order.
// It is as strict as Parse: unknown keys and wrong types are errors.
func (fs *Fields) UnmarshalYAML(n *yaml.Node) error {
	dec := &decoder{pos: map[string]Pos{}, bad: map[string]bool{}, budget: maxNodes}
	dec.decode(n, reflect.ValueOf(fs).Elem(), "fields", 0)
	if len(dec.errs) > 0 {
		return dec.errs
	}
	return nil
}

// MarshalJSON encodes the fields as a JSON object in their declared order.
func (fs Fields) MarshalJSON() ([]byte, error) {
	if fs == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.Name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.Field)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON decodes a JSON object of fields, keeping its order.
func (fs *Fields) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*fs = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("fields must be a JSON object")
	}
	out := Fields{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var f Field
		if err := dec.Decode(&f); err != nil {
			return fmt.Errorf("field %s: %w", name, err)
		}
		out = append(out, NamedField{Name: name, Field: f})
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*fs = out
	return nil
}
