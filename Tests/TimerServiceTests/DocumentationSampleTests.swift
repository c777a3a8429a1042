import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol
import TimerService

// The code samples of the DocC catalogs (Sources/<M>/<M>.docc/<M>.md), run with the values their
// comments claim, so that a sample that stops compiling or stops telling the truth fails here.
@Suite("DocC catalog samples")
struct DocumentationSampleTests {
    @Test("TimerModel.md")
    func timerModel() throws {
        let seconds = try DurationParser.seconds(from: "1h 30min")
        #expect(seconds == 5_400)
        #expect(DurationFormatter.compact(seconds: seconds) == "1h30m")
        #expect(TimerName.isValid("tea") && !TimerName.isValid("42"))
        #expect(try TimerReference(parsing: "tea") == .name("tea"))
    }

    @Test("TimerProtocol.md")
    func timerProtocol() {
        let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"timer.status","params":{"timer":"tea"}}"#.utf8)
        var method: RPCMethod?
        if case .object(let request)? = JSONValue(parsing: line), case .string(let name)? = request["method"] {
            method = RPCMethod(rawValue: name)
        }
        #expect(method == .timerStatus)
        #expect(LocalTimeText(parsing: "2026-12-01T09:00")?.hour == 9)
        #expect(MinuteInterval.isValid(15) && !MinuteInterval.isValid(7))
    }

    @Test("Countdown.md")
    func countdown() throws {
        // 2026-11-29T15:17:33Z, one second after boot.
        let clock = ManualClock(
            boot: BootInstant(nanoseconds: 1_000_000_000), wall: Date(timeIntervalSince1970: 1_795_965_453))
        var engine = TimerEngine(clock: clock)
        engine.eventRecording = .buffered
        let tea = try engine.start(durations: [180, 60], name: "tea")
        clock.advance(bySeconds: 180)
        _ = engine.fireDueTimers()
        #expect(tea.id == 1)
        #expect(engine.takeEvents().map(\.kind) == [.started, .steppedToChild(1)])
    }

    @Test("TimerService.md")
    func timerService() {
        let clock = ManualClock(
            boot: BootInstant(nanoseconds: 1_000_000_000), wall: Date(timeIntervalSince1970: 1_795_965_453))
        var service = TimerService(engine: TimerEngine(clock: clock), pid: 42)
        let start = #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":["10s"]}}"#
        _ = service.handle(line: Array(start.utf8), context: RequestContext(uid: 1000, waiter: 1))
        let wait = #"{"jsonrpc":"2.0","id":2,"method":"timer.wait","params":{"timer":1}}"#
        _ = service.handle(line: Array(wait.utf8), context: RequestContext(uid: 1000, waiter: 2))
        clock.advance(bySeconds: 10)
        #expect(service.fireDueTimers().wakeups.map(\.waiter) == [2])
    }
}
