package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cosmosdv/validate/internal/engine/sql"
)

// robustContainer creates database db and container c (key /pk) with one item, through raw
// requests.
func robustContainer(t *testing.T, s *Server) {
	t.Helper()
	if resp, b := raw(t, s, "POST", "/dbs", nil, []byte(`{"id":"db"}`)); resp.StatusCode != 201 {
		t.Fatalf("create database: %d %s", resp.StatusCode, b)
	}
	if resp, b := raw(t, s, "POST", "/dbs/db/colls", nil, []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)); resp.StatusCode != 201 {
		t.Fatalf("create container: %d %s", resp.StatusCode, b)
	}
	if resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}, []byte(`{"id":"1","pk":"p","s":"abc"}`)); resp.StatusCode != 201 {
		t.Fatalf("create item: %d %s", resp.StatusCode, b)
	}
}

// hangGuard runs f, a request that must return: one that waits on a partition lock never
// released hangs, and go test's -timeout ends the binary with every goroutine's stack, which shows
// the request blocked on the lock. It has no wall-clock bound of its own, which a busy machine
// could reach with the lock free; what names the step that hung is the stack.
func hangGuard(t *testing.T, what string, f func()) {
	t.Helper()
	t.Logf("%s: must return (a hang here means a partition lock was left held)", what)
	f()
}

// Issue 30, item 1: `SELECT VALUE SUBSTRING('x', 9223372036854775807, 1) FROM c` panicked on a
// float-to-int conversion with the partition's read lock held; the connection dropped without an
// answer and the next write to the partition hung. Every reproduction of the issue now answers,
// and the partition serves writes after them.
func TestPanics_ExtremeBuiltinArgsAnswer(t *testing.T) {
	s, _ := startEngine(t, Options{})
	robustContainer(t, s)
	for _, tc := range []struct{ query, want string }{
		{`SELECT VALUE SUBSTRING('x', 9223372036854775807, 1) FROM c`, `"Documents":[""]`},
		{`SELECT VALUE LEFT(c.s, 9223372036854775808) FROM c`, `"Documents":["abc"]`},
		{`SELECT VALUE RIGHT(c.s, 1e308) FROM c`, `"Documents":["abc"]`},
		{`SELECT VALUE DateTimeBin('2020-01-01T00:00:00Z', 'ns') FROM c`, `"Documents":[]`},
	} {
		hangGuard(t, tc.query, func() {
			status, body, _ := queryPage(t, s, tc.query, "")
			if status != 200 || !strings.Contains(string(body), tc.want) {
				t.Errorf("%s: %d %s, want 200 with %s", tc.query, status, body, tc.want)
			}
		})
	}
	// The same in a patch condition.
	pk := map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}
	hangGuard(t, "a patch with LEFT(c.s, 1e308) in its condition", func() {
		resp, b := raw(t, s, "PATCH", "/dbs/db/colls/c/docs/1", pk,
			[]byte(`{"condition":"FROM c WHERE LEFT(c.s, 1e308) = 'abc'","operations":[{"op":"set","path":"/n","value":1}]}`))
		if resp.StatusCode != 200 {
			t.Errorf("patch: %d %s", resp.StatusCode, b)
		}
	})
	hangGuard(t, "a write after them", func() {
		if resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", pk, []byte(`{"id":"2","pk":"p"}`)); resp.StatusCode != 201 {
			t.Errorf("write after the queries: %d %s", resp.StatusCode, b)
		}
	})
}

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// A panic in a handler is recovered: logged with the request's activity id and answered 500 with
// that id, and the partition lock the handler held is released (every lock is taken with a
// deferred release), so the next write goes through.
func TestPanics_RecoveredLoggedAnswered500(t *testing.T) {
	var logs syncBuffer
	s, _ := startEngine(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	robustContainer(t, s)
	// A fault inside a partition's write lock, the way a bug in committing a write would fail: the
	// partition's map of logical partitions taken away, so adding a new one writes to a nil map.
	c, err := s.lookupContainer("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	p := c.parts[0]
	p.mu.Lock()
	logical := p.logical
	p.logical = nil
	p.mu.Unlock()
	pk := map[string]string{"x-ms-documentdb-partitionkey": `["q"]`}
	var resp *http.Response
	var body []byte
	hangGuard(t, "the failing request", func() { resp, body = raw(t, s, "POST", "/dbs/db/colls/c/docs", pk, []byte(`{"id":"2","pk":"q"}`)) })
	hangGuard(t, "taking the partition lock after the fault", func() {
		p.mu.Lock()
		p.logical = logical
		p.mu.Unlock()
	})
	id := resp.Header.Get("x-ms-activity-id")
	if resp.StatusCode != 500 || id == "" || !strings.Contains(string(body), id) {
		t.Errorf("panicking request: %d %s (activity id %q), want a 500 naming its activity id", resp.StatusCode, body, id)
	}
	if l := logs.String(); !strings.Contains(l, id) || !strings.Contains(l, "nil map") {
		t.Errorf("log does not name activity id %s and the panic:\n%s", id, l)
	}
	hangGuard(t, "a write after the panic", func() {
		if resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}, []byte(`{"id":"3","pk":"p"}`)); resp.StatusCode != 201 {
			t.Errorf("write after the panic: %d %s", resp.StatusCode, b)
		}
	})
}

