package main

import (
	"errors"
	"fmt"
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

func codeOf(err error) (int, bool) {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, ee.printed
	}
	return ExitUsage, false
}
