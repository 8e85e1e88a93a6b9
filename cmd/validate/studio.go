package main

import (
	"fmt"
	"os/exec"
	"runtime"

	"github.com/cosmosdv/validate/internal/studio"
	"github.com/spf13/cobra"
)

const studioLong = `Studio is a design workbench in the browser. It serves one page on loopback (embedded in the
binary: no npm, no CDN, no network) that edits a design's YAML and shows, as you type:

  findings     lint's errors and findings at file:line:col of the edited text, marked in the gutter
               (a design that does not parse shows where, never a blank page)
  plan         per access pattern the seeded and production charge, the floor, the estimate and its
               verdict, RU/s; per container the designed and cheapest mode and the monthly cost
  partitions   per container the physical partitions at production, each one's share of the RU/s,
               the busiest logical partition against the 10,000 RU/s and 20 GB limits (hot ones
               marked), and per pattern whether it reaches one partition, a key prefix or all
  what-ifs     advise's recommended changes with their saving; ticking one puts the variant
               'validate advise --write-variants' writes into the editor and every figure moves

Run executes the edited design on the embedded engine (progress shown, Cancel stops it) and shows the
report as 'validate run' prints it; "Compare with the saved file" shows what changed in the design
and the comparison 'validate compare' prints. Every figure is in the JSON lint, plan, advise, run or
compare print; the page computes none. Ctrl-Space offers the keys the schema allows where the caret
is; clicking a key shows its description.

DESIGN is a design file, or a folder whose .yaml files the page lists (default: the current folder).
Nothing outside it is read or written; Save asks before overwriting a file.

Safe by default: it listens on loopback only (--listen, default a free port on 127.0.0.1); a request
whose Host or Origin names anything else is refused (no DNS rebinding); the printed URL carries a
token for this start only, exchanged for a cookie at once so it stays out of history and Referer.
Ctrl-C stops the server (and a run in progress).

Exit 0 after Ctrl-C, 2 when DESIGN cannot be read or --listen is not loopback, 3 when it cannot listen.`

func (a *app) studioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "studio [DESIGN|DIR]",
		Short: "Edit a design in the browser and watch its findings, charges, partitions and what-ifs move",
		Long:  studioLong,
		Example: `  validate studio designs/
  validate studio --open designs/ecommerce.yaml
  validate studio --listen 127.0.0.1:8090 designs/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErr("studio takes one design file or folder (got %d)\nRun '%s --help' for usage.", len(args), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.viper(cmd)
			if err != nil {
				return err
			}
			card, rules, err := rateCard(v, false)
			if err != nil {
				return err
			}
			lintOpts, err := lintOptions(v.GetFloat64("negligible-share"))
			if err != nil {
				return err
			}
			path := "."
			if len(args) == 1 {
				path = args[0]
			}
			setStopping("stopping the studio")
			defer setStopping("")
			srv, err := studio.Start(a.ctx, studio.Options{
				Path:     path,
				Addr:     v.GetString("listen"),
				RateCard: card,
				Rules:    rules,
				Seed:     v.GetInt64("seed"),
				Lint:     lintOpts,
				Version:  version,
			})
			if err != nil {
				if studio.IsUsage(err) {
					return usageErr("%v", err)
				}
				return infraErr(err)
			}
			// The ready line: scripts and tests wait for it.
			fmt.Fprintf(a.stdout, "validate studio: open %s (Ctrl-C stops it)\n", srv.URL())
			if v.GetBool("open") {
				if err := openBrowser(srv.URL()); err != nil {
					fmt.Fprintf(a.stderr, "validate studio: --open: %v; open the URL above yourself\n", err)
				}
			}
			<-a.ctx.Done()
			if err := srv.Close(); err != nil {
				return infraErr(fmt.Errorf("stop studio: %w", err))
			}
			fmt.Fprintln(a.stdout, "validate studio: stopped")
			return nil
		},
	}
	addFlags(cmd, "studio")
	return cmd
}

// openBrowser opens url in the desktop's default browser.
func openBrowser(url string) error {
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", url)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		c = exec.Command("xdg-open", url)
	}
	if err := c.Start(); err != nil {
		return err
	}
	go c.Wait() //nolint:errcheck // the opener's exit says nothing about the browser
	return nil
}
