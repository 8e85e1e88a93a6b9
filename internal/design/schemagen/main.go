// Command schemagen writes the JSON Schema (draft 2020-12) of the design-file format. It reflects
// over the Go types of package design, so the schema cannot drift from the parser: a YAML key
// without ",omitempty" is required, every struct is closed (additionalProperties: false), and
// descriptions come from the types' doc comments.
//
// Usage (from internal/design): go generate, or
//
//	go run ./schemagen -src . -o ../../schema/design.schema.json
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
)

func main() {
	src := flag.String("src", ".", "directory of package design (for doc comments)")
	out := flag.String("o", "", "output file (default: standard output)")
	flag.Parse()
	b, err := Generate(*src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
	if *out == "" {
		os.Stdout.Write(b)
		return
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

// enums lists the allowed values of string keys, by "GoType.yamlKey".
var enums = map[string][]string{
	"Design.consistency":        design.ConsistencyLevels,
	"App.sdk":                   design.SDKs,
	"AccessPattern.consistency": design.ConsistencyLevels,
	"AccessPattern.prefixIn":    design.PrefixForms,
	"AccessPattern.op":          design.Ops,
	"Indexing.mode":             design.IndexingModes,
	"CompositePath.order":       design.SortOrders,
	"Per.dist":                  design.Dists,
	"Field.dist":                design.Dists,
	"Field.gen":                 design.Generators,
	"PatchOp.op":                design.PatchOps,
	"BatchOp.op":                design.BatchOps,
	"Traffic.autoscale":         design.AutoscaleScalings,
	"Traffic.shape":             shapes(),
	"RPS.shape":                 shapes(),
	"RPS.priority":              design.Priorities,
}

// shapes lists the named traffic shapes in order.
func shapes() []string {
	out := make([]string, 0, len(design.NamedShapes))
	for k := range design.NamedShapes {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// extra holds constraints and descriptions the types cannot express, by "GoType.yamlKey".
var extra = map[string]map[string]any{
	"Design.version":              {"const": design.CurrentVersion, "description": "Format version of the design file."},
	"Design.name":                 {"description": "Name of the design; also the default database name."},
	"App.sdk":                     {"description": "The SDK the application uses. Absent: judged as an SDK with a query engine (dotnet, java, python, javascript); go: cross-partition ORDER BY, TOP, OFFSET/LIMIT, aggregates, DISTINCT and GROUP BY are findings."},
	"Container.name":              {"description": "Container name."},
	"Container.partitionKey":      {"minItems": 1, "maxItems": design.MaxKeyLevels, "items": map[string]any{"type": "string", "pattern": "^/"}},
	"Throughput.manual":           {"minimum": 400, "multipleOf": 100, "description": "Manual throughput in RU/s."},
	"Throughput.autoscaleMax":     {"minimum": 1000, "multipleOf": 1000, "description": "Autoscale maximum in RU/s."},
	"Throughput.serverless":       {"description": "Serverless account: no provisioned throughput."},
	"Indexing.included":           {"description": "Included paths: \"/*\", \"/a/?\" or \"/a/*\"."},
	"Indexing.excluded":           {"description": "Excluded paths: \"/*\", \"/a/?\" or \"/a/*\"."},
	"Indexing.composite":          {"description": "Composite indexes, each a list of at least two paths with an order."},
	"Band.pct":                    {"minimum": 0, "description": "Tolerance as a percentage of the estimate."},
	"Band.ru":                     {"minimum": 0, "description": "Tolerance in RU."},
	"AccessPattern.id":            {"description": "Pattern id, e.g. AP1."},
	"AccessPattern.name":          {"description": "What the application does."},
	"AccessPattern.container":     {"description": "Container the pattern runs against."},
	"AccessPattern.samples":       {"minimum": 1, "maximum": design.MaxSamples},
	"AccessPattern.patch":         {"maxItems": design.MaxPatchOps},
	"AccessPattern.batch":         {"maxItems": design.MaxBatchOps},
	"RPS.avg":                     {"minimum": 0, "description": "Average requests per second."},
	"RPS.peak":                    {"minimum": 0, "description": "Peak requests per second (default: avg)."},
	"Estimate.ru":                 {"exclusiveMinimum": 0, "description": "Promised request charge per execution, in RU."},
	"Field.weights":               {"description": "Relative weights of the oneOf values, one per value."},
	"Field.of":                    {"description": "Generator of each array element."},
	"Field.min":                   {"description": "Smallest value (int, decimal, money)."},
	"Field.max":                   {"description": "Largest value (int, decimal, money)."},
	"Field.decimals":              {"description": "Digits after the decimal point (decimal, money)."},
	"Field.from":                  {"description": "Earliest time (isoTime, epoch): 2024-01-31 or RFC 3339."},
	"Field.to":                    {"description": "Latest time (isoTime, epoch): 2024-01-31 or RFC 3339."},
	"Field.bytes":                 {"description": "Length of generated text (text)."},
	"Field.prefix":                {"description": "Prefix of generated values (code, sku, uuid, word)."},
	"Field.unique":                {"description": "Every document gets a distinct value."},
	"Field.optional":              {"minimum": 0, "exclusiveMaximum": 1},
	"ArraySpec.max":               {"maximum": design.MaxArrayLen},
	"DocType.count":               {"maximum": design.MaxSeedDocuments},
	"Traffic.hourly":              {"minItems": 24, "maxItems": 24, "items": map[string]any{"type": "number", "minimum": 0}},
	"RPS.hourly":                  {"minItems": 24, "maxItems": 24, "items": map[string]any{"type": "number", "minimum": 0}, "description": "24 factors of rps.avg, one per hour from 00:00, averaging 1; overrides the design's traffic shape for this pattern."},
	"Traffic.intraHourPeak":       {"minimum": 1},
	"TrafficEvent.day":            {"minimum": 1, "maximum": 31},
	"TrafficEvent.hour":           {"minimum": 0, "maximum": 23},
	"TrafficEvent.hours":          {"minimum": 1},
	"TrafficEvent.factor":         {"exclusiveMinimum": 0},
	"RPS.bucket":                  {"minimum": 1, "maximum": 5},
	"ThroughputBucket.id":         {"minimum": 1, "maximum": 5},
	"ThroughputBucket.maxPercent": {"minimum": 1, "maximum": 100},
	"Container.throughputBuckets": {"maxItems": 5},
	"DocType.targetBytes":         {"maximum": design.MaxDocumentBytes},
}

type generator struct {
	docs map[string]string // "Type" and "Type.GoField" → doc comment
	defs map[string]any
}

// Generate returns the schema as indented JSON. srcDir holds the package's Go sources.
func Generate(srcDir string) ([]byte, error) {
	docs, err := readDocs(srcDir)
	if err != nil {
		return nil, err
	}
	g := &generator{docs: docs, defs: map[string]any{}}
	root := g.structSchema(reflect.TypeOf(design.Design{}))
	schema := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://github.com/cosmosdv/validate/schema/design.schema.json",
		"title":       "Cosmos DB design file",
		"description": "A Cosmos DB NoSQL data model with access patterns and RU estimates, read by the validate tool. Generated by internal/design/schemagen; do not edit.",
		"$defs":       g.defs,
	}
	for k, v := range root {
		if k != "description" {
			schema[k] = v
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(schema); err != nil {
		return nil, fmt.Errorf("encode schema: %w", err)
	}
	return buf.Bytes(), nil
}

// readDocs collects doc comments of the package's types and struct fields.
func readDocs(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	docs := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", f, err)
		}
		for _, decl := range af.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				docs[ts.Name.Name] = clean(doc.Text())
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fld := range st.Fields.List {
					text := fld.Doc.Text()
					if text == "" {
						text = fld.Comment.Text()
					}
					for _, n := range fld.Names {
						docs[ts.Name.Name+"."+n.Name] = clean(text)
					}
				}
			}
		}
	}
	return docs, nil
}

func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

func (g *generator) ref(t reflect.Type) map[string]any {
	name := t.Name()
	if _, ok := g.defs[name]; !ok {
		g.defs[name] = nil // reserve: types may refer to themselves
		g.defs[name] = g.structSchema(t)
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

func (g *generator) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "" || tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
		s := g.typeSchema(f.Type)
		key := t.Name() + "." + name
		if vals, ok := enums[key]; ok {
			s["enum"] = vals
		}
		for k, v := range extra[key] {
			s[k] = v
		}
		if doc := g.docs[t.Name()+"."+f.Name]; doc != "" {
			// Doc comments start with the Go name; the file says the YAML key.
			if rest, ok := strings.CutPrefix(doc, f.Name+" "); ok {
				doc = name + " " + rest
			}
			s["description"] = doc
		}
		props[name] = s
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	if doc := g.docs[t.Name()]; doc != "" {
		s["description"] = doc
	}
	return s
}

var fieldsType = reflect.TypeOf(design.Fields(nil))

func (g *generator) typeSchema(t reflect.Type) map[string]any {
	if t == fieldsType {
		return map[string]any{
			"type":                 "object",
			"description":          "Field names mapped to their generators, in document order.",
			"additionalProperties": g.ref(reflect.TypeOf(design.Field{})),
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.typeSchema(t.Elem())
	case reflect.Struct:
		return g.ref(t)
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.typeSchema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.typeSchema(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Int:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	}
	panic(fmt.Sprintf("schemagen: no schema for %s", t)) // a new kind in types.go: extend typeSchema
}
