package engine

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// Limits of the service (concepts-limits.md): an item is at most 2 MB; a request body too.
const (
	maxItemBytes    = 2 * 1024 * 1024
	maxRequestBytes = 4 * 1024 * 1024
)

// Substatus codes the SDKs and the troubleshooting guides name
// (azure-sdk-for-java docs/StatusCodes.md).
const (
	subPKMismatch          = 1001
	subCrossPartitionQuery = 1004
	subRUBudgetExceeded    = 3200
)

// apiError is an error with the service's status, substatus and message.
type apiError struct {
	status, sub int
	msg         string
	charge      float64
	retryAfter  time.Duration
	info        string         // additionalErrorInfo (a cross-partition query's plan, queryplan.go)
	fault       *sql.EvalFault // the evaluator's recovered panic behind a 400, logged by ServeHTTP
}

func (e *apiError) Error() string { return e.msg }

func errf(status int, format string, args ...any) *apiError {
	return &apiError{status: status, msg: fmt.Sprintf(format, args...)}
}

var statusCodes = map[int]string{
	400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
	409: "Conflict", 412: "PreconditionFailed", 413: "RequestEntityTooLarge", 424: "FailedDependency",
	429: "TooManyRequests", 500: "InternalServerError",
}

// request is one decoded HTTP request.
type request struct {
	r      *http.Request
	w      http.ResponseWriter
	segs   []string
	body   []byte
	hdr    http.Header
	charge float64
	out    http.Header
	route  *route // the routing table's row that matched (router.go)
	// ridLink is the resource id a resource-id address is signed over (ridlinks.go); "" when the
	// address is name-based.
	ridLink string
	cons    cost.Consistency // the level the request reads at (requestConsistency)
	// tw is the connection's writer, recording whether the status line has gone out, so that a
	// recovered panic knows whether it can still answer (recoverPanic).
	tw trackingWriter
}

// trackingWriter is an http.ResponseWriter that records whether WriteHeader (or Write) was called.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackingWriter) WriteHeader(status int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(status)
}

func (t *trackingWriter) Write(b []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(b)
}

// header returns a request header by its canonical name. The server canonicalises the names of
// incoming headers, so a map lookup finds them without http.Header.Get canonicalising the name
// again on every call (TestRequestHeaderNamesAreCanonical keeps the names given here canonical).
func (q *request) header(canonicalKey string) string {
	if v := q.hdr[canonicalKey]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (q *request) consistency() cost.Consistency {
	if q.cons != "" {
		return q.cons
	}
	if c := q.header("X-Ms-Consistency-Level"); c != "" {
		return cost.Consistency(c)
	}
	return cost.Session
}

// ServeHTTP authenticates and dispatches one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var start time.Time
	if s.debug {
		start = time.Now()
	}
	q := &request{r: r, hdr: r.Header, out: w.Header(), tw: trackingWriter{ResponseWriter: w}}
	q.w = &q.tw
	defer s.recoverPanic(q)
	setHeader(q.out, "x-ms-activity-id", s.activityID())
	setHeader(q.out, "x-ms-gatewayversion", "version=2.14.0")
	setHeader(q.out, "Content-Type", "application/json")
	q.segs, q.ridLink = s.resolveRIDLink(gatewaySegments(r)) // gateway.go
	status, err := s.serve(q)
	if err != nil {
		var ae *apiError
		if !errors.As(err, &ae) {
			ae = &apiError{status: 500, msg: err.Error()}
		}
		status = ae.status
		if ae.fault != nil {
			s.log.Error("engine request failed: the evaluator failed on its query", "activityId", headerValue(q.out, "x-ms-activity-id"),
				"method", r.Method, "path", r.URL.Path, "panic", ae.fault.Value, "stack", string(ae.fault.Stack))
		}
		s.writeError(q, ae)
	}
	if s.debug {
		s.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", status, "charge", q.charge, "took", time.Since(start))
	}
}

