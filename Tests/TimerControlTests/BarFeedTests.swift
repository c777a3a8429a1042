import Foundation
import Testing
import TimerModel
import TimerProtocol

@testable import TimerControl

/// `timerctl bar`'s lines from fixed input: the lines timerd would send (a subscribe reply, a
/// listing, events) at fixed boot-time instants, a fixed wall clock and a fixed zone (UTC+1). The
/// loop of ``Bar/run(_:feed:socketPath:outputFD:)`` is replayed by ``replay(_:_:until:)``: input
/// when it is due, otherwise a tick after ``BarFeed/waitMilliseconds(now:)``, a line whenever
/// ``BarFeed/changedLine(now:wallNow:)`` returns one.
@Suite("timerctl bar: templates, styles and ticking")
struct BarFeedTests {
    /// Boot-time 0 is 2026-12-01T06:30:00Z, 07:30:00 at UTC+1.
    static let wallZero = Date(timeIntervalSince1970: 1_796_106_600)

    /// A timer object as timerd writes it (docs/protocol.md), progress in milliseconds.
    static func timer(
        _ id: String, _ name: String?, _ state: String, duration: Double, remaining: Double
    ) -> String {
        let total = Int(duration * 1_000)
        let done = Int((duration - remaining) * 1_000)
        let fraction = Double(done) / Double(total)
        let nameJSON = name.map { "\"\($0)\"" } ?? "null"
        return #"{"duration":\#(duration),"elapsed":\#(duration - remaining),"id":"\#(id)","name":\#(nameJSON),"#
            + #""progress":{"completedUnitCount":\#(done),"fractionCompleted":\#(fraction),"isCancelled":false,"#
            + #""isFinished":false,"isIndeterminate":false,"isPaused":false,"totalUnitCount":\#(total)},"#
            + #""remaining":\#(remaining),"state":"\#(state)"}"#
    }

    /// A `timer.event` notification.
    static func event(_ kind: String, seq: Int, _ timer: String) -> String {
        #"{"jsonrpc":"2.0","method":"timer.event","params":{"at":"2026-12-01T06:30:00.000Z","event":"\#(kind)","#
            + #""seq":\#(seq),"timer":\#(timer)}}"#
    }

    /// The replies to `timer.subscribe` (id 1) and to `timer.list` (id 2) with `timers`.
    static func start(_ timers: [String]) -> [String] {
        [
            #"{"id":1,"jsonrpc":"2.0","result":{"seq":0,"subscription":1}}"#,
            #"{"id":2,"jsonrpc":"2.0","result":[\#(timers.joined(separator: ","))]}"#,
        ]
    }

    /// Feeds `input` (milliseconds after boot-time 0, lines) and ticks as the loop would, until
    /// `end` milliseconds.
    ///
    /// - Returns: each printed line with the millisecond it was printed at.
    static func replay(_ feed: BarFeed, _ input: [(at: Int64, lines: [String])], until end: Int64) throws
        -> [String]
    {
        var feed = feed
        var pending = input[...]
        var now: Int64 = 0
        var printed: [String] = []
        while now <= end {
            while let next = pending.first, next.at <= now {
                for line in next.lines {
                    _ = try feed.receive(Array(line.utf8), now: now * 1_000_000, subscribeID: 1, listID: 2)
                }
                pending.removeFirst()
            }
            if let line = feed.changedLine(
                now: now * 1_000_000, wallNow: wallZero.addingTimeInterval(Double(now) / 1_000))
            {
                printed.append("\(now) \(line.dropLast())")
                #expect(line.last == "\n")
            }
            let wait = feed.waitMilliseconds(now: now * 1_000_000)
            let tick = wait < 0 ? Int64.max : now + Int64(wait)
            now = min(tick, pending.first?.at ?? Int64.max)
            if now == Int64.max { break }
        }
        return printed
    }

