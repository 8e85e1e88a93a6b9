package importer

import (
	"strings"
	"testing"
)

func TestRUFiguresSkipRates(t *testing.T) {
	fs := ruFigures("Pattern #1: 500 RPS × 1 RU = 500 RU/s; a query costs 2-5 RUs")
	if len(fs) != 2 || fs[0].v != 1 || fs[1].v != 5 || !fs[1].rng {
		t.Fatalf("%+v", fs)
	}
	if id := patternID("#07"); id != "AP7" {
		t.Errorf("patternID(#07) = %q", id)
	}
	if refs := patternRefs("AP3 and Pattern #4, 模式 5"); len(refs) != 3 || refs[2].id != "AP5" {
		t.Errorf("refs %+v", refs)
	}
}

func TestJSONishReadsTheTranslatedTemplate(t *testing.T) {
	vals, err := parseJSONish(`[
  {
    “id”：“user_123”，
    "partitionKey": "user_123",
    “类型”：“用户”，
    'amount': 99.99, // a comment
    "items": [1, 2, ...],
  },
]`)
	if err != nil || len(vals) != 1 {
		t.Fatalf("%v %v", vals, err)
	}
	l := vals[0].(*list)
	o := l.items[0].(*object)
	if strings.Join(o.keys, ",") != "id,partitionKey,类型,amount,items" || o.m["id"] != "user_123" {
		t.Fatalf("keys %v, id %v", o.keys, o.m["id"])
	}
	if n := o.m["amount"].(number); n.f != 99.99 || n.decimals() != 2 {
		t.Errorf("amount %+v", n)
	}
	if items := o.m["items"].(*list); len(items.items) != 2 || !items.elided {
		t.Errorf("items %+v", items)
	}
	tr := map[string]string{}
	if got := translate(o, tr).(*object); got.keys[2] != "type" || tr["类型"] != "type" {
		t.Errorf("translated %v %v", got.keys, tr)
	}
	if _, err := parseJSONish("{\"a\": "); err == nil {
		t.Error("a truncated object must not parse")
	}
}

func TestIDPrefix(t *testing.T) {
	for ids, want := range map[string]string{
		"user_1001,user_1002":         "user_",
		"ORD-2024-0001,ORD-2024-0002": "ORD-2024-",
		"sess_9f1,sess_9f2":           "sess_",
		"SKU-100":                     "SKU-",
		"profile":                     "",
	} {
		if got := idPrefix(strings.Split(ids, ",")); got != want {
			t.Errorf("idPrefix(%s) = %q, want %q", ids, got, want)
		}
	}
}
