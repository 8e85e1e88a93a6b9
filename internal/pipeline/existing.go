package pipeline

import (
	"errors"
	"fmt"
	"strings"
)

// ErrExistingContainers is returned when a run would seed into containers it did not create (with
// ReuseDatabase) and Options.WriteIntoExisting does not allow it.
var ErrExistingContainers = errors.New("the run would write into containers that existed before it")

// checkExisting refuses to write into containers that existed before the run unless allowed:
// teardown removes only what the run created, so its documents would stay in them after the run,
// mixed with the owner's, and an upsert of a generated id could overwrite one of the owner's.
func checkExisting(reused []string, database string, allow bool) error {
	if len(reused) == 0 || allow {
		return nil
	}
	return fmt.Errorf("%w: %s in database %s already exist; the seeded and probe-time documents would stay in them after the run, and a generated id could overwrite one of theirs. Use another database, or accept that with --write-into-existing",
		ErrExistingContainers, strings.Join(reused, ", "), database)
}
