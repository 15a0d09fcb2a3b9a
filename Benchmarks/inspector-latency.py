#!/usr/bin/env python3
"""Inspector latency: from the POST of a form field to the server-sent event on
/contexts/events that shows it (issue 7: "within a second"). Starts `invoices serve` on a
temporary database (demo data), opens a form, and times 30 changes.

Usage: python3 Benchmarks/inspector-latency.py PATH/TO/invoices   (make bench-inspector)
"""
import os, subprocess, sys, tempfile
folder = tempfile.mkdtemp(prefix="inspector-latency-")
server = subprocess.Popen([sys.argv[1], "serve", "--db", os.path.join(folder, "i.sqlite"), "--port", "8099"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
import time as _t
for _ in range(200):
    try:
        import urllib.request; urllib.request.urlopen("http://127.0.0.1:8099/clients", timeout=1); break
    except Exception: _t.sleep(0.1)
try:
    import http.client, re, socket, threading, time, urllib.parse, statistics
    H, P = "127.0.0.1", 8099
    def req(method, path, body=None, cookie=None):
        c = http.client.HTTPConnection(H, P, timeout=10)
        headers = {"Cookie": cookie} if cookie else {}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urllib.parse.urlencode(body)
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse(); data = r.read().decode(); c.close()
        return r.status, dict(r.getheaders()), data
    s, h, _ = req("GET", "/clients/1/edit")
    cookie = h.get("Set-Cookie", "").split(";")[0]
    form = h["Location"]
    s, h, page = req("GET", form, cookie=cookie)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    sock = socket.create_connection((H, P))
    sock.sendall(b"GET /contexts/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    buf = b""; lock = threading.Lock()
    def reader():
        global buf
        while True:
            d = sock.recv(65536)
            if not d: break
            with lock: buf += d
    threading.Thread(target=reader, daemon=True).start()
    time.sleep(0.5)
    lat = []
    for i in range(30):
        name = "Live%04d" % i
        t0 = time.monotonic()
        req("POST", form, {"csrf": csrf, "name": name}, cookie=cookie)
        while True:
            with lock:
                if name.encode() in buf: break
            if time.monotonic() - t0 > 5: break
            time.sleep(0.001)
        lat.append((time.monotonic() - t0) * 1000)
        time.sleep(0.2)
    lat.sort()
    print("SSE: POST of a form field -> event on /contexts/events: median %.0f ms, max %.0f ms over %d changes" % (statistics.median(lat), lat[-1], len(lat)))
finally:
    server.terminate(); server.wait()
