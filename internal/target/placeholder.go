package target

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/record"
)

// DetectPlaceholder reports whether a set of measured charges looks like placeholders rather than
// measurements: every charge identical (0, 1, …) across at least two operations, or any number of
// operations all charged 0 (no real operation is free). The vNext emulator and other emulators
// return such constants. Fewer than two non-zero charges, or any NaN, are not enough to tell.
func DetectPlaceholder(charges []float64) bool {
	if len(charges) == 0 {
		return false
	}
	first := charges[0]
	for _, c := range charges {
		if math.IsNaN(c) || c != first {
			return false
		}
	}
	return first == 0 || len(charges) >= 2
}

// ChargeSourceFor returns the charge source a run's figures carry: the target's label, downgraded
// to emulator-placeholder when the target is an endpoint of unknown kind and the charges look like
// placeholders (DetectPlaceholder).
func ChargeSourceFor(label record.ChargeSource, kind record.Kind, charges []float64) record.ChargeSource {
	if kind == record.KindEndpoint && label != record.ChargeModel && DetectPlaceholder(charges) {
		return record.ChargeEmulatorPlaceholder
	}
	return label
}

// DatabaseExists reports whether a database exists on the target, for the refusal of an existing
// run-scoped database on shared accounts.
func DatabaseExists(ctx context.Context, client *azcosmos.Client, id string) (bool, error) {
	db, err := client.NewDatabase(id)
	if err != nil {
		return false, fmt.Errorf("database %s: %w", id, err)
	}
	if _, err := db.Read(ctx, nil); err != nil {
		var re *azcore.ResponseError
		if errors.As(err, &re) && re.StatusCode == http.StatusNotFound {
			return false, nil
		}
		return false, fmt.Errorf("read database %s: %w", id, err)
	}
	return true, nil
}
