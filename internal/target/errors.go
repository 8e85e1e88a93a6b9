package target

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// Infrastructure errors: the backend could not be reached or used. The CLI maps every one of them
// (IsInfrastructure) to exit code 3. Match them with errors.Is; messages never hold a key.
var (
	// ErrDockerUnavailable: no Docker engine answered.
	ErrDockerUnavailable = errors.New("docker is not reachable")
	// ErrImageMissing: the emulator image is not present locally and pulling was not allowed or failed.
	ErrImageMissing = errors.New("emulator image not present")
	// ErrEmulatorStart: the emulator container did not become ready.
	ErrEmulatorStart = errors.New("emulator did not start")
	// ErrEmulatorDied: the emulator container stopped while the run used it.
	ErrEmulatorDied = errors.New("emulator container stopped")
	// ErrUnreachable: nothing answered at the endpoint (connection refused, DNS, timeout, TLS).
	ErrUnreachable = errors.New("endpoint unreachable")
	// ErrAuth: the endpoint refused the credentials (401) or the identity's permissions (403).
	ErrAuth = errors.New("authentication refused")
	// ErrThrottled: the endpoint kept answering 429 after the SDK's retries.
	ErrThrottled = errors.New("request rate too large")
	// ErrConfig: the target configuration is incomplete or contradictory (missing endpoint, bad
	// connection string). A usage error rather than infrastructure; IsInfrastructure is false.
	ErrConfig = errors.New("invalid target configuration")
)

// infrastructure lists the sentinels IsInfrastructure recognizes.
var infrastructure = []error{
	ErrDockerUnavailable, ErrImageMissing, ErrImagePull, ErrEmulatorStart, ErrEmulatorDied,
	ErrUnreachable, ErrAuth, ErrThrottled,
}

// IsInfrastructure reports whether err means the backend failed rather than the design or the
// user's input: Docker missing, emulator down, endpoint unreachable, credentials refused, or
// throttling that outlasted the retries. It recognizes this package's sentinels and the raw SDK
// and network errors they stand for, so errors from provisioning, seeding and probing classify too.
func IsInfrastructure(err error) bool {
	return classify(err) != nil
}

// classify returns the sentinel err stands for, or nil.
func classify(err error) error {
	if err == nil {
		return nil
	}
	for _, s := range infrastructure {
		if errors.Is(err, s) {
			return s
		}
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		switch re.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return ErrAuth
		case http.StatusTooManyRequests:
			return ErrThrottled
		case http.StatusServiceUnavailable:
			return ErrUnreachable
		}
		return nil
	}
	if isNetworkError(err) {
		return ErrUnreachable
	}
	return nil
}

// isNetworkError reports transport failures: refused or reset connections, DNS failures, dial and
// TLS errors, and timeouts that did not come from the caller cancelling.
func isNetworkError(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var certErr *tls.CertificateVerificationError
	if errors.As(err, &certErr) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true
	}
	return false
}

// Explain turns an error into the message the CLI prints: the error's first line, then, for the
// failures this package knows, " — " and what to do. Further lines of the error (an emulator's last
// log lines) follow on their own lines. It never adds secrets: it only looks at status codes and
// sentinels, and errors of this package never hold a key.
func Explain(err error) string {
	if err == nil {
		return ""
	}
	first, rest, _ := strings.Cut(err.Error(), "\n")
	out := first
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		// The SDK's message is a multi-line dump; keep the request line and the service's code.
		out = strings.TrimSpace(first) + fmt.Sprintf(": HTTP %d", re.StatusCode)
		if re.ErrorCode != "" {
			out += " " + re.ErrorCode
		}
		rest = ""
	}
	if a := advice(err); a != "" {
		out += " — " + a
	}
	if rest = strings.TrimSpace(rest); rest != "" {
		out += "\n" + rest
	}
	return out
}

