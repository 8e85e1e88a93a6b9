package sdk

import (
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// PartitionKey builds a partition key from its values in level order. It builds the key from scratch
// every time because PartitionKey.Append* may share a backing array between keys derived from the
// same prefix. Values are strings, numbers (any Go integer or float type), booleans or nil (null).
func PartitionKey(values []any) azcosmos.PartitionKey {
	pk := azcosmos.NewPartitionKey()
	for _, v := range values {
		switch x := v.(type) {
		case string:
			pk = pk.AppendString(x)
		case bool:
			pk = pk.AppendBool(x)
		case float64:
			pk = pk.AppendNumber(x)
		case float32:
			pk = pk.AppendNumber(float64(x))
		case int:
			pk = pk.AppendNumber(float64(x))
		case int64:
			pk = pk.AppendNumber(float64(x))
		case int32:
			pk = pk.AppendNumber(float64(x))
		case nil:
			pk = pk.AppendNull()
		default:
			pk = pk.AppendNull()
		}
	}
	return pk
}

// Charge converts the SDK's float32 request charge to the float64 it stands for (2.52, not
// 2.5199999809265137).
func Charge(f float32) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	if err != nil {
		return float64(f)
	}
	return v
}

// UniqueKeyHint explains a unique-key conflict. Unique keys hold per logical partition, and a document
// that lacks the property counts as having one (missing) value, so a second document type without it
// in the same partition conflicts.
func UniqueKeyHint(keys [][]string) string {
	var sets []string
	for _, k := range keys {
		sets = append(sets, "("+strings.Join(k, ", ")+")")
	}
	return "conflict on the unique key " + strings.Join(sets, " ") + " (or the id): unique keys hold per logical partition, and " +
		"documents that lack the property all share one missing value, so every document type stored in the partition needs " +
		"distinct values for it (or the unique key belongs in a container of its own type)"
}
