package target

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/record"
)

// verifyTimeout bounds the first request to an account or endpoint: long enough for a cold
// DefaultAzureCredential chain, short enough that a wrong URL fails promptly.
const verifyTimeout = 30 * time.Second

// engineHeader, when an endpoint's response carries it, identifies this project's own engine
// (`validate serve`), whose charges are modeled.
const engineHeader = engine.EngineHeader

// azureSuffixes are the host suffixes of Azure Cosmos DB accounts in the public and sovereign
// clouds ("<account>.documents.azure.com" and equivalents).
var azureSuffixes = []string{".documents.azure.com", ".documents.azure.us", ".documents.azure.cn"}

func isAzureHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".") // a fully qualified name may end in a dot
	for _, s := range azureSuffixes {
		if strings.HasSuffix(h, s) {
			return true
		}
	}
	return false
}

// credentials is what the account and endpoint targets authenticate with.
type credentials struct {
	endpoint string
	key      string // "" = Entra ID (DefaultAzureCredential)
}

// resolveCredentials merges Endpoint, Key and ConnectionString. A connection string wins over the
// separate fields; its endpoint must agree with Endpoint when both are given. Errors never
// include the key or the connection string.
func resolveCredentials(cfg Config) (credentials, error) {
	c := credentials{endpoint: strings.TrimSpace(cfg.Endpoint), key: strings.TrimSpace(cfg.Key)}
	if cs := strings.TrimSpace(cfg.ConnectionString); cs != "" {
		ep, key, err := parseConnectionString(cs)
		if err != nil {
			return c, err
		}
		if c.endpoint != "" && ep != "" && !sameEndpoint(c.endpoint, ep) {
			return c, fmt.Errorf("%w: --endpoint %s and the connection string's endpoint %s differ",
				ErrConfig, redactURL(c.endpoint), redactURL(ep))
		}
		if ep != "" {
			c.endpoint = ep
		}
		c.key = key
	}
	if c.endpoint == "" {
		return c, fmt.Errorf("%w: no endpoint (give --endpoint or a connection string)", ErrConfig)
	}
	u, err := url.Parse(c.endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return c, fmt.Errorf("%w: endpoint %q is not an http(s) URL", ErrConfig, redactURL(c.endpoint))
	}
	if u.User != nil {
		return c, fmt.Errorf("%w: endpoint must not carry user information", ErrConfig)
	}
	u.Path = "/"
	u.RawQuery, u.Fragment = "", ""
	c.endpoint = u.String()
	return c, nil
}

// parseConnectionString reads "AccountEndpoint=...;AccountKey=...;" (names case-insensitive,
// other fields ignored).
func parseConnectionString(cs string) (endpoint, key string, err error) {
	for part := range strings.SplitSeq(cs, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			return "", "", fmt.Errorf("%w: connection string: a field without '='", ErrConfig)
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "accountendpoint":
			endpoint = strings.TrimSpace(value)
		case "accountkey":
			key = strings.TrimSpace(value)
		}
	}
	if endpoint == "" || key == "" {
		return "", "", fmt.Errorf("%w: connection string needs AccountEndpoint and AccountKey", ErrConfig)
	}
	return endpoint, key, nil
}

func sameEndpoint(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && strings.EqualFold(ua.Host, ub.Host) && ua.Scheme == ub.Scheme
}

// openAccount connects to an Azure Cosmos DB account with a key, a connection string, or Entra ID
// through DefaultAzureCredential (az login, managed identity, workload identity).
func openAccount(ctx context.Context, cfg Config) (*Target, error) {
	creds, err := resolveCredentials(cfg)
	if err != nil {
		return nil, err
	}
	host := hostOf(creds.endpoint)
	if !isAzureHost(host) {
		cfg.Log.Warn("account endpoint is not an Azure Cosmos DB host; use --target endpoint for emulators", "host", host)
	}
	t, err := connect(ctx, cfg, creds)
	if err != nil {
		return nil, err
	}
	t.Info.Kind = record.KindAccount
	classifyEngine(t, host)
	t.Shared = true // an account is shared whatever its address (a tunnel, a port-forward)
	return t, nil
}

// classifyEngine names what answered at host and where its charges come from: the service for Azure
// hosts; the model when the endpoint identifies as this project's engine (engineHeader), even when
// it was given as an account, so that a modeled figure is never labelled measured; otherwise an
// emulator's indicative figures, until the measured charges say more (DetectPlaceholder).
func classifyEngine(t *Target, host string) {
	switch {
	case isAzureHost(host):
		t.Info.Engine, t.Info.ChargeSource = "Azure Cosmos DB ("+host+")", record.ChargeService
		t.Shared = true
	case t.Info.Engine == "validate":
		t.Info.Engine, t.Info.ChargeSource = "validate serve ("+host+")", record.ChargeModel
		t.Shared = !isLoopback(host)
	default:
		t.Info.Engine, t.Info.ChargeSource = "Cosmos DB-compatible endpoint ("+host+")", record.ChargeEmulatorIndicative
		t.Shared = !isLoopback(host)
	}
}

