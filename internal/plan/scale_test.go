package plan

import "testing"

// TestBuild_ProductionCounts: production counts give the storage when no storageGB is stated, and
// a stated storageGB that disagrees with them by more than 2× is a warning.
func TestBuild_ProductionCounts(t *testing.T) {
	d := smallDesign()
	d.Containers[0].Documents[0].Production = 10_000_000 // ~2.2 KB each: about 22 GB
	p, err := Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Containers[0]
	if c.StorageBasis != "production document counts" || c.StorageGB < 15 || c.StorageGB > 30 {
		t.Errorf("storage %.3g GB from %q, want about 22 GB from the production counts", c.StorageGB, c.StorageBasis)
	}
	if hasWarning(p, "scale-storage", "Users") {
		t.Error("consistent counts warned")
	}

	d.Containers[0].StorageGB = 500
	p, err = Build(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(p, "scale-storage", "Users") {
		t.Errorf("500 GB against ~22 GB of production documents: want a scale-storage warning, got %+v", p.Warnings)
	}
}
