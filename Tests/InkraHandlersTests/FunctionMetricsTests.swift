import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTesting
import InkraTime
import InkraUsage
import SingleTable
import Testing

/// The functions count on the metrics they are given, not on the process's metrics system: a
/// function built with a ``RecordingMetrics`` sink counts there, and a test needs no global set-up.
@Suite("metrics: counted on the injected sink")
struct FunctionMetricsTests {
    /// The invocations' context: 2026-03-10T10:00:00Z.
    static let context = InvocationContext(time: instant("2026-03-10T10:00:00Z"))
    let caller = Fixtures.lambdaContext("u1")
    let body = #"{"topic":"my grandmother's garden"}"#

    func generateQuestions(
        table: any Table, limits: TierLimits = TierLimits(), metrics: RecordingMetrics
    ) -> GenerateQuestions {
        GenerateQuestions(
            store: TableUsageStore(table: table, tableName: "inkra-usage"), generator: TemplateQuestionGenerator(),
            limits: limits, metrics: metrics)
    }

    @Test("generateQuestions counts a full month as QuotaExceeded, a full hour as RateLimitHit")
    func refusals() async throws {
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        let monthly = RecordingMetrics()
        let oneAMonthLimits = TierLimits(["free": Limits(monthly: 1, daily: 5, hourly: 5)])
        // The function holds the limits; the authorizer's context names only the tier.
        let oneAMonthCaller = Caller("u1", tier: .free).restAuthorizer()
        let oneAMonth = generateQuestions(table: table, limits: oneAMonthLimits, metrics: monthly)
        let event = ProxyEvent.rest(body: body, authorizer: oneAMonthCaller)
        #expect(try Reply(await oneAMonth.handle(event, context: Self.context)).statusCode == 200)
        #expect(try Reply(await oneAMonth.handle(event, context: Self.context)).statusCode == 429)
        #expect(monthly.count("QuotaExceeded") == 1)
        #expect(monthly.count("RateLimitHit") == 0)

        let hourly = RecordingMetrics()
        let oneAnHour = generateQuestions(
            table: table, limits: TierLimits(["free": Limits(monthly: 9, daily: 9, hourly: 1)]), metrics: hourly)
        #expect(
            try Reply(await oneAnHour.handle(ProxyEvent.rest(body: body, authorizer: caller), context: Self.context))
                .statusCode == 429)
        #expect(hourly.count("RateLimitHit") == 1)
        #expect(hourly.count("QuotaExceeded") == 0)
    }

    @Test("generateQuestions counts a store that cannot charge as UsageStoreFailure")
    func storeFailure() async throws {
        let metrics = RecordingMetrics()
        let base = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        let function = generateQuestions(table: ReadOnlyTable(base: base), metrics: metrics)
        let reply = try Reply(
            await function.handle(ProxyEvent.rest(body: body, authorizer: caller), context: Self.context))
        #expect(reply.statusCode == 503)
        #expect(metrics.count("UsageStoreFailure") == 1)
    }
}
