package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/report"
	"github.com/spf13/cast"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// setting is one configuration key. The table below is the single place that names a key, its
// default, its flag and its help text; flags, CDV_* variables, validate.yaml and `validate config`
// all derive from it.
type setting struct {
	key    string
	def    any // string, bool, int, int64, float64, []string or time.Duration
	usage  string
	secret bool
	cmds   []string // commands that take it as a flag
	// cmdUsage overrides usage for one command, where the flag means something else there.
	cmdUsage map[string]string
}

const envPrefix = "CDV"

var settings = []setting{
	// Targets.
	{key: "target", def: "auto", usage: "where to run: auto, embedded, emulator, account or endpoint", cmds: []string{"run", "calibrate", "cleanup", "diff"},
		cmdUsage: map[string]string{"calibrate": "what to measure: account or endpoint (required)", "cleanup": "where to look: account or endpoint (required)", "diff": "where the design is deployed: account or endpoint (required)"}},
	{key: "emulator-image", def: "", usage: "emulator image (default: the pinned vNext emulator image); short names: vnext-latest, vnext-EN<date>, classic", cmds: []string{"run"}},
	{key: "emulator-protocol", def: "", usage: "emulator protocol: http or https (default: by image)", cmds: []string{"run"}},
	{key: "pull", def: false, usage: "let --target emulator pull the image when it is not present", cmds: []string{"run"}},
	{key: "insecure", def: false, usage: "skip TLS certificate verification (emulator or endpoint with a self-signed certificate)", cmds: []string{"run", "calibrate", "cleanup", "diff"}},
	{key: "endpoint", def: "", usage: "account or endpoint URL, e.g. https://myacct.documents.azure.com:443/", cmds: []string{"run", "calibrate", "cleanup", "diff"}},
	{key: "key", def: "", usage: "account key (prefer the CDV_KEY variable; unset = Entra ID via DefaultAzureCredential)", secret: true, cmds: []string{"run", "serve", "calibrate", "cleanup", "diff"},
		cmdUsage: map[string]string{"serve": "master key clients must sign with (prefer the CDV_KEY variable; unset = the emulators' well-known key)"}},
	{key: "connection-string", def: "", usage: "connection string AccountEndpoint=...;AccountKey=... (prefer CDV_CONNECTION_STRING)", secret: true, cmds: []string{"run", "calibrate", "cleanup", "diff"}},
	{key: "reuse-database", def: false, usage: "allow running in a database that already exists (never deleted)", cmds: []string{"run"}},
	{key: "write-into-existing", def: false, usage: "with --reuse-database, seed into containers that already exist: the run's documents stay in them after teardown, and a generated id can overwrite one of theirs", cmds: []string{"run"}},
	{key: "run-id", def: "", usage: "suffix of the run-scoped database name on accounts and endpoints (default: one per process, the UTC time and 4 random hex digits)", cmds: []string{"run", "calibrate", "cleanup"},
		cmdUsage: map[string]string{"cleanup": "only the database(s) of this run id (given to run --run-id), whatever their age"}},
	// Pipeline.
	{key: "seed", def: int64(1), usage: "generator seed: the same seed gives byte-identical documents (plan, advise: the document counts of that seed)", cmds: []string{"run", "plan", "advise", "compare", "studio"},
		cmdUsage: map[string]string{"compare": "generator seed of a design file's run (a report's seed is its own)"}},
	{key: "samples", def: 20, usage: "least executions of each access pattern; more follow, up to 10×, until the median is known to ±5%", cmds: []string{"run", "compare"},
		cmdUsage: map[string]string{"compare": "least executions of each access pattern in a design file's run"}},
	{key: "keep", def: false, usage: "keep the database and containers after the run", cmds: []string{"run"}},
	{key: "concurrency", def: 16, usage: "concurrent requests while seeding", cmds: []string{"run"}},
	{key: "partitions", def: 0, usage: "physical partitions of each container on the embedded engine (0 = from the design)", cmds: []string{"run"}},
	{key: "throttle", def: false, usage: "embedded engine: enforce provisioned RU/s per physical partition (429s)", cmds: []string{"run"}},
	// Verdicts.
	{key: "negligible-share", def: 1.0, usage: "percent of a container's average load under which a fan-out, scan or missing index whose burst fits the container's headroom is a note, not a finding", cmds: []string{"lint", "plan", "studio"}},
	{key: "tolerance-point", def: report.DefaultPointBand.Pct, usage: "tolerance of point operations, percent of the estimate", cmds: []string{"run"}},
	{key: "tolerance-query", def: report.DefaultQueryBand.Pct, usage: "tolerance of queries, percent of the estimate", cmds: []string{"run"}},
	{key: "tolerance-ru", def: 1.0, usage: "smallest tolerance in RU, whatever the percentage", cmds: []string{"run"}},
	// Reports.
	{key: "format", def: []string{"text"}, usage: "report formats: text, md, json, junit, html (comma separated)", cmds: []string{"run", "plan", "compare", "lint", "advise", "rules"},
		cmdUsage: map[string]string{
			"rules":   "output format: text or json",
			"advise":  "output formats: text, md, json (comma separated; json without --out is JSON Lines, the others then go to standard error)",
			"lint":    "output format: text, json (JSON Lines: one document per design file) or sarif (one SARIF 2.1.0 log for code scanning)",
			"plan":    "report formats: text, json, sarif (comma separated; sarif alone on standard output, one SARIF 2.1.0 log)",
			"compare": "output formats: text, md, json (comma separated; beside json the others go to standard error)",
		}},
	{key: "out", def: "", usage: "directory for report files, one per design and format (default: none; the report goes to standard output)", cmds: []string{"run", "plan", "advise", "calibrate"},
		cmdUsage: map[string]string{"calibrate": "file the calibration profile is written to (default calibration.json)"}},
	{key: "write-variants", def: "", usage: "directory to write each recommended variant to as a design file (<design>.<variant>.yaml) that validate run and compare can check", cmds: []string{"advise"}},
	{key: "max-variants", def: 0, usage: "most variant designs advise prices per design (0 = 50); the containers whose key or throughput does not fit are searched first, and what the cap leaves unpriced is listed by name", cmds: []string{"advise"}},
	{key: "headroom", def: 0.0, usage: "share of a logical partition's limits (10,000 RU/s, 20 GB) its busiest one may use at production before the key is called tight (0 = 0.5): plan's hot-partition and advise's key ranking", cmds: []string{"plan", "advise"}},
	{key: "progress", def: "auto", usage: "progress display: auto, bar, lines or none", cmds: []string{"run"}},
	// Baselines.
	{key: "baseline", def: "", usage: "baseline to compare the run with (the comparison goes into every report; a regression exits 1): a file, or a directory of <design>.baseline.json files", cmds: []string{"run"}},
	{key: "update-baseline", def: false, usage: "write the run's results to the --baseline file", cmds: []string{"run"}},
	{key: "regression-pct", def: report.DefaultRegression.Pct, usage: "drift that counts as a regression, percent", cmds: []string{"run", "compare"}},
	{key: "regression-ru", def: report.DefaultRegression.RU, usage: "smallest drift in RU that counts as a regression", cmds: []string{"run", "compare"}},
	{key: "waivers", def: "", usage: "waivers file: findings accepted for a while, each with code, reason, owner and expires (docs/design-format.md#waivers); an expired waiver fails", cmds: []string{"lint", "plan"}},
	{key: "fail-on", def: "error", usage: "the least severity that fails (exit 1): error, note or none", cmds: []string{"lint"}},
	{key: "regression-usd", def: 0.0, usage: "rise of the monthly cost at production, in dollars, that counts as a regression (0: none)", cmds: []string{"run", "compare"}},
	{key: "fail-on-model-change", def: false, usage: "fail (exit 1) when figures moved with the model (another validate version or rate card) on an unchanged design, not only on design regressions", cmds: []string{"run", "compare"}},
	{key: "force", def: false, usage: "compare runs of differently named designs (after a rename), seeds or sample counts", cmds: []string{"run", "compare", "advise"},
		cmdUsage: map[string]string{"advise": "with --write-variants, replace variant files that exist (a link there is replaced, never written through)"}},
	// Calibration.
	{key: "calibration", def: "", usage: "calibration profile (written by validate calibrate): price modeled charges with the figures fitted to that account, labelled \"model (calibrated: <account>, <date>)\"", cmds: []string{"run", "plan", "advise", "serve", "studio"}},
	{key: "yes", def: false, usage: "go ahead with a calibration on an account after its cost preview", cmds: []string{"calibrate", "cleanup"},
		cmdUsage: map[string]string{"cleanup": "delete the leftovers listed (without it, cleanup only lists them)"}},
	{key: "older-than", def: 6 * time.Hour, usage: "only databases of runs that started longer ago than this (a run still going is younger)", cmds: []string{"cleanup"}},
	{key: "serverless", def: false, usage: "the account is serverless: containers without throughput (one physical partition each), preview priced per RU", cmds: []string{"calibrate"}},
	{key: "rules", def: []string{}, usage: "run the engine under another alternative of a rule with alternatives: NAME=ALT (repeatable or comma separated; validate rules lists them): a stand-in whose behaviour is known, to test calibrate --scale end to end", cmds: []string{"serve"}},
	{key: "scale", def: false, usage: "seed probe containers and run the shapes that decide each rule with alternatives (validate rules) and how index work grows, reading the query metrics of every page; writes the decisions and growth to the profile", cmds: []string{"calibrate"}},
	{key: "scale-docs", def: 1500, usage: "with --scale: documents of the smaller probe container (the larger holds 4×)", cmds: []string{"calibrate"}},
	{key: "rate-card", def: "", usage: "rate card JSON to charge with instead of the built-in card: the figures it names replace the built-in ones (docs/calibration.md)", cmds: []string{"serve"}},
	// serve.
	{key: "port", def: 8081, usage: "port to listen on (0 = any free port)", cmds: []string{"serve"}},
	{key: "compute-port", def: 8903, usage: "port of the compute gateway, the emulator's second endpoint, which serves item ids the routing gateway refuses (0 = any free port, -1 = none)", cmds: []string{"serve"}},
	{key: "protocol", def: "http", usage: "http or https (https uses a certificate generated at start)", cmds: []string{"serve"}},
	{key: "bind", def: "127.0.0.1", usage: "address to bind; anything but loopback exposes the engine to the network", cmds: []string{"serve"}},
	{key: "persist", def: "", usage: "file to load at start and save on exit (default: memory only)", cmds: []string{"serve"}},
	{key: "persist-mode", def: "log", usage: "with --persist: log (every acknowledged write is fsynced to FILE.log first; nothing acknowledged is lost in a crash) or snapshot (saved every 30 s and on exit only; a crash loses the writes since the last save)", cmds: []string{"serve"}},
	{key: "public-endpoint", def: "", usage: "address the account advertises to SDKs, when they reach the server elsewhere than it listens (a container's published port), e.g. http://localhost:8083/", cmds: []string{"serve"}},
	{key: "consistency", def: "Session", usage: "the account's default consistency: Strong, Bounded, Session, Consistent Prefix or Eventual (Strong and Bounded reads cost 2x; requests may only relax it)", cmds: []string{"serve"}},
	{key: "cert-out", def: "", usage: "with --protocol https, write the server's certificate (PEM) to this file for clients to trust", cmds: []string{"serve"}},
	{key: "allow-aad", def: false, usage: "also accept Microsoft Entra ID bearer tokens (DefaultAzureCredential); their form, claims and expiry are checked, not their signature", cmds: []string{"serve"}},
	{key: "allow-aad-remote", def: false, usage: "accept --allow-aad with a --bind beyond loopback, knowing that anyone who reaches the port can forge a token (signatures are not checked)", cmds: []string{"serve"}},
	// serve --replay (#40): a load test of a design's traffic shape.
	{key: "replay", def: "", usage: "replay this design's traffic shape against the engine as a load test: provision and seed it, send each access pattern at rps.avg × the hour's factor hour by hour with the RU/s budgets enforced, print each hour beside plan's forecast, remove it and stop", cmds: []string{"serve"}},
	{key: "speed", def: 3600.0, usage: "with --replay: simulated seconds per wall second (3600 = an hour a second; 1 = real time)", cmds: []string{"serve"}},
	{key: "hours", def: 24, usage: "with --replay: hours of the month to replay from day 1 00:00 (at most 730)", cmds: []string{"serve"}},
	{key: "replay-scale", def: 1.0, usage: "with --replay: share of the load to send (0 < s ≤ 1), the provisioned throughput scaled alike (at least the 400 RU/s the service accepts) so throttling meets the same share", cmds: []string{"serve"}},
	// studio.
	{key: "listen", def: "127.0.0.1:0", usage: "loopback address and port the studio listens on (port 0 = any free port); an address beyond loopback is refused", cmds: []string{"studio"}},
	{key: "open", def: false, usage: "open the studio's URL in the default browser (xdg-open, open or start)", cmds: []string{"studio"}},
	// Everywhere.
	{key: "log-level", def: "warn", usage: "log level: debug, info, warn or error", cmds: []string{"run", "serve", "calibrate", "cleanup", "diff"}},
}

