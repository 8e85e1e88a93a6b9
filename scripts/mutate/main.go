// Command mutate is the source mutation check of the cost model and the verdict thresholds
// (`make mutate`, issue 44): in a scratch copy of the tracked files it scales one number at a
// time — every `Value:` of the rate card, every published size table as a whole, every threshold
// listed in sites.txt — by ×1.5 and by ×0.6, runs the test suite as it is (package by package,
// cheapest first, stopping at the first failure), and reports each mutant as killed (with the
// package that noticed) or survived. It exits 1 when any mutant survives: a coefficient or a
// threshold no test holds. A label ("assumed", "unvalidated") never excuses a survivor.
//
// The whole check runs the suite up to twice per site (about a hundred sites); on a 2-core machine
// that is hours for the survivors alone, so it belongs to the nightly job, not `make test`.
// -only narrows the sites by a regular expression over their names; -pkgs narrows the packages.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// site is one number in one file that the check mutates.
type site struct {
	name string
	file string
	// start, end: the byte range of the number (or, for a table, of the table's body) in the file.
	start, end int
	table      bool
	// float: the number is a float64 (a rate card's Value), scaled as it is; otherwise an integer
	// literal may be an int and stays one.
	float bool
}

// first are the packages run first: those that notice a changed figure soonest.
var first = []string{"./internal/cost", "./internal/plan", "./internal/engine/sql", "./internal/lint",
	"./internal/advise", "./internal/report", "./internal/engine", "./internal/pipeline"}

func main() {
	only := flag.String("only", "", "mutate only the sites whose name matches this regular expression")
	pkgs := flag.String("pkgs", "./...", "packages the suite runs (go list patterns, space separated)")
	factors := flag.String("factors", "1.5,0.6", "the factors each site is scaled by")
	list := flag.Bool("list", false, "list the sites and exit")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *only, *pkgs, *factors, *list); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, only, pkgPatterns, factorList string, listOnly bool) error {
	sites, err := findSites()
	if err != nil {
		return err
	}
	if only != "" {
		re, err := regexp.Compile(only)
		if err != nil {
			return fmt.Errorf("-only: %w", err)
		}
		var keep []site
		for _, s := range sites {
			if re.MatchString(s.name) {
				keep = append(keep, s)
			}
		}
		sites = keep
	}
	if listOnly {
		for _, s := range sites {
			fmt.Println(s.name)
		}
		return nil
	}
	var fs []float64
	for _, f := range strings.Split(factorList, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 || v == 1 {
			return fmt.Errorf("-factors: %q is not a factor other than 1", f)
		}
		fs = append(fs, v)
	}
	scratch, err := copyTracked()
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	pkgs, err := packages(scratch, pkgPatterns)
	if err != nil {
		return err
	}
	fmt.Printf("%d sites × %d factors, %d packages, scratch copy %s\n", len(sites), len(fs), len(pkgs), scratch)
	// The control run: the suite must pass on the unmutated copy, under the same settings, or every
	// kill below would be the suite's own failure, not the mutant's.
	began := time.Now()
	if failed, err := suite(ctx, scratch, pkgs); err != nil || ctx.Err() != nil {
		return errors.Join(err, ctx.Err())
	} else if failed != "" {
		return fmt.Errorf("the suite fails without any mutation (%s): fix it first, or no kill means anything", failed)
	}
	fmt.Printf("control: the unmutated suite passes (%s)\n", time.Since(began).Round(time.Second))
	survivors := 0
	for _, s := range sites {
		orig, err := os.ReadFile(filepath.Join(scratch, s.file))
		if err != nil {
			return err
		}
		for _, f := range fs {
			mutated, what, ok := mutate(orig, s, f)
			if !ok {
				fmt.Printf("%-60s ×%-4g not mutable by scaling (%s)\n", s.name, f, what)
				continue
			}
			if err := os.WriteFile(filepath.Join(scratch, s.file), mutated, 0o644); err != nil {
				return err
			}
			began := time.Now()
			killer, err := suite(ctx, scratch, pkgs)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				return err
			}
			verdict := "killed by " + killer
			if killer == "" {
				verdict = "SURVIVED"
				survivors++
			}
			fmt.Printf("%-60s ×%-4g %-24s %s (%s)\n", s.name, f, what, verdict, time.Since(began).Round(time.Second))
		}
		if err := os.WriteFile(filepath.Join(scratch, s.file), orig, 0o644); err != nil {
			return err
		}
	}
	if survivors > 0 {
		fmt.Printf("%d mutants survived: each is a coefficient or threshold no test holds\n", survivors)
		os.Exit(1)
	}
	fmt.Println("no mutant survived")
	return nil
}

