import Testing

/// The HTML analog of B30 beyond the six `htmlStep` vectors (WHATWG HTML stepUp/stepDown, WPT input-stepup.html).
@Suite("HTML stepUp/stepDown analog (B30)")
struct HTMLInputSteppingTests {
    @Test("date steps by days across a month end")
    func dateStep() throws {
        let input = HTMLInputStepping(type: .date, value: "2026-01-31", min: nil, max: nil, step: nil)
        #expect(try input.run(.stepUp, n: 1) == "2026-02-01")
        #expect(try input.run(.stepDown, n: 31) == "2025-12-31")
    }

    @Test("datetime-local sanitises to the normalised form; an invalid value becomes empty")
    func datetimeLocalSanitising() throws {
        let input = HTMLInputStepping(type: .datetimeLocal, value: "2026-01-01 10:00:00", min: nil, max: nil, step: nil)
        #expect(try input.run(.none, n: 1) == "2026-01-01T10:00")
        #expect(try input.run(.stepUp, n: 1) == "2026-01-01T10:01")  // default step 60 s (A13)
        let invalid = HTMLInputStepping(type: .date, value: "2026-02-30", min: nil, max: nil, step: nil)
        #expect(try invalid.run(.none, n: 1) == "")
    }

    @Test("an off-step value snaps in the direction of travel; step=any throws")
    func offStep() throws {
        let input = HTMLInputStepping(type: .time, value: "10:07", min: "10:00", max: nil, step: "300")
        #expect(try input.run(.stepUp, n: 1) == "10:10")
        #expect(try input.run(.stepDown, n: 1) == "10:05")
        let any = HTMLInputStepping(type: .time, value: "10:07", min: nil, max: nil, step: "any")
        #expect(throws: HTMLInputStepping.InvalidStateError.self) { try any.run(.stepUp, n: 1) }
    }
}