func settingFor(key string) *setting {
	for i := range settings {
		if settings[i].key == key {
			return &settings[i]
		}
	}
	return nil
}

// addFlags declares on cmd the flags of every setting that names the command.
func addFlags(cmd *cobra.Command, name string) {
	fs := cmd.Flags()
	for _, s := range settings {
		if !contains(s.cmds, name) {
			continue
		}
		usage := s.usage
		if u, ok := s.cmdUsage[name]; ok {
			usage = u
		}
		switch d := s.def.(type) {
		case string:
			fs.String(s.key, d, usage)
		case bool:
			fs.Bool(s.key, d, usage)
		case int:
			fs.Int(s.key, d, usage)
		case int64:
			fs.Int64(s.key, d, usage)
		case float64:
			fs.Float64(s.key, d, usage)
		case []string:
			fs.StringSlice(s.key, d, usage)
		case time.Duration:
			fs.Duration(s.key, d, usage)
		default:
			panic(fmt.Sprintf("setting %s: unsupported default %T", s.key, s.def))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// newViper builds the configuration of one invocation: flags > CDV_* environment > config file >
// defaults. configFile "" means validate.yaml in the working directory when it exists.
func newViper(flags *pflag.FlagSet, configFile string) (*viper.Viper, error) {
	return newViperChecked(flags, configFile, false)
}

// newViperChecked is newViper; checkAll checks the type of every setting, not only those flags
// takes.
func newViperChecked(flags *pflag.FlagSet, configFile string, checkAll bool) (*viper.Viper, error) {
	var problems []string
	v := viper.New()
	for _, s := range settings {
		v.SetDefault(s.key, s.def)
	}
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if configFile == "" {
		if _, err := os.Stat("validate.yaml"); err == nil {
			configFile = "validate.yaml"
		}
	}
	if configFile != "" {
		if err := checkConfigFile(configFile); err != nil {
			return nil, usageErr("config file %s: %v", configFile, err)
		}
		v.SetConfigFile(configFile)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, usageErr("config file %s: %v", configFile, err)
		}
		pos := configPositions(configFile)
		keys := v.AllKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		for _, k := range keys {
			if settingFor(k) == nil {
				hint := "the keys are the long flag names: " + strings.Join(settingKeys(), ", ")
				if sg := design.Suggest(k, settingKeys()); sg != "" {
					hint = fmt.Sprintf("did you mean %q?", sg)
				}
				problems = append(problems, fmt.Sprintf("%s%s: unknown key %q; %s", configFile, pos[k], k, hint))
			}
		}
	}
	// A value from the file or the environment that does not fit its setting's type would otherwise
	// read as the zero value, far from where it was written. Only the settings this command takes
	// are checked (every one for config, which prints them all): a CDV_SAMPLES meant for run does
	// not stop lint.
	for _, st := range settings {
		if !checkAll && flags != nil && flags.Lookup(st.key) == nil {
			continue
		}
		where := ""
		var raw any
		if env, ok := os.LookupEnv(envName(st.key)); ok && env != "" {
			where, raw = envName(st.key), env // an empty variable counts as unset, as viper reads it
		} else if configFile != "" && v.InConfig(st.key) {
			where, raw = configFile+configPositions(configFile)[st.key]+": "+st.key, v.Get(st.key)
		} else {
			continue
		}
		if err := fitsType(st.def, raw); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %q %v", where, fmt.Sprint(raw), err))
		}
	}
	if len(problems) > 0 {
		// Every problem at once, one a line: fixing them one run at a time wastes a CI job each.
		return nil, usageErr("%s", strings.Join(problems, "\nvalidate: "))
	}
	if flags != nil {
		var bindErr error
		flags.VisitAll(func(f *pflag.Flag) {
			if settingFor(f.Name) != nil && bindErr == nil {
				bindErr = v.BindPFlag(f.Name, f)
			}
		})
		if bindErr != nil {
			return nil, bindErr
		}
	}
	return v, nil
}

// settingKeys lists every setting's key, sorted.
func settingKeys() []string {
	keys := make([]string, 0, len(settings))
	for _, s := range settings {
		keys = append(keys, s.key)
	}
	sort.Strings(keys)
	return keys
}

// maxConfigBytes bounds a config file (a few dozen keys take a few hundred bytes).
const maxConfigBytes = 1 << 20

// checkConfigFile requires a regular file of at most maxConfigBytes before anything reads it whole
// (a device such as /dev/zero never ends).
func checkConfigFile(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fmt.Errorf("not a regular file")
	case st.Size() > maxConfigBytes:
		return fmt.Errorf("%d bytes; config files are limited to %d", st.Size(), maxConfigBytes)
	}
	return nil
}

