package design

// App is the application that runs the design's access patterns.
type App struct {
	// SDK is the Azure Cosmos DB SDK the application uses: go, dotnet, java, python, javascript or
	// efcore (EF Core's provider, on the .NET SDK).
	// It decides how a query over more than one partition runs: the .NET, Java, Python and
	// JavaScript SDKs have a query engine (they fetch the query plan and merge ORDER BY, TOP,
	// OFFSET/LIMIT, aggregates, DISTINCT and GROUP BY from every partition key range); the Go SDK
	// does not, and the gateway refuses those shapes across partitions.
	SDK string `yaml:"sdk" json:"sdk"`
}

// The SDK names of app.sdk.
const (
	SDKGo         = "go"
	SDKDotNet     = "dotnet"
	SDKJava       = "java"
	SDKPython     = "python"
	SDKJavaScript = "javascript"
	// SDKEFCore is EF Core's Azure Cosmos DB provider, on the .NET SDK: it moves an equality on a
	// hierarchical-key prefix out of WHERE into the request's partition key (efcore #38598).
	SDKEFCore = "efcore"
)

// The ways an application sends a hierarchical-key prefix with a query (AccessPattern.PrefixIn).
const (
	PrefixOptions = "options"
	PrefixWhere   = "where"
	PrefixBoth    = "both"
)

// PrefixForms lists the values of prefixIn.
var PrefixForms = []string{PrefixOptions, PrefixWhere, PrefixBoth}

// SDKs lists the values of app.sdk.
var SDKs = []string{SDKGo, SDKDotNet, SDKJava, SDKPython, SDKJavaScript, SDKEFCore}

// SDKName is the design's app.sdk, "" when the design does not say.
func (d *Design) SDKName() string {
	if d == nil || d.App == nil {
		return ""
	}
	return d.App.SDK
}

// QueryEngine reports whether the application's SDK runs cross-partition queries with a client-side
// query engine. A design that names no SDK is judged as an application on one that does.
func (d *Design) QueryEngine() bool { return d.SDKName() != SDKGo }
