// Package studio is `validate studio`: a design workbench served on loopback to a browser. The page
// (static/, embedded in the binary: no npm, no CDN, no network) edits a design's YAML and shows, as
// the text changes, lint's findings at their lines, plan's table, the partitions plan sized, advise's
// what-ifs and, on request, a run on the embedded engine and a comparison with the saved file.
//
// One source of figures: every number the page shows is in a JSON document that lint, plan,
// advise, run or compare produced (the same documents the CLI prints with --format json); the page
// renders them and computes none.
//
// Safe by default: the server listens on loopback only; every request's Host (and Origin, when
// sent) must name that loopback address, so a DNS-rebound name is refused; the first URL carries a
// per-start token that is exchanged for an HttpOnly, SameSite=Strict cookie and never appears again
// (not in Referer, not in history); files are read and written only inside the design's folder
// (os.Root), only design files (.yaml, .yml), and a save over an existing file needs the page's
// explicit confirmation.
package studio

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/cost"
	"github.com/cosmosdv/validate/internal/lint"
)

//go:embed static
var static embed.FS

// Options configure a studio server.
type Options struct {
	// Path is the design file or the folder of design files the studio edits; nothing outside it is
	// read or written.
	Path string
	// Addr is the loopback address to listen on ("" = 127.0.0.1:0, any free port).
	Addr string
	// RateCard prices plan, advise and runs (nil = the built-in card); Seed is the generator seed.
	RateCard *cost.RateCard
	// Rules is a calibration profile's decided rules (cost.Profile.Selection); nil = defaults.
	Rules *cost.Selection
	Seed  int64
	// Lint weighs lint's findings (and so plan's warnings) as `validate lint` and `validate plan`
	// do with --negligible-share; the zero value is their default.
	Lint lint.Options
	// Version is the tool version the run reports carry.
	Version string
}

// usageError is an error the user fixes on the command line (exit 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func usage(err error) error { return usageError{err} }

// IsUsage reports whether Start failed on its options (a path that is not a design or a folder, an
// address beyond loopback) rather than on the machine (a port taken).
func IsUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

// Server is a running studio.
type Server struct {
	opts    Options
	dir     string // the folder files are confined to
	only    string // the one file when Path is a file, else ""
	root    *os.Root
	token   string
	session string
	ln      net.Listener
	http    *http.Server
	done    chan error
}

// cookieName is the session cookie's name: one per port, since cookies do not tell ports apart and
// two studios on one machine must not sign each other out.
func (s *Server) cookieName() string {
	_, port, _ := net.SplitHostPort(s.ln.Addr().String())
	return "validate_studio_" + port
}

// Start checks the options, listens and serves until ctx is done or Close is called.
func Start(ctx context.Context, opts Options) (*Server, error) {
	s := &Server{opts: opts, done: make(chan error, 1)}
	st, err := os.Stat(opts.Path)
	if err != nil {
		return nil, usage(fmt.Errorf("%s: %w: give a design file or a folder of design files", opts.Path, err))
	}
	if st.IsDir() {
		s.dir = opts.Path
	} else {
		if !isDesignName(filepath.Base(opts.Path)) {
			return nil, usage(fmt.Errorf("%s: not a design file (.yaml or .yml)", opts.Path))
		}
		s.dir, s.only = filepath.Dir(opts.Path), filepath.Base(opts.Path)
	}
	if s.root, err = os.OpenRoot(s.dir); err != nil {
		return nil, err
	}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		s.root.Close()
		return nil, usage(fmt.Errorf("--listen %q: %w (want host:port, e.g. 127.0.0.1:0)", addr, err))
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		s.root.Close()
		return nil, usage(fmt.Errorf("--listen %q: the studio listens on a loopback address only (127.0.0.1 or ::1): it reads and writes your design files", addr))
	}
	s.token, s.session = randomHex(), randomHex()
	if s.ln, err = net.Listen("tcp", addr); err != nil {
		s.root.Close()
		return nil, err
	}
	s.http = &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// A request's context ends with the studio's: a run in progress stops at Ctrl-C.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	go func() { s.done <- s.http.Serve(s.ln) }()
	go func() {
		<-ctx.Done()
		s.shutdown()
	}()
	return s, nil
}

