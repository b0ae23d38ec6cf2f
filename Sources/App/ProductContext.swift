import HTTPServer

/// A request's context as the service's routes see it: its attachment is the request's record.
typealias ProductContext = AttachedContext<RequestRecord>

/// The answer a deferred page request is owed, its context typed as the routes' is.
typealias ProductPromise = AttachedPromise<RequestRecord>

extension AttachedPromise where Attachment == RequestRecord {
    /// The request's record (``AttachedContext/record``).
    var record: RequestRecord? { attachment }
}

extension AttachedContext where Attachment == RequestRecord {
    /// The request's record, which the front handler attached (nil when the request is neither
    /// logged nor waits).
    var record: RequestRecord? {
        get { attachment }
        set { attachment = newValue }
    }
}
