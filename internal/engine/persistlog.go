package engine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
)

// Durability of --persist. Two modes, a stated choice:
//
//   - PersistLog (the default): every committed write is appended to FILE.log, and the response is
//     sent only once the log is fsynced. Writers waiting at the same time share one fsync (group
//     commit). Changes of databases, containers and offers are rare: each is made durable by a
//     snapshot (a checkpoint) before its response, which also compacts the log. At start the
//     snapshot is loaded, the log replayed and compacted into a new snapshot.
//   - PersistSnapshot: the snapshot is saved every 30 seconds and at Close only; a crash loses
//     what was acknowledged since the last save.
const (
	PersistLog      = "log"
	PersistSnapshot = "snapshot"
)

// wal is the append-only log of committed item writes. Each record is framed as a 4-byte length, a
// 4-byte CRC-32 of the payload and the payload; replay stops at the first torn or corrupt record
// (a record whose fsync never completed was never acknowledged).
type wal struct {
	path string

	mu       sync.Mutex
	cond     *sync.Cond
	f        *os.File
	buf      []byte // records appended and not yet written
	spare    []byte
	appended uint64 // records appended so far
	synced   uint64 // records written and fsynced
	flushing bool
	err      error // a failed write or fsync: the log is unusable, writes fail from then on
}

func openWAL(path string) (*wal, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	w := &wal{path: path, f: f}
	w.cond = sync.NewCond(&w.mu)
	return w, nil
}

// logRecord is one committed overlay: the items of one logical partition, as stored, or null for
// a deletion.
type logRecord struct {
	DB    string      `json:"d"`
	Coll  string      `json:"c"`
	Items []logRecDoc `json:"o"`
}

type logRecDoc struct {
	ID  string          `json:"i"`
	LPK string          `json:"k"`
	Raw json.RawMessage `json:"r"` // null: deleted
}

