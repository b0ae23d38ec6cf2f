import Foundation
import HTTPServer
import Testing
import TestSupport

/// The server registers its client connections with epoll edge-triggered unless configured
/// otherwise; read back from the kernel's tables (/proc) by the connection's socket inode.
@Suite("Connection polling mode")
struct ConnectionPollingTests {
    @Test(arguments: [true, false])
    func clientConnectionsArePolledAsConfigured(edgeTriggered: Bool) async throws {
        try await withServer(
            configure: { $0.edgeTriggeredPolling = edgeTriggered }, loops: 1,
            routes: { $0.addImmediate(.get, "/") { _, _ in .text(.ok, "hi") } }
        ) { _, port in
            let client = try await RawClient.connect(port: port)
            // Answered, so the server has read the connection: libuv has registered it.
            #expect(try await client.request("/").status == 200)
            let inode = try #require(try Self.acceptedSocketInode(port: port))
            let events = try #require(try Self.epollEvents(ofSocketInode: inode))
            #expect(events & 0x001 != 0, "EPOLLIN")
            #expect((events & (1 << 31) != 0) == edgeTriggered, "EPOLLET")
        }
    }

    /// The inode of the established connection whose local port is `port` (/proc/net/tcp; one
    /// client, so one such line).
    static func acceptedSocketInode(port: Int) throws -> UInt64? {
        let table = try Self.procFile("/proc/net/tcp")
        let localPort = ":" + String(format: "%04X", port)
        for line in table.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            let fields = line.split(separator: " ")
            if fields.count > 9, fields[1].hasSuffix(localPort), fields[3] == "01" { return UInt64(fields[9]) }
        }
        return nil
    }

    /// A /proc file whole: they report a size of 0, and a long one comes in several reads.
    static func procFile(_ path: String) throws -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileReadNoSuchFile) }
        defer { try? file.close() }
        return String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
    }

    /// The events an epoll instance of this process holds for the socket with `inode`.
    static func epollEvents(ofSocketInode inode: UInt64) throws -> UInt32? {
        let target = "ino:" + String(inode, radix: 16)
        for descriptor in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
                link.contains("eventpoll"),
                let info = try? Self.procFile("/proc/self/fdinfo/\(descriptor)")
            else { continue }
            // "tfd: 14 events: 80000019 data: e pos:0 ino:a530b7 sdev:9"
            for line in info.split(separator: "\n") where line.hasPrefix("tfd:") {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.contains(Substring(target)), let index = fields.firstIndex(of: "events:"), index + 1 < fields.count else { continue }
                return UInt32(fields[index + 1], radix: 16)
            }
        }
        return nil
    }
}
