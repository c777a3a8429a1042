import Countdown
import Foundation
import TestSupport
import Testing

@testable import TimerStorage

@Suite("A seeded corruption campaign: one flipped byte loses at most one timer, never reuses an id")
struct CorruptionCampaignTests {
    /// Seed 0x1D10; 200 trials of 20 starts (a timer record and a nextID record per commit), one
    /// random byte of the journal after its begin record flipped by a random non-zero mask.
    @Test("200 trials: damaged copy kept, ≤ 1 timer lost, every kept timer exact, next id above every id handed out")
    func campaign() throws {
        var random = SplitMix64(seed: 0x1D10)
        for trial in 0..<200 {
            let directory = try StateDirectory()
            var engine = TimerEngine(clock: ManualClock(wall: FixedInstant.engineStart))
            let store = FileStore(directory: directory.path, bootID: "boot-a")
            _ = try store.load(now: FixedInstant.engineStart) { _ in }
            try store.open(restoring: engine.takeChanges(), snapshot: { engine.snapshot })
            let bodyStart = try directory.bytes(directory.journal).count  // header + begin record
            for index in 0..<20 {
                _ = try engine.start(durations: [300], name: "t\(index)")
                try store.commit(engine.takeChanges(), snapshot: { engine.snapshot })
            }
            let expected = engine.snapshot
            var bytes = try directory.bytes(directory.journal)
            let offset = bodyStart + Int(random.next() % UInt64(bytes.count - bodyStart))
            bytes[offset] ^= UInt8(truncatingIfNeeded: random.next() % 255 + 1)
            try directory.write(bytes, to: directory.journal)

            let loaded = try FileStore(directory: directory.path, bootID: "boot-a").load(now: FixedInstant.engineStart)
            {
                _ in
            }
            let context: Comment = "seed 0x1D10, trial \(trial), byte \(offset)"
            #expect(loaded.snapshot.timers.count >= expected.timers.count - 1, context)
            #expect(loaded.snapshot.timers.allSatisfy { expected.timers.contains($0) }, context)
            #expect(loaded.snapshot.nextID > expected.timers.map(\.id).max() ?? 0, context)
            let copies = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasPrefix("journal.damaged-") }
            #expect(copies.count == 1, context)
        }
    }
}
