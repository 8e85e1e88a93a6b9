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

// save writes the snapshot atomically (temporary file, then rename).
func (s *Server) save(path string) error {
	snap := snapshot{Version: 1, LSN: s.lsn.Load()}
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
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
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
	if snap.LSN > s.lsn.Load() {
		s.lsn.Store(snap.LSN)
	}
	for _, sd := range snap.Databases {
		id, _ := sd.Resource["id"].(string)
		n := uint32(s.nextID())
		d := &database{id: id, ridNum: n, rid: ridDB(n), etag: s.newETag(), ts: s.now().Unix(), colls: map[string]*container{}}
		if sd.Offer != nil {
			d.offer = s.newOffer(sd.Offer.Manual, sd.Offer.AutoscaleMax, d.rid, "dbs/"+d.rid+"/")
		}
		s.dbs[id] = d
		for _, sc := range sd.Containers {
			m := sc.Resource
			cid, _ := m["id"].(string)
			pk, err := parsePKDef(m["partitionKey"])
			if err != nil {
				return fmt.Errorf("load snapshot: container %s: %v", cid, err)
			}
			pol, polJSON, err := compilePolicy(m["indexingPolicy"])
			if err != nil {
				return fmt.Errorf("load snapshot: container %s: %v", cid, err)
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
				c.offer = s.newOffer(sc.Offer.Manual, sc.Offer.AutoscaleMax, c.rid, "dbs/"+d.rid+"/colls/"+c.rid+"/")
			}
			newPartitions(c, max(sc.Partitions, 1))
			d.colls[cid] = c
			for _, raw := range sc.Items {
				if cap(raw)-len(raw) > maxSpare {
					raw = append(make([]byte, 0, len(raw)), raw...) // kept for the engine's lifetime
				}
				body, err := jsondoc.DecodeObject(raw) // strings point into raw, which is kept as the item
				if err != nil {
					return fmt.Errorf("load snapshot: container %s: %w", cid, err)
				}
				id, _ := body["id"].(string)
				vals := c.pkFromBody(body)
				lpk := canonicalPK(vals)
				p := c.partitionFor(effectivePartitionKey(c.pk.Kind, c.pk.Version, vals))
				ts, _ := body["_ts"].(float64)
				dd := &doc{raw: raw, id: id, lpk: lpk, pkVals: vals, etag: fmt.Sprint(body["_etag"]), ts: int64(ts)}
				dd.rid, _ = body["_rid"].(string)
				dd.Body, dd.Size = body, len(raw)
				dd.expires = c.expiry(body, dd.ts)
				dd.terms = pol.Terms(body)
				o := s.newOverlay(c, p, lpk, vals)
				o.put(id, dd)
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
			p.mu.Lock()
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
			p.mu.Unlock()
		}
	}
}

var _ = sql.Document{}
