import Foundation

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// A blocking TCP server on 127.0.0.1 whose connections follow a script, for answers our own
/// server would never give (garbage, a close instead of an answer). Runs on threads of its own.
final class ScriptedServer: @unchecked Sendable {
    /// One step of a connection's script.
    enum Step: Sendable {
        /// Read until a complete request head ("\r\n\r\n") has arrived.
        case readRequest
        case write(String)
        case close
    }

    // `listener` and `port` are set in init and never change.
    let port: Int
    private let listener: Int32

    /// Serves the i-th accepted connection with `scripts[i]`; further connections are closed.
    init(scripts: [[Step]]) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                guard bind(listener, raw, length) == 0, listen(listener, 16) == 0, getsockname(listener, raw, &length) == 0 else {
                    throw ScriptedServerError.socket(errno)
                }
            }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread {
            for script in scripts {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread { Self.run(script, on: client) }.start()
            }
        }.start()
    }

    deinit {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
    }

    private static func run(_ script: [Step], on client: Int32) {
        var pending: [UInt8] = []
        for step in script {
            switch step {
            case .readRequest:
                while pending.firstRange(of: [13, 10, 13, 10]) == nil {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                    if count <= 0 {
                        Glibc.close(client)
                        return
                    }
                    pending.append(contentsOf: buffer[..<count])
                }
                let end = pending.firstRange(of: [13, 10, 13, 10])!
                pending.removeSubrange(..<end.upperBound)
            case .write(let text):
                let bytes = Array(text.utf8)
                _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            case .close:
                Glibc.close(client)
                return
            }
        }
        Glibc.close(client)
    }
}

enum ScriptedServerError: Error {
    case socket(Int32)
}
