package pipeline

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cosmosdv/validate/internal/design"
	"github.com/cosmosdv/validate/internal/lint"
)

// LoadDesigns reads every design file of paths before anything touches a target, so that a typo
// costs nothing: each problem is written to w, one per line (a markdown file given where a design
// belongs gets the one line naming `validate import`); ok is false when any was. A query (or patch
// condition) that does not parse is such a problem, reported as lint reports it
// (file:line:col: path: message [query-syntax]): every execution of it would fail.
func LoadDesigns(w io.Writer, paths []string) (designs []*design.Design, ok bool) {
	var yamls []string
	markdown := false
	for _, p := range paths {
		if IsMarkdown(p) {
			fmt.Fprintln(w, MarkdownHint(p))
			markdown = true
			continue
		}
		yamls = append(yamls, p)
	}
	designs, errs := design.LoadAll(yamls)
	for _, err := range errs {
		fmt.Fprintln(w, err)
	}
	syntax := false
	for _, d := range designs {
		for _, f := range lint.SyntaxErrors(d) {
			fmt.Fprintln(w, f)
			syntax = true
		}
	}
	if len(errs) > 0 || markdown || syntax {
		return nil, false
	}
	return designs, true
}

// IsMarkdown tells a markdown file given where a design file belongs, by its extension or its first
// line (a "# " heading).
func IsMarkdown(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return true
	case ".yaml", ".yml", ".json":
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [256]byte
	n, _ := io.ReadFull(f, head[:])
	first, _, _ := strings.Cut(string(head[:n]), "\n")
	return strings.HasPrefix(first, "# ") || strings.HasPrefix(first, "## ")
}

// MarkdownHint is the one line lint and run print for a markdown file.
func MarkdownHint(path string) string {
	return fmt.Sprintf("%s: this is markdown, not a design file; draft one with: validate import %s -o %s",
		path, path, strings.TrimSuffix(path, filepath.Ext(path))+".yaml")
}
