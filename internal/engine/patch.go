package engine

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cosmosdv/validate/internal/engine/index"
	"github.com/cosmosdv/validate/internal/engine/sql"
)

// patchSpec is a partial-document update (partial-document-update.md): at most 10 operations,
// optionally conditioned on a filter predicate ("from c where ...").
type patchSpec struct {
	Condition  string    `json:"condition"`
	Operations []patchOp `json:"operations"`
}

type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// maxPatchOps is the service's limit of operations per patch (partial-document-update.md).
const maxPatchOps = 10

func decodePatch(b []byte) (*patchSpec, error) {
	var p patchSpec
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, errf(400, "The patch document is invalid: %v", err)
	}
	if len(p.Operations) == 0 {
		return nil, errf(400, "The patch request has no operations.")
	}
	if len(p.Operations) > maxPatchOps {
		return nil, errf(400, "The number of patch operations (%d) exceeds the limit of %d.", len(p.Operations), maxPatchOps)
	}
	return &p, nil
}

func (s *Server) patchItem(q *request, c *container, id string) (int, error) {
	spec, err := decodePatch(q.body)
	if err != nil {
		return 0, err
	}
	p, res, err := s.writeOne(q, c, "Patch", id, nil, nil, spec)
	if err != nil {
		return 0, err
	}
	s.itemHeaders(q, p, res.doc)
	if minimal(q) {
		return s.reply(q, 200, nil)
	}
	return s.reply(q, 200, res.doc.raw)
}

// deepCopy copies decoded JSON.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}

// applyPatch returns the patched body of old, or a 400/412 error.
func (s *Server) applyPatch(c *container, old *doc, spec *patchSpec) (map[string]any, error) {
	if spec.Condition != "" {
		cond := strings.TrimSpace(spec.Condition)
		pq, err := sql.Parse("SELECT * " + cond)
		if err != nil {
			return nil, errf(400, "The patch condition is invalid: %v", err)
		}
		res, err := sql.Execute(pq, &memSource{docs: []*sql.Document{old.visit()}}, sql.Options{Policy: c.policy})
		if fe := faultError(err); fe != nil {
			return nil, fe
		}
		if err != nil {
			return nil, errf(400, "The patch condition is invalid: %v", err)
		}
		if len(res.Items) == 0 {
			return nil, errf(412, "Operation cannot be performed because one of the specified precondition is not met.")
		}
	}
	body := old.body()
	if old.fresh != nil {
		body = deepCopy(body).(map[string]any) // staged in this batch: its body is the stage's
	}
	for _, k := range index.SystemProperties {
		delete(body, k)
	}
	for i, op := range spec.Operations {
		if err := patchOne(c, body, op); err != nil {
			return nil, errf(400, "Patch operation %d (%s %s) failed: %s", i, op.Op, op.Path, err.Error())
		}
	}
	return body, nil
}

type patchErr string

func (e patchErr) Error() string { return string(e) }

func parsePatchPath(p string) ([]string, error) {
	if !strings.HasPrefix(p, "/") || len(p) < 2 {
		return nil, patchErr("the path must start with '/' and name a property")
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		segs[i] = s
	}
	return segs, nil
}

// patchOne applies one operation to body in place.
func patchOne(c *container, body map[string]any, op patchOp) error {
	segs, err := parsePatchPath(op.Path)
	if err != nil {
		return err
	}
	if err := patchable(c, segs, op.Op); err != nil {
		return err
	}
	switch op.Op {
	case "add":
		return setAt(body, segs, op.Value, true, false)
	case "set":
		return setAt(body, segs, op.Value, false, false)
	case "replace":
		return setAt(body, segs, op.Value, false, true)
	case "remove":
		_, err := removeAt(body, segs)
		return err
	case "incr":
		delta, ok := op.Value.(float64)
		if !ok {
			return patchErr("the increment value must be a number")
		}
		cur, exists := getAt(body, segs)
		if !exists {
			return setAt(body, segs, delta, false, false)
		}
		n, ok := cur.(float64)
		if !ok {
			return patchErr("the target of an increment must be a number")
		}
		return setAt(body, segs, n+delta, false, true)
	case "move":
		from, err := parsePatchPath(op.From)
		if err != nil {
			return err
		}
		// Moving takes the value away from where it was: the source is held to the same rules as
		// the target (a move from /id stored an item without an id, which then failed every start
		// of a --persist server; one from the key moved the item to another partition).
		if err := patchable(c, from, op.Op); err != nil {
			return err
		}
		if prefixOf(from, segs) && len(from) < len(segs) {
			return patchErr("cannot move a value into itself")
		}
		v, err := removeAt(body, from)
		if err != nil {
			return err
		}
		return setAt(body, segs, v, false, false)
	}
	return patchErr("unknown operation " + strconv.Quote(op.Op))
}