// recoverPanic turns a panic while serving q into a logged error and a 500: the request's activity
// id, method, path and the stack go to the log, the client gets the activity id to quote. Locks are
// released by defer where they are taken, so the engine serves on. A response already under way
// cannot be replaced; the connection is then aborted (http.ErrAbortHandler, which net/http does
// not log again).
func (s *Server) recoverPanic(q *request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	id := headerValue(q.out, "x-ms-activity-id")
	s.log.Error("engine request failed: internal error", "activityId", id, "method", q.r.Method, "path", q.r.URL.Path,
		"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	if q.tw.wrote {
		panic(http.ErrAbortHandler)
	}
	for _, k := range []string{"Etag", "x-ms-continuation", "x-ms-item-count", "x-ms-session-token", "x-ms-substatus"} {
		delete(q.out, k)
	}
	q.w = &q.tw
	s.writeError(q, errf(500, "The engine failed while serving this request (an internal error, logged with activity id %s); read the resource again before retrying a write, and report the request.", id))
}

func (s *Server) serve(q *request) (int, error) {
	if err := checkAddress(q); err != nil {
		return 0, err
	}
	if err := s.authorize(q); err != nil {
		return 0, err
	}
	cons, err := s.requestConsistency(q)
	if err != nil {
		return 0, err
	}
	q.cons = cons
	if q.r.Body != nil && q.r.Method != http.MethodGet {
		b, err := readBody(q.r)
		if err != nil {
			return 0, err
		}
		q.body = b
	}
	if s.wal != nil && metaMutation(q) {
		return s.routeDurably(q)
	}
	return s.route(q)
}

func errTooLarge() error {
	return errf(413, "The request payload is larger than the service allows.")
}

// readBody reads a request body of at most maxRequestBytes into one buffer with systemRoom bytes
// to spare, so that an item written by the request is stored in that same buffer (buildDoc).
func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > maxRequestBytes {
		return nil, errTooLarge()
	}
	size := 512
	if r.ContentLength >= 0 {
		size = int(r.ContentLength)
	}
	b := make([]byte, 0, size+systemRoom)
	for {
		var err error
		if len(b) == cap(b)-systemRoom {
			// Full up to the room: the end of the body, or more than was announced.
			var one [1]byte
			var n int
			if n, err = r.Body.Read(one[:]); n == 1 {
				if len(b) >= maxRequestBytes {
					return nil, errTooLarge()
				}
				// Double, but not far past the limit.
				b = append(slices.Grow(b, min(len(b), maxRequestBytes-len(b))+systemRoom+1), one[0])
			}
		} else {
			var n int
			n, err = r.Body.Read(b[len(b) : cap(b)-systemRoom])
			b = b[:len(b)+n]
		}
		switch {
		case err == io.EOF && len(b) > maxRequestBytes:
			return nil, errTooLarge()
		case err == io.EOF:
			return b, nil
		case err != nil:
			return nil, errf(400, "The request body could not be read.")
		}
	}
}

// authorize verifies the master-key signature (access-control-on-cosmosdb-resources in the REST
// docs): HMAC-SHA256 over "verb\nresourceType\nresourceLink\ndate\n\n" with the decoded key.
func (s *Server) authorize(q *request) error {
	auth := q.header("Authorization")
	if auth == "" {
		return errf(401, "Required Authorization header is missing.")
	}
	date := q.header("X-Ms-Date")
	if date == "" {
		date = q.header("Date")
	}
	if date == "" {
		return errf(401, "The request has no x-ms-date header.")
	}
	if err := checkDate(date, time.Now()); err != nil {
		return err
	}
	rtype, link := resourceOf(q.segs)
	// A rid-based link is signed lower-cased (azcosmos shared_key_credential.go, isRidBased); a
	// name-based link keeps its case, as the service requires.
	if q.ridLink != "" {
		link = strings.ToLower(q.ridLink)
	} else if rtype == "offers" && len(q.segs) == 2 {
		link = strings.ToLower(link)
	} else if !isCompute(q.r) {
		link = routingLink(link) // gateway.go
	}
	verb := strings.ToLower(q.r.Method)
	date = strings.ToLower(date)
	signed := signedRequest{verb: verb, rtype: rtype, link: link, date: date}
	if s.auth.verified(auth, signed) {
		return nil
	}
	decoded, err := url.QueryUnescape(auth)
	if err != nil {
		return errf(401, "The authorization token is not well formed.")
	}
	// Split by hand: the signature is base64 and its '+' must not become a space.
	var typ, sigText string
	for kv := range strings.SplitSeq(decoded, "&") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "type":
			typ = v
		case "sig":
			sigText = v
		}
	}
	if typ == "aad" && s.opts.AllowAAD {
		return s.checkAAD(sigText)
	}
	if typ != "master" || sigText == "" || base64.StdEncoding.DecodedLen(len(sigText)) > 64 {
		return errf(401, "The authorization token is not well formed.")
	}
	var sigBuf [64]byte
	n, err := base64.StdEncoding.Decode(sigBuf[:], []byte(sigText))
	if err != nil {
		return errf(401, "The authorization token is not well formed.")
	}
	sig := sigBuf[:n]
	mac := s.auth.macs.Get().(hash.Hash)
	defer s.auth.macs.Put(mac)
	var sum [sha256.Size]byte
	mac.Reset()
	io.WriteString(mac, verb)
	io.WriteString(mac, "\n")
	io.WriteString(mac, rtype)
	io.WriteString(mac, "\n")
	io.WriteString(mac, link)
	io.WriteString(mac, "\n")
	io.WriteString(mac, date)
	io.WriteString(mac, "\n\n")
	if hmac.Equal(mac.Sum(sum[:0]), sig) {
		s.auth.remember(auth, signed)
		return nil
	}
	return errf(401, "The input authorization token can't serve the request. The wrong key is being used or the expected payload is not built as per the protocol.")
}

