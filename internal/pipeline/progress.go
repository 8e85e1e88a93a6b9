package pipeline

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// probeProgress shows how far probing is, as seeding's progress does: on a terminal a bar redrawn
// whenever the percentage or the pattern changes; otherwise one line per finished pattern with the
// run's counts (the lines probe prints).
type probeProgress struct {
	w    io.Writer
	tty  bool
	say  func(format string, args ...any)
	mu   sync.Mutex
	last string
	drew bool
}

func newProbeProgress(w io.Writer, tty bool, say func(format string, args ...any)) *probeProgress {
	return &probeProgress{w: w, tty: tty && w != nil, say: say}
}

// line prints a per-pattern line; on a terminal the bar says it instead.
func (p *probeProgress) line(format string, args ...any) {
	if !p.tty {
		p.say(format, args...)
	}
}

const probeBarWidth = 30

func (p *probeProgress) tick(done, total int, pattern string) {
	if !p.tty || total <= 0 {
		return
	}
	frac := float64(done) / float64(total)
	n := int(frac * probeBarWidth)
	s := fmt.Sprintf("\rprobing [%s%s] %3.0f%% %d/%d executions (%s) ", strings.Repeat("#", n), strings.Repeat("-", probeBarWidth-n),
		frac*100, done, total, pattern)
	p.mu.Lock()
	defer p.mu.Unlock()
	if s == p.last {
		return
	}
	p.last, p.drew = s, true
	fmt.Fprint(p.w, s)
}

// stop ends the bar's line.
func (p *probeProgress) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drew {
		fmt.Fprintln(p.w)
		p.drew = false
	}
}
