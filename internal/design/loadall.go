package design

import "fmt"

// LoadAll loads every design file of one run. Designs that load are returned in order; every
// problem is returned as its own error (a design's own errors as Load gives them, and a name used by
// two designs, which one run cannot tell apart in its reports and baselines).
func LoadAll(paths []string) ([]*Design, []error) {
	var out []*Design
	var errs []error
	names := map[string]string{}
	for _, p := range paths {
		d, err := Load(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := names[d.Name]; dup {
			errs = append(errs, fmt.Errorf("%s: design name %q is also the name of %s; names must differ in one run", p, d.Name, prev))
			continue
		}
		names[d.Name] = p
		out = append(out, d)
	}
	return out, errs
}
