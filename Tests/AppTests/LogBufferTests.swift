@testable import Logging
import Foundation
import Testing

@testable import App
import JSON
import ProductDetails

@Suite("Log buffer")
struct LogBufferTests {
    private static let noon = LogInstant(seconds: 1_796_400_000, milliseconds: 7)

    private func line(_ message: String) -> (inout JSONBytesWriter) -> Void {
        { json in
            json.raw(#""level":"info","msg":"#)
            json.string(message)
            json.raw("}\n")
        }
    }

    private func lines(_ bytes: [UInt8]) -> [[String: Any]] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { text in
            (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? ["unparsed": String(text)]
        }
    }

    @Test func timestampsAreRFC3339UTCWithMilliseconds() {
        var timestamp = LogTimestamp()
        let text = { (instant: LogInstant) in String(decoding: timestamp.text(for: instant), as: UTF8.self) }
        #expect(text(LogInstant(seconds: 0, milliseconds: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(text(LogInstant(seconds: 1_796_400_000, milliseconds: 7)) == "2026-12-04T16:00:00.007Z")
        // Same second, new millisecond; then the next second: the cached part must not go stale.
        #expect(text(LogInstant(seconds: 1_796_400_000, milliseconds: 999)) == "2026-12-04T16:00:00.999Z")
        #expect(text(LogInstant(seconds: 1_796_400_001, milliseconds: 999)) == "2026-12-04T16:00:01.999Z")
        #expect(text(LogInstant(seconds: 951_825_600, milliseconds: 120)) == "2000-02-29T12:00:00.120Z")
    }

    @Test func linesAreWholeJSONObjectsInOrder() {
        var buffer = LogBuffer(capacity: 4096)
        for index in 0..<5 { buffer.append(.request, at: Self.noon, body: line("m\(index)")) }
        let parsed = lines(buffer.takePending(at: Self.noon))
        #expect(parsed.map { $0["msg"] as? String } == ["m0", "m1", "m2", "m3", "m4"])
        #expect(parsed.allSatisfy { $0["time"] as? String == "2026-12-04T16:00:00.007Z" })
        #expect(buffer.isEmpty)
    }

    /// Request lines stop at three quarters of the capacity, other lines use the rest, and
    /// beyond it everything is dropped; each drop is counted by kind.
    @Test func requestLinesGiveWayFirstAndEveryDropIsCounted() {
        var buffer = LogBuffer(capacity: 4096)
        var keptRequests = 0
        while buffer.append(.request, at: Self.noon, body: line("request")) { keptRequests += 1 }
        #expect(buffer.pendingBytes <= 3072)
        #expect(buffer.pendingBytes + 60 > 3072, "request lines filled their share")
        #expect(buffer.droppedRequestLines == 1)
        let warnKept = buffer.append(.kept, at: Self.noon, body: line("warn"))
        #expect(warnKept, "the last quarter is kept for other lines")
        var keptOthers = 1
        while buffer.append(.kept, at: Self.noon, body: line("warn")) { keptOthers += 1 }
        #expect(buffer.pendingBytes <= 4096)
        #expect(buffer.droppedOtherLines == 1)
        let requestKept = buffer.append(.request, at: Self.noon, body: line("request"))
        #expect(!requestKept)
        #expect(buffer.droppedRequestLines == 2)
        let parsed = lines(buffer.takePending(at: Self.noon))
        #expect(parsed.count == keptRequests + keptOthers)
    }

    /// The batch after the drops opens with one line that says how many and when, so the gap
    /// sits where the lines are missing.
    @Test func theBatchAfterDropsOpensWithTheDropReport() {
        var buffer = LogBuffer(capacity: 1024)
        let later = LogInstant(seconds: Self.noon.seconds + 2, milliseconds: 500)
        while buffer.append(.request, at: Self.noon, body: line("before")) {}
        buffer.append(.request, at: later, body: line("dropped"))
        buffer.append(.request, at: later, body: line("dropped"))
        let first = lines(buffer.takePending(at: later))
        #expect(first.allSatisfy { $0["msg"] as? String == "before" })
        #expect(!buffer.isEmpty, "the report waits in the next batch")
        buffer.append(.request, at: later, body: line("after"))
        let second = lines(buffer.takePending(at: later))
        #expect(second.count == 2)
        #expect(second[0]["level"] as? String == "warn")
        #expect(second[0]["dropped"] as? Int == 3)
        #expect(second[0]["firstDropped"] as? String == "2026-12-04T16:00:00.007Z")
        #expect(second[0]["lastDropped"] as? String == "2026-12-04T16:00:02.500Z")
        #expect(second[1]["msg"] as? String == "after")
        #expect(lines(buffer.takePending(at: later)).isEmpty, "reported once")
    }

    /// Two arrays take turns: the one a batch was written from becomes the next pending one,
    /// so a steady flow of lines allocates nothing.
    @Test func batchesAlternateBetweenTwoArrays() {
        var buffer = LogBuffer(capacity: 4096)
        var addresses: [UnsafePointer<UInt8>?] = []
        for round in 0..<4 {
            buffer.append(.kept, at: Self.noon, body: line("round \(round)"))
            let batch = buffer.takePending(at: Self.noon)
            addresses.append(batch.withUnsafeBufferPointer { $0.baseAddress })
            buffer.recycle(consume batch)
        }
        #expect(addresses[0] != addresses[1])
        #expect(addresses[2] == addresses[0])
        #expect(addresses[3] == addresses[1])
    }
}
