#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Connections closed by RST before the server reads them (sockets.sh).

Usage: rstserver.py N
Stops itself (SIGSTOP) before its first connection, for the module to be
loaded with its pid; then, N times: connect to its own listener over
loopback, accept, close the client with SO_LINGER 0 (a RST), read the
accepted socket (ECONNRESET, after its close), and keep it open. It stops
again with the N sockets open, then closes them all and stops a last
time before it exits. Prints how many reads ended in ECONNRESET.
"""
import os
import signal
import socket
import struct
import sys

n = int(sys.argv[1])
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(128)
port = srv.getsockname()[1]
me = os.getpid()
os.kill(me, signal.SIGSTOP)
kept, resets = [], 0
for _ in range(n):
    c = socket.create_connection(("127.0.0.1", port))
    a, _ = srv.accept()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()
    try:
        a.recv(100)
    except ConnectionResetError:
        resets += 1
    kept.append(a)
print(f"resets {resets}", flush=True)
os.kill(me, signal.SIGSTOP)
for a in kept:
    a.close()
os.kill(me, signal.SIGSTOP)
