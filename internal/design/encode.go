package design

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Marshal writes d as a design file that Parse reads back to the same design: the inverse of the
// strict decoder, key for key (the yaml tags), fields in their declared order, settings left at
// their zero value omitted where the format allows. header, when given, is written first as YAML
// comments (one "# " line per line). Defaults Parse applied come back written out.
func Marshal(d *Design, header string) ([]byte, error) {
	if d == nil {
		return nil, fmt.Errorf("marshal: no design")
	}
	n, err := encodeValue(reflect.ValueOf(d).Elem())
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if header != "" {
		for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
			b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
		}
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Clone is a deep copy of d, made by writing it out and parsing it again, so that the copy is a
// design Parse accepts (an error says what a change to a design broke, at a position of the
// written form, in a file named "copy of FILE"). The copy keeps d's File.
func Clone(d *Design) (*Design, error) {
	data, err := Marshal(d, "")
	if err != nil {
		return nil, err
	}
	c, err := Parse(data, "copy of "+cmpOr(d.File, "design"))
	if err != nil {
		return nil, err
	}
	c.File = d.File
	return c, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// MarshalPart writes one part of a design under its key (indexing: …), as Marshal writes it: the
// YAML to paste into a design file.
func MarshalPart(key string, v any) ([]byte, error) {
	n, err := encodeValue(reflect.ValueOf(v))
	if err != nil {
		return nil, err
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{scalar(key), n}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func encodeValue(v reflect.Value) (*yaml.Node, error) {
	if v.Type() == fieldsType {
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, f := range v.Interface().(Fields) {
			fv, err := encodeValue(reflect.ValueOf(f.Field))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			m.Content = append(m.Content, scalar(f.Name), fv)
		}
		return m, nil
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
		}
		return encodeValue(v.Elem())
	case reflect.Pointer:
		if v.IsNil() {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
		}
		return encodeValue(v.Elem())
	case reflect.Struct:
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		t := v.Type()
		for _, f := range yamlFields(t) {
			fv := v.Field(f.index)
			if !f.required && omit(fv) {
				continue
			}
			n, err := encodeValue(fv)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			m.Content = append(m.Content, scalar(f.name), n)
		}
		// Short, flat mappings read best on one line ({min: 1, max: 5}).
		if len(m.Content) <= 6 && flat(m) {
			m.Style = yaml.FlowStyle
		}
		return m, nil
	case reflect.Slice, reflect.Array:
		s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i := 0; i < v.Len(); i++ {
			n, err := encodeValue(v.Index(i))
			if err != nil {
				return nil, err
			}
			s.Content = append(s.Content, n)
		}
		if flat(s) {
			s.Style = yaml.FlowStyle
		}
		return s, nil
	case reflect.Map:
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			n, err := encodeValue(v.MapIndex(k))
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, scalar(k.String()), n)
		}
		if flat(m) {
			m.Style = yaml.FlowStyle
		}
		return m, nil
	case reflect.String:
		return scalar(v.String()), nil
	case reflect.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Bool())}, nil
	case reflect.Int, reflect.Int64, reflect.Int32:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v.Int(), 10)}, nil
	case reflect.Float64, reflect.Float32:
		f := v.Float()
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatFloat(f, 'f', -1, 64)}, nil
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(f, 'g', -1, 64)}, nil
	}
	return nil, fmt.Errorf("cannot write a %s", v.Type())
}

// omit reports whether an optional setting is left out: its zero value, or an empty list or map.
// An interface holding a value (const: false) is kept.
func omit(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return v.IsZero()
}

// scalar is a string node; the encoder quotes it when plain text would read as another type
// ("true", "1", "{id}").
func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// flat reports whether a node holds only short scalars, so that it can be written on one line.
func flat(n *yaml.Node) bool {
	total := 0
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode && !(c.Kind == yaml.MappingNode && c.Style == yaml.FlowStyle) {
			return false
		}
		if strings.Contains(c.Value, "\n") {
			return false
		}
		total += len(c.Value) + 2
		for _, cc := range c.Content {
			total += len(cc.Value) + 2
		}
	}
	return total < 100
}
