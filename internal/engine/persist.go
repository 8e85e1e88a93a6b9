package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cosmosdv/validate/internal/engine/jsondoc"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// snapshot is the persisted state: resources as the service renders them, plus items.
type snapshot struct {
	Version   int          `json:"version"`
	Databases []snapshotDB `json:"databases"`
	// LSN is the engine's write sequence at the save: items loaded are numbered after it, so a
	// change-feed continuation taken before a restart never skips a change (it may repeat some).
	LSN int64 `json:"lsn,omitempty"`
}

type snapshotDB struct {
	Resource   map[string]any `json:"resource"`
	Offer      *snapOffer     `json:"offer,omitempty"`
	Containers []snapColl     `json:"containers"`
}

type snapOffer struct {
	Manual       int `json:"manual,omitempty"`
	AutoscaleMax int `json:"autoscaleMax,omitempty"`
}

type snapColl struct {
	Resource   map[string]any    `json:"resource"`
	Offer      *snapOffer        `json:"offer,omitempty"`
	Partitions int               `json:"partitions"`
	Items      []json.RawMessage `json:"items"`
}

// snapshotVersion is the format of the snapshot file; load refuses any other.
const snapshotVersion = 1

// restoreDoc rebuilds a stored item from its JSON as saved (a snapshot's item, a log record) and
// finds its partition; an item that is not an object or has no string id is an error.
func (s *Server) restoreDoc(c *container, raw []byte) (*doc, *partition, error) {
	if cap(raw)-len(raw) > maxSpare {
		raw = append(make([]byte, 0, len(raw)), raw...) // kept for the engine's lifetime
	}
	body, err := jsondoc.DecodeObject(raw) // strings point into raw, which is kept as the item
	if err != nil {
		return nil, nil, fmt.Errorf("not a JSON object: %v", err)
	}
	id, ok := body["id"].(string)
	if !ok || id == "" {
		return nil, nil, fmt.Errorf("no string id")
	}
	vals := c.pkFromBody(body)
	lpk := canonicalPK(vals)
	p := c.partitionFor(effectivePartitionKey(c.pk.Kind, c.pk.Version, vals))
	ts, _ := body["_ts"].(float64)
	dd := &doc{raw: raw, size: len(raw), fresh: body, id: id, lpk: lpk, pkVals: vals, etag: fmt.Sprint(body["_etag"]), ts: int64(ts)}
	dd.rid, _ = body["_rid"].(string)
	dd.expires = c.expiry(body, dd.ts)
	dd.terms = c.policy.Terms(body)
	return dd, p, nil
}

// snapshotFile is what a snapshot is written through: an *os.File, or in tests one whose disk
// fills up.
type snapshotFile interface {
	Write(b []byte) (int, error)
	Sync() error
	Close() error
	Name() string
}

// createSnapshotTemp creates the temporary file a snapshot is saved in; tests replace it.
var createSnapshotTemp = func(dir, pattern string) (snapshotFile, error) { return os.CreateTemp(dir, pattern) }

