import Testing
import TimerModel
import TimerProtocol

@testable import Countdown

@Suite("ProgressTree.leafSnapshot matches a childless tree")
struct ProgressTreeLeafTests {
    static let counts: [(total: Int64, completed: Int64)] = [
        (0, 0), (0, 5), (1, 0), (1, 1), (3, 1), (3, 2), (60_000, 59_999), (60_000, 60_000), (60_000, 90_000),
        (86_400_000, 1_234_567), (31_622_400_000, 7), (-1, 0), (10, -4), (Int64.max, Int64.max - 1),
    ]

    @Test("same snapshot as building the node, for each state", arguments: counts)
    func sameAsTree(total: Int64, completed: Int64) {
        for (isCancelled, isPaused) in [(false, false), (true, false), (false, true), (true, true)] {
            var tree = ProgressTree(totalUnitCount: total)
            tree.completedUnitCount = completed
            if isCancelled { tree.cancel() }
            if isPaused { tree.pause() }
            let leaf = ProgressTree.leafSnapshot(
                totalUnitCount: total, completedUnitCount: completed, isCancelled: isCancelled, isPaused: isPaused)
            #expect(leaf == tree.snapshot)
        }
    }
}
