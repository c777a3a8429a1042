import Countdown
import Foundation
import Testing
import TimerStorage

@Suite("TimerStorage.md's sample")
struct DocumentationSampleTests {
    /// The code of "Saving and restoring an engine" in TimerStorage.docc/TimerStorage.md, line for
    /// line (with `print` replaced by the expectation of what it prints).
    @Test("saves a timer in one run and finds it in the next")
    func sample() throws {
        let contents = MemoryStore.Contents()
        let clock = ManualClock(wall: Date(timeIntervalSince1970: 1_795_965_453))  // 2026-11-29T15:17:33Z

        // A first run: start a timer and commit before acknowledging it.
        let store = MemoryStore(contents: contents)
        var engine = TimerEngine(clock: clock)
        let loaded = try store.load()
        _ = engine.restore(loaded.snapshot, sameBoot: loaded.isSameBoot)
        _ = try engine.start(durations: [300], name: "tea")
        let snapshot = engine.snapshot
        try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { snapshot })
        try store.close(engine.snapshot)

        // The next run finds the timer again.
        let again = try MemoryStore(contents: contents).load()
        #expect(again.snapshot.timers.map(\.name) == ["tea"])
    }
}
