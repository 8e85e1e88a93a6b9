package importer

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cosmosdv/validate/internal/design"
)

// The draft is written as a YAML node tree so that every inference carries its "# TODO(import): …"
// comment right above the key it is about, and so that the YAML library does the quoting.

func (b *builder) emit() ([]byte, error) {
	d := &b.d
	top := mapping(false)
	b.kv(top, "", "version", intNode(d.Version))
	b.kv(top, "name", "name", str(d.Name))
	if d.Description != "" {
		b.kv(top, "description", "description", str(d.Description))
	}
	b.kv(top, "database", "database", str(d.Database))
	if d.Scale.StorageGB > 0 {
		m := mapping(true)
		b.kv(m, "", "storageGB", floatNode(d.Scale.StorageGB))
		b.kv(top, "scale", "scale", m)
	}
	if d.Regions > 1 {
		b.kv(top, "regions", "regions", intNode(d.Regions))
	}
	if d.MultiRegionWrites {
		b.kv(top, "multiRegionWrites", "multiRegionWrites", boolNode(true))
	}
	if d.Consistency != "" {
		b.kv(top, "consistency", "consistency", str(d.Consistency))
	}
	if d.App != nil && d.App.SDK != "" {
		m := mapping(true)
		b.kv(m, "", "sdk", str(d.App.SDK))
		b.kv(top, "app", "app", m)
	}
	if p := d.Pricing; p != nil {
		m := mapping(true)
		for _, kv := range []struct {
			k string
			v float64
		}{{"manualPer100RUsHour", p.ManualPer100RUsHour}, {"manualPerRUHour", p.ManualPerRUHour},
			{"storagePerGBMonth", p.StoragePerGBMonth}, {"secondsPerMonth", p.SecondsPerMonth}} {
			if kv.v != 0 {
				b.kv(m, "", kv.k, floatNode(kv.v))
			}
		}
		b.kv(top, "pricing", "pricing", m)
	}
	if t := d.Traffic; t != nil && len(t.Hourly) == 24 {
		m := mapping(false)
		h := seq(true)
		for _, f := range t.Hourly {
			h.Content = append(h.Content, floatNode(f))
		}
		b.kv(m, "traffic.hourly", "hourly", h)
		b.kv(top, "traffic", "traffic", m)
	}
	cs := seq(false)
	for i := range d.Containers {
		cs.Content = append(cs.Content, b.container(fmt.Sprintf("containers[%d]", i), &d.Containers[i]))
	}
	b.kv(top, "containers", "containers", cs)
	ps := seq(false)
	for i := range d.AccessPatterns {
		ps.Content = append(ps.Content, b.pattern(fmt.Sprintf("accessPatterns[%d]", i), &d.AccessPatterns[i]))
	}
	b.kv(top, "accessPatterns", "accessPatterns", ps)
	if len(b.unplaced) > 0 {
		// Patterns that could not be drafted at all stay in the file, commented out.
		ps.Content[len(ps.Content)-1].FootComment = strings.Join(b.unplaced, "\n")
	}

	var buf bytes.Buffer
	buf.WriteString("# yaml-language-server: $schema=../schema/design.schema.json\n#\n")
	for _, l := range b.header() {
		buf.WriteString(strings.TrimRight("# "+l, " ") + "\n")
	}
	buf.WriteString("\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{top}}
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// kv appends key: value to m, with the notes recorded for path above the key.
func (b *builder) kv(m *yaml.Node, path, key string, v *yaml.Node) {
	k := str(key)
	if path != "" {
		k.HeadComment = b.comment(path)
	}
	m.Content = append(m.Content, k, v)
}

func (b *builder) comment(path string) string {
	var lines []string
	for _, n := range b.notes[path] {
		lines = append(lines, wrap(n, 96)...)
	}
	return strings.Join(lines, "\n")
}

// wrap breaks a note into comment lines of at most width characters; continuation lines are indented.
func wrap(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			out = append(out, line)
			line = "  " + w
			continue
		}
		if line == "" {
			line = w
		} else {
			line += " " + w
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

func (b *builder) container(path string, c *design.Container) *yaml.Node {
	m := mapping(false)
	b.kv(m, path+".name", "name", str(c.Name))
	keys := seq(true)
	for _, k := range c.PartitionKey {
		keys.Content = append(keys.Content, str(k))
	}
	b.kv(m, path+".partitionKey", "partitionKey", keys)
	t := mapping(true)
	switch {
	case c.Throughput.Serverless:
		b.kv(t, "", "serverless", boolNode(true))
	case c.Throughput.AutoscaleMax > 0:
		b.kv(t, "", "autoscaleMax", intNode(c.Throughput.AutoscaleMax))
	default:
		b.kv(t, "", "manual", intNode(max(c.Throughput.Manual, 400)))
	}
	b.kv(m, path+".throughput", "throughput", t)
	if c.DefaultTTL != nil {
		b.kv(m, path+".defaultTtl", "defaultTtl", intNode(*c.DefaultTTL))
	}
	if len(c.UniqueKeys) > 0 {
		uk := seq(true)
		for _, k := range c.UniqueKeys {
			one := seq(true)
			for _, p := range k {
				one.Content = append(one.Content, str(p))
			}
			uk.Content = append(uk.Content, one)
		}
		b.kv(m, path+".uniqueKeys", "uniqueKeys", uk)
	}
	if ix := c.Indexing; ix != nil {
		im := mapping(false)
		if ix.Mode != "" {
			b.kv(im, "", "mode", str(ix.Mode))
		}
		paths := func(key string, ps []string) {
			if len(ps) == 0 {
				return
			}
			s := seq(true)
			for _, p := range ps {
				s.Content = append(s.Content, quoted(p))
			}
			b.kv(im, path+".indexing."+key, key, s)
		}
		paths("included", ix.Included)
		paths("excluded", ix.Excluded)
		if len(ix.Composite) > 0 {
			cs := seq(false)
			for _, ci := range ix.Composite {
				one := seq(true)
				for _, p := range ci {
					pm := mapping(true)
					b.kv(pm, "", "path", str(p.Path))
					b.kv(pm, "", "order", str(p.Order))
					one.Content = append(one.Content, pm)
				}
				cs.Content = append(cs.Content, one)
			}
			b.kv(im, path+".indexing.composite", "composite", cs)
		}
		b.kv(m, path+".indexing", "indexing", im)
	}
	docs := seq(false)
	for i := range c.Documents {
		docs.Content = append(docs.Content, b.docType(fmt.Sprintf("%s.documents[%d]", path, i), &c.Documents[i]))
	}
	b.kv(m, path+".documents", "documents", docs)
	return m
}

func (b *builder) docType(path string, t *design.DocType) *yaml.Node {
	m := mapping(false)
	b.kv(m, path+".type", "type", str(t.Type))
	if t.Parent != nil {
		pm := mapping(true)
		b.kv(pm, "", "type", str(t.Parent.Type))
		per := mapping(true)
		b.kv(per, "", "min", intNode(t.Parent.Per.Min))
		b.kv(per, "", "max", intNode(t.Parent.Per.Max))
		if t.Parent.Per.Dist != "" {
			b.kv(per, "", "dist", str(t.Parent.Per.Dist))
		}
		b.kv(pm, "", "per", per)
		b.kv(m, path+".parent", "parent", pm)
	} else {
		b.kv(m, path+".count", "count", intNode(t.Count))
	}
	if t.Production > 0 {
		b.kv(m, path+".production", "production", intNode(int(t.Production)))
	}
	if t.ID != "" {
		b.kv(m, path+".id", "id", quoted(t.ID))
	}
	if t.TargetBytes > 0 {
		b.kv(m, path+".targetBytes", "targetBytes", intNode(t.TargetBytes))
	}
	b.kv(m, path+".fields", "fields", b.fields(path+".fields", t.Fields))
	if len(t.AppFields) > 0 {
		s := seq(true)
		for _, p := range t.AppFields {
			s.Content = append(s.Content, str(p))
		}
		b.kv(m, path+".appFields", "appFields", s)
	}
	return m
}

func (b *builder) fields(path string, fs design.Fields) *yaml.Node {
	m := mapping(false)
	for _, f := range fs {
		fp := path + "." + f.Name
		b.kv(m, fp, f.Name, b.field(fp, &f.Field))
	}
	return m
}

// field writes a generator; simple generators go on one line, objects nest.
func (b *builder) field(path string, f *design.Field) *yaml.Node {
	if len(f.Object) > 0 {
		m := mapping(false)
		b.kv(m, "", "object", b.fields(path, f.Object))
		if f.Optional > 0 {
			b.kv(m, "", "optional", floatNode(f.Optional))
		}
		return m
	}
	m := mapping(true)
	switch {
	case f.Array != nil:
		m.Style = 0
		am := mapping(true)
		b.kv(am, "", "min", intNode(f.Array.Min))
		b.kv(am, "", "max", intNode(f.Array.Max))
		b.kv(m, "", "array", am)
		of := f.Of
		if of == nil {
			of = &design.Field{Gen: "word"}
		}
		b.kv(m, "", "of", b.field(path+"[]", of))
	case f.Copy != "":
		b.kv(m, "", "copy", str(f.Copy))
	case f.Template != "":
		b.kv(m, "", "template", quoted(f.Template))
	case f.OneOf != nil:
		s := seq(true)
		for _, v := range f.OneOf {
			s.Content = append(s.Content, valueNode(v))
		}
		b.kv(m, "", "oneOf", s)
		if len(f.Weights) > 0 {
			w := seq(true)
			for _, x := range f.Weights {
				w.Content = append(w.Content, floatNode(x))
			}
			b.kv(m, "", "weights", w)
		}
	case f.Gen != "":
		b.kv(m, "", "gen", str(f.Gen))
		if f.Prefix != "" {
			b.kv(m, "", "prefix", str(f.Prefix))
		}
		if f.Min != nil {
			b.kv(m, "", "min", floatNode(*f.Min))
		}
		if f.Max != nil {
			b.kv(m, "", "max", floatNode(*f.Max))
		}
		if f.Decimals != nil {
			b.kv(m, "", "decimals", intNode(*f.Decimals))
		}
		if f.From != "" {
			b.kv(m, "", "from", str(f.From))
			b.kv(m, "", "to", str(f.To))
		}
		if f.Bytes > 0 {
			b.kv(m, "", "bytes", intNode(f.Bytes))
		}
		if f.Unique {
			b.kv(m, "", "unique", boolNode(true))
		}
		if f.Cardinality > 0 {
			b.kv(m, "", "cardinality", intNode(f.Cardinality))
		}
		if f.ProductionCardinality > 0 {
			b.kv(m, "", "productionCardinality", floatNode(f.ProductionCardinality))
		}
		if f.Dist != "" {
			b.kv(m, "", "dist", str(f.Dist))
		}
	default:
		b.kv(m, "", "const", valueNode(f.Const))
	}
	if f.Optional > 0 {
		b.kv(m, "", "optional", floatNode(f.Optional))
	}
	return m
}

func (b *builder) pattern(path string, p *design.AccessPattern) *yaml.Node {
	m := mapping(false)
	b.kv(m, path+".id", "id", str(p.ID))
	b.kv(m, path+".name", "name", str(p.Name))
	b.kv(m, path+".container", "container", str(p.Container))
	b.kv(m, path+".op", "op", str(p.Op))
	if p.Sample != "" {
		b.kv(m, path+".sample", "sample", str(p.Sample))
	}
	if p.Document != "" {
		b.kv(m, path+".document", "document", str(p.Document))
	}
	if p.Consistency != "" {
		b.kv(m, path+".consistency", "consistency", str(p.Consistency))
	}
	if p.Query != "" {
		q := str(p.Query)
		q.Style = yaml.DoubleQuotedStyle
		if strings.Contains(p.Query, "\n") {
			q.Style = yaml.LiteralStyle
		}
		b.kv(m, path+".query", "query", q)
	}
	if len(p.Params) > 0 {
		pm := mapping(true)
		for _, k := range sortedKeys(p.Params) {
			b.kv(pm, "", k, valueNode(p.Params[k]))
		}
		b.kv(m, path+".params", "params", pm)
	}
	if len(p.PartitionKey) > 0 {
		s := seq(true)
		for _, k := range p.PartitionKey {
			s.Content = append(s.Content, quoted(k))
		}
		b.kv(m, path+".partitionKey", "partitionKey", s)
	}
	if len(p.Patch) > 0 {
		s := seq(false)
		for _, op := range p.Patch {
			s.Content = append(s.Content, patchNode(b, op))
		}
		b.kv(m, path+".patch", "patch", s)
	}
	if len(p.Batch) > 0 {
		s := seq(false)
		for _, op := range p.Batch {
			om := mapping(true)
			b.kv(om, "", "op", str(op.Op))
			if op.Document != "" {
				b.kv(om, "", "document", str(op.Document))
			}
			if op.ItemID != "" {
				b.kv(om, "", "itemId", quoted(op.ItemID))
			}
			if len(op.Patch) > 0 {
				ps := seq(true)
				for _, po := range op.Patch {
					ps.Content = append(ps.Content, patchNode(b, po))
				}
				b.kv(om, "", "patch", ps)
			}
			if op.Repeat > 1 {
				b.kv(om, "", "repeat", intNode(op.Repeat))
			}
			s.Content = append(s.Content, om)
		}
		b.kv(m, path+".batch", "batch", s)
	}
	rps := mapping(true)
	b.kv(rps, "", "avg", floatNode(p.RPS.Avg))
	if p.RPS.Peak > p.RPS.Avg {
		b.kv(rps, "", "peak", floatNode(p.RPS.Peak))
	}
	b.kv(m, path+".rps", "rps", rps)
	est := mapping(true)
	b.kv(est, "", "ru", floatNode(p.Estimate.RU))
	if p.Estimate.Measured > 0 {
		b.kv(est, "", "measured", floatNode(p.Estimate.Measured))
	}
	b.kv(m, path+".estimate", "estimate", est)
	return m
}

func patchNode(b *builder, op design.PatchOp) *yaml.Node {
	m := mapping(true)
	b.kv(m, "", "op", str(op.Op))
	b.kv(m, "", "path", str(op.Path))
	if op.Value != nil {
		b.kv(m, "", "value", valueNode(op.Value))
	}
	return m
}

func mapping(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func seq(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// quoted is a string that is always double-quoted: index paths ("/a/?" cannot stand unquoted in a flow
// list) and templates ("{seq}" would read as a mapping).
func quoted(s string) *yaml.Node {
	n := str(s)
	n.Style = yaml.DoubleQuotedStyle
	return n
}

func intNode(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

func floatNode(f float64) *yaml.Node {
	if f == float64(int64(f)) && f < 1e15 && f > -1e15 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(int64(f), 10)}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(f, 'f', -1, 64)}
}

func boolNode(v bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
}

// valueNode writes a literal value (a const, a oneOf value, a parameter): scalars, lists and mappings.
func valueNode(v any) *yaml.Node {
	switch t := v.(type) {
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case string:
		n := str(t)
		if strings.ContainsAny(t, "{}") {
			n.Style = yaml.DoubleQuotedStyle
		}
		return n
	case bool:
		return boolNode(t)
	case int:
		return intNode(t)
	case float64:
		return floatNode(t)
	case number:
		return floatNode(t.f)
	case []any:
		s := seq(true)
		for _, x := range t {
			s.Content = append(s.Content, valueNode(x))
		}
		return s
	case *list:
		return valueNode(t.items)
	case *object:
		m := mapping(true)
		for _, k := range t.keys {
			m.Content = append(m.Content, str(k), valueNode(t.m[k]))
		}
		return m
	}
	return str(fmt.Sprint(v))
}
