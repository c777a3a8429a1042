// libFuzzer target: what the file store saves is what it loads (scripts/fuzz builds and runs it).
//
// Each input drives a fresh TimerService (manual clock, history of 8, quota 64) with up to 32
// request lines, as `json-rpc` does, and commits every line's changes to a FileStore in a fresh
// directory, as the daemon's loop does (a journal append per commit; a compaction whenever the
// journal passes its limit, which the input's first byte sets to 1–16 records). Then a second
// FileStore loads the directory as a restarted timerd would, with nothing damaged, and the state
// it loads must equal the engine's, timer for timer and the next id (docs/durability.md: after an
// intact load the next id is exact). A difference stops the run like a crash: every field the
// grammar lets a client set must survive the binary codec.
import Countdown
import Foundation
import Glibc
import TimerService

@testable import TimerStorage

/// The instant the manual clock starts at: 2026-11-29T15:17:33Z (the suites' fixed instant).
private let startInstant = Date(timeIntervalSince1970: 1_795_965_453)

/// A directory of this process's own, under `$FUZZ_SCRATCH` (tmpfs, made and removed by
/// scripts/fuzz), else under /tmp.
private let scratch: String = {
    let parent = ProcessInfo.processInfo.environment["FUZZ_SCRATCH"] ?? "/tmp"
    var template = Array("\(parent)/timerd-fuzz-roundtrip.XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer in
        guard let base = buffer.baseAddress, let made = mkdtemp(base) else { return "/tmp" }
        return String(cString: made)
    }
}()

/// Runs one input; libFuzzer calls it once per input.
///
/// - Parameters:
///   - data: the input's bytes.
///   - size: how many.
/// - Returns: 0 (libFuzzer's "keep going").
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreRoundTrip(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let directory = scratch + "/state"
    try? FileManager.default.removeItem(atPath: directory)
    guard mkdir(directory, 0o700) == 0 else { return 0 }
    let clock = ManualClock(wall: startInstant)
    var service = TimerService(engine: TimerEngine(clock: clock, historyLimit: 8), quota: 64, pid: 1)
    let store = FileStore(
        directory: directory, bootID: "fuzz", journalMaximumRecords: 1 + Int(data[0] % 16),
        bootNanoseconds: { clock.now().nanoseconds })
    do {
        _ = try store.load(now: startInstant) { _ in }
        _ = try store.open(restoring: service.engine.takeChanges(), snapshot: { service.engine.snapshot })
        let lines = UnsafeBufferPointer(start: data + 1, count: size - 1)
            .split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(32)
        for (index, line) in lines.enumerated() {
            let bytes = Array(line)
            let uid: UInt32 = bytes.count % 2 == 0 ? 1_000 : 0
            _ = service.handle(
                line: bytes, context: RequestContext(uid: uid, waiter: UInt64(index + 1), connection: UInt64(uid)))
            clock.advance(byNanoseconds: 1_500_000_000)
            _ = service.fireDueTimers()
            try store.commit(service.engine.takeChanges(), snapshot: { service.engine.snapshot })
            _ = try store.compactIfDue(isQuiet: index % 3 == 0, snapshot: { service.engine.snapshot })
        }
    } catch {
        preconditionFailure("the store refused a commit in a fresh directory on tmpfs: \(error)")
    }
    let expected = service.engine.snapshot
    do {
        let loaded = try FileStore(directory: directory, bootID: "fuzz").load(now: startInstant) { line in
            preconditionFailure("an intact state loaded with a repair: \(line)")
        }
        precondition(
            loaded.snapshot.nextID == expected.nextID, "next id \(loaded.snapshot.nextID), saved \(expected.nextID)")
        precondition(
            loaded.snapshot.timers == expected.timers,
            "loaded timers differ from the saved ones:\n\(loaded.snapshot.timers)\nsaved:\n\(expected.timers)")
    } catch {
        preconditionFailure("an intact state did not load: \(error)")
    }
    return 0
}
