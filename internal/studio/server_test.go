package studio

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cosmosdv/validate/internal/advise"
	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/plan"
)

// start serves a folder holding testdata/ticketing.yaml and returns the server and a client signed
// in with the printed URL's token.
func start(t *testing.T) (*Server, *http.Client, string) {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/ticketing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ticketing.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, c := startWith(t, Options{Path: dir, Version: "test"})
	return srv, c, dir
}

// startWith serves opts until the test ends and returns the server and a client signed in with the
// printed URL's token.
func startWith(t *testing.T, opts Options) (*Server, *http.Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.RawQuery != "" {
		t.Fatalf("the token URL: %d at %s, want the page without the token", resp.StatusCode, resp.Request.URL)
	}
	return srv, c
}

func post(t *testing.T, c *http.Client, url string, body any) (int, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := c.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// TestServer_Guards: the token is needed once, then the cookie; a foreign Host (DNS rebinding) or
// Origin is refused; only design files in the folder are read; a save over a file needs the
// page's confirmation; an address beyond loopback is refused at start.
func TestServer_Guards(t *testing.T) {
	srv, c, dir := start(t)
	base := "http://" + srv.Addr()

	get := func(c *http.Client, path string, hdr map[string]string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(http.DefaultClient, "/api/files", nil); code != http.StatusForbidden {
		t.Errorf("without the cookie: %d, want 403", code)
	}
	if code := get(http.DefaultClient, "/?token=wrong", nil); code != http.StatusForbidden {
		t.Errorf("a wrong token: %d, want 403", code)
	}
	if code := get(c, "/api/files", nil); code != http.StatusOK {
		t.Errorf("signed in: %d, want 200", code)
	}
	if code := get(c, "/api/files", map[string]string{"Host": "attacker.example:" + strings.Split(srv.Addr(), ":")[1]}); code != http.StatusForbidden {
		t.Errorf("a rebound Host: %d, want 403", code)
	}
	if code := get(c, "/api/files", map[string]string{"Origin": "http://attacker.example"}); code != http.StatusForbidden {
		t.Errorf("a foreign Origin: %d, want 403", code)
	}
	if code := get(c, "/api/file?name=../secret.yaml", nil); code != http.StatusNotFound {
		t.Errorf("a file outside the folder: %d, want refused", code)
	}
	// A symbolic link out of the folder is not followed (os.Root).
	outside := filepath.Join(t.TempDir(), "outside.yaml")
	os.WriteFile(outside, []byte("secret"), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "link.yaml")); err == nil {
		if code := get(c, "/api/file?name=link.yaml", nil); code == http.StatusOK {
			t.Error("a link out of the folder was read")
		}
	}

	text := "version: 1\n"
	if code, body := post(t, c, base+"/api/save", edit{Name: "ticketing.yaml", Text: text}); code != http.StatusConflict {
		t.Errorf("a save over a file without confirmation: %d %s, want 409", code, body)
	}
	if code, body := post(t, c, base+"/api/save", edit{Name: "new.yaml", Text: text}); code != http.StatusOK {
		t.Errorf("a new file: %d %s", code, body)
	}
	if code, _ := post(t, c, base+"/api/save", edit{Name: "../escape.yaml", Text: text}); code != http.StatusForbidden {
		t.Errorf("a save outside the folder: %d, want 403", code)
	}
	if code, body := post(t, c, base+"/api/save", edit{Name: "ticketing.yaml", Text: text, Overwrite: true}); code != http.StatusOK {
		t.Errorf("a confirmed overwrite: %d %s", code, body)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "ticketing.yaml")); string(got) != text {
		t.Errorf("after the save the file holds %q", got)
	}
	// A link at the name, dangling or pointing out of the folder, is never written through: a save
	// needs confirmation, then replaces the link itself.
	outside = filepath.Join(t.TempDir(), "victim.yaml")
	if err := os.WriteFile(outside, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linked.yaml")); err == nil {
		if code, body := post(t, c, base+"/api/save", edit{Name: "linked.yaml", Text: text}); code != http.StatusConflict {
			t.Errorf("a save over a link without confirmation: %d %s, want 409", code, body)
		}
		if code, body := post(t, c, base+"/api/save", edit{Name: "linked.yaml", Text: text, Overwrite: true}); code != http.StatusOK {
			t.Errorf("a confirmed save over a link: %d %s", code, body)
		}
		if got, _ := os.ReadFile(outside); string(got) != "keep\n" {
			t.Errorf("the save wrote through the link: its target holds %q", got)
		}
		if fi, err := os.Lstat(filepath.Join(dir, "linked.yaml")); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("after the save linked.yaml is not a regular file: %v", err)
		}
	}

	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", "example.com:0"} {
		if _, err := Start(context.Background(), Options{Path: dir, Addr: addr}); err == nil || !IsUsage(err) {
			t.Errorf("--listen %s: %v, want a usage error", addr, err)
		}
	}
}

