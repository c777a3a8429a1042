import CLinux
import Glibc

/// Watches a file such as `/etc/localtime` for being replaced or rewritten, with inotify(7) on its
/// directory: tools replace the file by a rename (`timedatectl set-timezone`, `ln -sf`), which a
/// watch on the file itself would not follow. The descriptor becomes readable on any change in the
/// directory; ``acknowledge()`` tells whether one concerned the file.
public final class ZoneFileWatch {
    /// The inotify descriptor (non-blocking, close-on-exec).
    public let descriptor: FileDescriptor
    /// The watched file's name within its directory.
    private let name: [UInt8]
    /// The file watched.
    public let path: String

    /// Starts watching `path`'s directory for creations, renames, writes and removals.
    ///
    /// - Parameter path: an absolute or relative file path (its directory must exist).
    /// - Throws: ``SystemError`` from `inotify_init1` or `inotify_add_watch` (e.g. a missing directory).
    public init(path: String) throws(SystemError) {
        self.path = path
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        name = Array((slash.map { String(path[path.index(after: $0)...]) } ?? path).utf8)
        descriptor = FileDescriptor(
            adopting: try Syscall.retrying("inotify_init1", { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }))
        let fd = descriptor.rawValue
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB)
        _ = try Syscall.retrying("inotify_add_watch \(directory)", { inotify_add_watch(fd, directory, mask) })
    }

    /// Reads every pending event.
    ///
    /// - Returns: whether one of them concerned the watched file (or the queue overflowed, when any
    ///   may have), so that the caller reads the file again.
    public func acknowledge() -> Bool {
        var concerned = false
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count: Int?
            do {
                count = try descriptor.read(into: &buffer)
            } catch {
                return concerned
            }
            guard let count, count > 0 else { return concerned }
            // struct inotify_event: wd Int32, mask UInt32, cookie UInt32, len UInt32, name[len] (man inotify(7)).
            var offset = 0
            while offset + 16 <= count {
                func word(_ at: Int) -> UInt32 {
                    buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
                }
                let mask = word(offset + 4)
                let length = Int(word(offset + 12))
                let nameStart = offset + 16
                let nameEnd = min(count, nameStart + length)
                let eventName = buffer[nameStart..<nameEnd].prefix { $0 != 0 }
                if mask & UInt32(IN_Q_OVERFLOW) != 0 || Array(eventName) == name { concerned = true }
                offset = nameStart + length
            }
        }
    }
}
