package sql

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tokKind is the kind of a lexical token.
type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tNumber
	tString
	tParam
	tOp
)

// token is one lexical token with its byte span in the query text.
type token struct {
	kind  tokKind
	text  string // identifier or operator text as written; decoded value for strings
	num   float64
	start int
	end   int
}

// keywords are reserved: they cannot name an alias or a property after a bare identifier position.
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true, "IN": true,
	"BETWEEN": true, "LIKE": true, "ESCAPE": true, "AS": true, "JOIN": true, "ORDER": true, "BY": true,
	"ASC": true, "DESC": true, "TOP": true, "VALUE": true, "DISTINCT": true, "GROUP": true,
	"OFFSET": true, "LIMIT": true, "EXISTS": true, "ARRAY": true, "TRUE": true, "FALSE": true,
	"NULL": true, "UNDEFINED": true, "UDF": true,
}

// threeOps and twoOps are the multi-character operators, longest first.
var threeOps = []string{">>>"}
var twoOps = []string{"!=", "<>", "<=", ">=", "||", "??", "<<", ">>"}

const oneOps = "=<>+-*/%|&^~?:.,()[]{}"

// lex splits text into tokens. It fails on an unterminated string or an unknown character.
func lex(text string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return nil, errAt(text, i, len(text), "SC1001", "Syntax error, unexpected end-of-file.")
			}
			i += end + 4
		case isIdentStart(c):
			j := i + 1
			for j < len(text) && isIdentPart(text[j]) {
				j++
			}
			toks = append(toks, token{kind: tIdent, text: text[i:j], start: i, end: j})
			i = j
		case c == '@':
			j := i + 1
			for j < len(text) && isIdentPart(text[j]) {
				j++
			}
			if j == i+1 {
				return nil, errAt(text, i, i+1, "SC1001", "Syntax error, incorrect syntax near '@'.")
			}
			toks = append(toks, token{kind: tParam, text: text[i:j], start: i, end: j})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9':
			j, f, err := lexNumber(text, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tNumber, text: text[i:j], num: f, start: i, end: j})
			i = j
		case c == '\'' || c == '"':
			j, s, err := lexString(text, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tString, text: s, start: i, end: j})
			i = j
		default:
			op := ""
			for _, o := range threeOps {
				if strings.HasPrefix(text[i:], o) {
					op = o
				}
			}
			if op == "" {
				for _, o := range twoOps {
					if strings.HasPrefix(text[i:], o) {
						op = o
						break
					}
				}
			}
			if op == "" && strings.IndexByte(oneOps, c) >= 0 {
				op = text[i : i+1]
			}
			if op == "" {
				r, size := utf8.DecodeRuneInString(text[i:])
				return nil, errAt(text, i, i+size, "SC1001", fmt.Sprintf("Syntax error, invalid token '%s'.", string(r)))
			}
			toks = append(toks, token{kind: tOp, text: op, start: i, end: i + len(op)})
			i += len(op)
		}
	}
	toks = append(toks, token{kind: tEOF, start: len(text), end: len(text)})
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func lexNumber(text string, i int) (int, float64, error) {
	j := i
	if strings.HasPrefix(text[i:], "0x") || strings.HasPrefix(text[i:], "0X") {
		j += 2
		for j < len(text) && strings.IndexByte("0123456789abcdefABCDEF", text[j]) >= 0 {
			j++
		}
		u, err := strconv.ParseUint(text[i+2:j], 16, 64)
		if err != nil {
			return 0, 0, errAt(text, i, j, "SC1001", fmt.Sprintf("Syntax error, incorrect syntax near '%s'.", text[i:j]))
		}
		return j, float64(u), nil
	}
	for j < len(text) && text[j] >= '0' && text[j] <= '9' {
		j++
	}
	if j < len(text) && text[j] == '.' {
		j++
		for j < len(text) && text[j] >= '0' && text[j] <= '9' {
			j++
		}
	}
	if j < len(text) && (text[j] == 'e' || text[j] == 'E') {
		k := j + 1
		if k < len(text) && (text[k] == '+' || text[k] == '-') {
			k++
		}
		if k < len(text) && text[k] >= '0' && text[k] <= '9' {
			for k < len(text) && text[k] >= '0' && text[k] <= '9' {
				k++
			}
			j = k
		}
	}
	f, err := strconv.ParseFloat(text[i:j], 64)
	if err != nil {
		return 0, 0, errAt(text, i, j, "SC1001", fmt.Sprintf("Syntax error, incorrect syntax near '%s'.", text[i:j]))
	}
	return j, f, nil
}

func lexString(text string, i int) (int, string, error) {
	q := text[i]
	var b strings.Builder
	j := i + 1
	for j < len(text) {
		c := text[j]
		switch {
		case c == q:
			return j + 1, b.String(), nil
		case c == '\\':
			if j+1 >= len(text) {
				return 0, "", errAt(text, i, len(text), "SC1001", "Syntax error, unclosed quotation mark.")
			}
			e := text[j+1]
			j += 2
			switch e {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if j+4 > len(text) {
					return 0, "", errAt(text, j-2, len(text), "SC1001", "Syntax error, invalid escape sequence.")
				}
				n, err := strconv.ParseUint(text[j:j+4], 16, 32)
				if err != nil {
					return 0, "", errAt(text, j-2, j+4, "SC1001", "Syntax error, invalid escape sequence.")
				}
				b.WriteRune(rune(n))
				j += 4
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			j++
		}
	}
	return 0, "", errAt(text, i, len(text), "SC1001", "Syntax error, unclosed quotation mark.")
}
