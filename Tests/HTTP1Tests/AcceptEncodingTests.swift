import Testing

@testable import HTTP1

/// One request shape: its Accept-Encoding field lines (nil: no field) and what negotiation picks
/// with the gzip variant on offer and without it.
struct NegotiationCase: Sendable, CustomTestStringConvertible {
    let lines: [String]?
    let withGzip: ContentCodingChoice
    let withoutGzip: ContentCodingChoice

    init(_ lines: [String]?, _ withGzip: ContentCodingChoice, _ withoutGzip: ContentCodingChoice) {
        self.lines = lines
        self.withGzip = withGzip
        self.withoutGzip = withoutGzip
    }

    var request: [UInt8] {
        let fields = (lines ?? []).map { "Accept-Encoding:\($0)\r\n" }.joined()
        return Array("GET /products/p1 HTTP/1.1\r\nHost: h\r\n\(fields)\r\n".utf8)
    }

    var testDescription: String { lines.map { $0.debugDescription } ?? "no field" }
}

let negotiationCases: [NegotiationCase] = [
    // absent, empty, plain lists
    .init(nil, .identity, .identity),
    .init([""], .identity, .identity),
    .init([" "], .identity, .identity),
    .init([" gzip"], .gzip, .identity),
    .init([" gzip, deflate, br"], .gzip, .identity),
    .init([" br, zstd, compress"], .identity, .identity),
    // case and the x-gzip alias
    .init([" GZIP"], .gzip, .identity),
    .init([" X-Gzip"], .gzip, .identity),
    .init([" gzip;Q=0.5"], .gzip, .identity),
    .init([" IDENTITY;q=0"], .notAcceptable, .notAcceptable),
    // q-values
    .init([" gzip;q=0"], .identity, .identity),
    .init([" gzip;q=0.000"], .identity, .identity),
    .init([" gzip;q=0.001"], .gzip, .identity),
    .init([" gzip;q=0.5"], .gzip, .identity),
    .init([" gzip;q=1"], .gzip, .identity),
    .init([" gzip;q=1.000"], .gzip, .identity),
    .init([" gzip;q=0.5, identity"], .identity, .identity),
    .init([" gzip;q=0.5, identity;q=0.5"], .gzip, .identity),
    .init([" gzip;q=0.9, identity;q=0.8"], .gzip, .identity),
    // refusing identity
    .init([" identity;q=0"], .notAcceptable, .notAcceptable),
    .init([" gzip, identity;q=0"], .gzip, .notAcceptable),
    .init([" gzip;q=0.001, identity;q=0"], .gzip, .notAcceptable),
    .init([" br, identity;q=0"], .notAcceptable, .notAcceptable),
    // the asterisk
    .init([" *"], .gzip, .identity),
    .init([" *;q=0"], .notAcceptable, .notAcceptable),
    .init([" *;q=0, identity"], .identity, .identity),
    .init([" *;q=0, gzip"], .gzip, .notAcceptable),
    .init([" identity;q=0, *;q=0"], .notAcceptable, .notAcceptable),
    .init([" gzip;q=0, *"], .identity, .identity),
    .init([" *;q=0.5, gzip;q=0.3"], .identity, .identity),
    .init([" br;q=1, *;q=0.2"], .gzip, .identity),
    // malformed elements are ignored, one by one
    .init([" gzip;q=2"], .identity, .identity),
    .init([" gzip;q=1.001"], .identity, .identity),
    .init([" gzip;q=0.5555"], .identity, .identity),
    .init([" gzip;q="], .identity, .identity),
    .init([" gzip;q=.5"], .identity, .identity),
    .init([" gzip;q=00"], .identity, .identity),
    .init([" gzip;q=-1"], .identity, .identity),
    .init([" gzip;q = 0.5"], .identity, .identity),
    .init([" gzip;"], .identity, .identity),
    .init([" gzip;level=1"], .identity, .identity),
    .init([" gzip;q=0.5;q=1"], .identity, .identity),
    .init([" gz ip"], .identity, .identity),
    .init([" \"gzip\""], .identity, .identity),
    .init([" identity;q=zero, gzip;q=0"], .identity, .identity),
    .init([" gzip;q=2, identity;q=0"], .notAcceptable, .notAcceptable),
    .init([" identity;q=0.x, gzip, identity;q=0"], .gzip, .notAcceptable),
    // whitespace and empty elements
    .init(["\t gzip ;  q=0.8 ,\t identity ; q=0.1 "], .gzip, .identity),
    .init([" gzip\t;\tq=0"], .identity, .identity),
    .init([" , ,gzip,,"], .gzip, .identity),
    // several field lines are one list
    .init([" identity;q=0", " gzip"], .gzip, .notAcceptable),
    .init([" br", " gzip;q=0.3"], .gzip, .identity),
    .init([" gzip", ""], .gzip, .identity),
    // a coding named twice: its first element counts
    .init([" gzip;q=0, gzip"], .identity, .identity),
    .init([" gzip", " gzip;q=0"], .gzip, .identity),
]

@Suite("Accept-Encoding negotiation")
struct AcceptEncodingTests {
    @Test("each shape, parsed from the bytes whole and byte by byte", arguments: negotiationCases)
    func negotiatesThroughTheParser(_ shape: NegotiationCase) throws {
        for feeding in [Feeding.whole, .byteByByte] {
            let requests = try parseRequests(feeding.pieces(of: shape.request))
            let head = try #require(requests.first).head
            let preferences = AcceptEncoding(head.headers)
            #expect(preferences.isPresent == (shape.lines != nil))
            #expect(preferences.choose(gzipAvailable: true) == shape.withGzip, "\(feeding)")
            #expect(preferences.choose(gzipAvailable: false) == shape.withoutGzip, "\(feeding)")
        }
    }

    @Test("qvalues: the grammar's forms in thousandths, nothing else")
    func qvalues() {
        let valid: [(String, Int)] = [
            ("0", 0), ("0.", 0), ("0.0", 0), ("0.5", 500), ("0.05", 50), ("0.125", 125), ("0.999", 999),
            ("1", 1000), ("1.", 1000), ("1.0", 1000), ("1.000", 1000),
        ]
        for (text, thousandths) in valid {
            #expect(AcceptEncoding.qvalue(Substring(text).utf8) == thousandths, "\(text)")
        }
        for text in ["", ".", ".5", "2", "1.001", "1.5", "0.1234", "01", "0,5", "0.5 ", "-0", "+1", "0x1", "1e0"] {
            #expect(AcceptEncoding.qvalue(Substring(text).utf8) == nil, "\(text.debugDescription)")
        }
    }

    @Test("weights kept per coding; unknown codings leave no trace")
    func weights() {
        let preferences = AcceptEncoding(["Accept-Encoding": "br;q=0.9, gzip;q=0.25, *;q=0.1, identity;q=0.75"])
        #expect(preferences.gzipWeight == 250)
        #expect(preferences.identityWeight == 750)
        #expect(preferences.anyWeight == 100)
        #expect(AcceptEncoding(["Accept-Encoding": "br, zstd"]) == AcceptEncoding(["Accept-Encoding": ""]))
    }
}
