#if canImport(Glibc)
import Glibc
#endif

/// One descriptor registered in an epoll instance, as the kernel reports it in
/// `/proc/self/fdinfo/<epoll>`: what the kernel really polls, whoever registered it.
package struct EpollRegistration: Sendable, Equatable {
    // From <sys/epoll.h>, which Glibc's Swift module does not export.
    package static let readable: UInt32 = 0x001
    package static let peerClosedWriting: UInt32 = 0x2000
    package static let edgeTriggered: UInt32 = 1 << 31

    package let descriptor: Int32
    package let events: UInt32
    package let inode: UInt64

    /// The registrations listed in an epoll instance's fdinfo text, whose lines read
    /// `tfd:       14 events: 80002019 data:                e  pos:0 ino:a530b7 sdev:9`.
    package static func parse(fdinfo: String) -> [EpollRegistration] {
        fdinfo.split(separator: "\n").compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 4, fields[0] == "tfd:", fields[2] == "events:",
                let descriptor = Int32(fields[1]), let events = UInt32(fields[3], radix: 16),
                let inode = fields.first(where: { $0.hasPrefix("ino:") }).flatMap({ UInt64($0.dropFirst(4), radix: 16) })
            else { return nil }
            return EpollRegistration(descriptor: descriptor, events: events, inode: inode)
        }
    }

    /// The registrations of the epoll instance `epoll` of this process; throws when its fdinfo
    /// cannot be read (no /proc).
    package static func all(in epoll: Int32) throws(UVError) -> [EpollRegistration] {
        parse(fdinfo: try procFile("/proc/self/fdinfo/\(epoll)"))
    }

    /// A /proc file whole: such files report a size of 0, and a long one comes in several reads.
    package static func procFile(_ path: String) throws(UVError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw UVError(code: -errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw UVError(code: -errno) }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[..<count]
        }
    }
}
