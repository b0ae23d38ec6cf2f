/// What Accept-Encoding negotiation picked among the codings this service can send.
package enum ContentCodingChoice: Sendable, Equatable {
    case gzip
    case identity
    /// The request refused identity (`identity;q=0`, or `*;q=0` without an `identity` entry) and
    /// accepts nothing else on offer. RFC 9110 §12.1 lets the server either answer 406 or
    /// disregard the field. The service's choice is to answer identity anyway, as nginx, Envoy and
    /// Varnish do: a page below the compression threshold has no gzip form, so a 406 would make
    /// such a client's pages come and go with their size, and the 406 body would be identity too.
    case notAcceptable
}
