// Package layers_test checks the import graph against docs/architecture.md: the pipeline's stages run
// design → target → provision → seed → probe → report, and no stage may import (directly or through
// another package) a later one, nor the packages that drive the stages.
package layers_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/cosmosdv/validate/"

// stages in pipeline order.
var stages = []string{"internal/design", "internal/target", "internal/provision", "internal/seed", "internal/probe", "internal/report"}

// roles of the other packages; every package of the module must have one, so that a new package
// makes someone decide where it sits (and say so in docs/architecture.md).
var roles = map[string]string{
	// base vocabulary: any stage may import them; they import nothing of this module.
	"internal/record": "base",
	"internal/sdk":    "base",
	// The service's order of JSON values, shared by the engine's evaluator and the pipeline below.
	"internal/jsonorder": "base",
	// The query plan's wire format, written by the engine and read by the pipeline below.
	"internal/queryplan": "base",
	// One rule for writing a user's output file: never through a link, never over a file unasked.
	"internal/outfile": "base",
	// SARIF 2.1.0 logs of findings (lint, run) and the waivers file findings are judged against.
	"internal/sarif":  "base",
	"internal/waiver": "base",
	// The cross-partition query pipeline is part of stage 5 (probe) and, like the base, imports
	// only base vocabulary (jsonorder).
	"internal/probe/fanout": "base",
	// the RU model and the embedded engine: below every stage, they import no stage.
	"internal/cost":              "engine",
	"internal/engine":            "engine",
	"internal/engine/index":      "engine",
	"internal/engine/jsondoc":    "engine",
	"internal/engine/sql":        "engine",
	"internal/engine/enginetest": "engine",
	// readers of the design with the engine: the design's indexing policy as the engine compiles it,
	// and a query read with the engine's parser and planner. Stages (provision, probe, report) and
	// tools (lint, plan) share them; they import only the design and the engine.
	"internal/indexpolicy": "reader",
	"internal/querycheck":  "reader",
	// tools beside the pipeline: static analysis of a design.
	"internal/plan": "tool",
	"internal/lint": "tool",
	// advise searches variant designs priced by plan (validate advise).
	"internal/advise": "tool",
	// calibrate measures an account beside the embedded engine and fits the rate card.
	"internal/calibrate": "tool",
	// import drafts a design from markdown; it reads only the design format.
	"internal/importer": "tool",
	// drivers: pipeline runs the stages, cmd/validate maps flags to it.
	"internal/pipeline": "driver",
	"cmd/validate":      "driver",
	// The MCP server is a front door like the CLI: it drives the pipeline for a coding agent.
	"internal/mcpserver": "driver",
	// validate studio is a front door too: it drives plan, lint, advise and runs for a browser.
	"internal/studio": "driver",
	// serve --replay drives the pipeline's stages (pipeline.Run, probe.Executor) at a traffic shape's rates.
	"internal/replay": "driver",
	// helpers of single packages and generators.
	"internal/design/schemagen":  "helper",
	"internal/target/targettest": "helper",
	"internal/target/procwalk":   "helper",
	"internal/testenv":           "helper",
	"scripts/skipcheck":          "helper",
	"scripts/mutate":             "helper",
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func list(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p.ImportPath, module)
		p.Imports, p.Deps = local(p.Imports), local(p.Deps)
		pkgs[name] = p
	}
	if len(pkgs) < len(stages) {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}

// local keeps the module's own packages, without the module prefix.
func local(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, module); ok {
			out = append(out, rest)
		}
	}
	return out
}

func role(name string) string {
	if slices.Contains(stages, name) {
		return "stage"
	}
	return roles[name]
}

func TestEveryPackageHasARole(t *testing.T) {
	for name := range list(t) {
		if name == "internal/layers" {
			continue
		}
		if role(name) == "" {
			t.Errorf("%s: no role; add it to roles here and to the table in docs/architecture.md", name)
		}
	}
}

// TestStagesImportOnlyEarlierStages: go list -deps (the transitive imports, tests excluded) of a
// stage holds no later stage, no tool and no driver.
func TestStagesImportOnlyEarlierStages(t *testing.T) {
	pkgs := list(t)
	for i, s := range stages {
		for _, dep := range pkgs[s].Deps {
			if j := slices.Index(stages, dep); j > i {
				t.Errorf("%s imports %s, a later stage (design → target → provision → seed → probe → report)", s, dep)
			}
			if r := role(dep); r == "tool" || r == "driver" {
				t.Errorf("%s imports %s (%s): stages are driven, they do not drive", s, dep, r)
			}
		}
	}
}

func TestLowerLayers(t *testing.T) {
	for name, p := range list(t) {
		switch role(name) {
		case "base":
			for _, dep := range p.Deps {
				if role(dep) != "base" {
					t.Errorf("%s is base vocabulary and imports %s (%s); it may import only other base vocabulary", name, dep, role(dep))
				}
			}
		case "engine":
			for _, dep := range p.Deps {
				if r := role(dep); r != "engine" && r != "base" {
					t.Errorf("%s imports %s (%s); the engine and the cost model stand below every stage", name, dep, role(dep))
				}
			}
		case "reader":
			for _, dep := range p.Deps {
				if r := role(dep); dep != "internal/design" && r != "engine" && r != "reader" && r != "base" {
					t.Errorf("%s reads the design with the engine and imports %s (%s); it may import only internal/design, the engine and the base", name, dep, r)
				}
			}
		case "tool":
			for _, dep := range p.Deps {
				if role(dep) == "driver" {
					t.Errorf("%s imports %s, a driver", name, dep)
				}
			}
		}
		for _, dep := range p.Deps {
			if dep == "cmd/validate" || (dep == "internal/pipeline" && role(name) != "driver") {
				t.Errorf("%s imports %s; only the front doors (cmd/validate, internal/mcpserver, internal/studio) drive the pipeline", name, dep)
			}
		}
	}
}
