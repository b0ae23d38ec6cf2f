import Foundation
import HTTP1
import Testing
@testable import CatalogStub
import TestSupport

@Suite struct FaultScheduleTests {
    let failing = FaultPlan(errorRate: 1)
    let slow = FaultPlan(latencyMs: 5)

    @Test func nothingScriptedIsNil() {
        var schedule = FaultSchedule()
        #expect(schedule.take(for: .product) == nil)
    }

    @Test func timesCountsDownThenReverts() {
        var schedule = FaultSchedule()
        schedule.set(failing, for: .product, times: 2)
        #expect(schedule.take(for: .reviews) == nil)
        #expect(schedule.take(for: .product) == failing)
        #expect(schedule.take(for: .product) == failing)
        #expect(schedule.take(for: .product) == nil)
        #expect(schedule.entries.isEmpty)
    }

    @Test func withoutTimesLastsUntilCleared() {
        var schedule = FaultSchedule()
        schedule.set(failing, for: .suggested, times: nil)
        for _ in 0..<100 { #expect(schedule.take(for: .suggested) == failing) }
        schedule.clear()
        #expect(schedule.take(for: .suggested) == nil)
    }

    @Test func aRoutesOwnPlanWinsOverAll() {
        var schedule = FaultSchedule()
        schedule.set(slow, for: .all, times: nil)
        schedule.set(failing, for: .reviews, times: 1)
        #expect(schedule.take(for: .reviews) == failing)
        #expect(schedule.take(for: .reviews) == slow)
        #expect(schedule.take(for: .product) == slow)
    }

    @Test func allCountsEveryRouteTogether() {
        var schedule = FaultSchedule()
        schedule.set(failing, for: .all, times: 2)
        #expect(schedule.take(for: .product) == failing)
        #expect(schedule.take(for: .reviews) == failing)
        #expect(schedule.take(for: .suggested) == nil)
    }

    @Test func settingAllReplacesRoutePlans() {
        var schedule = FaultSchedule()
        schedule.set(failing, for: .product, times: nil)
        schedule.set(slow, for: .all, times: nil)
        #expect(schedule.take(for: .product) == slow)
    }

    @Test func zeroTimesRemoves() {
        var schedule = FaultSchedule()
        schedule.set(failing, for: .product, times: nil)
        schedule.set(failing, for: .product, times: 0)
        #expect(schedule.take(for: .product) == nil)
    }
}

@Suite struct ErrorRateSequenceTests {
    @Test func extremesAreExact() {
        let sequence = ErrorRateSequence(seed: 42)
        for _ in 0..<1_000 {
            #expect(sequence.fails(.product, rate: 1))
            #expect(!sequence.fails(.product, rate: 0))
        }
    }

    @Test func halfAlternates() {
        let sequence = ErrorRateSequence(seed: 42)
        let decisions = (0..<20).map { _ in sequence.fails(.reviews, rate: 0.5) }
        #expect(decisions.filter { $0 }.count == 10)
        #expect(zip(decisions, decisions.dropFirst()).allSatisfy { $0 != $1 })
    }

    @Test(arguments: [0.1, 0.25, 1.0 / 3.0, 0.9, 0.999])
    func anyRunHasItsShareOfFailures(rate: Double) {
        let sequence = ErrorRateSequence(seed: 7)
        let decisions = (0..<1_000).map { _ in sequence.fails(.suggested, rate: rate) }
        let failures = decisions.filter { $0 }.count
        let expected = Double(decisions.count) * rate
        #expect(Double(failures) >= expected.rounded(.down) && Double(failures) <= expected.rounded(.up))
    }

    @Test func sameSeedSameDecisionsAndRestartRepeats() {
        let one = ErrorRateSequence(seed: 99)
        let two = ErrorRateSequence(seed: 99)
        let first = (0..<50).map { _ in one.fails(.product, rate: 0.3) }
        #expect(first == (0..<50).map { _ in two.fails(.product, rate: 0.3) })
        one.restart()
        #expect(first == (0..<50).map { _ in one.fails(.product, rate: 0.3) })
    }

