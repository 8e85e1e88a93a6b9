// Package jsondoc decodes JSON documents into the generic values encoding/json produces —
// map[string]any, []any, string, float64, bool and nil — in a single pass over the input.
//
// The engine decodes every item it stores. encoding/json does that in two passes (it validates the
// whole input, then decodes through reflection) and copies every string. Here the input is read
// once, and a string or key with no escapes and valid UTF-8 is not copied: it points into the input
// (unsafe.String). The caller must therefore never write to the input's bytes again; the engine
// stores the input as the item's JSON, which it only ever reads, so each item holds its text once.
//
// The result is the one encoding/json.Unmarshal gives for the same input, errors included (which
// inputs fail, not the wording): FuzzDecode checks that, difference by difference. No library
// fitted: the fast decoders either return their own value types, which the query evaluator and the
// index do not speak, or copy every string.
package jsondoc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth is the deepest nesting accepted, the same as encoding/json's.
const MaxDepth = 10000

// SyntaxError is a malformed input, with the byte offset of the problem.
type SyntaxError struct {
	Offset int
	msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.Offset) }

// ErrNotObject is returned by DecodeObject when the input is valid JSON but not an object.
var ErrNotObject = errors.New("the JSON value is not an object")

// Decode decodes one JSON value that fills b (surrounding whitespace aside). Strings may point
// into b: b must not be modified afterwards.
func Decode(b []byte) (any, error) {
	d := decoder{b: b}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i != len(b) {
		return nil, d.fail("invalid character after top-level value")
	}
	return v, nil
}

// DecodeItem decodes b as an item written by a client: a JSON object, stricter than encoding/json
// in two ways the service is (an item is stored and echoed as sent): b must be valid UTF-8, and
// no object may name a key twice (encoding/json keeps the last; the stored text would start with
// the other). Strings may point into b: b must not be modified afterwards.
func DecodeItem(b []byte) (map[string]any, error) {
	if !utf8.Valid(b) {
		i := 0
		for i < len(b) {
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return nil, &SyntaxError{Offset: i, msg: "invalid UTF-8"}
	}
	d := decoder{b: b, noDups: true}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i != len(b) {
		return nil, d.fail("invalid character after top-level value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, ErrNotObject
	}
	return m, nil
}

// DecodeObject decodes b, which must hold a JSON object. Strings may point into b: b must not be
// modified afterwards.
func DecodeObject(b []byte) (map[string]any, error) {
	v, err := Decode(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, ErrNotObject
	}
	return m, nil
}

type decoder struct {
	b      []byte
	i      int
	noDups bool // a key named twice in an object is an error (DecodeItem)
}

func (d *decoder) fail(msg string) error { return &SyntaxError{Offset: d.i, msg: msg} }

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	d.space()
	if d.i >= len(d.b) {
		return nil, d.fail("unexpected end of JSON input")
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		return nil, d.fail("invalid character looking for beginning of value")
	}
}

func (d *decoder) literal(word string) error {
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return d.fail("invalid literal")
	}
	d.i += len(word)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, d.fail("exceeded max depth")
	}
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, d.fail("expected a string key")
		}
		at := d.i
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		if d.noDups {
			if _, dup := m[k]; dup {
				d.i = at
				return nil, d.fail("duplicate key " + strconv.Quote(k))
			}
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, d.fail("expected ':' after object key")
		}
		d.i++
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.space()
		if d.i >= len(d.b) {
			return nil, d.fail("unexpected end of JSON input")
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, nil
		default:
			return nil, d.fail("expected ',' or '}' after object value")
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, d.fail("exceeded max depth")
	}
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, d.fail("unexpected end of JSON input")
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, nil
		default:
			return nil, d.fail("expected ',' or ']' after array element")
		}
	}
}

