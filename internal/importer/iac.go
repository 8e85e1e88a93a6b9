package importer

import (
	"fmt"
	"strconv"
	"strings"
)

// Provisioning snippets in the markdown — `az cosmosdb sql container create`, Bicep and Terraform
// container resources — say exactly what the team means to deploy: name, key paths, throughput, TTL.

type iacContainer struct {
	name      string
	paths     []string
	manual    int
	autoscale int
	ttl       *int
	noIndex   bool
	what      string
	line      int
}

func (b *builder) readIaC() {
	for _, s := range b.md.sections {
		for _, bl := range s.blocks {
			if bl.kind != blockCode {
				continue
			}
			var found []iacContainer
			switch {
			case strings.Contains(bl.body, "az cosmosdb sql container"):
				found = azContainers(bl.body)
			case bl.lang == "bicep" || strings.Contains(bl.body, "sqlDatabases/containers"):
				found = bicepContainers(bl.body, "bicep")
			case bl.lang == "terraform" || bl.lang == "hcl" || strings.Contains(bl.body, "azurerm_cosmosdb_sql_container"):
				found = bicepContainers(bl.body, "terraform")
			}
			for _, f := range found {
				f.line = bl.line
				b.applyIaC(f)
				b.iacUsed = append(b.iacUsed, s) // marked used after readMentions has read the rest of it
			}
		}
	}
}

func (b *builder) applyIaC(f iacContainer) {
	var ci *contInfo
	for _, c := range b.conts {
		if strings.EqualFold(c.name, f.name) {
			ci = c
		}
	}
	if ci == nil {
		ci = &contInfo{name: b.uniqueName(identifier(f.name, "")), line: f.line, translated: map[string]string{}}
		b.conts = append(b.conts, ci)
	}
	where := fmt.Sprintf("the %s snippet at %s line %d", f.what, b.mdName(), f.line)
	if len(f.paths) > 0 {
		ci.keyPaths = f.paths
		ci.keyFrom = where
	}
	switch {
	case f.autoscale > 0:
		ci.tp, ci.tpSet = throughputOf(0, f.autoscale), true
		ci.tpText = where
	case f.manual > 0:
		ci.tp, ci.tpSet = throughputOf(f.manual, 0), true
		ci.tpText = where
	}
	if f.ttl != nil {
		ci.ttl = f.ttl
	}
	if f.noIndex {
		ci.ix.Mode, ci.ixSet = "none", true
	}
}

// shellWords splits a command line into words, honouring quotes and line continuations.
func shellWords(s string) []string {
	s = strings.NewReplacer("\\\r\n", " ", "\\\n", " ", "`\r\n", " ", "`\n", " ").Replace(s)
	var out []string
	var cur strings.Builder
	quote := rune(0)
	in := false
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
			if r == '\n' {
				out = append(out, "\n")
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

func azContainers(body string) []iacContainer {
	var out []iacContainer
	words := shellWords(body)
	for i := 0; i+3 < len(words); i++ {
		if words[i] != "az" || words[i+1] != "cosmosdb" || words[i+2] != "sql" || words[i+3] != "container" {
			continue
		}
		c := iacContainer{what: "az CLI"}
		j := i + 4
		for ; j < len(words) && words[j] != "\n" && words[j] != "az"; j++ {
			flag := words[j]
			next := func() string {
				if j+1 < len(words) && !strings.HasPrefix(words[j+1], "-") && words[j+1] != "\n" {
					j++
					return words[j]
				}
				return ""
			}
			switch flag {
			case "--name", "-n":
				c.name = next()
			case "--partition-key-path", "-p":
				for {
					v := next()
					if v == "" {
						break
					}
					c.paths = append(c.paths, v)
				}
			case "--throughput":
				c.manual, _ = strconv.Atoi(next())
			case "--max-throughput":
				c.autoscale, _ = strconv.Atoi(next())
			case "--ttl":
				if n, err := strconv.Atoi(next()); err == nil {
					c.ttl = &n
				}
			}
		}
		if c.name != "" && c.name != "$name" {
			out = append(out, c)
		}
		i = j - 1
	}
	return out
}

// bicepContainers reads container resources of Bicep or Terraform: the lines `name: 'Orders'`,
// `paths: ['/tenantId', '/userId']`, `throughput: 400`, `maxThroughput: 4000`, `defaultTtl: -1`
// (Terraform: `name = "orders"`, `partition_key_paths = [...]`, `max_throughput`, `default_ttl`).
func bicepContainers(body, what string) []iacContainer {
	var out []iacContainer
	var cur *iacContainer
	// Braces open and close blocks; one property per line is what is left: "options: { throughput:
	// 1000 }" reads as "options:" and "throughput: 1000".
	lines := strings.Split(strings.NewReplacer("{", "\n", "}", "\n").Replace(body), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "resource ") {
			if strings.Contains(l, "containers") || strings.Contains(l, "azurerm_cosmosdb_sql_container") {
				out = append(out, iacContainer{what: what})
				cur = &out[len(out)-1]
			} else {
				cur = nil
			}
			continue
		}
		if cur == nil {
			continue
		}
		key, val, ok := cutAssign(l)
		if !ok {
			continue
		}
		switch key {
		case "name", "id":
			if cur.name == "" && !strings.ContainsAny(val, "(${") {
				cur.name = unquote(val)
			}
		case "paths", "partition_key_paths":
			all := val
			for !strings.Contains(all, "]") && i+1 < len(lines) {
				i++
				all += " " + strings.TrimSpace(lines[i])
			}
			for _, w := range strings.FieldsFunc(all, func(r rune) bool { return r == '[' || r == ']' || r == ',' || r == ' ' }) {
				if p := unquote(w); strings.HasPrefix(p, "/") {
					cur.paths = append(cur.paths, p)
				}
			}
		case "partition_key_path":
			if p := unquote(val); strings.HasPrefix(p, "/") {
				cur.paths = append(cur.paths, p)
			}
		case "throughput":
			cur.manual, _ = strconv.Atoi(val)
		case "maxThroughput", "max_throughput":
			cur.autoscale, _ = strconv.Atoi(val)
		case "defaultTtl", "default_ttl":
			if n, err := strconv.Atoi(val); err == nil {
				cur.ttl = &n
			}
		case "indexingMode", "indexing_mode":
			cur.noIndex = strings.EqualFold(unquote(val), "none")
		}
	}
	var named []iacContainer
	for _, c := range out {
		if c.name != "" {
			named = append(named, c)
		}
	}
	return named
}

func cutAssign(l string) (key, val string, ok bool) {
	i := strings.IndexAny(l, ":=")
	if i <= 0 {
		return "", "", false
	}
	key = strings.TrimSpace(l[:i])
	val = strings.TrimSpace(l[i+1:])
	if c := strings.Index(val, "//"); c >= 0 {
		val = strings.TrimSpace(val[:c])
	}
	return key, val, true
}

func unquote(s string) string { return strings.Trim(strings.TrimSpace(s), "'\"") }
