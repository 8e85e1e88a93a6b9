package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/pipeline"
	"go.yaml.in/yaml/v3"
)

// workflow is the part of a GitHub Actions workflow file the test reads.
type workflow struct {
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			If   string            `yaml:"if"`
			Env  map[string]string `yaml:"env"`
			With map[string]any    `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestWorkflows_MatchTheCLI holds docs/workflows/*.yml to what the CLI accepts: every
// ./bin/validate command parses with the command's real flags and passes its option checks, its
// designs load and have baselines where the job compares with committed ones, the exit codes the
// script tells apart are the CLI's (and the job fails with the CLI's code), and the job summary and
// artifacts name the files the CLI writes. nightly.yml itself runs on the embedded engine on a
// schedule and on pull requests touching designs/, with no secret; the account variant logs in with
// OIDC.
func TestWorkflows_MatchTheCLI(t *testing.T) {
	files, err := filepath.Glob(repo("docs", "workflows", "*.yml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("workflows: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var wf workflow
			if err := yaml.Unmarshal(raw, &wf); err != nil {
				t.Fatalf("not YAML: %v", err)
			}
			if strings.Contains(string(raw), "secrets.") {
				t.Error("the workflow reads a secret: the embedded job needs none and the account job logs in with OIDC")
			}
			commands := 0
			for name, job := range wf.Jobs {
				var out string
				var summary, uploads bool
				for _, st := range job.Steps {
					for _, args := range validateCommands(t, st.Run, st.Env) {
						if checkBaselineCheck(t, name, args, st.Run) {
							continue
						}
						commands++
						// A script that writes missing baselines on its first run needs none committed.
						out = checkCommand(t, name, args, strings.Contains(st.Run, "--update-baseline"))
						checkExitCodes(t, name, st.Run)
					}
					if strings.Contains(st.Run, "GITHUB_STEP_SUMMARY") {
						summary = true
						if st.If != "always()" || !strings.Contains(st.Run, out+"/*.md") {
							t.Errorf("job %s: the summary step must run always and append %s/*.md (the Markdown reports): %q", name, out, st.Run)
						}
					}
					if strings.HasPrefix(st.Uses, "actions/upload-artifact@") {
						uploads = true
						path, _ := st.With["path"].(string)
						for _, ext := range []string{"html", "xml"} { // report.Formats: html → .html, junit → .xml
							if !strings.Contains(path, out+"/*."+ext) {
								t.Errorf("job %s: the artifact lacks %s/*.%s: %q", name, out, ext, path)
							}
						}
						if st.If != "always()" {
							t.Errorf("job %s: upload the reports always, a failing run above all", name)
						}
					}
				}
				if !summary || !uploads {
					t.Errorf("job %s: want a job summary step and an artifact upload", name)
				}
			}
			if commands == 0 {
				t.Fatal("no ./bin/validate command found")
			}
			switch filepath.Base(f) {
			case "nightly.yml":
				pr, _ := wf.On["pull_request"].(map[string]any)
				paths, _ := pr["paths"].([]any)
				if wf.On["schedule"] == nil || !slices.Contains(paths, any("designs/**")) {
					t.Errorf("nightly.yml must run on a schedule and on pull requests touching designs/: %v", wf.On)
				}
				if _, ok := wf.Permissions["id-token"]; ok || !strings.Contains(string(raw), "--target embedded") {
					t.Error("nightly.yml runs on the embedded engine and needs no identity")
				}
			case "nightly-account.yml":
				if wf.Permissions["id-token"] != "write" || !strings.Contains(string(raw), "azure/login@") || !strings.Contains(string(raw), "client-id:") {
					t.Error("the account variant logs in with OIDC federated credentials (azure/login, id-token: write)")
				}
			}
		})
	}
}

// validateCommands returns the ./bin/validate command lines of a step's script as arguments, with
// line continuations joined and shell variables resolved from the script's assignments and the
// step's env (an expression there stands for an https URL).
func validateCommands(t *testing.T, script string, env map[string]string) [][]string {
	return programCommands(t, "./bin/validate", script, env)
}

// programCommands is validateCommands for the command lines that start with prog. A step's env
// value is taken as it is, unless it is a ${{ }} expression, which stands for an https URL.
func programCommands(t *testing.T, prog, script string, env map[string]string) [][]string {
	t.Helper()
	script = strings.ReplaceAll(script, "\\\n", " ")
	vars := map[string][]string{}
	for k, v := range env {
		if strings.Contains(v, "${{") {
			v = "https://example.documents.azure.com:443/"
		}
		vars[k] = []string{v}
	}
	// NAME="value" at the start of a line or after ||, && or ;.
	assign := regexp.MustCompile(`(?m)(?:^|\|\||&&|;)\s*([A-Za-z_][A-Za-z0-9_]*)="([^"]*)"`)
	for _, m := range assign.FindAllStringSubmatch(script, -1) {
		vars[m[1]] = append(vars[m[1]], m[2])
	}
	var out [][]string
	for _, line := range strings.Split(script, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != prog {
			continue
		}
		// Each value a variable takes gives one command to check.
		variants := [][]string{nil}
		for _, tok := range fields[1:] {
			tok = strings.Trim(tok, `"`)
			vals := []string{tok}
			if strings.HasPrefix(tok, "$") {
				vals = vars[strings.TrimPrefix(tok, "$")]
				if len(vals) == 0 {
					t.Errorf("%s: unknown variable in %q", tok, line)
				}
			}
			var next [][]string
			for _, v := range variants {
				for _, val := range vals {
					a := slices.Clone(v)
					if val != "" {
						a = append(a, val)
					}
					next = append(next, a)
				}
			}
			variants = next
		}
		out = append(out, variants...)
	}
	return out
}

