/// A test hook: what a group's loops leave as if libuv had not called CEdgeTriggered's
/// `epoll_ctl` (`registrations`: no EPOLLET added) or `epoll_wait` (`reports`: no peer-closed
/// notes), as with a libuv that submits `epoll_ctl` through io_uring. Lets tests prove that
/// `EdgeTriggeredPollingCheck` notices and that the service then polls level-triggered.
package struct EpollInterposerBypass: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    package static let registrations = EpollInterposerBypass(rawValue: 1)
    package static let reports = EpollInterposerBypass(rawValue: 2)
}
