package seed

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"
)

// object is a JSON object that keeps its keys in generation order, so that encoding is byte-stable.
type object struct {
	keys []string
	vals []any
}

func (o *object) get(k string) (any, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

func (o *object) add(k string, v any) {
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// rawJSON is a pre-encoded value (a constant of a type the encoder does not know natively).
type rawJSON []byte

// lookup walks path through nested objects (generated or decoded).
func lookup(v any, path []string) (any, bool) {
	for _, seg := range path {
		switch o := v.(type) {
		case *object:
			next, ok := o.get(seg)
			if !ok {
				return nil, false
			}
			v = next
		case map[string]any:
			next, ok := o[seg]
			if !ok {
				return nil, false
			}
			v = next
		default:
			return nil, false
		}
	}
	return v, true
}

// normalize turns a decoded YAML/JSON constant into the encoder's value types, with map keys sorted
// so that a constant object encodes identically every time.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int64, float64:
		return x
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	case float32:
		return float64(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normalize(x[i])
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := &object{}
		for _, k := range keys {
			o.add(k, normalize(x[k]))
		}
		return o
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return nil
		}
		return rawJSON(b)
	}
}

// appendJSON appends the JSON encoding of v.
func appendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return appendString(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return appendFloat(b, x)
	case *object:
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendJSON(b, x.vals[i])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, x[i])
		}
		return append(b, ']')
	case rawJSON:
		return append(b, x...)
	default:
		enc, err := json.Marshal(x)
		if err != nil {
			return append(b, "null"...)
		}
		return append(b, enc...)
	}
}

func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaping what JSON requires.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// toText renders a value for a template string.
func toText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return string(appendFloat(nil, x))
	case bool:
		return strconv.FormatBool(x)
	default:
		return string(appendJSON(nil, x))
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
