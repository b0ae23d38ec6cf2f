/// Thrown by ``InFlightLoads/value(for:joinable:executor:load:)`` when starting one more load
/// would pass ``InFlightLoads/maxLoads``; joining a running load is still allowed.
public struct InFlightLoadsOverloaded: Error, Sendable, Equatable {
    public let limit: Int
}
