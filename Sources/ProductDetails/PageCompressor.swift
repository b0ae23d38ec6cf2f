/// Port to the compressor that gives a page its gzip variant when it is stored into this
/// replica's cache (App: one igzip compressor per event loop, reused per page), so the
/// domain stays free of the library and its rules are tested with a fake.
///
/// Called on the thread of the load that stores the page, once per stored page, never per hit.
package protocol PageCompressor: Sendable {
    /// `body` as one gzip member; nil when it could not be compressed (the page stays identity).
    func gzip(_ body: ArraySlice<UInt8>) -> [UInt8]?
}
