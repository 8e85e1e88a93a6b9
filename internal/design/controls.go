package design

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// checkControls holds every string of the design to BadRune (text.go): an ANSI or OSC escape,
// a BEL or a C1 control in a name, id, type or description would reach the terminal and the text
// and Markdown reports as it is (they can rewrite the screen, retitle the window, hide a line).
// Tabs and line breaks are allowed where a value may span lines (descriptions, queries); nowhere
// else does the format need a control character.
func (v *validator) checkControls() {
	var walk func(path string, x reflect.Value)
	walk = func(path string, x reflect.Value) {
		switch x.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !x.IsNil() {
				walk(path, x.Elem())
			}
		case reflect.String:
			if _, what, bad := BadRune(x.String(), multiLineFields[lastSegment(path)]); bad {
				v.errf(path, "contains %s; remove it (a name or value is one line of visible text: it reaches the terminal and the reports as it stands)", what)
			}
		case reflect.Struct:
			t := x.Type()
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if !f.IsExported() || name == "-" {
					continue
				}
				if name == "" {
					name = strings.ToLower(f.Name[:1]) + f.Name[1:]
				}
				walk(joinPath(path, name), x.Field(i))
			}
		case reflect.Slice, reflect.Array:
			for i := range x.Len() {
				walk(fmt.Sprintf("%s[%d]", path, i), x.Index(i))
			}
		case reflect.Map:
			keys := x.MapKeys()
			sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
			for _, k := range keys {
				ks := fmt.Sprint(k.Interface())
				if _, what, bad := BadRune(ks, false); bad {
					v.errf(path, "has a key containing %s; remove it", what)
				}
				walk(joinPath(path, ks), x.MapIndex(k))
			}
		}
	}
	walk("", reflect.ValueOf(v.d))
}

// lastSegment is the field name a path ends with ("accessPatterns[2].query" → "query").
func lastSegment(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		path = path[i+1:]
	}
	if i := strings.IndexByte(path, '['); i >= 0 {
		path = path[:i]
	}
	return path
}
