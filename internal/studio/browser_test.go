package studio

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cosmosdv/validate/internal/advise"
	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/pipeline"
	"github.com/cosmosdv/validate/internal/plan"
	"github.com/cosmosdv/validate/internal/testenv"
)

// chromium finds a Chromium or Chrome binary: CDV_CHROMIUM, then Debian's chromium (what .ci/run
// installs), then the usual names.
func chromium() string {
	if p := os.Getenv("CDV_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts headless Chromium; under CI a missing browser fails the test (testenv.Need).
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromium()
	reason := ""
	if path == "" {
		reason = "no Chromium to drive (apt-get install -y chromium, or set CDV_CHROMIUM to a Chrome binary)"
	}
	testenv.Need(t, reason)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox refuses to start
		chromedp.DisableGPU,
		chromedp.WindowSize(1440, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// screenshots is where the views' screenshots go: CDV_SCREENSHOTS (.ci/run keeps them as CI
// artifacts), else the test's temporary folder.
func screenshots(t *testing.T) string {
	if d := os.Getenv("CDV_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// jsNum is a figure as the page shows it: the JSON number as JavaScript prints it.
func jsNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// usd is a monthly cost as the page shows it (to the cent).
func usd(x float64) string { return fmt.Sprintf("$%.2f", x) }

// TestBrowser_DesignSession is the scripted task of issue 43, done in Chromium as a person would: open
// a design, see the plan's monthly cost; type a bad field and see its finding at its line; fix it
// and see the finding go; find the hot key in the partition chart; apply advise's top change and
// see the monthly cost fall to the variant's; run the design and see the report. Every wait is on
// a condition of the page (the figures shown are those of the text shown), never on time.
func TestBrowser_DesignSession(t *testing.T) {
	ctx := browser(t)
	srv, _, dir := start(t)
	shots := screenshots(t)
	file := filepath.Join(dir, "ticketing.yaml")

	// The figures the page must show: the CLI's, computed here once by the same functions.
	data, err := os.ReadFile(file)
	if err != nil {
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
	adv, err := advise.Advise(d, advise.Options{})
	if err != nil || len(adv.Recommended) == 0 {
		t.Fatalf("advise: %v, %d recommendations", err, len(adv.Recommended))
	}
	top := adv.Recommended[0]
	for _, v := range adv.Recommended {
		if v.Change.MonthlyUSD < top.Change.MonthlyUSD {
			top = v
		}
	}
	if !(top.Totals.MonthlyUSD < p.MonthlyUSD) {
		t.Fatalf("the fixture's top change (%s) saves nothing: %v → %v", top.Name, p.MonthlyUSD, top.Totals.MonthlyUSD)
	}

	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// wait polls a condition of the page until it holds (no deadline: go test's -timeout bounds a hang).
	wait := func(what, cond string) {
		t.Helper()
		run(what, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(0)))
	}
	// settled waits until the figures shown are those of the editor's text, then for cond.
	settled := func(what, cond string) {
		t.Helper()
		wait(what, `(() => { const b = document.body.dataset;
			return b.seq !== undefined && b.analyzed === b.seq && (`+cond+`); })()`)
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, "studio-"+name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}

	// Open the design: plan's monthly cost.
	run("open", chromedp.Navigate(srv.URL()))
	settled("first analysis", `document.querySelector("#patterns tbody tr") !== null`)
	if got, want := text("#monthly"), usd(p.MonthlyUSD); got != want {
		t.Errorf("monthly cost shown %q, want plan's %q", got, want)
	}
	url, err := chromedp.Run(ctx, chromedp.Evaluate[string]("location.href"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(url, "token") {
		t.Errorf("the token stayed in the address bar: %s", url)
	}
	shot("plan")

	// The schema describes the key under the caret.
	run("caret on partitionKey",
		chromedp.Evaluate[chromedp.Void](`(() => { const t = document.querySelector("#text");
			t.focus(); const at = t.value.indexOf("partitionKey:"); t.setSelectionRange(at, at); })()`),
		chromedp.KeyEvent(kb.ArrowRight))
	wait("the key's description", `document.querySelector("#hover").textContent.startsWith("containers.partitionKey: partitionKey holds 1 to 3 paths")`)

	// Type a bad field at the top: its finding appears at line 1, marked in the gutter.
	run("type a bad field",
		chromedp.Evaluate[chromedp.Void](`(() => { const t = document.querySelector("#text"); t.focus(); t.setSelectionRange(0, 0); })()`),
		chromedp.KeyEvent("bogus: 1\n"))
	settled("the finding", `[...document.querySelectorAll("#findings li.error")].some((li) =>
		li.textContent.includes("ticketing.yaml:1:1") && li.textContent.includes("bogus"))
		&& document.querySelector('#gutter .mark.error[data-line="1"]') !== null`)
	shot("finding")

	// Fix it: the finding goes, the figures are current again.
	run("delete the bad field",
		chromedp.Evaluate[chromedp.Void](`(() => { const t = document.querySelector("#text"); t.focus(); t.setSelectionRange(0, "bogus: 1\n".length); })()`),
		chromedp.KeyEvent(kb.Delete))
	settled("the fix", `document.querySelector("#findings li.error") === null && !document.querySelector("#view-plan").classList.contains("stale")`)

	// The partition chart marks the hot key: Tickets' busiest logical partition, not Orders'.
	run("partitions", chromedp.Click(chromedp.CSS(`nav button[data-view="partitions"]`)))
	settled("the chart", `document.querySelector('#view-partitions .container[data-container="Tickets"]') !== null`)
	if h := text(`.container[data-container="Tickets"] .busiest h4`); !strings.HasPrefix(h, "HOT") || !strings.Contains(h, "/eventId") {
		t.Errorf("Tickets' busiest logical partition is not marked hot: %q", h)
	}
	if h := text(`.container[data-container="Orders"] .busiest h4`); strings.Contains(h, "HOT") {
		t.Errorf("Orders is marked hot: %q", h)
	}
	if got := text(`.container[data-container="Tickets"] .pp.hot small`); got != jsNum(p.Containers[0].Hot.CapacityRU)+" RU/s" {
		t.Errorf("the hot physical partition shows %q, want plan's share %v RU/s", got, p.Containers[0].Hot.CapacityRU)
	}
	shot("partitions")

	// Apply advise's top change: the editor holds the variant and the monthly cost falls to its figure.
	run("what-ifs", chromedp.Click(chromedp.CSS(`nav button[data-view="advise"]`)))
	sel := fmt.Sprintf(`#variants input[data-variant=%q]`, top.Name)
	run("advice", chromedp.WaitVisible(chromedp.CSS(sel)))
	run("apply "+top.Name, chromedp.Click(chromedp.CSS(sel)))
	want := usd(top.Totals.MonthlyUSD)
	settled("the variant's figures", fmt.Sprintf(`document.querySelector("#monthly").textContent === %q`, want))
	editor, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#text")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(editor, "# Variant of ticketing") {
		t.Errorf("the editor does not hold advise's variant: %.80q", editor)
	}
	shot("whatif")

	// Run it on the embedded engine: the report shows in place, estimator check included.
	run("run", chromedp.Click(chromedp.CSS("#run")))
	wait("the report", `document.querySelector("#run-progress").textContent === "done"
		|| document.querySelector("#run-output").textContent.startsWith("failed")`)
	if out := text("#run-output"); !strings.Contains(out, "AP1") || !strings.Contains(out, "Estimator check") {
		t.Errorf("the run's report is not shown: %.300q", out)
	}
	shot("run")
}

// TestBrowser_EveryExample is issue 43's first "done when" in Chromium: `validate studio designs/`
// opens each of the five example designs, shows plan's monthly cost and one row per pattern, draws
// every container's partitions, lists advise's answer, and runs the design with its report in place.
// Every wait is on a condition of the page, never on time.
func TestBrowser_EveryExample(t *testing.T) {
	ctx := browser(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "designs"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) != 5 {
		t.Fatalf("designs/: %d files, %v; want the five examples", len(files), err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	srv, err := Start(sctx, Options{Path: dir, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	wait := func(what, cond string) {
		t.Helper()
		do(what, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(0)))
	}
	// The token is exchanged for the session's cookie once; each design is then opened by name.
	do("open the folder", chromedp.Navigate(srv.URL()))
	wait("the first analysis", `document.querySelector("#patterns tbody tr") !== null`)
	for _, file := range files {
		name := filepath.Base(file)
		data, err := os.ReadFile(file)
		if err != nil {
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
		do("choose "+name, chromedp.SetValue(chromedp.CSS("#file"), name),
			chromedp.Evaluate[chromedp.Void](`document.querySelector("#file").dispatchEvent(new Event("change"))`))
		wait(name+": plan", fmt.Sprintf(`(() => { const b = document.body.dataset;
			return b.seq !== undefined && b.analyzed === b.seq
				&& document.querySelector("#monthly").textContent === %q
				&& document.querySelectorAll("#patterns tbody tr").length === %d; })()`, usd(p.MonthlyUSD), len(p.Patterns)))
		do(name+": partitions", chromedp.Click(chromedp.CSS(`nav button[data-view="partitions"]`)))
		for _, c := range p.Containers {
			wait(name+": partitions of "+c.Name, fmt.Sprintf(`document.querySelector('#view-partitions .container[data-container=%q]') !== null`, c.Name))
		}
		do(name+": what-ifs", chromedp.Click(chromedp.CSS(`nav button[data-view="advise"]`)))
		wait(name+": advise", `document.querySelector("#advise-status").textContent.startsWith("advise:")`)
		do(name+": run", chromedp.Click(chromedp.CSS(`nav button[data-view="run"]`)), chromedp.Click(chromedp.CSS("#run")))
		wait(name+": the report", `document.querySelector("#run-progress").textContent === "done"
			|| document.querySelector("#run-output").textContent.startsWith("failed")`)
		out, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#run-output")))
		if err != nil {
			t.Fatalf("%s: read the report: %v", name, err)
		}
		if !strings.Contains(out, d.AccessPatterns[0].ID) || !strings.Contains(out, "Estimator check") {
			t.Errorf("%s: the run's report is not shown: %.300q", name, out)
		}
	}
}