// Issue 30, item 2: a patch `move` from /id (or from the partition key) answered 200 and stored an
// item without an id (or with another key), single and in a batch; a --persist server then refused
// to start ("record 7: no string id"). Such moves are refused like `set /id`, the item is left as it
// was, and the server restarts on its files.
func TestPatch_MoveFromIDOrKeyRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snap.json")
	s, err := Start(context.Background(), Options{PersistPath: path})
	if err != nil {
		t.Fatal(err)
	}
	robustContainer(t, s)
	pk := map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}
	for _, op := range []string{
		`{"op":"move","from":"/id","path":"/x"}`,
		`{"op":"move","from":"/pk","path":"/x"}`,
		`{"op":"move","from":"/_rid","path":"/x"}`,
		`{"op":"move","from":"/s","path":"/id"}`,
	} {
		resp, b := raw(t, s, "PATCH", "/dbs/db/colls/c/docs/1", pk, []byte(`{"operations":[`+op+`]}`))
		if resp.StatusCode != 400 {
			t.Errorf("patch %s: %d %s, want 400", op, resp.StatusCode, b)
		}
		batch := `[{"operationType":"Patch","id":"1","resourceBody":{"operations":[` + op + `]}}]`
		resp, b = raw(t, s, "POST", "/dbs/db/colls/c/docs", map[string]string{"x-ms-documentdb-partitionkey": `["p"]`,
			"x-ms-cosmos-is-batch-request": "true", "x-ms-cosmos-batch-atomic": "true"}, []byte(batch))
		if resp.StatusCode != 207 || !strings.Contains(string(b), `"statusCode":400`) {
			t.Errorf("batch patch %s: %d %s, want 207 with the operation's 400", op, resp.StatusCode, b)
		}
	}
	if resp, b := raw(t, s, "GET", "/dbs/db/colls/c/docs/1", pk, nil); resp.StatusCode != 200 || !strings.Contains(string(b), `"id":"1","pk":"p","s":"abc"`) {
		t.Errorf("item after the refused patches: %d %s", resp.StatusCode, b)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	s2, err := Start(context.Background(), Options{PersistPath: path})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer s2.Close(context.Background())
	if resp, b := raw(t, s2, "GET", "/dbs/db/colls/c/docs/1", pk, nil); resp.StatusCode != 200 {
		t.Errorf("item after restart: %d %s", resp.StatusCode, b)
	}
}

