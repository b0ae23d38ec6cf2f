import CIsal

/// Compresses stored pages into gzip members with ISA-L's igzip at its level 0, with Huffman codes
/// made once from sample bodies of the same shape.
///
/// A page is a kilobyte or two: at that size libdeflate's fastest level spends most of its time
/// setting up its 128 KiB match finder per call, while igzip's level 0 has a small hash table and
/// builds no codes per body. Its generic codes cost about a third more bytes on our pages; codes
/// made from a few pages of the same shape win most of that back (bench/HISTORY.md, issue 32).
/// Every byte value keeps a code, so any body compresses, only less well when it is unlike the
/// samples. Fixed samples, not the pages seen first: a body then makes the same bytes on every
/// loop and replica of one build, as its variant's one `ETag` promises.
///
/// Not thread-safe and not `Sendable` (its stream and scratch are reused): keep one per event loop
/// (EventLoop's `LoopLocal`) or per thread, never shared.
package final class PageGzipper {
    /// `nil`: igzip's generic codes (no samples, or making codes failed).
    private let tables: UnsafeMutablePointer<isal_hufftables>?
    private let stream = UnsafeMutablePointer<isal_zstream>.allocate(capacity: 1)
    /// Where igzip writes before the result is copied out at its exact size: a result sized by
    /// the bound would keep more bytes than the input for as long as it is cached.
    private var scratch: [UInt8] = []

    /// - Parameter samples: bodies like those to come, which the codes are made from (none:
    ///   igzip's generic codes).
    package init(samples: [[UInt8]]) {
        tables = Self.codes(from: samples)
        stream.initialize(to: isal_zstream())
    }

    deinit {
        tables?.deallocate()
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Whether the codes were made from samples.
    package var usesSampleCodes: Bool { tables != nil }

    /// One gzip member holding `body`; `nil` if igzip refused it (not seen: the output has room
    /// for stored blocks, its fallback).
    package func compress(_ body: UnsafeRawBufferPointer) -> [UInt8]? {
        // igzip counts in 32 bits; no page comes near.
        guard body.count < Int(UInt32.max) / 2 else { return nil }
        // Stored blocks (five bytes of header per 64 KiB) with the gzip header and trailer are the
        // most a member of level 0 takes: igzip falls back to them when codes would not pay.
        let bound = body.count + 5 * (body.count / 65_535 + 1) + 64
        if scratch.count < bound { scratch = [UInt8](repeating: 0, count: bound) }
        var empty: UInt8 = 0
        let produced = scratch.withUnsafeMutableBytes { output -> Int in
            withUnsafeMutablePointer(to: &empty) { emptyInput in
                isal_deflate_stateless_init(stream)
                stream.pointee.level = 0
                stream.pointee.gzip_flag = UInt16(IGZIP_GZIP)
                if let tables { stream.pointee.hufftables = tables }
                // An empty body may have no address: a byte of our own stands in, none of it read.
                stream.pointee.next_in = body.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: UInt8.self)) } ?? emptyInput
                stream.pointee.avail_in = UInt32(body.count)
                stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
                stream.pointee.avail_out = UInt32(output.count)
                stream.pointee.end_of_stream = 1
                stream.pointee.flush = UInt16(NO_FLUSH)
                guard isal_deflate_stateless(stream) == COMP_OK else { return 0 }
                return Int(stream.pointee.total_out)
            }
        }
        return produced > 0 ? Array(scratch[0..<produced]) : nil
    }

    package func compress(_ body: [UInt8]) -> [UInt8]? {
        body.withUnsafeBytes { compress($0) }
    }

    private static func codes(from samples: [[UInt8]]) -> UnsafeMutablePointer<isal_hufftables>? {
        guard !samples.isEmpty else { return nil }
        var histogram = isal_huff_histogram()
        for sample in samples where !sample.isEmpty {
            sample.withUnsafeBufferPointer { bytes in
                isal_update_histogram(UnsafeMutablePointer(mutating: bytes.baseAddress!), Int32(clamping: bytes.count), &histogram)
            }
        }
        let tables = UnsafeMutablePointer<isal_hufftables>.allocate(capacity: 1)
        tables.initialize(to: isal_hufftables())
        guard isal_create_hufftables(tables, &histogram) == 0 else {
            tables.deallocate()
            return nil
        }
        return tables
    }
}
