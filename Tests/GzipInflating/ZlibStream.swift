import CZlib
import Gzip

/// A zlib inflate stream in gzip mode, at a fixed address (zlib's state points back into it),
/// ended and freed with its owner.
struct ZlibStream: ~Copyable {
    /// 15 is zlib's largest window (32 KiB); adding 16 accepts only a gzip header and trailer,
    /// not the zlib ones.
    static let gzipWindowBits: Int32 = 15 + 16

    let pointer: UnsafeMutablePointer<z_stream>

    init() throws(GzipError) {
        let pointer = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        guard pd_inflate_init(pointer, Self.gzipWindowBits) == Z_OK else {
            pointer.deinitialize(count: 1)
            pointer.deallocate()
            throw .outOfMemory
        }
        self.pointer = pointer
    }

    deinit {
        inflateEnd(pointer)
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
