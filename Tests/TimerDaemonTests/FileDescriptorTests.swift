import Foundation
import Glibc
import Testing
import TimerSystem

/// The OS layer's wrappers on real descriptors (a pipe, a socket in a per-test directory, a file):
/// `nil` for `EAGAIN`, 0 at end of file, named errors matched by ``Errno`` pattern.
@Suite("TimerSystem: owned descriptors, Errno and the read, write, accept and file wrappers")
struct FileDescriptorTests {
    /// A non-blocking pipe's two ends, to be adopted by the test.
    static func pipeEnds() throws -> (readEnd: Int32, writeEnd: Int32) {
        var ends: [Int32] = [0, 0]
        try Syscall.retrying("pipe", { pipe(&ends) })
        try Syscall.setNonBlocking(ends[0])
        try Syscall.setNonBlocking(ends[1])
        return (ends[0], ends[1])
    }

    @Test("read returns nil on EAGAIN, the count when data is there, and 0 once the writer is gone")
    func readAndWrite() throws {
        let ends = try Self.pipeEnds()
        let reader = FileDescriptor(adopting: ends.readEnd)
        let writer = FileDescriptor(adopting: ends.writeEnd)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try reader.read(into: &buffer) == nil)  // empty, non-blocking: EAGAIN
        #expect(try writer.write(Array("hello".utf8)[...]) == 5)
        #expect(try reader.read(into: &buffer) == 5)
        #expect(Array(buffer.prefix(5)) == Array("hello".utf8))
        writer.close()
        #expect(try reader.read(into: &buffer) == 0)  // end of file
    }

    @Test("write returns nil when a non-blocking pipe is full, not an error")
    func writeWouldBlock() throws {
        let ends = try Self.pipeEnds()
        let reader = FileDescriptor(adopting: ends.readEnd)
        let writer = FileDescriptor(adopting: ends.writeEnd)
        let chunk = [UInt8](repeating: 1, count: 65_536)
        var total = 0
        var sawFull = false
        // A pipe holds 64 KiB by default (man pipe(7)); 64 rounds cannot all fit.
        for _ in 0..<64 {
            guard let count = try writer.write(chunk[...]) else {
                sawFull = true
                break
            }
            total += count
        }
        #expect(sawFull)
        #expect(total >= 4_096)
        reader.close()
    }

    @Test("accept returns nil with nobody waiting, then the connection once a client connects")
    func acceptWouldBlock() throws {
        let directory = NSTemporaryDirectory() + "fd-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try RuntimePaths.makeDirectories(directory, mode: 0o700)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/s.sock"
        let listener = FileDescriptor(adopting: try UnixSocket.listen(path).fd)
        #expect(try listener.accept() == nil)
        let client = FileDescriptor(adopting: try UnixSocket.connect(path))
        guard let accepted = try listener.accept() else {
            Issue.record("accept found no pending connection after connect")
            return
        }
        #expect(try accepted.write(Array("x".utf8)[...]) == 1)
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(try client.read(into: &buffer) == 1)
        #expect(try UnixSocket.peerCredentials(accepted.rawValue).uid == getuid())
    }

    @Test("A failed call throws its name and an Errno that matches by pattern")
    func namedErrors() throws {
        let missing = "/nonexistent-\(getpid())/file"
        #expect(throws: SystemError("open \(missing)", errno: .noSuchFileOrDirectory)) {
            try FileSystem.readAll(missing)
        }
        do {
            _ = try FileDescriptor.open(missing, O_RDONLY)
            Issue.record("open of a missing file succeeded")
        } catch {
            switch error.errno {
            case .noSuchFileOrDirectory: break
            default: Issue.record("unexpected \(error)")
            }
            // strerror(ENOENT) in glibc.
            #expect(error.description == "open \(missing): No such file or directory")
        }
        #expect(Errno(rawValue: EMFILE).isDescriptorExhaustion)
        #expect(Errno(rawValue: ENFILE).isDescriptorExhaustion)
        #expect(!Errno.wouldBlock.isDescriptorExhaustion)
    }

    @Test("readAll reads a whole file, /proc's size-0 files too, and stops just past maximumBytes")
    func readAll() throws {
        let path = NSTemporaryDirectory() + "fd-tests-\(getpid())-readall"
        let content = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 253) }
        try Data(content).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        #expect(try FileSystem.readAll(path) == content)
        #expect(try FileSystem.readAll(path, maximumBytes: 1_000).count == 1_001)
        // /proc/self/stat reports st_size 0 but has content (man proc(5)): it starts with our pid.
        let stat = String(decoding: try FileSystem.readAll("/proc/self/stat"), as: UTF8.self)
        #expect(stat.hasPrefix("\(getpid()) ("))
    }

    /// The sample of TimerSystem.docc/TimerSystem.md, verbatim, so that it keeps compiling.
    static func readHostname() throws(SystemError) -> String {
        let file = try FileDescriptor.open("/etc/hostname", O_RDONLY)
        var buffer = [UInt8](repeating: 0, count: 256)
        // nil would mean "not ready" on a non-blocking descriptor; a file always has an answer.
        let count = try file.read(into: &buffer) ?? 0
        file.close()  // optional: leaving the scope closes it too
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    @Test("The DocC catalog's sample reads the same bytes as Foundation does")
    func doccSample() throws {
        let text: String
        do {
            text = try Self.readHostname()
        } catch let error where error.errno == .noSuchFileOrDirectory {
            #expect(error.description == "open /etc/hostname: No such file or directory")
            return
        }
        // Foundation as the independent reader (the file is at most 256 bytes: HOST_NAME_MAX is 64).
        #expect(text == (try String(contentsOfFile: "/etc/hostname", encoding: .utf8)))
    }
}