// persistedContainer leaves at path the snapshot of a database db with container c (key /pk) and
// no items, as a clean stop leaves it.
func persistedContainer(t *testing.T, path string) {
	t.Helper()
	s, err := Start(context.Background(), Options{PersistPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if resp, b := raw(t, s, "POST", "/dbs", nil, []byte(`{"id":"db"}`)); resp.StatusCode != 201 {
		t.Fatalf("create database: %d %s", resp.StatusCode, b)
	}
	if resp, b := raw(t, s, "POST", "/dbs/db/colls", nil, []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)); resp.StatusCode != 201 {
		t.Fatalf("create container: %d %s", resp.StatusCode, b)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// logOf100 is a log of 100 item creates in db/c, as a crash leaves it, and the offset of each
// record.
func logOf100() ([]byte, []int) {
	var b []byte
	var offs []int
	for i := range 100 {
		offs = append(offs, len(b))
		item := fmt.Sprintf(`{"id":"i%d","pk":"p","_rid":"r%d","_etag":"\"e\"","_ts":1}`, i, i)
		b = appendFrame(b, &logRecord{DB: "db", Coll: "c", Items: []logRecDoc{{Op: logPut, ID: fmt.Sprintf("i%d", i), LPK: `["p"]`, Raw: json.RawMessage(item)}}})
	}
	return b, offs
}

func countItems(t *testing.T, s *Server) int {
	t.Helper()
	c, err := s.lookupContainer("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range c.parts {
		for _, lp := range p.logical {
			n += len(lp.byID)
		}
	}
	return n
}

// Issue 30, item 3: one flipped byte in record 3 of 100 silently dropped the 97 records after it,
// and compaction then deleted the log. Only a torn tail is dropped now; damage followed by valid
// records stops the start with the file and offset, and the log is kept. Records carry a version;
// another version, an unknown field or an unknown op is an error.
func TestPersist_DamagedLogRecord(t *testing.T) {
	t.Run("flipped byte in record 3 of 100", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "snap.json")
		persistedContainer(t, path)
		b, offs := logOf100()
		b[offs[3]+logFrame+5] ^= 0x20
		if err := os.WriteFile(path+".log", b, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Start(context.Background(), Options{PersistPath: path})
		if err == nil || !strings.Contains(err.Error(), path+".log") || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", offs[3])) {
			t.Fatalf("start: %v; want an error naming %s.log and offset %d", err, path, offs[3])
		}
		if kept, err := os.ReadFile(path + ".log"); err != nil || !bytes.Equal(kept, b) {
			t.Errorf("the log was not kept as it was: %v", err)
		}
	})
	t.Run("torn tail", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "snap.json")
		persistedContainer(t, path)
		b, offs := logOf100()
		b = b[:offs[99]+logFrame+7] // the last record cut in its payload, as a crash leaves a write
		if err := os.WriteFile(path+".log", b, 0o600); err != nil {
			t.Fatal(err)
		}
		var logs syncBuffer
		s, err := Start(context.Background(), Options{PersistPath: path, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		defer s.Close(context.Background())
		if n := countItems(t, s); n != 99 {
			t.Errorf("%d items after replay, want 99", n)
		}
		if !strings.Contains(logs.String(), "torn tail") {
			t.Errorf("no warning of the dropped tail:\n%s", logs.String())
		}
	})
	t.Run("version-1 log", func(t *testing.T) {
		// A log left by a crash of the previous version (no marker, no version, null deletes) is
		// replayed under the same rule.
		var b []byte
		var offs []int
		for i := range 100 {
			offs = append(offs, len(b))
			payload := fmt.Sprintf(`{"d":"db","c":"c","o":[{"i":"i%d","k":"[\"p\"]","r":{"id":"i%d","pk":"p"}}]}`, i, i)
			var head [8]byte
			binary.LittleEndian.PutUint32(head[:4], uint32(len(payload)))
			binary.LittleEndian.PutUint32(head[4:], crc32.ChecksumIEEE([]byte(payload)))
			b = append(append(b, head[:]...), payload...)
		}
		path := filepath.Join(t.TempDir(), "snap.json")
		persistedContainer(t, path)
		torn := b[:offs[99]+20]
		os.WriteFile(path+".log", torn, 0o600)
		s, err := Start(context.Background(), Options{PersistPath: path})
		if err != nil {
			t.Fatalf("torn tail: %v", err)
		}
		if n := countItems(t, s); n != 99 {
			t.Errorf("%d items after replay, want 99", n)
		}
		s.Close(context.Background())
		path = filepath.Join(t.TempDir(), "snap.json")
		persistedContainer(t, path)
		b[offs[3]+8+5] ^= 0x20
		os.WriteFile(path+".log", b, 0o600)
		if _, err := Start(context.Background(), Options{PersistPath: path}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", offs[3])) {
			t.Errorf("damaged record 3: %v, want an error naming offset %d", err, offs[3])
		}
	})
	for name, tc := range map[string]struct{ payload, want string }{
		"unknown version": {`{"v":3,"d":"db","c":"c","o":[]}`, "record version 3"},
		"unknown field":   {`{"v":2,"d":"db","c":"c","o":[],"x":1}`, `unknown field "x"`},
		"unknown op":      {`{"v":2,"d":"db","c":"c","o":[{"op":"merge","i":"a","k":"[\"p\"]"}]}`, `unknown op "merge"`},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "snap.json")
			persistedContainer(t, path)
			var head [logFrame]byte
			copy(head[:4], logMagic[:])
			binary.LittleEndian.PutUint32(head[4:8], uint32(len(tc.payload)))
			binary.LittleEndian.PutUint32(head[8:], crc32.ChecksumIEEE([]byte(tc.payload)))
			if err := os.WriteFile(path+".log", append(head[:], tc.payload...), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Start(context.Background(), Options{PersistPath: path})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path+".log") {
				t.Errorf("start: %v; want an error naming the log and %q", err, tc.want)
			}
			if _, err := os.Stat(path + ".log"); err != nil {
				t.Errorf("the log was not kept: %v", err)
			}
		})
	}
}

// fullDisk simulates a disk that fills up: while full, every write to the persist log or to a
// snapshot writes half of what it is given and fails with ENOSPC, as a write(2) that runs out of
// space does.
type fullDisk struct{ full, noTruncate atomic.Bool }

type fullLog struct {
	*os.File
	d *fullDisk
}

func (f fullLog) Write(b []byte) (int, error) { return f.d.write(f.File, b) }

func (f fullLog) Truncate(size int64) error {
	if f.d.noTruncate.Load() {
		return &os.PathError{Op: "truncate", Path: f.Name(), Err: syscall.EIO}
	}
	return f.File.Truncate(size)
}

type fullSnap struct {
	*os.File
	d *fullDisk
}

func (f fullSnap) Write(b []byte) (int, error) { return f.d.write(f.File, b) }

func (d *fullDisk) write(f *os.File, b []byte) (int, error) {
	if !d.full.Load() {
		return f.Write(b)
	}
	n, _ := f.Write(b[:len(b)/2])
	return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
}

// installFullDisk routes the engine's persist files through a fullDisk until the test ends. Tests
// that call it must not run in parallel with others that persist.
func installFullDisk(t *testing.T) *fullDisk {
	d := &fullDisk{}
	oldLog, oldSnap := openLogFile, createSnapshotTemp
	openLogFile = func(path string, flag int) (logFile, error) {
		f, err := os.OpenFile(path, flag, 0o600)
		if err != nil {
			return nil, err
		}
		return fullLog{f, d}, nil
	}
	createSnapshotTemp = func(dir, pattern string) (snapshotFile, error) {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		return fullSnap{f, d}, nil
	}
	t.Cleanup(func() { openLogFile, createSnapshotTemp = oldLog, oldSnap })
	return d
}

