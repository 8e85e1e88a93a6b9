package enginetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// testSearch exercises full-text and vector search as azcosmos v1.5.0 provisions and queries them:
// a container with a full-text policy, a vector embedding policy, and full-text and vector
// indexes, read back as created; FullTextContains/All/Any filters; ORDER BY RANK FullTextScore;
// ORDER BY VectorDistance; hybrid ORDER BY RANK RRF; and the service's refusals where a policy or
// index is missing.
func testSearch(ctx context.Context, t *testing.T, db *azcosmos.DatabaseClient) {
	pol := policy()
	pol.ExcludedPaths = []azcosmos.ExcludedPath{{Path: "/embedding/*"}}
	pol.FullTextIndexes = []azcosmos.FullTextIndex{{Path: "/text"}}
	pol.VectorIndexes = []azcosmos.VectorIndex{{Path: "/embedding", Type: azcosmos.VectorIndexTypeFlat}}
	props := azcosmos.ContainerProperties{ID: "search",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2},
		IndexingPolicy:         pol,
		FullTextPolicy:         &azcosmos.FullTextPolicy{DefaultLanguage: "en-US", FullTextPaths: []azcosmos.FullTextPath{{Path: "/text", Language: "en-US"}}},
		VectorEmbeddingPolicy: &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{{Path: "/embedding",
			DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionCosine, Dimensions: 3}}},
	}
	c := createContainer(ctx, t, db, props, 0)
	r, err := c.Read(ctx, nil)
	if err != nil {
		t.Fatalf("read container: %v", err)
	}
	got := r.ContainerProperties
	if got.FullTextPolicy == nil || len(got.FullTextPolicy.FullTextPaths) != 1 || got.FullTextPolicy.FullTextPaths[0].Path != "/text" {
		t.Errorf("full-text policy read back: %+v", got.FullTextPolicy)
	}
	if got.VectorEmbeddingPolicy == nil || len(got.VectorEmbeddingPolicy.VectorEmbeddings) != 1 ||
		got.VectorEmbeddingPolicy.VectorEmbeddings[0].Dimensions != 3 {
		t.Errorf("vector embedding policy read back: %+v", got.VectorEmbeddingPolicy)
	}
	if ip := got.IndexingPolicy; ip == nil || len(ip.FullTextIndexes) != 1 || len(ip.VectorIndexes) != 1 || ip.VectorIndexes[0].Type != azcosmos.VectorIndexTypeFlat {
		t.Errorf("indexes read back: %+v", got.IndexingPolicy)
	}

	docs := []struct {
		id, text string
		vec      []float64
	}{
		{"d1", "Red running shoes for trail running", []float64{1, 0, 0}},
		{"d2", "Blue running jacket, waterproof", []float64{0.9, 0.1, 0}},
		{"d3", "Waterproof hiking boots", []float64{0, 1, 0}},
		{"d4", "Trail map and compass", []float64{0, 0, 1}},
	}
	pk := azcosmos.NewPartitionKeyString("p")
	for _, d := range docs {
		b, _ := json.Marshal(map[string]any{"id": d.id, "pk": "p", "text": d.text, "embedding": d.vec})
		if _, err := c.CreateItem(ctx, pk, b, nil); err != nil {
			t.Fatalf("create %s: %v", d.id, err)
		}
	}
	ids := func(query string, params ...azcosmos.QueryParameter) ([]string, error) {
		pager := c.NewQueryItemsPager(query, pk, &azcosmos.QueryOptions{QueryParameters: params})
		var out []string
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return nil, err
			}
			for _, it := range page.Items {
				var m struct {
					ID string `json:"id"`
				}
				_ = json.Unmarshal(it, &m)
				out = append(out, m.ID)
			}
		}
		return out, nil
	}
	for _, tc := range []struct{ query, want string }{
		{"SELECT c.id FROM c WHERE FullTextContains(c.text, 'running')", "d1,d2"},
		{"SELECT c.id FROM c WHERE FullTextContainsAll(c.text, 'waterproof', 'boots')", "d3"},
		{"SELECT c.id FROM c WHERE FullTextContainsAny(c.text, 'compass', 'jacket')", "d2,d4"},
		// d1 says "running" twice in a short text: most relevant.
		{"SELECT TOP 2 c.id FROM c ORDER BY RANK FullTextScore(c.text, 'running')", "d1,d2"},
		{"SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.embedding, [1, 0, 0]) DESC", "d1,d2,d3"},
		// Text ranks d3 then d2 (waterproof); the vector ranks d2 first: d2 fuses best.
		{"SELECT TOP 2 c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, 'waterproof'), VectorDistance(c.embedding, [0.5, 0.5, 0]))", "d2,d3"},
	} {
		got, err := ids(tc.query)
		if err != nil {
			t.Errorf("%s: %v", tc.query, err)
			continue
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: %v, want %s", tc.query, got, tc.want)
		}
	}
	// Scores are values too.
	pager := c.NewQueryItemsPager("SELECT c.id, VectorDistance(c.embedding, @v) AS score FROM c WHERE c.id = 'd3'", pk,
		&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@v", Value: []float64{0, 2, 0}}}})
	page, err := pager.NextPage(ctx)
	if err != nil || len(page.Items) != 1 || !strings.Contains(string(page.Items[0]), `"score":1`) {
		t.Errorf("VectorDistance as a value: %v %v (want cosine similarity 1)", err, page.Items)
	}

	// The service's refusals.
	for _, q := range []string{
		"SELECT c.id FROM c WHERE FullTextContains(c.title, 'x')", // not in the full-text policy
		"SELECT c.id FROM c WHERE FullTextScore(c.text, 'x') > 1", // only in ORDER BY RANK
		"SELECT c.id FROM c ORDER BY RANK c.text",                 // RANK of a path
	} {
		_, err := ids(q)
		wantStatus(t, q, err, http.StatusBadRequest)
	}
	// A vector index on a path the vector policy does not name.
	bad := props
	bad.ID = "search-bad"
	badPol := *pol
	badPol.VectorIndexes = []azcosmos.VectorIndex{{Path: "/other", Type: azcosmos.VectorIndexTypeFlat}}
	bad.IndexingPolicy = &badPol
	_, err = db.CreateContainer(ctx, bad, nil)
	wantStatus(t, "a vector index outside the vector policy", err, http.StatusBadRequest)
	bad.ID, bad.IndexingPolicy = "search-bad2", pol
	bad.FullTextPolicy = nil
	_, err = db.CreateContainer(ctx, bad, nil)
	wantStatus(t, "a full-text index without a full-text policy", err, http.StatusBadRequest)
	_ = fmt.Sprint()
}
