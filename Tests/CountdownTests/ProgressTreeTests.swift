import Foundation
import Testing
import TimerModel
import TimerProtocol

@testable import Countdown

@Suite("ProgressTree rules")
struct ProgressTreeTests {
    struct LeafCase: Sendable, CustomStringConvertible {
        var total: Int64
        var completed: Int64
        var fraction: Double
        var isIndeterminate: Bool
        var isFinished: Bool
        var description: String { "\(completed)/\(total)" }
    }

    /// Measured on swift-corelibs-foundation 6.3.1 (`Progress(totalUnitCount:)`, then
    /// `completedUnitCount`).
    static let leafCases: [LeafCase] = [
        LeafCase(total: 0, completed: 0, fraction: 0, isIndeterminate: true, isFinished: false),
        LeafCase(total: 0, completed: 5, fraction: 1, isIndeterminate: false, isFinished: true),
        LeafCase(total: 0, completed: -1, fraction: 0, isIndeterminate: true, isFinished: false),
        LeafCase(total: 10, completed: 0, fraction: 0, isIndeterminate: false, isFinished: false),
        LeafCase(total: 10, completed: 5, fraction: 0.5, isIndeterminate: false, isFinished: false),
        LeafCase(total: 10, completed: 10, fraction: 1, isIndeterminate: false, isFinished: true),
        LeafCase(total: 10, completed: 15, fraction: 1.5, isIndeterminate: false, isFinished: true),
        LeafCase(total: 10, completed: -1, fraction: 0, isIndeterminate: true, isFinished: false),
        LeafCase(total: -1, completed: 0, fraction: 0, isIndeterminate: true, isFinished: false),
        LeafCase(total: -1, completed: 5, fraction: 0, isIndeterminate: true, isFinished: false),
        LeafCase(total: -5, completed: -10, fraction: 0, isIndeterminate: true, isFinished: false),
    ]

