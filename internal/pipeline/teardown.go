package pipeline

import "fmt"

// TeardownError is a teardown that failed: what the run created in Database may be left there.
type TeardownError struct {
	Database string
	Err      error
}

func (e *TeardownError) Error() string { return fmt.Sprintf("teardown: %v", e.Err) }

func (e *TeardownError) Unwrap() error { return e.Err }
