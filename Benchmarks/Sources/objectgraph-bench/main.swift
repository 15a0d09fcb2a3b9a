print("objectgraph-bench: not written yet")
