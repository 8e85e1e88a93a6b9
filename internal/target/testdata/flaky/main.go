// Command flaky is a misbehaving stand-in for an emulator, for the readiness tests of the emulator
// target: it prints the vNext emulator's ready lines before it listens, then answers 503 to the
// first data-plane requests, and advertises its in-container address like the real gateway does.
//
//	flaky -listen-delay 1s -unavailable 3
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	delay := flag.Duration("listen-delay", time.Second, "pause between the ready log lines and listening")
	unavailable := flag.Int("unavailable", 3, "how many list-databases requests answer 503 first")
	advertise := flag.String("advertise", "http://127.0.0.1:8081/", "endpoint the account metadata advertises")
	flag.Parse()

	// The lines the vNext emulator prints when it believes it is up, printed before anything listens.
	fmt.Println("PostgreSQL and pgcosmos extension are ready")
	fmt.Println("Started")
	time.Sleep(*delay)

	var lists atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"flaky","writableLocations":[{"name":"Local","databaseAccountEndpoint":%q}],`+
			`"readableLocations":[{"name":"Local","databaseAccountEndpoint":%q}],`+
			`"enableMultipleWriteLocations":false,"userConsistencyPolicy":{"defaultConsistencyLevel":"Session"}}`,
			*advertise, *advertise)
	})
	mux.HandleFunc("GET /dbs", func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "type%3Dmaster") {
			http.Error(w, `{"code":"Unauthorized","message":"no master key signature"}`, http.StatusUnauthorized)
			return
		}
		if lists.Add(1) <= int64(*unavailable) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"code":"ServiceUnavailable","message":"still starting"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"_rid":"","Databases":[],"_count":0}`)
	})
	mux.HandleFunc("GET /dbs/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-ms-request-charge", "1")
		w.Header().Set("x-ms-served-by", "flaky")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"code":"NotFound","message":"database %s does not exist"}`, r.PathValue("id"))
	})
	fmt.Println("listening on :8081")
	if err := http.ListenAndServe(":8081", mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
