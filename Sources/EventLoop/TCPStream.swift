import CEdgeTriggered
import CLibUV

/// A TCP connection on one loop: reads into the loop's shared buffer and hands each chunk to
/// `onRead`; writes try the socket first (`uv_try_write`, no allocation) and queue only what the
/// kernel did not take. Loop-confined: every method must be called on `loop`'s thread.
package final class TCPStream: LoopHandle {
    /// Bytes read; valid only during the call.
    package var onRead: ((UnsafeRawBufferPointer) -> Void)?
    /// The peer closed its side (`nil`) or the connection failed. Reading has stopped.
    package var onReadEnd: ((UVError?) -> Void)?
    /// All queued output has reached the kernel.
    package var onWritesFlushed: (() -> Void)?
    /// The handle has closed; nothing else will be called.
    package var onClose: (() -> Void)?

    private var reading = false
    private var closeWhenFlushed = false
    private var edgeTriggered = false
    /// The completion of a `connect` in progress.
    var pendingConnect: ((Result<TCPStream, UVError>) -> Void)?

    var stream: UnsafeMutablePointer<uv_stream_t> { raw.assumingMemoryBound(to: uv_stream_t.self) }
    var tcp: UnsafeMutablePointer<uv_tcp_t> { raw.assumingMemoryBound(to: uv_tcp_t.self) }

    init(loop: EventLoop) throws(UVError) {
        super.init(loop: loop, type: UV_TCP)
        let rc = uv_tcp_init(loop.uvLoop, raw.assumingMemoryBound(to: uv_tcp_t.self))
        if rc < 0 {
            abandon()
            throw UVError(code: rc)
        }
        adopt()
    }

    /// Bytes handed to `write` that the kernel has not taken yet.
    package var queuedWriteBytes: Int { Int(uv_stream_get_write_queue_size(stream)) }

    package var isReading: Bool { reading }

    /// Disables Nagle's algorithm: responses are written whole, and latency matters more.
    package func setNoDelay() {
        uv_tcp_nodelay(tcp, 1)
    }

    /// Has the kernel report this connection's readiness edge-triggered, as nginx has it: the
    /// connections that got data come up in the order it arrived, where level-triggered epoll
    /// would serve the ones reported last time first (see EdgeTriggered.c). Call before the first
    /// `startReading`. False when the descriptor cannot be marked; the connection then stays
    /// level-triggered, which is always correct.
    @discardableResult
    package func pollEdgeTriggered() -> Bool {
        guard !isClosing, !edgeTriggered, let descriptor else { return edgeTriggered }
        edgeTriggered = pd_edge_triggered_mark(descriptor, true)
        return edgeTriggered
    }

    var descriptor: Int32? {
        var descriptor: uv_os_fd_t = -1
        return uv_fileno(handle, &descriptor) == 0 ? descriptor : nil
    }

    package func startReading() {
        guard !reading, !isClosing else { return }
        if uv_read_start(stream, tcpStreamAllocate, tcpStreamRead) == 0 { reading = true }
    }

    package func stopReading() {
        guard reading, !isClosing else { return }
        uv_read_stop(stream)
        reading = false
    }

    /// Writes `bytes` in order after everything written before.
    package func write(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosing, bytes.count > 0 else { return }
        var buffer = uv_buf_init(UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: CChar.self)), UInt32(bytes.count))
        let written = Int(uv_try_write(stream, &buffer, 1))
        if written == bytes.count { return }
        let offset = max(written, 0)
        if written < 0, written != Int(UV_EAGAIN.rawValue) {
            // The socket is broken; reading will report it, and the connection will close.
            return
        }
        queueWrite(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
    }

    package func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes `head` then `body` with one system call (`writev`), so a large body is not copied
    /// behind its head first. What the kernel does not take is queued as one copy.
    package func write(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) {
        guard !isClosing else { return }
        guard head.count > 0, body.count > 0 else {
            write(head.count > 0 ? head : body)
            return
        }
        var buffers = (
            uv_buf_init(UnsafeMutablePointer(mutating: head.baseAddress!.assumingMemoryBound(to: CChar.self)), UInt32(head.count)),
            uv_buf_init(UnsafeMutablePointer(mutating: body.baseAddress!.assumingMemoryBound(to: CChar.self)), UInt32(body.count)))
        let written = withUnsafeMutableBytes(of: &buffers) { raw in
            Int(uv_try_write(stream, raw.baseAddress!.assumingMemoryBound(to: uv_buf_t.self), 2))
        }
        if written == head.count + body.count { return }
        if written < 0, written != Int(UV_EAGAIN.rawValue) { return }
        let offset = max(written, 0)
        if offset >= head.count {
            queueWrite(UnsafeRawBufferPointer(rebasing: body[(offset - head.count)...]))
        } else {
            queueWrite(UnsafeRawBufferPointer(rebasing: head[offset...]), then: body)
        }
    }

    package func write(_ head: [UInt8], _ body: ArraySlice<UInt8>) {
        head.withUnsafeBytes { head in body.withUnsafeBytes { write(head, $0) } }
    }

    private func queueWrite(_ bytes: UnsafeRawBufferPointer, then more: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) {
        let request = WriteRequest.make(copying: bytes, more)
        let rc = uv_write(request.request, stream, &request.request.pointee.bufferStorage, 1, tcpStreamWrote)
        if rc < 0 { request.free() }
    }

    /// Closes the connection as soon as all queued output has been written.
    package func closeAfterFlush() {
        guard !isClosing else { return }
        if queuedWriteBytes == 0 { close() } else { closeWhenFlushed = true }
    }

    /// Closes with a TCP reset (RST) instead of an orderly FIN, discarding queued output.
    package func reset() {
        guard !isClosing else { return }
        beginClose()
        uv_tcp_close_reset(tcp, tcpStreamClosedByReset)
    }

    override func willClose() {
        // Before libuv closes the descriptor: its number may be reused by any socket afterwards.
        if edgeTriggered, let descriptor { pd_edge_triggered_mark(descriptor, false) }
        edgeTriggered = false
        reading = false
        onRead = nil
        onReadEnd = nil
        onWritesFlushed = nil
    }

    override func didClose() {
        // A connect cancelled by close: libuv has already called back with ECANCELED by now.
        pendingConnect = nil
        let callback = onClose
        onClose = nil
        callback?()
    }

    fileprivate func deliver(_ count: Int) {
        if count > 0 {
            onRead?(UnsafeRawBufferPointer(start: loop.readBuffer.baseAddress, count: count))
            guard edgeTriggered, reading, !isClosing else { return }
            if count == loop.readBuffer.count {
                rearm()
            } else if let descriptor, pd_edge_triggered_peer_closed(descriptor) {
                readEnded(nil)
            }
        } else if count < 0 {
            readEnded(count == Int(UV_EOF.rawValue) ? nil : UVError(code: Int32(count)))
        }
    }

    private func readEnded(_ error: UVError?) {
        reading = false
        uv_read_stop(stream)
        onReadEnd?(error)
    }

    /// libuv reads at most 32 buffers per readiness report; a full buffer may leave bytes behind
    /// that, edge-triggered, no later report would announce. Stopping and restarting makes libuv
    /// register the socket again before it next polls, and the kernel then checks what is there.
    private func rearm() {
        uv_read_stop(stream)
        uv_read_start(stream, tcpStreamAllocate, tcpStreamRead)
    }

    fileprivate func wrote(status: Int32) {
        guard !isClosing else { return }
        if queuedWriteBytes == 0 {
            if closeWhenFlushed {
                close()
                return
            }
            onWritesFlushed?()
        }
    }
}

