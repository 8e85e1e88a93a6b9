package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
)

// TestStudio_StartsAndStopsOnSignal runs `validate studio designs/`, signs in with the printed URL,
// lists the examples and stops on the interrupt (the context main cancels on Ctrl-C), exit 0.
func TestStudio_StartsAndStopsOnSignal(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, []string{"studio", repo("designs")}, &out, &bytes.Buffer{}) }()
	m, code := out.waitFor(regexp.MustCompile(`open (http://127\.0\.0\.1:\d+/\?token=\w+)`), done)
	if m == nil {
		cancel()
		t.Fatalf("studio exited %d with no ready line: %q", code, out.String())
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	base := strings.SplitN(m[1], "/?", 2)[0]
	resp, err = c.Get(base + "/api/files")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(b.String(), "ecommerce.yaml") {
		t.Errorf("files: %d %s", resp.StatusCode, b.String())
	}
	cancel()
	// No deadline: a studio that does not stop is ended by go test's -timeout with every stack.
	if code := <-done; code != ExitOK {
		t.Errorf("studio exit %d", code)
	}
	if !strings.Contains(out.String(), "validate studio: stopped") {
		t.Errorf("no stop line: %q", out.String())
	}
}

// TestStudio_UsageErrors: a design that is not there, a file that is not a design and an address
// beyond loopback are usage errors (exit 2) that say what to give.
func TestStudio_UsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"studio", "no-such-folder"}, "give a design file or a folder"},
		{[]string{"studio", repo("go.mod")}, "not a design file"},
		{[]string{"studio", "--listen", "0.0.0.0:0", repo("designs")}, "loopback address only"},
		{[]string{"studio", repo("designs"), repo("designs")}, "one design file or folder"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