// signedRequest is what a master-key signature covers.
type signedRequest struct{ verb, rtype, link, date string }

// authCache remembers signatures already verified, each with the request it was verified for.
// The SDK signs verb, resource and date to the second, so within a second every create into a
// container, and every query of it, carries the same Authorization header: the cache spares the
// HMAC for all but the first. A header is accepted from the cache only for the exact request it
// was verified for, which is what verifying it again would conclude.
type authCache struct {
	macs sync.Pool // hmac.New(sha256.New, key), reset before use

	mu   sync.Mutex
	seen map[string]signedRequest // Authorization header → the request it verified
}

// authCacheSize bounds the cache; it is emptied when full (entries are worth a second or so).
const authCacheSize = 1024

func newAuthCache(key []byte) *authCache {
	return &authCache{macs: sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}, seen: map[string]signedRequest{}}
}

func (a *authCache) verified(header string, r signedRequest) bool {
	a.mu.Lock()
	got, ok := a.seen[header]
	a.mu.Unlock()
	return ok && got == r
}

func (a *authCache) remember(header string, r signedRequest) {
	a.mu.Lock()
	if len(a.seen) >= authCacheSize {
		clear(a.seen)
	}
	a.seen[header] = r
	a.mu.Unlock()
}

// resourceOf derives the signed resource type and link from the path segments: an odd count names
// a feed under its parent, an even count names a resource.
func resourceOf(segs []string) (rtype, link string) {
	switch {
	case len(segs) == 0:
		return "", ""
	case len(segs) == 2 && segs[0] == "offers":
		return "offers", segs[1] // rid-based: the link is the offer's rid alone
	case len(segs)%2 == 1:
		return segs[len(segs)-1], strings.Join(segs[:len(segs)-1], "/")
	default:
		return segs[len(segs)-2], strings.Join(segs, "/")
	}
}

func (s *Server) writeError(q *request, e *apiError) {
	code := statusCodes[e.status]
	if code == "" {
		code = http.StatusText(e.status)
	}
	if e.sub != 0 {
		setHeader(q.out, "x-ms-substatus", strconv.Itoa(e.sub))
	}
	if e.retryAfter > 0 {
		setHeader(q.out, "x-ms-retry-after-ms", strconv.FormatInt(max(e.retryAfter.Milliseconds(), 1), 10))
	}
	q.charge += e.charge
	setHeader(q.out, "x-ms-request-charge", formatCharge(q.charge))
	fields := map[string]string{"code": code, "message": e.msg + "\r\nActivityId: " + headerValue(q.out, "x-ms-activity-id") + ", cosmosdv-engine"}
	if e.info != "" {
		fields["additionalErrorInfo"] = e.info
	}
	body, _ := json.Marshal(fields)
	// Set here: a response held for a checkpoint (routeDurably) may have set the length of a body
	// that is not the one sent.
	setHeader(q.out, "Content-Length", strconv.Itoa(len(body)))
	q.w.WriteHeader(e.status)
	q.w.Write(body)
}

