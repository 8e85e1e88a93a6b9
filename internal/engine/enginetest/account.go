package enginetest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	azpolicy "github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// Account describes an endpoint configured as an account: its default consistency, the
// certificate it serves, and whether it accepts Entra ID tokens.
type Account struct {
	Endpoint, Key string
	// Consistency is the account's default level as the service names it ("Strong", "Session").
	Consistency string
	// CertPEM is the HTTPS certificate to trust (nil over http): the suite trusts it alone.
	CertPEM []byte
	// AAD says the endpoint accepts Entra ID bearer tokens.
	AAD bool
}

// RunAccount checks an endpoint configured as a: the default consistency on GET / and in the
// charges of reads, a request that relaxes it and one that would strengthen it, the certificate
// trusted from its PEM alone, and Entra ID tokens accepted when well formed and current and refused
// when expired (or refused altogether when a.AAD is false).
func RunAccount(t *testing.T, a Account) {
	t.Helper()
	ctx := context.Background() // no deadline: go test's -timeout ends a hang with every stack
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if a.CertPEM != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(a.CertPEM) {
			t.Fatal("the certificate PEM holds no certificate")
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	hc := &http.Client{Transport: transport}
	opts := &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: hc,
		Retry: azpolicy.RetryOptions{MaxRetries: -1}}}
	cred, err := azcosmos.NewKeyCredential(a.Key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(a.Endpoint, cred, opts)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("DefaultConsistency", func(t *testing.T) {
		got, err := accountConsistency(ctx, hc, a.Endpoint, a.Key)
		if err != nil {
			t.Fatalf("GET /: %v", err)
		}
		if got != a.Consistency {
			t.Errorf("GET / reports defaultConsistencyLevel %q, want %q", got, a.Consistency)
		}
	})
	t.Run("ConsistencyCharges", func(t *testing.T) {
		dbID := fmt.Sprintf("cdvacct-%d", time.Now().UnixNano())
		if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil); err != nil {
			t.Fatalf("create database (the certificate trusted from its PEM): %v", err)
		}
		db, _ := client.NewDatabase(dbID)
		t.Cleanup(func() { _, _ = db.Delete(context.Background(), nil) })
		c := createContainer(ctx, t, db, azcosmos.ContainerProperties{ID: "c",
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}, 0)
		pk := azcosmos.NewPartitionKeyString("p")
		if _, err := c.CreateItem(ctx, pk, []byte(`{"id":"x","pk":"p"}`), nil); err != nil {
			t.Fatalf("create: %v", err)
		}
		def, err := c.ReadItem(ctx, pk, "x", nil)
		if err != nil {
			t.Fatalf("read at the default level: %v", err)
		}
		eventual := azcosmos.ConsistencyLevelEventual
		relaxed, err := c.ReadItem(ctx, pk, "x", &azcosmos.ItemOptions{ConsistencyLevel: &eventual})
		if err != nil {
			t.Fatalf("read relaxed to Eventual: %v", err)
		}
		want := float32(1)
		if a.Consistency == "Strong" || a.Consistency == "BoundedStaleness" {
			want = 2 // consistency-levels.md: reads at Strong and Bounded Staleness cost twice
		}
		if got := def.RequestCharge / relaxed.RequestCharge; got != want {
			t.Errorf("a read at the account's %s costs %.2f RU, at Eventual %.2f RU: ratio %.2f, want %.0f",
				a.Consistency, def.RequestCharge, relaxed.RequestCharge, got, want)
		}
		if a.Consistency != "Strong" {
			strong := azcosmos.ConsistencyLevelStrong
			_, err := c.ReadItem(ctx, pk, "x", &azcosmos.ItemOptions{ConsistencyLevel: &strong})
			wantStatus(t, "a read asking for Strong on a "+a.Consistency+" account", err, http.StatusBadRequest)
		}
	})
	t.Run("EntraID", func(t *testing.T) {
		aadOpts := *opts
		aadOpts.Cloud = cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			azcosmos.ServiceName: {Audience: "https://cosmos.azure.com"}}}
		fresh, err := azcosmos.NewClient(a.Endpoint, fakeToken{exp: time.Now().Add(time.Hour)}, &aadOpts)
		if err != nil {
			t.Fatal(err)
		}
		dbID := fmt.Sprintf("cdvaad-%d", time.Now().UnixNano())
		_, err = fresh.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil)
		if !a.AAD {
			wantStatus(t, "an Entra ID token where none is accepted", err, http.StatusUnauthorized)
			return
		}
		if err != nil {
			t.Fatalf("create database with an Entra ID token: %v", err)
		}
		db, _ := fresh.NewDatabase(dbID)
		t.Cleanup(func() { _, _ = db.Delete(context.Background(), nil) })
		expired, err := azcosmos.NewClient(a.Endpoint, fakeToken{exp: time.Now().Add(-time.Hour)}, &aadOpts)
		if err != nil {
			t.Fatal(err)
		}
		_, err = expired.NewDatabase(dbID)
		if err == nil {
			d, _ := expired.NewDatabase(dbID)
			_, err = d.Read(ctx, nil)
		}
		wantStatus(t, "an expired Entra ID token", err, http.StatusUnauthorized)
	})
}

// fakeToken is a credential that issues unsigned JWTs shaped like Entra ID's.
type fakeToken struct{ exp time.Time }

func (f fakeToken) GetToken(_ context.Context, o azpolicy.TokenRequestOptions) (azcore.AccessToken, error) {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	aud := "https://cosmos.azure.com"
	if len(o.Scopes) > 0 {
		aud = strings.TrimSuffix(o.Scopes[0], "/.default")
	}
	tok := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(map[string]any{
		"aud": aud, "iss": "https://sts.windows.net/00000000-0000-0000-0000-000000000000/",
		"oid": "11111111-1111-1111-1111-111111111111", "sub": "developer",
		"nbf": time.Now().Add(-time.Hour).Unix(), "exp": f.exp.Unix()}) + ".c2lnbmF0dXJl"
	return azcore.AccessToken{Token: tok, ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// accountConsistency reads GET / signed with the master key and returns its default level.
func accountConsistency(ctx context.Context, hc *http.Client, endpoint, key string) (string, error) {
	k, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return "", err
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	mac := hmac.New(sha256.New, k)
	mac.Write([]byte("get\n\n\n" + strings.ToLower(date) + "\n\n"))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2020-07-15")
	req.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+base64.StdEncoding.EncodeToString(mac.Sum(nil))))
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	var acct struct {
		Policy struct {
			Level string `json:"defaultConsistencyLevel"`
		} `json:"userConsistencyPolicy"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&acct); err != nil {
		return "", err
	}
	return acct.Policy.Level, nil
}
