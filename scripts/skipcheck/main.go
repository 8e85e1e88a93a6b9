// Command skipcheck reads `go test -json` on standard input, prints what plain `go test` would (the
// package lines and the output of failing tests), and fails when a test skipped that the allowed
// list does not name for this pass, when more tests skipped than the list records for it, or when a
// test the required list names for this pass did not run and pass. CI pipes every test run through
// it (make test with CI=true), so a skip can no longer pass unnoticed.
//
//	go test -json ./... | go run ./scripts/skipcheck -pass plain -allowed .ci/allowed-skips -required .ci/required-tests
//
// The allowed file has one "pass package Test[/subtest] -- reason" per line: the pass is the name
// make test gives the run (plain, race), the package is without the module path, a trailing "/*"
// allows every subtest of a test, and the reason is required; "#" starts a comment. Its lines for
// a pass are that pass's recorded skip count. The required file has one "pass package Test" per
// line: a test that must have passed in that pass (the baseline tests: skipping, renaming or
// deleting one fails CI).
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
	allowedPath := flag.String("allowed", ".ci/allowed-skips", "file listing the skips CI accepts, by pass, with reasons")
	requiredPath := flag.String("required", "", "file listing the tests that must pass, by pass (none when empty)")
	pass := flag.String("pass", "", "the name of this test run (plain, race): the lines of the lists that apply")
	module := flag.String("module", "github.com/cosmosdv/validate/", "module path stripped from package names")
	flag.Parse()
	if *pass == "" {
		fmt.Fprintln(os.Stderr, "skipcheck: -pass is required (plain, race): the allowed and required lists are per pass")
		os.Exit(2)
	}
	allowed, err := readList(*allowedPath, *pass, true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "skipcheck:", err)
		os.Exit(2)
	}
	var required []string
	if *requiredPath != "" {
		if required, err = readList(*requiredPath, *pass, false); err != nil {
			fmt.Fprintln(os.Stderr, "skipcheck:", err)
			os.Exit(2)
		}
	}
	res, err := scan(os.Stdin, os.Stdout, *module)
	if err != nil {
		fmt.Fprintln(os.Stderr, "skipcheck:", err)
		os.Exit(2)
	}
	code := verdict(os.Stdout, res, allowed)
	if missing := notPassed(res, required); len(missing) > 0 {
		fmt.Fprintf(os.Stdout, "skipcheck: %d required test(s) did not run and pass in the %s pass (%s):\n", len(missing), *pass, *requiredPath)
		for _, m := range missing {
			fmt.Fprintln(os.Stdout, "  "+m)
		}
		code = 1
	}
	os.Exit(code)
}

type result struct {
	skipped []string // "package Test/sub"
	passed  map[string]bool
	failed  bool
	tests   int
}

// readList reads an allowed or required list and returns the "package Test" entries of one pass.
// An allowed entry must give its reason after "--"; a line of another form is an error, so a typo
// cannot turn an entry off.
func readList(path, pass string, reasons bool) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for n, line := range strings.Split(string(b), "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		entry, reason, hasReason := strings.Cut(line, "--")
		f := strings.Fields(entry)
		switch {
		case len(f) != 3:
			return nil, fmt.Errorf("%s:%d: want \"pass package Test\", got %q", path, n+1, strings.TrimSpace(line))
		case f[0] != "plain" && f[0] != "race":
			return nil, fmt.Errorf("%s:%d: the pass is plain or race, got %q", path, n+1, f[0])
		case reasons && (!hasReason || strings.TrimSpace(reason) == ""):
			return nil, fmt.Errorf("%s:%d: %s %s: give the reason for the skip after \"--\"", path, n+1, f[1], f[2])
		case !reasons && hasReason:
			return nil, fmt.Errorf("%s:%d: a required test takes no reason", path, n+1)
		}
		if f[0] == pass {
			out = append(out, f[1]+" "+f[2])
		}
	}
	return out, nil
}

// notPassed returns the required tests that did not pass in this run.
func notPassed(res result, required []string) []string {
	var out []string
	for _, r := range required {
		if !res.passed[r] {
			out = append(out, r)
		}
	}
	return out
}

// scan reads the event stream, echoes package lines and failing tests' output to w, and collects
// the skips.
func scan(r io.Reader, w io.Writer, module string) (result, error) {
	res := result{passed: map[string]bool{}}
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
				res.passed[strings.TrimPrefix(e.Package, module)+" "+e.Test] = true
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
