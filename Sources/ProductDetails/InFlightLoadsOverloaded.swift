/// Thrown by ``InFlightLoads/value(for:joinable:executor:load:)`` when starting one more load
/// would pass ``InFlightLoads/maxLoads``; joining a running load is still allowed.
package struct InFlightLoadsOverloaded: Error, Sendable, Equatable {
    package let limit: Int
}
