package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
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

// wal is the append-only log of committed item writes. Each record is framed as logMagic, a 4-byte
// length, a 4-byte CRC-32 of the payload and the payload (a logRecord in JSON, with its version).
// At replay only a torn tail is dropped (a record whose fsync never completed was never
// acknowledged): a damaged record followed by a valid one stops the start, naming the file and
// the offset, and the log is kept (replayLog).
type wal struct {
	path string
	// undo undoes in memory the commits of a batch that could not be written, and of every record
	// appended after it; it returns all the commits it undid (Server.undoFailed).
	undo func(w *wal, batch []*overlay) []*overlay

	mu       sync.Mutex
	cond     *sync.Cond
	f        logFile
	size     int64      // bytes of the file known written and fsynced; a failed flush is cut back to it
	buf      []byte     // records appended and not yet written
	pending  []*overlay // their commits, in order
	spare    []byte
	flushing bool
	err      error // the log could not be cut back after a failed write: writes fail from then on
}

// logFile is what the log is written through: an *os.File, or in tests one whose disk fills up.
type logFile interface {
	Write(b []byte) (int, error)
	Sync() error
	Truncate(size int64) error
	Close() error
}

// openLogFile opens a log file for appending; tests replace it to simulate a full disk.
var openLogFile = func(path string, flag int) (logFile, error) { return os.OpenFile(path, flag, 0o600) }

func openWAL(path string, undo func(*wal, []*overlay) []*overlay) (*wal, error) {
	f, err := openLogFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return nil, err
	}
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	w := &wal{path: path, f: f, size: size, undo: undo}
	w.cond = sync.NewCond(&w.mu)
	return w, nil
}

// logRecord is one committed overlay: the items of one logical partition, each put as stored or
// deleted. V is logVersion; replay refuses another version, an unknown field or an unknown op.
type logRecord struct {
	V     int         `json:"v"`
	DB    string      `json:"d"`
	Coll  string      `json:"c"`
	Items []logRecDoc `json:"o"`
}

type logRecDoc struct {
	Op  string          `json:"op"` // logPut or logDelete
	ID  string          `json:"i"`
	LPK string          `json:"k"`
	Raw json.RawMessage `json:"r,omitempty"` // the item as stored (logPut only)
}

// The log's format: logVersion is in every record; logMagic starts every record's frame, so that
// replay can tell a damaged record with valid ones after it from a torn tail by finding the next
// frame. The log of version 1 (no magic, no version, null for a deletion) is still read.
const (
	logVersion = 2
	logPut     = "put"
	logDelete  = "delete"
	logFrame   = 12 // magic, length, CRC-32
)

var logMagic = [4]byte{0xC0, 0xDB, 'L', logVersion}

// maxLogPayload is more than any batch can write; a longer frame is damaged.
const maxLogPayload = 2*maxRequestBytes + 1<<20

// appendFrame appends rec framed as a log record to b.
func appendFrame(b []byte, rec *logRecord) []byte {
	rec.V = logVersion
	payload, _ := json.Marshal(rec) // stored JSON is valid; ids are strings
	var head [logFrame]byte
	copy(head[:4], logMagic[:])
	binary.LittleEndian.PutUint32(head[4:8], uint32(len(payload)))
	binary.LittleEndian.PutUint32(head[8:], crc32.ChecksumIEEE(payload))
	return append(append(b, head[:]...), payload...)
}

// appendCommit appends the record of a committed overlay, for durable to wait on. The caller
// holds the partition's lock, so records of one logical partition are in commit order.
func (w *wal) appendCommit(o *overlay) {
	rec := logRecord{DB: o.c.db.id, Coll: o.c.id, Items: make([]logRecDoc, 0, len(o.order))}
	for _, id := range o.order {
		r := logRecDoc{Op: logDelete, ID: id, LPK: o.lpk}
		if d := o.docs[id]; d != nil {
			r.Op, r.Raw = logPut, d.raw
		}
		rec.Items = append(rec.Items, r)
	}
	w.mu.Lock()
	w.buf = appendFrame(w.buf, &rec)
	w.pending = append(w.pending, o)
	o.logged = true
	w.mu.Unlock()
}

// wait returns once o's record is fsynced, or with the error that kept it from the disk (its commit
// is then undone in memory). The first waiter to find no flush in progress writes and fsyncs
// everything appended so far for all waiters (group commit); the others wait for it.
func (w *wal) wait(o *overlay) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !o.resolved {
		if w.flushing {
			w.cond.Wait()
			continue
		}
		w.flushLocked()
	}
	return o.durErr
}

