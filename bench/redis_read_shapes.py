#!/usr/bin/env python3
"""Redis's CPU time per read for the shapes a shared-cache read can take, on one redis-server:
a plain GET of the page, the MGET of generation, page and lease, that MGET with a PTTL of the page
pipelined after it, and both inside MULTI/EXEC. Values as stored: 5,000 products, a generation
token and a page of 1,400 bytes each. Reads go 16 to a write (redis-benchmark's -P 16 depth);
Redis's CPU per read is its process's user + system time over the run divided by the reads.

    python3 bench/redis_read_shapes.py [--reads 192000] [--rounds 3]

Prints one line per shape and round, then each shape's median. Run by hand (not by make bench);
the client is this script, so it shares the two cores with Redis: compare shapes within a run.
"""
import argparse
import random
import socket
import statistics
import tempfile

from fleet import start_redis

PRODUCTS = 5000
DEPTH = 16


def command(*arguments):
    out = b"*%d\r\n" % len(arguments)
    for argument in arguments:
        value = argument if isinstance(argument, bytes) else argument.encode()
        out += b"$%d\r\n%s\r\n" % (len(value), value)
    return out


def keys(i):
    return f"pd:{{p{i}}}:gen", f"pd:{{p{i}}}:page", f"pd:{{p{i}}}:lease"


SHAPES = {
    "GET page": lambda g, p, l: command("GET", p),
    "MGET gen page lease": lambda g, p, l: command("MGET", g, p, l),
    "MGET page lease": lambda g, p, l: command("MGET", p, l),
    "MGET + PTTL": lambda g, p, l: command("MGET", g, p, l) + command("PTTL", p),
    "MULTI MGET PTTL EXEC": lambda g, p, l: command("MULTI") + command("MGET", g, p, l) + command("PTTL", p) + command("EXEC"),
}


def receive(connection, count):
    received = 0
    while received < count:
        chunk = connection.recv(1 << 20)
        if not chunk:
            raise RuntimeError("Redis closed the connection")
        received += len(chunk)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reads", type=int, default=192_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        redis, port = start_redis(work)
        try:
            connection = socket.create_connection(("127.0.0.1", port))
            page = b"tok0123456 " + b"x" * 1400
            fill = b"".join(command("SET", keys(i)[0], "tok0123456") + command("SET", keys(i)[1], page, "PX", "600000")
                            for i in range(PRODUCTS))
            connection.sendall(fill)
            receive(connection, 2 * PRODUCTS * len(b"+OK\r\n"))
            spent = {name: [] for name in SHAPES}
            for round_ in range(args.rounds):
                for name, shape in SHAPES.items():
                    # Every read of a shape answers the same number of bytes: learn it from one.
                    probe = socket.create_connection(("127.0.0.1", port))
                    probe.sendall(shape(*keys(0)) + command("PING"))
                    reply = b""
                    while not reply.endswith(b"+PONG\r\n"):
                        reply += probe.recv(1 << 16)
                    probe.close()
                    reply_bytes = len(reply) - len(b"+PONG\r\n")
                    reads = [shape(*keys(random.randrange(PRODUCTS))) for _ in range(args.reads)]
                    before = redis.cpu_seconds()
                    for start in range(0, len(reads), DEPTH):
                        batch = reads[start:start + DEPTH]
                        connection.sendall(b"".join(batch))
                        receive(connection, reply_bytes * len(batch))
                    us = (redis.cpu_seconds() - before) * 1e6 / len(reads)
                    spent[name].append(us)
                    print(f"round {round_}: {name:22s} {us:.2f} us of Redis CPU per read")
            for name, values in spent.items():
                print(f"{name:22s} median {statistics.median(values):.2f} us per read")
        finally:
            redis.stop()


if __name__ == "__main__":
    main()
