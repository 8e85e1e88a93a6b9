package studio

import "strconv"

// maxDiffLines bounds the line diff's table (lines of each side): beyond it the diff says so
// instead of taking quadratic time.
const maxDiffLines = 5000

// lineDiff is the saved file against the edited text, line by line: the lines removed ("-"),
// added ("+"), and up to two unchanged lines of context around each change, with "@@ line N"
// headers (N is the line in the edited text). Empty when the texts are equal.
func lineDiff(old, new []string) []string {
	if len(old) > maxDiffLines || len(new) > maxDiffLines {
		return []string{"(the files are too long to diff here: " + strconv.Itoa(len(old)) + " and " + strconv.Itoa(len(new)) + " lines)"}
	}
	// lcs[i][j] is the longest common subsequence of old[i:] and new[j:].
	lcs := make([][]int32, len(old)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(new)+1)
	}
	for i := len(old) - 1; i >= 0; i-- {
		for j := len(new) - 1; j >= 0; j-- {
			if old[i] == new[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		text string
		line int // in new (for ' ' and '+'), or the new line it precedes (for '-')
	}
	var ops []op
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case i < len(old) && j < len(new) && old[i] == new[j]:
			ops = append(ops, op{' ', old[i], j + 1})
			i, j = i+1, j+1
		case i < len(old) && (j == len(new) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', old[i], j + 1})
			i++
		default:
			ops = append(ops, op{'+', new[j], j + 1})
			j++
		}
	}
	const context = 2
	keep := make([]bool, len(ops))
	for k, o := range ops {
		if o.kind == ' ' {
			continue
		}
		for c := max(0, k-context); c <= min(len(ops)-1, k+context); c++ {
			keep[c] = true
		}
	}
	var out []string
	for k, o := range ops {
		if !keep[k] {
			continue
		}
		if k == 0 || !keep[k-1] {
			out = append(out, "@@ line "+strconv.Itoa(o.line))
		}
		out = append(out, string(o.kind)+" "+o.text)
	}
	return out
}
