package engine

import (
	"fmt"
	"strings"
	"testing"
)

// unmask restores the top two bits the routing form clears, so vectors can be compared with the
// unmasked baseline.
func mask(hexEPK string) string {
	var b byte
	fmt.Sscanf(hexEPK[:2], "%02X", &b)
	return fmt.Sprintf("%02X", b&0x3F) + hexEPK[2:]
}

// Vectors from the partition-key hash baselines the Azure SDKs share
// (azcosmos v1.5.0 internal/epk/testdata/PartitionKeyHashBaselineTest.*.xml).
func TestEffectivePartitionKey_Baseline(t *testing.T) {
	tests := []struct {
		name   string
		value  any
		v1, v2 string
	}{
		{"empty string", "", "0000000000000000000000003CCCB0FF", "B2E9366E637A71B4E710384B2F4970A0"},
		{"short string", "asdf", "000000000000000000000000B02BABC2", "608BF1D598F5B63AD5520F04FE58C5E8"},
		{"99 bytes", strings.Repeat("a", 99), "000000000000000000000000CCC122D9", "3C02F609961C32AAC2B912B940D1209A"},
		{"100 bytes", strings.Repeat("a", 100), "000000000000000000000000D5843D83", "8DBD7D229437BB665DE6417747994D57"},
		{"zero", 0.0, "0000000000000000000000001EDA80A6", "555B95BEDAC4B1E9EC1CDC9BB0DDDE58"},
		{"one", 1.0, "000000000000000000000000E1655A93", "A0CD98B339BA78A5D0CF6953B87070B0"},
		{"minus one", -1.0, "000000000000000000000000452BDBE7", "59938E7A936C1C5B9E3AE842BBC16839"},
		{"denormal", 5e-324, "000000000000000000000000AC83D318", "0E6CBA63A280927DE485DEF865800139"},
		{"undefined", undefinedValue{}, "000000000000000000000000514E28B7", "51622DAA78F835834610ABE56EFF5CB5"},
		{"null", nil, "000000000000000000000000E45AD1AB", "778867E4430E67857ACE5C908374FE16"},
		{"true", true, "0000000000000000000000005E2A8076", "4E711127C5B5A8E4726AC6DD306A3E59"},
		{"false", false, "0000000000000000000000006C27D09F", "EFE1BE91E90A3439635E0E9E37361EF2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := effectivePartitionKey(kindHash, 1, []any{tt.value}); got != tt.v1 {
				t.Errorf("v1 = %s, want %s", got, tt.v1)
			}
			if got, want := effectivePartitionKey(kindHash, 2, []any{tt.value}), mask(tt.v2); got != want {
				t.Errorf("v2 = %s, want %s", got, want)
			}
			// A one-level MultiHash key hashes like Hash v2.
			if got, want := effectivePartitionKey(kindMultiHash, 2, []any{tt.value}), mask(tt.v2); got != want {
				t.Errorf("multihash = %s, want %s", got, want)
			}
		})
	}
}

func TestEffectivePartitionKey_MultiHashPrefix(t *testing.T) {
	full := effectivePartitionKey(kindMultiHash, 2, []any{"tenant", "user", "session"})
	prefix := effectivePartitionKey(kindMultiHash, 2, []any{"tenant"})
	if len(full) != 96 || !strings.HasPrefix(full, prefix) {
		t.Fatalf("full %s does not extend prefix %s", full, prefix)
	}
}

func TestRangeBounds(t *testing.T) {
	b := rangeBounds(kindHash, 2, 4)
	want := []string{"10000000", "20000000", "30000000"}
	if strings.Join(b, ",") != strings.Join(want, ",") {
		t.Fatalf("bounds = %v, want %v", b, want)
	}
	if got := rangeBounds(kindHash, 2, 1); len(got) != 0 {
		t.Fatalf("one partition: bounds = %v", got)
	}
}
