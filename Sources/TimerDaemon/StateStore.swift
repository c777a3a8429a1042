import Countdown
import Foundation
import Glibc
import TimerSystem

/// Reads `state.json`, the single JSON file in which timerd kept its state before the journal
/// (``DurableStore``), so that an upgrade keeps the timers. Only read, never written.
struct StateStore {
    /// The file's layout; `format` is bumped on incompatible changes.
    struct File: Codable {
        var format: Int
        var bootID: String?
        var engine: EngineSnapshot
    }

    let directory: String
    var path: String { directory + "/state.json" }

    /// Reads the saved state; `nil` when there is none. A file that cannot be read is moved aside
    /// (never deleted) and reported through `warn`.
    func load(warn: (String) -> Void) -> File? {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readAll(path)
        } catch let error where error.errno == .noSuchFileOrDirectory {
            return nil
        } catch {
            moveAside(error, warn: warn)
            return nil
        }
        do {
            let data = Data(bytes)
            let file = try JSONDecoder().decode(File.self, from: data)
            guard file.format == 1 else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSDebugDescriptionErrorKey: "format \(file.format)"])
            }
            return file
        } catch {
            moveAside(error, warn: warn)
            return nil
        }
    }

    /// Moves the unreadable file aside (never deleting it) and says so through `warn`.
    private func moveAside(_ error: any Error, warn: (String) -> Void) {
        let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"
        rename(path, aside)
        warn("WARNING: could not read \(path) (\(error)); moved it to \(aside) and started with no timers")
    }
}
