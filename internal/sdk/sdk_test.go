package sdk

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

func TestPartitionKey_FromScratch(t *testing.T) {
	// Keys built from a shared prefix must not alias each other.
	prefix := []any{"t1"}
	a := PartitionKey(append(prefix[:1:1], "u1"))
	b := PartitionKey(append(prefix[:1:1], "u2"))
	if reflect.DeepEqual(a, b) {
		t.Fatal("distinct keys compare equal")
	}
}

func TestPartitionKey_Values(t *testing.T) {
	got := PartitionKey([]any{"a", 1, int64(2), float32(1.5), true, nil, struct{}{}})
	want := azcosmos.NewPartitionKeyString("a").AppendNumber(1).AppendNumber(2).AppendNumber(1.5).
		AppendBool(true).AppendNull().AppendNull()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("key = %v, want %v", got, want)
	}
}

func TestCharge(t *testing.T) {
	if got := Charge(2.52); got != 2.52 {
		t.Fatalf("Charge(2.52) = %v", got)
	}
	if got := Charge(1); got != 1 {
		t.Fatalf("Charge(1) = %v", got)
	}
}

func respErr(status int, body string) error {
	resp := &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}
	return &azcore.ResponseError{StatusCode: status, RawResponse: resp}
}

func TestStatusAndMessage(t *testing.T) {
	err := fmt.Errorf("read: %w", respErr(404, `{"code":"NotFound","message":"Entity with the specified id does not exist in the system.\r\nActivityId: x"}`))
	if got := StatusOf(err); got != 404 {
		t.Fatalf("StatusOf = %d", got)
	}
	if got, want := ServiceMessage(err), "404 Not Found: Entity with the specified id does not exist in the system."; got != want {
		t.Fatalf("ServiceMessage = %q, want %q", got, want)
	}
	if got := ServiceMessage(respErr(429, "")); got != "429 Too Many Requests" {
		t.Fatalf("ServiceMessage without body = %q", got)
	}
	if got := StatusOf(errors.New("plain")); got != 0 {
		t.Fatalf("StatusOf(plain) = %d", got)
	}
}

func TestInfrastructure(t *testing.T) {
	if Infrastructure("op", nil) != nil {
		t.Fatal("Infrastructure(nil) is not nil")
	}
	base := errors.New("connection refused")
	err := Infrastructure("seed c", base)
	if !IsInfrastructure(err) || !errors.Is(err, base) || err.Error() != "seed c: connection refused" {
		t.Fatalf("Infrastructure = %v", err)
	}
	if IsInfrastructure(base) {
		t.Fatal("a plain error is infrastructure")
	}
	for status, want := range map[int]bool{401: true, 403: true, 503: true, 404: false, 429: false} {
		if got := TargetFailed(respErr(status, "")); got != want {
			t.Errorf("TargetFailed(%d) = %v, want %v", status, got, want)
		}
	}
	if !TargetFailed(io.ErrUnexpectedEOF) || TargetFailed(errors.New("x")) {
		t.Fatal("TargetFailed on transport errors")
	}
}

func TestUniqueKeyHint(t *testing.T) {
	h := UniqueKeyHint([][]string{{"/email"}, {"/a", "/b"}})
	if !strings.Contains(h, "(/email) (/a, /b)") {
		t.Fatalf("hint = %q", h)
	}
}
