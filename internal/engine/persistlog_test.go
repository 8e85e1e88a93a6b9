package engine

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// crashEnv names the snapshot a child process serves (TestPersist_CrashChild), for the kill -9 test.
const crashEnv = "CDV_ENGINE_CRASH_CHILD"

// TestPersist_CrashChild is not a test on its own: run by TestPersist_KillNine in a child process,
// it serves the snapshot named by crashEnv with the persist log and prints its URL, until killed.
func TestPersist_CrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("runs as the child of TestPersist_KillNine")
	}
	s, err := Start(context.Background(), Options{PersistPath: path, PersistMode: os.Getenv(crashEnv + "_MODE")})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("URL", s.URL())
	select {}
}

// signedDo sends a master-key-signed request to an engine at base.
func signedDo(client *http.Client, base, method, path string, hdr map[string]string, body []byte) (int, error) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	rtype, link := resourceOf(segs)
	date := time.Now().UTC().Format(http.TimeFormat)
	key, _ := base64.StdEncoding.DecodeString(EmulatorKey)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(strings.ToLower(method) + "\n" + rtype + "\n" + link + "\n" + strings.ToLower(date) + "\n\n"))
	req, err := http.NewRequest(method, strings.TrimSuffix(base, "/")+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+base64.StdEncoding.EncodeToString(mac.Sum(nil))))
	req.Header.Set("x-ms-date", date)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// crashRounds and crashMaxAcks keep the kill -9 test small enough for make test.
const (
	crashRounds  = 4
	crashMaxAcks = 400
)