    @Test func routesDrawIndependently() {
        let sequence = ErrorRateSequence(seed: 5)
        let alone = ErrorRateSequence(seed: 5)
        var mixed: [Bool] = []
        for _ in 0..<30 {
            mixed.append(sequence.fails(.product, rate: 0.4))
            _ = sequence.fails(.reviews, rate: 0.4)
        }
        #expect(mixed == (0..<30).map { _ in alone.fails(.product, rate: 0.4) })
    }
}

@Suite struct FaultSettingTests {
    @Test func environmentDefaultsParse() throws {
        let configuration = try StubConfiguration.fromEnvironment([
            "HOST": "0.0.0.0", "PORT": "9000", "CATALOG_SIZE": "500", "STUB_SEED": "7",
            "STUB_LATENCY_MS": "25", "STUB_ERROR_RATE": "0.5", "STUB_ERROR_STATUS": "500", "STUB_RETRY_AFTER": "3",
            "STUB_HANG": "no", "STUB_RESET": "1", "STUB_MALFORMED": "true", "STUB_OVERSIZED": "on",
            "STUB_OVERSIZED_BYTES": "1000", "STUB_SLOW_FIRST_EVERY": "20", "STUB_SLOW_FIRST_MS": "250", "STUB_WORKERS": "16",
            "STUB_SERVICE_MS": "20", "UNRELATED": "x",
        ])
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9000)
        #expect(configuration.catalogSize == 500)
        #expect(configuration.seed == 7)
        #expect(configuration.workersPerRoute == 16)
        #expect(configuration.serviceTime == .milliseconds(20))
        #expect(configuration.defaultFaults == FaultPlan(
            latencyMs: 25, errorRate: 0.5, errorStatus: 500, retryAfterSeconds: 3, hang: false,
            resetMidBody: true, malformedJSON: true, oversized: true, oversizedBytes: 1000,
            slowFirstEvery: 20, slowFirstMs: 250))
    }

    @Test func emptyEnvironmentIsTheDefault() throws {
        let configuration = try StubConfiguration.fromEnvironment(["PORT": "", "STUB_HANG": ""])
        #expect(configuration == StubConfiguration())
        #expect(configuration.defaultFaults.isHarmless)
    }

    @Test func slowFirstCallsNeedBothAnEveryAndADelay() {
        #expect(!FaultPlan(slowFirstEvery: 20).isHarmless)
        #expect(FaultPlan(slowFirstEvery: 20, slowFirstMs: 0).isHarmless)
        #expect(FaultPlan(slowFirstEvery: 0, slowFirstMs: 100).isHarmless)
    }

    @Test(arguments: [
        ("PORT", "80000"), ("PORT", "http"), ("CATALOG_SIZE", "0"), ("CATALOG_SIZE", "-3"), ("STUB_SEED", "-1"),
        ("STUB_LATENCY_MS", "-1"), ("STUB_LATENCY_MS", "1.5"), ("STUB_ERROR_RATE", "1.01"), ("STUB_ERROR_RATE", "nan"),
        ("STUB_ERROR_STATUS", "200"), ("STUB_ERROR_STATUS", "600"), ("STUB_RETRY_AFTER", "soon"), ("STUB_HANG", "maybe"),
        ("STUB_RESET", "2"), ("STUB_MALFORMED", "yes please"), ("STUB_OVERSIZED", "4MiB"), ("STUB_OVERSIZED_BYTES", "0"),
        ("STUB_SLOW_FIRST_EVERY", "-1"), ("STUB_SLOW_FIRST_EVERY", "1000001"), ("STUB_SLOW_FIRST_MS", "600001"),
        ("STUB_WORKERS", "-1"), ("STUB_WORKERS", "100001"), ("STUB_WORKERS", "many"), ("STUB_SERVICE_MS", "-1"),
        ("STUB_SERVICE_MS", "600001"), ("STUB_SERVICE_MS", "0.5"),
    ])
    func badEnvironmentValuesNameTheVariable(name: String, value: String) {
        #expect {
            try StubConfiguration.fromEnvironment([name: value])
        } throws: { error in
            guard let error = error as? StubConfigurationError else { return false }
            return error.variable == name && error.description.hasPrefix(name) && error.description.contains("\"\(value)\"")
        }
    }

    @Test func headersOverrideFieldByField() throws {
        let base = FaultPlan(latencyMs: 10, errorRate: 1, retryAfterSeconds: 4)
        let headers: HTTPHeaders = ["x-stub-error-rate": "0", "X-Stub-Malformed": " true "]
        let plan = try base.overridden(by: headers)
        #expect(plan == FaultPlan(latencyMs: 10, errorRate: 0, retryAfterSeconds: 4, malformedJSON: true))
    }

    @Test func badHeaderNamesTheHeader() {
        #expect {
            try FaultPlan().overridden(by: ["X-Stub-Error-Status": "abc"])
        } throws: { error in
            (error as? FaultSettingError)?.description == #"X-Stub-Error-Status must be an HTTP status from 400 to 599, got "abc""#
        }
    }

    @Test func headersRoundTrip() throws {
        let plan = FaultPlan(latencyMs: 3, errorRate: 0.25, errorStatus: 502, retryAfterSeconds: 1, hang: true,
                             resetMidBody: true, malformedJSON: true, oversized: true, oversizedBytes: 99,
                             slowFirstEvery: 7, slowFirstMs: 5)
        #expect(try FaultPlan().overridden(by: plan.headers) == plan)
        #expect(FaultPlan().headers.isEmpty)
    }

    @Test func controlBodyDecodes() throws {
        let body = #"{"latencyMs":200,"errorRate":1,"errorStatus":500,"retryAfterSeconds":2,"hang":false,"reset":true,"malformed":true,"oversized":true,"oversizedBytes":1024,"slowFirstEvery":20,"slowFirstMs":300,"times":3}"#
        let request = try FaultControlRequest.decode(Array(body.utf8))
        #expect(request.times == 3)
        #expect(request.plan == FaultPlan(latencyMs: 200, errorRate: 1, errorStatus: 500, retryAfterSeconds: 2,
                                          resetMidBody: true, malformedJSON: true, oversized: true, oversizedBytes: 1024,
                                          slowFirstEvery: 20, slowFirstMs: 300))
        let empty = try FaultControlRequest.decode(Array("{}".utf8))
        #expect(empty.plan == FaultPlan() && empty.times == nil)
        let nulls = try FaultControlRequest.decode(Array(#"{"times":null,"retryAfterSeconds":null}"#.utf8))
        #expect(nulls.plan == FaultPlan() && nulls.times == nil)
    }

    @Test(arguments: [
        "", "[]", "not json", #"{"errorrate":1}"#, #"{"errorRate":"1"}"#, #"{"errorRate":1.5}"#, #"{"latencyMs":1.5}"#,
        #"{"hang":1}"#, #"{"times":0}"#, #"{"times":"2"}"#, #"{"errorStatus":302}"#, #"{"slowFirstEvery":-1}"#,
        #"{"slowFirstEvery":true}"#, #"{"slowFirstMs":1.5}"#,
    ])
    func badControlBodiesAreRefused(body: String) {
        #expect(throws: FaultControlError.self) { try FaultControlRequest.decode(Array(body.utf8)) }
    }
}
