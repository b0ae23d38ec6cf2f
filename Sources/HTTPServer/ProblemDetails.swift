import HTTP1

/// An RFC 9457 problem document: every error this service answers has this shape.
public struct ProblemDetails: Sendable, Equatable {
    public var status: HTTPStatus
    public var title: String
    public var detail: String
    public var type: String

    public init(status: HTTPStatus, title: String? = nil, detail: String, type: String = "about:blank") {
        self.status = status
        self.title = title ?? status.reasonPhrase
        self.detail = detail
        self.type = type
    }

    /// `{"type":…,"title":…,"status":…,"detail":…}` as bytes.
    public var json: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(96 + title.utf8.count + detail.utf8.count)
        out.append(contentsOf: #"{"type":"#.utf8)
        JSONText.appendQuoted(type, to: &out)
        out.append(contentsOf: #","title":"#.utf8)
        JSONText.appendQuoted(title, to: &out)
        out.append(contentsOf: #","status":"#.utf8)
        out.append(contentsOf: String(status.code).utf8)
        out.append(contentsOf: #","detail":"#.utf8)
        JSONText.appendQuoted(detail, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The answer carrying this problem, `application/problem+json`.
    public func response(headers extra: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = extra
        headers.replaceOrAdd(name: "Content-Type", value: "application/problem+json")
        return HTTPResponse(status: status, headers: headers, body: json)
    }
}

/// JSON string quoting for the few documents the server writes itself.
public enum JSONText {
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