// TestPersist_KillNine kills a serving engine with SIGKILL at random points while eight clients
// write, restarts it on the same files, and checks that every write it acknowledged is there:
// with the persist log nothing acknowledged is lost (snapshots alone lost 209,361 of 357,697).
func TestPersist_KillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "cosmos.json")
	rng := rand.New(rand.NewPCG(19, 19))
	var mu sync.Mutex
	acked := map[string]string{} // id → the value last acknowledged
	deleted := map[string]bool{}
	unsure := map[string]bool{} // deletions in flight when the engine was killed
	next := 0
	for round := range crashRounds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPersist_CrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "URL ") {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: child: %q %v", round, line, err)
		}
		base := strings.TrimSpace(strings.TrimPrefix(line, "URL "))
		// No client timeout: a killed child's connections are reset by the kernel, which ends every
		// request in flight; a timeout would only stop writers early on a busy machine.
		client := &http.Client{}
		if round == 0 {
			for _, r := range []struct{ path, body string }{
				{"/dbs", `{"id":"db"}`},
				{"/dbs/db/colls", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`},
			} {
				if st, err := signedDo(client, base, "POST", r.path, nil, []byte(r.body)); err != nil || st != 201 {
					t.Fatalf("create %s: %d %v", r.path, st, err)
				}
			}
		}
		killAt := 50 + rng.IntN(crashMaxAcks-50)
		acks := 0
		stop := make(chan struct{})
		var stopOnce sync.Once
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []string // this writer's acknowledged items, newest last
				for {
					select {
					case <-stop:
						return
					default:
					}
					mu.Lock()
					next++
					n := next
					mu.Unlock()
					id := fmt.Sprintf("w%d-%d", w, n)
					method, p, body := "POST", "/dbs/db/colls/c/docs", []byte(fmt.Sprintf(`{"id":%q,"pk":"p%d","v":%d}`, id, n%7, n))
					hdr := map[string]string{"x-ms-documentdb-partitionkey": fmt.Sprintf(`["p%d"]`, n%7)}
					isDelete := n%5 == 0 && len(mine) > 0
					if isDelete { // every fifth write deletes this writer's oldest item
						id, mine = mine[0], mine[1:]
						var k int
						fmt.Sscanf(id[strings.Index(id, "-")+1:], "%d", &k)
						method, p, body = "DELETE", "/dbs/db/colls/c/docs/"+id, nil
						hdr["x-ms-documentdb-partitionkey"] = fmt.Sprintf(`["p%d"]`, k%7)
					}
					st, err := signedDo(client, base, method, p, hdr, body)
					if err != nil {
						if isDelete { // in flight at the kill: it may or may not have been applied
							mu.Lock()
							unsure[id] = true
							mu.Unlock()
						}
						return // killed
					}
					mu.Lock()
					switch {
					case isDelete && st == 204:
						deleted[id] = true
					case !isDelete && st == 201:
						acked[id] = fmt.Sprint(n)
						mine = append(mine, id)
					default:
						mu.Unlock()
						t.Errorf("%s %s: status %d", method, p, st)
						return
					}
					acks++
					if acks >= killAt {
						stopOnce.Do(func() {
							cmd.Process.Kill() // SIGKILL: no Close, no final snapshot
							close(stop)
						})
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		stopOnce.Do(func() { cmd.Process.Kill(); close(stop) })
		cmd.Wait()
		// A save killed midway may leave a temporary file; the next start removes it.
		os.WriteFile(path+".tmp-crash", []byte(`{"version":1,"datab`), 0o600)
	}
	s, err := Start(context.Background(), Options{PersistPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if m, _ := filepath.Glob(path + ".tmp*"); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
	c, err := s.lookupContainer("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, p := range c.parts {
		for _, d := range p.all.items {
			if d != nil {
				have[d.id] = true
			}
		}
	}
	lost, resurrected, live := 0, 0, 0
	for id := range acked {
		switch {
		case unsure[id]:
		case deleted[id] && have[id]:
			resurrected++
		case !deleted[id] && !have[id]:
			lost++
			t.Logf("lost %s (write %s)", id, acked[id])
		case !deleted[id]:
			live++
		}
	}
	t.Logf("%d rounds: %d writes acknowledged (%d deletions), %d items expected, %d lost, %d deletions undone", crashRounds, len(acked)+len(deleted), len(deleted), live+lost, lost, resurrected)
	if lost > 0 || resurrected > 0 || len(acked) == 0 {
		t.Errorf("acknowledged writes lost: %d, acknowledged deletions undone: %d (of %d writes)", lost, resurrected, len(acked))
	}
}

// The snapshot's format version is checked, and null, missing or duplicate ids are errors that
// name the file (they were silently dropped or merged).
func TestPersist_SnapshotChecks(t *testing.T) {
	coll := func(items string) string {
		return `{"version":1,"databases":[{"resource":{"id":"db"},"containers":[{"resource":{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}},"partitions":1,"items":[` + items + `]}]}]}`
	}
	for name, tc := range map[string]struct{ snap, want string }{
		"version":        {`{"version":7,"databases":[]}`, "version 7"},
		"null item":      {coll(`null`), "item 0"},
		"missing id":     {coll(`{"pk":"a"}`), "no string id"},
		"numeric id":     {coll(`{"id":3,"pk":"a"}`), "no string id"},
		"duplicate id":   {coll(`{"id":"x","pk":"a"},{"id":"x","pk":"a"}`), `id "x" appears twice`},
		"database no id": {`{"version":1,"databases":[{"resource":{},"containers":[]}]}`, "database 0 has no id"},
	} {
		path := filepath.Join(t.TempDir(), "snap.json")
		if err := os.WriteFile(path, []byte(tc.snap), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{PersistLog, PersistSnapshot} {
			_, err := Start(context.Background(), Options{PersistPath: path, PersistMode: mode})
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s (%s): err = %v, want one naming %s and %q", name, mode, err, path, tc.want)
			}
		}
	}
	// The same item under two partition keys is two items.
	path := filepath.Join(t.TempDir(), "snap.json")
	os.WriteFile(path, []byte(coll(`{"id":"x","pk":"a"},{"id":"x","pk":"b"}`)), 0o600)
	s, err := Start(context.Background(), Options{PersistPath: path})
	if err != nil {
		t.Fatal(err)
	}
	s.Close(context.Background())
}

// A change of databases or containers is durable when acknowledged: it is in the snapshot before
// the response (a checkpoint), and the log is compacted into it.
func TestPersist_MetadataCheckpointed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cosmos.json")
	s, _ := startEngine(t, Options{PersistPath: path})
	if resp, body := raw(t, s, "POST", "/dbs", nil, []byte(`{"id":"db"}`)); resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), `"id":"db"`) {
		t.Fatalf("snapshot after the acknowledged create: %v %.200s", err, b)
	}
}

// BenchmarkPersistWrites compares item creates from 16 concurrent clients on the in-memory engine
// and with the persist log (every acknowledged create fsynced; group commit shares the fsyncs).
// The ratio of the two is the cost of durability (docs/reliability.md).
func BenchmarkPersistWrites(b *testing.B) {
	for _, mode := range []string{"memory", PersistLog} {
		b.Run(mode, func(b *testing.B) {
			o := Options{}
			if mode != "memory" {
				o.PersistPath = filepath.Join(b.TempDir(), "cosmos.json")
			}
			s, err := Start(context.Background(), o)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close(context.Background())
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			for _, r := range []struct{ path, body string }{
				{"/dbs", `{"id":"db"}`},
				{"/dbs/db/colls", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`},
			} {
				if st, err := signedDo(client, s.URL(), "POST", r.path, nil, []byte(r.body)); err != nil || st != 201 {
					b.Fatalf("create %s: %d %v", r.path, st, err)
				}
			}
			var mu sync.Mutex
			n := 0
			b.SetParallelism(8) // 16 clients on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					mu.Lock()
					n++
					i := n
					mu.Unlock()
					body := []byte(fmt.Sprintf(`{"id":"i%d","pk":"p%d","name":"item %d","n":%d}`, i, i%16, i, i))
					st, err := signedDo(client, s.URL(), "POST", "/dbs/db/colls/c/docs", map[string]string{"x-ms-documentdb-partitionkey": fmt.Sprintf(`["p%d"]`, i%16)}, body)
					if err != nil || st != 201 {
						b.Errorf("create: %d %v", st, err)
						return
					}
				}
			})
		})
	}
}

// TestPersist_OneProcessPerFile: a second server on a --persist file another process serves is
// refused with one line naming that process (two servers on one file lost one's acknowledged
// writes at the other's next snapshot); after the holder is killed with SIGKILL the file is free
// again, since the kernel drops the lock with the process.
func TestPersist_OneProcessPerFile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	path := filepath.Join(t.TempDir(), "cosmos.json")
	child := func() (*exec.Cmd, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPersist_CrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		return cmd, strings.TrimSpace(line)
	}
	first, line := child()
	if !strings.HasPrefix(line, "URL ") {
		first.Process.Kill()
		first.Wait()
		t.Fatalf("first server: %q", line)
	}
	second, line := child()
	if strings.HasPrefix(line, "URL ") { // it serves: stop it before judging
		second.Process.Kill()
	}
	err := second.Wait()
	want := fmt.Sprintf("held by process %d", first.Process.Pid)
	if err == nil || !strings.HasPrefix(line, "ERROR") || !strings.Contains(line, want) {
		t.Errorf("second server on the same file: exit %v, %q; want a refusal naming %q", err, line, want)
	}
	// In this process too: a second Start on the file the child holds is refused with ErrPersistInUse.
	if s, err := Start(context.Background(), Options{PersistPath: path}); !errors.Is(err, ErrPersistInUse) {
		if s != nil {
			s.Close(context.Background())
		}
		t.Errorf("Start on a held file: %v; want ErrPersistInUse", err)
	}
	first.Process.Kill()
	first.Wait()
	third, line := child()
	defer func() { third.Process.Kill(); third.Wait() }()
	if !strings.HasPrefix(line, "URL ") {
		t.Fatalf("after the holder was killed: %q; want the server to start", line)
	}
}
