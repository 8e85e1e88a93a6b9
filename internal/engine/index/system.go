package index

// SystemProperties are the properties the service adds to every stored item. The engine adds and
// strips them, and counts their index terms like any other property's (Compiled.Terms runs over the
// stored body); `validate plan` counts the same terms from this list. It is the one copy of the list.
var SystemProperties = []string{"_rid", "_self", "_etag", "_attachments", "_ts"}