// flushLocked writes and fsyncs the appended records. The caller holds w.mu and no flush is in
// progress; w.mu is released while writing. When the write or the fsync fails (a full disk), the
// file is cut back to what was durable before, the batch's commits are undone in memory before any
// of their writers answers, and each writer gets the error: the next flush starts clean, so the log
// recovers when space returns. Only when the file cannot be cut back does the log stop taking
// writes (w.err) until a restart, whose replay drops the torn tail: every commit after that is
// undone the same way and answered with that error.
func (w *wal) flushLocked() error {
	w.flushing = true
	b, batch := w.buf, w.pending
	w.buf, w.spare, w.pending = w.spare[:0], nil, nil
	sticky := w.err
	w.mu.Unlock()
	var err, fatal error
	switch {
	case sticky != nil:
		err = sticky
	case len(b) > 0:
		_, err = w.f.Write(b)
		if err == nil {
			err = w.f.Sync()
		}
		if err == nil {
			w.size += int64(len(b))
			break
		}
		err = fmt.Errorf("persist log %s: %w", w.path, err)
		if terr := w.f.Truncate(w.size); terr != nil {
			fatal = fmt.Errorf("%w; the log could not be cut back to its last record (%v): writes fail until a restart", err, terr)
		} else {
			_ = w.f.Sync()
		}
	}
	if err != nil && w.undo != nil {
		batch = w.undo(w, batch)
	}
	w.mu.Lock()
	for _, o := range batch {
		o.resolved, o.durErr = true, err
	}
	w.spare = b[:0]
	w.flushing = false
	if fatal != nil {
		w.err = fatal
	}
	w.cond.Broadcast()
	return err
}

// rotate renames the log to FILE.log.old and starts an empty one, after writing out what is
// appended. A checkpoint rotates, saves the snapshot, then removes the old log: replaying both logs
// after a crash at any point in between repeats writes the snapshot may already hold, which is
// harmless since each record sets an item's whole state. When FILE.log.old is still there (the
// last checkpoint's save failed), the log is not rotated: renaming would overwrite records no
// snapshot holds yet.
func (w *wal) rotate() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.flushing {
		w.cond.Wait()
	}
	if w.err != nil {
		return w.err
	}
	if err := w.flushLocked(); err != nil {
		return err
	}
	if _, err := os.Stat(w.path + ".old"); err == nil {
		return nil
	}
	if err := w.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(w.path, w.path+".old"); err != nil {
		return err
	}
	f, err := openLogFile(w.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND)
	if err != nil {
		return err
	}
	w.f, w.size = f, 0
	syncDir(filepath.Dir(w.path))
	return nil
}

func (w *wal) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.flushing {
		w.cond.Wait()
	}
	err := w.err
	if err == nil {
		err = w.flushLocked()
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

// replayLog applies the records of a log file to the loaded state. A torn tail — a frame that
// is incomplete or damaged with no valid frame after it — was never acknowledged and is dropped,
// with a warning. A damaged frame with a valid one after it, a record of another version, an
// unknown field or an unknown op is an error naming the file and the offset: the start stops and
// the log is kept, for the records after the damage were acknowledged. Records naming a database
// or container that no longer exists are skipped (it was deleted after the write, and the
// deletion's checkpoint is what the snapshot holds).
func (s *Server) replayLog(path string) (int, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("replay %s: %w", path, err)
	}
	legacy := len(b) > 0 && !bytes.HasPrefix(b, logMagic[:])
	n := 0
	for off := 0; off < len(b); {
		payload, next, why := readFrame(b, off, legacy)
		if why != "" {
			if after := nextFrame(b, off+1, legacy); after >= 0 {
				return n, fmt.Errorf("replay %s: the record at offset %d is damaged (%s) and a valid record follows at offset %d; the log is kept and the engine not started, since the records after the damage were acknowledged: restore the file from a copy, or cut the damaged bytes out by hand", path, off, why, after)
			}
			s.log.Warn("engine persist log: dropped a torn tail (a write never acknowledged)", "file", path, "offset", off, "bytes", len(b)-off, "reason", why)
			return n, nil
		}
		rec, err := decodeLogRecord(payload, legacy)
		if err != nil {
			return n, fmt.Errorf("replay %s: record %d at offset %d: %v", path, n, off, err)
		}
		n++
		if err := s.applyLogRecord(rec); err != nil {
			return n, fmt.Errorf("replay %s: record %d at offset %d: %v", path, n-1, off, err)
		}
		off = next
	}
	return n, nil
}

