package design

// The JSON Schema for editors is generated from the types in this package and their doc comments.
//go:generate go run ./schemagen -src . -o ../../schema/design.schema.json