// save writes the snapshot atomically (temporary file, then rename).
func (s *Server) save(path string) error {
	snap := snapshot{Version: snapshotVersion, LSN: s.lsn.Load()}
	s.mu.RLock()
	for _, d := range s.dbs {
		sd := snapshotDB{Resource: d.json()}
		if d.offer != nil {
			sd.Offer = &snapOffer{d.offer.manual, d.offer.autoscaleMax}
		}
		for _, c := range d.colls {
			sc := snapColl{Resource: c.json(), Partitions: len(c.parts)}
			if c.offer != nil {
				sc.Offer = &snapOffer{c.offer.manual, c.offer.autoscaleMax}
			}
			for _, p := range c.parts {
				p.mu.RLock()
				// In change-feed order (the order of last writes), which loading keeps.
				for _, it := range p.changes.docs {
					if p.current(it) {
						sc.Items = append(sc.Items, it.raw)
					}
				}
				p.mu.RUnlock()
			}
			sd.Containers = append(sd.Containers, sc)
		}
		snap.Databases = append(snap.Databases, sd)
	}
	s.mu.RUnlock()
	b, err := json.Marshal(snap)
	if err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	tmp, err := createSnapshotTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	if _, err = tmp.Write(b); err == nil {
		err = tmp.Sync() // on disk before the rename makes it the snapshot
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("save snapshot: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save snapshot: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	syncDir(filepath.Dir(path))
	s.dirty.Store(false)
	return nil
}

// load restores a snapshot; a missing file is an empty engine.
func (s *Server) load(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load snapshot: %w", err)
	}
	var snap snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		return fmt.Errorf("load snapshot %s: %w", path, err)
	}
	if snap.Version != snapshotVersion {
		return fmt.Errorf("load snapshot %s: version %d; this engine reads version %d (the file was written by another version, or is not a snapshot)", path, snap.Version, snapshotVersion)
	}
	if snap.LSN > s.lsn.Load() {
		s.lsn.Store(snap.LSN)
	}
	for i, sd := range snap.Databases {
		id, _ := sd.Resource["id"].(string)
		if id == "" {
			return fmt.Errorf("load snapshot %s: database %d has no id", path, i)
		}
		if s.dbs[id] != nil {
			return fmt.Errorf("load snapshot %s: database %q appears twice", path, id)
		}
		n := uint32(s.nextID())
		d := &database{id: id, ridNum: n, rid: ridDB(n), etag: s.newETag(), ts: s.now().Unix(), colls: map[string]*container{}}
		if sd.Offer != nil {
			if err := checkThroughput(sd.Offer.Manual, sd.Offer.AutoscaleMax); err != nil {
				return fmt.Errorf("load snapshot %s: database %s: %v", path, id, err)
			}
			d.offer = s.newOffer(sd.Offer.Manual, sd.Offer.AutoscaleMax, d.rid, "dbs/"+d.rid+"/")
		}
		s.dbs[id] = d
		for j, sc := range sd.Containers {
			m := sc.Resource
			cid, _ := m["id"].(string)
			if cid == "" {
				return fmt.Errorf("load snapshot %s: database %s: container %d has no id", path, id, j)
			}
			if d.colls[cid] != nil {
				return fmt.Errorf("load snapshot %s: database %s: container %q appears twice", path, id, cid)
			}
			pk, err := parsePKDef(m["partitionKey"])
			if err != nil {
				return fmt.Errorf("load snapshot %s: container %s: %v", path, cid, err)
			}
			pol, polJSON, err := compilePolicy(m["indexingPolicy"])
			if err != nil {
				return fmt.Errorf("load snapshot %s: container %s: %v", path, cid, err)
			}
			m["indexingPolicy"] = polJSON
			uniq, _ := parseUnique(m["uniqueKeyPolicy"])
			ttl, _ := parseTTL(m["defaultTtl"])
			for _, k := range []string{"_rid", "_self", "_etag", "_ts", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"} {
				delete(m, k)
			}
			cn := uint32(s.nextID())
			search, _ := parseSearch(m)
			c := &container{db: d, id: cid, ridNum: cn, rid: ridColl(d.ridNum, cn), etag: s.newETag(), ts: s.now().Unix(),
				props: m, pk: pk, policy: pol, unique: uniq, defaultTTL: ttl, search: search}
			if sc.Offer != nil {
				if err := checkThroughput(sc.Offer.Manual, sc.Offer.AutoscaleMax); err != nil {
					return fmt.Errorf("load snapshot %s: container %s: %v", path, cid, err)
				}
				c.offer = s.newOffer(sc.Offer.Manual, sc.Offer.AutoscaleMax, c.rid, "dbs/"+d.rid+"/colls/"+c.rid+"/")
			}
			if err := checkPartitions(sc.Partitions); err != nil {
				return fmt.Errorf("load snapshot %s: container %s: %w", path, cid, err)
			}
			newPartitions(c, max(sc.Partitions, 1))
			d.colls[cid] = c
			for i, raw := range sc.Items {
				dd, p, err := s.restoreDoc(c, raw)
				if err != nil {
					return fmt.Errorf("load snapshot %s: database %s, container %s, item %d: %v", path, id, cid, i, err)
				}
				if lp := p.logical[dd.lpk]; lp != nil && lp.byID[dd.id] != nil {
					return fmt.Errorf("load snapshot %s: database %s, container %s, item %d: id %q appears twice in partition key %s", path, id, cid, i, dd.id, dd.lpk)
				}
				o := s.newOverlay(c, p, dd.lpk, dd.pkVals)
				o.put(dd.id, dd)
				s.commit(o)
			}
		}
	}
	s.dirty.Store(false)
	return nil
}

// sweepExpired removes expired items (time-to-live.md: deletion runs in the background and is
// not charged to clients).
func (s *Server) sweepExpired() {
	now := s.now().Unix()
	s.mu.RLock()
	var colls []*container
	for _, d := range s.dbs {
		for _, c := range d.colls {
			if c.defaultTTL != nil {
				colls = append(colls, c)
			}
		}
	}
	s.mu.RUnlock()
	for _, c := range colls {
		for _, p := range c.parts {
			func() {
				s.commitGate.RLock()
				defer s.commitGate.RUnlock()
				p.mu.Lock()
				defer p.mu.Unlock()
				byLPK := map[string][]*doc{}
				for _, d := range p.all.items {
					if d != nil && d.expired(now) {
						byLPK[d.lpk] = append(byLPK[d.lpk], d)
					}
				}
				for lpk, ds := range byLPK {
					o := s.newOverlay(c, p, lpk, ds[0].pkVals)
					for _, d := range ds {
						o.put(d.id, nil)
					}
					s.commit(o)
				}
			}()
		}
	}
}

var _ = sql.Document{}