// readFrame reads the frame at off: its payload and the offset after it, or why it is not a
// complete, intact frame.
func readFrame(b []byte, off int, legacy bool) (payload []byte, next int, why string) {
	head := logFrame
	if legacy {
		head = 8 // length, CRC-32
	}
	if len(b)-off < head {
		return nil, 0, "incomplete frame header"
	}
	h := b[off : off+head]
	if !legacy {
		if !bytes.Equal(h[:4], logMagic[:]) {
			return nil, 0, "no record marker"
		}
		h = h[4:]
	}
	size := int(binary.LittleEndian.Uint32(h[:4]))
	if size > maxLogPayload {
		return nil, 0, fmt.Sprintf("length %d past any record", size)
	}
	if len(b)-off-head < size {
		return nil, 0, "incomplete record"
	}
	payload = b[off+head : off+head+size]
	if crc32.ChecksumIEEE(payload) != binary.LittleEndian.Uint32(h[4:8]) {
		return nil, 0, "checksum mismatch"
	}
	return payload, off + head + size, ""
}

// nextFrame is the offset of the first intact frame at or after from, or -1. In a log of version
// 2 frames are found by their marker. A version-1 log has none, so only the frame its damaged
// record's length points to is tried, and, conservatively, any damage that is not at the file's
// end is treated as followed by valid records.
func nextFrame(b []byte, from int, legacy bool) int {
	if legacy {
		off := from - 1
		if len(b)-off >= 8 {
			size := int(binary.LittleEndian.Uint32(b[off : off+4]))
			if end := off + 8 + size; size <= maxLogPayload && end < len(b) {
				return end
			}
		}
		return -1
	}
	for from < len(b) {
		i := bytes.Index(b[from:], logMagic[:])
		if i < 0 {
			return -1
		}
		if _, _, why := readFrame(b, from+i, false); why == "" {
			return from + i
		}
		from += i + 1
	}
	return -1
}

// decodeLogRecord decodes a record's payload strictly: its version, its fields and its ops must be
// known ones.
func decodeLogRecord(payload []byte, legacy bool) (*logRecord, error) {
	var rec logRecord
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("not a log record: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a log record: data after the record")
	}
	want := logVersion
	if legacy {
		want = 0 // version 1 had no version field
	}
	if rec.V != want {
		return nil, fmt.Errorf("record version %d; this engine reads version %d (the log was written by another version of validate)", rec.V, logVersion)
	}
	for i := range rec.Items {
		it := &rec.Items[i]
		if legacy {
			if it.Op != "" {
				return nil, fmt.Errorf("item %d: an op in a version-1 record", i)
			}
			it.Op = logPut
			if bytes.Equal(it.Raw, []byte("null")) {
				it.Op, it.Raw = logDelete, nil
			}
		}
		switch it.Op {
		case logPut:
			if len(it.Raw) == 0 {
				return nil, fmt.Errorf("item %d: a put without the item", i)
			}
		case logDelete:
			if len(it.Raw) != 0 {
				return nil, fmt.Errorf("item %d: a delete with an item", i)
			}
		default:
			return nil, fmt.Errorf("item %d: unknown op %q", i, it.Op)
		}
	}
	return &rec, nil
}

// applyLogRecord applies one replayed record.
func (s *Server) applyLogRecord(rec *logRecord) error {
	d := s.dbs[rec.DB]
	if d == nil || d.colls[rec.Coll] == nil {
		return nil
	}
	c := d.colls[rec.Coll]
	for _, it := range rec.Items {
		if it.Op == logDelete {
			s.replayDelete(c, it.LPK, it.ID)
			continue
		}
		dd, p, err := s.restoreDoc(c, it.Raw)
		if err != nil {
			return err
		}
		func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			o := s.newOverlay(c, p, dd.lpk, dd.pkVals)
			o.put(dd.id, dd)
			s.commit(o)
		}()
	}
	return nil
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
	w, err := openWAL(path+".log", s.undoFailed)
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

// durable waits until o's commit is in the log on disk (nothing to wait for without a log, or
// when nothing was logged). When it could not be written, the commit has been undone and the
// write is answered 500: the engine shows only what it acknowledged.
func (s *Server) durable(o *overlay) error {
	if s.wal == nil || o == nil || !o.logged {
		return nil
	}
	if err := s.wal.wait(o); err != nil {
		return errf(500, "The write could not be made durable and was not applied: %v. Free space on the disk of the persist file and retry.", err)
	}
	return nil
}

// undoFailed undoes the commits of a batch of log records that could not be written, and of every
// record appended since (they may build on the failed ones: a patch of an item whose create
// failed), and returns them all, for their writers to be answered 500. New commits wait at the
// commit gate meanwhile, so the undone commits are exactly the log's unwritten suffix, undone
// last first: each item returns to its last durable version.
func (s *Server) undoFailed(w *wal, batch []*overlay) []*overlay {
	s.commitGate.Lock()
	defer s.commitGate.Unlock()
	w.mu.Lock()
	batch = append(batch, w.pending...)
	w.pending = nil
	w.buf = w.buf[:0]
	w.mu.Unlock()
	s.revertCommits(batch)
	return batch
}

