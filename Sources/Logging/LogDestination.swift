#if canImport(Glibc)
import Glibc
#endif

/// Where the log writer thread sends its batches of whole lines.
package enum LogDestination: Sendable {
    /// A file descriptor written with blocking `write(2)` calls (standard output in service).
    /// The descriptor is used as inherited: its description may be shared with other processes,
    /// so its flags are never changed.
    case descriptor(Int32)
    /// A function handed each batch (tests read the lines this way).
    case collector(@Sendable ([UInt8]) -> Void)

    /// Writes the whole batch; returns false when the sink refused it (closed, bad descriptor).
    func write(_ batch: [UInt8]) -> Bool {
        switch self {
        case .collector(let collect):
            collect(batch)
            return true
        case .descriptor(let descriptor):
            return batch.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                        // Another holder of the description made it non-blocking: wait here, on
                        // the writer's own thread, until the sink takes more.
                        var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&waiting, 1, -1)
                    } else {
                        return false
                    }
                }
                return true
            }
        }
    }
}
