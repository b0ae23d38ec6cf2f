import HTTP1
import HTTPServer

/// Content negotiation for the routes whose answers are made per request (batches, `/metrics`):
/// their bodies are gzipped on the fly, on the request's loop, when the client accepts gzip.
struct ResponseCompression: Sendable {
    /// The loops' compressors, which the stored pages use too.
    let deflaters: LoopDeflaters
    /// Smaller bodies are sent identity (`GZIP_MIN_BYTES`, as for cached pages).
    let minBytes: Int

    /// Marks `response` as negotiated (`Vary: Accept-Encoding`, identity or not) and gzips its
    /// body when the request accepts gzip over identity and gzip makes it smaller.
    func negotiate(_ response: inout HTTPResponse, for request: HTTPRequest) {
        response.headers.add(name: "Vary", value: "Accept-Encoding")
        response.coding = .identity
        guard response.body.count >= minBytes, AcceptEncoding(request.headers).choose(gzipAvailable: true) == .gzip,
              let member = deflaters.gzipAnswer(response.body), member.count < response.body.count
        else { return }
        response.coding = .gzip(identityBytes: response.body.count)
        response.body = member[...]
        response.headers.add(name: "Content-Encoding", value: "gzip")
    }
}