// TestServer_FiguresAreTheCLIs: what the page gets for a text is the CLI's documents for that
// text: lint.Document, pipeline.Plan and advise.Advise, byte for byte, and the partitions are
// plan's figures passed on.
func TestServer_FiguresAreTheCLIs(t *testing.T) {
	srv, c, dir := start(t)
	base := "http://" + srv.Addr()
	data, _ := os.ReadFile(filepath.Join(dir, "ticketing.yaml"))
	file := filepath.Join(dir, "ticketing.yaml")

	code, body := post(t, c, base+"/api/analyze", edit{Name: "ticketing.yaml", Text: string(data)})
	if code != http.StatusOK {
		t.Fatalf("analyze: %d %s", code, body)
	}
	var got struct {
		Lint       json.RawMessage `json:"lint"`
		Plan       json.RawMessage `json:"plan"`
		Partitions []Partition     `json:"partitions"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	d, err := design.Parse(data, file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pipeline.Plan(d, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "plan", got.Plan, p)
	sameJSON(t, "lint", got.Lint, lint.Document(file, d, nil, lint.Options{}))
	for i, c := range p.Containers {
		pt := got.Partitions[i]
		if pt.Physical != c.Partitions || pt.BusiestRUs != c.BusiestRUs || pt.Hot.Risk != c.Hot.Risk || pt.Hot.CapacityRU != c.Hot.CapacityRU {
			t.Errorf("%s: partitions %+v are not plan's %+v", c.Name, pt, c)
		}
	}
	reach := map[string]string{}
	for _, pt := range got.Partitions {
		for _, r := range pt.Patterns {
			reach[r.ID] = r.Kind
		}
	}
	// AP1 reads an item; AP3 pins the event; AP6 gives only the tenant of a /tenantId,/customerId key.
	for id, want := range map[string]string{"AP1": "single", "AP3": "single", "AP6": "prefix"} {
		if reach[id] != want {
			t.Errorf("%s reaches %q, want %q", id, reach[id], want)
		}
	}

	code, body = post(t, c, base+"/api/advise", edit{Name: "ticketing.yaml", Text: string(data)})
	if code != http.StatusOK {
		t.Fatalf("advise: %d %s", code, body)
	}
	var av struct {
		Advice   json.RawMessage   `json:"advice"`
		Variants map[string]string `json:"variants"`
	}
	if err := json.Unmarshal(body, &av); err != nil {
		t.Fatal(err)
	}
	adv, err := advise.Advise(d, advise.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "advise", av.Advice, adv)
	wdir := t.TempDir()
	written, err := advise.WriteVariants(wdir, adv, false)
	if err != nil || len(written) == 0 {
		t.Fatalf("advise wrote %v: %v", written, err)
	}
	for _, v := range adv.Recommended {
		name := "ticketing." + v.Name + ".yaml"
		want, _ := os.ReadFile(filepath.Join(wdir, name))
		if av.Variants[v.Name] != strings.ReplaceAll(string(want), filepath.Join(wdir, name), filepath.Join(dir, name)) {
			t.Errorf("variant %s is not the file advise --write-variants writes", v.Name)
		}
	}

	// A design that does not parse: lint's errors at their lines, no plan.
	code, body = post(t, c, base+"/api/analyze", edit{Name: "ticketing.yaml", Text: "bogus: 1\n" + string(data)})
	if code != http.StatusOK {
		t.Fatalf("analyze: %d %s", code, body)
	}
	var bad Analysis
	json.Unmarshal(body, &bad)
	if bad.Plan != nil || bad.Lint.Valid || len(bad.Lint.Errors) == 0 || bad.Lint.Errors[0].Line != 1 || !strings.Contains(bad.Lint.Errors[0].Message, "bogus") {
		t.Errorf("a bad field: %s", body)
	}
}

func sameJSON(t *testing.T, what string, got json.RawMessage, want any) {
	t.Helper()
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	json.Unmarshal(got, &a)
	json.Unmarshal(w, &b)
	ga, _ := json.Marshal(a)
	gb, _ := json.Marshal(b)
	if !bytes.Equal(ga, gb) {
		t.Errorf("%s: the studio's document differs from the CLI's:\n got %.400s\nwant %.400s", what, ga, gb)
	}
}

// TestSchemaIsTheRepositorys: the schema the page completes and describes keys from is
// schema/design.schema.json (make schema copies it).
func TestSchemaIsTheRepositorys(t *testing.T) {
	want, err := os.ReadFile("../../schema/design.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := static.ReadFile("static/design.schema.json")
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("internal/studio/static/design.schema.json is not schema/design.schema.json (%v): run make schema", err)
	}
}

// cancelOnProgress is a ResponseWriter that cancels the request at the run's first progress line,
// as the page's Cancel button does.
type cancelOnProgress struct {
	header http.Header
	body   bytes.Buffer
	cancel func()
}

func (w *cancelOnProgress) Header() http.Header { return w.header }
func (w *cancelOnProgress) WriteHeader(int)     {}
func (w *cancelOnProgress) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"progress"`)) {
		w.cancel()
	}
	return w.body.Write(p)
}

