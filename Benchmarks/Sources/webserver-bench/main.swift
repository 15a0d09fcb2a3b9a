print("webserver-bench: not written yet")
