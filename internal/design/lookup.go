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
