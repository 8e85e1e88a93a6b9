package importer

import (
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
		if err != nil {
			t.Fatalf("Import: %v", err)
		}
		if res.Problems != nil {
			t.Fatalf("the draft does not parse:\n%v\n--- markdown:\n%s\n--- draft:\n%s", res.Problems, src, res.YAML)
		}
	})
}