// findSites finds the rate card's values and tables and the sites of sites.txt.
func findSites() ([]site, error) {
	const card = "internal/cost/ratecard.go"
	src, err := os.ReadFile(card)
	if err != nil {
		return nil, err
	}
	var sites []site
	body := string(src)
	from := strings.Index(body, "var Current = &RateCard{")
	if from < 0 {
		return nil, fmt.Errorf("%s: the built-in rate card (var Current) is not found", card)
	}
	field := regexp.MustCompile(`(?m)^\t(\w+): (?:Coefficient\{|SizeTable\{)`)
	value := regexp.MustCompile(`Value:\s*([0-9][0-9.]*)`)
	points := regexp.MustCompile(`Points: \[\]SizePoint\{([^}]*(?:\}[^}]*)*?)\n\t\t\},`)
	locs := field.FindAllStringSubmatchIndex(body[from:], -1)
	for i, l := range locs {
		name := body[from+l[2] : from+l[3]]
		start := from + l[0]
		end := len(body)
		if i+1 < len(locs) {
			end = from + locs[i+1][0]
		}
		chunk := body[start:end]
		if m := points.FindStringSubmatchIndex(chunk); m != nil {
			sites = append(sites, site{name: "ratecard." + name + " (table)", file: card, start: start + m[2], end: start + m[3], table: true})
			continue
		}
		if m := value.FindStringSubmatchIndex(chunk); m != nil {
			sites = append(sites, site{name: "ratecard." + name, file: card, start: start + m[2], end: start + m[3], float: true})
		}
	}
	f, err := os.Open(filepath.Join("scripts", "mutate", "sites.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 3 {
			return nil, fmt.Errorf("scripts/mutate/sites.txt:%d: want file, expression and description separated by tabs", n)
		}
		re, err := regexp.Compile(parts[1])
		if err != nil {
			return nil, fmt.Errorf("scripts/mutate/sites.txt:%d: %w", n, err)
		}
		src, err := os.ReadFile(parts[0])
		if err != nil {
			return nil, fmt.Errorf("scripts/mutate/sites.txt:%d: %w", n, err)
		}
		m := re.FindSubmatchIndex(src)
		if m == nil || len(m) < 4 {
			return nil, fmt.Errorf("scripts/mutate/sites.txt:%d: %q not found in %s: the site moved; update the list", n, parts[1], parts[0])
		}
		sites = append(sites, site{name: parts[0] + ": " + parts[2], file: parts[0], start: m[2], end: m[3]})
	}
	return sites, sc.Err()
}

var number = regexp.MustCompile(`[0-9][0-9.]*`)

// mutate scales the site's number (or every second number of a table's points: the charges, not
// the sizes) by f.
func mutate(src []byte, s site, f float64) ([]byte, string, bool) {
	text := string(src[s.start:s.end])
	if s.table {
		pair := regexp.MustCompile(`\{([0-9.]+), ([0-9.]+)\}`)
		out := pair.ReplaceAllStringFunc(text, func(p string) string {
			m := pair.FindStringSubmatch(p)
			v, _ := strconv.ParseFloat(m[2], 64)
			return "{" + m[1] + ", " + strconv.FormatFloat(v*f, 'g', 6, 64) + "}"
		})
		return splice(src, s, out), "every charge scaled", true
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || !number.MatchString(text) {
		return nil, "not a number", false
	}
	if v == 0 {
		return nil, "zero", false
	}
	nv := v * f
	out := strconv.FormatFloat(nv, 'g', 6, 64)
	if !s.float && !strings.Contains(text, ".") { // an integer literal may be an int: keep it one
		r := math.Round(nv)
		if r == v {
			r = v + math.Copysign(1, f-1)
		}
		if r <= 0 {
			return nil, "integer 1 cannot fall", false
		}
		out = strconv.FormatFloat(r, 'f', 0, 64)
	}
	return splice(src, s, out), text + " → " + out, true
}

func splice(src []byte, s site, with string) []byte {
	var b bytes.Buffer
	b.Write(src[:s.start])
	b.WriteString(with)
	b.Write(src[s.end:])
	return b.Bytes()
}

// copyTracked copies the tracked files (as they are in the work tree) to a scratch directory.
func copyTracked() (string, error) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		return "", fmt.Errorf("git ls-files: %w", err)
	}
	dir, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return "", err
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(f)
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree
			}
			return dir, err
		}
		info, _ := os.Lstat(f)
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			return dir, err
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, info.Mode().Perm()); err != nil {
			return dir, err
		}
	}
	return dir, nil
}

// packages lists the suite's packages with those that notice figures first.
func packages(dir, patterns string) ([]string, error) {
	cmd := exec.Command("go", append([]string{"list"}, strings.Fields(patterns)...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", patterns, err)
	}
	mod := "github.com/cosmosdv/validate/"
	all := map[string]bool{}
	var rest []string
	for _, p := range strings.Fields(string(out)) {
		rel := "./" + strings.TrimPrefix(p, mod)
		all[rel] = true
		rest = append(rest, rel)
	}
	var ordered []string
	for _, p := range first {
		if all[p] {
			ordered = append(ordered, p)
			delete(all, p)
		}
	}
	for _, p := range rest {
		if all[p] {
			ordered = append(ordered, p)
		}
	}
	return ordered, nil
}

// suite runs the packages one by one and returns the first that fails ("" when all pass). A
// mutant that does not compile is killed by the compiler, named so.
func suite(ctx context.Context, dir string, pkgs []string) (string, error) {
	for _, p := range pkgs {
		cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-failfast", "-timeout", "30m", p)
		cmd.Dir = dir
		// Compare committed pages, never regenerate them (CI unset), and let no golden page count as
		// a kill (CDV_MUTATE: testenv.Golden skips): a developer regenerates a page when a figure moves.
		cmd.Env = append(os.Environ(), "CI=", "CDV_MUTATE=1")
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if err != nil {
			if bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")) {
				return p + " (does not compile)", nil
			}
			return p + failedTests(out), nil
		}
	}
	return "", nil
}

// failedTests names the tests a failing run reports ("--- FAIL: TestX"), so that a kill says what
// noticed the mutant: a kill by a test that fails for every mutant would be no kill at all.
func failedTests(out []byte) string {
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(line, "--- FAIL: "); ok {
			name, _, _ = strings.Cut(name, " ")
			if !strings.Contains(name, "/") && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + strings.Join(names, ", ") + ")"
}
