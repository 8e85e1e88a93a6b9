package seed

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
)

// Produces reports whether the field's generator can give the value v (a query constant: a
// float64 for a number, a string, a bool or nil), as the seeder generates it (value and basic
// above are the reference): known is false when it cannot tell (a copy, an array or object, free
// text, an email, a unique value of a word list). A value of another JSON type than the
// generator's never equals one of its values.
func Produces(f *design.Field, v any) (possible, known bool) {
	if f == nil {
		return false, false
	}
	switch {
	case f.Const != nil:
		return sameValue(normalize(f.Const), v), true
	case len(f.OneOf) > 0:
		return slices.ContainsFunc(f.OneOf, func(o any) bool { return sameValue(normalize(o), v) }), true
	case f.Template != "":
		s, ok := v.(string)
		if !ok {
			return false, true
		}
		parts, err := parseTemplate(f.Template)
		if err != nil {
			return false, false
		}
		// Literal parts are fixed; a reference may render as any text.
		var re strings.Builder
		re.WriteString(`^`)
		for _, p := range parts {
			if p.isRef {
				re.WriteString(`(?s:.*)`)
			} else {
				re.WriteString(regexp.QuoteMeta(p.lit))
			}
		}
		re.WriteString(`$`)
		return regexp.MustCompile(re.String()).MatchString(s), true
	case f.Gen == "":
		return false, false
	}
	c := &cfield{}
	if err := compileGen(c, f); err != nil {
		return false, false
	}
	num, isNum := v.(float64)
	str, isStr := v.(string)
	_, isBool := v.(bool)
	// uniqueSuffix is what a unique string value appends: sep and the document's sequence number
	// (and a probe's tag).
	suffixed := func(base, sep string) string {
		if c.unique {
			return `^(?:` + base + `)(?:` + regexp.QuoteMeta(sep) + `[0-9]+(?:-.*)?)?$`
		}
		return `^(?:` + base + `)$`
	}
	inList := func(list []string, sep string) (bool, bool) {
		if !isStr {
			return false, true
		}
		if slices.Contains(list, str) {
			return true, true
		}
		if c.unique {
			for _, w := range list {
				if rest, ok := strings.CutPrefix(str, w+sep); ok && rest != "" {
					return true, true
				}
			}
		}
		return false, true
	}
	switch c.gen {
	case "int", "seq":
		if !isNum {
			return false, true
		}
		if c.gen == "seq" {
			return num == math.Trunc(num) && num >= 0, true
		}
		if c.unique {
			return num == math.Trunc(num) && num >= math.Ceil(c.min), true
		}
		return num == math.Trunc(num) && num >= math.Ceil(c.min) && num <= math.Floor(c.max), true
	case "decimal", "money":
		if !isNum {
			return false, true
		}
		return num >= c.min && num <= c.max, true
	case "epoch":
		if !isNum {
			return false, true
		}
		return num == math.Trunc(num) && num >= float64(c.from.Unix()) && num < float64(c.to.Unix()), true
	case "isoTime":
		if !isStr {
			return false, true
		}
		t, err := parseTime(str)
		if err != nil || len(str) != len("2006-01-02T15:04:05Z") || !strings.HasSuffix(str, "Z") {
			return false, true
		}
		return !t.Before(c.from) && t.Before(c.to), true
	case "bool":
		return isBool, true
	case "city":
		return inList(cities, "")
	case "country":
		return inList(countries, "")
	case "word":
		return inList(words, "-")
	case "firstName":
		return inList(firstNames, " ")
	case "lastName":
		return inList(lastNames, " ")
	case "sku":
		if !isStr {
			return false, true
		}
		prefix := c.prefix
		if prefix == "" {
			prefix = "SKU"
		}
		return regexp.MustCompile(suffixed(regexp.QuoteMeta(prefix)+`-[1-9][0-9]{5}`, "-")).MatchString(str), true
	case "code":
		if !isStr {
			return false, true
		}
		n := c.bytes
		if n == 0 {
			n = 8
		}
		base := `[` + codeAlphabet + `]{` + strconv.Itoa(n) + `}`
		if c.prefix != "" {
			base = regexp.QuoteMeta(c.prefix+"-") + base
		}
		return regexp.MustCompile(suffixed(base, "-")).MatchString(str), true
	case "phone":
		if !isStr {
			return false, true
		}
		return regexp.MustCompile(`^\+1-555-[0-9]{3}-[0-9]{4}$`).MatchString(str), true
	case "uuid":
		if !isStr {
			return false, true
		}
		return regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(str), true
	case "fullName", "email", "text":
		if !isStr {
			return false, true
		}
	case "vector":
		return false, true // an array never equals a scalar constant
	}
	return false, false
}

// sameValue compares a normalized generated value with a query constant (numbers as float64).
func sameValue(g, v any) bool {
	if i, ok := g.(int64); ok {
		g = float64(i)
	}
	switch g.(type) {
	case nil, bool, string, float64:
		return g == v
	}
	return false
}
