import HTTP1
import HTTPServer
import JSON
import ProductDetails
import Timekeeping

/// `GET /products/{id}` and `GET /products?ids=…`: the product detail pages, with validators,
/// freshness and RFC 9211 `Cache-Status` on every answer.
struct ProductRoutes {
    let service: ProductDetailsService
    /// `SURROGATE_KEY_HEADER`: a page lists the ids it shows under this name.
    var surrogateKeyHeader: String?
    /// Gzips a batch on the fly for a client that accepts it (a page's variant is stored).
    let compression: ResponseCompression

    func register(in router: inout Router<RequestRecord>) {
        let service = self.service
        let surrogateKeyHeader = self.surrogateKeyHeader
        let compression = self.compression
        // One cache look-up, on the loop thread: a fresh page is answered at once; anything else
        // goes on from that look-up in a task.
        router.add(.get, "/products/{id}", responder: { request, context in
            switch service.lookUpDetail(id: request.pathParameters["id"] ?? "", noCache: Self.asksForNoCache(request)) {
            case .answered(let answer):
                context.record?.answered(from: answer.cache)
                return .now(Self.response(for: answer, request: request, ttl: service.settings.ttl, surrogateKeyHeader: surrogateKeyHeader))
            case .pending(let pending):
                guard service.looksFirst else { return .later(Self.handler(after: pending, service, surrogateKeyHeader)) }
                // In fleet mode a page not in L1 may be a shared-cache hit: one Redis reply read on
                // this loop answers it, with no task; anything else goes on in one, from that look.
                return .deferred { promise in
                    let cancel = service.firstLook(pending) { lookup in
                        switch lookup {
                        case .answered(let answer):
                            let record = promise.record
                            record?.answered(from: answer.cache)
                            promise.answer(
                                Self.response(for: answer, request: promise.request, ttl: service.settings.ttl, surrogateKeyHeader: surrogateKeyHeader))
                        case .pending(let pending):
                            Self.later(promise, after: pending, service, surrogateKeyHeader)
                        }
                    }
                    if let cancel {
                        promise.whenAbandoned(cancel)
                    } else {
                        Self.later(promise, after: pending, service, surrogateKeyHeader)
                    }
                }
            }
        })
        router.add(.get, "/products") { request, context in
            let values = request.queryValues("ids")
            // An empty value is one empty id, so one invalid item: `ids` is an array of strings
            // in the contract, and an invalid id is that item's problem, not the batch's.
            guard values.count == 1, let list = values.first else {
                var response = ProblemDetails(status: .badRequest, detail: "Give the ids as one comma-separated parameter: ?ids=p1,p2.")
                    .response(headers: ["Cache-Control": "no-store"])
                compression.negotiate(&response, for: request)
                return response
            }
            let ids = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let record = context.record
            do throws(ProductDetailsError) {
                let results = try await service.details(
                    ids: ids, requestID: context.requestID, trace: record?.trace, observer: record, executor: context.loop)
                var response = HTTPResponse.json(.ok, Self.batchBody(results, ids: ids), headers: ["Cache-Control": "no-store"])
                compression.negotiate(&response, for: request)
                return response
            } catch {
                return Self.problem(error, record: record)
            }
        }
    }

    /// Hands a deferred page request to a task, with the record a task's request has.
    static func later(_ promise: ProductPromise, after pending: PendingDetail, _ service: ProductDetailsService, _ surrogateKeyHeader: String?) {
        // Abandoned (the client left): no record to make for a task that will not run.
        guard !promise.isKept else { return }
        FrontHandler.attachRecord(to: &promise.context, for: promise.request)
        promise.later(handler(after: pending, service, surrogateKeyHeader))
    }