// patchable refuses an operation on id, a system property or the partition key (or a path
// inside or above the key), as the service refuses them.
func patchable(c *container, segs []string, op string) error {
	// Every operation, incr included: the service does not patch system properties
	// (partial-document-update FAQ), and an incr on /_ts answered 200 with the value unchanged.
	if len(segs) == 1 && (segs[0] == "id" || isSystem(segs[0])) {
		return patchErr("system properties and id cannot be patched")
	}
	for _, pk := range c.pk.parts {
		if prefixOf(pk, segs) || prefixOf(segs, pk) {
			return patchErr("the partition key cannot be patched")
		}
	}
	return nil
}

func isSystem(name string) bool {
	for _, k := range index.SystemProperties {
		if k == name {
			return true
		}
	}
	return false
}

func prefixOf(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// parent walks to the container of the last segment.
func parent(body map[string]any, segs []string) (any, error) {
	var cur any = body
	for _, s := range segs[:len(segs)-1] {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[s]
			if !ok {
				return nil, patchErr("the parent path does not exist")
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(x) {
				return nil, patchErr("array index out of range")
			}
			cur = x[i]
		default:
			return nil, patchErr("the parent path is not an object or array")
		}
	}
	return cur, nil
}

func getAt(body map[string]any, segs []string) (any, bool) {
	par, err := parent(body, segs)
	if err != nil {
		return nil, false
	}
	last := segs[len(segs)-1]
	switch x := par.(type) {
	case map[string]any:
		v, ok := x[last]
		return v, ok
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(x) {
			return nil, false
		}
		return x[i], true
	}
	return nil, false
}

// setAt writes v. insert: array targets insert (add); mustExist: the target must exist (replace).
func setAt(body map[string]any, segs []string, v any, insert, mustExist bool) error {
	par, err := parent(body, segs)
	if err != nil {
		return err
	}
	last := segs[len(segs)-1]
	switch x := par.(type) {
	case map[string]any:
		if _, ok := x[last]; mustExist && !ok {
			return patchErr("the target path does not exist")
		}
		x[last] = v
		return nil
	case []any:
		var arr []any
		if last == "-" {
			if mustExist {
				return patchErr("the target path does not exist")
			}
			arr = append(x, v)
		} else {
			i, err := strconv.Atoi(last)
			if err != nil || i < 0 || i > len(x) || (i == len(x) && (mustExist || !insert)) {
				return patchErr("array index out of range")
			}
			if insert {
				arr = append(x[:i:i], append([]any{v}, x[i:]...)...)
			} else {
				x[i] = v
				return nil
			}
		}
		return setAt(body, segs[:len(segs)-1], arr, false, true)
	}
	return patchErr("the parent path is not an object or array")
}

func removeAt(body map[string]any, segs []string) (any, error) {
	par, err := parent(body, segs)
	if err != nil {
		return nil, err
	}
	last := segs[len(segs)-1]
	switch x := par.(type) {
	case map[string]any:
		v, ok := x[last]
		if !ok {
			return nil, patchErr("the target path does not exist")
		}
		delete(x, last)
		return v, nil
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(x) {
			return nil, patchErr("array index out of range")
		}
		v := x[i]
		arr := append(x[:i:i], x[i+1:]...)
		return v, setAt(body, segs[:len(segs)-1], arr, false, true)
	}
	return nil, patchErr("the parent path is not an object or array")
}
