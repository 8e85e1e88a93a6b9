# Cross-partition queries through Debian's python3-azure-cosmos (3.1.1), a client with its own query
# pipeline that learns the plan from the gateway's 400/1004 (execution_dispatcher.py). Run by
# TestPythonSDKCrossPartition with COSMOS_ENDPOINT and COSMOS_KEY set; prints one JSON object.
import json
import os
import sys

import azure.cosmos.cosmos_client as cosmos_client

client = cosmos_client.CosmosClient(os.environ["COSMOS_ENDPOINT"], {"masterKey": os.environ["COSMOS_KEY"]})
client.CreateDatabase({"id": "pysdk"})
client.CreateContainer("dbs/pysdk", {"id": "items", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}},
                              {"offerThroughput": 24000})
COLL = "dbs/pysdk/colls/items"
docs = []
for i in range(60):
    d = {"id": "d%02d" % i, "pk": "p%d" % (i % 13), "n": (i * 7) % 23, "cat": "c%d" % (i % 3)}
    client.CreateItem(COLL, d)
    docs.append(d)

opts = {"enableCrossPartitionQuery": True, "maxItemCount": 7}


def run(q):
    return list(client.QueryItems(COLL, q, opts))


out = {
    "ranges": len(list(client._ReadPartitionKeyRanges(COLL))),
    "orderby": [d["id"] for d in run("SELECT * FROM c ORDER BY c.id DESC")],
    "orderby_n": [d["n"] for d in run("SELECT c.id, c.n FROM c ORDER BY c.n")],
    "top": [d["id"] for d in run("SELECT TOP 5 * FROM c ORDER BY c.id")],
    "count": run("SELECT VALUE COUNT(1) FROM c"),
    "sum": run("SELECT VALUE SUM(c.n) FROM c"),
    "min": run("SELECT VALUE MIN(c.n) FROM c"),
    "max": run("SELECT VALUE MAX(c.id) FROM c"),
    "avg": run("SELECT VALUE AVG(c.n) FROM c"),
    "count_where": run("SELECT VALUE COUNT(1) FROM c WHERE c.cat = 'c1'"),
}
json.dump(out, sys.stdout)