    /// The rest of a page request whose cache look-up found nothing fresh, in a task.
    static func handler(after pending: PendingDetail, _ service: ProductDetailsService, _ surrogateKeyHeader: String?) -> @Sendable (HTTPRequest, ProductContext) async -> HTTPResponse {
        { request, context in
            let record = context.record
            do throws(ProductDetailsError) {
                let answer = try await service.detail(
                    after: pending, requestID: context.requestID, trace: record?.trace, observer: record, executor: context.loop)
                record?.answered(from: answer.cache)
                record?.joinedLoad(of: answer)
                return Self.response(for: answer, request: request, ttl: service.settings.ttl, surrogateKeyHeader: surrogateKeyHeader)
            } catch {
                return Self.problem(error, record: record)
            }
        }
    }

    /// `{"items":[…]}`: each item the cached document or a problem, in request order, with the id
    /// it answers first (`{"id":"p1","product":…}`), so a client can match items without counting.
    static func batchBody(_ results: [Result<DetailAnswer, ProductDetailsError>], ids: [String]) -> [UInt8] {
        var writer = JSONBytesWriter(reservingCapacity: 512)
        writer.raw(#"{"items":["#)
        for (index, result) in results.enumerated() {
            if index > 0 { writer.raw(",") }
            let object: ArraySlice<UInt8>
            switch result {
            case .success(let answer): object = answer.document.body
            case .failure(let error) where error == .invalidID: object = ProductDetailsError.invalidID(named: ids[index]).problemJSON[...]
            case .failure(let error): object = error.problemJSON[...]
            }
            writer.raw(#"{"id":"#)
            writer.string(ids[index])
            // Every document and problem is a non-empty object: its members follow the id's.
            writer.raw(",")
            writer.raw(object.dropFirst())
        }
        writer.raw("]}")
        return writer.release()
    }

    static func asksForNoCache(_ request: HTTPRequest) -> Bool {
        request.headers.containsToken("no-cache", in: "Cache-Control") || request.headers.containsToken("no-cache", in: "Pragma")
    }

    /// Written as wire-form fields: this is the hot path of a cached page. The stored gzip
    /// variant is sent when the client prefers it; a page without one reads no Accept-Encoding.
    static func response(for answer: DetailAnswer, request: HTTPRequest, ttl: Duration, surrogateKeyHeader: String? = nil) -> HTTPResponse {
        let document = answer.document
        let gzip = document.gzip.flatMap { AcceptEncoding(request.headers).choose(gzipAvailable: true) == .gzip ? $0 : nil }
        var fields = FieldBlock(reservingCapacity: 256)
        if ttl == .zero {
            fields.add("Cache-Control", "no-store")
        } else {
            fields.field("Cache-Control") {
                $0.append("max-age=")
                $0.appendDecimal(max(0, answer.cache.ttlRemaining?.wholeSeconds.clampedToInt ?? 0))
            }
        }
        fields.field("Cache-Status") { appendCacheStatus(answer.cache, to: &$0) }
        // On identity answers too: a shared cache must not give this one to a gzip client.
        fields.add("Vary", "Accept-Encoding")
        let coding: ResponseCoding = gzip == nil ? .identity : .gzip(identityBytes: document.body.count)
        if document.status == 200 {
            // Each variant has its own tag, so a 304 only ever confirms the variant sent now.
            let etag = gzip?.etag ?? document.etag
            fields.add("ETag", etag)
            if let surrogateKeyHeader {
                fields.add(checkedName: surrogateKeyHeader, SurrogateKeys.value(for: document.shownProducts))
            }
            if request.headers.contains("If-None-Match"),
               EntityTagMatch.matches(request.headers.values("If-None-Match"), etag: etag) {
                var response = HTTPResponse(status: .notModified, fields: fields)
                response.coding = gzip == nil ? .identity : .gzip(identityBytes: 0)
                return response
            }
            fields.add("Content-Type", "application/json")
        } else {
            fields.add("Content-Type", "application/problem+json")
        }
        if gzip != nil { fields.add("Content-Encoding", "gzip") }
        var response = HTTPResponse(status: HTTPStatus(code: document.status), fields: fields, body: gzip?.body ?? document.body)
        response.coding = coding
        return response
    }

    /// RFC 9211: `product-details; hit; ttl=41`, `product-details; fwd=miss; collapsed; ttl=60`,
    /// `product-details; fwd=stale; ttl=-3; detail=error`.
    ///
    /// In fleet mode, when this replica's cache did not answer alone, the shared cache comes first
    /// (RFC 9211 lists caches from the origin's side): `product-details-shared; hit; ttl=41,
    /// product-details; fwd=miss; ttl=41`.
    static func appendCacheStatus(_ outcome: CacheOutcome, to value: inout FieldBlock) {
        if let shared = outcome.shared {
            appendSharedStatus(shared, to: &value)
            value.append(", ")
        }
        value.append("product-details")
        switch outcome.result {
        case .hit: value.append("; hit")
        case .miss: value.append("; fwd=miss")
        case .stale: value.append("; fwd=stale")
        }
        if outcome.collapsed { value.append("; collapsed") }
        if let ttl = outcome.ttlRemaining {
            value.append("; ttl=")
            value.appendDecimal(ttl.wholeSeconds.clampedToInt)
        }
        if let reason = outcome.servedStaleBecause {
            value.append("; detail=")
            value.append(reason)
        } else if let reason = outcome.withoutWaiting {
            value.append("; detail=")
            value.append(reason.cacheStatusDetail)
        }
    }

    static func appendSharedStatus(_ shared: SharedCacheStatus, to value: inout FieldBlock) {
        value.append("product-details-shared")
        switch shared.result {
        case .hit: value.append("; hit")
        case .miss: value.append("; fwd=miss")
        case .stale: value.append("; fwd=stale")
        case .bypass: value.append("; fwd=bypass; detail=unavailable")
        case .request: value.append("; fwd=request")
        }
        if shared.stored { value.append("; stored") }
        if shared.collapsed { value.append("; collapsed") }
        if let ttl = shared.ttlRemaining {
            value.append("; ttl=")
            value.appendDecimal(ttl.wholeSeconds.clampedToInt)
        }
        if let reason = shared.notStored {
            value.append("; detail=")
            value.append(reason.rawValue)
        }
    }

    /// The problem answer for `error`, noted in the request's record for its log line.
    static func problem(_ error: ProductDetailsError, record: RequestRecord?) -> HTTPResponse {
        record?.failed(error)
        var headers: HTTPHeaders = ["Content-Type": "application/problem+json", "Cache-Control": "no-store", "Vary": "Accept-Encoding"]
        if let seconds = error.retryAfterSeconds {
            headers.add(name: "Retry-After", value: String(seconds))
        }
        var response = HTTPResponse(status: HTTPStatus(code: error.status), headers: headers, body: error.problemJSON)
        response.coding = .identity
        return response
    }
}

/// `If-None-Match` evaluation (RFC 9110 §13.1.2): weak comparison, lists, and `*`.
enum EntityTagMatch {
    static func matches(_ fields: [String], etag: String) -> Bool {
        let ours = opaque(etag)
        for field in fields {
            for candidate in field.split(separator: ",") {
                let trimmed = candidate.trimmingCharacters()
                if trimmed == "*" || opaque(trimmed) == ours { return true }
            }
        }
        return false
    }

    private static func opaque(_ tag: some StringProtocol) -> Substring {
        let text = Substring(tag)
        return text.hasPrefix("W/") ? text.dropFirst(2) : text
    }
}

extension Int64 {
    /// Seconds as an `Int` (the same width on the 64-bit platforms this runs on).
    fileprivate var clampedToInt: Int { Int(clamping: self) }
}

extension StringProtocol {
    func trimmingCharacters() -> Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}

extension OmissionReason {
    /// The `detail` of `Cache-Status` (and the log line's `cacheDetail`) for a page answered
    /// without waiting for a part.
    var cacheStatusDetail: String {
        switch self {
        case .grace: "grace-ended"
        case .breaker: "breaker-open"
        case .failure: "part-failed"
        case .shed: "part-shed"
        }
    }
}
