package main

import (
	"errors"
	"fmt"

	"github.com/cosmosdv/validate/internal/design"
)

// Exit codes, documented in README.md.
const (
	ExitOK       = 0 // every pattern passed (warnings allowed)
	ExitFindings = 1 // a pattern missed its estimate or an expectation, a regression, a lint finding
	ExitUsage    = 2 // bad flags or arguments, unreadable or invalid design file
	ExitInfra    = 3 // target unreachable, Docker missing, authentication refused, target died
)

// exitError carries the exit code an error maps to. The message has been printed or is printed once.
type exitError struct {
	code    int
	err     error
	printed bool // the command already told the user; print nothing more
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

func infraErr(err error) error { return &exitError{code: ExitInfra, err: err} }

// errFindings ends a command whose output already lists its findings.
var errFindings = &exitError{code: ExitFindings, printed: true}

// codeOf maps err to its exit code. An error no one classified is a usage error only when cobra
// raised it (a flag, an argument, an unknown command) or it is an invalid design; anything else —
// a report that could not be written, a closed pipe — is a failure of the environment, not of the
// command line.
func codeOf(err error) (int, bool) {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, ee.printed
	}
	if errors.Is(err, design.ErrInvalid) || isCobraUsage(err) {
		return ExitUsage, false
	}
	return ExitInfra, false
}
