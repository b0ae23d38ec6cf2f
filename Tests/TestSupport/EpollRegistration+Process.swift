import EventLoop
import Foundation

extension EpollRegistration {
    /// The registrations of every epoll instance of this process.
    package static func allInProcess() throws -> [EpollRegistration] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").flatMap { name -> [EpollRegistration] in
            guard let epoll = Int32(name),
                let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                link.contains("eventpoll")
            else { return [] }
            return (try? all(in: epoll)) ?? []
        }
    }

    /// The inode of the established connection whose local port is `port` (/proc/net/tcp; one
    /// client, so one such line).
    package static func acceptedSocketInode(port: Int) throws -> UInt64? {
        let table = try procFile("/proc/net/tcp")
        let localPort = ":" + String(format: "%04X", port)
        for line in table.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            let fields = line.split(separator: " ")
            if fields.count > 9, fields[1].hasSuffix(localPort), fields[3] == "01" { return UInt64(fields[9]) }
        }
        return nil
    }
}
