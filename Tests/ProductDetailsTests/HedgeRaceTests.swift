import Testing
@testable import ProductDetails

@Suite("HedgeRace")
struct HedgeRaceTests {
    @Test func anAnswerPostedAfterTheDelayIsTakenWithoutWaiting() async {
        let race = HedgeRace<Int>()
        race.post(.delayPassed)
        race.post(.answered(.success(1), byHedge: false))
        guard case .delayPassed = await race.next() else {
            Issue.record("the delay's event comes first")
            return
        }
        let answer = race.answerIfPosted()
        #expect(answer?.outcome == .success(1))
        #expect(answer?.byHedge == false)
        #expect(race.answerIfPosted() == nil)
    }

    @Test func withNoAnswerPostedTheQueueStaysAsItWas() async {
        let race = HedgeRace<Int>()
        race.post(.delayPassed)
        #expect(race.answerIfPosted() == nil)
        guard case .delayPassed = await race.next() else {
            Issue.record("the delay's event is still queued")
            return
        }
    }

    @Test func anAnswerBehindThePendingDelayIsTakenAndTheDelayStays() async {
        let race = HedgeRace<Int>()
        race.post(.delayPassed)
        race.post(.answered(.failure(.timedOut), byHedge: true))
        let answer = race.answerIfPosted()
        #expect(answer?.outcome == .failure(.timedOut))
        #expect(answer?.byHedge == true)
        guard case .delayPassed = await race.next() else {
            Issue.record("the delay's event is still queued")
            return
        }
    }
}
