// libFuzzer target: request lines as a client sends them to timerd (scripts/fuzz builds and runs it).
//
// Each input is split at LF into up to 32 lines. Every line goes through the one JSON reader in both
// modes (JSONValue), timerctl's reply reader (RPCReply), and then the daemon's request router
// (TimerService.handle) on a fresh engine with a manual clock and timerd's own local-time resolver,
// as uid 0 or 1000 chosen by the line's length; streamed listings are written out and due timers
// fired after each line. A trap anywhere is a crash libFuzzer reports (rule 5: bad input gets an
// error, never a crash).
import Countdown
import Foundation
import TimerProtocol
import TimerService

@testable import TimerDaemon

/// The instant the manual clock starts at: 2026-11-29T15:17:33Z (the suites' fixed instant).
private let startInstant = Date(timeIntervalSince1970: 1_795_965_453)

/// Runs one input; libFuzzer calls it once per input.
///
/// - Parameters:
///   - data: the input's bytes.
///   - size: how many.
/// - Returns: 0 (libFuzzer's "keep going").
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestLines(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let clock = ManualClock(wall: startInstant)
    var service = TimerService(engine: TimerEngine(clock: clock, historyLimit: 8), quota: 64, pid: 1)
    service.localTimeResolver = LocalTimes.resolver
    for (index, line) in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(32)
        .enumerated()
    {
        let bytes = Array(line)
        for leniency in [JSONValue.Leniency.strict, .foundationCompatible] {
            checkRequestMembers(bytes, leniency: leniency)
        }
        _ = try? RPCReply(line: bytes)
        let uid: UInt32 = bytes.count % 2 == 0 ? 1_000 : 0
        var outcome = service.handle(
            line: bytes, context: RequestContext(uid: uid, waiter: UInt64(index + 1), connection: UInt64(uid)))
        if var listing = outcome.listing {
            var out: [UInt8] = []
            while !listing.isFinished { service.writeListing(&listing, into: &out, upTo: 4_096) }
            outcome.listing = nil
        }
        clock.advance(byNanoseconds: 1_500_000_000)
        _ = service.fireDueTimers()
    }
    return 0
}

/// The daemon's request reader (`JSONValue.requestMembers`) must accept exactly the
/// objects `JSONValue(parsing:)` accepts, with the same members (first of duplicates) and the same
/// `params`; a difference traps, so libFuzzer reports it.
///
/// - Parameters:
///   - bytes: one line.
///   - leniency: the mode both read it in.
private func checkRequestMembers(_ bytes: [UInt8], leniency: JSONValue.Leniency) {
    let value = JSONValue(parsing: bytes, leniency: leniency)
    let request = JSONValue.requestMembers(parsing: bytes, leniency: leniency)
    guard case .object(let object)? = value else {
        precondition(request == nil, "requestMembers read a line that is not a JSON object")
        return
    }
    guard let request else { preconditionFailure("requestMembers refused a JSON object") }
    var rebuilt = request.members.dictionary
    if let params = request.params { rebuilt["params"] = .object(params.dictionary) }
    precondition(rebuilt == object, "requestMembers read other members than JSONValue(parsing:)")
    // A request with a name twice in one object is refused (docs/protocol.md): with no duplicate
    // reported, the top level's and params' names are each unique.
    if request.duplicateKey == nil {
        precondition(Set(request.members.keys).count == request.members.keys.count, "an unreported duplicate name")
        if let params = request.params {
            precondition(Set(params.keys).count == params.keys.count, "an unreported duplicate name in params")
        }
    }
}
