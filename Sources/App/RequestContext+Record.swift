import HTTPServer

extension RequestContext {
    /// The request's record, which the front handler attached as the annotation (nil when the
    /// request is neither logged nor waits). The one place the App reads the annotation back.
    var record: RequestRecord? { annotation as? RequestRecord }
}