    /// The session of every golden test: nothing at first; at 1 s `tea` (5 s) starts; at 3.5 s it
    /// is paused with 2.5 s left, at 5 s resumed, at 7.5 s it finishes; at 8 s `long` (1 h) and an
    /// unnamed 90 s timer (id 3) start; at 9 s 3 is stopped.
    static let session: [(at: Int64, lines: [String])] = [
        (0, start([])),
        (1_000, [event("started", seq: 1, timer("1", "tea", "running", duration: 5, remaining: 5))]),
        (3_500, [event("paused", seq: 2, timer("1", "tea", "paused", duration: 5, remaining: 2.5))]),
        (5_000, [event("resumed", seq: 3, timer("1", "tea", "running", duration: 5, remaining: 2.5))]),
        (7_500, [event("finished", seq: 4, timer("1", "tea", "finished", duration: 5, remaining: 0))]),
        (
            8_000,
            [
                event("started", seq: 5, timer("2", "long", "running", duration: 3_600, remaining: 3_600)),
                event("started", seq: 6, timer("3", nil, "running", duration: 90, remaining: 90)),
            ]
        ),
        (9_000, [event("stopped", seq: 7, timer("3", nil, "stopped", duration: 90, remaining: 89))]),
    ]

    static func feed(
        _ style: BarStyle, _ template: String = BarTemplate.standard, idle: String = "", target: String? = nil
    )
        throws -> BarFeed
    {
        BarFeed(
            style: style, template: try BarTemplate(parsing: template), idleText: idle, target: target,
            clock: .fixed(offsetSeconds: 3_600))
    }

