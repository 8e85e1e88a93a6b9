package target

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// apiVersion is the REST API version the readiness request declares; the same one azcosmos v1.5.0
// sends (its cosmos_client.go).
const apiVersion = "2020-11-05"

// readiness bounds: the whole wait, and the pause between attempts (doubling up to the cap).
const (
	defaultReadyTimeout = 120 * time.Second
	readyFirstPause     = 50 * time.Millisecond
	readyMaxPause       = 1 * time.Second
)

// waitDataPlane polls a real data-plane request (list databases) until it succeeds. It does not
// trust a log line or a health endpoint: emulators have printed "Started" and answered /ready
// while the gateway still returned 503. Connection errors and 5xx answers are retried; 401 and 403
// end the wait at once (ErrAuth); the deadline ends it with ErrEmulatorStart and the last thing
// seen. alive, when not nil, is asked after each failure so a crashed container ends the wait
// early with ErrEmulatorDied.
func waitDataPlane(ctx context.Context, hc *http.Client, endpoint, key string, timeout time.Duration, alive func(context.Context) error) error {
	if timeout <= 0 {
		timeout = defaultReadyTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pause := readyFirstPause
	attempts := 0
	var last string
	for {
		attempts++
		status, _, err := listDatabases(ctx, hc, endpoint, key)
		switch {
		case err == nil && status >= 200 && status < 300:
			return nil
		case err == nil && (status == http.StatusUnauthorized || status == http.StatusForbidden):
			return fmt.Errorf("%w: %s answered %d to a signed request", ErrAuth, redactURL(endpoint), status)
		case err == nil && status < 500 && status != http.StatusTooManyRequests && status != http.StatusRequestTimeout:
			return fmt.Errorf("%w: %s answered %d to list databases", ErrEmulatorStart, redactURL(endpoint), status)
		case err != nil && ctx.Err() != nil && last != "":
			// The request was ended by this wait's own deadline (or the caller): keep the last
			// thing the endpoint said, which is what the error should name.
		case err != nil:
			last = shortNetError(err)
		default:
			last = fmt.Sprintf("HTTP %d", status)
		}
		if alive != nil {
			if derr := alive(ctx); derr != nil {
				return derr
			}
		}
		select {
		case <-ctx.Done():
			if parent := context.Cause(ctx); errors.Is(parent, context.Canceled) {
				return parent
			}
			return fmt.Errorf("%w: %s not ready after %s and %d attempts (last: %s)",
				ErrEmulatorStart, redactURL(endpoint), timeout, attempts, last)
		case <-time.After(pause):
		}
		pause = min(pause*2, readyMaxPause)
	}
}

// listDatabases sends one signed GET /dbs and returns the status code and response headers.
func listDatabases(ctx context.Context, hc *http.Client, endpoint, key string) (int, http.Header, error) {
	u, err := url.JoinPath(endpoint, "dbs")
	if err != nil {
		return 0, nil, fmt.Errorf("%w: endpoint %s", ErrConfig, redactURL(endpoint))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: endpoint %s", ErrConfig, redactURL(endpoint))
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", apiVersion)
	auth, err := masterKeyAuth(key, http.MethodGet, "dbs", "", date)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", auth)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header, nil
}

// masterKeyAuth builds the Authorization header value for a master-key signed request, following
// the published scheme ("Access control in the Azure Cosmos DB SQL API", construct the key token):
// HMAC-SHA256 over lower(verb), lower(resource type), resource link, lower(date) and an empty
// line, each followed by a newline, then URL-encoded "type=master&ver=1.0&sig=<base64>".
func masterKeyAuth(key, verb, resourceType, resourceLink, date string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		// Never echo the key: say only what is wrong with it.
		return "", fmt.Errorf("%w: the key is not valid base64", ErrConfig)
	}
	payload := strings.ToLower(verb) + "\n" + strings.ToLower(resourceType) + "\n" + resourceLink + "\n" +
		strings.ToLower(date) + "\n" + "\n"
	mac := hmac.New(sha256.New, raw)
	mac.Write([]byte(payload))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return url.QueryEscape("type=master&ver=1.0&sig=" + sig), nil
}

// shortNetError keeps the last, most specific part of a transport error.
func shortNetError(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		return msg[i+2:]
	}
	return msg
}
