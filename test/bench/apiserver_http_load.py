#!/usr/bin/env python3
"""HTTP load on a kube-apiserver-lite binary: server CPU per request.

Starts the given kube-apiserver-lite binary on a free loopback port, then
CONNECTIONS client threads (keep-alive, Python's http.client) each create
and bind PODS pods (two requests per pod) while one watch stream on pods
(?watch=1) reads every event. Prints the server process's CPU time (from
/proc/PID/stat: user + system) per request, and requests/s. The client is
Python sharing the same cores, so requests/s is client-bound; the server's
CPU per request is the figure to compare between server builds.

Usage: apiserver_http_load.py BINARY [--connections 4] [--pods 2000]
"""
import argparse
import http.client
import json
import os
import subprocess
import threading
import time


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


def pod(name):
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "load"}},
        "spec": {"containers": [{"name": "c", "image": "pause",
                                 "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]},
    })


def worker(port, index, pods, errors):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    for i in range(pods):
        name = f"w{index}-{i}"
        conn.request("POST", "/api/v1/namespaces/default/pods", pod(name), headers)
        r = conn.getresponse()
        r.read()
        if r.status != 201:
            errors.append(r.status)
        binding = json.dumps({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name},
                              "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"}})
        conn.request("POST", f"/api/v1/namespaces/default/pods/{name}/binding", binding, headers)
        r = conn.getresponse()
        r.read()
        if r.status != 201:
            errors.append(r.status)
    conn.close()


def watcher(port, expected, done):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", "/api/v1/pods?watch=1")
    r = conn.getresponse()
    seen = 0
    while seen < expected:
        line = r.readline()
        if not line:
            break
        seen += 1
    done.append(seen)
    conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--pods", type=int, default=2000, help="pods per connection")
    args = ap.parse_args()

    proc = subprocess.Popen([args.binary, "--port=0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        port = int(line.strip().rsplit(":", 1)[1])
        total = args.connections * args.pods
        done, errors = [], []
        w = threading.Thread(target=watcher, args=(port, 2 * total, done))
        w.start()
        time.sleep(0.2)  # the watch is registered before the load starts
        cpu0, t0 = cpu_seconds(proc.pid), time.monotonic()
        threads = [threading.Thread(target=worker, args=(port, i, args.pods, errors))
                   for i in range(args.connections)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        w.join()
        cpu1, t1 = cpu_seconds(proc.pid), time.monotonic()
        requests = 2 * total
        print(f"{args.binary}: {requests} requests on {args.connections} connections, "
              f"{done[0] if done else 0} watch events, {len(errors)} errors; "
              f"server CPU {1e6 * (cpu1 - cpu0) / requests:.1f} us/request, "
              f"{requests / (t1 - t0):.0f} requests/s, load {os.getloadavg()[0]:.1f}")
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
