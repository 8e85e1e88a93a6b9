package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the transport of `validate mcp`: newline-delimited JSON-RPC on r and w (MCP's stdio
// transport), with two differences from the SDK's IOTransport:
//
//   - A line that is not a JSON-RPC message is answered, not fatal: text that is not JSON (a NUL,
//     nesting deeper than the JSON reader allows, a line over MaxLine) gets -32700 (parse error)
//     and JSON that is not a request (an object as id, a batch array — MCP 2025-06-18 removed
//     batching — a number) gets -32600 (invalid request), each with id null unless the line
//     carried a usable id; then the session reads the next line.
//   - The end of r is the client leaving (MCP's stdio shutdown starts by closing the server's
//     input). Requests already read get EOFGrace to answer, so `printf '…' | validate mcp` still
//     gets its quick answers; whatever is still running then (a run seeding an engine) is cancelled,
//     cleans up and answers with the cancellation, and the session ends.
func Stdio(r io.Reader, w io.Writer) mcp.Transport { return StdioGrace(r, w, EOFGrace) }

// StdioGrace is Stdio with another grace at the end of input (tests use 0).
func StdioGrace(r io.Reader, w io.Writer, grace time.Duration) mcp.Transport {
	return &drainTransport{r: r, w: w, grace: grace}
}

// EOFGrace is how long requests still running when the input ends may take before they are
// cancelled.
const EOFGrace = 5 * time.Second

// MaxLine is the longest message line read (a design or markdown travels inside one).
const MaxLine = 32 << 20

// lineConn reads and writes one JSON-RPC message per line.
type lineConn struct {
	wmu    sync.Mutex
	w      io.Writer
	lines  chan lineRead
	closed chan struct{}
	once   sync.Once
}

type lineRead struct {
	b   []byte
	err error
}

func newLineConn(r io.Reader, w io.Writer) *lineConn {
	c := &lineConn{w: w, lines: make(chan lineRead), closed: make(chan struct{})}
	go c.readLines(bufio.NewReaderSize(r, 64<<10))
	return c
}

// errLineTooLong marks a line over MaxLine (read to its end and dropped).
var errLineTooLong = fmt.Errorf("a message line longer than %d bytes", MaxLine)

func (c *lineConn) readLines(br *bufio.Reader) {
	for {
		var line []byte
		var err error
		tooLong := false
		for {
			frag, ferr := br.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(frag) > MaxLine {
					tooLong, line = true, nil
				} else {
					line = append(line, frag...)
				}
			}
			if ferr == bufio.ErrBufferFull {
				continue
			}
			err = ferr
			break
		}
		lr := lineRead{b: line}
		if tooLong {
			lr = lineRead{err: errLineTooLong}
		}
		if len(lr.b) > 0 || lr.err != nil {
			select {
			case c.lines <- lr:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.lines <- lineRead{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// Read returns the next message; a line that is not one is answered here and skipped.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var lr lineRead
		select {
		case lr = <-c.lines:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
		if errors.Is(lr.err, errLineTooLong) {
			c.reject(nil, jsonrpc.CodeParseError, "parse error: "+lr.err.Error())
			continue
		}
		if lr.err != nil {
			return nil, lr.err
		}
		line := bytes.TrimSpace(lr.b)
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			c.reject(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
			continue
		}
		if line[0] == '[' {
			c.reject(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per line")
			continue
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			c.reject(lineID(line), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
			continue
		}
		return msg, nil
	}
}

// lineID is the id of a line that is not a valid request, when it is one JSON-RPC allows (a
// string or a number); otherwise nil, answered as id null.
func lineID(line []byte) any {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return v
	}
	return nil
}

// reject answers a line that is not a request with a JSON-RPC error.
func (c *lineConn) reject(id any, code int, message string) {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if err == nil {
		_ = c.writeLine(b)
	}
}

func (c *lineConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }

type drainTransport struct {
	r     io.Reader
	w     io.Writer
	grace time.Duration
}

func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	return &drainConn{Connection: newLineConn(t.r, t.w), grace: t.grace, pending: map[any]bool{}, idle: make(chan struct{}), closed: make(chan struct{})}, nil
}

// drainConn counts the requests read and not yet answered; at the end of input its Read waits up
// to grace for them before it reports the end (and the SDK then cancels what still runs).
type drainConn struct {
	mcp.Connection
	grace   time.Duration
	mu      sync.Mutex
	pending map[any]bool  // request ids read and not answered
	idle    chan struct{} // closed (and replaced) when pending becomes empty
	once    sync.Once
	closed  chan struct{}
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok {
			c.track(req)
		}
		return msg, nil
	}
	if !errors.Is(err, io.EOF) {
		return nil, err
	}
	grace := time.NewTimer(c.grace)
	defer grace.Stop()
	for {
		c.mu.Lock()
		n, idle := len(c.pending), c.idle
		c.mu.Unlock()
		if n == 0 {
			return nil, err
		}
		select {
		case <-idle:
		case <-grace.C:
			return nil, err // the client has gone: what still runs is cancelled
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, err
		}
	}
}

func (c *drainConn) track(req *jsonrpc.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case req.ID.IsValid():
		c.pending[key(req.ID.Raw())] = true
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil && p.RequestID != nil {
			c.done(key(p.RequestID))
		}
	}
}

// key makes a request id comparable whichever JSON type carried it (1 and 1.0 are the same id).
func key(id any) any {
	switch v := id.(type) {
	case float64:
		return fmt.Sprint(v)
	case int64:
		return fmt.Sprint(float64(v))
	case string:
		return "s:" + v
	}
	return fmt.Sprint(id)
}

// done forgets an answered or cancelled request; c.mu is held.
func (c *drainConn) done(k any) {
	if !c.pending[k] {
		return
	}
	delete(c.pending, k)
	if len(c.pending) == 0 {
		close(c.idle)
		c.idle = make(chan struct{})
	}
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		c.done(key(resp.ID.Raw()))
		c.mu.Unlock()
	}
	return err
}

func (c *drainConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}
