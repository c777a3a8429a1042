import Countdown
import Foundation
import Glibc
import TimerSystem

/// Keeps the engine's state in one JSON file, replaced atomically on every change: write a
/// temporary file, `fsync` it, `rename` it over the old one, `fsync` the directory (the sequence
/// man rename(2) and ext4's documentation give for a crash-safe replace). A change is saved before
/// the daemon acknowledges it.
struct StateStore {
    /// The file's layout; `format` is bumped on incompatible changes.
    struct File: Codable {
        var format: Int
        var bootID: String?
        var engine: EngineSnapshot
    }

    let directory: String
    var path: String { directory + "/state.json" }

    /// The current boot's id (`/proc/sys/kernel/random/boot_id`), or `nil` when unreadable.
    static func currentBootID() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
            return nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Reads the saved state; `nil` when there is none. A file that cannot be read is moved aside
    /// (never deleted) and reported through `warn`, and the daemon starts empty.
    func load(warn: (String) -> Void) -> File? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let file = try JSONDecoder().decode(File.self, from: data)
            guard file.format == 1 else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSDebugDescriptionErrorKey: "format \(file.format)"])
            }
            return file
        } catch {
            let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"
            rename(path, aside)
            warn("WARNING: could not read \(path) (\(error)); moved it to \(aside) and started with no timers")
            return nil
        }
    }

    /// Saves `engine` durably.
    ///
    /// - Throws: ``SystemError`` or an encoding error; the old file is then still intact.
    func save(_ engine: EngineSnapshot, bootID: String?) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(File(format: 1, bootID: bootID, engine: engine))
        let temporary = path + ".tmp"
        let fd = try Syscall.retrying(
            "open \(temporary)", { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) })
        do {
            try Syscall.writeAll(fd, Array(data))
            try Syscall.retrying("fsync \(temporary)", { fsync(fd) })
        } catch {
            Syscall.close(fd)
            throw error
        }
        Syscall.close(fd)
        try Syscall.retrying("rename \(temporary)", { rename(temporary, path) })
        let directoryFD = try Syscall.retrying(
            "open \(directory)", { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
        defer { Syscall.close(directoryFD) }
        try Syscall.retrying("fsync \(directory)", { fsync(directoryFD) })
    }
}
