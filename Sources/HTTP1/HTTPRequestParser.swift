/// An incremental, strict HTTP/1.1 request parser (RFC 9112) for the server.
///
/// Contract: the caller keeps every byte the parser has not consumed and passes it
/// again, with new data appended, on the next call. Each call returns one event and
/// how many bytes of `input` it consumed. Because scan positions are remembered
/// between calls, a head arriving one byte at a time costs linear, not quadratic,
/// work. Strings are created once per complete line, never while scanning.
///
/// After a thrown error the stream position is unknown: answer with the error's
/// status and close the connection (or call `reset()` before any reuse).
package struct HTTPRequestParser: Sendable {
    package enum Event: Sendable, Equatable {
        case needMoreData
        case head(HTTPRequestHead)
        /// Payload bytes at this range of the input passed to the call (de-chunked).
        case body(Range<Int>)
        /// The message, including trailers, is complete; the parser is ready for the
        /// next pipelined request.
        case end
    }

    private enum Phase: Sendable {
        case requestLine, headers, body
    }

    /// RFC 9112 §2.2 says to ignore at least one empty line before a request; a few
    /// more are tolerated, an endless stream of them is not.
    static let maxLeadingEmptyLines = 8

    package let limits: HTTPLimits
    private var phase = Phase.requestLine
    private var requestLineScanner = RequestLineScanner()
    private var leadingEmptyLines = 0
    private var method = HTTPMethod.get
    private var target = ""
    private var requestTarget = RequestTarget(path: "", query: nil)
    private var version = HTTPVersion.http1_1
    private var headerReader: HeaderSectionReader
    private var body = MessageBodyDecoder()

    /// Trailer fields of the last chunked message, valid after `.end` until the
    /// next request begins (empty for other framings).
    package private(set) var trailers = HTTPHeaders()

    /// The head of a request refused for its framing (`413`, `501`, conflicting lengths) after
    /// its header section was read whole, so the refusal can still answer to it (its request
    /// id, its method); its framing reads `.none`. Nil for every other error.
    package private(set) var refusedHead: HTTPRequestHead?

    /// True once a message has begun: its request line was consumed. Bytes of it may no longer
    /// be in the caller's buffer. Empty lines before a request line begin nothing: RFC 9112 §2.2
    /// has a server ignore them, so a connection that received one after a request is idle.
    package var hasBegunMessage: Bool {
        phase != .requestLine
    }

    package init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
        self.headerReader = HeaderSectionReader(limits: limits)
    }

    package mutating func parse(_ input: UnsafeRawBufferPointer) throws(HTTPParseError) -> (event: Event, consumed: Int) {
        switch phase {
        case .requestLine, .headers:
            return try parseHead(input)
        case .body:
            let (step, consumed) = try body.decode(input)
            switch step {
            case .needMoreData:
                return (.needMoreData, consumed)
            case .body(let range):
                return (.body(range), consumed)
            case .end:
                trailers = body.trailers
                prepareForNextMessage()
                return (.end, consumed)
            }
        }
    }

    /// Forgets any partial message, e.g. after an error or when a connection is reused.
    package mutating func reset() {
        prepareForNextMessage()
        trailers = HTTPHeaders()
    }

    private mutating func prepareForNextMessage() {
        phase = .requestLine
        refusedHead = nil
        requestLineScanner.reset()
        leadingEmptyLines = 0
        headerReader = HeaderSectionReader(limits: limits)
        body = MessageBodyDecoder()
    }

    private mutating func parseHead(_ input: UnsafeRawBufferPointer) throws(HTTPParseError) -> (event: Event, consumed: Int) {
        var offset = 0
        while phase == .requestLine {
            guard let line = try requestLineScanner.nextLine(
                in: input, from: offset, maxLength: limits.maxRequestLineBytes)
            else { return (.needMoreData, offset) }
            switch line {
            case .empty(let next):
                leadingEmptyLines += 1
                guard leadingEmptyLines <= Self.maxLeadingEmptyLines else { throw .malformedRequestLine }
                offset = next
            case .requestLine(let methodRange, let targetRange, let lineVersion, let next):
                trailers = HTTPHeaders()
                method = HTTPMethod(rawValue: Self.string(input, methodRange))
                let targetBytes = UnsafeRawBufferPointer(rebasing: input[targetRange])
                requestTarget = try RequestTarget.parse(targetBytes, method: method)
                target = Self.string(input, targetRange)
                version = lineVersion
                phase = .headers
                offset = next
            }
        }
        guard try headerReader.read(input, offset: &offset) else { return (.needMoreData, offset) }
        let head = try makeHead()
        body = MessageBodyDecoder(
            framing: head.framing, limits: limits,
            headerBytesUsed: headerReader.bytesUsed, headerFieldCount: headerReader.fieldCount)
        phase = .body
        return (.head(head), offset)
    }

    /// Applies the message-level rules that need the whole header section. Fields that take part
    /// in them were noted while reading, so absent ones cost no scan. The head's parts are moved
    /// out of the parser, not copied: it forgets them at the next message anyway.
    private mutating func makeHead() throws(HTTPParseError) -> HTTPRequestHead {
        let noted = headerReader.framingFields
        if noted.hostCount > 1 { throw .duplicateHost }
        if noted.hostCount == 0 && version == .http1_1 { throw .missingHost }
        if let host = noted.host, !HostValidator.isValidHostField(host) { throw .invalidHost }
        let headers = headerReader.takeHeaders()
        let framing: BodyFraming
        do throws(HTTPParseError) {
            framing = noted.hasContentLength || noted.hasTransferEncoding ? try self.framing(of: headers, noted: noted) : .none
        } catch {
            refusedHead = HTTPRequestHead(
                method: method, target: target, path: requestTarget.path, query: requestTarget.query, version: version,
                headers: headers, keepAlive: false, expectsContinue: false, framing: .none)
            throw error
        }
        return HTTPRequestHead(
            method: moveOut(&method, leaving: .get),
            target: moveOut(&target, leaving: ""),
            path: moveOut(&requestTarget.path, leaving: ""),
            query: moveOut(&requestTarget.query, leaving: nil),
            version: version,
            headers: headers,
            keepAlive: MessageFraming.keepAlive(version: version, headers: headers, noted: noted),
            expectsContinue: noted.hasExpect && version == .http1_1 && headers.contains { field in
                ASCII.equalsIgnoringCase(field.name.utf8, "expect".utf8)
                    && ASCII.equalsIgnoringCase(field.value.utf8, "100-continue".utf8)
            },
            framing: framing)
    }

    private func framing(of headers: HTTPHeaders, noted: FramingFields) throws(HTTPParseError) -> BodyFraming {
        if noted.hasTransferEncoding {
            if version == .http1_0 { throw .transferEncodingInHTTP10 }
            if noted.hasContentLength { throw .conflictingFraming }
            _ = try MessageFraming.isChunked(headers)
            return .chunked
        }
        guard let length = try MessageFraming.contentLength(in: headers, noted: noted) else { return .none }
        guard length <= limits.maxBodyBytes else { throw .bodyTooLarge }
        return .contentLength(length)
    }

    private static func string(_ input: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: input[range]), as: UTF8.self)
    }
}
