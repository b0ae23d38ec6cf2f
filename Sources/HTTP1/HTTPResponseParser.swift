/// An incremental, strict HTTP/1.1 response parser (RFC 9112) for the client.
///
/// Same feeding contract as `HTTPRequestParser`: re-feed unconsumed bytes with new
/// data appended. Interim 1xx responses (other than 101) are skipped silently, and
/// framing is decided from the request method and status (RFC 9112 §6.3).
package struct HTTPResponseParser: Sendable {
    package enum Event: Sendable, Equatable {
        case needMoreData
        case head(HTTPResponseHead)
        /// Payload bytes at this range of the input passed to the call (de-chunked).
        case body(Range<Int>)
        /// The response is complete; the parser is ready for the next one.
        case end
    }

    private enum Phase: Sendable {
        case statusLine, headers, body
    }

    package let limits: HTTPLimits
    private var phase = Phase.statusLine
    private var statusLineScanner = LineScanner()
    private var statusLine = StatusLine(version: .http1_1, status: .ok)
    private var headerReader: HeaderSectionReader
    private var body = MessageBodyDecoder()
    /// Whether any byte of a response was seen since the last `.end`, so EOF can
    /// tell "no response" from "truncated response".
    private var responseBegun = false

    /// Trailer fields of the last chunked response, valid after `.end` until the
    /// next response begins (empty for other framings).
    package private(set) var trailers = HTTPHeaders()

    package init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
        self.headerReader = HeaderSectionReader(limits: limits, keepingLines: true)
    }

    /// - Parameter requestMethod: the method of the request this response answers;
    ///   HEAD (and a successful CONNECT) responses have no body.
    package mutating func parse(
        _ input: UnsafeRawBufferPointer,
        requestMethod: HTTPMethod
    ) throws(HTTPParseError) -> (event: Event, consumed: Int) {
        switch phase {
        case .statusLine, .headers:
            return try parseHead(input, requestMethod: requestMethod)
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

    /// The peer closed the connection. Returns `.end` when that completes the
    /// current response (close-delimited body, or a body already complete), nil
    /// when no response had begun; throws when the response was cut short.
    package mutating func finishAtEOF() throws(HTTPParseError) -> Event? {
        switch phase {
        case .statusLine, .headers:
            guard responseBegun else { return nil }
            throw .truncatedHead
        case .body:
            guard body.isCompleteAtEOF() else { throw .truncatedBody }
            trailers = body.trailers
            prepareForNextMessage()
            return .end
        }
    }

    package mutating func reset() {
        prepareForNextMessage()
        trailers = HTTPHeaders()
    }

    private mutating func prepareForNextMessage() {
        phase = .statusLine
        statusLineScanner.reset()
        headerReader = HeaderSectionReader(limits: limits, keepingLines: true)
        body = MessageBodyDecoder()
        responseBegun = false
    }

    private mutating func parseHead(
        _ input: UnsafeRawBufferPointer,
        requestMethod: HTTPMethod
    ) throws(HTTPParseError) -> (event: Event, consumed: Int) {
        var offset = 0
        while true {
            if offset < input.count { responseBegun = true }
            if phase == .statusLine {
                guard let line = try statusLineScanner.nextLine(
                    in: input, from: offset, maxLength: limits.maxRequestLineBytes, tooLong: .malformedStatusLine)
                else { return (.needMoreData, offset) }
                statusLine = try StatusLine.parse(UnsafeRawBufferPointer(rebasing: input[line]))
                trailers = HTTPHeaders()
                offset = line.upperBound + 2
                phase = .headers
            }
            guard try headerReader.read(input, offset: &offset) else { return (.needMoreData, offset) }
            let code = statusLine.status.code
            if (100..<200).contains(code) && code != 101 {
                // Interim response: nothing for the caller, the final one follows.
                phase = .statusLine
                headerReader = HeaderSectionReader(limits: limits, keepingLines: true)
                continue
            }
            let head = try makeHead(requestMethod: requestMethod)
            body = MessageBodyDecoder(
                framing: head.framing, limits: limits,
                headerBytesUsed: headerReader.bytesUsed, headerFieldCount: headerReader.fieldCount)
            phase = .body
            return (.head(head), offset)
        }
    }

    /// The head's field lines are moved out of the reader, which is replaced before the next
    /// response. The fields are made only when the framing rules must read them.
    private mutating func makeHead(requestMethod: HTTPMethod) throws(HTTPParseError) -> HTTPResponseHead {
        let noted = headerReader.framingFields
        let lines = headerReader.takeLines()
        let headers = noted.decideFramingAlone ? HTTPHeaders() : lines.headers
        let framing = try framing(of: headers, noted: noted, requestMethod: requestMethod)
        let code = statusLine.status.code
        let keepAlive = framing != .untilClose && code != 101
            && MessageFraming.keepAlive(version: statusLine.version, headers: headers, noted: noted)
        return HTTPResponseHead(
            status: statusLine.status, version: statusLine.version, fieldLines: lines,
            framing: framing, keepAlive: keepAlive)
    }

    /// RFC 9112 §6.3. Unlike the RFC's "Transfer-Encoding wins", a response with
    /// both Content-Length and Transfer-Encoding is rejected: it signals a broken or
    /// hostile upstream, and the connection could not safely be reused anyway.
    private func framing(
        of headers: HTTPHeaders, noted: FramingFields, requestMethod: HTTPMethod
    ) throws(HTTPParseError) -> BodyFraming {
        let code = statusLine.status.code
        if requestMethod == .head || code < 200 || code == 204 || code == 304 {
            return .none
        }
        if requestMethod == .connect && (200..<300).contains(code) {
            return .none
        }
        if noted.hasTransferEncoding {
            if statusLine.version == .http1_0 { throw .transferEncodingInHTTP10 }
            if noted.hasContentLength { throw .conflictingFraming }
            _ = try MessageFraming.isChunked(headers)
            return .chunked
        }
        guard let length = try MessageFraming.contentLength(in: headers, noted: noted) else { return .untilClose }
        guard length <= limits.maxBodyBytes else { throw .bodyTooLarge }
        return .contentLength(length)
    }
}
