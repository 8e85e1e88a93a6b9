// Command skipcheck reads `go test -json` on standard input, prints what plain `go test` would (the
// package lines and the output of failing tests), and fails when a test skipped that the allowed
// list does not name, or when more tests skipped than the list records. CI pipes every test run
// through it (make test with CI=true), so a skip can no longer pass unnoticed.
//
//	go test -json ./... | go run ./scripts/skipcheck -allowed .ci/allowed-skips
//
// The allowed file has one "package Test[/subtest]" per line (the package without the module path;
// "#" starts a comment; a trailing "/*" allows every subtest of a test); its line count is the
// recorded skip count.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action      string
	Package     string
	ImportPath  string // build events
	Test        string
	Output      string
	FailedBuild string
}

func main() {
	allowedPath := flag.String("allowed", ".ci/allowed-skips", "file listing the skips CI accepts")
	module := flag.String("module", "github.com/cosmosdv/validate/", "module path stripped from package names")
	flag.Parse()
	allowed, err := readAllowed(*allowedPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "skipcheck:", err)
		os.Exit(2)
	}
	res, err := scan(os.Stdin, os.Stdout, *module)
	if err != nil {
		fmt.Fprintln(os.Stderr, "skipcheck:", err)
		os.Exit(2)
	}
	os.Exit(verdict(os.Stdout, res, allowed))
}

type result struct {
	skipped []string // "package Test/sub"
	failed  bool
	tests   int
}

func readAllowed(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("allowed skips: %w", err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		if f := strings.Fields(line); len(f) == 2 {
			out = append(out, f[0]+" "+f[1])
		} else if len(f) != 0 {
			return nil, fmt.Errorf("%s: want \"package Test\", got %q", path, strings.TrimSpace(line))
		}
	}
	return out, nil
}

// scan reads the event stream, echoes package lines and failing tests' output to w, and collects
// the skips.
func scan(r io.Reader, w io.Writer, module string) (result, error) {
	var res result
	buf := map[string][]string{} // package+test → its output lines so far
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event (a build error printed as text): show it.
			fmt.Fprintln(w, string(line))
			continue
		}
		key := e.Package + " " + e.Test
		if e.FailedBuild != "" {
			res.failed = true
		}
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "build-fail":
			res.failed = true
		case "output":
			if e.Test == "" {
				fmt.Fprint(w, e.Output)
			} else {
				buf[key] = append(buf[key], e.Output)
			}
		case "skip":
			if e.Test != "" {
				res.skipped = append(res.skipped, strings.TrimPrefix(e.Package, module)+" "+e.Test)
				res.tests++
			}
			delete(buf, key)
		case "fail":
			res.failed = true
			if e.Test != "" {
				res.tests++
				for _, o := range buf[key] {
					fmt.Fprint(w, o)
				}
			}
			delete(buf, key)
		case "pass":
			if e.Test != "" {
				res.tests++
			}
			delete(buf, key)
		}
	}
	return res, sc.Err()
}

// verdict prints the skip summary and returns the exit code.
func verdict(w io.Writer, res result, allowed []string) int {
	ok := func(s string) bool {
		for _, a := range allowed {
			if a == s || strings.HasSuffix(a, "/*") && strings.HasPrefix(s, strings.TrimSuffix(a, "*")) {
				return true
			}
		}
		return false
	}
	var unexpected []string
	for _, s := range res.skipped {
		if !ok(s) {
			unexpected = append(unexpected, s)
		}
	}
	sort.Strings(unexpected)
	fmt.Fprintf(w, "skipcheck: %d test results, %d skipped (%d recorded in the allowed list)\n", res.tests, len(res.skipped), len(allowed))
	code := 0
	if res.failed {
		code = 1
	}
	if res.tests == 0 {
		fmt.Fprintln(w, "skipcheck: no test results: go test did not run (its own error is above)")
		code = 1
	}
	if len(unexpected) > 0 {
		fmt.Fprintf(w, "skipcheck: %d skip(s) not in the allowed list; make the test run here or, with a reason, add it:\n", len(unexpected))
		for _, s := range unexpected {
			fmt.Fprintln(w, "  "+s)
		}
		code = 1
	}
	if len(res.skipped) > len(allowed) {
		fmt.Fprintf(w, "skipcheck: %d skips, more than the %d recorded\n", len(res.skipped), len(allowed))
		code = 1
	}
	return code
}
