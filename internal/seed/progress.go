package seed

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progress reports how far the load is: a redrawn bar on a terminal, a plain line at every tenth
// otherwise (so that CI logs stay short).
type progress struct {
	w       io.Writer
	tty     bool
	total   int
	done    atomic.Int64
	decile  atomic.Int64
	start   time.Time
	mu      sync.Mutex
	quit    chan struct{}
	stopped sync.Once
	wg      sync.WaitGroup
}

func newProgress(w io.Writer, tty bool, total int) *progress {
	p := &progress{w: w, tty: tty, total: total, start: time.Now(), quit: make(chan struct{})}
	if w == nil {
		return p
	}
	if tty {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			tick := time.NewTicker(150 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
					p.draw()
				case <-p.quit:
					return
				}
			}
		}()
	}
	return p
}

func (p *progress) add(n int) {
	done := p.done.Add(int64(n))
	if p.w == nil || p.tty || p.total == 0 {
		return
	}
	d := done * 10 / int64(p.total)
	for {
		last := p.decile.Load()
		if d <= last {
			return
		}
		if p.decile.CompareAndSwap(last, d) {
			p.line(done)
			return
		}
	}
}

func (p *progress) rate(done int64) float64 {
	el := time.Since(p.start).Seconds()
	if el <= 0 {
		return 0
	}
	return float64(done) / el
}

func (p *progress) line(done int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "seed: %d/%d documents (%d%%), %.0f/s\n", done, p.total, done*100/int64(max(p.total, 1)), p.rate(done))
}

const barWidth = 30

func (p *progress) draw() {
	done := p.done.Load()
	frac := 1.0
	if p.total > 0 {
		frac = float64(done) / float64(p.total)
	}
	n := int(frac * barWidth)
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\rseeding [%s%s] %3.0f%% %d/%d docs %.0f/s ", strings.Repeat("#", n), strings.Repeat("-", barWidth-n),
		frac*100, done, p.total, p.rate(done))
}

// stop ends the bar with a final redraw and a newline. Safe to call more than once.
func (p *progress) stop() {
	p.stopped.Do(func() {
		close(p.quit)
		p.wg.Wait()
		if p.w != nil && p.tty {
			p.draw()
			p.mu.Lock()
			fmt.Fprintln(p.w)
			p.mu.Unlock()
		}
	})
}
