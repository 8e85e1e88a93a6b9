package sql

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The datasets below follow the sample items of the public query-language documentation (the
// "Families" items of the getting-started pages, the employees and products of the clause pages);
// the expected results are the documented outputs where the docs give one, and the documented
// semantics (undefined propagation, type ordering, ...) otherwise.

const families = `[
{"id":"AndersenFamily","lastName":"Andersen","parents":[{"firstName":"Thomas"},{"firstName":"Mary Kay"}],
 "children":[{"firstName":"Henriette Thaulow","gender":"female","grade":5,"pets":[{"givenName":"Fluffy"}]}],
 "address":{"state":"WA","county":"King","city":"Seattle"},"creationDate":1431620472,"isRegistered":true},
{"id":"WakefieldFamily","parents":[{"familyName":"Wakefield","givenName":"Robin"},{"familyName":"Miller","givenName":"Ben"}],
 "children":[{"familyName":"Merriam","givenName":"Jesse","gender":"female","grade":1,"pets":[{"givenName":"Goofy"},{"givenName":"Shadow"}]},
   {"familyName":"Miller","givenName":"Lisa","gender":"female","grade":8}],
 "address":{"state":"NY","county":"Manhattan","city":"NY"},"creationDate":1431620462,"isRegistered":false}
]`

const employees = `[
{"id":"3719350841","name":"Tijana Stanković","workLocation":{"office":"Redmond, WA"},"team":"Tech support"},
{"id":"6072808750","name":"Jean Nadeau","workLocation":{"type":"Remote"},"team":"Tech support"},
{"id":"6339549442","name":"Cris Barros","employment":{"hireDateTime":"2023-01-01T06:30:00.000Z","weeklyHours":40,"team":"Retail support"}},
{"id":"5859346714","name":"Eduarda Dias","employment":{"hireDateTime":"2023-01-01T09:30:00.000Z","team":"Retail support"}},
{"id":"4968499169","name":"Darweshi Mhina","employment":{"hireDateTime":"2023-01-01T15:30:00.000Z","weeklyHours":32,"team":"Retail support"}}
]`

const products = `[
{"id":"p1","name":"Trek Jacket","category":"coats","price":120.5,"quantity":4,"tags":["winter","outdoor"],"sizes":[{"key":"s","qty":1},{"key":"m","qty":3}],"onSale":true},
{"id":"p2","name":"Ranger Coat","category":"coats","price":99,"quantity":0,"tags":["winter"],"sizes":[{"key":"l","qty":0}],"onSale":false},
{"id":"p3","name":"Trail Shorts","category":"shorts","price":35,"quantity":12,"tags":["summer","outdoor"],"onSale":true},
{"id":"p4","name":"Road Saddle","category":"bikes","price":"n/a","quantity":2,"tags":[]},
{"id":"p5","name":"Helmet","category":"bikes","quantity":7,"tags":["outdoor","safety"],"discontinued":null}
]`

// mixed holds one document per JSON type of the property v (and one without it) for ordering and
// undefined semantics.
const mixed = `[
{"id":"a","v":"apple"},
{"id":"b","v":2},
{"id":"c","v":true},
{"id":"d","v":null},
{"id":"e"},
{"id":"f","v":false},
{"id":"g","v":-1},
{"id":"h","v":"Apple"},
{"id":"i","v":[1,2]},
{"id":"j","v":{"x":1}}
]`

type caseRow struct {
	name    string
	data    string
	q       string
	params  map[string]any
	want    string // JSON array
	wantErr string // substring of the error
}

func valueCases() []caseRow {
	v := func(q, want string) caseRow { return caseRow{q: q, want: want} }
	return []caseRow{
		// Literals and constants.
		v(`SELECT VALUE 1`, `[1]`),
		v(`SELECT VALUE -1.5`, `[-1.5]`),
		v(`SELECT VALUE 1e3`, `[1000]`),
		v(`SELECT VALUE 0x1F`, `[31]`),
		v(`SELECT VALUE "a"`, `["a"]`),
		v(`SELECT VALUE 'single'`, `["single"]`),
		v(`SELECT VALUE "esc\"aped\n"`, `["esc\"aped\n"]`),
		v(`SELECT VALUE '\u00e9'`, `["é"]`),
		v(`SELECT VALUE true`, `[true]`),
		v(`SELECT VALUE false`, `[false]`),
		v(`SELECT VALUE null`, `[null]`),
		v(`SELECT VALUE undefined`, `[]`),
		v(`SELECT VALUE [1, "a", null, true]`, `[[1,"a",null,true]]`),
		v(`SELECT VALUE [1, undefined, 2]`, `[[1,2]]`),
		v(`SELECT VALUE {}`, `[{}]`),
		v(`SELECT VALUE {a: 1, "b c": [2]}`, `[{"a":1,"b c":[2]}]`),
		v(`SELECT VALUE {a: undefined, b: 1}`, `[{"b":1}]`),
		v(`SELECT 1 AS x, 2 AS y`, `[{"x":1,"y":2}]`),
		v(`SELECT 1, 2`, `[{"$1":1,"$2":2}]`),
		v(`SELECT undefined AS x`, `[{}]`),
		v(`select value 1`, `[1]`),
		v(`SeLeCt VaLuE TRUE`, `[true]`),
		v(`SELECT VALUE 1 -- trailing comment`, `[1]`),
		// Arithmetic.
		v(`SELECT VALUE 1 + 2 * 3`, `[7]`),
		v(`SELECT VALUE (1 + 2) * 3`, `[9]`),
		v(`SELECT VALUE 7 / 2`, `[3.5]`),
		v(`SELECT VALUE 7 % 3`, `[1]`),
		v(`SELECT VALUE -7 % 3`, `[-1]`),
		v(`SELECT VALUE 1 / 0`, `[]`),
		v(`SELECT VALUE 1 + "a"`, `[]`),
		v(`SELECT VALUE 1 + null`, `[]`),
		v(`SELECT VALUE 1 + true`, `[]`),
		v(`SELECT VALUE - "a"`, `[]`),
		v(`SELECT VALUE 10 - 2 - 3`, `[5]`),
		v(`SELECT VALUE 2 * -3`, `[-6]`),
		// Bitwise.
		v(`SELECT VALUE 5 | 3`, `[7]`),
		v(`SELECT VALUE 5 & 3`, `[1]`),
		v(`SELECT VALUE 5 ^ 3`, `[6]`),
		v(`SELECT VALUE ~5`, `[-6]`),
		v(`SELECT VALUE 1 << 4`, `[16]`),
		v(`SELECT VALUE 256 >> 4`, `[16]`),
		v(`SELECT VALUE -16 >>> 28`, `[15]`),
		v(`SELECT VALUE 1.5 | 1`, `[]`),
		// String concatenation.
		v(`SELECT VALUE "a" || "b" || "c"`, `["abc"]`),
		v(`SELECT VALUE "a" || 1`, `[]`),
		v(`SELECT VALUE "a" || undefined`, `[]`),
		// Comparisons (the equality table of the docs).
		v(`SELECT VALUE 1 = 1`, `[true]`),
		v(`SELECT VALUE 1 = 2`, `[false]`),
		v(`SELECT VALUE 0 = "true"`, `[]`),
		v(`SELECT VALUE null = null`, `[true]`),
		v(`SELECT VALUE null = 0`, `[]`),
		v(`SELECT VALUE true = true`, `[true]`),
		v(`SELECT VALUE true = 1`, `[]`),
		v(`SELECT VALUE "a" = "a"`, `[true]`),
		v(`SELECT VALUE "a" = "A"`, `[false]`),
		v(`SELECT VALUE [1,2] = [1,2]`, `[true]`),
		v(`SELECT VALUE [1,2] = [2,1]`, `[false]`),
		v(`SELECT VALUE {a:1} = {a:1}`, `[true]`),
		v(`SELECT VALUE {a:1} = {a:2}`, `[false]`),
		v(`SELECT VALUE [1] = {a:1}`, `[]`),
		v(`SELECT VALUE undefined = undefined`, `[]`),
		v(`SELECT VALUE 1 != 2`, `[true]`),
		v(`SELECT VALUE 1 <> 1`, `[false]`),
		v(`SELECT VALUE 1 != "1"`, `[]`),
		v(`SELECT VALUE [1] != [2]`, `[]`),
		v(`SELECT VALUE {a:1} != {a:2}`, `[]`),
		v(`SELECT VALUE 1 < 2`, `[true]`),
		v(`SELECT VALUE 2 <= 2`, `[true]`),
		v(`SELECT VALUE 3 > 2`, `[true]`),
		v(`SELECT VALUE 1 >= 2`, `[false]`),
		v(`SELECT VALUE "a" < "b"`, `[true]`),
		v(`SELECT VALUE "B" < "a"`, `[true]`),
		v(`SELECT VALUE false < true`, `[true]`),
		v(`SELECT VALUE 1 < "2"`, `[]`),
		v(`SELECT VALUE [1] < [2]`, `[]`),
		v(`SELECT VALUE null < 1`, `[]`),
		v(`SELECT VALUE null <= null`, `[true]`),
		// Logical operators with undefined (the truth tables of the docs).
		v(`SELECT VALUE true AND true`, `[true]`),
		v(`SELECT VALUE true AND false`, `[false]`),
		v(`SELECT VALUE true AND undefined`, `[]`),
		v(`SELECT VALUE false AND undefined`, `[false]`),
		v(`SELECT VALUE undefined AND false`, `[false]`),
		v(`SELECT VALUE true AND 1`, `[]`),
		v(`SELECT VALUE true OR undefined`, `[true]`),
		v(`SELECT VALUE false OR undefined`, `[]`),
		v(`SELECT VALUE false OR false`, `[false]`),
		v(`SELECT VALUE undefined OR true`, `[true]`),
		v(`SELECT VALUE NOT true`, `[false]`),
		v(`SELECT VALUE NOT false`, `[true]`),
		v(`SELECT VALUE NOT undefined`, `[]`),
		v(`SELECT VALUE NOT 1`, `[]`),
		v(`SELECT VALUE NOT NOT true`, `[true]`),
		v(`SELECT VALUE true OR false AND false`, `[true]`),
		// Ternary and coalesce.
		v(`SELECT VALUE true ? 1 : 2`, `[1]`),
		v(`SELECT VALUE false ? 1 : 2`, `[2]`),
		v(`SELECT VALUE undefined ? 1 : 2`, `[2]`),
		v(`SELECT VALUE 1 ? 1 : 2`, `[2]`),
		v(`SELECT VALUE 1 < 2 ? "lt" : 1 > 2 ? "gt" : "eq"`, `["lt"]`),
		v(`SELECT VALUE undefined ?? 5`, `[5]`),
		v(`SELECT VALUE null ?? 5`, `[null]`),
		v(`SELECT VALUE 0 ?? 5`, `[0]`),
		v(`SELECT VALUE undefined ?? undefined ?? "last"`, `["last"]`),
		// IN, BETWEEN, LIKE.
		v(`SELECT VALUE 2 IN (1, 2, 3)`, `[true]`),
		v(`SELECT VALUE 4 IN (1, 2, 3)`, `[false]`),
		v(`SELECT VALUE 4 NOT IN (1, 2, 3)`, `[true]`),
		v(`SELECT VALUE "2" IN (1, 2)`, `[false]`),
		v(`SELECT VALUE undefined IN (1)`, `[]`),
		v(`SELECT VALUE [1] IN ([1], [2])`, `[true]`),
		v(`SELECT VALUE 5 BETWEEN 1 AND 10`, `[true]`),
		v(`SELECT VALUE 10 BETWEEN 1 AND 10`, `[true]`),
		v(`SELECT VALUE 11 BETWEEN 1 AND 10`, `[false]`),
		v(`SELECT VALUE 11 NOT BETWEEN 1 AND 10`, `[true]`),
		v(`SELECT VALUE "m" BETWEEN "a" AND "z"`, `[true]`),
		v(`SELECT VALUE "m" BETWEEN 1 AND 10`, `[]`),
		v(`SELECT VALUE "abc" LIKE "a%"`, `[true]`),
		v(`SELECT VALUE "abc" LIKE "%c"`, `[true]`),
		v(`SELECT VALUE "abc" LIKE "%b%"`, `[true]`),
		v(`SELECT VALUE "abc" LIKE "a_c"`, `[true]`),
		v(`SELECT VALUE "abc" LIKE "a_"`, `[false]`),
		v(`SELECT VALUE "abc" LIKE "[a-b]bc"`, `[true]`),
		v(`SELECT VALUE "cbc" LIKE "[^a-b]bc"`, `[true]`),
		v(`SELECT VALUE "ABC" LIKE "abc"`, `[false]`),
		v(`SELECT VALUE "10%" LIKE "10!%" ESCAPE "!"`, `[true]`),
		v(`SELECT VALUE "100" LIKE "10!%" ESCAPE "!"`, `[false]`),
		v(`SELECT VALUE "a.c" LIKE "a.c"`, `[true]`),
		v(`SELECT VALUE "abc" LIKE "a.c"`, `[false]`),
		v(`SELECT VALUE "abc" NOT LIKE "x%"`, `[true]`),
		v(`SELECT VALUE 1 LIKE "1"`, `[]`),
		// Property access.
		v(`SELECT VALUE {a: {b: 2}}.a.b`, `[2]`),
		v(`SELECT VALUE {a: {b: 2}}["a"]["b"]`, `[2]`),
		v(`SELECT VALUE [10, 20, 30][1]`, `[20]`),
		v(`SELECT VALUE [10, 20, 30][3]`, `[]`),
		v(`SELECT VALUE [10, 20, 30][-1]`, `[]`),
		v(`SELECT VALUE {a: 1}.b`, `[]`),
		v(`SELECT VALUE (1).a`, `[]`),
		// Type checking functions (documented examples).
		v(`SELECT VALUE IS_ARRAY([])`, `[true]`),
		v(`SELECT VALUE IS_ARRAY({})`, `[false]`),
		v(`SELECT VALUE IS_BOOL(false)`, `[true]`),
		v(`SELECT VALUE IS_BOOL(0)`, `[false]`),
		v(`SELECT VALUE IS_DEFINED({a: 1}.a)`, `[true]`),
		v(`SELECT VALUE IS_DEFINED({a: 1}.b)`, `[false]`),
		v(`SELECT VALUE IS_DEFINED(null)`, `[true]`),
		v(`SELECT VALUE IS_NULL(null)`, `[true]`),
		v(`SELECT VALUE IS_NULL(undefined)`, `[false]`),
		v(`SELECT VALUE IS_NUMBER(1.5)`, `[true]`),
		v(`SELECT VALUE IS_NUMBER("1")`, `[false]`),
		v(`SELECT VALUE IS_OBJECT({})`, `[true]`),
		v(`SELECT VALUE IS_OBJECT([])`, `[false]`),
		v(`SELECT VALUE IS_STRING("")`, `[true]`),
		v(`SELECT VALUE IS_PRIMITIVE(null)`, `[true]`),
		v(`SELECT VALUE IS_PRIMITIVE({})`, `[false]`),
		v(`SELECT VALUE IS_PRIMITIVE(undefined)`, `[false]`),
		v(`SELECT VALUE IS_FINITE_NUMBER(1.5)`, `[true]`),
		v(`SELECT VALUE IS_INTEGER(4)`, `[true]`),
		v(`SELECT VALUE IS_INTEGER(4.5)`, `[false]`),
		// Math functions (documented examples).
		v(`SELECT VALUE ABS(-1)`, `[1]`),
		v(`SELECT VALUE ABS(0)`, `[0]`),
		v(`SELECT VALUE ABS(1)`, `[1]`),
		v(`SELECT VALUE ABS("a")`, `[]`),
		v(`SELECT VALUE CEILING(-2.4)`, `[-2]`),
		v(`SELECT VALUE CEILING(2.4)`, `[3]`),
		v(`SELECT VALUE FLOOR(-2.4)`, `[-3]`),
		v(`SELECT VALUE FLOOR(2.6)`, `[2]`),
		v(`SELECT VALUE ROUND(2.4)`, `[2]`),
		v(`SELECT VALUE ROUND(2.5)`, `[3]`),
		v(`SELECT VALUE ROUND(-2.5)`, `[-3]`),
		v(`SELECT VALUE ROUND(-2.6)`, `[-3]`),
		v(`SELECT VALUE TRUNC(2.6)`, `[2]`),
		v(`SELECT VALUE TRUNC(-2.6)`, `[-2]`),
		v(`SELECT VALUE SIGN(-5)`, `[-1]`),
		v(`SELECT VALUE SIGN(0)`, `[0]`),
		v(`SELECT VALUE SIGN(3)`, `[1]`),
		v(`SELECT VALUE SQRT(16)`, `[4]`),
		v(`SELECT VALUE SQRT(-1)`, `[]`),
		v(`SELECT VALUE SQUARE(3)`, `[9]`),
		v(`SELECT VALUE POWER(2, 10)`, `[1024]`),
		v(`SELECT VALUE EXP(0)`, `[1]`),
		v(`SELECT VALUE LOG(1)`, `[0]`),
		v(`SELECT VALUE LOG(8, 2)`, `[3]`),
		v(`SELECT VALUE LOG10(100)`, `[2]`),
		v(`SELECT VALUE DEGREES(PI() / 2)`, `[90]`),
		v(`SELECT VALUE RADIANS(180) = PI()`, `[true]`),
		v(`SELECT VALUE COS(0)`, `[1]`),
		v(`SELECT VALUE SIN(0)`, `[0]`),
		v(`SELECT VALUE TAN(0)`, `[0]`),
		v(`SELECT VALUE ATAN(0)`, `[0]`),
		v(`SELECT VALUE ASIN(0)`, `[0]`),
		v(`SELECT VALUE ACOS(1)`, `[0]`),
		v(`SELECT VALUE ROUND(ATN2(35.175643, 129.44) * 1000)`, `[1305]`),
		v(`SELECT VALUE NumberBin(7.5, 2)`, `[6]`),
		v(`SELECT VALUE NumberBin(-7, 5)`, `[-10]`),
		v(`SELECT VALUE IntAdd(2, 3)`, `[5]`),
		v(`SELECT VALUE IntSub(2, 3)`, `[-1]`),
		v(`SELECT VALUE IntMul(4, 3)`, `[12]`),
		v(`SELECT VALUE IntDiv(7, 2)`, `[3]`),
		v(`SELECT VALUE IntDiv(7, 0)`, `[]`),
		v(`SELECT VALUE IntMod(7, 2)`, `[1]`),
		v(`SELECT VALUE IntBitAnd(12, 10)`, `[8]`),
		v(`SELECT VALUE IntBitOr(12, 10)`, `[14]`),
		v(`SELECT VALUE IntBitXor(12, 10)`, `[6]`),
		v(`SELECT VALUE IntAdd(1.5, 1)`, `[]`),
		v(`SELECT VALUE RAND() >= 0 AND RAND() < 1`, `[true]`),
		// String functions (documented examples).
		v(`SELECT VALUE CONCAT("abc", "def")`, `["abcdef"]`),
		v(`SELECT VALUE CONCAT("a", "b", "c", "d")`, `["abcd"]`),
		v(`SELECT VALUE CONCAT("a", 1)`, `[]`),
		v(`SELECT VALUE CONTAINS("AdventureWorks", "Adventure")`, `[true]`),
		v(`SELECT VALUE CONTAINS("AdventureWorks", "adventure")`, `[false]`),
		v(`SELECT VALUE CONTAINS("AdventureWorks", "adventure", true)`, `[true]`),
		v(`SELECT VALUE CONTAINS("AdventureWorks", "x")`, `[false]`),
		v(`SELECT VALUE CONTAINS(1, "x")`, `[]`),
		v(`SELECT VALUE STARTSWITH("abc", "b")`, `[false]`),
		v(`SELECT VALUE STARTSWITH("abc", "a")`, `[true]`),
		v(`SELECT VALUE STARTSWITH("abc", "A", true)`, `[true]`),
		v(`SELECT VALUE ENDSWITH("abc", "b")`, `[false]`),
		v(`SELECT VALUE ENDSWITH("abc", "bC", true)`, `[true]`),
		v(`SELECT VALUE ENDSWITH("abc", "bc")`, `[true]`),
		v(`SELECT VALUE INDEX_OF("abc", "ab")`, `[0]`),
		v(`SELECT VALUE INDEX_OF("abc", "c")`, `[2]`),
		v(`SELECT VALUE INDEX_OF("abc", "d")`, `[-1]`),
		v(`SELECT VALUE INDEX_OF("abcabc", "b", 2)`, `[4]`),
		v(`SELECT VALUE LEFT("abc", 1)`, `["a"]`),
		v(`SELECT VALUE LEFT("abc", 5)`, `["abc"]`),
		v(`SELECT VALUE RIGHT("abc", 2)`, `["bc"]`),
		v(`SELECT VALUE LENGTH("abc")`, `[3]`),
		v(`SELECT VALUE LENGTH("")`, `[0]`),
		v(`SELECT VALUE LENGTH("é")`, `[1]`),
		v(`SELECT VALUE LENGTH(1)`, `[]`),
		v(`SELECT VALUE LOWER("AbC")`, `["abc"]`),
		v(`SELECT VALUE UPPER("AbC")`, `["ABC"]`),
		v(`SELECT VALUE UPPER(null)`, `[]`),
		v(`SELECT VALUE LTRIM("  abc  ")`, `["abc  "]`),
		v(`SELECT VALUE RTRIM("  abc  ")`, `["  abc"]`),
		v(`SELECT VALUE TRIM("  abc  ")`, `["abc"]`),
		v(`SELECT VALUE REPLACE("This is a Test", "Test", "desk")`, `["This is a desk"]`),
		v(`SELECT VALUE REPLACE("aaa", "a", "bb")`, `["bbbbbb"]`),
		v(`SELECT VALUE REPLICATE("a", 3)`, `["aaa"]`),
		v(`SELECT VALUE REPLICATE("a", -1)`, `[]`),
		v(`SELECT VALUE REPLICATE("ab", 6000)`, `[]`),
		v(`SELECT VALUE REVERSE("abc")`, `["cba"]`),
		v(`SELECT VALUE SUBSTRING("abc", 1, 1)`, `["b"]`),
		v(`SELECT VALUE SUBSTRING("abc", 1, 10)`, `["bc"]`),
		v(`SELECT VALUE SUBSTRING("abc", 5, 1)`, `[""]`),
		v(`SELECT VALUE SUBSTRING("abc", 0, 0)`, `[""]`),
		v(`SELECT VALUE StringEquals("abc", "abc")`, `[true]`),
		v(`SELECT VALUE StringEquals("abc", "ABC")`, `[false]`),
		v(`SELECT VALUE StringEquals("abc", "ABC", true)`, `[true]`),
		v(`SELECT VALUE RegexMatch("abcd", "ABC", "")`, `[false]`),
		v(`SELECT VALUE RegexMatch("abcd", "ABC", "i")`, `[true]`),
		v(`SELECT VALUE RegexMatch("abcd", "ab.", "")`, `[true]`),
		v(`SELECT VALUE RegexMatch("abcd", "ab c", "x")`, `[true]`),
		v(`SELECT VALUE RegexMatch("abcd", "^b")`, `[false]`),
		v(`SELECT VALUE RegexMatch("abcd", "(")`, `[]`),
		v(`SELECT VALUE ToString(1)`, `["1"]`),
		v(`SELECT VALUE ToString(1.5)`, `["1.5"]`),
		v(`SELECT VALUE ToString(true)`, `["true"]`),
		v(`SELECT VALUE ToString(null)`, `["null"]`),
		v(`SELECT VALUE ToString([1,"a"])`, `["[1,\"a\"]"]`),
		v(`SELECT VALUE ToString(undefined)`, `[]`),
		v(`SELECT VALUE StringToArray("[1, 2]")`, `[[1,2]]`),
		v(`SELECT VALUE StringToArray("1")`, `[]`),
		v(`SELECT VALUE StringToBoolean("true")`, `[true]`),
		v(`SELECT VALUE StringToBoolean("1")`, `[]`),
		v(`SELECT VALUE StringToNull("null")`, `[null]`),
		v(`SELECT VALUE StringToNumber("1.5")`, `[1.5]`),
		v(`SELECT VALUE StringToNumber("x")`, `[]`),
		v(`SELECT VALUE StringToObject("{\"a\": 1}")`, `[{"a":1}]`),
		v(`SELECT VALUE StringSplit("a,b,c", ",")`, `[["a","b","c"]]`),
		v(`SELECT VALUE StringJoin(["a","b"], "-")`, `["a-b"]`),
		// Array functions (documented examples).
		v(`SELECT VALUE ARRAY_CONCAT(["apples", "strawberries"], ["bananas"])`, `[["apples","strawberries","bananas"]]`),
		v(`SELECT VALUE ARRAY_CONCAT([1], [2], [3])`, `[[1,2,3]]`),
		v(`SELECT VALUE ARRAY_CONCAT([1], 2)`, `[]`),
		v(`SELECT VALUE ARRAY_CONTAINS(["coats", "jackets", "sweatshirts"], "coats")`, `[true]`),
		v(`SELECT VALUE ARRAY_CONTAINS(["coats", "jackets", "sweatshirts"], "hoodies")`, `[false]`),
		v(`SELECT VALUE ARRAY_CONTAINS([{category: "shirts", color: "blue"}], {category: "shirts", color: "blue"})`, `[true]`),
		v(`SELECT VALUE ARRAY_CONTAINS([{category: "shirts", color: "blue"}], {category: "shirts"})`, `[false]`),
		v(`SELECT VALUE ARRAY_CONTAINS([{category: "shirts", color: "blue"}], {category: "shirts"}, true)`, `[true]`),
		v(`SELECT VALUE ARRAY_CONTAINS([{category: "shirts", color: "blue"}], {category: "shorts", color: "blue"}, true)`, `[false]`),
		v(`SELECT VALUE ARRAY_CONTAINS("abc", "a")`, `[]`),
		v(`SELECT VALUE ARRAY_CONTAINS_ANY([1, 2, 3], 3, 4)`, `[true]`),
		v(`SELECT VALUE ARRAY_CONTAINS_ANY([1, 2, 3], 5, 4)`, `[false]`),
		v(`SELECT VALUE ARRAY_CONTAINS_ALL([1, 2, 3], 1, 3)`, `[true]`),
		v(`SELECT VALUE ARRAY_CONTAINS_ALL([1, 2, 3], 1, 4)`, `[false]`),
		v(`SELECT VALUE ARRAY_LENGTH(["a", "b"])`, `[2]`),
		v(`SELECT VALUE ARRAY_LENGTH([])`, `[0]`),
		v(`SELECT VALUE ARRAY_LENGTH("ab")`, `[]`),
		v(`SELECT VALUE ARRAY_SLICE([70, 86, 92, 99, 85, 90, 82], 0)`, `[[70,86,92,99,85,90,82]]`),
		v(`SELECT VALUE ARRAY_SLICE([70, 86, 92, 99, 85, 90, 82], 1)`, `[[86,92,99,85,90,82]]`),
		v(`SELECT VALUE ARRAY_SLICE([70, 86, 92, 99, 85, 90, 82], -1)`, `[[82]]`),
		v(`SELECT VALUE ARRAY_SLICE([70, 86, 92, 99, 85, 90, 82], -2)`, `[[90,82]]`),
		v(`SELECT VALUE ARRAY_SLICE([70, 86, 92, 99, 85, 90, 82], 0, 3)`, `[[70,86,92]]`),
		v(`SELECT VALUE ARRAY_SLICE([70, 86, 92, 99, 85, 90, 82], 0, 12)`, `[[70,86,92,99,85,90,82]]`),
		v(`SELECT VALUE ARRAY_SLICE([70, 86, 92, 99, 85, 90, 82], 3, 5)`, `[[99,85,90,82]]`),
		v(`SELECT VALUE ARRAY_SLICE([70, 86, 92, 99, 85, 90, 82], -2, 1)`, `[[90]]`),
		v(`SELECT VALUE SetIntersect([1, 2, 3], [2, 3, 4])`, `[[2,3]]`),
		v(`SELECT VALUE SetIntersect([1, 2], [3])`, `[[]]`),
		v(`SELECT VALUE SetUnion([1, 2, 2], [2, 3])`, `[[1,2,3]]`),
		v(`SELECT VALUE SetUnion([{a:1}], [{a:1}, {a:2}])`, `[[{"a":1},{"a":2}]]`),
		v(`SELECT VALUE ObjectToArray({b: 2, a: 1})`, `[[{"k":"a","v":1},{"k":"b","v":2}]]`),
		v(`SELECT VALUE CHOOSE(2, "a", "b", "c")`, `["b"]`),
		v(`SELECT VALUE CHOOSE(4, "a", "b", "c")`, `[]`),
		// IIF.
		v(`SELECT VALUE IIF(true, "yes", "no")`, `["yes"]`),
		v(`SELECT VALUE IIF(false, "yes", "no")`, `["no"]`),
		v(`SELECT VALUE IIF(1, "yes", "no")`, `["no"]`),
		v(`SELECT VALUE IIF(undefined, "yes", "no")`, `["no"]`),
		// Dates (documented examples; "now" is injected as 2024-05-06T07:08:09.1234567Z).
		v(`SELECT VALUE GetCurrentDateTime()`, `["2024-05-06T07:08:09.1234567Z"]`),
		v(`SELECT VALUE GetCurrentTimestamp()`, `[1714979289123]`),
		v(`SELECT VALUE GetCurrentTicks()`, `[17149792891234567]`),
		v(`SELECT VALUE DateTimeAdd("yyyy", 1, "2020-07-03T00:00:00.0000000")`, `["2021-07-03T00:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeAdd("mm", 1, "2020-07-03T00:00:00.0000000")`, `["2020-08-03T00:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeAdd("dd", 1, "2020-07-03T00:00:00.0000000")`, `["2020-07-04T00:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeAdd("hh", 1, "2020-07-03T00:00:00.0000000")`, `["2020-07-03T01:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeAdd("yyyy", -1, "2020-07-03T00:00:00.0000000")`, `["2019-07-03T00:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeAdd("mm", -1, "2020-07-03T00:00:00.0000000")`, `["2020-06-03T00:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeAdd("dd", -1, "2020-07-03T00:00:00.0000000")`, `["2020-07-02T00:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeAdd("hh", -1, "2020-07-03T00:00:00.0000000")`, `["2020-07-02T23:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeAdd("ss", 5 * -5, "2020-07-03T00:00:00.0000000")`, `["2020-07-02T23:59:35.0000000Z"]`),
		v(`SELECT VALUE DateTimeAdd("xx", 1, "2020-07-03T00:00:00.0000000")`, `[]`),
		v(`SELECT VALUE DateTimeAdd("dd", 1, "not a date")`, `[]`),
		v(`SELECT VALUE DateTimeDiff("yyyy", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `[-1]`),
		v(`SELECT VALUE DateTimeDiff("mm", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `[-11]`),
		v(`SELECT VALUE DateTimeDiff("diffDays", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `[]`),
		v(`SELECT VALUE DateTimeDiff("hh", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `[-8075]`),
		v(`SELECT VALUE DateTimeDiff("ss", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `[-29070000]`),
		v(`SELECT VALUE DateTimeDiff("yyyy", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `[1]`),
		v(`SELECT VALUE DateTimeDiff("mm", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `[11]`),
		v(`SELECT VALUE DateTimeDiff("hh", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `[8075]`),
		v(`SELECT VALUE DateTimeDiff("ss", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `[29070000]`),
		v(`SELECT VALUE DateTimePart("yyyy", "2016-05-29T08:30:00.1301617")`, `[2016]`),
		v(`SELECT VALUE DateTimePart("mm", "2016-05-29T08:30:00.1301617")`, `[5]`),
		v(`SELECT VALUE DateTimePart("dd", "2016-05-29T08:30:00.1301617")`, `[29]`),
		v(`SELECT VALUE DateTimePart("hh", "2016-05-29T08:30:00.1301617")`, `[8]`),
		v(`SELECT VALUE DateTimePart("mi", "2016-05-29T08:30:00.1301617")`, `[30]`),
		v(`SELECT VALUE DateTimePart("ss", "2016-05-29T08:30:00.1301617")`, `[0]`),
		v(`SELECT VALUE DateTimePart("ms", "2016-05-29T08:30:00.1301617")`, `[130]`),
		v(`SELECT VALUE DateTimePart("mcs", "2016-05-29T08:30:00.1301617")`, `[130161]`),
		v(`SELECT VALUE DateTimePart("ns", "2016-05-29T08:30:00.1301617")`, `[130161700]`),
		v(`SELECT VALUE DateTimeBin("2021-01-08T18:35:00.0000000", "dd")`, `["2021-01-08T00:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeBin("2021-01-08T18:35:00.0000000", "hh")`, `["2021-01-08T18:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeBin("2021-01-08T18:35:00.0000000", "ss")`, `["2021-01-08T18:35:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeBin("2021-01-08T18:35:00.0000000", "hh", 5)`, `["2021-01-08T15:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeBin("2021-01-08T18:35:00.0000000", "dd", 7)`, `["2021-01-07T00:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeBin("2021-01-08T18:35:00.0000000", "dd", 7, "1601-01-01T00:00:00.0000000")`, `["2021-01-04T00:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeFromParts(2017, 4, 20)`, `["2017-04-20T00:00:00.0000000Z"]`),
		v(`SELECT VALUE DateTimeFromParts(2017, 4, 20, 13, 15, 20, 3456789)`, `["2017-04-20T13:15:20.3456789Z"]`),
		v(`SELECT VALUE DateTimeFromParts(2017, 2, 30)`, `[]`),
		v(`SELECT VALUE DateTimeToTimestamp("2020-07-09T23:20:13.4575530Z")`, `[1594336813457]`),
		v(`SELECT VALUE DateTimeToTicks("2023-05-10T00:00:00.0000000Z")`, `[16836768000000000]`),
		v(`SELECT VALUE TimestampToDateTime(1594227912345)`, `["2020-07-08T17:05:12.3450000Z"]`),
		v(`SELECT VALUE TicksToDateTime(15943368134575530)`, `["2020-07-09T23:20:13.4575530Z"]`),
		// Subqueries without FROM.
		v(`SELECT VALUE (SELECT VALUE 1)`, `[1]`),
		v(`SELECT VALUE EXISTS(SELECT VALUE 1)`, `[true]`),
		v(`SELECT VALUE EXISTS(SELECT VALUE 1 WHERE false)`, `[false]`),
		v(`SELECT VALUE ARRAY(SELECT VALUE 1)`, `[[1]]`),
		v(`SELECT VALUE 1 WHERE false`, `[]`),
		v(`SELECT VALUE 1 WHERE undefined`, `[]`),
		v(`SELECT VALUE 1 WHERE 1`, `[]`),
		v(`SELECT TOP 0 VALUE 1`, `[]`),
		v(`SELECT VALUE @p`, `[42]`),
	}
}

func clauseCases() []caseRow {
	f := func(q, want string) caseRow { return caseRow{data: families, q: q, want: want} }
	e := func(q, want string) caseRow { return caseRow{data: employees, q: q, want: want} }
	p := func(q, want string) caseRow { return caseRow{data: products, q: q, want: want} }
	m := func(q, want string) caseRow { return caseRow{data: mixed, q: q, want: want} }
	return []caseRow{
		// SELECT and FROM (the Families examples of the docs).
		f(`SELECT f.id FROM Families f WHERE f.id = "AndersenFamily"`, `[{"id":"AndersenFamily"}]`),
		f(`SELECT {"Name":f.id, "City":f.address.city} AS Family FROM Families f WHERE f.address.city = f.address.state`,
			`[{"Family":{"Name":"WakefieldFamily","City":"NY"}}]`),
		f(`SELECT f.address FROM Families f WHERE f.id = "AndersenFamily"`, `[{"address":{"state":"WA","county":"King","city":"Seattle"}}]`),
		f(`SELECT f.address.state, f.address.city FROM Families f WHERE f.id = "AndersenFamily"`, `[{"state":"WA","city":"Seattle"}]`),
		f(`SELECT f.id, f.address.city FROM Families f`, `[{"id":"AndersenFamily","city":"Seattle"},{"id":"WakefieldFamily","city":"NY"}]`),
		f(`SELECT f.id AS name, f["address"]["state"] AS st FROM f`, `[{"name":"AndersenFamily","st":"WA"},{"name":"WakefieldFamily","st":"NY"}]`),
		f(`SELECT f.lastName FROM Families f`, `[{"lastName":"Andersen"},{}]`),
		f(`SELECT f.lastName ?? f.parents[0].familyName AS familyName FROM Families f`, `[{"familyName":"Andersen"},{"familyName":"Wakefield"}]`),
		f(`SELECT VALUE f.lastName FROM Families f`, `["Andersen"]`),
		f(`SELECT * FROM Families.children`, `[[{"firstName":"Henriette Thaulow","gender":"female","grade":5,"pets":[{"givenName":"Fluffy"}]}],[{"familyName":"Merriam","givenName":"Jesse","gender":"female","grade":1,"pets":[{"givenName":"Goofy"},{"givenName":"Shadow"}]},{"familyName":"Miller","givenName":"Lisa","gender":"female","grade":8}]]`),
		f(`SELECT * FROM Families.address.state`, `["WA","NY"]`),
		f(`SELECT * FROM Families.lastName`, `["Andersen"]`),
		f(`SELECT VALUE s FROM Families.address.state s`, `["WA","NY"]`),
		f(`SELECT c.givenName ?? c.firstName AS name FROM Families.children[0] c`, `[{"name":"Henriette Thaulow"},{"name":"Jesse"}]`),
		f(`SELECT (c.grade < 5) ? "elementary" : "other" AS gradeLevel FROM Families.children[0] c`, `[{"gradeLevel":"other"},{"gradeLevel":"elementary"}]`),
		f(`SELECT VALUE c.grade FROM c IN Families.children`, `[5,1,8]`),
		f(`SELECT VALUE c.grade FROM c IN Families.children WHERE c.grade > 2`, `[5,8]`),
		f(`SELECT f.id, ARRAY_LENGTH(f.children) AS n FROM Families f`, `[{"id":"AndersenFamily","n":1},{"id":"WakefieldFamily","n":2}]`),
		f(`SELECT VALUE [f.address.city, f.address.state] FROM Families f`, `[["Seattle","WA"],["NY","NY"]]`),
		f(`SELECT VALUE f.address.city || ", " || f.address.state FROM f`, `["Seattle, WA","NY, NY"]`),
		f(`SELECT f.id, f.creationDate > 1431620465 AS recent FROM f`, `[{"id":"AndersenFamily","recent":true},{"id":"WakefieldFamily","recent":false}]`),
		f(`SELECT f FROM f WHERE f.id = "nobody"`, `[]`),
		f(`SELECT f.id FROM root f WHERE f.isRegistered`, `[{"id":"AndersenFamily"}]`),
		f(`SELECT f.id FROM f WHERE NOT f.isRegistered`, `[{"id":"WakefieldFamily"}]`),
		f(`SELECT f.id FROM f WHERE f.isRegistered = false OR f.lastName = "Andersen"`, `[{"id":"AndersenFamily"},{"id":"WakefieldFamily"}]`),
		f(`SELECT f.id FROM f WHERE f.lastName = "Andersen" AND f.isRegistered`, `[{"id":"AndersenFamily"}]`),
		f(`SELECT f.id FROM f WHERE f.lastName != "Andersen"`, `[]`),
		f(`SELECT f.id FROM f WHERE NOT IS_DEFINED(f.lastName)`, `[{"id":"WakefieldFamily"}]`),
		f(`SELECT f.id FROM f WHERE f.address.state IN ("NY", "TX")`, `[{"id":"WakefieldFamily"}]`),
		f(`SELECT f.id FROM f WHERE f.creationDate BETWEEN 1431620460 AND 1431620470`, `[{"id":"WakefieldFamily"}]`),
		f(`SELECT f.id FROM f WHERE f.id LIKE "%field%"`, `[{"id":"WakefieldFamily"}]`),
		f(`SELECT f.id FROM f WHERE STARTSWITH(f.id, "And")`, `[{"id":"AndersenFamily"}]`),
		f(`SELECT f.id FROM f WHERE ARRAY_CONTAINS(f.parents, {givenName: "Ben"}, true)`, `[{"id":"WakefieldFamily"}]`),
		f(`SELECT f.id FROM f WHERE ARRAY_CONTAINS(f.parents, {givenName: "Ben"})`, `[]`),
		// JOIN (documented examples).
		f(`SELECT f.id FROM Families f JOIN c IN f.children`, `[{"id":"AndersenFamily"},{"id":"WakefieldFamily"},{"id":"WakefieldFamily"}]`),
		f(`SELECT f.id FROM Families f JOIN f.NonExistent`, ``),
		f(`SELECT f.id AS familyName, c.givenName AS childGivenName, c.firstName AS childFirstName, p.givenName AS petName
		   FROM Families f JOIN c IN f.children JOIN p IN c.pets`,
			`[{"familyName":"AndersenFamily","childFirstName":"Henriette Thaulow","petName":"Fluffy"},
			  {"familyName":"WakefieldFamily","childGivenName":"Jesse","petName":"Goofy"},
			  {"familyName":"WakefieldFamily","childGivenName":"Jesse","petName":"Shadow"}]`),
		f(`SELECT f.id AS familyName, p.givenName AS petName FROM Families f JOIN c IN f.children JOIN p IN c.pets WHERE p.givenName = "Shadow"`,
			`[{"familyName":"WakefieldFamily","petName":"Shadow"}]`),
		f(`SELECT VALUE c.grade FROM f JOIN c IN f.children WHERE f.id = "WakefieldFamily"`, `[1,8]`),
		f(`SELECT VALUE p.firstName ?? p.givenName FROM f JOIN p IN f.parents`, `["Thomas","Mary Kay","Robin","Ben"]`),
		f(`SELECT VALUE COUNT(1) FROM f JOIN c IN f.children JOIN p IN c.pets`, `[3]`),
		f(`SELECT VALUE x FROM f JOIN x IN f.address`, `[]`),
		f(`SELECT f.id, t FROM f JOIN t IN (SELECT VALUE c.grade FROM c IN f.children WHERE c.grade > 4)`, `[{"id":"AndersenFamily","t":5},{"id":"WakefieldFamily","t":8}]`),
		// Subqueries.
		f(`SELECT f.id, (SELECT VALUE COUNT(1) FROM c IN f.children) AS kids FROM f`, `[{"id":"AndersenFamily","kids":1},{"id":"WakefieldFamily","kids":2}]`),
		f(`SELECT f.id, (SELECT VALUE MAX(c.grade) FROM c IN f.children) AS best FROM f`, `[{"id":"AndersenFamily","best":5},{"id":"WakefieldFamily","best":8}]`),
		f(`SELECT f.id FROM f WHERE EXISTS(SELECT VALUE c FROM c IN f.children WHERE c.grade = 8)`, `[{"id":"WakefieldFamily"}]`),
		f(`SELECT f.id FROM f WHERE NOT EXISTS(SELECT VALUE c FROM c IN f.children WHERE c.grade = 8)`, `[{"id":"AndersenFamily"}]`),
		f(`SELECT f.id, ARRAY(SELECT VALUE c.grade FROM c IN f.children) AS grades FROM f`, `[{"id":"AndersenFamily","grades":[5]},{"id":"WakefieldFamily","grades":[1,8]}]`),
		f(`SELECT f.id, ARRAY(SELECT VALUE c.grade FROM c IN f.children WHERE c.grade > 100) AS grades FROM f`, `[{"id":"AndersenFamily","grades":[]},{"id":"WakefieldFamily","grades":[]}]`),
		f(`SELECT VALUE (SELECT VALUE c.grade FROM c IN f.children WHERE c.grade > 100) FROM f`, `[]`),
		f(`SELECT f.id FROM f WHERE (SELECT VALUE COUNT(1) FROM c IN f.children) > 1`, `[{"id":"WakefieldFamily"}]`),
		f(`SELECT VALUE ARRAY(SELECT DISTINCT VALUE c.gender FROM c IN f.children) FROM f`, `[["female"],["female"]]`),
		f(`SELECT VALUE (SELECT TOP 1 VALUE c.grade FROM c IN f.children ORDER BY c.grade DESC) FROM f`, `[5,8]`),
		// ORDER BY (single path: range index suffices).
		f(`SELECT f.id, f.address.city FROM Families f ORDER BY f.address.city`, `[{"id":"WakefieldFamily","city":"NY"},{"id":"AndersenFamily","city":"Seattle"}]`),
		f(`SELECT VALUE f.id FROM f ORDER BY f.creationDate DESC`, `["AndersenFamily","WakefieldFamily"]`),
		f(`SELECT VALUE f.id FROM f ORDER BY f.creationDate ASC`, `["WakefieldFamily","AndersenFamily"]`),
		f(`SELECT VALUE f.id FROM f ORDER BY f.lastName`, `["WakefieldFamily","AndersenFamily"]`),
		f(`SELECT VALUE f.id FROM f ORDER BY f["id"] DESC`, `["WakefieldFamily","AndersenFamily"]`),
		f(`SELECT VALUE c.grade FROM c IN Families.children ORDER BY c.grade DESC`, `[8,5,1]`),
		f(`SELECT VALUE c.grade FROM f JOIN c IN f.children ORDER BY c.grade`, `[1,5,8]`),
		f(`SELECT TOP 1 VALUE f.id FROM f ORDER BY f.creationDate`, `["WakefieldFamily"]`),
		f(`SELECT VALUE f.id FROM f ORDER BY f.id OFFSET 1 LIMIT 1`, `["WakefieldFamily"]`),
		f(`SELECT VALUE f.id FROM f ORDER BY f.id OFFSET 0 LIMIT 0`, `[]`),
		f(`SELECT VALUE f.id FROM f ORDER BY f.id OFFSET 5 LIMIT 1`, `[]`),
		f(`SELECT VALUE f.id FROM f ORDER BY UPPER(f.id)`, ``),
		f(`SELECT VALUE f.id FROM f ORDER BY f`, ``),
		// TOP / OFFSET without ORDER BY keep the source order.
		f(`SELECT TOP 1 f.id FROM f`, `[{"id":"AndersenFamily"}]`),
		f(`SELECT TOP 5 f.id FROM f`, `[{"id":"AndersenFamily"},{"id":"WakefieldFamily"}]`),
		f(`SELECT f.id FROM f OFFSET 1 LIMIT 5`, `[{"id":"WakefieldFamily"}]`),
		f(`SELECT TOP @n VALUE f.id FROM f`, `["AndersenFamily"]`),
		// SELECT * and the document itself.
		e(`SELECT * FROM employees e WHERE e.id = "6072808750"`, `[{"id":"6072808750","name":"Jean Nadeau","workLocation":{"type":"Remote"},"team":"Tech support"}]`),
		e(`SELECT VALUE {name: e.name, location: e.workLocation} FROM employees e WHERE e.team = "Tech support"`,
			`[{"name":"Tijana Stanković","location":{"office":"Redmond, WA"}},{"name":"Jean Nadeau","location":{"type":"Remote"}}]`),
		e(`SELECT * FROM employees.employment e WHERE e.team = "Retail support"`,
			`[{"hireDateTime":"2023-01-01T06:30:00.000Z","weeklyHours":40,"team":"Retail support"},{"hireDateTime":"2023-01-01T09:30:00.000Z","team":"Retail support"},{"hireDateTime":"2023-01-01T15:30:00.000Z","weeklyHours":32,"team":"Retail support"}]`),
		e(`SELECT e.name, e.employment.weeklyHours FROM e WHERE IS_DEFINED(e.employment)`,
			`[{"name":"Cris Barros","weeklyHours":40},{"name":"Eduarda Dias"},{"name":"Darweshi Mhina","weeklyHours":32}]`),
		e(`SELECT VALUE e.name FROM e WHERE e.employment.weeklyHours >= 32`, `["Cris Barros","Darweshi Mhina"]`),
		e(`SELECT VALUE e.name FROM e WHERE e.employment.weeklyHours < 100`, `["Cris Barros","Darweshi Mhina"]`),
		e(`SELECT VALUE e.name FROM e WHERE DateTimePart("hh", e.employment.hireDateTime) < 12`, `["Cris Barros","Eduarda Dias"]`),
		e(`SELECT VALUE e.id FROM e WHERE e.workLocation.type = "Remote" OR e.workLocation.office LIKE "Redmond%"`, `["3719350841","6072808750"]`),
		e(`SELECT VALUE COUNT(e.employment.weeklyHours) FROM e`, `[2]`),
		e(`SELECT VALUE COUNT(1) FROM e`, `[5]`),
		e(`SELECT VALUE SUM(e.employment.weeklyHours) FROM e`, `[72]`),
		e(`SELECT VALUE AVG(e.employment.weeklyHours) FROM e`, `[36]`),
		e(`SELECT VALUE MIN(e.name) FROM e`, `["Cris Barros"]`),
		e(`SELECT VALUE MAX(e.name) FROM e`, `["Tijana Stanković"]`),
		// Aggregates over products (undefined skipped, mixed types).
		p(`SELECT VALUE COUNT(1) FROM p`, `[5]`),
		p(`SELECT VALUE COUNT(p.price) FROM p`, `[4]`),
		p(`SELECT VALUE SUM(p.quantity) FROM p`, `[25]`),
		p(`SELECT VALUE SUM(p.price) FROM p`, `[]`),
		p(`SELECT VALUE AVG(p.price) FROM p WHERE IS_NUMBER(p.price)`, `[84.83333333333333]`),
		p(`SELECT VALUE AVG(p.price) FROM p`, `[]`),
		p(`SELECT VALUE MIN(p.price) FROM p`, `[35]`),
		p(`SELECT VALUE MAX(p.price) FROM p`, `["n/a"]`),
		p(`SELECT VALUE MAX(p.quantity) FROM p`, `[12]`),
		p(`SELECT VALUE MIN(p.missing) FROM p`, `[]`),
		p(`SELECT VALUE COUNT(1) FROM p WHERE p.category = "none"`, `[0]`),
		p(`SELECT VALUE SUM(p.quantity) FROM p WHERE p.category = "none"`, `[0]`),
		p(`SELECT VALUE AVG(p.quantity) FROM p WHERE p.category = "none"`, `[]`),
		p(`SELECT COUNT(1) AS n, MAX(p.quantity) AS most FROM p`, `[{"n":5,"most":12}]`),
		p(`SELECT COUNT(1) AS n, AVG(p.quantity) AS avgQ FROM p WHERE false`, `[{"n":0}]`),
		p(`SELECT COUNT(1) FROM p`, `[{"$1":5}]`),
		p(`SELECT VALUE COUNT(1) + 1 FROM p`, `[6]`),
		p(`SELECT VALUE MAX(p.tags) FROM p`, `[]`),
		p(`SELECT VALUE COUNT(t) FROM p JOIN t IN p.tags`, `[7]`),
		// GROUP BY.
		p(`SELECT p.category, COUNT(1) AS n FROM p GROUP BY p.category`,
			`[{"category":"coats","n":2},{"category":"shorts","n":1},{"category":"bikes","n":2}]`),
		p(`SELECT VALUE p.category FROM p GROUP BY p.category`, `["coats","shorts","bikes"]`),
		p(`SELECT p.category AS c, SUM(p.quantity) AS q FROM p GROUP BY p.category`,
			`[{"c":"coats","q":4},{"c":"shorts","q":12},{"c":"bikes","q":9}]`),
		p(`SELECT p.onSale, COUNT(1) AS n FROM p GROUP BY p.onSale`, `[{"onSale":true,"n":2},{"onSale":false,"n":1},{"n":2}]`),
		p(`SELECT p.category, p.onSale, COUNT(1) AS n FROM p GROUP BY p.category, p.onSale`,
			`[{"category":"coats","onSale":true,"n":1},{"category":"coats","onSale":false,"n":1},{"category":"shorts","onSale":true,"n":1},{"category":"bikes","n":2}]`),
		p(`SELECT UPPER(p.category) AS c, COUNT(1) AS n FROM p GROUP BY UPPER(p.category)`,
			`[{"c":"COATS","n":2},{"c":"SHORTS","n":1},{"c":"BIKES","n":2}]`),
		p(`SELECT t AS tag, COUNT(1) AS n FROM p JOIN t IN p.tags GROUP BY t`,
			`[{"tag":"winter","n":2},{"tag":"outdoor","n":3},{"tag":"summer","n":1},{"tag":"safety","n":1}]`),
		p(`SELECT p.category, COUNT(1) AS n FROM p WHERE p.category = "none" GROUP BY p.category`, `[]`),
		p(`SELECT p.category, MAX(p.price) AS best FROM p WHERE IS_NUMBER(p.price) GROUP BY p.category`,
			`[{"category":"coats","best":120.5},{"category":"shorts","best":35}]`),
		{data: products, q: `SELECT p.name FROM p GROUP BY p.category`, wantErr: "Property reference 'p.name' is invalid in the select list"},
		{data: products, q: `SELECT p.name, COUNT(1) AS n FROM p`, wantErr: "Property reference 'p.name' is invalid in the select list"},
		// DISTINCT.
		p(`SELECT DISTINCT VALUE p.category FROM p`, `["coats","shorts","bikes"]`),
		p(`SELECT DISTINCT p.category FROM p`, `[{"category":"coats"},{"category":"shorts"},{"category":"bikes"}]`),
		p(`SELECT DISTINCT VALUE t FROM p JOIN t IN p.tags`, `["winter","outdoor","summer","safety"]`),
		p(`SELECT DISTINCT VALUE p.onSale FROM p`, `[true,false]`),
		p(`SELECT DISTINCT p.onSale FROM p`, `[{"onSale":true},{"onSale":false},{}]`),
		p(`SELECT DISTINCT TOP 2 VALUE p.category FROM p`, `["coats","shorts"]`),
		p(`SELECT DISTINCT VALUE p.category FROM p ORDER BY p.category`, `["bikes","coats","shorts"]`),
		// Filters on products.
		p(`SELECT VALUE p.id FROM p WHERE p.price > 50`, `["p1","p2"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.price < "z"`, `["p4"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.price >= 0 OR p.price < ""`, `["p1","p2","p3"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.discontinued = null`, `["p5"]`),
		p(`SELECT VALUE p.id FROM p WHERE IS_NULL(p.discontinued)`, `["p5"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.onSale = true`, `["p1","p3"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.onSale != true`, `["p2"]`),
		p(`SELECT VALUE p.id FROM p WHERE NOT (p.onSale = true)`, `["p2"]`),
		p(`SELECT VALUE p.id FROM p WHERE ARRAY_CONTAINS(p.tags, "outdoor")`, `["p1","p3","p5"]`),
		p(`SELECT VALUE p.id FROM p WHERE ARRAY_LENGTH(p.tags) = 0`, `["p4"]`),
		p(`SELECT VALUE p.id FROM p WHERE EXISTS(SELECT VALUE s FROM s IN p.sizes WHERE s.qty > 2)`, `["p1"]`),
		p(`SELECT VALUE p.id FROM p WHERE ARRAY_CONTAINS(p.sizes, {key: "l"}, true)`, `["p2"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.category IN (@a, @b)`, `["p1","p2","p3"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.name = @name`, `["p5"]`),
		p(`SELECT VALUE p.id FROM p WHERE CONTAINS(p.name, "tr", true)`, `["p1","p3"]`),
		p(`SELECT VALUE p.id FROM p WHERE UPPER(p.category) = "BIKES"`, `["p4","p5"]`),
		p(`SELECT VALUE p.id FROM p WHERE RegexMatch(p.name, "^T.*t$")`, `["p1"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.quantity % 2 = 0`, `["p1","p2","p3","p4"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.quantity * p.price > 400`, `["p1","p3"]`),
		p(`SELECT VALUE {id: p.id, total: p.quantity * p.price} FROM p WHERE p.category = "bikes"`, `[{"id":"p4"},{"id":"p5"}]`),
		p(`SELECT VALUE p.id FROM p WHERE p["category"] = "shorts"`, `["p3"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.tags[0] = "winter"`, `["p1","p2"]`),
		p(`SELECT VALUE s.key FROM p JOIN s IN p.sizes WHERE s.qty > 0`, `["s","m"]`),
		p(`SELECT VALUE p.id FROM p WHERE p.price BETWEEN 30 AND 100`, `["p2","p3"]`),
		p(`SELECT VALUE p.id FROM p WHERE IIF(IS_NUMBER(p.price), p.price, 0) < 50`, `["p3","p4","p5"]`),
		p(`SELECT VALUE p.id FROM p WHERE (p.price ?? 0) < 50`, `["p3","p5"]`),
		// ORDER BY across types (undefined < null < false < true < numbers < strings).
		m(`SELECT VALUE m.id FROM m ORDER BY m.v`, `["e","d","f","c","g","b","h","a","i","j"]`),
		m(`SELECT VALUE m.id FROM m ORDER BY m.v DESC`, `["j","i","a","h","b","g","c","f","d","e"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v > 0`, `["b"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v > "B"`, `["a"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v = true`, `["c"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v`, `["c"]`),
		m(`SELECT VALUE m.id FROM m WHERE NOT m.v`, `["f"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v != 2`, `["g"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v = [1,2]`, `["i"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v = {x: 1}`, `["j"]`),
		m(`SELECT VALUE m.id FROM m WHERE IS_DEFINED(m.v) = false`, `["e"]`),
		m(`SELECT VALUE m.id FROM m WHERE (m.v ?? "none") = "none"`, `["e"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v ?? "none" = "none"`, `["c","e"]`),
		m(`SELECT m.id, m.v FROM m WHERE m.id IN ("d", "e")`, `[{"id":"d","v":null},{"id":"e"}]`),
		m(`SELECT VALUE m.v FROM m WHERE m.id IN ("d", "e")`, `[null]`),
		m(`SELECT VALUE MIN(m.v) FROM m WHERE IS_PRIMITIVE(m.v)`, `[null]`),
		m(`SELECT VALUE MAX(m.v) FROM m WHERE IS_PRIMITIVE(m.v)`, `["apple"]`),
		m(`SELECT VALUE COUNT(m.v) FROM m`, `[9]`),
		m(`SELECT VALUE m.id FROM m WHERE IS_STRING(m.v) ORDER BY m.v`, `["h","a"]`),
		m(`SELECT VALUE m.id FROM m WHERE IS_BOOL(m.v) ORDER BY m.v DESC`, `["c","f"]`),
		m(`SELECT DISTINCT VALUE IS_NUMBER(m.v) FROM m`, `[false,true]`),
		m(`SELECT VALUE m.v.x FROM m`, `[1]`),
		m(`SELECT VALUE m.v[1] FROM m`, `[2]`),
		m(`SELECT VALUE m.v + 1 FROM m`, `[3,0]`),
		m(`SELECT VALUE m.v || "!" FROM m`, `["apple!","Apple!"]`),
		// Parameters of every JSON type.
		m(`SELECT VALUE m.id FROM m WHERE m.v = @s`, `["a"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v = @arr`, `["i"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v = @nul`, `["d"]`),
		m(`SELECT VALUE m.id FROM m WHERE m.v = @intval`, `["b"]`),
	}
}

func errorCases() []caseRow {
	x := func(q, wantErr string) caseRow { return caseRow{data: families, q: q, wantErr: wantErr} }
	return []caseRow{
		x(`SELECT * FORM c`, "Syntax error, incorrect syntax near 'FORM'."),
		x(`SELECT`, "Syntax error, unexpected end-of-file."),
		x(`SELECT c.id FROM c WHERE`, "unexpected end-of-file"),
		x(`SELECT c.id FROM c WHERE c.id = 'x`, "unclosed quotation mark"),
		x(`SELECT c.id FROM c WHERE c.id == 'x'`, "incorrect syntax near '='"),
		x(`SELECT c.id FROM c WHERE c.id = #`, "invalid token '#'"),
		x(`SELECT c.id FROM c WHERE x.id = 1`, "Identifier 'x' could not be resolved."),
		x(`SELECT VALUE f.id FROM Families AS f WHERE Families.id = "x"`, "Identifier 'Families' could not be resolved."),
		x(`SELECT NOSUCHFN(1)`, "'NOSUCHFN' is not a recognized built-in function name."),
		x(`SELECT ABS(1, 2)`, "The ABS function requires 1 argument(s)."),
		x(`SELECT udf.tax(1)`, "not supported"),
		x(`SELECT * FROM c JOIN t IN c.children`, "'SELECT *' is only valid with a single input set."),
		x(`SELECT *`, "'SELECT *' is not valid if FROM clause is omitted."),
		x(`SELECT c.id FROM c WHERE COUNT(1) > 1`, "not allowed here"),
		x(`SELECT COUNT(MAX(c.x)) FROM c`, "cannot be nested"),
		x(`SELECT c.id, c.id FROM c`, "Duplicate alias 'id'"),
		x(`SELECT TOP -1 c.id FROM c`, "incorrect syntax near '-'"),
		x(`SELECT TOP 1.5 c.id FROM c`, "incorrect syntax near '1.5'"),
		x(`SELECT c.id FROM c OFFSET 1`, "unexpected end-of-file"),
		x(`SELECT c.id FROM c ORDER BY c.id GROUP BY c.id`, "incorrect syntax near 'GROUP'"),
		x(`SELECT c.id FROM c GROUP BY c.id ORDER BY c.id`, "ORDER BY is not supported together with GROUP BY"),
		x(`SELECT c.id FROM (SELECT * FROM c) c`, "Subqueries in the FROM clause are not supported"),
		x(`SELECT VALUE @missing FROM c`, "The parameter '@missing' is referenced"),
		x(`SELECT TOP @s VALUE 1`, "The TOP value must be a non-negative integer"),
		x(`SELECT c.id FROM c ORDER BY c.a, c.b`, MissingCompositeIndexMsg),
		x(`SELECT c.id FROM c JOIN a IN c.x JOIN b IN c.x JOIN d IN c.x JOIN e IN c.x JOIN f IN c.x JOIN g IN c.x JOIN h IN c.x JOIN i IN c.x JOIN j IN c.x JOIN k IN c.x JOIN l IN c.x`, "more than 10 JOINs"),
		x(`SELECT VALUE 1 AS x`, "incorrect syntax near 'AS'"),
		x(`SELECT c.select FROM c`, ""),
		x(`SELECT VALUE {a: 1, }`, "incorrect syntax near '}'"),
		x(`SELECT VALUE [1, 2`, "unexpected end-of-file"),
		x(`SELECT VALUE c.id FROM c WHERE c.id NOT`, "incorrect syntax near 'NOT'"),
		x(`SELECT c.id AS FROM FROM c`, "incorrect syntax near 'FROM'"),
		x(`SELECT MAX(c.x) AS top FROM c`, "incorrect syntax near 'top'"),
	}
}

var caseParams = map[string]any{
	"@p": 42, "@n": 1, "@a": "coats", "@b": "shorts", "@name": "Helmet", "@s": "apple",
	"@arr": []any{1.0, 2.0}, "@nul": nil, "@intval": int64(2),
}

func TestExecute_Cases(t *testing.T) {
	var all []caseRow
	all = append(all, valueCases()...)
	all = append(all, clauseCases()...)
	all = append(all, errorCases()...)
	if len(all) < 300 {
		t.Errorf("only %d cases; the issue asks for at least 300", len(all))
	}
	now := time.Date(2024, 5, 6, 7, 8, 9, 123456700, time.UTC)
	srcs := map[string]sliceSource{}
	for _, tt := range all {
		name := tt.name
		if name == "" {
			name = strings.Join(strings.Fields(tt.q), " ")
		}
		t.Run(name, func(t *testing.T) {
			src, ok := srcs[tt.data]
			if !ok {
				src = docs(t, tt.data)
				srcs[tt.data] = src
			}
			params := tt.params
			if params == nil {
				params = caseParams
			}
			q, err := Parse(tt.q)
			var res *Result
			if err == nil {
				res, err = Execute(q, src, Options{Params: params, Now: now})
			}
			if tt.want == "" { // an error is expected
				if err == nil {
					if tt.wantErr == "" {
						return // parses and runs: the case only checks that it is accepted
					}
					t.Fatalf("want error containing %q, got items %s", tt.wantErr, canon(t, res.Items))
				}
				if tt.wantErr == "" {
					var e *Error
					if !errors.As(err, &e) {
						t.Fatalf("want *Error, got %T %v", err, err)
					}
					return
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %q, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got, want := canon(t, res.Items), canonJSON(t, tt.want); got != want {
				t.Errorf("items\n got  %s\n want %s", got, want)
			}
			// The same documents given as stored JSON (as the engine gives them): decoded only as
			// far as the query reads them, stored documents sent as stored.
			rawRes, err := Execute(q, rawDocs(t, tt.data), Options{Params: params, Now: now})
			if err != nil {
				t.Fatalf("from stored JSON: %v", err)
			}
			if got, want := canon(t, sent(rawRes)), canonJSON(t, tt.want); got != want {
				t.Errorf("from stored JSON: items\n got  %s\n want %s", got, want)
			}
			if !reflect.DeepEqual(rawRes.Facts, res.Facts) {
				t.Errorf("from stored JSON: facts\n got  %+v\n want %+v", rawRes.Facts, res.Facts)
			}
		})
	}
}

// TestExecute_StoredItems: every item that is a stored document returned whole is named in
// Result.Stored, also when a grouped level projects it after other documents were visited.
func TestExecute_StoredItems(t *testing.T) {
	for _, text := range []string{
		`SELECT * FROM c`,
		`SELECT VALUE c FROM c WHERE c.v >= 0 ORDER BY c.v DESC`,
		`SELECT TOP 2 * FROM c ORDER BY c.id`,
		`SELECT VALUE c FROM c GROUP BY c`,
	} {
		q, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Execute(q, rawDocs(t, `[{"id":"a","v":1},{"id":"b","v":2},{"id":"c","v":3}]`), Options{})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if len(res.Items) == 0 || len(res.Stored) != len(res.Items) {
			t.Fatalf("%s: %d items, %d stored", text, len(res.Items), len(res.Stored))
		}
		for i, d := range res.Stored {
			if d == nil {
				t.Errorf("%s: item %d (%v) is not named as stored", text, i, res.Items[i])
			}
		}
	}
}
