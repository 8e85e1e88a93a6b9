package probe

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/record"
)

var placeholderRe = regexp.MustCompile(`\{([^{}]+)\}`)

// resolve fills a template from doc. A string that is exactly one placeholder ("{userId}") gives the
// field's value with its JSON type; any other string interpolates text. {now} is the current time.
// Non-string values are literals.
func resolve(tmpl any, doc map[string]any) (any, error) {
	s, ok := tmpl.(string)
	if !ok {
		return tmpl, nil
	}
	if m := placeholderRe.FindStringSubmatchIndex(s); m != nil && m[0] == 0 && m[1] == len(s) {
		return value(s[m[2]:m[3]], doc)
	}
	var firstErr error
	out := placeholderRe.ReplaceAllStringFunc(s, func(ph string) string {
		v, err := value(ph[1:len(ph)-1], doc)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return toString(v)
	})
	return out, firstErr
}

func value(name string, doc map[string]any) (any, error) {
	name = strings.TrimSpace(name)
	if name == "now" {
		return time.Now().UTC().Format(time.RFC3339), nil
	}
	if doc == nil {
		return nil, fmt.Errorf("{%s}: the pattern has no sample document", name)
	}
	v, ok := lookupPath(doc, strings.Split(name, "."))
	if !ok {
		return nil, fmt.Errorf("{%s}: not in the sampled document", name)
	}
	return v, nil
}

func lookupPath(doc map[string]any, path []string) (any, bool) {
	var v any = doc
	for _, seg := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok = m[seg]
		if !ok {
			return nil, false
		}
	}
	return v, true
}

func setPath(doc map[string]any, path []string, v any) {
	m := doc
	for i, seg := range path {
		if i == len(path)-1 {
			m[seg] = v
			return
		}
		next, ok := m[seg].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[seg] = next
		}
		m = next
	}
}

// distinguish makes a unique-key value of a scratch copy differ from the original's.
func distinguish(doc map[string]any, path []string, tag string, n int) {
	v, ok := lookupPath(doc, path)
	if !ok {
		return
	}
	switch x := v.(type) {
	case string:
		setPath(doc, path, x+tag)
	case float64:
		setPath(doc, path, x+1e12+float64(n))
	}
}

// keyValues reads a container's partition-key values from a document, in level order.
func keyValues(c *design.Container, doc map[string]any) []any {
	paths := c.KeyPaths()
	vals := make([]any, len(paths))
	for i, path := range paths {
		vals[i], _ = lookupPath(doc, path)
	}
	return vals
}

func toString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) {
			return int64(x), true
		}
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}
	return 0, false
}

func cloneMap(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func sortedParamNames(m map[string]any) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// AddQueryMetrics adds a query-metrics header ("name=value;name=value") to acc. Values of several
// pages add up (counts and times both do).
func AddQueryMetrics(acc map[string]float64, header string) {
	for _, kv := range strings.Split(header, ";") {
		name, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || name == "" {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		acc[name] += f
	}
}

// wireIndexMetrics is the service's index-utilization JSON.
type wireIndexMetrics struct {
	UtilizedSingleIndexes     []struct{ IndexSpec string }    `json:"UtilizedSingleIndexes"`
	PotentialSingleIndexes    []struct{ IndexSpec string }    `json:"PotentialSingleIndexes"`
	UtilizedCompositeIndexes  []struct{ IndexSpecs []string } `json:"UtilizedCompositeIndexes"`
	PotentialCompositeIndexes []struct{ IndexSpecs []string } `json:"PotentialCompositeIndexes"`
}

// decodeIndexMetrics decodes the index-metrics header: base64 of JSON as the service sends it (plain
// JSON is accepted too). nil when it cannot be decoded.
func decodeIndexMetrics(h string) *record.IndexMetrics {
	raw := []byte(h)
	if dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h)); err == nil {
		raw = dec
	}
	var w wireIndexMetrics
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil
	}
	im := &record.IndexMetrics{}
	for _, s := range w.UtilizedSingleIndexes {
		im.UtilizedSingle = append(im.UtilizedSingle, s.IndexSpec)
	}
	for _, s := range w.PotentialSingleIndexes {
		im.PotentialSingle = append(im.PotentialSingle, s.IndexSpec)
	}
	for _, c := range w.UtilizedCompositeIndexes {
		im.UtilizedComposite = append(im.UtilizedComposite, c.IndexSpecs)
	}
	for _, c := range w.PotentialCompositeIndexes {
		im.PotentialComposite = append(im.PotentialComposite, c.IndexSpecs)
	}
	return im
}

// mergeIndexMetrics unions b into a (pages of one query), without duplicates.
func mergeIndexMetrics(a, b *record.IndexMetrics) *record.IndexMetrics {
	if a == nil {
		return b
	}
	addS := func(dst []string, src []string) []string {
		for _, s := range src {
			if !slices.Contains(dst, s) {
				dst = append(dst, s)
			}
		}
		return dst
	}
	addC := func(dst [][]string, src [][]string) [][]string {
		for _, s := range src {
			if !slices.ContainsFunc(dst, func(d []string) bool { return slices.Equal(d, s) }) {
				dst = append(dst, s)
			}
		}
		return dst
	}
	a.UtilizedSingle = addS(a.UtilizedSingle, b.UtilizedSingle)
	a.PotentialSingle = addS(a.PotentialSingle, b.PotentialSingle)
	a.UtilizedComposite = addC(a.UtilizedComposite, b.UtilizedComposite)
	a.PotentialComposite = addC(a.PotentialComposite, b.PotentialComposite)
	return a
}
