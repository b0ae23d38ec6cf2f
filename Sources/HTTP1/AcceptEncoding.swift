/// A request's Accept-Encoding preferences (RFC 9110 §12.5.3) for the two codings this service
/// can send, gzip and identity, read from every Accept-Encoding field line as one list.
///
/// Weights are kept in thousandths (a qvalue has at most three decimals). An element that does
/// not follow `codings [ OWS ";" OWS "q=" qvalue ]` (a bad qvalue such as `q=2` or `q=0.5555`,
/// space around `=`, another parameter) is ignored on its own, as is any coding other than
/// gzip, `x-gzip` (its alias, §8.4.1.3), identity and `*`. When a coding appears twice, its first
/// element counts. Parsing allocates nothing.
package struct AcceptEncoding: Sendable, Equatable {
    /// False when the request has no Accept-Encoding field at all (an empty one is present).
    package private(set) var isPresent = false
    package private(set) var gzipWeight: Int?
    package private(set) var identityWeight: Int?
    /// The weight of `*`: every coding not listed by name.
    package private(set) var anyWeight: Int?

    package init(_ headers: HTTPHeaders) {
        for field in headers where HTTPHeaders.namesMatch(field.name, "Accept-Encoding") {
            isPresent = true
            for element in CommaSeparatedElements(field.value) {
                record(element)
            }
        }
    }

    /// The coding to send when the gzip variant exists (`gzipAvailable`) beside the identity one.
    ///
    /// No field: any coding is acceptable, but a client that sends none often cannot inflate, so
    /// identity (the RFC's own suggestion). Otherwise gzip when its weight is above zero and not
    /// below identity's explicit one (an equal weight goes to the smaller body); identity when it
    /// is not refused; else `notAcceptable`. An empty field asks for identity only.
    package func choose(gzipAvailable: Bool) -> ContentCodingChoice {
        guard isPresent else { return .identity }
        let gzip = gzipAvailable ? gzipWeight ?? anyWeight ?? 0 : 0
        // nil: identity was not named and no `*` covers it, so it is acceptable by default.
        let identity = identityWeight ?? anyWeight
        if gzip > 0, gzip >= identity ?? 0 { return .gzip }
        if identity.map({ $0 > 0 }) ?? true { return .identity }
        return .notAcceptable
    }

    private mutating func record(_ element: Substring.UTF8View) {
        guard let (coding, weight) = Self.parse(element) else { return }
        if ASCII.equalsIgnoringCase(coding, "gzip".utf8) || ASCII.equalsIgnoringCase(coding, "x-gzip".utf8) {
            gzipWeight = gzipWeight ?? weight
        } else if ASCII.equalsIgnoringCase(coding, "identity".utf8) {
            identityWeight = identityWeight ?? weight
        } else if coding.elementsEqual(CollectionOfOne(ASCII.asterisk)) {
            anyWeight = anyWeight ?? weight
        }
    }

    /// The coding token and its weight (1000 when none is given), or nil for a malformed element.
    /// `element` comes trimmed of surrounding whitespace.
    static func parse(_ element: Substring.UTF8View) -> (coding: Substring.UTF8View, weight: Int)? {
        var index = element.startIndex
        while index < element.endIndex, ASCII.isTokenChar(element[index]) {
            element.formIndex(after: &index)
        }
        let coding = element[element.startIndex..<index]
        guard !coding.isEmpty else { return nil }
        while index < element.endIndex, ASCII.isWhitespace(element[index]) {
            element.formIndex(after: &index)
        }
        guard index < element.endIndex else { return (coding, 1000) }
        guard element[index] == ASCII.semicolon else { return nil }
        element.formIndex(after: &index)
        while index < element.endIndex, ASCII.isWhitespace(element[index]) {
            element.formIndex(after: &index)
        }
        let parameter = element[index...]
        guard parameter.count >= 2, ASCII.lowercased(parameter[index]) == UInt8(ascii: "q"),
              parameter[parameter.index(after: index)] == ASCII.equals
        else { return nil }
        guard let weight = qvalue(parameter.dropFirst(2)) else { return nil }
        return (coding, weight)
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )` (RFC 9110 §12.4.2), in
    /// thousandths; nil for anything else.
    static func qvalue(_ text: Substring.UTF8View) -> Int? {
        guard let first = text.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        let rest = text.dropFirst()
        var decimals = 0
        var scale = 100
        if let dot = rest.first {
            guard dot == ASCII.dot, rest.count <= 4 else { return nil }
            for digit in rest.dropFirst() {
                guard ASCII.isDigit(digit) else { return nil }
                decimals += Int(digit &- UInt8(ascii: "0")) * scale
                scale /= 10
            }
        }
        if first == UInt8(ascii: "1") { return decimals == 0 ? 1000 : nil }
        return decimals
    }
}

/// What Accept-Encoding negotiation picked among the codings this service can send.
package enum ContentCodingChoice: Sendable, Equatable {
    case gzip
    case identity
    /// The request refused identity (`identity;q=0`, or `*;q=0` without an `identity` entry) and
    /// accepts nothing else on offer. RFC 9110 §12.1 lets the server either answer 406 or
    /// disregard the field. The service's choice is to answer identity anyway, as nginx, Envoy and
    /// Varnish do: a page below the compression threshold has no gzip form, so a 406 would make
    /// such a client's pages come and go with their size, and the 406 body would be identity too.
    case notAcceptable
}