// setHeader sets a response header under exactly the name given, skipping the canonicalisation
// (and its allocation) that http.Header.Set does on every call. Names are given in one of two
// forms: the service's own x-ms-* headers in lower case, as the service sends them and as HTTP/2
// carries every name (net/http would otherwise lower-case them afresh, allocating, on every
// response); the standard headers (Content-Type, Content-Length, Etag) in canonical form, since
// net/http looks those up by their canonical names.
func setHeader(h http.Header, key, v string) { h[key] = []string{v} }

// headerValue reads a header set by setHeader, under the same name.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func formatCharge(c float64) string { return strconv.FormatFloat(c, 'f', 2, 64) }

// reply writes a successful response with the accumulated charge.
func (s *Server) reply(q *request, status int, body []byte) (int, error) {
	setHeader(q.out, "x-ms-request-charge", formatCharge(q.charge))
	if headerValue(q.out, "x-ms-session-token") == "" {
		setHeader(q.out, "x-ms-session-token", "0:-1#"+strconv.FormatInt(s.lsn.Load(), 10))
	}
	if body == nil {
		q.out.Del("Content-Type")
		setHeader(q.out, "Content-Length", "0")
	} else {
		setHeader(q.out, "Content-Length", strconv.Itoa(len(body)))
	}
	q.w.WriteHeader(status)
	if body != nil {
		q.w.Write(body)
	}
	return status, nil
}

func isQuery(q *request) bool {
	return strings.EqualFold(q.header("X-Ms-Documentdb-Isquery"), "true") ||
		strings.HasPrefix(q.header("Content-Type"), "application/query+json")
}

// account answers GET /: the database account, advertising this server as its only region.
func (s *Server) account(q *request) (int, error) {
	setHeader(q.out, EngineHeader, "validate")
	setHeader(q.out, ChargesHeader, cost.ChargesLabel(s.opts.RateCard))
	endpoint := s.public
	if isCompute(q.r) {
		endpoint = s.computeURL // the compute gateway keeps its clients on itself
	}
	loc := []map[string]string{{"name": "South Central US", "databaseAccountEndpoint": endpoint}}
	body, _ := json.Marshal(map[string]any{
		"_self": "", "id": "localhost", "_rid": "localhost",
		"media": "//media/", "addresses": "//addresses/", "_dbs": "//dbs/",
		"writableLocations":            loc,
		"readableLocations":            loc,
		"enableMultipleWriteLocations": false,
		"userReplicationPolicy":        map[string]int{"asyncReplication": 0, "minReplicaSetSize": 1, "maxReplicasetSize": 4},
		"userConsistencyPolicy":        map[string]string{"defaultConsistencyLevel": string(s.defaultConsistency())},
		"systemReplicationPolicy":      map[string]int{"minReplicaSetSize": 1, "maxReplicasetSize": 4},
		"readPolicy":                   map[string]int{"primaryReadCoefficient": 1, "secondaryReadCoefficient": 1},
		"queryEngineConfiguration":     "{\"maxSqlQueryInputLength\":262144,\"maxJoinsPerSqlQuery\":5,\"maxLogicalAndPerSqlQuery\":500,\"maxLogicalOrPerSqlQuery\":500,\"maxUdfRefPerSqlQuery\":10,\"maxInExpressionItemsCount\":16000,\"queryMaxInMemorySortDocumentCount\":500,\"maxQueryRequestTimeoutFraction\":0.9,\"sqlAllowNonFiniteNumbers\":false,\"sqlAllowAggregateFunctions\":true,\"sqlAllowSubQuery\":true,\"sqlAllowScalarSubQuery\":true,\"allowNewKeywords\":true,\"sqlAllowLike\":true,\"sqlAllowGroupByClause\":true,\"maxSpatialQueryCells\":12,\"spatialMaxGeometryPointCount\":256,\"sqlDisableOptimizationFlags\":0,\"sqlAllowTop\":true,\"enableSpatialIndexing\":true}",
	})
	return s.reply(q, 200, body)
}
