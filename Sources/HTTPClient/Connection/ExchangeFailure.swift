/// How an exchange on a pooled connection ended badly. `stale` means the server closed a reused
/// connection before sending a byte: the request can safely go out again on a fresh one.
enum ExchangeFailure: Error, Equatable {
    case stale
    case failed(HTTPClientError)
}
