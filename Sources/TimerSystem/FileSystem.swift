import Glibc

/// Reading whole files: the one way the service reads a file (configuration, state, `/proc`, `/etc`).
public enum FileSystem {
    /// The whole content of the file at `path`, or its first `maximumBytes + 1` bytes.
    ///
    /// The buffer is sized from `fstat` once (man fstat(2)), so an 8 MB snapshot is read straight
    /// into place instead of through 128 appends of 64 KiB; it still grows, by doubling, if the
    /// file is longer than `fstat` said (files under `/proc` report a size of 0).
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - maximumBytes: stop once more than this many bytes were read; a result longer than
    ///     `maximumBytes` tells the caller the file is too large (without reading all of it).
    /// - Returns: the bytes.
    /// - Throws: ``SystemError`` `open <path>` (``Errno/noSuchFileOrDirectory`` when it is missing)
    ///   or `read <path>`.
    /// - Complexity: O(n) for n bytes.
    public static func readAll(_ path: String, maximumBytes: Int = .max) throws(SystemError) -> [UInt8] {
        let file = try FileDescriptor.open(path, O_RDONLY)
        var info = stat()
        let expected = fstat(file.rawValue, &info) == 0 ? max(0, Int(info.st_size)) : 0
        // One byte more than expected, so that the read seeing end-of-file needs no growth.
        var bytes = [UInt8](repeating: 0, count: min(expected, maximumBytes) + 1)
        var filled = 0
        while filled <= maximumBytes {
            if filled == bytes.count { bytes += repeatElement(0, count: max(1 << 16, bytes.count)) }
            let fd = file.rawValue
            let count = try bytes.withUnsafeMutableBytes { raw in
                let rest = UnsafeMutableRawBufferPointer(rebasing: raw[filled...])
                return Result { () throws(SystemError) in
                    try Syscall.retrying("read \(path)", { Glibc.read(fd, rest.baseAddress, rest.count) })
                }
            }.get()
            if count == 0 { break }
            filled += count
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }
}