// configPositions maps each top-level key of a YAML file to ":line:col", for messages; a file that
// does not parse gives an empty map.
func configPositions(file string) map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile(file)
	if err != nil {
		return out
	}
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return out
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		out[strings.ToLower(k.Value)] = fmt.Sprintf(":%d:%d", k.Line, k.Column)
	}
	return out
}

// fitsType reports whether raw, a value from the environment or the config file, converts to the
// type of def (a setting's default).
func fitsType(def, raw any) error {
	var err error
	switch def.(type) {
	case bool:
		_, err = cast.ToBoolE(raw)
		if err != nil {
			return errors.New("is not true or false")
		}
	case int, int64:
		f, ferr := cast.ToFloat64E(raw)
		if _, err = cast.ToInt64E(raw); err != nil || ferr != nil || f != math.Trunc(f) {
			return errors.New("is not a whole number")
		}
	case string:
		if _, err = cast.ToStringE(raw); err != nil {
			return errors.New("is not a single value")
		}
		switch raw.(type) {
		case []any, map[string]any:
			return errors.New("is not a single value")
		}
	case float64:
		if _, err = cast.ToFloat64E(raw); err != nil {
			return errors.New("is not a number")
		}
	case time.Duration:
		if _, err = cast.ToDurationE(raw); err != nil {
			return errors.New("is not a duration such as 90s or 5m")
		}
	case []string:
		if _, err = cast.ToStringSliceE(raw); err != nil {
			return errors.New("is not a list")
		}
	}
	return nil
}