// number scans the JSON number grammar, then converts as encoding/json does (ParseFloat, 64 bits;
// out of range is an error).
func (d *decoder) number() (any, error) {
	start := d.i
	b := d.b
	if b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(b) && b[d.i] == '0':
		d.i++
	case d.i < len(b) && b[d.i] >= '1' && b[d.i] <= '9':
		for d.i < len(b) && b[d.i] >= '0' && b[d.i] <= '9' {
			d.i++
		}
	default:
		return nil, d.fail("invalid number")
	}
	if d.i < len(b) && b[d.i] == '.' {
		d.i++
		if d.i >= len(b) || b[d.i] < '0' || b[d.i] > '9' {
			return nil, d.fail("invalid number")
		}
		for d.i < len(b) && b[d.i] >= '0' && b[d.i] <= '9' {
			d.i++
		}
	}
	if d.i < len(b) && (b[d.i] == 'e' || b[d.i] == 'E') {
		d.i++
		if d.i < len(b) && (b[d.i] == '+' || b[d.i] == '-') {
			d.i++
		}
		if d.i >= len(b) || b[d.i] < '0' || b[d.i] > '9' {
			return nil, d.fail("invalid number")
		}
		for d.i < len(b) && b[d.i] >= '0' && b[d.i] <= '9' {
			d.i++
		}
	}
	text := b[start:d.i]
	// Small integers are most numbers in documents: convert them without ParseFloat.
	if len(text) <= 15 {
		var n int64
		neg, digits := false, text
		if digits[0] == '-' {
			neg, digits = true, digits[1:]
		}
		simple := true
		for _, c := range digits {
			if c < '0' || c > '9' {
				simple = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if simple {
			if neg {
				if n == 0 {
					return negZero, nil
				}
				return float64(-n), nil
			}
			return float64(n), nil
		}
	}
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(text), len(text)), 64)
	if err != nil {
		return nil, &SyntaxError{Offset: start, msg: "number " + string(text) + " does not fit a float64"}
	}
	return f, nil
}

// negZero is -0, which "-0" decodes to (ParseFloat keeps the sign).
var negZero = func() float64 { z := 0.0; return -z }()

// str decodes a string at d.i (which is '"'). Without escapes and with valid UTF-8, the result
// points into the input.
func (d *decoder) str() (string, error) {
	d.i++ // opening quote
	start := d.i
	b := d.b
	// Fast path: find the closing quote with IndexByte, then check the bytes before it eight at a
	// time for anything that needs the byte loop below (a backslash, a control character,
	// non-ASCII).
	if q := bytes.IndexByte(b[start:], '"'); q >= 0 && plainASCII(b[start:start+q]) {
		s := b[start : start+q]
		d.i = start + q + 1
		return unsafe.String(unsafe.SliceData(s), len(s)), nil
	}
	ascii := true
	for d.i < len(b) {
		c := b[d.i]
		switch {
		case c == '"':
			s := b[start:d.i]
			d.i++
			if !ascii && !utf8.Valid(s) {
				return string(fixUTF8(nil, s)), nil
			}
			return unsafe.String(unsafe.SliceData(s), len(s)), nil
		case c == '\\':
			return d.unescape(start)
		case c < 0x20:
			return "", d.fail("invalid control character in string")
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.i++
	}
	return "", d.fail("unexpected end of JSON input")
}

// unescape decodes a string with escapes into a new buffer, from start (just after the opening
// quote); d.i is at the first backslash.
func (d *decoder) unescape(start int) (string, error) {
	b := d.b
	out := make([]byte, 0, d.i-start+16)
	out = fixUTF8(out, b[start:d.i])
	for d.i < len(b) {
		c := b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), nil
		case c < 0x20:
			return "", d.fail("invalid control character in string")
		case c == '\\':
			if d.i+1 >= len(b) {
				return "", d.fail("unexpected end of JSON input")
			}
			e := b[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(b[d.i:])
				if !ok {
					return "", d.fail("invalid \\u escape")
				}
				d.i += 4
				if utf16.IsSurrogate(r) {
					// A pair decodes to one rune; anything else is the replacement rune, and the
					// second escape, if any, is read on its own (as encoding/json does).
					if len(b)-d.i >= 6 && b[d.i] == '\\' && b[d.i+1] == 'u' {
						if r2, ok := hex4(b[d.i+2:]); ok {
							if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
								d.i += 6
								out = utf8.AppendRune(out, dec)
								break
							}
						}
					}
					r = unicode.ReplacementChar
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", d.fail("invalid escape")
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(b[d.i:])
			out = utf8.AppendRune(out, r) // RuneError for an invalid byte, as encoding/json
			d.i += size
		}
	}
	return "", d.fail("unexpected end of JSON input")
}