// copyPersist copies the persist files as they are on disk now, as a crash would leave them.
func copyPersist(t *testing.T, path string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "snap.json")
	for _, suffix := range []string{"", ".log", ".log.old"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			continue
		}
		if err := os.WriteFile(dst+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// Issue 30, item 4: a container create whose snapshot hit ENOSPC answered a malformed 500 (the
// held 201's Content-Length with the error's body), yet the container existed and took 201
// writes, all gone after a restart; writes answered 500 stayed readable; after the first failure
// every write failed until a restart. Now a change that cannot be made durable is undone and
// answered a well-formed 500, a write that cannot be logged is undone before its 500, and both
// work again once space returns; every acknowledged write survives a crash.
func TestPersist_DiskFull(t *testing.T) {
	disk := installFullDisk(t)
	path := filepath.Join(t.TempDir(), "snap.json")
	s, err := Start(context.Background(), Options{PersistPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	robustContainer(t, s) // db, c and item 1
	pk := map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}

	disk.full.Store(true)
	resp, b := raw(t, s, "POST", "/dbs/db/colls", nil, []byte(`{"id":"c2","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`))
	if resp.StatusCode != 500 || resp.ContentLength != int64(len(b)) || !strings.Contains(string(b), "no space left") {
		t.Errorf("container create on a full disk: %d, Content-Length %d, %d bytes: %s; want a well-formed 500 naming the cause", resp.StatusCode, resp.ContentLength, len(b), b)
	}
	if resp, b := raw(t, s, "GET", "/dbs/db/colls/c2", nil, nil); resp.StatusCode != 404 {
		t.Errorf("the container whose create failed: %d %s, want 404", resp.StatusCode, b)
	}
	if resp, b := raw(t, s, "POST", "/dbs/db/colls/c2/docs", pk, []byte(`{"id":"x","pk":"p"}`)); resp.StatusCode != 404 {
		t.Errorf("a write into it: %d %s, want 404", resp.StatusCode, b)
	}
	for _, id := range []string{"2", "3"} {
		if resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", pk, []byte(`{"id":"`+id+`","pk":"p"}`)); resp.StatusCode != 500 {
			t.Errorf("create %s on a full disk: %d %s, want 500", id, resp.StatusCode, b)
		}
		if resp, b := raw(t, s, "GET", "/dbs/db/colls/c/docs/"+id, pk, nil); resp.StatusCode != 404 {
			t.Errorf("item %s, whose create failed: %d %s, want 404", id, resp.StatusCode, b)
		}
	}
	// A replace and a delete of the container are undone the same way.
	if resp, b := raw(t, s, "PUT", "/dbs/db/colls/c", nil, []byte(`{"id":"c","defaultTtl":60,"partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)); resp.StatusCode != 500 {
		t.Errorf("container replace on a full disk: %d %s, want 500", resp.StatusCode, b)
	}
	if resp, b := raw(t, s, "GET", "/dbs/db/colls/c", nil, nil); resp.StatusCode != 200 || strings.Contains(string(b), "defaultTtl") {
		t.Errorf("the container whose replace failed: %d %s, want it as it was (no defaultTtl)", resp.StatusCode, b)
	}
	if resp, b := raw(t, s, "DELETE", "/dbs/db/colls/c", nil, nil); resp.StatusCode != 500 {
		t.Errorf("container delete on a full disk: %d %s, want 500", resp.StatusCode, b)
	}
	if resp, b := raw(t, s, "GET", "/dbs/db/colls/c/docs/1", pk, nil); resp.StatusCode != 200 {
		t.Errorf("an item of the container whose delete failed: %d %s, want 200", resp.StatusCode, b)
	}
	if resp, b := raw(t, s, "DELETE", "/dbs/db/colls/c/docs/1", pk, nil); resp.StatusCode != 500 {
		t.Errorf("delete on a full disk: %d %s, want 500", resp.StatusCode, b)
	}
	if resp, b := raw(t, s, "GET", "/dbs/db/colls/c/docs/1", pk, nil); resp.StatusCode != 200 {
		t.Errorf("item 1, whose delete failed: %d %s, want 200", resp.StatusCode, b)
	}

	disk.full.Store(false) // space returns
	if resp, b := raw(t, s, "POST", "/dbs/db/colls", nil, []byte(`{"id":"c2","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)); resp.StatusCode != 201 {
		t.Fatalf("container create once space returned: %d %s", resp.StatusCode, b)
	}
	for i := range 5 {
		for _, coll := range []string{"c", "c2"} {
			if resp, b := raw(t, s, "POST", "/dbs/db/colls/"+coll+"/docs", pk, []byte(fmt.Sprintf(`{"id":"n%d","pk":"p"}`, i))); resp.StatusCode != 201 {
				t.Fatalf("write to %s once space returned: %d %s", coll, resp.StatusCode, b)
			}
		}
	}
	// A crash now: a server started on the files as they are holds every acknowledged write.
	s2, err := Start(context.Background(), Options{PersistPath: copyPersist(t, path)})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer s2.Close(context.Background())
	for _, coll := range []string{"c", "c2"} {
		for i := range 5 {
			if resp, b := raw(t, s2, "GET", fmt.Sprintf("/dbs/db/colls/%s/docs/n%d", coll, i), pk, nil); resp.StatusCode != 200 {
				t.Errorf("%s/n%d after the restart: %d %s", coll, i, resp.StatusCode, b)
			}
		}
	}
	for id, want := range map[string]int{"1": 200, "2": 404, "3": 404} {
		if resp, _ := raw(t, s2, "GET", "/dbs/db/colls/c/docs/"+id, pk, nil); resp.StatusCode != want {
			t.Errorf("item %s after the restart: %d, want %d", id, resp.StatusCode, want)
		}
	}
}

// Issue 30, item 8: a continuation token of query A on container c, sent with another query on
// container other, returned A's items from c; its key was the next activity id. Tokens are bound to
// their container and query (a keyed hash), a mismatch is a 400, and the cache key is random.
func TestContinuation_BoundToQueryAndContainer(t *testing.T) {
	s, _ := startEngine(t, Options{})
	robustContainer(t, s)
	if resp, b := raw(t, s, "POST", "/dbs/db/colls", nil, []byte(`{"id":"other","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)); resp.StatusCode != 201 {
		t.Fatalf("create container: %d %s", resp.StatusCode, b)
	}
	for i := range 5 {
		for _, coll := range []string{"c", "other"} {
			body := fmt.Sprintf(`{"id":"%s%d","pk":"p","secret":"%s"}`, coll, i, coll)
			if resp, b := raw(t, s, "POST", "/dbs/db/colls/"+coll+"/docs", map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}, []byte(body)); resp.StatusCode != 201 {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
		}
	}
	page := func(coll, text, ct string) (*http.Response, []byte) {
		hdr := map[string]string{"x-ms-documentdb-isquery": "true", "Content-Type": "application/query+json",
			"x-ms-documentdb-query-enablecrosspartition": "true", "x-ms-max-item-count": "2"}
		if ct != "" {
			hdr["x-ms-continuation"] = ct
		}
		return raw(t, s, "POST", "/dbs/db/colls/"+coll+"/docs", hdr, mustMarshal(map[string]any{"query": text}))
	}
	const a = "SELECT * FROM c WHERE c.secret = 'c'"
	resp, b := page("c", a, "")
	ct := resp.Header.Get("x-ms-continuation")
	if resp.StatusCode != 200 || ct == "" {
		t.Fatalf("first page: %d %s (continuation %q)", resp.StatusCode, b, ct)
	}
	var tok continuation
	if err := json.Unmarshal([]byte(ct), &tok); err != nil || len(tok.Key) != 32 || strings.Contains(tok.Key, s.idPrefix) {
		t.Errorf("token %s: the cache key should be 128 random bits in hex, not an activity id", ct)
	}
	for _, tc := range []struct{ coll, text string }{
		{"other", "SELECT * FROM c"},
		{"other", a},
		{"c", "SELECT * FROM c"},
	} {
		resp, b := page(tc.coll, tc.text, ct)
		if resp.StatusCode != 400 || strings.Contains(string(b), `"secret":"c"`) {
			t.Errorf("A's token with %q on %s: %d %s, want 400 and none of A's items", tc.text, tc.coll, resp.StatusCode, b)
		}
	}
	// A token whose binding was rewritten to another key's still cannot read another's cache entry.
	tok.Key = newCacheKey()
	forged, _ := json.Marshal(tok)
	if resp, b := page("c", a, string(forged)); resp.StatusCode != 200 || strings.Contains(string(b), `"secret":"other"`) {
		t.Errorf("a token with an unknown key: %d %s, want the query run again from its offset", resp.StatusCode, b)
	}
	// The token still pages its own query to the end.
	seen := 2
	for ct != "" {
		resp, b := page("c", a, ct)
		if resp.StatusCode != 200 {
			t.Fatalf("next page: %d %s", resp.StatusCode, b)
		}
		seen += strings.Count(string(b), `"secret":"c"`)
		ct = resp.Header.Get("x-ms-continuation")
	}
	if seen != 5 {
		t.Errorf("paged %d items of query A, want 5", seen)
	}
	// A read feed's token is bound to its container.
	feed := map[string]string{"x-ms-max-item-count": "2"}
	resp, _ = raw(t, s, "GET", "/dbs/db/colls/c/docs", feed, nil)
	feed["x-ms-continuation"] = resp.Header.Get("x-ms-continuation")
	if resp, b := raw(t, s, "GET", "/dbs/db/colls/other/docs", feed, nil); resp.StatusCode != 400 {
		t.Errorf("c's read-feed token on other: %d %s, want 400", resp.StatusCode, b)
	}
}

// Issue 30, item 5: the paged-query cache kept each first page's whole execution, 256 of them and
// none ever expired (40 queries: 83 MB → 3.1 GB). It is bounded in bytes and in age now.
func TestQueryCache_BoundedInBytesAndAge(t *testing.T) {
	var qc queryCache
	qc.init()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	big := func() *execution {
		items := make([][]byte, 3)
		for i := range items {
			items[i] = make([]byte, 1<<20)
		}
		return &execution{items: items, built: 3 << 20}
	}
	for i := range 40 {
		qc.put(fmt.Sprint(i), big(), now)
	}
	if n, b := qc.size(); b > maxQueryCacheBytes || n >= 40 {
		t.Errorf("40 executions of 3 MB: the cache holds %d of them, %d MB; want at most %d MB", n, b>>20, maxQueryCacheBytes>>20)
	}
	if qc.get("39", "", now) == nil {
		t.Errorf("the newest entry was evicted")
	}
	if qc.get("0", "", now) != nil {
		t.Errorf("the oldest entry is still there past the byte budget")
	}
	if qc.put("huge", &execution{built: maxQueryCacheBytes + 1}, now) {
		t.Errorf("an execution larger than the whole budget was cached")
	}
	later := now.Add(maxQueryCacheAge + time.Second)
	if qc.get("39", "", later) != nil {
		t.Errorf("an entry older than %s is still served", maxQueryCacheAge)
	}
	qc.put("new", &execution{}, later)
	if n, _ := qc.size(); n != 1 {
		t.Errorf("after a put past the age limit the cache holds %d entries, want only the new one", n)
	}
}

// A paged query whose cached execution has expired goes on from its token's offset: every item
// comes once.
func TestQueryCache_ExpiredEntryPagesOn(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) // the engine's clock, moved by the test alone
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s, _ := startEngine(t, Options{Now: clock})
	robustContainer(t, s)
	for i := range 9 {
		if resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}, []byte(fmt.Sprintf(`{"id":"x%d","pk":"p","n":%d}`, i, i))); resp.StatusCode != 201 {
			t.Fatalf("create: %d %s", resp.StatusCode, b)
		}
	}
	hdr := map[string]string{"x-ms-documentdb-isquery": "true", "Content-Type": "application/query+json",
		"x-ms-documentdb-query-enablecrosspartition": "true", "x-ms-max-item-count": "4"}
	body := mustMarshal(map[string]any{"query": "SELECT VALUE c.n * 2 FROM c WHERE IS_DEFINED(c.n)"})
	var got []float64
	for page := 0; ; page++ {
		resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", hdr, body)
		if resp.StatusCode != 200 {
			t.Fatalf("page %d: %d %s", page, resp.StatusCode, b)
		}
		var env struct{ Documents []float64 }
		json.Unmarshal(b, &env)
		got = append(got, env.Documents...)
		ct := resp.Header.Get("x-ms-continuation")
		if ct == "" {
			break
		}
		hdr["x-ms-continuation"] = ct
		mu.Lock()
		now = now.Add(maxQueryCacheAge + time.Minute) // the cached execution expires between pages
		mu.Unlock()
	}
	if fmt.Sprint(got) != "[0 2 4 6 8 10 12 14 16]" {
		t.Errorf("items over the pages: %v", got)
	}
}

// aadRequest sends GET /dbs with an Entra ID bearer token of the given header and signature part.
func aadRequest(t *testing.T, s *Server, header, sig string) (*http.Response, []byte) {
	t.Helper()
	enc := func(v any) string { b, _ := json.Marshal(v); return base64.RawURLEncoding.EncodeToString(b) }
	tok := enc(map[string]any{"alg": header, "typ": "JWT"}) + "." + enc(map[string]any{
		"aud": "https://cosmos.azure.com", "iss": "https://sts.windows.net/x/", "sub": "someone",
		"exp": time.Now().Add(time.Hour).Unix()}) + "." + sig
	req, err := http.NewRequest("GET", strings.TrimSuffix(s.URL(), "/")+"/dbs", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", url.QueryEscape("type=aad&ver=1.0&sig="+tok))
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// Issue 30, item 10: --allow-aad accepted an unsigned (alg none) token. Signatures cannot be
// verified offline, but an unsigned token is refused (and serve refuses --allow-aad beyond
// loopback unless --allow-aad-remote: cmd/validate TestServe_AllowAADBeyondLoopbackRefused).
func TestAAD_UnsignedTokenRefused(t *testing.T) {
	s, _ := startEngine(t, Options{AllowAAD: true})
	if resp, b := aadRequest(t, s, "none", ""); resp.StatusCode != 401 || !strings.Contains(string(b), "unsigned") {
		t.Errorf("alg none: %d %s, want 401 naming an unsigned token", resp.StatusCode, b)
	}
	if resp, b := aadRequest(t, s, "RS256", ""); resp.StatusCode != 401 {
		t.Errorf("no signature part: %d %s, want 401", resp.StatusCode, b)
	}
	if resp, b := aadRequest(t, s, "RS256", "c2ln"); resp.StatusCode != 200 {
		t.Errorf("a token of Entra ID's shape: %d %s, want 200", resp.StatusCode, b)
	}
}

// Issue 30, item 10: an item ttl of 9223372036854774784 was accepted with 201 and the item was
// gone at once (the expiry overflowed); invalid UTF-8 and duplicate keys were stored and echoed as
// sent (duplicate "id" keys served as one id while the text began with the other); an
// x-ms-max-item-count of abc, 0 or -2 silently became 100. Each is a 400 now.
func TestItems_MalformedInputRefused(t *testing.T) {
	s, _ := startEngine(t, Options{})
	if resp, b := raw(t, s, "POST", "/dbs", nil, []byte(`{"id":"db"}`)); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	if resp, b := raw(t, s, "POST", "/dbs/db/colls", nil, []byte(`{"id":"c","defaultTtl":-1,"partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	pk := map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}
	for name, body := range map[string]string{
		"ttl past the maximum":  `{"id":"a","pk":"p","ttl":9223372036854774784}`,
		"ttl 0":                 `{"id":"a","pk":"p","ttl":0}`,
		"ttl -2":                `{"id":"a","pk":"p","ttl":-2}`,
		"ttl 1.5":               `{"id":"a","pk":"p","ttl":1.5}`,
		"ttl null":              `{"id":"a","pk":"p","ttl":null}`,
		"ttl a string":          `{"id":"a","pk":"p","ttl":"60"}`,
		"invalid UTF-8":         "{\"id\":\"a\",\"pk\":\"p\",\"s\":\"\xff\xfe\"}",
		"duplicate id":          `{"id":"a","pk":"p","id":"b"}`,
		"duplicate nested keys": `{"id":"a","pk":"p","o":{"x":1,"x":2}}`,
	} {
		resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", pk, []byte(body))
		if resp.StatusCode != 400 {
			t.Errorf("%s: %d %s, want 400", name, resp.StatusCode, b)
		}
	}
	batch := `[{"operationType":"Create","resourceBody":{"id":"a","pk":"p","id":"b"}}]`
	if resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", map[string]string{"x-ms-documentdb-partitionkey": `["p"]`,
		"x-ms-cosmos-is-batch-request": "true", "x-ms-cosmos-batch-atomic": "true"}, []byte(batch)); resp.StatusCode != 207 || !strings.Contains(string(b), `"statusCode":400`) {
		t.Errorf("batch create with a duplicate id: %d %s, want 207 with the operation's 400", resp.StatusCode, b)
	}
	for _, ttl := range []string{"-1", "1", "2147483647"} {
		if resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", pk, []byte(`{"id":"t`+ttl+`","pk":"p","ttl":`+ttl+`}`)); resp.StatusCode != 201 {
			t.Errorf("ttl %s: %d %s, want 201", ttl, resp.StatusCode, b)
		}
	}
	if resp, b := raw(t, s, "GET", "/dbs/db/colls/c/docs/t2147483647", pk, nil); resp.StatusCode != 200 {
		t.Errorf("the item with the largest ttl: %d %s, want it there", resp.StatusCode, b)
	}
	for _, n := range []string{"abc", "0", "-2", "1.5"} {
		hdr := map[string]string{"x-ms-documentdb-isquery": "true", "Content-Type": "application/query+json",
			"x-ms-documentdb-query-enablecrosspartition": "true", "x-ms-max-item-count": n}
		if resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", hdr, mustMarshal(map[string]any{"query": "SELECT * FROM c"})); resp.StatusCode != 400 {
			t.Errorf("query with x-ms-max-item-count %q: %d %s, want 400", n, resp.StatusCode, b)
		}
		if resp, b := raw(t, s, "GET", "/dbs/db/colls/c/docs", map[string]string{"x-ms-max-item-count": n}, nil); resp.StatusCode != 400 {
			t.Errorf("read feed with x-ms-max-item-count %q: %d %s, want 400", n, resp.StatusCode, b)
		}
	}
	for _, n := range []string{"-1", "1"} {
		if resp, b := raw(t, s, "GET", "/dbs/db/colls/c/docs", map[string]string{"x-ms-max-item-count": n}, nil); resp.StatusCode != 200 {
			t.Errorf("read feed with x-ms-max-item-count %q: %d %s, want 200", n, resp.StatusCode, b)
		}
	}
}

// itemEtags maps "pk/id" to the etag of every item of db/c.
func itemEtags(t *testing.T, s *Server) map[string]string {
	t.Helper()
	c, err := s.lookupContainer("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range c.parts {
		p.mu.RLock()
		for lpk, lp := range p.logical {
			for id, d := range lp.byID {
				out[lpk+"/"+id] = d.etag
			}
		}
		p.mu.RUnlock()
	}
	return out
}

// Under eight concurrent writers, with the disk filling and emptying while they write (group
// commits fail whole), every create answered 201 is there and every one answered 500 is not, in
// the running engine and after a crash; and the engine's items are exactly those a restart from
// its files finds, with the same versions (the undo of a failed group commit puts back what each
// item was, last commit first).
func TestPersist_DiskFullUnderConcurrentWriters(t *testing.T) {
	disk := installFullDisk(t)
	path := filepath.Join(t.TempDir(), "snap.json")
	s, err := Start(context.Background(), Options{PersistPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	robustContainer(t, s)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	stop := make(chan struct{})
	flipped := make(chan struct{})
	go func() { // the disk fills and empties while the writers write
		defer close(flipped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				disk.full.Store(false)
				return
			case <-time.After(time.Millisecond):
				disk.full.Store(i%3 == 0)
			}
		}
	}()
	var mu sync.Mutex
	acked, failed := map[string]bool{}, map[string]bool{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				pk := fmt.Sprintf("p%d", (g+i)%4)
				hdr := map[string]string{"x-ms-documentdb-partitionkey": `["` + pk + `"]`}
				id := fmt.Sprintf("w%d-%d", g, i)
				st, err := signedDo(client, s.URL(), "POST", "/dbs/db/colls/c/docs", hdr, []byte(`{"id":"`+id+`","pk":"`+pk+`"}`))
				// Upserts of one item per key from every writer: undoing a failed one must put
				// back the version before it.
				hdr["x-ms-documentdb-is-upsert"] = "true"
				signedDo(client, s.URL(), "POST", "/dbs/db/colls/c/docs", hdr, []byte(fmt.Sprintf(`{"id":"hot","pk":"%s","by":"%s"}`, pk, id)))
				mu.Lock()
				switch {
				case err != nil:
					t.Errorf("create %s: %v", id, err)
				case st == 201:
					acked[`["`+pk+`"]/`+id] = true
				case st == 500:
					failed[`["`+pk+`"]/`+id] = true
				default:
					t.Errorf("create %s: %d", id, st)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-flipped
	if len(acked) == 0 || len(failed) == 0 {
		t.Fatalf("%d creates acknowledged, %d failed: the disk did not fill and empty during the test", len(acked), len(failed))
	}
	live := itemEtags(t, s)
	s2, err := Start(context.Background(), Options{PersistPath: copyPersist(t, path)})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer s2.Close(context.Background())
	restarted := itemEtags(t, s2)
	for k := range acked {
		if live[k] == "" || restarted[k] == "" {
			t.Errorf("acknowledged create %s: in the engine %v, after the restart %v", k, live[k] != "", restarted[k] != "")
		}
	}
	for k := range failed {
		if live[k] != "" || restarted[k] != "" {
			t.Errorf("create %s answered 500: in the engine %v, after the restart %v", k, live[k] != "", restarted[k] != "")
		}
	}
	for k, e := range live {
		if restarted[k] != e {
			t.Errorf("%s: version %s in the engine, %q after the restart", k, e, restarted[k])
		}
	}
	if len(restarted) != len(live) {
		t.Errorf("%d items in the engine, %d after the restart", len(live), len(restarted))
	}
	t.Logf("%d creates acknowledged, %d refused on a full disk; %d items", len(acked), len(failed), len(live))
}

// A query the evaluator fails on (sql.EvalFault, a recovered panic) is the input's doing: it is
// answered 400 naming the activity id, and logged with that id and the stack.
func TestPanics_EvalFaultAnswered400AndLogged(t *testing.T) {
	var logs syncBuffer
	s, _ := startEngine(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	robustContainer(t, s)
	old := table
	t.Cleanup(func() { table = old })
	table = compileRoutes(append([]route{{pattern: "POST /dbs/{db}/colls/{coll}/docs", when: isQuery,
		item: func(s *Server, q *request, c *container) (int, error) {
			return 0, queryError(&sql.EvalFault{Value: "injected evaluator fault", Stack: []byte("goroutine 1 [running]:")})
		}}}, routes...))
	status, body, _ := queryPage(t, s, "SELECT * FROM c", "")
	if status != 400 || !strings.Contains(string(body), "could not be evaluated") {
		t.Errorf("%d %s, want a 400 saying the query could not be evaluated", status, body)
	}
	if l := logs.String(); !strings.Contains(l, "injected evaluator fault") || !strings.Contains(l, "activityId=") {
		t.Errorf("the fault is not logged with its activity id:\n%s", l)
	}
}

// When the log cannot even be cut back after a failed write, it takes no more writes until a
// restart: each later write is undone and answered 500 (not left visible), and a restart drops the
// torn tail and keeps every acknowledged write.
func TestPersist_LogThatCannotBeCutBack(t *testing.T) {
	disk := installFullDisk(t)
	path := filepath.Join(t.TempDir(), "snap.json")
	s, err := Start(context.Background(), Options{PersistPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	robustContainer(t, s)
	pk := map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}
	disk.full.Store(true)
	disk.noTruncate.Store(true)
	if resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", pk, []byte(`{"id":"2","pk":"p"}`)); resp.StatusCode != 500 {
		t.Fatalf("write on a full disk: %d %s", resp.StatusCode, b)
	}
	disk.full.Store(false)
	resp, b := raw(t, s, "POST", "/dbs/db/colls/c/docs", pk, []byte(`{"id":"3","pk":"p"}`))
	if resp.StatusCode != 500 || !strings.Contains(string(b), "until a restart") {
		t.Errorf("write after the log could not be cut back: %d %s, want 500 saying writes fail until a restart", resp.StatusCode, b)
	}
	for _, id := range []string{"2", "3"} {
		if resp, _ := raw(t, s, "GET", "/dbs/db/colls/c/docs/"+id, pk, nil); resp.StatusCode != 404 {
			t.Errorf("item %s, answered 500: %d, want 404", id, resp.StatusCode)
		}
	}
	s2, err := Start(context.Background(), Options{PersistPath: copyPersist(t, path)})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer s2.Close(context.Background())
	if got := itemEtags(t, s2); len(got) != 1 || got[`["p"]/1`] == "" {
		t.Errorf("after the restart: %v, want item 1 alone", got)
	}
}
