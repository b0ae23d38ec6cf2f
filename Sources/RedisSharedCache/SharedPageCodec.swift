import ProductDetails
import Timekeeping

/// The bytes of a page in Redis: one header line, then the body as served.
///
/// `PD2 <status> <ttl ms> <stale-if-error ms> <stale-while-revalidate ms> <missing parts or ->
/// <stamp> <ids shown or ->\n<body>`: the stamp and the ids the page shows let every replica judge
/// it by the fleet's invalidations (``SharedInvalidationLog``).
/// The ETag is not stored: it is the body's hash, recomputed on read. Anything that does not parse
/// exactly is refused, and the reader treats it as a miss and deletes it.
enum SharedPageCodec {
    private static let magic = Array("PD2 ".utf8)

    static func encode(_ page: SharedPage) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(page, into: &bytes)
        return bytes
    }

    /// Appends the page's bytes to `bytes` (the value's generation leads them in Redis).
    static func encode(_ page: SharedPage, into bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + 96 + page.document.body.count)
        bytes.append(contentsOf: magic)
        var header = "\(page.document.status) \(page.ttl.wholeMilliseconds) \(page.staleIfError.wholeMilliseconds) \(page.staleWhileRevalidate.wholeMilliseconds) "
        header += page.document.missing.isEmpty ? "-" : page.document.missing.map(\.rawValue).joined(separator: ",")
        header += " \(page.stamp) "
        header += page.document.shownProducts.isEmpty ? "-" : page.document.shownProducts.joined(separator: ",")
        header += "\n"
        bytes.append(contentsOf: header.utf8)
        bytes.append(contentsOf: page.document.body)
    }

    /// The page in `bytes` after their first `leading` bytes (the generation before it in Redis).
    static func decode(_ bytes: [UInt8], dropping leading: Int = 0) -> SharedPage? {
        guard leading <= bytes.count else { return nil }
        let value = bytes[leading...]
        guard value.starts(with: magic), let newline = value.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        guard let header = String(validating: value[(leading + magic.count)..<newline], as: UTF8.self) else { return nil }
        let fields = header.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 7,
              let status = Int(fields[0]), status == 200 || status == 404,
              let ttl = Int64(fields[1]), ttl > 0,
              let staleIfError = Int64(fields[2]), staleIfError >= 0,
              let staleWhileRevalidate = Int64(fields[3]), staleWhileRevalidate >= 0
        else { return nil }
        var missing: [DetailPart] = []
        if fields[4] != "-" {
            for name in fields[4].split(separator: ",", omittingEmptySubsequences: false) {
                guard let part = DetailPart(rawValue: String(name)), !missing.contains(part) else { return nil }
                missing.append(part)
            }
        }
        guard let stamp = UInt64(fields[5]) else { return nil }
        var shown: [String] = []
        if fields[6] != "-" {
            shown = fields[6].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard shown.allSatisfy(ProductDetailsService.isValidID) else { return nil }
        }
        let document = CachedDocument(status: status, body: Array(value[(newline + 1)...]), missing: missing, shownProducts: shown)
        return SharedPage(
            document: document, ttl: .milliseconds(ttl),
            staleIfError: .milliseconds(staleIfError), staleWhileRevalidate: .milliseconds(staleWhileRevalidate), stamp: stamp
        )
    }
}