// URL is the first URL to open: it carries the per-start token, which the page exchanges for a
// cookie at once.
func (s *Server) URL() string { return s.base() + "/?token=" + s.token }

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

func (s *Server) base() string { return "http://" + s.ln.Addr().String() }

// Close stops the server: running requests (a run) are given 5 seconds, then cut.
func (s *Server) Close() error {
	s.shutdown()
	err := <-s.done
	s.done <- err
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

func (s *Server) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil {
		s.http.Close()
	}
	s.root.Close()
}

func randomHex() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b)
}

// allowedHost reports whether a request's Host names the address the server listens on: its IP, or
// localhost, with its port. Anything else (a DNS-rebound name) is refused.
func (s *Server) allowedHost(host string) bool {
	_, port, _ := net.SplitHostPort(s.ln.Addr().String())
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != port {
		return false
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// handler checks every request (Host, Origin, the session cookie) before the routes see it.
func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	assets, _ := fs.Sub(static, "static")
	files := http.FileServerFS(assets)
	mux.Handle("GET /static/", http.StripPrefix("/static/", files))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, assets, "index.html")
	})
	mux.HandleFunc("GET /api/files", s.files)
	mux.HandleFunc("GET /api/file", s.file)
	mux.HandleFunc("POST /api/analyze", s.analyze)
	mux.HandleFunc("POST /api/advise", s.advise)
	mux.HandleFunc("POST /api/save", s.save)
	mux.HandleFunc("POST /api/run", s.run)
	mux.HandleFunc("POST /api/compare", s.compare)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		if !s.allowedHost(r.Host) {
			http.Error(w, "validate studio: refused: the Host header does not name this loopback server (a DNS-rebinding attempt, or a proxy): open the URL validate studio printed", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && (!strings.HasPrefix(o, "http://") || !s.allowedHost(strings.TrimPrefix(o, "http://"))) {
			http.Error(w, "validate studio: refused: a request from another origin ("+o+")", http.StatusForbidden)
			return
		}
		if r.URL.Path == "/" && r.URL.Query().Has("token") {
			s.exchange(w, r)
			return
		}
		c, err := r.Cookie(s.cookieName())
		if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.session)) != 1 {
			http.Error(w, "validate studio: not signed in: open the URL validate studio printed when it started (it carries this start's token)", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			http.Error(w, "validate studio: a POST must be application/json", http.StatusUnsupportedMediaType)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// exchange trades the URL's token for the session cookie and redirects to the bare page, so the
// token stays out of the history and of any Referer.
func (s *Server) exchange(w http.ResponseWriter, r *http.Request) {
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(s.token)) != 1 {
		http.Error(w, "validate studio: wrong token: open the URL validate studio printed when it started (each start has its own)", http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: s.session, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// isDesignName reports whether name is a plain design file name in the folder: no separators, no
// leading dot, a .yaml or .yml extension.
func isDesignName(name string) bool {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || strings.ContainsRune(name, 0) {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return true
	}
	return false
}

// names lists the design files the studio may open.
func (s *Server) names() ([]string, error) {
	if s.only != "" {
		return []string{s.only}, nil
	}
	entries, err := fs.ReadDir(s.root.FS(), ".")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && isDesignName(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// checkName refuses a file name the studio may not read: not a design name, or (with one file
// given) another file.
func (s *Server) checkName(name string) error {
	if !isDesignName(name) {
		return fmt.Errorf("%q is not a design file name in %s (a .yaml or .yml file directly in the folder)", name, s.dir)
	}
	if s.only != "" && name != s.only {
		return fmt.Errorf("%q: this studio edits %s only", name, s.only)
	}
	return nil
}

// display is how a file is named in findings: its path as the user gave the folder.
func (s *Server) display(name string) string { return filepath.Join(s.dir, name) }

const maxDesignBytes = 4 << 20

func (s *Server) read(name string) ([]byte, error) {
	if err := s.checkName(name); err != nil {
		return nil, err
	}
	f, err := s.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxDesignBytes))
}

// The page's completion and hover read the design schema; it is a copy of schema/design.schema.json
// (make schema refreshes both; TestSchemaIsTheRepositorys holds them equal).
//go:generate cp ../../schema/design.schema.json static/design.schema.json
