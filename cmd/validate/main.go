// Command validate checks an Azure Cosmos DB NoSQL design against a real engine: it provisions the
// design's containers, seeds synthetic documents, runs every access pattern and reports the request
// charges against the designer's estimates.
package main

import (
	"os"
)

func main() {
	ctx, stop := notifyInterrupts(os.Stderr)
	code := Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
