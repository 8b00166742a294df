#!/usr/bin/env python3
"""Prints N distinct TCP ports free on 127.0.0.1 now, one per line.

They are picked at random below the kernel's ephemeral range: a port the
kernel hands out for bind(0) or an outgoing connection (another control
plane's, a client's) never lands on one of them between this pick and the
caller's bind, which port 0 picks cannot promise. All are held open until
every one is chosen, so they are distinct.
"""
import random
import socket
import sys


def ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    low, high = 10000, ephemeral_low() - 1
    held = []
    try:
        for _ in range(n):
            for _attempt in range(1000):
                s = socket.socket()
                port = random.randint(low, high) if high > low else 0
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    s.close()
                    continue
                held.append(s)
                break
            else:
                sys.exit("free-ports: no free port found")
        for s in held:
            print(s.getsockname()[1])
    finally:
        for s in held:
            s.close()


if __name__ == "__main__":
    main()
