package design

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Fingerprint is a stable hash of the design's semantic content: containers (keys, throughput,
// indexing, document types and their generators) and access patterns (everything but their names).
// Names, descriptions and comments do not change it; baselines use it to notice a changed design.
func (d *Design) Fingerprint() string {
	pats := make([]AccessPattern, len(d.AccessPatterns))
	copy(pats, d.AccessPatterns)
	for i := range pats {
		pats[i].Name = ""
	}
	b, err := json.Marshal(struct {
		V int             `json:"v"`
		C []Container     `json:"c"`
		P []AccessPattern `json:"p"`
	}{d.Version, d.Containers, pats})
	if err != nil {
		// Parse rejects values JSON cannot hold; a design built in Go may still have one.
		b = fmt.Appendf(nil, "%#v", d)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// setPaths are lists whose order does not matter: differences are reported per element.
var setPaths = []string{"indexing.included", "indexing.excluded", "uniqueKeys", "indexing.composite"}

// Diff lists, one human line each, how design b's structure differs from a's: containers, document
// types and patterns added or removed, and every changed setting, e.g.
// "container UserOrders: indexing.excluded added /status/?". Nil means no difference.
func Diff(a, b *Design) []string {
	var out []string
	for _, ca := range a.Containers {
		cb := b.Container(ca.Name)
		if cb == nil {
			out = append(out, fmt.Sprintf("container %s removed", ca.Name))
			continue
		}
		prefix := "container " + ca.Name + ": "
		x, y := ca, *cb
		x.Documents, y.Documents = nil, nil
		out = append(out, diffValues(prefix, x, y)...)
		for _, ta := range ca.Documents {
			tb := cb.DocType(ta.Type)
			if tb == nil {
				out = append(out, fmt.Sprintf("%sdocument type %s removed", prefix, ta.Type))
				continue
			}
			out = append(out, diffValues(prefix+"type "+ta.Type+": ", ta, *tb)...)
		}
		for _, tb := range cb.Documents {
			if ca.DocType(tb.Type) == nil {
				out = append(out, fmt.Sprintf("%sdocument type %s added", prefix, tb.Type))
			}
		}
	}
	for _, cb := range b.Containers {
		if a.Container(cb.Name) == nil {
			out = append(out, fmt.Sprintf("container %s added", cb.Name))
		}
	}
	for _, pa := range a.AccessPatterns {
		pb := b.Pattern(pa.ID)
		if pb == nil {
			out = append(out, fmt.Sprintf("pattern %s removed", pa.ID))
			continue
		}
		x, y := pa, *pb
		x.Name, y.Name = "", "" // a new name is not a new design
		out = append(out, diffValues("pattern "+pa.ID+": ", x, y)...)
	}
	for _, pb := range b.AccessPatterns {
		if a.Pattern(pb.ID) == nil {
			out = append(out, fmt.Sprintf("pattern %s added", pb.ID))
		}
	}
	return out
}

// diffValues compares two values through their JSON form, leaf by leaf.
func diffValues(prefix string, a, b any) []string {
	fa, fb := map[string]string{}, map[string]string{}
	flatten("", toGeneric(a), fa)
	flatten("", toGeneric(b), fb)
	keys := make([]string, 0, len(fa)+len(fb))
	for k := range fa {
		keys = append(keys, k)
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		va, inA := fa[k]
		vb, inB := fb[k]
		path, elem, isSet := strings.Cut(k, "\x00")
		switch {
		case isSet && !inB:
			out = append(out, fmt.Sprintf("%s%s removed %s", prefix, path, elem))
		case isSet && !inA:
			out = append(out, fmt.Sprintf("%s%s added %s", prefix, path, elem))
		case isSet:
		case !inB:
			out = append(out, fmt.Sprintf("%s%s removed (was %s)", prefix, path, va))
		case !inA:
			out = append(out, fmt.Sprintf("%s%s added: %s", prefix, path, vb))
		case va != vb:
			out = append(out, fmt.Sprintf("%s%s: %s -> %s", prefix, path, va, vb))
		}
	}
	return out
}

func toGeneric(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	var g any
	if err := json.Unmarshal(b, &g); err != nil {
		return string(b)
	}
	return g
}

// flatten maps each leaf of a JSON value to its compact JSON text. Lists in setPaths become one
// key per element ("path\x00element"); other lists compare as a whole.
func flatten(path string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			flatten(joinPath(path, k), e, out)
		}
	case []any:
		if slices.Contains(setPaths, path) {
			for _, e := range t {
				out[path+"\x00"+compact(e)] = ""
			}
			return
		}
		out[path] = compact(t)
	default:
		out[path] = compact(t)
	}
}

func compact(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