// sourceOf says where the effective value of key comes from.
func sourceOf(v *viper.Viper, flags *pflag.FlagSet, key string) string {
	if flags != nil {
		if f := flags.Lookup(key); f != nil && f.Changed {
			return "flag"
		}
	}
	if _, ok := os.LookupEnv(envName(key)); ok {
		return "env " + envName(key)
	}
	if v.InConfig(key) {
		return "file " + v.ConfigFileUsed()
	}
	return "default"
}

func envName(key string) string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}

// printConfig writes every setting's effective value and where it comes from, secrets redacted.
func printConfig(w io.Writer, v *viper.Viper, flags *pflag.FlagSet) {
	keys := make([]string, 0, len(settings))
	for _, s := range settings {
		keys = append(keys, s.key)
	}
	sort.Strings(keys)
	width := 0
	for _, k := range keys {
		width = max(width, len(k))
	}
	for _, k := range keys {
		s := settingFor(k)
		val := fmt.Sprint(v.Get(k))
		if _, ok := s.def.([]string); ok {
			val = strings.Join(v.GetStringSlice(k), ",")
		}
		if s.secret {
			val = redact(v.GetString(k))
		}
		fmt.Fprintf(w, "%-*s  %-28s (%s)\n", width, k, quoteEmpty(val), sourceOf(v, flags, k))
	}
}

func redact(secret string) string {
	if secret == "" {
		return ""
	}
	return "<redacted>"
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
