import Foundation

/// One socket registered in an epoll instance of this process, as the kernel reports it in
/// /proc/self/fdinfo: how tests see how a socket is polled without reaching into libuv.
public struct EpollRegistration: Sendable, Equatable {
    // From <sys/epoll.h>, which Glibc's Swift module does not export.
    public static let readable: UInt32 = 0x001
    public static let peerClosedWriting: UInt32 = 0x2000
    public static let edgeTriggered: UInt32 = 1 << 31

    public let descriptor: Int32
    public let events: UInt32
    public let inode: UInt64

    /// The registrations of the epoll instance `epoll`.
    public static func all(in epoll: Int32) throws -> [EpollRegistration] {
        // "tfd:       14 events: 80002019 data:                e  pos:0 ino:a530b7 sdev:9"
        try procFile("/proc/self/fdinfo/\(epoll)").split(separator: "\n").compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 4, fields[0] == "tfd:", fields[2] == "events:",
                let descriptor = Int32(fields[1]), let events = UInt32(fields[3], radix: 16),
                let inode = fields.first(where: { $0.hasPrefix("ino:") }).flatMap({ UInt64($0.dropFirst(4), radix: 16) })
            else { return nil }
            return EpollRegistration(descriptor: descriptor, events: events, inode: inode)
        }
    }

    /// The registrations of every epoll instance of this process.
    public static func allInProcess() throws -> [EpollRegistration] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").flatMap { name -> [EpollRegistration] in
            guard let epoll = Int32(name),
                let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                link.contains("eventpoll")
            else { return [] }
            return (try? all(in: epoll)) ?? []
        }
    }

    /// A /proc file whole: such files report a size of 0, and a long one comes in several reads.
    public static func procFile(_ path: String) throws -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileReadNoSuchFile) }
        defer { try? file.close() }
        return String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
    }
}