    @Test("plain: the idle line, a tick each second, the pause and resume, the soonest of two, a line only on change")
    func plainGolden() throws {
        // tea shows 0:00:05 at 1 s (5 s left) and one second less at 2 s and 3 s; paused at 3.5 s
        // with 2.5 s left it shows 0:00:03 (seconds rounded up) with the pause mark, and after the
        // resume at 5 s the same seconds with the play mark. The next whole second below 2.5 s is
        // 0.5 s away, so the ticks come 1 ms late (5.501 s, 6.501 s); at 7.5 s it finishes: idle.
        // At 8 s the unnamed 90 s timer ends sooner than `long` and shows by its id; once stopped
        // (9 s) `long` shows, 1 s into its hour.
        let lines = try Self.replay(try Self.feed(.plain, idle: "no timer"), Self.session, until: 10_000)
        #expect(
            lines == [
                "0 no timer",
                "1000 ▶ tea 0:00:05",
                "2000 ▶ tea 0:00:04",
                "3000 ▶ tea 0:00:03",
                "3500 ⏸ tea 0:00:03",
                "5000 ▶ tea 0:00:03",
                "5501 ▶ tea 0:00:02",
                "6501 ▶ tea 0:00:01",
                "7500 no timer",
                "8000 ▶ 3 0:01:30",
                "9000 ▶ long 0:59:59",
                "10000 ▶ long 0:59:58",
            ])
    }

    @Test("waybar: one JSON object per line, class the state, percentage, Pango-escaped text")
    func waybarGolden() throws {
        // The same session: the tooltip has the end time at UTC+1 (tea started at 07:30:01 with 5 s:
        // 07:30:06; resumed at 07:30:05 with 2.5 s: 07:30:07.5, shown rounded down). Percentages are
        // the fraction done rounded down: 1 s of 5 is 20%; 2.5 s of 5 is 50%.
        let lines = try Self.replay(try Self.feed(.waybar), Array(Self.session.prefix(4)), until: 5_600)
        #expect(
            lines == [
                #"0 {"text":"","tooltip":"no timer running","class":"idle","percentage":0}"#,
                #"1000 {"text":"▶ tea 0:00:05","tooltip":"tea: running, 0:00:05 left, 0% done, ends 07:30:06","#
                    + #""class":"running","percentage":0}"#,
                #"2000 {"text":"▶ tea 0:00:04","tooltip":"tea: running, 0:00:04 left, 20% done, ends 07:30:06","#
                    + #""class":"running","percentage":20}"#,
                #"3000 {"text":"▶ tea 0:00:03","tooltip":"tea: running, 0:00:03 left, 40% done, ends 07:30:06","#
                    + #""class":"running","percentage":40}"#,
                #"3500 {"text":"⏸ tea 0:00:03","tooltip":"tea: paused, 0:00:03 left, 50% done","#
                    + #""class":"paused","percentage":50}"#,
                #"5000 {"text":"▶ tea 0:00:03","tooltip":"tea: running, 0:00:03 left, 50% done, ends 07:30:07","#
                    + #""class":"running","percentage":50}"#,
                #"5501 {"text":"▶ tea 0:00:02","tooltip":"tea: running, 0:00:02 left, 60% done, ends 07:30:07","#
                    + #""class":"running","percentage":60}"#,
            ])
        // A name with markup characters and a quote: Pango entities, then JSON escapes.
        var feed = try Self.feed(.waybar, "{name}")
        _ = try feed.receive(
            Array(
                Self.start([Self.timer("4", "tea & <cake> \\\"x\\\"", "paused", duration: 60, remaining: 30)])[1].utf8),
            now: 0, subscribeID: 1, listID: 2)
        #expect(
            feed.line(now: 0, wallNow: Self.wallZero)
                == #"{"text":"tea &amp; &lt;cake&gt; \"x\"","tooltip":"tea &amp; &lt;cake&gt; \"x\": paused, "#
                + #"0:00:30 left, 50% done","class":"paused","percentage":50}"#)
    }

    @Test(
        "i3blocks, polybar and tmux: the template's text alone, every field",
        arguments: [BarStyle.i3blocks, .polybar, .tmux])
    func plainStylesGolden(style: BarStyle) throws {
        let template = "[{id}] {name}: {remaining} {progress} {state} ends {next} {icon} {{x}}"
        let lines = try Self.replay(try Self.feed(style, template), Array(Self.session.prefix(3)), until: 3_600)
        // {next} is the local end at UTC+1, empty while paused.
        #expect(
            lines == [
                "0 ",
                "1000 [1] tea: 0:00:05 0% running ends 07:30:06 ▶ {x}",
                "2000 [1] tea: 0:00:04 20% running ends 07:30:06 ▶ {x}",
                "3000 [1] tea: 0:00:03 40% running ends 07:30:06 ▶ {x}",
                "3500 [1] tea: 0:00:03 50% paused ends  ⏸ {x}",
            ])
    }

    @Test("bar NAME follows one timer: idle before it exists, paused and finished shown, others ignored")
    func followsOneTimer() throws {
        let lines = try Self.replay(
            try Self.feed(.plain, "{icon} {name} {remaining} {state}", idle: "-", target: "tea"), Self.session,
            until: 9_500)
        // The unnamed 90 s timer and `long` are not tea: after the finish, tea stays shown finished.
        #expect(
            lines == [
                "0 -",
                "1000 ▶ tea 0:00:05 running",
                "2000 ▶ tea 0:00:04 running",
                "3000 ▶ tea 0:00:03 running",
                "3500 ⏸ tea 0:00:03 paused",
                "5000 ▶ tea 0:00:03 running",
                "5501 ▶ tea 0:00:02 running",
                "6501 ▶ tea 0:00:01 running",
                "7500 ✓ tea 0:00:00 finished",
            ])
        // By id, and a removal makes it idle again.
        var feed = try Self.feed(.plain, "{name}", idle: "-", target: "1")
        for line in Self.start([Self.timer("1", "tea", "paused", duration: 60, remaining: 30)]) {
            _ = try feed.receive(Array(line.utf8), now: 0, subscribeID: 1, listID: 2)
        }
        #expect(feed.changedLine(now: 0, wallNow: Self.wallZero) == "tea\n")
        #expect(feed.changedLine(now: 1_000_000_000, wallNow: Self.wallZero) == nil)  // unchanged: nothing
        let removed = Self.event("removed", seq: 8, Self.timer("1", "tea", "stopped", duration: 60, remaining: 30))
        _ = try feed.receive(Array(removed.utf8), now: 0, subscribeID: 1, listID: 2)
        #expect(feed.changedLine(now: 0, wallNow: Self.wallZero) == "-\n")
    }

    @Test("nothing is printed before the first listing; a gap asks for the listing again")
    func startAndGap() throws {
        var feed = try Self.feed(.plain, idle: "idle")
        _ = try feed.receive(Array(Self.start([])[0].utf8), now: 0, subscribeID: 1, listID: 2)
        #expect(feed.changedLine(now: 0, wallNow: Self.wallZero) == nil)
        let gap = #"{"jsonrpc":"2.0","method":"timer.gap","params":{"fromSeq":3,"reason":"slow","toSeq":9}}"#
        #expect(try feed.receive(Array(gap.utf8), now: 0, subscribeID: 1, listID: 2))
        let refused = #"{"error":{"code":-32001,"message":"no such timer"},"id":1,"jsonrpc":"2.0"}"#
        #expect(throws: ControlError.failed(RPCError(code: -32001, message: "no such timer"))) {
            try feed.receive(Array(refused.utf8), now: 0, subscribeID: 1, listID: 2)
        }
    }

    @Test("the wait until the shown second changes, at most 1 s; none while paused, idle or at 0")
    func waits() throws {
        var feed = try Self.feed(.plain)
        for line in Self.start([Self.timer("1", "tea", "running", duration: 60, remaining: 30.25)]) {
            _ = try feed.receive(Array(line.utf8), now: 0, subscribeID: 1, listID: 2)
        }
        #expect(feed.waitMilliseconds(now: 0) == 251)  // 30.25 s shows 31; 30 s is 250 ms away, +1 ms
        #expect(feed.waitMilliseconds(now: 250_000_000) == 1_000)  // exactly 30 s: the next change 1 s on
        #expect(feed.waitMilliseconds(now: 31_000_000_000) == -1)  // at 0: the finished event will come
        var paused = try Self.feed(.plain)
        for line in Self.start([Self.timer("1", "tea", "paused", duration: 60, remaining: 30.25)]) {
            _ = try paused.receive(Array(line.utf8), now: 0, subscribeID: 1, listID: 2)
        }
        #expect(paused.waitMilliseconds(now: 0) == -1)
        #expect(try Self.feed(.plain).waitMilliseconds(now: 0) == -1)
    }

    @Test(
        "--format errors name the problem and what is allowed",
        arguments: [
            (
                "{foo}",
                "unknown field '{foo}' (fields: {name} {id} {remaining} {progress} {state} {next} {icon}; "
                    + "'{{' and '}}' are braces)"
            ),
            ("{name", "the '{' at character 1 opens no field: close it with '}' or write '{{'"),
            ("ab}c", "a lone '}' at character 3: write '}}' for a brace"),
            ("{{{name}}} }x", "a lone '}' at character 12: write '}}' for a brace"),
            ("{name}\n{remaining}", "a status-bar line cannot contain a line break"),
            (
                "{}",
                "unknown field '{}' (fields: {name} {id} {remaining} {progress} {state} {next} {icon}; "
                    + "'{{' and '}}' are braces)"
            ),
        ])
    func templateErrors(template: String, message: String) {
        #expect(throws: ControlError.usage("--format: " + message, verb: .bar)) { try BarTemplate(parsing: template) }
    }

    @Test("templates: literal braces, adjacent fields, text only")
    func templates() throws {
        #expect(try BarTemplate(parsing: "{{{name}}}").parts == [.text("{"), .field(.name), .text("}")])
        #expect(try BarTemplate(parsing: "{state}{icon}").parts == [.field(.state), .field(.icon)])
        #expect(try BarTemplate(parsing: "timer").parts == [.text("timer")])
        #expect(try BarTemplate(parsing: "").parts == [])
    }
}
