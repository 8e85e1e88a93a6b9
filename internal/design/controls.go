package design

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// checkControls refuses control characters in every string of the design: an ANSI or OSC escape,
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
			if r, ok := controlIn(x.String()); ok {
				v.errf(path, "contains the control character %U; remove it (control characters would reach the terminal and the reports)", r)
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
				if r, ok := controlIn(ks); ok {
					v.errf(path, "has a key containing the control character %U; remove it", r)
				}
				walk(joinPath(path, ks), x.MapIndex(k))
			}
		}
	}
	walk("", reflect.ValueOf(v.d))
}

// controlIn returns the first control character of s other than tab, line feed and carriage
// return: C0, DEL and C1.
func controlIn(s string) (rune, bool) {
	for _, r := range s {
		if r == '\t' || r == '\n' || r == '\r' {
			continue
		}
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return r, true
		}
	}
	return 0, false
}
