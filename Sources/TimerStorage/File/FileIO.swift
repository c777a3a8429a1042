import Foundation
import Glibc
import TimerSystem

/// The file system calls of the durable store, each behind a wrapper that throws ``SystemError``
/// with the call's name and path, and retries `EINTR`.
enum FileIO {
    /// Whether something exists at `path` (man lstat(2)).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The whole content of the file at `path` (``FileSystem/readAll(_:maximumBytes:)``).
    ///
    /// - Throws: ``SystemError`` from `open` or `read`.
    /// - Complexity: O(n) for n bytes.
    static func readAll(_ path: String) throws -> [UInt8] {
        try FileSystem.readAll(path)
    }

    /// Writes all of `bytes` at the descriptor's offset (a short write is continued; man write(2)).
    ///
    /// - Throws: ``SystemError`` from `write` (`ENOSPC`, `EIO` …).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let count = try bytes[offset...].withUnsafeBytes { raw in
                try Syscall.retrying("write \(path)", { Glibc.write(fd, raw.baseAddress, raw.count) })
            }
            offset += count
        }
    }

    /// Writes all of `bytes` at byte `offset` of the file (man pwrite(2); a short write is
    /// continued). The descriptor must not be opened with `O_APPEND`: Linux then appends whatever
    /// offset is given (man pwrite(2), BUGS).
    ///
    /// - Throws: ``SystemError`` from `pwrite` (`ENOSPC`, `EIO` …).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws {
        var written = 0
        while written < bytes.count {
            let count = try bytes[written...].withUnsafeBytes { raw in
                try Syscall.retrying(
                    "pwrite \(path)", { Glibc.pwrite(fd, raw.baseAddress, raw.count, off_t(offset + written)) })
            }
            written += count
        }
    }

    /// Flushes the file's data and metadata to the device (man fsync(2)).
    ///
    /// - Throws: ``SystemError`` from `fsync`.
    static func sync(_ fd: Int32, path: String) throws {
        try Syscall.retrying("fsync \(path)", { fsync(fd) })
    }

    /// Flushes the file's data, and the metadata needed to read that data back (its size, its
    /// block map), to the device, without the timestamps fsync(2) also flushes (man fdatasync(2):
    /// "fdatasync() is similar to fsync(), but does not flush modified metadata unless that
    /// metadata is needed in order to allow a subsequent data retrieval to be correctly
    /// handled"). Enough for a file whose content, not its times, is what is read back: the
    /// journal's appends (docs/durability.md, "Which flush"). Directories keep ``sync(_:path:)``.
    ///
    /// - Throws: ``SystemError`` from `fdatasync`.
    static func syncData(_ fd: Int32, path: String) throws {
        try Syscall.retrying("fdatasync \(path)", { fdatasync(fd) })
    }

    /// Makes the directory's entries (a rename, a new file) durable: `fsync` on the directory itself,
    /// as man fsync(2) requires after creating or renaming a file.
    ///
    /// - Throws: ``SystemError`` from `open` or `fsync`.
    static func syncDirectory(_ directory: String) throws {
        let fd = try Syscall.retrying("open \(directory)", { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
        defer { Syscall.close(fd) }
        try sync(fd, path: directory)
    }

    /// Cuts the file at `path` to `length` bytes and makes that durable (man truncate(2)).
    ///
    /// - Throws: ``SystemError`` from `open`, `ftruncate` or `fsync`.
    static func truncate(_ path: String, to length: Int) throws {
        let fd = try Syscall.retrying("open \(path)", { open(path, O_WRONLY | O_CLOEXEC) })
        defer { Syscall.close(fd) }
        try Syscall.retrying("ftruncate \(path)", { ftruncate(fd, off_t(length)) })
        try sync(fd, path: path)
    }

    /// Writes `bytes` over the file at `path` from byte `offset` on and makes that durable (man
    /// pwrite(2), fsync(2)).
    ///
    /// - Throws: ``SystemError`` from `open`, `pwrite` or `fsync`.
    static func overwrite(_ path: String, with bytes: [UInt8], at offset: Int) throws {
        let fd = try Syscall.retrying("open \(path)", { open(path, O_WRONLY | O_CLOEXEC) })
        defer { Syscall.close(fd) }
        try writeAll(fd, bytes, at: offset, path: path)
        try sync(fd, path: path)
    }

    /// Replaces the file at `path` atomically with `bytes`: write `path.tmp`, `fsync` it, `rename` it
    /// over `path`, `fsync` the directory (man rename(2): the rename is atomic; a crash leaves
    /// either the old or the new file, at worst plus a stale `path.tmp`, which readers ignore).
    ///
    /// - Parameters:
    ///   - bytes: the new content.
    ///   - path: the file to replace.
    ///   - directory: the directory holding it.
    ///   - keepOpen: return the new file open for writing (without `O_APPEND`, so that `pwrite`
    ///     can rewrite a place inside it; ``writeAll(_:_:at:path:)``) instead of closing it.
    /// - Returns: the open descriptor when `keepOpen`, else `nil`.
    /// - Throws: ``SystemError`` from `open`, `write`, `fsync` or `rename`; `path` is then unchanged.
    @discardableResult
    static func replaceAtomically(_ bytes: [UInt8], at path: String, in directory: String, keepOpen: Bool = false)
        throws -> Int32?
    {
        let temporary = path + ".tmp"
        let flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
        let fd = try Syscall.retrying("open \(temporary)", { open(temporary, flags, 0o600) })
        do {
            try writeAll(fd, bytes, path: temporary)
            try sync(fd, path: temporary)
            try Syscall.retrying("rename \(temporary)", { rename(temporary, path) })
            try syncDirectory(directory)
        } catch {
            Syscall.close(fd)
            unlink(temporary)  // a partial file would only hold space (a full disk) until the next attempt
            throw error
        }
        if keepOpen { return fd }
        Syscall.close(fd)
        return nil
    }

    /// A free name for a damaged copy of `path`: `path.damaged-<UTC timestamp>`
    /// (`journal.damaged-20261129T154700Z`), with `-2`, `-3` … added if that name is taken.
    static func damagedName(_ path: String, now: Date) -> String {
        var seconds = time_t(now.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let stamp =
            String(
                format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1_900, Int(parts.tm_mon) + 1,
                Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
        var aside = "\(path).damaged-\(stamp)"
        var suffix = 2
        while exists(aside) {
            aside = "\(path).damaged-\(stamp)-\(suffix)"
            suffix += 1
        }
        return aside
    }

    /// Moves a damaged file aside, never deleting it, to ``damagedName(_:now:)``.
    ///
    /// - Parameters:
    ///   - path: the damaged file.
    ///   - now: the time to name it after.
    /// - Returns: the new path.
    /// - Throws: ``SystemError`` from `rename`.
    static func moveAside(_ path: String, now: Date) throws -> String {
        let aside = damagedName(path, now: now)
        try Syscall.retrying("rename \(path)", { rename(path, aside) })
        if let slash = path.lastIndex(of: "/") { try? syncDirectory(String(path[..<slash])) }
        return aside
    }

    /// Writes `bytes` (a damaged file's whole content, read before any repair) to
    /// ``damagedName(_:now:)`` and makes it durable, so that nothing recovery cuts or skips is lost.
    ///
    /// - Parameters:
    ///   - bytes: the content to keep.
    ///   - path: the damaged file.
    ///   - now: the time to name the copy after.
    /// - Returns: the copy's path.
    /// - Throws: ``SystemError`` from `open`, `write` or `fsync`; the damaged file is then unchanged.
    static func copyAside(_ bytes: [UInt8], of path: String, now: Date) throws -> String {
        let copy = damagedName(path, now: now)
        let fd = try Syscall.retrying("open \(copy)", { open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) })
        defer { Syscall.close(fd) }
        try writeAll(fd, bytes, path: copy)
        try sync(fd, path: copy)
        if let slash = path.lastIndex(of: "/") { try syncDirectory(String(path[..<slash])) }
        return copy
    }
}