    @Test("Leaf counts give Foundation's fraction, isIndeterminate and isFinished", arguments: leafCases)
    func leaf(_ leafCase: LeafCase) {
        var tree = ProgressTree(totalUnitCount: leafCase.total)
        tree.completedUnitCount = leafCase.completed
        #expect(
            tree.snapshot
                == ProgressSnapshot(
                    totalUnitCount: leafCase.total, completedUnitCount: leafCase.completed,
                    fractionCompleted: leafCase.fraction, isIndeterminate: leafCase.isIndeterminate,
                    isFinished: leafCase.isFinished, isCancelled: false, isPaused: false))
    }

    @Test("A new tree has total 0, no children, and is indeterminate")
    func defaults() {
        let tree = ProgressTree()
        #expect(tree.totalUnitCount == 0 && tree.completedUnitCount == 0 && tree.children.isEmpty)
        #expect(tree.isIndeterminate && !tree.isFinished && !tree.isCancelled && !tree.isPaused)
        #expect(tree.fractionCompleted == 0)
    }

    @Test("A running child counts its fraction times its pending units")
    func runningChild() {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(ProgressTree(totalUnitCount: 4), withPendingUnitCount: 5)
        #expect(tree.fractionCompleted == 0)
        tree.updateChild(at: 0) { $0.completedUnitCount = 2 }
        #expect(tree.fractionCompleted == 0.25 && tree.completedUnitCount == 0)
        tree.updateChild(at: 0) { $0.completedUnitCount = 3 }
        #expect(tree.fractionCompleted == 0.375 && tree.completedUnitCount == 0 && !tree.children[0].isCredited)
    }

    @Test("A finished child credits exactly its pending units, even when it overshoots")
    func finishedChildCredited() {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(ProgressTree(totalUnitCount: 4), withPendingUnitCount: 5)
        tree.addChild(ProgressTree(totalUnitCount: 4), withPendingUnitCount: 5)
        tree.updateChild(at: 0) { $0.completedUnitCount = 4 }
        #expect(tree.completedUnitCount == 5 && tree.fractionCompleted == 0.5 && tree.children[0].isCredited)
        tree.updateChild(at: 1) { $0.completedUnitCount = 9 }
        #expect(tree.completedUnitCount == 10 && tree.fractionCompleted == 1 && tree.isFinished)
    }

    @Test("An already finished child is credited when added")
    func finishedChildAdded() {
        var child = ProgressTree(totalUnitCount: 4)
        child.completedUnitCount = 4
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(child, withPendingUnitCount: 5)
        #expect(tree.completedUnitCount == 5 && tree.children[0].isCredited)
    }

    @Test("A child is credited when its overall fraction reaches 1, though its own isFinished is false")
    func creditedThroughOverallFraction() {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(ProgressTree(totalUnitCount: 10), withPendingUnitCount: 5)
        tree.updateChild(at: 0) {
            $0.addChild(ProgressTree(totalUnitCount: 2), withPendingUnitCount: 10)
            $0.completedUnitCount = 5
        }
        #expect(tree.fractionCompleted == 0.25 && tree.completedUnitCount == 0)
        tree.updateChild(at: 0) { $0.updateChild(at: 0) { $0.completedUnitCount = 1 } }
        #expect(tree.completedUnitCount == 5 && tree.children[0].isCredited)
        #expect(!tree.children[0].node.isFinished && tree.children[0].node.fractionCompleted == 1)
    }

    @Test("Crediting at exactly 1 is exact where Double sums fall short (0.7 + 0.2 + 0.1)")
    func exactCreditAtOne() {
        #expect(0.7 + 0.2 + 0.1 < 1)  // guard: a Double sum would not credit
        var tree = ProgressTree(totalUnitCount: 5)
        tree.addChild(ProgressTree(totalUnitCount: 1), withPendingUnitCount: 5)
        tree.updateChild(at: 0) { node in
            for completed: Int64 in [7, 2, 1] {
                var grandchild = ProgressTree(totalUnitCount: 10)
                grandchild.completedUnitCount = completed
                node.addChild(grandchild, withPendingUnitCount: 1)
            }
        }
        #expect(tree.completedUnitCount == 5 && tree.isFinished && tree.fractionCompleted == 1)
    }

    @Test("Credits cascade from a grandchild to the root")
    func nestedCascade() {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(ProgressTree(totalUnitCount: 4), withPendingUnitCount: 6)
        tree.updateChild(at: 0) { $0.addChild(ProgressTree(totalUnitCount: 7), withPendingUnitCount: 4) }
        tree.updateChild(at: 0) { $0.updateChild(at: 0) { $0.completedUnitCount = 5 } }
        #expect(abs(tree.fractionCompleted - 6.0 * (4.0 * 5.0 / 7.0) / 4.0 / 10.0) <= 1e-15)
        tree.updateChild(at: 0) { $0.updateChild(at: 0) { $0.completedUnitCount = 7 } }
        #expect(tree.children[0].node.completedUnitCount == 4 && tree.children[0].isCredited)
        #expect(tree.completedUnitCount == 6 && tree.fractionCompleted == 0.6)
    }

    @Test("Pending counts of 0 never move the parent; negative ones subtract")
    func zeroAndNegativePending() {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(ProgressTree(totalUnitCount: 2), withPendingUnitCount: 0)
        tree.updateChild(at: 0) { $0.completedUnitCount = 1 }
        #expect(tree.fractionCompleted == 0)
        tree.updateChild(at: 0) { $0.completedUnitCount = 2 }
        #expect(tree.completedUnitCount == 0 && tree.children[0].isCredited)
        tree.addChild(ProgressTree(totalUnitCount: 2), withPendingUnitCount: -4)
        tree.completedUnitCount = 6
        tree.updateChild(at: 1) { $0.completedUnitCount = 1 }
        #expect(tree.fractionCompleted == 0.4)
        tree.updateChild(at: 1) { $0.completedUnitCount = 2 }
        #expect(tree.completedUnitCount == 2 && tree.fractionCompleted == 0.2)
    }

    @Test("Changing a parent's total rescales running children")
    func totalRescales() {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(ProgressTree(totalUnitCount: 4), withPendingUnitCount: 5)
        tree.updateChild(at: 0) { $0.completedUnitCount = 2 }
        tree.totalUnitCount = 20
        #expect(tree.fractionCompleted == 0.125)
        tree.updateChild(at: 0) { $0.completedUnitCount = 3 }
        #expect(tree.fractionCompleted == 0.1875)
    }

    @Test("Indeterminate children count as 0; a negative completed count can still give a fraction")
    func indeterminateChildren() {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(ProgressTree(totalUnitCount: -1), withPendingUnitCount: 5)
        tree.updateChild(at: 0) { $0.completedUnitCount = 3 }
        #expect(tree.fractionCompleted == 0)
        tree.updateChild(at: 0) { $0.totalUnitCount = 6 }
        #expect(tree.fractionCompleted == 0.25)
        tree.completedUnitCount = -1
        #expect(tree.isIndeterminate && tree.fractionCompleted == 0.15)
        tree.completedUnitCount = -3
        #expect(tree.isIndeterminate && tree.fractionCompleted == 0)
    }

    @Test("A parent with total 0 ignores children's fractions but takes their credits")
    func parentWithZeroTotal() {
        var tree = ProgressTree(totalUnitCount: 0)
        tree.addChild(ProgressTree(totalUnitCount: 4), withPendingUnitCount: 5)
        tree.updateChild(at: 0) { $0.completedUnitCount = 2 }
        #expect(tree.isIndeterminate && tree.fractionCompleted == 0)
        tree.updateChild(at: 0) { $0.completedUnitCount = 4 }
        #expect(tree.completedUnitCount == 5 && tree.isFinished && tree.fractionCompleted == 1)
        tree.totalUnitCount = 10
        #expect(tree.fractionCompleted == 0.5 && !tree.isFinished)
    }

    @Test("cancel() and pause() reach every uncredited descendant; resume() undoes pause only")
    func cancelPauseResume() {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(ProgressTree(totalUnitCount: 1), withPendingUnitCount: 5)
        tree.addChild(ProgressTree(totalUnitCount: 1), withPendingUnitCount: 5)
        tree.updateChild(at: 1) { $0.addChild(ProgressTree(totalUnitCount: 1), withPendingUnitCount: 1) }
        tree.updateChild(at: 0) { $0.completedUnitCount = 1 }
        tree.pause()
        #expect(!tree.children[0].node.isPaused)
        #expect(tree.children[1].node.isPaused && tree.children[1].node.children[0].node.isPaused)
        tree.updateChild(at: 1) { $0.updateChild(at: 0) { $0.resume() } }
        #expect(tree.children[1].node.isPaused && !tree.children[1].node.children[0].node.isPaused)
        tree.resume()
        #expect(!tree.children[1].node.isPaused)
        tree.updateChild(at: 1) { $0.pause() }
        #expect(!tree.isPaused)
        tree.cancel()
        #expect(!tree.children[0].node.isCancelled)
        #expect(tree.children[1].node.isCancelled && tree.children[1].node.children[0].node.isCancelled)
        tree.resume()
        #expect(tree.isCancelled && !tree.isPaused)
        #expect(tree.completedUnitCount == 5 && tree.fractionCompleted == 0.5)
    }

    @Test("Children added to a cancelled or paused parent are cancelled or paused")
    func addToCancelledOrPaused() {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.cancel()
        tree.addChild(ProgressTree(totalUnitCount: 1), withPendingUnitCount: 0)
        #expect(tree.children[0].node.isCancelled && !tree.children[0].node.isPaused)
        tree.pause()
        tree.addChild(ProgressTree(totalUnitCount: 1), withPendingUnitCount: 0)
        #expect(tree.children[1].node.isCancelled && tree.children[1].node.isPaused)
    }

    @Test("A child replaced inside updateChild stays at least as cancelled as its parent")
    func replacedChildCancelled() {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(ProgressTree(totalUnitCount: 4), withPendingUnitCount: 5)
        tree.cancel()
        tree.updateChild(at: 0) { $0 = ProgressTree(totalUnitCount: 8) }
        #expect(tree.children[0].node.isCancelled && tree.children[0].node.totalUnitCount == 8)
    }

    @Test("Huge counts never trap and never give NaN")
    func hugeCounts() {
        var tree = ProgressTree(totalUnitCount: 1)
        tree.addChild(ProgressTree(totalUnitCount: 1), withPendingUnitCount: .max)
        tree.updateChild(at: 0) { $0.addChild(ProgressTree(totalUnitCount: 1), withPendingUnitCount: .max) }
        tree.updateChild(at: 0) {
            $0.updateChild(at: 0) { $0.addChild(ProgressTree(totalUnitCount: 1), withPendingUnitCount: .max) }
        }
        tree.updateChild(at: 0) { $0.updateChild(at: 0) { $0.updateChild(at: 0) { $0.completedUnitCount = .max - 1 } } }
        #expect(tree.fractionCompleted.isFinite && tree.fractionCompleted > 1)
        tree.completedUnitCount = .min
        #expect(tree.fractionCompleted.isFinite)
        var wide = ProgressTree(totalUnitCount: .max)
        wide.completedUnitCount = .max - 1
        #expect(wide.fractionCompleted == Double(Int64.max - 1) / Double(Int64.max))
    }

    @Test("The snapshot encodes with exactly the wire keys")
    func snapshotWireFormat() throws {
        var tree = ProgressTree(totalUnitCount: 4_000)
        tree.completedUnitCount = 1_000
        tree.pause()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(tree.snapshot), as: UTF8.self)
        #expect(
            json == #"{"completedUnitCount":1000,"fractionCompleted":0.25,"isCancelled":false,"#
                + #""isFinished":false,"isIndeterminate":false,"isPaused":true,"totalUnitCount":4000}"#)
        #expect(try JSONDecoder().decode(ProgressSnapshot.self, from: Data(json.utf8)) == tree.snapshot)
    }

    @Test("A tree survives an encode-decode round trip")
    func treeRoundTrip() throws {
        var tree = ProgressTree(totalUnitCount: 10)
        tree.addChild(ProgressTree(totalUnitCount: 4), withPendingUnitCount: 5)
        tree.addChild(ProgressTree(totalUnitCount: 4), withPendingUnitCount: 5)
        tree.updateChild(at: 0) { $0.completedUnitCount = 4 }
        tree.updateChild(at: 1) { $0.completedUnitCount = 1 }
        tree.cancel()
        let decoded = try JSONDecoder().decode(ProgressTree.self, from: try JSONEncoder().encode(tree))
        #expect(decoded == tree && decoded.fractionCompleted == 0.625)
    }

    @Test("Decoding a tree with an uncredited finished child throws")
    func decodingRejectsBrokenTree() {
        let json = #"""
            {"totalUnitCount":10,"completedUnitCount":0,"isCancelled":false,"isPaused":false,
             "children":[{"pendingUnitCount":5,"isCredited":false,
               "node":{"totalUnitCount":4,"completedUnitCount":4,"isCancelled":false,"isPaused":false,"children":[]}}]}
            """#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ProgressTree.self, from: Data(json.utf8))
        }
    }
}
