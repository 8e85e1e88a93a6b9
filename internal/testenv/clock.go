package testenv

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// ThrottleClock is a fake clock for tests of the engine's RU/s budgets (engine.Options.Now), whose
// windows are whole seconds of its clock. Time stands still while requests run, so a burst always
// meets one budget whatever the machine's speed; it moves only when the engine tells a client to
// wait (a 429's x-ms-retry-after-ms, seen by Policy on the client's pipeline): by the wait and
// 999 ms more, so that the client's retry meets a fresh budget that ends 1 ms later, and the
// real sleep the next 429 asks for is 1 ms.
type ThrottleClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewThrottleClock starts 1 ms before a second boundary.
func NewThrottleClock() *ThrottleClock {
	return &ThrottleClock{t: time.Unix(1_700_000_000, 999*int64(time.Millisecond))}
}

// Now is the clock's time; give it as engine.Options.Now.
func (c *ThrottleClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d.
func (c *ThrottleClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Policy is a per-retry pipeline policy that advances the clock when a response is a 429.
func (c *ThrottleClock) Policy() policy.Policy { return throttleAdvance{c} }

type throttleAdvance struct{ c *ThrottleClock }

func (p throttleAdvance) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		ms, _ := strconv.Atoi(resp.Header.Get("x-ms-retry-after-ms"))
		p.c.Advance(time.Duration(ms)*time.Millisecond + 999*time.Millisecond)
	}
	return resp, err
}
