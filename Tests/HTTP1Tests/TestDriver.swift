import HTTP1
import Testing

/// How a fixture's bytes are handed to the parser.
enum Feeding: Sendable, CustomTestStringConvertible {
    case whole
    case byteByByte
    case split(at: Int)

    func pieces(of bytes: [UInt8]) -> [[UInt8]] {
        switch self {
        case .whole: [bytes]
        case .byteByByte: bytes.map { [$0] }
        case .split(let offset): [Array(bytes[..<offset]), Array(bytes[offset...])]
        }
    }

    var testDescription: String {
        switch self {
        case .whole: "whole"
        case .byteByByte: "byte by byte"
        case .split(let offset): "split at \(offset)"
        }
    }
}

struct ParsedRequest: Equatable {
    var head: HTTPRequestHead
    var body: [UInt8]
    var trailers: HTTPHeaders
}

struct ParsedResponse: Equatable {
    var head: HTTPResponseHead
    var body: [UInt8]
    var trailers: HTTPHeaders
}

/// Simulates a connection handler: keeps unconsumed bytes, appends each piece as
/// it "arrives", and calls `parse` until it asks for more data.
func parseRequests(_ pieces: [[UInt8]], limits: HTTPLimits = HTTPLimits()) throws -> [ParsedRequest] {
    var parser = HTTPRequestParser(limits: limits)
    var buffer: [UInt8] = []
    var completed: [ParsedRequest] = []
    var current: ParsedRequest?
    for piece in pieces {
        buffer.append(contentsOf: piece)
        var idleEvents = 0
        while true {
            var payload: [UInt8] = []
            let (event, consumed) = try buffer.withUnsafeBytes { raw in
                let result = try parser.parse(raw)
                #expect(result.consumed >= 0 && result.consumed <= raw.count)
                if case .body(let range) = result.event {
                    #expect(!range.isEmpty && range.upperBound <= result.consumed)
                    payload = Array(raw[range])
                }
                return result
            }
            buffer.removeFirst(consumed)
            idleEvents = consumed == 0 ? idleEvents + 1 : 0
            guard idleEvents < 3 || event == .needMoreData else {
                Issue.record("parser made no progress")
                return completed
            }
            switch event {
            case .needMoreData:
                break
            case .head(let head):
                #expect(current == nil, "head while a message is open")
                current = ParsedRequest(head: head, body: [], trailers: HTTPHeaders())
                continue
            case .body:
                current?.body.append(contentsOf: payload)
                continue
            case .end:
                if var message = current {
                    message.trailers = parser.trailers
                    completed.append(message)
                } else {
                    Issue.record(".end without a head")
                }
                current = nil
                continue
            }
            break
        }
    }
    #expect(current == nil, "message left incomplete")
    #expect(buffer.isEmpty, "bytes left unconsumed: \(buffer.count)")
    return completed
}

/// The error a request stream produces, or nil if it parses.
func requestError(_ pieces: [[UInt8]], limits: HTTPLimits = HTTPLimits()) -> HTTPParseError? {
    do {
        _ = try parseRequestsIgnoringLeftovers(pieces, limits: limits)
        return nil
    } catch let error as HTTPParseError {
        return error
    } catch {
        Issue.record("unexpected error type \(error)")
        return nil
    }
}

/// Like `parseRequests` but without the completeness expectations, for inputs
/// that are expected to fail part-way.
private func parseRequestsIgnoringLeftovers(_ pieces: [[UInt8]], limits: HTTPLimits) throws -> Int {
    var parser = HTTPRequestParser(limits: limits)
    var buffer: [UInt8] = []
    var events = 0
    for piece in pieces {
        buffer.append(contentsOf: piece)
        while true {
            let (event, consumed) = try buffer.withUnsafeBytes { try parser.parse($0) }
            buffer.removeFirst(consumed)
            events += 1
            if event == .needMoreData { break }
        }
    }
    return events
}

/// Client-side driver: feeds pieces, then optionally signals EOF.
func parseResponses(
    _ pieces: [[UInt8]],
    requestMethods: [HTTPMethod],
    closeAtEnd: Bool,
    limits: HTTPLimits = HTTPLimits()
) throws -> [ParsedResponse] {
    var parser = HTTPResponseParser(limits: limits)
    var buffer: [UInt8] = []
    var completed: [ParsedResponse] = []
    var current: ParsedResponse?
    func method() -> HTTPMethod {
        completed.count < requestMethods.count ? requestMethods[completed.count] : .get
    }
    func finish(_ trailers: HTTPHeaders) {
        if var message = current {
            message.trailers = trailers
            completed.append(message)
        } else {
            Issue.record(".end without a head")
        }
        current = nil
    }
    for piece in pieces {
        buffer.append(contentsOf: piece)
        var idleEvents = 0
        while true {
            var payload: [UInt8] = []
            let requestMethod = method()
            let (event, consumed) = try buffer.withUnsafeBytes { raw in
                let result = try parser.parse(raw, requestMethod: requestMethod)
                #expect(result.consumed >= 0 && result.consumed <= raw.count)
                if case .body(let range) = result.event {
                    #expect(!range.isEmpty && range.upperBound <= result.consumed)
                    payload = Array(raw[range])
                }
                return result
            }
            buffer.removeFirst(consumed)
            idleEvents = consumed == 0 ? idleEvents + 1 : 0
            guard idleEvents < 3 || event == .needMoreData else {
                Issue.record("parser made no progress")
                return completed
            }
            switch event {
            case .needMoreData:
                break
            case .head(let head):
                #expect(current == nil, "head while a message is open")
                current = ParsedResponse(head: head, body: [], trailers: HTTPHeaders())
                continue
            case .body:
                current?.body.append(contentsOf: payload)
                continue
            case .end:
                finish(parser.trailers)
                continue
            }
            break
        }
    }
    if closeAtEnd, let event = try parser.finishAtEOF() {
        #expect(event == .end)
        finish(parser.trailers)
    }
    return completed
}

func responseError(_ pieces: [[UInt8]], requestMethod: HTTPMethod = .get, closeAtEnd: Bool) -> HTTPParseError? {
    do {
        _ = try parseResponses(pieces, requestMethods: [requestMethod], closeAtEnd: closeAtEnd)
        return nil
    } catch let error as HTTPParseError {
        return error
    } catch {
        Issue.record("unexpected error type \(error)")
        return nil
    }
}

extension Array where Element == UInt8 {
    init(_ text: String) {
        self = Array(text.utf8)
    }
}
