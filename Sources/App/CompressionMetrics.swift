import HTTPServer
import Metrics
import Synchronization

/// The answers of the routes that negotiate a content coding (pages, batches, `/metrics`), by
/// the coding sent, and their body bytes before and after compression. Relaxed atomics, as every
/// counter: an answer costs two or three adds and no lock.
final class CompressionMetrics: Sendable {
    private let identityAnswers: Counter
    private let gzipAnswers: Counter
    /// Bytes of identity bodies written: the same before and after.
    private let identityBytes = Atomic<Int>(0)
    /// Bytes of the gzip bodies written, and of their identity forms.
    private let gzipBytes = Atomic<Int>(0)
    private let gzipIdentityBytes = Atomic<Int>(0)

    init(registry: MetricsRegistry) {
        let help = "Answers of the routes that negotiate Content-Encoding (pages, batches, /metrics), by the coding sent."
        identityAnswers = registry.counter("http_encoded_responses_total", help: help, labels: [("encoding", "identity")])
        gzipAnswers = registry.counter("http_encoded_responses_total", help: help, labels: [("encoding", "gzip")])
        let bytesHelp = "Body bytes those answers wrote (stage sent), and the same bodies before compression (stage uncompressed)."
        registry.counter("http_response_body_bytes_total", help: bytesHelp, labels: [("stage", "uncompressed")]) { [self] in
            identityBytes.load(ordering: .relaxed) &+ gzipIdentityBytes.load(ordering: .relaxed)
        }
        registry.counter("http_response_body_bytes_total", help: bytesHelp, labels: [("stage", "sent")]) { [self] in
            identityBytes.load(ordering: .relaxed) &+ gzipBytes.load(ordering: .relaxed)
        }
    }

    /// One answer with its body as written: `writtenBytes` is 0 for HEAD and 304.
    func answered(_ coding: ResponseCoding, writtenBytes: Int) {
        switch coding {
        case .fixed:
            return
        case .identity:
            identityAnswers.increment()
            identityBytes.wrappingAdd(writtenBytes, ordering: .relaxed)
        case .gzip(let identity):
            gzipAnswers.increment()
            guard writtenBytes > 0 else { return }
            gzipBytes.wrappingAdd(writtenBytes, ordering: .relaxed)
            gzipIdentityBytes.wrappingAdd(identity, ordering: .relaxed)
        }
    }
}
