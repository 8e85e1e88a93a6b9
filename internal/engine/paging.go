package engine

import "encoding/json"

// Paging like the service (nosql/query/pagination.md): a page holds at most x-ms-max-item-count
// items (100 when absent; -1 asks the service to choose, bounded by the response size) and at most
// maxPageBytes of items, one item always; a continuation resumes exactly after the last item sent.

// maxPageBytes is the response size a page stops at (pagination.md: a page ends when it reaches
// the maximum item count or 4 MB; concepts-limits.md, "Per-request limits": maximum response size
// 4 MB).
const maxPageBytes = 4 * 1024 * 1024

// dynamicPageSize is the item bound of a page when the client leaves the size to the service
// (x-ms-max-item-count: -1): the byte bound decides.
const dynamicPageSize = 1 << 20

// pageEnd returns the end of the page of items starting at lo: at most size items and at most
// maxPageBytes, but at least one item when any remain.
func pageEnd(items [][]byte, lo, size int) int {
	hi, bytes := lo, 0
	for hi < len(items) && hi-lo < size {
		if hi > lo && bytes+len(items[hi]) > maxPageBytes {
			break
		}
		bytes += len(items[hi])
		hi++
	}
	return hi
}

// resume returns where a read feed continues in the partition's list: after the item with the
// continuation's sequence number. Items are listed in ascending sequence (created in order; a
// replace keeps its place and number), so when removals compacted the list since the last page
// the place is found again by number. The caller holds the partition's lock.
func (l *docList) resume(ct continuation) int {
	pos := min(ct.Offset, len(l.items))
	if ct.Seq == 0 {
		return pos
	}
	if pos > 0 && l.items[pos-1] != nil && l.items[pos-1].seq == ct.Seq {
		return pos
	}
	for i, d := range l.items {
		if d != nil && d.seq > ct.Seq {
			return i
		}
	}
	return len(l.items)
}

// nextFeedPage is the continuation of a read feed after the item with sequence number seq, found
// at offset-1.
func nextFeedPage(ct continuation, offset int, seq uint64, bind string) string {
	b, _ := json.Marshal(continuation{Range: ct.Range, Offset: offset, Seq: seq, Bind: bind})
	return string(b)
}
