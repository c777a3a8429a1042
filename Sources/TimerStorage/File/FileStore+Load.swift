import Countdown
import Foundation
import TimerSystem

extension FileStore {
    /// What ``load(now:log:)`` found of one file.
    enum Found<Content> {
        /// No such file.
        case absent
        /// The file is damaged beyond use; the text says how.
        case damaged(String)
        /// The file was read.
        case read(Content)
    }

    /// Reads the snapshot and replays the journal over it, repairing what recovery repairs (see
    /// ``Journal/recover(at:now:log:)``), and checks that the two pair up.
    ///
    /// The snapshot names the journal generation it expects and each journal's begin record names
    /// the generation of the snapshot it continues. The state is complete when both are there with
    /// one generation; when the journal is one generation older (a crash inside a compaction: it
    /// is already in the snapshot and is ignored); when neither file nor any damaged copy of one
    /// exists (a first start); or when only a journal of generation 1 exists (a crash inside the
    /// first start: the snapshot it follows is the empty first state). Anything else means
    /// acknowledged changes are missing: with ``StateLossPolicy/refuse`` this throws
    /// ``StoreError/stateLost(_:)`` and leaves a damaged snapshot where it is; with
    /// ``StateLossPolicy/accept`` it logs a `WARNING:` line, moves a damaged snapshot aside and
    /// goes on with what is intact.
    ///
    /// The next id is exact when everything was intact; after any repair or loss it is the highest
    /// id high-water mark of every intact source (snapshot, begin record, journal records), so an
    /// id handed out in a lost record is never handed out again.
    ///
    /// - Parameters:
    ///   - now: the time damaged files are named after.
    ///   - log: where recovery's lines go.
    /// - Returns: the state found (``StoreLoad/notes`` empty: the lines went to `log`).
    /// - Throws: ``StoreError/stateLost(_:)``; ``SystemError`` when a file cannot be read,
    ///   copied, truncated or moved.
    /// - Complexity: O(n + k log k) for n timers in the snapshot and k journal records.
    func load(now: Date = Date(), log: (String) -> Void) throws -> StoreLoad {
        reusableJournal = nil
        let hadAnything =
            FileIO.exists(snapshotPath) || FileIO.exists(journalPath) || hasDamagedCopies()
        var snapshot: Found<(payload: SnapshotPayload, version: UInt32)> = .absent
        if FileIO.exists(snapshotPath) {
            do {
                snapshot = .read(try SnapshotFile.read(snapshotPath))
            } catch let problem as SnapshotFile.Problem {
                snapshot = .damaged("\(problem)")
            }
        }
        var journal: Found<Journal.Recovered> = .absent
        if FileIO.exists(journalPath) {
            journal = try Journal.recover(at: journalPath, now: now, log: log).map { .read($0) } ?? .damaged("unusable")
        }
        if !hadAnything, hadLockFile {
            // Not a first start: an earlier timerd left its lock, so the state files were removed.
            log(
                "WARNING: \(directory): no snapshot and no journal, but the lock file of an earlier timerd: "
                    + "the state files were removed; starting with no timers")
        }
        let loss = Self.lossDescription(snapshot: snapshot, journal: journal, hadAnything: hadAnything)
        if let loss {
            guard lossPolicy == .accept else {
                throw StoreError.stateLost(
                    "the state in \(directory) is incomplete: \(loss); acknowledged changes would be lost, so timerd "
                        + "does not start. Restore the missing file, or start once with --accept-state-loss to go on "
                        + "with what is left")
            }
            log("WARNING: \(directory): \(loss); going on with what is left (--accept-state-loss)")
        }
        var timers: [TimerRecord] = []
        var nextID: UInt64 = 1
        var marks: [UInt64] = []
        var stateBootID: String?
        var snapshotGeneration: UInt64?
        var compactionReason: String? = loss.map { _ in "lost state" }
        generation = 0
        switch snapshot {
        case .read(let (payload, version)):
            timers = payload.engine.timers
            nextID = payload.engine.nextID
            marks += [payload.idHighWater].compactMap { $0 }
            stateBootID = payload.bootID
            snapshotGeneration = payload.journalGeneration
            generation = payload.journalGeneration
            if version != RecordFormat.version {
                compactionReason = compactionReason ?? "snapshot in format version \(version)"
            }
        case .damaged(let problem):
            let aside = try FileIO.moveAside(snapshotPath, now: now)
            log("WARNING: \(snapshotPath): unreadable snapshot (\(problem)); moved it to \(aside)")
            compactionReason = compactionReason ?? "damaged snapshot"
        case .absent:
            compactionReason = compactionReason ?? "no snapshot"
        }
        if case .read(let recovered) = journal {
            if let snapshotGeneration, recovered.begin.generation < snapshotGeneration {
                log(
                    "ignored \(journalPath): generation \(recovered.begin.generation) is already in the snapshot (generation \(snapshotGeneration))"
                )
                compactionReason = compactionReason ?? "stale journal"
            } else {
                timers = Self.replay(recovered, over: timers, nextID: &nextID, log: log)
                // The witness's next id is exact after an intact load; after a cut it keeps the ids of
                // the cut records from being handed out again.
                nextID = max(nextID, recovered.witness?.nextID ?? 0)
                marks += [recovered.begin.idHighWater, recovered.witness?.nextID].compactMap { $0 }
                stateBootID = recovered.begin.bootID
                generation = max(generation, recovered.begin.generation)
                if !recovered.isIntact {
                    compactionReason = compactionReason ?? "repaired journal"
                } else if recovered.version != RecordFormat.version {
                    compactionReason = compactionReason ?? "journal in format version \(recovered.version)"
                } else if recovered.begin.generation != snapshotGeneration {
                    compactionReason = compactionReason ?? "journal of another generation"
                } else if compactionReason == nil {
                    reusableJournal = recovered
                }
            }
        } else if case .damaged = journal {
            compactionReason = compactionReason ?? "unusable journal"
        }
        var isRepaired = loss != nil
        switch (snapshot, journal) {
        case (.damaged, _), (_, .damaged): isRepaired = true
        case (_, .read(let recovered)): isRepaired = isRepaired || !recovered.isIntact
        default: break
        }
        // Records may have been lost: start new ids above every mark an intact source holds.
        if isRepaired { nextID = max(nextID, marks.max() ?? 0) }
        idHighWater = max(nextID, marks.max() ?? 0)
        let isSameBoot = stateBootID != nil && stateBootID == bootID
        if !isSameBoot { compactionReason = compactionReason ?? "another boot" }
        startupCompactionReason = compactionReason
        journaledNextID = nextID
        isAwaitingOpen = true
        let isEmpty: Bool
        if case .absent = snapshot, case .absent = journal { isEmpty = true } else { isEmpty = false }
        return StoreLoad(
            snapshot: EngineSnapshot(nextID: nextID, timers: timers), isSameBoot: isSameBoot, isEmpty: isEmpty)
    }