// sameVersion reports whether cur is the version want (nil for a deletion): the same write, by its
// etag, whether or not an undo has put back a copy of it.
func sameVersion(cur, want *doc) bool {
	if cur == nil || want == nil {
		return cur == want
	}
	return cur.etag == want.etag
}

// revertCommits undoes in memory the commits of a suffix of the log's records, the last first. An
// item is put back as it was only where the failed commit's version is still the current one.
func (s *Server) revertCommits(batch []*overlay) {
	for i := len(batch) - 1; i >= 0; i-- {
		o := batch[i]
		if o.prev == nil {
			continue
		}
		func() {
			p := o.p
			p.mu.Lock()
			defer p.mu.Unlock()
			u := s.newOverlay(o.c, p, o.lpk, o.vals)
			u.nolog = true
			lp := p.logical[o.lpk]
			for j := len(o.order) - 1; j >= 0; j-- {
				id := o.order[j]
				var cur *doc
				if lp != nil {
					cur = lp.byID[id]
				}
				if !sameVersion(cur, o.docs[id]) {
					continue
				}
				var back *doc
				if prev := o.prev[j]; prev != nil {
					cp := *prev // a fresh version: the old one left the partition's lists
					back = &cp
				}
				u.put(id, back)
			}
			if len(u.order) > 0 {
				s.commit(u)
			}
		}()
	}
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
// response is held until a checkpoint has made the change durable. When the checkpoint fails (a
// full disk), the change is undone in memory and answered 500: a container whose creation was not
// saved must not take writes that a restart would drop with it. Such changes run one at a time.
func (s *Server) routeDurably(q *request) (int, error) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	before := s.captureMeta()
	w := q.w
	held := &heldResponse{ResponseWriter: w}
	q.w = held
	status, err := s.route(q)
	q.w = w
	if err != nil {
		return status, err
	}
	if cerr := s.checkpoint(); cerr != nil {
		s.restoreMeta(before)
		for _, k := range []string{"Etag", "Content-Location", "x-ms-alt-content-path", "x-ms-resource-quota", "x-ms-resource-usage"} {
			delete(q.out, k)
		}
		return 0, errf(500, "The change could not be made durable and was undone: %v. Free space on the disk of the persist file and retry.", cerr)
	}
	held.release()
	return status, nil
}

// metaState is what a change of databases, containers or offers can alter, captured before it so
// that a change whose checkpoint fails can be undone.
type metaState struct {
	dbs    map[string]*database
	colls  map[*database]map[string]*container
	dbOfr  map[*database]*offer
	offers map[*offer]offer
	conts  map[*container]containerMeta
}

type containerMeta struct {
	props      map[string]any
	policy     *index.Compiled
	unique     [][][]string
	defaultTTL *int
	search     *sql.Search
	offer      *offer
	etag       string
	ts         int64
}

func (s *Server) captureMeta() *metaState {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m := &metaState{dbs: maps.Clone(s.dbs), colls: map[*database]map[string]*container{}, dbOfr: map[*database]*offer{},
		offers: map[*offer]offer{}, conts: map[*container]containerMeta{}}
	keep := func(o *offer) {
		if o != nil {
			m.offers[o] = *o
		}
	}
	for _, d := range s.dbs {
		m.colls[d] = maps.Clone(d.colls)
		m.dbOfr[d] = d.offer
		keep(d.offer)
		for _, c := range d.colls {
			m.conts[c] = containerMeta{props: c.props, policy: c.policy, unique: c.unique, defaultTTL: c.defaultTTL,
				search: c.search, offer: c.offer, etag: c.etag, ts: c.ts}
			keep(c.offer)
		}
	}
	return m
}

// restoreMeta puts databases, containers and offers back as captured. A container whose policy
// or time to live changed has its items' index terms and expiry computed again, under its
// partitions' locks, as a replace does.
func (s *Server) restoreMeta(m *metaState) {
	for c, cm := range m.conts {
		s.setContainerMeta(c, func() {
			c.props, c.policy, c.unique, c.defaultTTL, c.search = cm.props, cm.policy, cm.unique, cm.defaultTTL, cm.search
			c.offer, c.etag, c.ts = cm.offer, cm.etag, cm.ts
		})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dbs = m.dbs
	for d, colls := range m.colls {
		d.colls = colls
		d.offer = m.dbOfr[d]
	}
	for o, v := range m.offers {
		*o = v
	}
	s.dirty.Store(true)
}
