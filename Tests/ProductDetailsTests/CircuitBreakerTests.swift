import ProductDetails
import Testing

@Suite("Circuit breaker")
struct CircuitBreakerTests {
    @Test func opensAfterFailuresInARowAndAdmitsNothingWhileOpen() {
        var breaker = CircuitBreaker(failureThreshold: 3, openFor: .seconds(5))
        for second in 0..<2 {
            #expect(breaker.admit(now: .seconds(second)).admitted)
            #expect(breaker.record(success: false, now: .seconds(second)) == nil)
        }
        // A success in between starts the count again.
        #expect(breaker.record(success: true, now: .seconds(2)) == nil)
        for _ in 0..<2 { #expect(breaker.record(success: false, now: .seconds(3)) == nil) }
        #expect(breaker.record(success: false, now: .seconds(3)) == .open)
        #expect(breaker.admit(now: .seconds(3)).admitted == false)
        #expect(breaker.admit(now: .milliseconds(7_999)).admitted == false)
    }

    @Test func oneProbeAfterTheOpenTimeClosesOrReopensIt() {
        var breaker = CircuitBreaker(failureThreshold: 1, openFor: .seconds(5))
        #expect(breaker.record(success: false, now: .zero) == .open)
        let probe = breaker.admit(now: .seconds(5))
        #expect(probe.admitted && probe.changedTo == .halfOpen)
        #expect(breaker.admit(now: .seconds(5)).admitted == false, "one probe at a time")
        #expect(breaker.record(success: false, now: .seconds(6)) == .open)
        #expect(breaker.admit(now: .milliseconds(10_999)).admitted == false)
        #expect(breaker.admit(now: .seconds(11)).admitted)
        #expect(breaker.record(success: true, now: .seconds(11)) == .closed)
        #expect(breaker.admit(now: .seconds(11)).admitted)
    }

    @Test func anAbandonedProbeLetsTheNextCallProbe() {
        var breaker = CircuitBreaker(failureThreshold: 1, openFor: .seconds(1))
        _ = breaker.record(success: false, now: .zero)
        #expect(breaker.admit(now: .seconds(1)).admitted)
        breaker.abandonProbe()
        #expect(breaker.admit(now: .seconds(1)).admitted)
    }

    @Test func aLateFailureOfACallAdmittedBeforeItOpenedChangesNothing() {
        var breaker = CircuitBreaker(failureThreshold: 1, openFor: .seconds(5))
        #expect(breaker.record(success: false, now: .zero) == .open)
        #expect(breaker.record(success: false, now: .seconds(4)) == nil)
        #expect(breaker.admit(now: .seconds(5)).admitted)
    }
}
