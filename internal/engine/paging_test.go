package engine

import "testing"

// A read feed resumes after the last item it sent even when removals compacted the partition's
// list in between (the offset alone would skip items).
func TestDocListResumeAfterCompaction(t *testing.T) {
	var l docList
	docs := make([]*doc, 100)
	for i := range docs {
		docs[i] = &doc{seq: uint64(i + 1)}
		l.add(docs[i], false)
	}
	ct := continuation{Offset: 40, Seq: 40} // the page ended with the item of seq 40
	for i := 0; i < 30; i++ {
		l.remove(docs[i], false) // removals before the position
	}
	for i := 60; i < 90; i++ {
		l.remove(docs[i], false) // and after it: the list compacts
	}
	if len(l.items) == 100 {
		t.Fatal("the list did not compact; the test needs it to")
	}
	pos := l.resume(ct)
	if pos >= len(l.items) || l.items[pos].seq != 41 {
		t.Fatalf("resume at %d (seq %v), want the item of seq 41", pos, l.items[min(pos, len(l.items)-1)].seq)
	}
	if got := l.resume(continuation{Offset: 3}); got != 3 {
		t.Errorf("a continuation without a sequence number resumes at its offset: %d", got)
	}
}

func TestPageEndBytes(t *testing.T) {
	big := make([]byte, 3*1024*1024)
	items := [][]byte{big, big, []byte("{}")}
	if got := pageEnd(items, 0, 10); got != 1 {
		t.Errorf("two 3 MB items in one page: end %d, want 1", got)
	}
	if got := pageEnd(items, 1, 10); got != 3 {
		t.Errorf("3 MB and a small item: end %d, want 3", got)
	}
	if got := pageEnd(items, 2, 10); got != 3 {
		t.Errorf("last item: end %d", got)
	}
}
