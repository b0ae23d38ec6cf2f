@testable import Logging
import Foundation
import Locking
import ProductDetails
import Testing

@testable import App

#if canImport(Glibc)
import Glibc
#endif

@Suite("Log writer", .timeLimit(.minutes(1)))
struct LogWriterTests {
    private func appendLine(_ writer: LogWriter, _ kind: LogBuffer.Kind, _ message: String) {
        writer.append(kind) { json in
            json.raw(#""level":"info","msg":"#)
            json.string(message)
            json.raw("}\n")
        }
    }

    /// Reads what is in the pipe now without waiting for more.
    private func readAvailable(_ descriptor: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 0) == 1 else { return out }
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return out }
            out += chunk[..<count]
        }
    }

    /// Threads append numbered lines at once: every line arrives whole, and each thread's lines
    /// arrive in the order it appended them.
    @Test func linesFromManyThreadsArriveWholeAndInOrderPerThread() async throws {
        let output = Locked<[UInt8]>([])
        let writer = LogWriter(capacity: 1 << 22, destination: .collector { batch in output.withLock { $0 += batch } })
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for index in 0..<5000 { appendLine(writer, .request, "t\(thread) \(index) " + String(repeating: "x", count: index % 97)) }
                }
            }
        }
        #expect(writer.close(within: .seconds(10)))
        let lines = String(decoding: output.withLock { $0 }, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "the output ends with a whole line")
        var next = [Int](repeating: 0, count: 4)
        for line in lines.dropLast() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let words = try #require(object["msg"] as? String).split(separator: " ")
            let thread = try #require(Int(words[0].dropFirst()))
            #expect(Int(words[1]) == next[thread])
            next[thread] += 1
        }
        #expect(next == [5000, 5000, 5000, 5000])
        #expect(writer.droppedLines.request == 0)
    }

    /// A pipe nobody reads: appending never waits for it; lines beyond the buffer are dropped and
    /// counted; once the pipe is read again, one line reports the drops and its count agrees.
    @Test func aStuckSinkNeverBlocksAppendsAndTheDropsAreReportedOnceItDrains() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let writer = LogWriter(capacity: 64 * 1024, destination: .descriptor(ends[1]))
        for index in 0..<10_000 { appendLine(writer, .request, "request \(index) " + String(repeating: "y", count: 150)) }
        appendLine(writer, .kept, "lifecycle line after the flood")
        let dropped = writer.droppedLines
        #expect(dropped.request > 8000, "a 64 KiB pipe and a 64 KiB buffer hold far fewer than 10,000 lines")
        #expect(dropped.other == 0, "the reserved quarter kept the lifecycle line")
        #expect(!writer.flush(within: .milliseconds(100)), "the pipe is full: flushing gives up at its bound")

        var text = ""
        var reported = 0
        var sawLifecycle = false
        while reported < dropped.request || !sawLifecycle {
            let bytes = readAvailable(ends[0])
            if bytes.isEmpty {
                writer.flush(within: .milliseconds(50))
                continue
            }
            text += String(decoding: bytes, as: UTF8.self)
            while let newline = text.firstIndex(of: "\n") {
                let line = text[..<newline]
                text = String(text[text.index(after: newline)...])
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                if object["msg"] as? String == "lifecycle line after the flood" { sawLifecycle = true }
                if let count = object["dropped"] as? Int {
                    #expect(object["level"] as? String == "warn")
                    #expect(object["firstDropped"] is String && object["lastDropped"] is String)
                    reported += count
                }
            }
        }
        #expect(reported == writer.droppedLines.request + writer.droppedLines.other)
        #expect(writer.close(within: .seconds(5)))
    }
}

/// The request log of a running service with two loops under concurrent connections: every
/// answer's line is there once, whole, and each connection's lines come in the order its requests
/// were answered; stopping the service writes out whatever was still buffered.
@Suite("Request log under concurrency")
struct RequestLogConcurrencyTests {
    @Test func everyLineIsWholeOnceAndInOrderPerConnection() async throws {
        let output = Locked<[UInt8]>([])
        let connections = 8
        let perConnection = 150
        try await withE2E(configure: { $0.logLevel = "info" }, logDestination: .collector { batch in output.withLock { $0 += batch } }) { env async throws in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for connection in 0..<connections {
                    group.addTask {
                        let client = try await env.raw()
                        defer { client.close() }
                        for index in 0..<perConnection {
                            let path = index % 3 == 0 ? "/healthz" : "/products/p\(connection * 10 + index % 7 + 1)"
                            let answer = try await client.request(path, headers: [("X-Request-ID", "c\(connection)-\(index)")])
                            #expect(answer.status == 200)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let text = String(decoding: output.withLock { $0 }, as: UTF8.self)
        #expect(text.hasSuffix("\n"))
        var next = [Int](repeating: 0, count: connections)
        for line in text.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            guard object["msg"] as? String == "request", let id = object["requestId"] as? String, id.hasPrefix("c") else { continue }
            let parts = id.dropFirst().split(separator: "-").compactMap { Int($0) }
            try #require(parts.count == 2)
            #expect(parts[1] == next[parts[0]], "connection \(parts[0]): \(id) after \(next[parts[0]] - 1)")
            next[parts[0]] = parts[1] + 1
        }
        #expect(next == [Int](repeating: perConnection, count: connections))
    }
}
