package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/design"
)

// The message of an interrupted run says what really happened, and it is a target-class error (exit 3).
func TestInterrupted_Messages(t *testing.T) {
	d := &design.Design{Name: "shop"}
	cancelled := context.Canceled
	for _, tc := range []struct {
		err  error
		keep bool
		want string
	}{
		{cancelled, false, "what this run created was removed"},
		{cancelled, true, `--keep left database "db" on account in place`},
		{errors.Join(cancelled, &TeardownError{Database: "db", Err: errors.New("503")}), false, `teardown failed (503): database "db" on account may be left`},
	} {
		err := interrupted(d, tc.err, tc.keep, "db", "account")
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("keep %v, %v: %q, want %q", tc.keep, tc.err, err, tc.want)
		}
		if !errors.Is(err, ErrTarget) {
			t.Errorf("%v is not ErrTarget", err)
		}
	}
}