// TestServer_RunIsCancellable: a run stops when the page cancels it (the request's context), and
// says so in its last event; a run left alone ends with the report; compare shows the design's
// changes and compare's text.
func TestServer_RunIsCancellable(t *testing.T) {
	srv, _, dir := start(t)
	data, _ := os.ReadFile(filepath.Join(dir, "ticketing.yaml"))
	body, _ := json.Marshal(edit{Name: "ticketing.yaml", Text: string(data)})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "/api/run", bytes.NewReader(body))
	w := &cancelOnProgress{header: http.Header{}, cancel: cancel}
	srv.run(w, req) // returns once the run has stopped
	lines := strings.Split(strings.TrimSpace(w.body.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, `"error"`) || !strings.Contains(last, "interrupted") {
		t.Errorf("a cancelled run's last event: %s", last)
	}

	edited := strings.Replace(string(data), "throughput: {manual: 30000}", "throughput: {manual: 24000}", 1)
	body, _ = json.Marshal(edit{Name: "ticketing.yaml", Text: edited})
	req, _ = http.NewRequest("POST", "/api/compare", bytes.NewReader(body))
	w = &cancelOnProgress{header: http.Header{}, cancel: func() {}}
	srv.compare(w, req)
	lines = strings.Split(strings.TrimSpace(w.body.String()), "\n")
	var res struct {
		Result CompareView `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Result.Comparison == nil {
		t.Fatalf("compare's last event: %.300s (%v)", lines[len(lines)-1], err)
	}
	if !strings.Contains(strings.Join(res.Result.Changes, "\n"), "24000") {
		t.Errorf("compare's design changes do not show the throughput: %q", res.Result.Changes)
	}
	wantDiff := []string{"@@ line 7", "    - name: Tickets", "      partitionKey: [/eventId]",
		"-     throughput: {manual: 30000}", "+     throughput: {manual: 24000}", "      defaultTtl: -1", "      documents:"}
	if !reflect.DeepEqual(res.Result.Diff, wantDiff) {
		t.Errorf("compare's line diff:\n got %q\nwant %q", res.Result.Diff, wantDiff)
	}
	if !strings.Contains(res.Result.Text, "AP1") {
		t.Errorf("compare's text: %.300s", res.Result.Text)
	}
}

// TestServer_EveryExample: each example of designs/ opens, is linted, planned (with its partitions)
// and advised in the studio (`validate studio designs/`).
func TestServer_EveryExample(t *testing.T) {
	srv, c := startWith(t, Options{Path: "../../designs"})
	names, err := srv.names()
	if err != nil || len(names) < 5 {
		t.Fatalf("designs/: %v %v", names, err)
	}
	base := "http://" + srv.Addr()
	for _, name := range names {
		resp, err := c.Get(base + "/api/file?name=" + name)
		if err != nil {
			t.Fatal(err)
		}
		var f struct{ Text string }
		json.NewDecoder(resp.Body).Decode(&f)
		resp.Body.Close()
		code, body := post(t, c, base+"/api/analyze", edit{Name: name, Text: f.Text})
		var a Analysis
		if err := json.Unmarshal(body, &a); code != http.StatusOK || err != nil || a.Plan == nil || len(a.Partitions) == 0 || !a.Lint.Valid {
			t.Errorf("%s: analyze %d: %.300s", name, code, body)
		}
		code, body = post(t, c, base+"/api/advise", edit{Name: name, Text: f.Text})
		var av AdviceView
		if err := json.Unmarshal(body, &av); code != http.StatusOK || err != nil || av.Advice == nil || av.Error != "" || len(av.Variants) != len(av.Advice.Recommended) {
			t.Errorf("%s: advise %d: %.300s", name, code, body)
		}
	}
}

// TestServer_LintFollowsTheCalibration: under a calibration's decided rules (--calibration) the
// lint panel quotes the figures of the plan beside it, as `validate plan --calibration` does
// (lint.Options.Plan): a rule the profile pinned carries no band in either.
func TestServer_LintFollowsTheCalibration(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/designs/rules-band.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "rules-band.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rules := &cost.Selection{Alternatives: map[string]string{}, Pinned: map[string]string{}}
	for _, name := range []string{cost.RuleTopUnservedFilter, cost.RuleAggregateNoFilter, cost.RulePKOrderComposite} {
		r, _ := cost.LookupRule(name)
		rules.Alternatives[name] = r.Default
		rules.Pinned[name] = "calibrated: test.example, 2026-11-28"
	}
	srv, c := startWith(t, Options{Path: dir, Version: "test", Rules: rules})
	code, body := post(t, c, "http://"+srv.Addr()+"/api/analyze", edit{Name: "rules-band.yaml", Text: string(data)})
	if code != http.StatusOK {
		t.Fatalf("analyze: %d %s", code, body)
	}
	var got struct {
		Lint json.RawMessage `json:"lint"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	d, err := design.Parse(data, file)
	if err != nil {
		t.Fatal(err)
	}
	calibrated := lint.Document(file, d, nil, lint.Options{Plan: plan.Options{Rules: rules}})
	builtin := lint.Document(file, d, nil, lint.Options{})
	if reflect.DeepEqual(calibrated, builtin) {
		t.Fatal("the pinned rules change none of lint's figures for rules-band.yaml: the test tells nothing")
	}
	sameJSON(t, "lint under the calibration", got.Lint, calibrated)
}
