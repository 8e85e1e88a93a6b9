package importer

import (
	"context"
	"errors"
	"os"
	"testing"
)

// FuzzImport: whatever the markdown, Import neither panics nor fails, and its draft parses.
func FuzzImport(f *testing.F) {
	for _, files := range corpus(f) {
		src, err := os.ReadFile(files[0])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(""))
	f.Add([]byte("# x\n\n### A Container\n\n```json\n[{\"id\": 1}]\n```\n\n| # | Cosmos DB Operations |\n|---|---|\n| 1 | query |\n"))
	f.Add([]byte("### 订单容器\n- **分区键**：`/a/b`\n```json\n{“id”：“x_1”，“a”：{“b”：“q”}}\n```\n| 模式 | 操作 |\n|--|--|\n| 1 | 补丁 `/a` |\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := Import(src, Options{File: "fuzz.md"})
		if errors.Is(err, ErrEmpty) {
			return // nothing to draft, said so
		}
		if err != nil {
			t.Fatalf("Import: %v", err)
		}
		if res.Problems != nil {
			t.Fatalf("the draft does not parse:\n%v\n--- markdown:\n%s\n--- draft:\n%s", res.Problems, src, res.YAML)
		}
	})
}

// FuzzImportWork: whatever the markdown, reading it takes parser steps linear in its size (at most 8 a
// byte, the watch's budget being 64), so no input can make the importer quadratic again unnoticed.
func FuzzImportWork(f *testing.F) {
	for _, src := range hostile() {
		f.Add(src[:min(len(src), 4096)])
	}
	f.Add([]byte("> - > 1. > * [x](y [a](\n\n`` ` ``\n| a |\n|---|\n| b |\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<16 {
			return
		}
		md, _ := boundLines(clean(src))
		_, steps, err := parseBounded(context.Background(), md, nil)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if steps > 8*len(src)+64 {
			t.Fatalf("%d parser steps for %d bytes:\n%q", steps, len(src), src)
		}
		if _, err := Import(src, Options{File: "fuzz.md"}); err != nil && !errors.Is(err, ErrEmpty) {
			t.Fatalf("Import: %v", err)
		}
	})
}
