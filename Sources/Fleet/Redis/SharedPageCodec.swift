import ProductDetails
import Timekeeping

/// The bytes of a page in Redis: one header line, then the body as served, then its gzip variant.
///
/// `PD4 <status> <stored at> <ttl ms> <stale-if-error ms> <stale-while-revalidate ms> <missing
/// parts or -> <stamp> <ids shown or -> <gzip bytes>\n<body><gzip member>`: the stored-at time
/// (Unix milliseconds, the storing replica's clock) gives a reader the page's age without asking
/// Redis for its time to live; the stamp and the ids the page shows let every replica judge it by
/// the fleet's invalidations (``SharedInvalidationLog``); the gzip member (0 bytes: none) is
/// stored so that no replica that reads the page compresses it again, nor inflates it for a client
/// that takes identity.
/// The ETags are not stored: the identity one is the body's hash, recomputed on read, and the
/// variant's derives from it. Anything that does not parse exactly is refused, and the reader
/// treats it as a miss and deletes it.
enum SharedPageCodec {
    private static let magic = Array("PD4 ".utf8)
    /// How every gzip member starts (RFC 1952: ID1, ID2, CM = deflate).
    private static let gzipMagic: [UInt8] = [0x1f, 0x8b, 0x08]

    static func encode(_ page: SharedPage, storedAt: Duration) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(page, storedAt: storedAt, into: &bytes)
        return bytes
    }

    /// Appends the page's bytes, stored at `storedAt` since the epoch, to `bytes` (the value's
    /// generation leads them in Redis).
    static func encode(_ page: SharedPage, storedAt: Duration, into bytes: inout [UInt8]) {
        let gzip = page.document.gzip?.body ?? []
        bytes.reserveCapacity(bytes.count + 120 + page.document.body.count + gzip.count)
        bytes.append(contentsOf: magic)
        var header = "\(page.document.status) \(max(0, storedAt.wholeMilliseconds)) \(page.ttl.wholeMilliseconds) \(page.staleIfError.wholeMilliseconds) \(page.staleWhileRevalidate.wholeMilliseconds) "
        header += page.document.missing.isEmpty ? "-" : page.document.missing.map(\.rawValue).joined(separator: ",")
        header += " \(page.stamp) "
        header += page.document.shownProducts.isEmpty ? "-" : page.document.shownProducts.joined(separator: ",")
        header += " \(gzip.count)\n"
        bytes.append(contentsOf: header.utf8)
        bytes.append(contentsOf: page.document.body)
        bytes.append(contentsOf: gzip)
    }

    /// The page in `bytes` after their first `leading` bytes (the generation before it in Redis),
    /// and when it was stored (since the epoch).
    static func decode(_ bytes: [UInt8], dropping leading: Int = 0) -> (page: SharedPage, storedAt: Duration)? {
        guard leading <= bytes.count else { return nil }
        let value = bytes[leading...]
        guard value.starts(with: magic), let newline = value.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        var header = SharedPageHeaderReader(value, from: leading + magic.count, to: newline)
        guard let status = header.number(), status == 200 || status == 404,
              let storedAt = header.number(),
              let ttl = header.number(), ttl > 0,
              let staleIfError = header.number(),
              let staleWhileRevalidate = header.number(),
              let missingField = header.field()
        else { return nil }
        var missing: [DetailPart] = []
        if !header.isNone(missingField) {
            let read = header.forEachItem(in: missingField) { name in
                guard let part = DetailPart.allCases.first(where: { $0.rawValue.utf8.elementsEqual(name) }),
                      !missing.contains(part)
                else { return false }
                missing.append(part)
                return true
            }
            guard read else { return nil }
        }
        guard let stamp = header.number(), let shownField = header.field() else { return nil }
        var shown: [String] = []
        if !header.isNone(shownField) {
            shown.reserveCapacity(header.itemCount(in: shownField))
            let read = header.forEachItem(in: shownField) { id in
                guard id.withUnsafeBufferPointer(ProductDetailsService.isValidID(bytes:)) else { return false }
                shown.append(String(decoding: id, as: UTF8.self))
                return true
            }
            guard read else { return nil }
        }
        guard let gzipCount = header.number(), header.isAtEnd, gzipCount <= value.endIndex - (newline + 1) else { return nil }
        let gzipBytes = Int(gzipCount)
        let gzipStart = value.endIndex - gzipBytes
        // The body and the member are slices of `bytes`: the reply's buffer is the page's, with
        // no copy of either (the generation and header before them cost a few dozen bytes).
        var member: ArraySlice<UInt8>?
        if gzipBytes > 0 {
            guard value[gzipStart...].starts(with: gzipMagic) else { return nil }
            member = value[gzipStart...]
        }
        let document = CachedDocument(
            status: Int(status), body: value[(newline + 1)..<gzipStart], missing: missing, shownProducts: shown, gzip: member)
        let page = SharedPage(
            document: document, ttl: .milliseconds(ttl),
            staleIfError: .milliseconds(staleIfError), staleWhileRevalidate: .milliseconds(staleWhileRevalidate),
            stamp: UInt64(stamp)
        )
        return (page, .milliseconds(storedAt))
    }
}