/// A `uv_write_t` and a copy of the bytes it writes, in one allocation freed by the write callback.
private struct WriteRequest {
    let request: UnsafeMutablePointer<WriteRequestLayout>

    static func make(copying bytes: UnsafeRawBufferPointer, _ more: UnsafeRawBufferPointer) -> WriteRequest {
        let total = bytes.count + more.count
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<WriteRequestLayout>.stride + total, alignment: 16)
        let layout = raw.bindMemory(to: WriteRequestLayout.self, capacity: 1)
        let payload = raw + MemoryLayout<WriteRequestLayout>.stride
        payload.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        if let rest = more.baseAddress, more.count > 0 {
            (payload + bytes.count).copyMemory(from: rest, byteCount: more.count)
        }
        layout.initialize(to: WriteRequestLayout(
            write: uv_write_t(),
            bufferStorage: uv_buf_init(payload.assumingMemoryBound(to: CChar.self), UInt32(total))))
        return WriteRequest(request: layout)
    }

    func free() {
        UnsafeMutableRawPointer(request).deallocate()
    }
}

/// `write` must be the first field: libuv hands the callback a `uv_write_t *`.
private struct WriteRequestLayout {
    var write: uv_write_t
    var bufferStorage: uv_buf_t
}

extension UnsafeMutablePointer where Pointee == WriteRequestLayout {
    fileprivate static func from(_ write: UnsafeMutablePointer<uv_write_t>) -> Self {
        UnsafeMutableRawPointer(write).assumingMemoryBound(to: WriteRequestLayout.self)
    }
}

private func uv_write(
    _ request: UnsafeMutablePointer<WriteRequestLayout>, _ stream: UnsafeMutablePointer<uv_stream_t>,
    _ buffers: UnsafeMutablePointer<uv_buf_t>, _ count: UInt32, _ callback: uv_write_cb
) -> Int32 {
    UnsafeMutableRawPointer(request).withMemoryRebound(to: uv_write_t.self, capacity: 1) { write in
        CLibUV.uv_write(write, stream, buffers, count, callback)
    }
}

private func tcpStreamAllocate(
    _ handle: UnsafeMutablePointer<uv_handle_t>?, _ suggested: Int, _ buffer: UnsafeMutablePointer<uv_buf_t>?
) {
    guard let handle, let buffer, let owner = LoopHandle.owner(of: handle) else { return }
    let scratch = owner.loop.readBuffer
    buffer.pointee = uv_buf_init(scratch.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(scratch.count))
}

private func tcpStreamRead(
    _ stream: UnsafeMutablePointer<uv_stream_t>?, _ count: Int, _ buffer: UnsafePointer<uv_buf_t>?
) {
    guard let stream, count != 0 else { return }
    let handle = UnsafeMutableRawPointer(stream).assumingMemoryBound(to: uv_handle_t.self)
    (LoopHandle.owner(of: handle) as? TCPStream)?.deliver(count)
}

private func tcpStreamClosedByReset(_ handle: UnsafeMutablePointer<uv_handle_t>?) {
    LoopHandle.handleClosed(handle)
}

private func tcpStreamWrote(_ write: UnsafeMutablePointer<uv_write_t>?, _ status: Int32) {
    guard let write else { return }
    let stream = write.pointee.handle
    UnsafeMutableRawPointer(write).deallocate()
    guard let stream else { return }
    let handle = UnsafeMutableRawPointer(stream).assumingMemoryBound(to: uv_handle_t.self)
    (LoopHandle.owner(of: handle) as? TCPStream)?.wrote(status: status)
}