// appendCommit appends the record of a committed overlay and returns its number, for wait. The
// caller holds the partition's lock, so records of one logical partition are in commit order.
func (w *wal) appendCommit(o *overlay) uint64 {
	rec := logRecord{DB: o.c.db.id, Coll: o.c.id, Items: make([]logRecDoc, 0, len(o.order))}
	for _, id := range o.order {
		r := logRecDoc{ID: id, LPK: o.lpk, Raw: json.RawMessage("null")}
		if d := o.docs[id]; d != nil {
			r.Raw = d.raw
		}
		rec.Items = append(rec.Items, r)
	}
	payload, _ := json.Marshal(rec) // stored JSON is valid; ids are strings
	var head [8]byte
	binary.LittleEndian.PutUint32(head[:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(head[4:], crc32.ChecksumIEEE(payload))
	w.mu.Lock()
	w.buf = append(append(w.buf, head[:]...), payload...)
	w.appended++
	n := w.appended
	w.mu.Unlock()
	return n
}

// wait returns once record n is fsynced. The first waiter to find no flush in progress writes and
// fsyncs everything appended so far for all waiters (group commit); the others wait for it.
func (w *wal) wait(n uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.synced < n && w.err == nil {
		if w.flushing {
			w.cond.Wait()
			continue
		}
		w.flushing = true
		b, upto := w.buf, w.appended
		w.buf, w.spare = w.spare[:0], nil
		w.mu.Unlock()
		_, err := w.f.Write(b)
		if err == nil {
			err = w.f.Sync()
		}
		w.mu.Lock()
		w.spare = b[:0]
		w.flushing = false
		if err != nil {
			w.err = fmt.Errorf("persist log %s: %w", w.path, err)
		} else {
			w.synced = upto
		}
		w.cond.Broadcast()
	}
	return w.err
}

// rotate renames the log to FILE.log.old and starts an empty one, after writing out what is
// appended. A checkpoint rotates, saves the snapshot, then removes the old log: replaying both logs
// after a crash at any point in between repeats writes the snapshot may already hold, which is
// harmless since each record sets an item's whole state.
func (w *wal) rotate() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.flushing {
		w.cond.Wait()
	}
	if w.err != nil {
		return w.err
	}
	if _, err := w.f.Write(w.buf); err != nil {
		return err
	}
	if err := w.f.Sync(); err != nil {
		return err
	}
	w.buf = w.buf[:0]
	w.synced = w.appended
	if err := w.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(w.path, w.path+".old"); err != nil {
		return err
	}
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	w.f = f
	syncDir(filepath.Dir(w.path))
	return nil
}

func (w *wal) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.flushing {
		w.cond.Wait()
	}
	_, err := w.f.Write(w.buf)
	w.buf = nil
	if serr := w.f.Sync(); err == nil {
		err = serr
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir fsyncs a directory so that a rename or a new file in it survives a crash (best effort:
// some systems cannot open a directory for syncing).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// replayLog applies the records of a log file to the loaded state, stopping at the first torn or
// corrupt record. Records naming a database or container that no longer exists are skipped (it
// was deleted after the write, and the deletion's checkpoint is what the snapshot holds).
func (s *Server) replayLog(path string) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	n := 0
	for {
		var head [8]byte
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return n, nil // the end, or a torn header
		}
		size := binary.LittleEndian.Uint32(head[:4])
		if size > 2*maxRequestBytes+1<<20 { // more than any batch can write: a torn or corrupt header
			return n, nil
		}
		payload := make([]byte, size)
		if _, err := io.ReadFull(r, payload); err != nil || crc32.ChecksumIEEE(payload) != binary.LittleEndian.Uint32(head[4:]) {
			return n, nil
		}
		var rec logRecord
		if err := json.Unmarshal(payload, &rec); err != nil {
			return n, fmt.Errorf("replay %s: record %d: %v", path, n, err)
		}
		n++
		d := s.dbs[rec.DB]
		if d == nil || d.colls[rec.Coll] == nil {
			continue
		}
		c := d.colls[rec.Coll]
		for _, it := range rec.Items {
			if bytes.Equal(it.Raw, []byte("null")) {
				s.replayDelete(c, it.LPK, it.ID)
				continue
			}
			dd, p, err := s.restoreDoc(c, it.Raw)
			if err != nil {
				return n, fmt.Errorf("replay %s: record %d: %v", path, n, err)
			}
			p.mu.Lock()
			o := s.newOverlay(c, p, dd.lpk, dd.pkVals)
			o.put(dd.id, dd)
			s.commit(o)
			p.mu.Unlock()
		}
	}
}

func (s *Server) replayDelete(c *container, lpk, id string) {
	for _, p := range c.parts {
		p.mu.Lock()
		if lp := p.logical[lpk]; lp != nil && lp.byID[id] != nil {
			o := s.newOverlay(c, p, lpk, lp.byID[id].pkVals)
			o.put(id, nil)
			s.commit(o)
		}
		p.mu.Unlock()
	}
}

// openDurable runs at Start in PersistLog mode, after the snapshot is loaded: it replays the logs
// a crash left, removes temporary files of an interrupted save, compacts everything into a new
// snapshot and opens an empty log.
func (s *Server) openDurable(path string) error {
	replayed := 0
	for _, lp := range []string{path + ".log.old", path + ".log"} {
		n, err := s.replayLog(lp)
		if err != nil {
			return err
		}
		replayed += n
	}
	if err := s.save(path); err != nil {
		return err
	}
	for _, lp := range []string{path + ".log.old", path + ".log"} {
		if err := os.Remove(lp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	w, err := openWAL(path + ".log")
	if err != nil {
		return err
	}
	s.wal = w
	if replayed > 0 {
		s.log.Info("engine persist log replayed", "records", replayed)
	}
	return nil
}

// removeTemps removes the temporary files a save killed midway left next to the snapshot.
func removeTemps(path string) {
	matches, _ := filepath.Glob(path + ".tmp*")
	for _, m := range matches {
		_ = os.Remove(m)
	}
}

// checkpoint makes the current state durable as a snapshot and compacts the log into it: rotate
// the log, save, remove the rotated log. Checkpoints run one at a time.
func (s *Server) checkpoint() error {
	s.ckpt.Lock()
	defer s.ckpt.Unlock()
	if err := s.wal.rotate(); err != nil {
		return fmt.Errorf("persist log: %w", err)
	}
	if err := s.save(s.opts.PersistPath); err != nil {
		return err
	}
	if err := os.Remove(s.wal.path + ".old"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// durable waits until the commit numbered n is in the log on disk (nothing to wait for without a
// log, or when n is 0).
func (s *Server) durable(n uint64) error {
	if s.wal == nil || n == 0 {
		return nil
	}
	if err := s.wal.wait(n); err != nil {
		return errf(500, "The write was applied but could not be made durable: %v", err)
	}
	return nil
}

// metaMutation reports a request that changes databases, containers or offers: in PersistLog mode
// its response waits for a checkpoint.
func metaMutation(q *request) bool {
	if q.r.Method == http.MethodGet || q.r.Method == http.MethodHead || len(q.segs) == 0 {
		return false
	}
	if q.segs[0] == "offers" {
		return true
	}
	return q.segs[0] == "dbs" && len(q.segs) <= 4 && !isQuery(q)
}

// heldResponse keeps a response until the change it reports is durable.
type heldResponse struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (h *heldResponse) WriteHeader(status int)      { h.status = status }
func (h *heldResponse) Write(b []byte) (int, error) { return h.body.Write(b) }

// release sends the held response.
func (h *heldResponse) release() {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	h.ResponseWriter.WriteHeader(h.status)
	_, _ = h.ResponseWriter.Write(h.body.Bytes())
}

// closePersist saves the final snapshot at Close; in PersistLog mode it first writes out the log,
// then removes it once the snapshot holds everything.
func (s *Server) closePersist() error {
	if s.wal == nil {
		return s.save(s.opts.PersistPath)
	}
	s.ckpt.Lock()
	defer s.ckpt.Unlock()
	if err := s.wal.close(); err != nil {
		return fmt.Errorf("persist log: %w", err)
	}
	if err := s.save(s.opts.PersistPath); err != nil {
		return err
	}
	return os.Remove(s.wal.path)
}

// routeDurably serves a change of databases, containers or offers in PersistLog mode: its
// response is held until a checkpoint has made the change durable.
func (s *Server) routeDurably(q *request) (int, error) {
	w := q.w
	held := &heldResponse{ResponseWriter: w}
	q.w = held
	status, err := s.route(q)
	q.w = w
	if err != nil {
		return status, err
	}
	if cerr := s.checkpoint(); cerr != nil {
		return 0, errf(500, "The change was applied but could not be made durable: %v", cerr)
	}
	held.release()
	return status, nil
}