    /// What is missing, by the pairing rule of ``load(now:log:)``, or `nil` when the state is complete.
    static func lossDescription(
        snapshot: Found<(payload: SnapshotPayload, version: UInt32)>, journal: Found<Journal.Recovered>,
        hadAnything: Bool
    ) -> String? {
        switch (snapshot, journal) {
        case (.absent, .absent):
            return hadAnything ? "the snapshot and the journal are missing (only damaged copies are left)" : nil
        case (.read(let (payload, _)), .read(let recovered)):
            let expected = payload.journalGeneration
            let found = recovered.begin.generation
            if found == expected || found + 1 == expected { return nil }
            if found > expected {
                return "the journal (generation \(found)) continues a snapshot of generation \(found), "
                    + "but the snapshot is of generation \(expected)"
            }
            return "the snapshot expects journal generation \(expected), but the journal is of generation \(found)"
        case (.read(let (payload, _)), .absent):
            return "the snapshot expects journal generation \(payload.journalGeneration), but there is no journal"
        case (.read(let (payload, _)), .damaged):
            return "the snapshot expects journal generation \(payload.journalGeneration), but the journal is unusable"
        case (.absent, .read(let recovered)):
            let generation = recovered.begin.generation
            return generation == 1
                ? nil : "the journal continues snapshot generation \(generation), but there is no snapshot"
        case (.damaged(let problem), _):
            return "the snapshot is unreadable (\(problem))"
        case (.absent, .damaged):
            return "there is no snapshot and the journal is unusable"
        }
    }

    /// Whether a damaged copy of the snapshot or the journal (`*.damaged-*`) is in the directory.
    func hasDamagedCopies() -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.contains { $0.hasPrefix("snapshot.damaged-") || $0.hasPrefix("journal.damaged-") }
    }
}