// advice says what to do about an error, or "" when there is nothing to add.
func advice(err error) string {
	var re *azcore.ResponseError
	hasResp := errors.As(err, &re)
	switch {
	case errors.Is(err, ErrDockerUnavailable):
		return "start Docker (or set DOCKER_HOST), or run with --target embedded"
	case errors.Is(err, ErrImageMissing):
		return "pull it, or pass --pull, or run with --target embedded; without a registry, `docker save` it elsewhere and `docker load` it here"
	case errors.Is(err, ErrImagePull):
		image := "IMAGE"
		if pe := (*pullError)(nil); errors.As(err, &pe) {
			image = pe.image
		}
		return saveLoadAdvice(image)
	case errors.Is(err, ErrEmulatorDied):
		return "the emulator crashed or ran out of memory (the classic image also fails on Linux kernels " +
			"6.7 and later); what this run created is gone with it; retry, or run with --target embedded"
	case errors.Is(err, ErrEmulatorStart):
		return "the emulator did not become ready; retry, try another --emulator-image, or run with --target embedded"
	case errors.Is(err, ErrConfig):
		return ""
	case hasResp && re.StatusCode == http.StatusUnauthorized:
		return "the key was refused (401): check that the key or connection string belongs to this account " +
			"and was not rotated; an Entra ID token for another tenant is refused the same way"
	case hasResp && re.StatusCode == http.StatusForbidden:
		return explainForbidden(re)
	case errors.Is(err, ErrAuth):
		return "check the key or connection string, or that the signed-in identity holds the data-plane role " +
			"\"Cosmos DB Built-in Data Contributor\" on the account"
	case (hasResp && re.StatusCode == http.StatusTooManyRequests) || errors.Is(err, ErrThrottled):
		return "the account kept throttling (429) after the SDK's retries: the run needs more RU/s than " +
			"provisioned; lower --samples or the seeding volume, or raise the throughput"
	case hasResp && re.StatusCode == http.StatusServiceUnavailable:
		return "the service was unavailable (503) after the SDK's retries: an emulator still starting or " +
			"overloaded, or a service incident; retry later"
	case isCertError(err):
		return "the endpoint's TLS certificate is not trusted (an emulator's self-signed certificate?): " +
			"add it to the system's trusted certificates, or pass --insecure to skip verification"
	case errors.Is(err, ErrUnreachable), isNetworkError(err):
		return "nothing usable answered: check the URL, the network and firewall rules (the account's IP " +
			"allow-list or private endpoint), and that the emulator is running"
	}
	return ""
}

// explainForbidden separates the 403 cases the service distinguishes by sub-status.
func explainForbidden(re *azcore.ResponseError) string {
	sub := ""
	if re.RawResponse != nil {
		sub = re.RawResponse.Header.Get("x-ms-substatus")
	}
	msg := strings.ToLower(re.Error())
	switch {
	// 5301: the Entra ID principal lacks a data-plane role assignment (service sub-status code).
	case sub == "5301" || strings.Contains(msg, "does not have required rbac permissions"):
		return "the signed-in identity lacks a data-plane role on this account: assign it " +
			"\"Cosmos DB Built-in Data Contributor\" (role id 00000000-0000-0000-0000-000000000002) with " +
			"`az cosmosdb sql role assignment create --scope / --principal-id <id> --role-definition-id " +
			"00000000-0000-0000-0000-000000000002 ...`; note that creating databases and containers is a " +
			"control-plane action Entra ID tokens cannot perform through the data plane: pre-create them " +
			"or use a key"
	case strings.Contains(msg, "local authorization is disabled") || strings.Contains(msg, "disablelocalauth"):
		return "the account disables key authentication: sign in (az login) and use Entra ID instead of a key"
	case strings.Contains(msg, "firewall") || strings.Contains(msg, "ip address"):
		return "the account's firewall refused this machine's address: add it to the account's IP rules"
	}
	return fmt.Sprintf("the request was forbidden (403%s): the key may be read-only, or the identity lacks "+
		"the data-plane role \"Cosmos DB Built-in Data Contributor\"", subSuffix(sub))
}

func subSuffix(sub string) string {
	if sub == "" || sub == "0" {
		return ""
	}
	return ", sub-status " + sub
}

func isCertError(err error) bool {
	var certErr *tls.CertificateVerificationError
	return errors.As(err, &certErr)
}
