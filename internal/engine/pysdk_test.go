package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"testing"

	"github.com/cosmosdv/validate/internal/engine"
	"github.com/cosmosdv/validate/internal/testenv"
)

// TestPythonSDKCrossPartition runs a client no one here wrote against the engine as `validate
// serve` starts it: Debian's python3-azure-cosmos (3.1.1, apt-get install python3-azure-cosmos).
// It learns the query plan from the gateway's 400/1004, reads the partition key ranges and runs
// ORDER BY, TOP and aggregates with its own pipeline over four physical partitions
// (testdata/pysdk_crosspartition.py). The answers must be right.
func TestPythonSDKCrossPartition(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import azure.cosmos.cosmos_client").Run(); err != nil {
		testenv.Need(t, "python3-azure-cosmos is not installed (apt-get install -y python3-azure-cosmos): no third-party SDK pipeline to run")
	}
	s, err := engine.Start(context.Background(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	// No deadline: python starting and importing the SDK on a busy machine is slow, not wrong; a
	// hang is ended by go test's -timeout.
	cmd := exec.Command(python, "testdata/pysdk_crosspartition.py")
	cmd.Env = append(os.Environ(), "COSMOS_ENDPOINT="+s.URL(), "COSMOS_KEY="+s.Key())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3-azure-cosmos: %v\n%s", err, out)
	}
	var got struct {
		Ranges     int       `json:"ranges"`
		OrderBy    []string  `json:"orderby"`
		OrderByN   []int     `json:"orderby_n"`
		Top        []string  `json:"top"`
		Count      []int     `json:"count"`
		Sum        []int     `json:"sum"`
		Min        []int     `json:"min"`
		Max        []string  `json:"max"`
		Avg        []float64 `json:"avg"`
		CountWhere []int     `json:"count_where"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// The script's data: 60 items d00..d59, n = 7i mod 23, cat = c(i mod 3).
	var ids []string
	var ns []int
	sum, c1 := 0, 0
	for i := range 60 {
		ids = append(ids, fmt.Sprintf("d%02d", i))
		n := (i * 7) % 23
		ns = append(ns, n)
		sum += n
		if i%3 == 1 {
			c1++
		}
	}
	desc := append([]string(nil), ids...)
	sort.Sort(sort.Reverse(sort.StringSlice(desc)))
	sort.Ints(ns)
	want := got
	want.Ranges = 4
	want.OrderBy = desc
	want.OrderByN = ns
	want.Top = ids[:5]
	want.Count = []int{60}
	want.Sum = []int{sum}
	want.Min = []int{ns[0]}
	want.Max = []string{"d59"}
	want.Avg = []float64{float64(sum) / 60}
	want.CountWhere = []int{c1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("python3-azure-cosmos over 4 ranges:\n got %+v\nwant %+v", got, want)
	}
}