// plainASCII reports whether s holds only printable ASCII without backslashes.
func plainASCII(s []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(s) >= 8 {
		v := binary.LittleEndian.Uint64(s)
		bs := v ^ (ones * '\\') // a zero byte where s has a backslash
		// v&highs: a byte >= 0x80; (v-0x20…)&^v: a byte < 0x20; (bs-ones)&^bs: a zero byte in bs.
		if (v&highs) != 0 || ((v-ones*0x20)&^v&highs) != 0 || ((bs-ones)&^bs&highs) != 0 {
			return false
		}
		s = s[8:]
	}
	for _, c := range s {
		if c < 0x20 || c >= utf8.RuneSelf || c == '\\' {
			return false
		}
	}
	return true
}

// fixUTF8 appends s to out with each invalid UTF-8 byte replaced by U+FFFD, as encoding/json does.
func fixUTF8(out, s []byte) []byte {
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, r)
		} else {
			out = append(out, s[:size]...)
		}
		s = s[size:]
	}
	return out
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// DecodeFields decodes the JSON object b as DecodeObject does, but keeps only the top-level
// properties named in keys: the others are skipped over without being decoded (a query that reads
// two properties of a stored item decodes those two), and decoding stops once every key is found.
// b must be valid JSON with no key named twice, as an item the engine stored is (DecodeItem checked
// it when it was written): a skipped value and the rest of b are not checked. Strings may point
// into b.
func DecodeFields(b []byte, keys map[string]bool) (map[string]any, error) {
	if len(keys) == 0 {
		return map[string]any{}, nil
	}
	d := decoder{b: b}
	d.space()
	if d.i >= len(b) || b[d.i] != '{' {
		return nil, ErrNotObject
	}
	d.i++
	m := map[string]any{}
	d.space()
	if d.i < len(b) && b[d.i] == '}' {
		return m, nil
	}
	for {
		d.space()
		if d.i >= len(b) || b[d.i] != '"' {
			return nil, d.fail("expected a string key")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(b) || b[d.i] != ':' {
			return nil, d.fail("expected ':' after object key")
		}
		d.i++
		if keys[k] {
			v, err := d.value(1)
			if err != nil {
				return nil, err
			}
			m[k] = v
			if len(m) == len(keys) {
				return m, nil // the rest holds none of them: no key is named twice
			}
		} else if err := d.skip(); err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(b) {
			return nil, d.fail("unexpected end of JSON input")
		}
		switch b[d.i] {
		case ',':
			d.i++
		case '}':
			return m, nil
		default:
			return nil, d.fail("expected ',' or '}' after object value")
		}
	}
}

// skip moves past one value of valid JSON without decoding it.
func (d *decoder) skip() error {
	d.space()
	b := d.b
	if d.i >= len(b) {
		return d.fail("unexpected end of JSON input")
	}
	switch b[d.i] {
	case '"':
		return d.skipString()
	case '{', '[':
		depth := 0
		for d.i < len(b) {
			switch b[d.i] {
			case '"':
				if err := d.skipString(); err != nil {
					return err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					d.i++
					return nil
				}
			}
			d.i++
		}
		return d.fail("unexpected end of JSON input")
	}
	for d.i < len(b) { // a number or a literal: up to the next delimiter
		switch b[d.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return nil
		}
		d.i++
	}
	return nil
}

// skipString moves past the string at d.i (its opening quote): to the first quote after it not
// escaped by an odd run of backslashes.
func (d *decoder) skipString() error {
	d.i++
	for {
		q := bytes.IndexByte(d.b[d.i:], '"')
		if q < 0 {
			return d.fail("unexpected end of JSON input")
		}
		end := d.i + q
		n := 0
		for k := end - 1; k >= d.i && d.b[k] == '\\'; k-- {
			n++
		}
		d.i = end + 1
		if n%2 == 0 {
			return nil
		}
	}
}
