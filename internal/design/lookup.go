package design

// Container returns the container with the given name, or nil.
func (d *Design) Container(name string) *Container {
	for i := range d.Containers {
		if d.Containers[i].Name == name {
			return &d.Containers[i]
		}
	}
	return nil
}

// DocType returns the document type with the given name, or nil.
func (c *Container) DocType(name string) *DocType {
	for i := range c.Documents {
		if c.Documents[i].Type == name {
			return &c.Documents[i]
		}
	}
	return nil
}

// Pattern returns the access pattern with the given id, or nil.
func (d *Design) Pattern(id string) *AccessPattern {
	for i := range d.AccessPatterns {
		if d.AccessPatterns[i].ID == id {
			return &d.AccessPatterns[i]
		}
	}
	return nil
}

// Generates reports whether fs generates the property path p (property names from the document
// root, "[]" for an array element). A constant or oneOf value may hold anything below it.
func (fs Fields) Generates(p []string) bool {
	var f *Field
	for _, seg := range p {
		switch {
		case f == nil:
			g, ok := fs.Lookup(seg)
			if !ok {
				return false
			}
			f = g
		case f.Const != nil || f.OneOf != nil:
			return true
		case seg == "[]":
			if f.Array == nil || f.Of == nil {
				return false
			}
			f = f.Of
		case len(f.Object) > 0:
			g, ok := f.Object.Lookup(seg)
			if !ok {
				return false
			}
			f = g
		default:
			return false
		}
	}
	return true
}
