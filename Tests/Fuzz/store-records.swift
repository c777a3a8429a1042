// libFuzzer target: the store's journal and snapshot bytes, as a damaged disk could leave them
// (scripts/fuzz builds and runs it).
//
// Three readings of each input:
// 1. the input as a whole journal file, through Journal.recover (header, begin record, the commit
//    witness slots of format 5, the record scan, resynchronisation past damage, the damaged copy,
//    the cut and the witness rewritten after it; docs/durability.md), in a private temporary
//    directory;
// 2. the input as a whole snapshot file, through SnapshotFile.read;
// 3. the input's first byte as a record kind and the rest as its payload, straight into the payload
//    decoders (RecordPayload), so that mutations reach them without having to match a CRC-32C.
// Recovery must never keep more change records than the file's bytes could hold.
import Foundation
import Glibc

@testable import TimerStorage

/// A directory of this process's own for the files, under `$FUZZ_SCRATCH` (scripts/fuzz makes one on
/// tmpfs and removes it afterwards: the damaged copy is written with `fsync`, which a disk makes
/// slow), else under /tmp.
private let directory: String = {
    let parent = ProcessInfo.processInfo.environment["FUZZ_SCRATCH"] ?? "/tmp"
    var template = Array("\(parent)/timerd-fuzz-store.XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer in
        guard let base = buffer.baseAddress, let made = mkdtemp(base) else { return "/tmp" }
        return String(cString: made)
    }
}()

/// Writes `bytes` to `path`, replacing it.
private func write(_ bytes: UnsafeBufferPointer<UInt8>, to path: String) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return false }
    guard let base = bytes.baseAddress else { return close(fd) == 0 }
    defer { close(fd) }
    var done = 0
    while done < bytes.count {
        let n = Glibc.write(fd, base + done, bytes.count - done)
        guard n > 0 else { return false }
        done += n
    }
    return true
}

/// Removes every file in the directory (the journal, its damaged copies, a moved-aside file).
private func clean() {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
    for name in names { unlink(directory + "/" + name) }
}

/// Runs one input; libFuzzer calls it once per input.
///
/// - Parameters:
///   - data: the input's bytes.
///   - size: how many.
/// - Returns: 0 (libFuzzer's "keep going").
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreRecords(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let journal = directory + "/journal"
    if write(bytes, to: journal) {
        let now = Date(timeIntervalSince1970: 1_795_965_453)
        if let recovered = try? Journal.recover(at: journal, now: now, log: { _ in }) {
            precondition(
                recovered.entries.count <= size / RecordFormat.recordHeaderSize,
                "recovery kept more records than the bytes can hold")
        }
    }
    clean()
    let snapshot = directory + "/snapshot"
    if write(bytes, to: snapshot) { _ = try? SnapshotFile.read(snapshot) }
    clean()
    guard size > 0, let kind = RecordKind(rawValue: data[0]) else { return 0 }
    let payload = Array(bytes[1...])[...]
    switch kind {
    case .begin:
        for version in RecordFormat.readableVersions { _ = try? RecordPayload.decodeBegin(payload, version: version) }
    case .snapshot:
        for version in RecordFormat.readableVersions {
            _ = try? RecordPayload.decodeSnapshot(payload, version: version)
        }
    case .timer, .removed, .nextID:
        _ = try? RecordPayload.decodeEntry(kind, payload)
    case .witness:
        // A slot framed around the payload reads back exactly when the payload is 24 bytes.
        let witness = CommitWitness.read(RecordFormat.record(.witness, payload: Array(payload)), at: 0)
        precondition((witness != nil) == (payload.count == CommitWitness.payloadSize), "a witness slot misread")
        if let witness { precondition(witness.record == RecordFormat.record(.witness, payload: Array(payload))) }
    }
    return 0
}
