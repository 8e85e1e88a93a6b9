package engine

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// Effective partition keys (EPK) decide which physical partition owns a logical partition. The
// encoding follows the public Cosmos DB SDKs (the Go SDK's internal/epk package, the .NET SDK's
// PartitionKeyInternal): every component is written as a type marker followed by its value, then
// hashed with MurmurHash3. Hash v2 hashes all components together with the 128-bit x64 variant;
// MultiHash hashes each component on its own and concatenates the hex strings, so a key prefix maps
// to a contiguous EPK range. The two top bits of each 128-bit hash are cleared so that every EPK
// sorts below the "FF" sentinel that closes the last partition key range.

// undefinedValue marks a partition key component whose path is absent from the document.
type undefinedValue struct{}

// Type markers of partition key components in the hash input.
const (
	markUndefined byte = 0x00
	markNull      byte = 0x01
	markFalse     byte = 0x02
	markTrue      byte = 0x03
	markNumber    byte = 0x05
	markString    byte = 0x08
)

// epkEncode appends the hash input of one component. suffix terminates strings: 0x00 for v1, 0xFF
// for v2.
func epkEncode(buf []byte, v any, suffix byte) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, markNull)
	case bool:
		if x {
			return append(buf, markTrue)
		}
		return append(buf, markFalse)
	case float64:
		buf = append(buf, markNumber)
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
	case string:
		buf = append(buf, markString)
		buf = append(buf, x...)
		return append(buf, suffix)
	default:
		return append(buf, markUndefined)
	}
}

// murmur3x86_32 is MurmurHash3_x86_32 (Austin Appleby's public-domain reference algorithm).
func murmur3x86_32(data []byte, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := binary.LittleEndian.Uint32(data[i:])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch n - i {
	case 3:
		k ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[i])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// murmur3x64_128 is MurmurHash3_x64_128 with seed 0 for both halves.
func murmur3x64_128(data []byte) (h1, h2 uint64) {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	n := len(data)
	i := 0
	for ; i+16 <= n; i += 16 {
		k1 := binary.LittleEndian.Uint64(data[i:])
		k2 := binary.LittleEndian.Uint64(data[i+8:])
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := data[i:]
	var k1, k2 uint64
	for j := len(tail) - 1; j >= 8; j-- {
		k2 ^= uint64(tail[j]) << (8 * uint(j-8))
	}
	if len(tail) > 8 {
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
	}
	for j := min(len(tail), 8) - 1; j >= 0; j-- {
		k1 ^= uint64(tail[j]) << (8 * uint(j))
	}
	if len(tail) > 0 {
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}

// hash128Hex renders a 128-bit hash as the service's big-endian hex EPK, top two bits cleared.
func hash128Hex(h1, h2 uint64) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[0:8], h2)
	binary.BigEndian.PutUint64(b[8:16], h1)
	b[0] &= 0x3F
	return strings.ToUpper(hex.EncodeToString(b[:]))
}

// effectivePartitionKey returns the EPK of a (possibly partial, for MultiHash) partition key.
// An empty key hashes as one undefined component.
func effectivePartitionKey(kind string, version int, values []any) string {
	if len(values) == 0 {
		values = []any{undefinedValue{}}
	}
	var buf []byte
	switch {
	case version <= 1 && kind != kindMultiHash:
		var sb strings.Builder
		for _, v := range values {
			buf = epkEncode(buf[:0], v, 0x00)
			fmt.Fprintf(&sb, "000000000000000000000000%08X", murmur3x86_32(buf, 0))
		}
		return sb.String()
	case kind == kindMultiHash:
		var sb strings.Builder
		for _, v := range values {
			buf = epkEncode(buf[:0], v, 0xFF)
			sb.WriteString(hash128Hex(murmur3x64_128(buf)))
		}
		return sb.String()
	default:
		for _, v := range values {
			buf = epkEncode(buf, v, 0xFF)
		}
		return hash128Hex(murmur3x64_128(buf))
	}
}

// Partition key kinds.
const (
	kindHash      = "Hash"
	kindMultiHash = "MultiHash"
)

// rangeBounds splits the EPK space into n contiguous ranges and returns their n-1 inner boundaries.
// v2 hashes start with a byte in [0x00,0x3F]; v1 hashes carry their 32-bit hash after 24 zeros.
func rangeBounds(kind string, version, n int) []string {
	out := make([]string, 0, max(n-1, 0))
	for i := 1; i < n; i++ {
		if version <= 1 && kind != kindMultiHash {
			out = append(out, fmt.Sprintf("000000000000000000000000%08X", uint64(i)*(1<<32)/uint64(n)))
			continue
		}
		out = append(out, fmt.Sprintf("%08X", uint64(i)*0x40000000/uint64(n)))
	}
	return out
}
