package engine

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// Microsoft Entra ID bearer tokens (Options.AllowAAD). The SDKs send them as
// "type=aad&ver=1.0&sig=<JWT>" (azcosmos v1.5.0 cosmosBearerTokenPolicy). A local engine cannot
// verify an Entra signature without the network, so it checks what it can and what code using
// DefaultAzureCredential gets wrong: a JWT of three base64url parts, a header naming its algorithm,
// an audience, an issuer, a subject, and a lifetime that includes now. Data-plane role assignments
// are not evaluated: an accepted token may do everything the master key may.

// aadSkew is the clock skew allowed on exp and nbf (the service's tokens carry a few minutes).
const aadSkew = 5 * time.Minute

func (s *Server) checkAAD(token string) error {
	bad := func(why string) error {
		return errf(401, "The Microsoft Entra ID token is not valid: %s.", why)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return bad("want a JWT of three base64url parts separated by dots")
	}
	var header struct {
		Alg string `json:"alg"`
		Typ string `json:"typ"`
	}
	if err := decodeJWTPart(parts[0], &header); err != nil || header.Alg == "" {
		return bad("its header is not base64url JSON naming an algorithm (alg)")
	}
	if strings.EqualFold(header.Alg, "none") || parts[2] == "" {
		// The signature itself is not verified (it cannot be offline), but Entra ID never issues
		// an unsigned token: one is forged by construction.
		return bad("it is unsigned (alg none, or no signature part); Microsoft Entra ID issues signed tokens")
	}
	var claims struct {
		Aud any      `json:"aud"`
		Iss string   `json:"iss"`
		Sub string   `json:"sub"`
		Oid string   `json:"oid"`
		Exp *float64 `json:"exp"`
		Nbf *float64 `json:"nbf"`
	}
	if err := decodeJWTPart(parts[1], &claims); err != nil {
		return bad("its claims are not base64url JSON")
	}
	now := s.now()
	switch {
	case claims.Exp == nil:
		return bad("it has no expiry (exp)")
	case time.Unix(int64(*claims.Exp), 0).Add(aadSkew).Before(now):
		return bad("it expired at " + time.Unix(int64(*claims.Exp), 0).UTC().Format(time.RFC3339) + "; get a fresh token")
	case claims.Nbf != nil && time.Unix(int64(*claims.Nbf), 0).Add(-aadSkew).After(now):
		return bad("it is not valid before " + time.Unix(int64(*claims.Nbf), 0).UTC().Format(time.RFC3339))
	case !hasAudience(claims.Aud):
		return bad("it has no audience (aud); request it for the scope https://cosmos.azure.com/.default")
	case claims.Iss == "":
		return bad("it has no issuer (iss)")
	case claims.Sub == "" && claims.Oid == "":
		return bad("it names no principal (sub or oid)")
	}
	return nil
}

func decodeJWTPart(p string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(p, "="))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func hasAudience(aud any) bool {
	switch a := aud.(type) {
	case string:
		return a != ""
	case []any:
		for _, x := range a {
			if s, ok := x.(string); ok && s != "" {
				return true
			}
		}
	}
	return false
}
