#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""`iolayers serve` against a saved tree (--root), on the host: what
Prometheus and a browser get, what a bad or hostile client gets, and that
no client holds the others' scrapes. The guest test (tests/vm/serve.sh)
scrapes the live module with Debian's prometheus.

Usage: check-serve.py READER FIXTURES
"""
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from prometheus_client.openmetrics import parser as om_parser
from prometheus_client import parser as text_parser

reader, fixtures = sys.argv[1], sys.argv[2]
failed = 0


def check(what, cond):
    global failed
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failed += 1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(root, *args):
    port = free_port()
    p = subprocess.Popen([reader, "serve", "--root", root,
                          "--web.listen-address", "127.0.0.1:%d" % port] + list(args),
                         stderr=subprocess.PIPE, text=True)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    return p, port


def get(port, path="/metrics", accept=None, method="GET"):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method=method)
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


def read_answer(sock, chunk=65536, nap=0):
    """An answer read to its end: its head, its body and its Content-Length."""
    got = b""
    while True:
        b = sock.recv(chunk)
        if not b:
            break
        got += b
        time.sleep(nap)
    head, _, body = got.partition(b"\r\n\r\n")
    clen = [l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
    return head, body, int(clen[0].split(b":")[1]) if clen else -1


def raw(port, data, wait=0.3):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(data)
    time.sleep(wait)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except socket.timeout:
        pass
    s.close()
    return out


root = os.path.join(fixtures, "6.1.0-57")
p, port = start(root, "--web.max-connections", "4", "--web.timeout", "2")

# Prometheus text by default, and what --prometheus prints plus the exporter's own.
st, ct, body = get(port)
r = subprocess.run([reader, "--root", root, "--prometheus"], capture_output=True, text=True)
cli = r.stdout
check("GET /metrics: 200, Prometheus text 0.0.4 (%d %s)" % (st, ct),
      st == 200 and ct.startswith("text/plain; version=0.0.4"))
check("the module's metrics are --prometheus's (%d bytes of them)" % len(cli),
      r.returncode == 0 and "iolayers_syscall_latency_seconds_bucket" in cli and
      body.startswith(cli) and len(body) > len(cli))
fams = {f.name: f for f in text_parser.text_string_to_metric_families(body)}
check("iolayers_up 1", fams["iolayers_up"].samples[0].value == 1)
check("iolayers_scrape_duration_seconds > 0",
      fams["iolayers_scrape_duration_seconds"].samples[0].value > 0)
r = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True,
                   text=True)
check("promtool check metrics: %s" % (r.stdout + r.stderr).strip()[:200], r.returncode == 0)

# OpenMetrics when Prometheus asks as it does; the text when a client takes anything.
prom_accept = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
               "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
st, ct, om = get(port, accept=prom_accept)
check("Prometheus's Accept: OpenMetrics (%s)" % ct,
      ct.startswith("application/openmetrics-text; version=1.0.0"))
try:
    n = len(list(om_parser.text_string_to_metric_families(om)))
    check("OpenMetrics parses strictly (%d families), # EOF last" % n,
          om.endswith("# EOF\n") and om.count("# EOF") == 1)
except Exception as e:  # noqa: BLE001 - the parser's error is the result
    check("OpenMetrics parses strictly: %s" % e, False)
for accept in ("*/*", "text/plain", "application/openmetrics-text;q=0,text/plain",
               "application/openmetrics-text;q=0.2,text/plain;q=0.5",
               "application/openmetrics-text;q=nan,text/plain",
               "application/openmetrics-text;q=-1,text/plain",
               "text/plain;" + "q=1;" * 1000):
    st, ct, _ = get(port, accept=accept)
    check("Accept %s: the text (%s)" % (accept, ct), ct.startswith("text/plain"))

# The index page, errors.
st, ct, page = get(port, "/")
check("/: 200 html linking /metrics", st == 200 and ct.startswith("text/html") and
      'href="/metrics"' in page)
check("/nothing: 404", get(port, "/nothing")[0] == 404)
check("/metrics?x=1: the metrics (a query is ignored)", get(port, "/metrics?x=1")[0] == 200)
check("POST: 405", get(port, method="POST")[0] == 405)
st, _, b = get(port, method="HEAD")
check("HEAD: 200, no body", st == 200 and b == "")
check("no HTTP version: 400", raw(port, b"GET /metrics\r\n\r\n").startswith(b"HTTP/1.1 400"))
check("a NUL in the head: 400", raw(port, b"GET /\x00 HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 400"))
check("an 8 KiB head: 431",
      raw(port, b"GET /" + b"a" * 9000, wait=0.5).startswith(b"HTTP/1.1 431"))
check("binary garbage: 400", raw(port, bytes(range(1, 256)) + b"\r\n\r\n").startswith(b"HTTP/1.1 400"))
# Pipelined: the first request's head alone is read (its Accept, not the next one's).
out = raw(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\n"
          b"Accept: application/openmetrics-text\r\n\r\n")
check("pipelined: one answer, to the first head (Prometheus text)",
      out.startswith(b"HTTP/1.1 200") and b"text/plain; version=0.0.4" in out.split(b"\r\n\r\n")[0]
      and out.count(b"HTTP/1.1 ") == 1)
check("a NUL after the head is not the head's: 200",
      raw(port, b"GET / HTTP/1.1\r\n\r\n\x00\x00").startswith(b"HTTP/1.1 200"))
# A client that keeps sending after its request still gets the whole answer (no reset).
s1 = socket.create_connection(("127.0.0.1", port), timeout=5)


def send_more(sock):
    try:
        sock.sendall(b"GET /metrics HTTP/1.1\r\n\r\n" + b"x" * 100000)
    except OSError:
        pass


sender = threading.Thread(target=send_more, args=(s1,))
sender.start()
head, rest, clen = read_answer(s1)
sender.join()
s1.close()
check("a client sending past its request gets all %d bytes of the answer (%d)" % (clen, len(rest)),
      len(rest) == clen)

# Three clients that send nothing, one that sends half a head, of four
# slots: a scrape waits for none of them (it gets the fifth when one
# times out, 2 s); at their timeout they are closed and counted.
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
half = socket.create_connection(("127.0.0.1", port))
half.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
time.sleep(0.2)
t = time.time()
st, _, _ = get(port)
took = time.time() - t
check("a scrape beside 4 silent clients in 4 slots: 200 once the oldest has had a second "
      "(%.2f s)" % took, st == 200 and took < 1.6)
idle2 = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
t = time.time()
st, _, _ = get(port)
check("a scrape beside 2 silent clients: at once (%.3f s)" % (time.time() - t),
      st == 200 and time.time() - t < 1)
time.sleep(2.5)
closed = all(s.recv(10) == b"" for s in idle + [half] + idle2)
check("silent clients closed at --web.timeout (or for a new client)", closed)
_, _, body = get(port)
fams = {f.name: f for f in text_parser.text_string_to_metric_families(body)}
to = fams["iolayers_exporter_connection_timeouts"].samples[0].value
check("and counted (iolayers_exporter_connection_timeouts_total %d >= 6)" % to, to >= 6)
# Clients that ask and do not read: their answers wait in the sockets
# (more than a loopback socket's buffers hold, with enough of them).
slow = []
for _ in range(3):
    c = socket.socket()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    c.connect(("127.0.0.1", port))
    c.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
    slow.append(c)
t = time.time()
st, _, _ = get(port)
check("a scrape beside clients that do not read: at once (%.3f s)" % (time.time() - t),
      st == 200 and time.time() - t < 1)
slow[0].settimeout(5)
head, rest, clen = read_answer(slow[0], 4096, 0.001)
check("a slow reader gets the whole answer at last (%d of %d bytes)" % (len(rest), clen),
      len(rest) == clen)
for c in slow:
    c.close()
p.terminate()
check("SIGTERM: exit 0", p.wait(timeout=5) == 0)

# Two slots, two clients silent for over a second: a scrape takes the
# slot of the older one alone; with a slot free, nobody is closed.
p, port = start(root, "--web.max-connections", "2", "--web.timeout", "30")
a = socket.create_connection(("127.0.0.1", port))
time.sleep(0.1)
b = socket.create_connection(("127.0.0.1", port))
time.sleep(1.2)
st, _, _ = get(port)
a.settimeout(0.5)
b.settimeout(0.5)
try:
    a_closed = a.recv(10) == b""
except socket.timeout:
    a_closed = False
try:
    b_closed = b.recv(10) == b""
except socket.timeout:
    b_closed = False
check("full: the scrape took the older silent client's slot, the other kept its own "
      "(closed: %s, %s)" % (a_closed, b_closed), st == 200 and a_closed and not b_closed)
_, _, body = get(port)
fams = {f.name: f for f in text_parser.text_string_to_metric_families(body)}
to = fams["iolayers_exporter_connection_timeouts"].samples[0].value
check("with a slot free no client was closed for the next scrape (timeouts %d == 1)" % to,
      to == 1)
a.close()
b.close()
p.terminate()
p.wait(timeout=5)

# No module: iolayers_up 0, still 200, said once on stderr.
p, port = start("/nonexistent-iolayers")
st, _, body = get(port)
get(port)
fams = {f.name: f for f in text_parser.text_string_to_metric_families(body)}
check("no module: 200 with iolayers_up 0",
      st == 200 and fams["iolayers_up"].samples[0].value == 0)
check("no module: the reader's build info", "iolayers_build_info" in fams)
p.terminate()
err = p.communicate(timeout=5)[1]
check("said once, not per scrape (%d lines)" % err.count("cannot read the module"),
      err.count("cannot read the module") == 1)

# Bad options: exit 2; an address in use: 1.
for args in (["--web.telemetry-path", "/a<b"], ["--web.max-connections", "0"],
             ["--web.timeout", "x"], ["--web.listen-address", "nocolon"],
             ["--web.listen-address", "127.0.0.1:http"],
             ["--web.listen-address", "127.0.0.1:70000"], ["extra"]):
    r = subprocess.run([reader, "serve"] + args, capture_output=True, text=True)
    check("serve %s: exit 2 (%d)" % (" ".join(args), r.returncode), r.returncode == 2)
# More clients than descriptors: refused at the start, not a failing poll() later.
r = subprocess.run(["sh", "-c", 'ulimit -n 64; exec "$0" serve --web.listen-address '
                    '127.0.0.1:%d --web.max-connections 1024' % free_port(), reader],
                   capture_output=True, text=True, timeout=10)
check("--web.max-connections beyond ulimit -n: exit 2 (%d: %s)" % (r.returncode, r.stderr.strip()),
      r.returncode == 2 and "ulimit -n" in r.stderr)
blocker = socket.socket()
blocker.bind(("127.0.0.1", 0))
blocker.listen(1)
r = subprocess.run([reader, "serve", "--web.listen-address",
                    "127.0.0.1:%d" % blocker.getsockname()[1]], capture_output=True, text=True)
check("an address in use: exit 1 (%d)" % r.returncode, r.returncode == 1)
blocker.close()
print("serve: %s" % ("all passed" if not failed else "%d failed" % failed))
sys.exit(1 if failed else 0)
