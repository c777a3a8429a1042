import Foundation
import Testing
import TimerProtocol

@testable import TimerControl

/// The human lines of `timerctl events`, from notification lines as timerd writes them
/// (docs/protocol.md, "Events"), with instants shown in UTC so that no machine zone is read.
@Suite("timerctl events lines")
struct EventLineTests {
    /// `2026-11-29 09:01:00`-style UTC text, standing in for the local zone.
    private static func utc(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0)
    }

    private static func line(_ json: String) throws -> String {
        guard case .event(let event)? = try ServerNotification(line: Array(json.utf8)) else {
            throw JSONShapeError("not a timer.event")
        }
        return EventLine.render(event, localTime: utc)
    }

    /// The timer object of docs/protocol.md's "steps" group after its first child (60 s) ended.
    private static let stepsTimer =
        #"{"children":[{"duration":60,"elapsed":60,"id":"3.1","name":null,"progress":{"completedUnitCount":60000,"fractionCompleted":1,"isCancelled":false,"isFinished":true,"isIndeterminate":false,"isPaused":false,"totalUnitCount":60000},"remaining":0,"state":"finished"},{"duration":30,"elapsed":0,"id":"3.2","name":null,"progress":{"completedUnitCount":0,"fractionCompleted":0,"isCancelled":false,"isFinished":false,"isIndeterminate":false,"isPaused":false,"totalUnitCount":30000},"remaining":30,"state":"running"}],"createdAt":"2026-11-29T09:26:00.000Z","currentChild":1,"duration":90,"elapsed":60,"endsAt":"2026-11-29T09:27:30.000Z","id":"3","name":"steps","progress":{"completedUnitCount":60000,"fractionCompleted":0.6666666666666666,"isCancelled":false,"isFinished":false,"isIndeterminate":false,"isPaused":false,"totalUnitCount":90000},"remaining":30,"startedAt":"2026-11-29T09:26:00.000Z","state":"running"}"#

    @Test("a step names the child (1-based) of the group's count and the time left")
    func step() throws {
        let json =
            #"{"jsonrpc":"2.0","method":"timer.event","params":{"at":"2026-11-29T09:27:00.000Z","child":1,"event":"step","seq":9,"timer":"#
            + Self.stepsTimer + "}}"
        #expect(try Self.line(json) == "2026-11-29 09:27:00  step       3  steps  step 2 of 2, 0:00:30 left\n")
    }

    @Test("a kind this timerctl does not know shows its own members as JSON")
    func unknownKind() throws {
        let json =
            #"{"jsonrpc":"2.0","method":"timer.event","params":{"alarm":{"kind":"exec","status":0,"trigger":"finished"},"at":"2026-11-29T09:27:30.000Z","event":"alarm","seq":11,"timer":"#
            + Self.stepsTimer + "}}"
        #expect(
            try Self.line(json)
                == #"2026-11-29 09:27:30  alarm      3  steps  alarm={"kind":"exec","status":0,"trigger":"finished"}"#
                + "\n")
    }

    /// Every `timer.event` notification line of docs/protocol.md (one or more of each kind the
    /// daemon sends), in order.
    private static func documentedEvents() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let protocolText = try String(
            contentsOf: root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        return protocolText.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.firstIndex(of: "{"), line.contains(#""method":"timer.event""#) else { return nil }
            return String(line[start...])
        }
    }

    @Test("every kind's detail in one format: golden lines for docs/protocol.md's events")
    func golden() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
        let expected = try String(contentsOf: directory.appendingPathComponent("events-lines.txt"), encoding: .utf8)
        let lines = try Self.documentedEvents().map(Self.line).joined()
        #expect(lines == expected)
    }

    @Test("a gap says how many events were lost and why")
    func gap() {
        #expect(
            EventLine.gap(130, 1_621, reason: "slow").hasSuffix(
                "  -- 1492 events lost (events 130-1621): this reader was too slow --\n"))
        #expect(
            EventLine.gap(2, 2, reason: "ring").hasSuffix(
                "  -- 1 event lost (event 2): they are older than timerd keeps --\n"))
    }
}