// openEndpoint connects to whatever answers at a URL: an emulator someone else started, this
// project's `validate serve`, or an account. Without a key it uses the emulators' well-known key
// (never for an Azure host). Its charge source is decided by classifyEngine.
func openEndpoint(ctx context.Context, cfg Config) (*Target, error) {
	creds, err := resolveCredentials(cfg)
	if err != nil {
		return nil, err
	}
	host := hostOf(creds.endpoint)
	if creds.key == "" && !isAzureHost(host) {
		creds.key = engine.EmulatorKey
	}
	t, err := connect(ctx, cfg, creds)
	if err != nil {
		return nil, err
	}
	t.Info.Kind = record.KindEndpoint
	classifyEngine(t, host)
	return t, nil
}

// connect builds the client and proves the endpoint answers and accepts the credentials with one
// real request, so that a wrong URL or key fails here, in one clear line, and not mid-run.
func connect(ctx context.Context, cfg Config, creds credentials) (*Target, error) {
	u, _ := url.Parse(creds.endpoint)
	var tlsConfig *tls.Config
	if cfg.Insecure && u.Scheme == "https" {
		cfg.Log.Warn("TLS verification is off for this endpoint (--insecure)")
		tlsConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // explicit --insecure
	}
	hc := httpClient(tlsConfig)
	// An emulator behind a published port advertises its in-container address, which the SDK
	// would follow; keep every request on the address given. Not for Azure hosts, whose accounts
	// may have several regions to follow.
	var rewrite *url.URL
	if !isAzureHost(u.Hostname()) {
		rewrite = u
	}
	opts := clientOptions(hc, nil, rewrite)

	vctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	var cl *azcosmos.Client
	engineName, charges := "", ""
	if creds.key != "" {
		status, hdr, err := listDatabases(vctx, hc, creds.endpoint, creds.key)
		if err != nil {
			if errors.Is(err, ErrConfig) {
				return nil, err
			}
			return nil, unreachable(creds.endpoint, err)
		}
		if err := statusError(creds.endpoint, status); err != nil {
			return nil, err
		}
		if hdr.Get(engineHeader) != "" {
			engineName = "validate"
			charges = servedCharges(hdr.Get(engine.ChargesHeader))
		}
		cred, err := azcosmos.NewKeyCredential(creds.key)
		if err != nil {
			return nil, fmt.Errorf("%w: the key is not valid base64", ErrConfig)
		}
		if cl, err = azcosmos.NewClientWithKey(creds.endpoint, cred, opts); err != nil {
			return nil, fmt.Errorf("client for %s: %w", redactURL(creds.endpoint), err)
		}
	} else {
		tok, err := azidentity.NewDefaultAzureCredential(nil)
		if err != nil {
			return nil, fmt.Errorf("%w: no Entra ID credential available (az login, managed or workload identity): %v",
				ErrAuth, err)
		}
		if cl, err = azcosmos.NewClient(creds.endpoint, tok, opts); err != nil {
			return nil, fmt.Errorf("client for %s: %w", redactURL(creds.endpoint), err)
		}
		pager := cl.NewQueryDatabasesPager("SELECT VALUE c.id FROM c", nil)
		if _, err := pager.NextPage(vctx); err != nil {
			cl.Close()
			return nil, accountError(creds.endpoint, err)
		}
	}
	return &Target{
		Client: cl,
		Info: record.TargetInfo{
			Endpoint:   redactURL(creds.endpoint),
			Engine:     engineName,
			SDKVersion: SDKVersion,
			Charges:    charges,
		},
		Close: closer(func(context.Context) error { cl.Close(); return nil }),
	}, nil
}

// servedCharges is the label of a serve's charges from its engine.ChargesHeader: kept when it is a
// label cost.ChargesLabel writes for another card than the built-in one ("model (…)", printable
// ASCII, at most 300 bytes); "" otherwise, and the charges are labelled plain "model".
func servedCharges(label string) string {
	if len(label) > 300 || !strings.HasPrefix(label, "model (") || !strings.HasSuffix(label, ")") {
		return ""
	}
	for i := 0; i < len(label); i++ {
		if label[i] < 0x20 || label[i] > 0x7e {
			return ""
		}
	}
	return label
}

// statusError turns the status of the verification request into a sentinel error.
func statusError(endpoint string, status int) error {
	switch {
	case status >= 200 && status < 300:
		return nil
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("%w: %s answered %d to a key-signed request", ErrAuth, redactURL(endpoint), status)
	case status == http.StatusTooManyRequests:
		return fmt.Errorf("%w: %s answered 429 to the first request", ErrThrottled, redactURL(endpoint))
	default:
		return fmt.Errorf("%w: %s answered %d to list databases", ErrUnreachable, redactURL(endpoint), status)
	}
}

// accountError classifies the first SDK request's failure.
func accountError(endpoint string, err error) error {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		if c := classify(err); c != nil {
			return fmt.Errorf("%w: %s: %w", c, redactURL(endpoint), err)
		}
		return fmt.Errorf("%s: %w", redactURL(endpoint), err)
	}
	var authErr *azidentity.AuthenticationFailedError
	if errors.As(err, &authErr) || strings.Contains(err.Error(), "DefaultAzureCredential") {
		return fmt.Errorf("%w: Entra ID sign-in failed (az login, managed or workload identity): %v", ErrAuth, err)
	}
	return unreachable(endpoint, err)
}

func unreachable(endpoint string, err error) error {
	if errors.Is(err, ErrUnreachable) {
		return fmt.Errorf("%s: %w", redactURL(endpoint), err)
	}
	return fmt.Errorf("%w: %s: %v", ErrUnreachable, redactURL(endpoint), shortNetError(err))
}

func hostOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
