package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the transport of `validate mcp`: newline-delimited JSON-RPC on r and w, like the SDK's
// IOTransport, except that the end of r does not drop requests already read. A client that pipes its
// requests in and closes its end (`printf '…' | validate mcp`) gets an answer to every request it
// sent; then the session ends. A request the client cancels (notifications/cancelled) is not waited
// for.
func Stdio(r io.Reader, w io.Writer) mcp.Transport {
	return &drainTransport{inner: &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

type drainTransport struct{ inner mcp.Transport }

func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, pending: map[any]bool{}, idle: make(chan struct{}), closed: make(chan struct{})}, nil
}

// drainConn counts the requests read and not yet answered; at the end of input its Read waits for
// them before it reports the end.
type drainConn struct {
	mcp.Connection
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
	for {
		c.mu.Lock()
		n, idle := len(c.pending), c.idle
		c.mu.Unlock()
		if n == 0 {
			return nil, err
		}
		select {
		case <-idle:
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
