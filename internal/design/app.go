package design

// App is the application that runs the design's access patterns.
type App struct {
	// SDK is the Azure Cosmos DB SDK the application uses: go, dotnet, java, python or javascript.
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
)

// SDKs lists the values of app.sdk.
var SDKs = []string{SDKGo, SDKDotNet, SDKJava, SDKPython, SDKJavaScript}

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
