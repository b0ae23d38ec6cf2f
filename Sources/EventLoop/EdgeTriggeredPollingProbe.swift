import CEdgeTriggered
import CLibUV

/// One loop's run of `EdgeTriggeredPollingCheck`: a listener on 127.0.0.1, a client that
/// connects, writes one byte and closes, and the accepted side, marked edge-triggered, watched
/// through each step. Keeps itself alive through its handles' callbacks until it finishes, and
/// closes everything it opened. Loop-confined.
final class EdgeTriggeredPollingProbe {
    private let loop: EventLoop
    private var finish: ((EdgeTriggeredPollingCheck.Outcome) -> Void)?
    private var listener: TCPListener?
    private var client: TCPStream?
    private var accepted: TCPStream?
    private let timer: LoopTimer
    private var step = Step.connecting

    private enum Step {
        case connecting, awaitingByte, awaitingEnd, finished
    }

    init(loop: EventLoop, finish: @escaping (EdgeTriggeredPollingCheck.Outcome) -> Void) {
        self.loop = loop
        self.finish = finish
        timer = LoopTimer(loop: loop)
    }

    func start() {
        timer.start(after: EdgeTriggeredPollingCheck.timeout) { [self] in
            end(.failed("no answer within \(EdgeTriggeredPollingCheck.timeout) while \(step)"))
        }
        do {
            let address = try SocketAddress(ip: "127.0.0.1", port: 0)
            let listener = try TCPListener(loop: loop, address: address, backlog: 1, reusePort: false) { [self] stream in
                accept(stream)
            }
            self.listener = listener
            client = TCPStream.connect(to: try SocketAddress(ip: "127.0.0.1", port: listener.port), on: loop) { [self] result in
                switch result {
                case .success(let stream): stream.write(Array("x".utf8))
                case .failure(let error): end(.failed("cannot connect over loopback: \(error)"))
                }
            }
        } catch {
            end(.failed("cannot listen on loopback: \(error)"))
        }
    }

    private func accept(_ stream: TCPStream) {
        guard step == .connecting else {
            stream.close()
            return
        }
        accepted = stream
        guard stream.pollEdgeTriggered() else {
            end(.failed("the accepted socket's descriptor cannot be marked"))
            return
        }
        step = .awaitingByte
        stream.onRead = { [self] _ in byteArrived() }
        stream.onReadEnd = { [self] error in streamEnded(error) }
        stream.startReading()
    }

    /// libuv registered the socket before the poll that reported the byte: the kernel's record of
    /// that registration says whether the interposed `epoll_ctl` added its flags.
    private func byteArrived() {
        guard step == .awaitingByte, let descriptor = accepted?.descriptor else { return }
        let wanted = EpollRegistration.edgeTriggered | EpollRegistration.peerClosedWriting
        do {
            let registrations = try EpollRegistration.all(in: uv_backend_fd(loop.uvLoop))
            guard let events = registrations.first(where: { $0.descriptor == descriptor })?.events else {
                end(.failed("the socket is not in the loop's epoll instance (libuv does not poll through epoll_ctl)"))
                return
            }
            guard events & wanted == wanted else {
                end(.failed("the registration lacks EPOLLET or EPOLLRDHUP (events \(String(events, radix: 16))): libuv did not call the interposed epoll_ctl"))
                return
            }
        } catch {
            end(.failed("cannot read the loop's epoll registrations from /proc/self/fdinfo: \(error)"))
            return
        }
        step = .awaitingEnd
        client?.close()
    }

    private func streamEnded(_ error: UVError?) {
        guard step == .awaitingEnd else {
            end(.failed("the connection ended early: \(error.map { "\($0)" } ?? "end of stream")"))
            return
        }
        guard let descriptor = accepted?.descriptor, pd_edge_triggered_peer_closed(descriptor) else {
            end(.failed("the peer's close was not noted: libuv did not call the interposed epoll_wait"))
            return
        }
        end(.passed)
    }

    private func end(_ outcome: EdgeTriggeredPollingCheck.Outcome) {
        guard step != .finished else { return }
        step = .finished
        timer.cancel()
        listener?.close()
        client?.close()
        accepted?.close()
        listener = nil
        client = nil
        accepted = nil
        let finish = self.finish
        self.finish = nil
        finish?(outcome)
    }
}
