package engine

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// signedAt sends a request signed for (method, rtype, link) at the given x-ms-date.
func signedAt(t *testing.T, s *Server, method, path, rtype, link, date string) (int, string) {
	t.Helper()
	mac := hmac.New(sha256.New, s.key)
	mac.Write([]byte(strings.ToLower(method) + "\n" + rtype + "\n" + link + "\n" + strings.ToLower(date) + "\n\n"))
	req, _ := http.NewRequest(method, strings.TrimSuffix(s.URL(), "/")+path, nil)
	req.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+base64.StdEncoding.EncodeToString(mac.Sum(nil))))
	req.Header.Set("x-ms-date", date)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	return resp.StatusCode, b.String()
}

// The x-ms-date is a valid RFC 1123 date within the service's 15 minutes: a signature over "x" or
// over a date an hour old is refused however well it is signed (any string was accepted, so a
// captured signature never expired). The window's edges are checked against a fixed time; the
// requests through the server, which checks against the wall clock, use dates so far inside or
// outside the window that no delay between signing and checking changes the answer.
func TestAuthorize_Date(t *testing.T) {
	fixed := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		offset time.Duration
		ok     bool
	}{
		{0, true},
		{-maxClockSkew, true}, {maxClockSkew, true},
		{-14 * time.Minute, true}, {14 * time.Minute, true},
		{-maxClockSkew - time.Second, false}, {maxClockSkew + time.Second, false},
		{-16 * time.Minute, false}, {16 * time.Minute, false},
	} {
		date := fixed.Add(tt.offset).Format(http.TimeFormat)
		if err := checkDate(date, fixed); (err == nil) != tt.ok {
			t.Errorf("x-ms-date %s at %s: err = %v, want accepted %v", date, fixed.Format(http.TimeFormat), err, tt.ok)
		}
	}
	if maxClockSkew != 15*time.Minute {
		t.Errorf("maxClockSkew = %s, want the service's 15 min (concepts-limits.md)", maxClockSkew)
	}

	s, _ := startEngine(t, Options{})
	now := time.Now().UTC()
	for _, tt := range []struct {
		date string
		want int
	}{
		{now.Format(http.TimeFormat), 200},
		{"x", 401},
		{now.Format(time.RFC3339), 401},
		{now.Add(-time.Hour).Format(http.TimeFormat), 401},
		{now.Add(time.Hour).Format(http.TimeFormat), 401},
		{now.AddDate(-1, 0, 0).Format(http.TimeFormat), 401},
	} {
		if got, body := signedAt(t, s, "GET", "/dbs", "dbs", "", tt.date); got != tt.want {
			t.Errorf("x-ms-date %q: status %d, want %d (%.120s)", tt.date, got, tt.want, body)
		}
	}
}

// The resource link is case-sensitive: a DELETE signed for dbs/db1 does not delete dbs/DB1 (the
// check also tried the lower-cased link). Offers are rid-based and signed lower-cased.
func TestAuthorize_LinkCase(t *testing.T) {
	s, _ := startEngine(t, Options{})
	if resp, body := raw(t, s, "POST", "/dbs", map[string]string{"x-ms-offer-throughput": "400"}, []byte(`{"id":"DB1"}`)); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	if got, _ := signedAt(t, s, "DELETE", "/dbs/DB1", "dbs", "dbs/db1", date); got != 401 {
		t.Errorf("DELETE /dbs/DB1 signed for dbs/db1: status %d, want 401", got)
	}
	if got, _ := signedAt(t, s, "GET", "/dbs/DB1", "dbs", "dbs/DB1", date); got != 200 {
		t.Errorf("the database survives and reads with its own link: status %d", got)
	}
	offers := s.allOffers()
	if len(offers) != 1 {
		t.Fatalf("offers: %d", len(offers))
	}
	rid := offers[0].id
	if got, body := signedAt(t, s, "GET", "/offers/"+rid, "offers", strings.ToLower(rid), date); got != 200 {
		t.Errorf("an offer read signed with the lower-cased rid: %d %s", got, body)
	}
}
