#!/usr/bin/env python3
"""Writes the seed corpora Fuzz/corpus/<target>/ from fixtures of Tests/HTTP1Tests and Tests/RESPTests,
and the upstream JSON seeds below.

The seeds are copied by hand from RequestFixtureTests.swift, MalformedRequestTests.swift,
ResponseParserTests.swift, ReplyFixtures.swift and MalformedReplyTests.swift (valid messages plus
a few malformed ones, so every branch has a starting point). File names are content hashes, so
re-running is idempotent.
Usage: python3 Fuzz/make-corpus.py   (from the repository root)
"""
import hashlib
import pathlib

REQUESTS = [
    "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
    "GET /a HTTP/1.1\r\nHost:example.com\r\nX-Spaced:   padded value \t \r\nX-Empty:\r\nX-Inner: a  b\r\n\r\n",
    "HEAD /index.html HTTP/1.1\r\nHost: h\r\n\r\n",
    "POST /items HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"id\": \"a-1\"}",
    "POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
    "5;name=value\r\nhello\r\n6 ; quoted=\"a \\\" b\" ; flag\r\n world\r\nA\r\n0123456789\r\n"
    "0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n",
    "PUT /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: CHUNKED\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    "GET /first HTTP/1.1\r\nHost: h\r\n\r\nPOST /second HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc",
    "GET /old HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade, Close\r\n\r\n",
    "PUT /doc HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok",
    "GET http://example.com:8080/a/b?x=1&y HTTP/1.1\r\nHost: example.com:8080\r\n\r\n"
    "GET HTTPS://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n",
    "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
    "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    "GET /search?q=swift%20lang&page=2 HTTP/1.1\r\nHost: h\r\n\r\nGET /p? HTTP/1.1\r\nHost: h\r\n\r\n",
    "\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3, 3\r\n\r\nxyz",
    "GET /q HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nbodyPOST /e HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n",
    # malformed: smuggling-shaped framing, folding, bare LF
    "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n",
    "GET / HTTP/1.1\nHost: h\n\n",
    # Accept-Encoding shapes (negotiated on every parsed head): q-values, `*`, refusals, several
    # lines, malformed weights, an empty field
    "GET /products/p1 HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip;q=0.5, identity;q=1.000, *;q=0\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: h\r\nAccept-Encoding: identity;q=0\r\nAccept-Encoding:\tX-GZIP ; Q=0.001 ,\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: h\r\nAccept-Encoding: gzip;q=1.001, br;q=0.5555, *;q = 1, gzip;level=1\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: h\r\nAccept-Encoding:\r\n\r\n",
]

RESPONSES = [
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nwiki\r\n5\r\npedia\r\n0\r\nExpires: never\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end",
    "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno",
    "HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n",
    "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n",
    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\na",
    "HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\nHTTP/1.1 299\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
    "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
]

CHUNKED = [
    "5;name=value\r\nhello\r\n6 ; quoted=\"a \\\" b\" ; flag\r\n world\r\nA\r\n0123456789\r\n"
    "0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n",
    "3\r\nabc\r\n0\r\n\r\n",
    "4;x=y\r\nwiki\r\n5\r\npedia\r\n0\r\nExpires: never\r\n\r\n",
    "0\r\n\r\n",
    "000000000000000001\r\nx\r\n0\r\n\r\n",
    "1;a=\"\\\"\";b=c\r\nz\r\n0;last\r\nT: v\r\n\r\nGET / HTTP/1.1\r\n",
    "ffffffffffffffff\r\n",
    "2\r\nab\r\n",
]

REPLIES = [
    "+OK\r\n-ERR unknown command 'FOO'\r\n:1000\r\n:-9223372036854775808\r\n",
    "$5\r\nhello\r\n$0\r\n\r\n$-1\r\n$8\r\nab\r\n\r\ncd\r\n",
    "*2\r\n*3\r\n:1\r\n:2\r\n:3\r\n*2\r\n+Hello\r\n-World\r\n*0\r\n*-1\r\n",
    "*4\r\n:1\r\n+two\r\n$-1\r\n-ERR x\r\n*1\r\n*2\r\n*1\r\n*0\r\n*-1\r\n",
    "_\r\n#t\r\n#f\r\n,1.23\r\n,-5.5e-3\r\n,inf\r\n,-inf\r\n,nan\r\n(3492890328409238509324850943850943825024385\r\n",
    "!21\r\nSYNTAX invalid syntax\r\n=15\r\ntxt:Some string\r\n=4\r\nmkd:\r\n",
    "%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n~3\r\n+orange\r\n+apple\r\n#t\r\n%0\r\n~0\r\n",
    ">3\r\n$7\r\nmessage\r\n$4\r\nchan\r\n$5\r\nhello\r\n:1\r\n",
    "|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.1923\r\n$1\r\nb\r\n,0.0012\r\n*2\r\n:2039123\r\n:9543892\r\n",
    "*2\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n|0\r\n+OK\r\n",
    "%3\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n$7\r\nmodules\r\n*0\r\n",
    # malformed: bad lengths, missing CRLF, overflow, bare LF
    "$3\r\nfooX\r\n",
    "$-2\r\n",
    "%-1\r\n",
    ":9223372036854775808\r\n",
    "+OK\n",
    "=3\r\ntxt\r\n",
    ",0x10\r\n",
]


# Upstream bodies (the three shapes, escapes, unknown members, raw UTF-8 as latin-1 code points).
UPSTREAM_JSON = [
    '{"id":"p1","name":"Desk lamp","priceInCents":4999,"currency":"EUR"}',
    r'[{"id":"r1","rating":5,"text":"Tr\u00e8s bien \ud83d\udc4d"},{"id":"r2","rating":-1,"text":"Line one\nline \"two\"\t\\"}]',
    r'[{"id":"p2","name":"Chair","priceInCents":0,"currency":"USD","extra":[1.5e3,true,null,{"a":{}}]},'
    r'{"currency":"JPY","priceInCents":-9223372036854775808,"name":"\u0000","\u0069d":"p3"}]',
    " [ ] ",
    '{"id":"p\xc3\xa9\xf0\x9f\x98\x80","name":"x","priceInCents":1,"currency":"EUR","x":-0.0e-5}',
]


def write(target: str, seeds: list[str]) -> None:
    directory = pathlib.Path(__file__).resolve().parent / "corpus" / target
    directory.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        data = seed.encode("latin-1")
        (directory / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


write("request-parser", REQUESTS)
write("response-parser", RESPONSES)
write("chunked-decoder", CHUNKED)
write("resp-reply-parser", REPLIES)
write("upstream-json", UPSTREAM_JSON)
