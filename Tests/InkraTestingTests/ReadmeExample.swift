import InkraHandlers
import InkraJSON
import InkraTesting
import Testing

@Test("A free user: 2 calls an hour, 3 a day, 5 a month")
func freeTierStory() async throws {
    let clock = ManualClock("2026-03-10T10:00:00Z")
    let generate = GenerateQuestions(
        store: InMemoryUsageStore(now: clock.closure), generator: TemplateQuestionGenerator())
    let event = ProxyEvent.rest(caller: Caller("ada"), body: #"{"topic":"my first job"}"#)
    func call() async throws -> ProxyResult { try await ProxyResult(generate.handle(event, context: clock.context)) }

    #expect(try await call().statusCode == 200)  // 10:00
    clock.advance(by: .seconds(600))
    #expect(try await call().statusCode == 200)  // 10:10
    clock.advance(by: .seconds(600))
    let hourly = try await call()  // 10:20: the hour's 2 are used
    #expect(hourly.statusCode == 429)
    #expect(hourly.code == "rate_limited")
    #expect(hourly.retryAfter == 2_400)  // until 11:00

    clock.set("2026-03-10T11:00:00Z")
    #expect(try await call().statusCode == 200)  // the next hour: the day's third
    clock.set("2026-03-10T12:00:00Z")
    #expect(try await call().body["window"] == "day")  // the day's 3 are used

    clock.set("2026-03-11T09:00:00Z")
    #expect(try await call().statusCode == 200)  // the next day: the month's fourth
    #expect(try await call().body["usage"]?["remaining"] == 0)  // and fifth
    let monthly = try await call()
    #expect(monthly.code == "quota_exceeded")
    #expect(monthly.body["resetDate"] == "2026-04-01")
}
