import Glibc
import Testing
import TimerSystem

@Suite("Socket activation (man sd_listen_fds(3))")
struct SocketActivationTests {
    typealias Passed = SocketActivation.PassedDescriptor

    @Test("Descriptors from 3 with their names, only for our pid")
    func parse() throws {
        let environment = ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "other:control"]
        let passed = try SocketActivation.parse(environment: environment, pid: 42)
        #expect(passed == [Passed(fd: 3, name: "other"), Passed(fd: 4, name: "control")])
        #expect(try SocketActivation.controlDescriptor(in: passed, hasNames: true) == 4)
        #expect(try SocketActivation.parse(environment: environment, pid: 7).isEmpty)
        #expect(try SocketActivation.parse(environment: [:], pid: 42).isEmpty)
    }

    @Test("Without names, exactly one descriptor is fd 3")
    func unnamed() throws {
        let one = try SocketActivation.parse(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "1"], pid: 42)
        #expect(one == [Passed(fd: 3, name: "unknown")])
        #expect(try SocketActivation.controlDescriptor(in: one, hasNames: false) == 3)
        let two = try SocketActivation.parse(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "2"], pid: 42)
        #expect(throws: SocketActivation.ActivationError.noControlSocket(names: ["unknown", "unknown"])) {
            try SocketActivation.controlDescriptor(in: two, hasNames: false)
        }
        #expect(try SocketActivation.controlDescriptor(in: [], hasNames: false) == nil)
    }

    @Test("Malformed variables are errors")
    func malformed() {
        #expect(throws: SocketActivation.ActivationError.malformed(variable: "LISTEN_FDS", value: "x")) {
            try SocketActivation.parse(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "x"], pid: 42)
        }
        #expect(throws: SocketActivation.ActivationError.malformed(variable: "LISTEN_PID", value: "me")) {
            try SocketActivation.parse(environment: ["LISTEN_PID": "me", "LISTEN_FDS": "1"], pid: 42)
        }
        #expect(throws: SocketActivation.ActivationError.nameCountMismatch(count: 2, names: 1)) {
            try SocketActivation.parse(
                environment: ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "control"], pid: 42)
        }
    }

    @Test("A descriptor that is not a listening Unix stream socket is refused")
    func check() throws {
        let path = "/tmp/timerd-activation-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let (fd, _) = try UnixSocket.listen(path)
        defer {
            Syscall.close(fd)
            unlink(path)
        }
        try SocketActivation.check(fd)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        #expect(throws: SocketActivation.ActivationError.wrongSocket(fd: ends[0], reason: "not a socket")) {
            try SocketActivation.check(ends[0])
        }
        let datagram = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(datagram) }
        #expect(throws: SocketActivation.ActivationError.wrongSocket(fd: datagram, reason: "SO_TYPE 2")) {
            try SocketActivation.check(datagram)
        }
        let unbound = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(unbound) }
        #expect(throws: SocketActivation.ActivationError.wrongSocket(fd: unbound, reason: "not listening")) {
            try SocketActivation.check(unbound)
        }
    }
}
