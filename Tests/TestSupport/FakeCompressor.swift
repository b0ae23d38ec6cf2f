import Locking
import ProductDetails

/// Stands in for the App's compressor: the body's first 8 bytes behind a marker, so a variant is
/// recognisable and smaller; counts its calls.
package final class FakeCompressor: PageCompressor {
    let calls = Locked(0)
    let grows: Bool

    package init(grows: Bool = false) { self.grows = grows }

    package func gzip(_ body: ArraySlice<UInt8>) -> [UInt8]? {
        calls.withLock { $0 += 1 }
        return grows ? Array(body + body) : Array("gz:".utf8) + body.prefix(8)
    }

    package var callCount: Int { calls.withLock { $0 } }
}
