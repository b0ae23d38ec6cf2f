// ProductDetails: the domain core of the product-details service. Pure Swift: no sockets, no libuv.
//
// Design overview (details in each type's notes):
// - `ProductDetailsService` answers a page from `ResponseCache` (a Mutex-guarded LRU of ready-to-write
//   bytes: a hit is one short lock) or from the one load per id in `InFlightLoads` (an actor; a miss
//   costs one hop, which the upstream round trip dwarfs).
// - A load calls the three upstream ports at once (`async let`), each through the `Retrier`, which
//   performs the pure decisions of `RetryPolicy` within one deadline and a `RetryBudget`.
// - Forgetting is generation-based: a load takes a `LoadToken` before it starts, and its store is
//   refused if an invalidation overtook it; `InFlightLoads.detach` keeps later requests off it.
// - Time is injected (`TimeSource`); tests use `ManualTimeSource` and never wait on the wall clock.
// - Metrics flow out through the events each component reports to (`UpstreamEvents`, `PageEvents`,
//   `AdmissionEvents`; the shared cache's `SharedCacheEvents` in module Fleet); the App module
//   implements them, with no defaults.
// - Where a page the cache could not answer comes from is a `LoadPath` (`LoadPath/`): this node's
//   upstreams (`LocalLoads`), or in fleet mode module Fleet's `FleetLoads`. Nothing here imports it.