// checkCommand parses args with the CLI's own command tree and option checks, loads the designs it
// names and, where it compares with committed baselines, checks each has one. It returns --out.
func checkCommand(t *testing.T, job string, args []string, writesFirst bool) (out string) {
	t.Helper()
	a := &app{stdout: io.Discard, stderr: io.Discard}
	root := a.rootCmd()
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Name() != "run" {
		t.Fatalf("job %s: %v: want a run command (%v)", job, args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("job %s: %v: %v", job, args, err)
	}
	v, err := a.viper(cmd)
	if err != nil {
		t.Fatal(err)
	}
	o, err := runConfig(v, io.Discard)
	if err != nil {
		t.Fatalf("job %s: %v: the CLI refuses it: %v", job, args, err)
	}
	var designs []string
	for _, p := range cmd.Flags().Args() {
		m, err := filepath.Glob(repo(p))
		if err != nil || len(m) == 0 {
			t.Fatalf("job %s: %s matches no file", job, p)
		}
		designs = append(designs, m...)
	}
	ds, errs := design.LoadAll(designs)
	if len(errs) > 0 {
		t.Fatalf("job %s: designs: %v", job, errs)
	}
	if o.Out == "" || !slices.Contains(o.Formats, "md") || !slices.Contains(o.Formats, "junit") || !slices.Contains(o.Formats, "html") {
		t.Errorf("job %s: want --out with md, junit and html: %v", job, args)
	}
	if o.Baseline == "" {
		t.Errorf("job %s: a nightly job compares with a baseline: %v", job, args)
	}
	if o.Baseline != "" && !writesFirst {
		// Compared with committed baselines: each design must have one, or the job exits 2.
		if !strings.HasSuffix(o.Baseline, "/") {
			t.Errorf("job %s: with several designs --baseline is a directory ending in /", job)
		}
		for _, d := range ds {
			f := pipeline.BaselineFile(repo(o.Baseline)+string(os.PathSeparator), d)
			if _, err := os.Stat(f); err != nil {
				t.Errorf("job %s: design %s has no committed baseline %s", job, d.Name, f)
			}
		}
	}
	return o.Out
}

// checkBaselineCheck reports whether args is a `baseline check` command and, if so, holds it to the
// CLI: its flags parse, it names a baselines folder whose designs each have a committed baseline,
// and its script keeps the exit code, names the out-of-date outcome and ends with the code.
func checkBaselineCheck(t *testing.T, job string, args []string, script string) bool {
	t.Helper()
	if len(args) < 2 || args[0] != "baseline" || args[1] != "check" {
		return false
	}
	a := &app{stdout: io.Discard, stderr: io.Discard}
	cmd, rest, err := a.rootCmd().Find(args)
	if err != nil || cmd.Name() != "check" {
		t.Fatalf("job %s: %v: want baseline check (%v)", job, args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("job %s: %v: %v", job, args, err)
	}
	dir, _ := cmd.Flags().GetString("baseline")
	if !strings.HasSuffix(dir, "/") {
		t.Errorf("job %s: baseline check --baseline wants the folder, ending in /: %v", job, args)
	}
	for _, p := range cmd.Flags().Args() {
		m, _ := filepath.Glob(repo(p))
		ds, errs := design.LoadAll(m)
		if len(m) == 0 || len(errs) > 0 {
			t.Fatalf("job %s: %s: %v", job, p, errs)
		}
		for _, d := range ds {
			if _, err := os.Stat(pipeline.BaselineFile(repo(dir)+string(os.PathSeparator), d)); err != nil {
				t.Errorf("job %s: design %s has no committed baseline in %s", job, d.Name, dir)
			}
		}
	}
	if !strings.Contains(script, "code=$?") || !strings.HasSuffix(strings.TrimSpace(script), "exit $code") ||
		!regexp.MustCompile(`(?m)^\s*1\)\s*.*Out-of-date baseline`).MatchString(script) {
		t.Errorf("job %s: the baseline check step must keep its exit code, name exit 1 an out-of-date baseline and end with the code", job)
	}
	return true
}

// checkExitCodes holds a script's case over the run's exit code to the CLI's codes, and its end to
// exiting with that code, so that a regression (exit 1) fails the job.
func checkExitCodes(t *testing.T, job, script string) {
	t.Helper()
	arms := regexp.MustCompile(`(?m)^\s*(\d+)\)\s*(.*)$`).FindAllStringSubmatch(script, -1)
	got := map[int]string{}
	for _, m := range arms {
		n, _ := strconv.Atoi(m[1])
		got[n] = m[2]
	}
	want := map[int]string{ExitOK: "", ExitFindings: "Regression", ExitUsage: "Usage", ExitInfra: "Infrastructure"}
	if len(got) != len(want) {
		t.Errorf("job %s: the script tells apart exit codes %v, want the CLI's %v", job, keys(got), keys(want))
	}
	for code, word := range want {
		if msg, ok := got[code]; !ok || !strings.Contains(msg, word) {
			t.Errorf("job %s: exit %d: %q, want it named %q", job, code, msg, word)
		}
	}
	if !regexp.MustCompile(`code=\$\?`).MatchString(script) || !strings.HasSuffix(strings.TrimSpace(script), "exit $code") {
		t.Errorf("job %s: the step must keep the CLI's exit code and end with it", job)
	}
}

func keys(m map[int]string) string {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return fmt.Sprint(ks)
}

// TestAction_MatchesTheCLI holds the composite action another repository calls
// (docs/workflows/action/action.yml) to the CLI, with its inputs at their defaults: it installs this
// module's cmd/validate with go install (no checkout of this repository, no make), its validate run
// parses with the real flags and checks, loads the designs and finds their baselines, keeps and ends
// with the CLI's exit code (and gives it as the output exit-code), and writes the summary and uploads
// the reports the run writes.
func TestAction_MatchesTheCLI(t *testing.T) {
	raw, err := os.ReadFile(repo("docs", "workflows", "action", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]struct {
			Value string `yaml:"value"`
		} `yaml:"outputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				If   string            `yaml:"if"`
				Env  map[string]string `yaml:"env"`
				With map[string]any    `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &action); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	// The inputs at their defaults, as a caller that gives none gets them.
	text := regexp.MustCompile(`\$\{\{\s*inputs\.([a-z-]+)\s*\}\}`).ReplaceAllStringFunc(string(raw), func(m string) string {
		name := regexp.MustCompile(`inputs\.([a-z-]+)`).FindStringSubmatch(m)[1]
		in, ok := action.Inputs[name]
		if !ok {
			t.Errorf("%s: no such input", m)
		}
		return in.Default
	})
	if err := yaml.Unmarshal([]byte(text), &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", action.Runs.Using)
	}
	if strings.Contains(text, "secrets.") || strings.Contains(text, "make ") {
		t.Error("the action needs no secret and no make: it installs the binary and calls it")
	}
	mod, err := os.ReadFile(repo("go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := strings.Fields(strings.SplitN(string(mod), "\n", 2)[0])[1]
	var installs, commands, checks int
	var out string
	var summary, uploads bool
	for _, st := range action.Runs.Steps {
		if strings.Contains(st.Run, "go install \""+module+"/cmd/validate@") {
			installs++
		}
		for _, args := range programCommands(t, "validate", st.Run, st.Env) {
			if len(args) == 1 && args[0] == "version" {
				continue // the install step prints what it installed
			}
			if checkBaselineCheck(t, "action", args, st.Run) {
				checks++
				continue
			}
			commands++
			out = checkCommand(t, "action", args, false)
			checkExitCodes(t, "action", st.Run)
			if st.ID == "" || !strings.Contains(st.Run, `echo "exit-code=$code" >> "$GITHUB_OUTPUT"`) ||
				action.Outputs["exit-code"].Value != "${{ steps."+st.ID+".outputs.exit-code }}" {
				t.Errorf("the run step gives its exit code as the action's output exit-code")
			}
		}
		script := st.Run
		for k, v := range st.Env {
			script = strings.ReplaceAll(script, "$"+k, v)
		}
		if strings.Contains(script, "GITHUB_STEP_SUMMARY") {
			summary = true
			if st.If != "always()" || out == "" || !strings.Contains(script, out+"/*.md") {
				t.Errorf("the summary step must run always and append %s/*.md: %q", out, script)
			}
		}
		if strings.HasPrefix(st.Uses, "actions/upload-artifact@") {
			uploads = true
			path, _ := st.With["path"].(string)
			for _, ext := range []string{"html", "xml", "json"} {
				if !strings.Contains(path, out+"/*."+ext) {
					t.Errorf("the artifact lacks %s/*.%s: %q", out, ext, path)
				}
			}
			if st.If != "always()" {
				t.Error("upload the reports always, a failing run above all")
			}
		}
	}
	if checks != 1 {
		t.Errorf("want one validate baseline check (got %d)", checks)
	}
	if installs != 1 || commands != 1 || !summary || !uploads {
		t.Errorf("want one go install of %s/cmd/validate (got %d), one validate run (got %d), a summary and an upload (%v, %v)",
			module, installs, commands, summary, uploads)
	}
}
