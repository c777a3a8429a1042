#!/usr/bin/env python3
"""Many clients asking for long listings at once (docs/fairness.md).

Usage: Benchmarks/list-flood.py TIMERD [TIMERS [CLIENTS [REQUESTS]]]
Starts TIMERD in a temporary directory, starts TIMERS one-step timers (default 3000), then opens
CLIENTS connections (default 200) that each send REQUESTS `timer.list` with `all` (default 3) at
once and read every reply, while one more client sends `daemon.ping` every 2 ms. Prints the bytes
received, the time, the ping latencies and timerd's peak resident memory (VmHWM).
"""
import os, selectors, socket, subprocess, sys, tempfile, threading, time

timerd = sys.argv[1]
timers, clients, requests = (int(a) for a in (sys.argv[2:] + ["3000", "200", "3"][len(sys.argv) - 2:])[:3])
directory = tempfile.mkdtemp(prefix="list-flood-")
path = directory + "/timerd.sock"
daemon = subprocess.Popen([timerd, "--socket", path, "--state-dir", directory + "/state"],
                          stderr=open(directory + "/timerd.log", "w"))
try:
    for _ in range(100):
        if os.path.exists(path): break
        time.sleep(0.05)
    setup = socket.socket(socket.AF_UNIX); setup.connect(path); replies = setup.makefile("rb")
    for first in range(0, timers, 50):
        batch = range(first, min(timers, first + 50))
        setup.sendall(b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"timer.start","params":{"durations":[3600]}}\n' % i for i in batch))
        for _ in batch: assert b'"result"' in replies.readline()
    latencies, done = [], threading.Event()
    def pinger():
        s = socket.socket(socket.AF_UNIX); s.connect(path); f = s.makefile("rb")
        while not done.is_set():
            started = time.perf_counter()
            s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}\n'); f.readline()
            latencies.append(time.perf_counter() - started); time.sleep(0.002)
    thread = threading.Thread(target=pinger); thread.start(); time.sleep(0.2)
    selector, owed, received, closed = selectors.DefaultSelector(), {}, 0, 0
    started = time.perf_counter()
    for _ in range(clients):
        s = socket.socket(socket.AF_UNIX); s.connect(path)
        s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"timer.list","params":{"all":true}}\n' * requests)
        s.setblocking(False); selector.register(s, selectors.EVENT_READ); owed[s] = requests
    while owed:
        for key, _ in selector.select(timeout=60):
            s = key.fileobj
            try: data = s.recv(1 << 20)
            except BlockingIOError: continue
            if not data: selector.unregister(s); del owed[s]; closed += 1; continue
            received += len(data); owed[s] -= data.count(b"\n")
            if owed[s] <= 0: selector.unregister(s); del owed[s]
    elapsed = time.perf_counter() - started
    done.set(); thread.join(); latencies.sort(); n = len(latencies)
    peak = [l.split()[1] for l in open("/proc/%d/status" % daemon.pid) if l.startswith("VmHWM")][0]
    print("%d clients x %d listings of %d timers: %.1f MB in %.2f s, %d closed early" % (clients, requests, timers, received / 1e6, elapsed, closed))
    print("ping: n=%d p50 %.2f ms p99 %.2f ms max %.2f ms" % (n, latencies[n // 2] * 1e3, latencies[int(n * 0.99)] * 1e3, latencies[-1] * 1e3))
    print("timerd VmHWM: %s kB" % peak)
finally:
    daemon.terminate(); daemon.wait()
