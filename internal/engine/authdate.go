package engine

import (
	"time"
)

// maxClockSkew is the service's window for a master-key signature's date: "Maximum clock skew for
// token authorization 15 min" and "Maximum primary token expiry time 15 min" (concepts-limits.md,
// "Per-request limits"). A signature older or newer than that is refused, so a captured one
// cannot be replayed for ever.
const maxClockSkew = 15 * time.Minute

// checkDate parses the x-ms-date (or Date) of a request, an RFC 1123 date in GMT as the REST API
// and the SDKs send it ("Tue, 01 Nov 1994 08:12:31 GMT"), and requires it within maxClockSkew of
// now (the wall clock, not Options.Now, which moves TTL and throttling windows in tests).
func checkDate(date string, now time.Time) error {
	t, err := time.Parse(time.RFC1123, date)
	if err != nil {
		return errf(401, "The x-ms-date header %q is not a valid RFC 1123 date such as \"Tue, 01 Nov 1994 08:12:31 GMT\".", clip(date, 64))
	}
	if d := now.Sub(t); d > maxClockSkew || d < -maxClockSkew {
		return errf(401, "The request's x-ms-date %s is more than %v from the server's time %s; the signature has expired or the client clock is wrong.", t.UTC().Format(time.RFC1123), maxClockSkew, now.UTC().Format(time.RFC1123))
	}
	return nil
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
