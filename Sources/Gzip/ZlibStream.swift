import CZlib

/// A zlib stream in gzip mode, at a fixed address (zlib's state points back into it), ended and
/// freed with its owner.
struct ZlibStream: ~Copyable {
    enum Direction {
        case deflate(level: Int32, memoryLevel: Int32)
        case inflate
    }

    /// 15 is zlib's largest window (32 KiB); adding 16 asks for a gzip header and trailer
    /// instead of the zlib ones (and, inflating, accepts only those).
    static let gzipWindowBits: Int32 = 15 + 16

    let pointer: UnsafeMutablePointer<z_stream>
    private let deflates: Bool

    init(_ direction: Direction) throws(GzipError) {
        let pointer = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        let status: Int32
        switch direction {
        case .deflate(let level, let memoryLevel):
            status = pd_deflate_init(pointer, level, Self.gzipWindowBits, memoryLevel)
        case .inflate:
            status = pd_inflate_init(pointer, Self.gzipWindowBits)
        }
        guard status == Z_OK else {
            pointer.deinitialize(count: 1)
            pointer.deallocate()
            throw .outOfMemory
        }
        self.pointer = pointer
        if case .deflate = direction { deflates = true } else { deflates = false }
    }

    deinit {
        if deflates { deflateEnd(pointer) } else { inflateEnd(pointer) }
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
